/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_msg.c: every body decoder of src/proto behind one function, each
 * with its encoder for the round trip (see fuzz_msg.h).
 *
 * Each entry decodes, runs what the receiver runs next on the result, and
 * encodes it again into out; it returns 0 when both steps succeeded.  An
 * encoder may refuse what a decoder accepted (limits are checked on both
 * sides); what it does produce must survive the round trip unchanged.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_msg.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "proto/proto_pty.h"
#include "proto/proto_qos.h"
#include "proto/proto_report.h"
#include "proto/proto_step.h"
#include "proto/msg_tools.h"

typedef int msg_fn(const uint8_t *p, size_t n, struct kai_buf *out);

static int
m_error(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_msg_error m;
	struct kai_err err;
	int r;

	memset(&m, 0, sizeof(m));
	if (kai_msg_error_decode(p, n, &m, &err) != 0)
		return -1;
	r = kai_msg_error_encode(out, m.code, m.msg, m.hint);
	kai_msg_error_fini(&m);
	return r;
}

static int
m_submit(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_jobspec js;
	struct kai_err err;
	int r;

	memset(&js, 0, sizeof(js));
	if (kai_msg_submit_decode(p, n, &js, &err) != 0) {
		kai_jobspec_fini(&js);
		return -1;
	}
	(void)!kai_jobspec_validate(&js, &err);
	(void)!kai_jobspec_check_sched(&js, &err);
	r = kai_msg_submit_encode(out, &js);
	kai_jobspec_fini(&js);
	return r;
}

static int
m_submit_ext(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_submit_ext x;
	struct kai_err err;
	int r;

	memset(&x, 0, sizeof(x));
	if (kai_msg_submit_ext_decode(p, n, &x, &err) != 0) {
		kai_submit_ext_fini(&x);
		return -1;
	}
	(void)!kai_jobspec_validate(&x.spec, &err);
	r = kai_msg_submit_ext_encode(out, &x);
	kai_submit_ext_fini(&x);
	return r;
}

static int
m_u64(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	uint64_t v;

	if (kai_msg_u64_decode(p, n, &v, &err) != 0)
		return -1;
	return kai_msg_u64_encode(out, v);
}

static int
m_u32(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	uint32_t v;

	if (kai_msg_u32_decode(p, n, &v, &err) != 0)
		return -1;
	return kai_msg_u32_encode(out, v);
}

static int
m_query(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_query q;
	struct kai_err err;
	int r;

	memset(&q, 0, sizeof(q));
	if (kai_msg_query_decode(p, n, &q, &err) != 0) {
		kai_query_fini(&q);
		return -1;
	}
	r = kai_msg_query_encode(out, &q);
	kai_query_fini(&q);
	return r;
}

static int
m_jobs(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_err err;
	size_t nj = 0, first = 0, i;
	int r;

	r = kai_msg_jobs_decode(p, n, &jobs, &nj, &err);
	if (r == 0)
		r = kai_msg_jobs_encode(out, jobs, nj, &first,
		    KAI_PROTO_BODY_MAX);
	/* A list that spans frames is not one body: no round trip. */
	if (r == 0 && first != nj)
		r = -1;
	for (i = 0; i < nj; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	return r;
}

static int
m_cancel(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_cancel c;
	struct kai_err err;
	int r;

	memset(&c, 0, sizeof(c));
	if (kai_msg_cancel_decode(p, n, &c, &err) != 0) {
		kai_cancel_fini(&c);
		return -1;
	}
	r = kai_msg_cancel_encode(out, &c);
	kai_cancel_fini(&c);
	return r;
}

static int
m_cancel_reply(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_cancel_result *res = NULL;
	struct kai_err err;
	size_t nr = 0;
	int r;

	if (kai_msg_cancel_reply_decode(p, n, &res, &nr, &err) != 0)
		return -1;
	r = kai_msg_cancel_reply_encode(out, res, nr);
	kai_cancel_results_free(res, nr);
	return r;
}

static int
m_ping_reply(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	uint32_t uid, gid;

	if (kai_msg_ping_reply_decode(p, n, &uid, &gid, &err) != 0)
		return -1;
	return kai_msg_ping_reply_encode(out, uid, gid);
}

static int
m_queues(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_queue *q = NULL;
	struct kai_err err;
	size_t nq = 0, i;
	int r;

	if (kai_msg_queues_decode(p, n, &q, &nq, &err) != 0)
		return -1;
	for (i = 0; i < nq; i++)
		(void)!kai_queue_check(&q[i], &err);
	r = kai_msg_queues_encode(out, q, nq);
	kai_queues_free(q, nq);
	return r;
}

static int
m_queue_apply(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_queue_change *c = NULL;
	struct kai_err err;
	size_t nc = 0, i;
	int r;

	if (kai_msg_queue_apply_decode(p, n, &c, &nc, &err) != 0)
		return -1;
	for (i = 0; i < nc; i++)
		(void)!kai_queue_check(&c[i].q, &err);
	r = kai_msg_queue_apply_encode(out, c, nc);
	kai_queue_changes_free(c, nc);
	return r;
}

static int
m_queue_outcomes(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_queue_outcome *o = NULL;
	struct kai_err err;
	size_t no = 0;
	int r;

	if (kai_msg_queue_outcomes_decode(p, n, &o, &no, &err) != 0)
		return -1;
	r = kai_msg_queue_outcomes_encode(out, o, no);
	kai_queue_outcomes_free(o, no);
	return r;
}

static int
m_queue_delete(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	char **names = NULL;
	size_t nn = 0, i;
	int r;

	if (kai_msg_queue_delete_decode(p, n, &names, &nn, &err) != 0)
		return -1;
	for (i = 0; i < nn; i++)
		(void)!kai_queue_name_check(names[i], &err);
	r = kai_msg_queue_delete_encode(out, names, nn);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return r;
}

static int
m_share_req(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_share_req q;
	struct kai_err err;
	int r;

	memset(&q, 0, sizeof(q));
	if (kai_msg_share_req_decode(p, n, &q, &err) != 0) {
		kai_share_req_fini(&q);
		return -1;
	}
	r = kai_msg_share_req_encode(out, &q);
	kai_share_req_fini(&q);
	return r;
}

static int
m_share(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_share s;
	struct kai_err err;
	size_t qf = 0, uf = 0;
	int r;

	memset(&s, 0, sizeof(s));
	r = kai_msg_share_decode(p, n, &s, &err);
	if (r == 0)
		r = kai_msg_share_encode(out, &s, &qf, &uf,
		    KAI_PROTO_BODY_MAX);
	if (r == 0 && (qf != s.nqueues || uf != s.nusers))
		r = -1;
	kai_share_fini(&s);
	return r;
}

static int
m_nodes(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_partinfo *parts = NULL;
	struct kai_nodeinfo *nodes = NULL;
	struct kai_err err;
	size_t np = 0, nn = 0;
	int r;

	if (kai_msg_nodes_decode(p, n, &parts, &np, &nodes, &nn, &err) != 0)
		return -1;
	r = kai_msg_nodes_encode(out, parts, np, nodes, nn);
	kai_partinfos_free(parts, np);
	kai_nodeinfos_free(nodes, nn);
	return r;
}

static int
m_job_control(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_job_control c;
	struct kai_err err;
	int r;

	memset(&c, 0, sizeof(c));
	if (kai_msg_job_control_decode(p, n, &c, &err) != 0) {
		kai_job_control_fini(&c);
		return -1;
	}
	r = kai_msg_job_control_encode(out, &c);
	kai_job_control_fini(&c);
	return r;
}

static int
m_job_update(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_job_update u;
	struct kai_err err;
	int r;

	memset(&u, 0, sizeof(u));
	if (kai_msg_job_update_decode(p, n, &u, &err) != 0) {
		kai_job_update_fini(&u);
		return -1;
	}
	r = kai_msg_job_update_encode(out, &u);
	kai_job_update_fini(&u);
	return r;
}

static int
m_log(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_log_req l;
	struct kai_err err;

	if (kai_msg_log_decode(p, n, &l, &err) != 0)
		return -1;
	return kai_msg_log_encode(out, &l);
}

static int
m_report_req(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_report_req q;
	struct kai_err err;
	int r;

	memset(&q, 0, sizeof(q));
	if (kai_msg_report_req_decode(p, n, &q, &err) != 0) {
		kai_report_req_fini(&q);
		return -1;
	}
	r = kai_msg_report_req_encode(out, &q);
	kai_report_req_fini(&q);
	return r;
}

static int
m_report(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_report_row *v = NULL;
	struct kai_err err;
	size_t nv = 0, first = 0;
	int r;

	r = kai_msg_report_decode(p, n, &v, &nv, &err);
	if (r == 0)
		r = kai_msg_report_encode(out, v, nv, &first,
		    KAI_PROTO_BODY_MAX);
	if (r == 0 && first != nv)
		r = -1;
	kai_report_rows_free(v, nv);
	return r;
}

static int
m_qos(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_qos_info *v = NULL;
	struct kai_err err;
	size_t nv = 0;
	int r;

	r = kai_msg_qos_decode(p, n, &v, &nv, &err);
	if (r == 0)
		r = kai_msg_qos_encode(out, v, nv);
	kai_qos_info_free(v, nv);
	return r;
}

static int
m_cancel_tasks(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_task_ref *t = NULL;
	struct kai_err err;
	size_t nt = 0;
	int r;

	if (kai_msg_cancel_tasks_decode(p, n, &t, &nt, &err) != 0)
		return -1;
	r = kai_msg_cancel_tasks_encode(out, t, nt);
	free(t);
	return r;
}

static int
m_step_req(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_step_req v;
	struct kai_err err;
	int r = -1;

	if (kai_msg_step_req_decode(p, n, &v, &err) == 0)
		r = kai_msg_step_req_encode(out, &v);
	kai_step_req_fini(&v);
	return r;
}

static int
m_step_result(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_step_result v;
	struct kai_err err;
	int r = -1;

	if (kai_msg_step_result_decode(p, n, &v, &err) == 0)
		r = kai_msg_step_result_encode(out, &v);
	kai_step_result_fini(&v);
	return r;
}

static int
m_step_events(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_step_event *v = NULL;
	const struct kai_step_event **pv;
	struct kai_err err;
	size_t nv = 0, i, done;
	int r;

	if (kai_msg_step_events_decode(p, n, &v, &nv, &err) != 0)
		return -1;
	pv = calloc(nv + 1, sizeof(*pv));
	for (i = 0; i < nv; i++)
		pv[i] = &v[i];
	done = nv;
	r = kai_msg_step_events_encode(out, pv, &done);
	/* What does not fit in one frame is the next answer's. */
	if (r == 0 && done < nv)
		r = -1;
	free(pv);
	kai_step_events_free(v, nv);
	return r;
}

static int
m_step_agent(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	uint32_t pod;
	uint64_t seq;

	if (kai_msg_step_agent_decode(p, n, &pod, &seq, &err) != 0)
		return -1;
	return kai_msg_step_agent_encode(out, pod, seq);
}

static int
m_step_done(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_step_done d;
	struct kai_err err;

	if (kai_msg_step_done_decode(p, n, &d, &err) != 0)
		return -1;
	return kai_msg_step_done_encode(out, &d);
}

static int
m_step_end(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_err err;
	int32_t status;

	if (kai_msg_step_end_decode(p, n, &status, &err) != 0)
		return -1;
	return kai_msg_step_end_encode(out, status);
}

static int
m_step_list(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_step_info *v = NULL;
	struct kai_err err;
	size_t nv = 0, done;
	int r;

	if (kai_msg_step_list_decode(p, n, &v, &nv, &err) != 0)
		return -1;
	done = nv;
	r = kai_msg_step_list_encode(out, v, &done);
	if (r == 0 && done < nv)
		r = -1;
	kai_step_info_free(v, nv);
	return r;
}

static int
m_step_ids(const uint8_t *p, size_t n, struct kai_buf *out)
{
	uint64_t *ids = NULL;
	struct kai_err err;
	size_t nv = 0;
	int r;

	if (kai_msg_step_ids_decode(p, n, &ids, &nv, &err) != 0)
		return -1;
	r = kai_msg_step_ids_encode(out, ids, nv);
	free(ids);
	return r;
}

static int
m_step_signal(const uint8_t *p, size_t n, struct kai_buf *out)
{
	uint64_t *ids = NULL;
	struct kai_err err;
	uint32_t sig, flags;
	size_t nv = 0;
	int r;

	if (kai_msg_step_signal_decode(p, n, &ids, &nv, &sig, &flags,
	    &err) != 0)
		return -1;
	r = kai_msg_step_signal_encode(out, ids, nv, sig, flags);
	free(ids);
	return r;
}

static int
m_pty_attach(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_pty_open o;
	struct kai_err err;

	if (kai_msg_pty_attach_decode(p, n, &o, &err) != 0)
		return -1;
	return kai_msg_pty_attach_encode(out, &o);
}

static int
m_pty_serve(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_pty_open o;
	struct kai_err err;

	if (kai_msg_pty_serve_decode(p, n, &o, &err) != 0)
		return -1;
	return kai_msg_pty_serve_encode(out, &o);
}

static int
m_pty_io(const uint8_t *p, size_t n, struct kai_buf *out)
{
	struct kai_pty_io io;
	struct kai_err err;

	if (kai_msg_pty_io_decode(p, n, &io, &err) != 0)
		return -1;
	return kai_msg_pty_io_encode(out, &io);
}

static const struct {
	uint16_t type;
	msg_fn *fn;
} msgs[] = {
	{KAI_MSG_ERROR, m_error},
	{KAI_MSG_SUBMIT, m_submit},
	{KAI_MSG_SUBMIT_REPLY, m_u64},
	{KAI_MSG_QUERY, m_query},
	{KAI_MSG_QUERY_REPLY, m_jobs},
	{KAI_MSG_CANCEL, m_cancel},
	{KAI_MSG_CANCEL_REPLY, m_cancel_reply},
	{KAI_MSG_PING_REPLY, m_ping_reply},
	{KAI_MSG_QUEUE_LIST_REPLY, m_queues},
	{KAI_MSG_QUEUE_APPLY, m_queue_apply},
	{KAI_MSG_QUEUE_APPLY_REPLY, m_queue_outcomes},
	{KAI_MSG_QUEUE_DELETE, m_queue_delete},
	{KAI_MSG_QUEUE_DELETE_REPLY, m_u32},
	{KAI_MSG_SHARE, m_share_req},
	{KAI_MSG_SHARE_REPLY, m_share},
	{KAI_MSG_NODE_LIST_REPLY, m_nodes},
	{KAI_MSG_JOB_CONTROL, m_job_control},
	{KAI_MSG_JOB_CONTROL_REPLY, m_cancel_reply},
	{KAI_MSG_JOB_UPDATE, m_job_update},
	{KAI_MSG_JOB_UPDATE_REPLY, m_u32},
	{KAI_MSG_LOG, m_log},
	{KAI_MSG_REPORT, m_report_req},
	{KAI_MSG_REPORT_REPLY, m_report},
	{KAI_MSG_QOS_LIST_REPLY, m_qos},
	{KAI_MSG_SUBMIT_EXT, m_submit_ext},
	{KAI_MSG_SUBMIT_EXT_REPLY, m_u64},
	{KAI_MSG_CANCEL_TASKS, m_cancel_tasks},
	{KAI_MSG_CANCEL_TASKS_REPLY, m_cancel_reply},
	{KAI_MSG_STEP_RUN, m_step_req},
	{KAI_MSG_STEP_RUN_REPLY, m_step_result},
	{KAI_MSG_STEP_AGENT, m_step_agent},
	{KAI_MSG_STEP_AGENT_REPLY, m_step_events},
	{KAI_MSG_STEP_DONE, m_step_done},
	{KAI_MSG_STEP_END, m_step_end},
	{KAI_MSG_STEP_LIST, m_step_ids},
	{KAI_MSG_STEP_LIST_REPLY, m_step_list},
	{KAI_MSG_STEP_SIGNAL, m_step_signal},
	{KAI_MSG_STEP_SIGNAL_REPLY, m_cancel_reply},
	{KAI_MSG_PTY_ATTACH, m_pty_attach},
	{KAI_MSG_PTY_ATTACH_REPLY, m_u64},
	{KAI_MSG_PTY_SERVE, m_pty_serve},
	{KAI_MSG_PTY_SERVE_REPLY, m_u64},
	{KAI_MSG_PTY_IO, m_pty_io},
	{KAI_MSG_PTY_IO_OUT, m_pty_io},
};

void
fuzz_msg_decode(uint16_t type, const uint8_t *body, size_t len)
{
	struct kai_buf once, twice;
	msg_fn *fn = NULL;
	size_t i;

	for (i = 0; i < KAI_NELEM(msgs); i++)
		if (msgs[i].type == type)
			fn = msgs[i].fn;
	if (fn == NULL)
		return;
	kai_buf_init(&once, 2 * (size_t)KAI_PROTO_BODY_MAX);
	kai_buf_init(&twice, 2 * (size_t)KAI_PROTO_BODY_MAX);
	if (fn(body, len, &once) == 0) {
		if (fn((const uint8_t *)once.data, once.len, &twice) != 0)
			fuzz_fail("a re-encoded message does not decode");
		if (once.len != twice.len ||
		    memcmp(once.data, twice.data, once.len) != 0)
			fuzz_fail("a message changes on its second round trip");
	}
	kai_buf_fini(&once);
	kai_buf_fini(&twice);
}
