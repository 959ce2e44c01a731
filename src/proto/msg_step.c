/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_step.c: the job-step messages (types 44-51; proto_step.h).  The
 * fields go in the order the structs declare them; PROTOCOL.md says the
 * same.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/job.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_step.h"

#define STR_MAX 65536 /* one word of a command or one variable */
#define CWD_MAX 4096

int
kai_msg_step_req_encode(struct kai_buf *b, const struct kai_step_req *v)
{
	size_t start = b->len;

	if (kai_codec_put_u32(b, v->step) != 0 ||
	    kai_codec_put_u32(b, v->ntasks) != 0 ||
	    kai_codec_put_u32(b, v->nnodes) != 0 ||
	    kai_codec_put_u32(b, v->ntasks_per_node) != 0 ||
	    kai_codec_put_bool(b, v->label) != 0 ||
	    kai_codec_put_bool(b, v->kill_on_bad_exit) != 0 ||
	    kai_codec_put_str(b, v->cwd, CWD_MAX) != 0 ||
	    kai_codec_put_str(b, v->out, CWD_MAX) != 0 ||
	    kai_codec_put_str(b, v->err, CWD_MAX) != 0 ||
	    kai_codec_put_strv(b, v->argv, v->argc, KAI_STEP_ARGV_MAX,
		STR_MAX) != 0 ||
	    kai_codec_put_strv(b, v->env, v->nenv, KAI_STEP_ENV_MAX,
		STR_MAX) != 0 ||
	    b->len - start > KAI_PROTO_BODY_MAX) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_step_req_decode(const void *p, size_t len, struct kai_step_req *v,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(v, 0, sizeof(*v));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "step", &v->step)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "ntasks", &v->ntasks)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "nnodes", &v->nnodes)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "ntasks_per_node",
		 &v->ntasks_per_node)) != 0 ||
	    (rc = kai_codec_get_bool(&r, "label", &v->label)) != 0 ||
	    (rc = kai_codec_get_bool(&r, "kill_on_bad_exit",
		 &v->kill_on_bad_exit)) != 0 ||
	    (rc = kai_codec_get_str(&r, "cwd", CWD_MAX, true, &v->cwd)) != 0 ||
	    (rc = kai_codec_get_str(&r, "out", CWD_MAX, true, &v->out)) != 0 ||
	    (rc = kai_codec_get_str(&r, "err", CWD_MAX, true, &v->err)) != 0 ||
	    (rc = kai_codec_get_strv(&r, "argv", KAI_STEP_ARGV_MAX, STR_MAX,
		 &v->argv, &v->argc)) != 0 ||
	    (rc = kai_codec_get_strv(&r, "env", KAI_STEP_ENV_MAX, STR_MAX,
		 &v->env, &v->nenv)) != 0)
		return rc;
	return kai_codec_rd_end(&r);
}

void
kai_step_req_fini(struct kai_step_req *v)
{
	free(v->cwd);
	free(v->out);
	free(v->err);
	kai_codec_strv_free(v->argv, v->argc);
	kai_codec_strv_free(v->env, v->nenv);
	memset(v, 0, sizeof(*v));
}

int
kai_msg_step_result_encode(struct kai_buf *b, const struct kai_step_result *v)
{
	size_t start = b->len;

	if (kai_codec_put_u32(b, v->step) != 0 ||
	    kai_codec_put_bool(b, v->done) != 0 ||
	    kai_codec_put_u32v(b, v->status, v->ntasks,
		KAI_STEP_TASKS_MAX) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_step_result_decode(const void *p, size_t len,
    struct kai_step_result *v, struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(v, 0, sizeof(*v));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "step", &v->step)) != 0 ||
	    (rc = kai_codec_get_bool(&r, "done", &v->done)) != 0 ||
	    (rc = kai_codec_get_u32v(&r, "status", KAI_STEP_TASKS_MAX,
		 &v->status, &v->ntasks)) != 0)
		return rc;
	return kai_codec_rd_end(&r);
}

void
kai_step_result_fini(struct kai_step_result *v)
{
	free(v->status);
	memset(v, 0, sizeof(*v));
}

static int
event_put(struct kai_buf *b, const struct kai_step_event *v)
{
	if (kai_codec_put_u64(b, v->seq) != 0 ||
	    kai_codec_put_u32(b, v->kind) != 0 ||
	    kai_codec_put_u32(b, v->step) != 0 ||
	    kai_codec_put_u32(b, v->sig) != 0 ||
	    kai_codec_put_bool(b, v->label) != 0 ||
	    kai_codec_put_str(b, v->cwd, CWD_MAX) != 0 ||
	    kai_codec_put_str(b, v->out, CWD_MAX) != 0 ||
	    kai_codec_put_str(b, v->err, CWD_MAX) != 0 ||
	    kai_codec_put_strv(b, v->argv, v->argc, KAI_STEP_ARGV_MAX,
		STR_MAX) != 0 ||
	    kai_codec_put_strv(b, v->env, v->nenv, KAI_STEP_ENV_MAX,
		STR_MAX) != 0 ||
	    kai_codec_put_u32v(b, v->pod, v->ntasks, KAI_STEP_TASKS_MAX) != 0 ||
	    kai_codec_put_u32v(b, v->node, v->ntasks, KAI_STEP_TASKS_MAX) != 0 ||
	    kai_codec_put_u32v(b, v->local, v->ntasks, KAI_STEP_TASKS_MAX) != 0)
		return KAI_EINVAL;
	return 0;
}

int
kai_msg_step_events_encode(struct kai_buf *b,
    const struct kai_step_event *const *v, size_t *n)
{
	size_t start = b->len, count_at, i, done = 0, mark;

	if (kai_codec_put_u32(b, 0) != 0)
		return KAI_EINVAL;
	count_at = start;
	for (i = 0; i < *n && i < KAI_STEP_EVENTS_MAX; i++) {
		mark = b->len;
		if (event_put(b, v[i]) != 0 ||
		    b->len - start > KAI_PROTO_BODY_MAX) {
			kai_codec_rollback(b, mark);
			break;
		}
		done++;
	}
	if (done == 0 && *n > 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	/* The count in place, big-endian as kai_codec_put_u32() writes. */
	b->data[count_at] = (char)((done >> 24) & 0xff);
	b->data[count_at + 1] = (char)((done >> 16) & 0xff);
	b->data[count_at + 2] = (char)((done >> 8) & 0xff);
	b->data[count_at + 3] = (char)(done & 0xff);
	*n = done;
	return 0;
}

static int
event_get(struct kai_codec_rd *r, struct kai_step_event *v)
{
	size_t nn = 0, nl = 0;
	int rc;

	if ((rc = kai_codec_get_u64(r, "seq", &v->seq)) != 0 ||
	    (rc = kai_codec_get_u32(r, "kind", &v->kind)) != 0 ||
	    (rc = kai_codec_get_u32(r, "step", &v->step)) != 0 ||
	    (rc = kai_codec_get_u32(r, "sig", &v->sig)) != 0 ||
	    (rc = kai_codec_get_bool(r, "label", &v->label)) != 0 ||
	    (rc = kai_codec_get_str(r, "cwd", CWD_MAX, true, &v->cwd)) != 0 ||
	    (rc = kai_codec_get_str(r, "out", CWD_MAX, true, &v->out)) != 0 ||
	    (rc = kai_codec_get_str(r, "err", CWD_MAX, true, &v->err)) != 0 ||
	    (rc = kai_codec_get_strv(r, "argv", KAI_STEP_ARGV_MAX, STR_MAX,
		 &v->argv, &v->argc)) != 0 ||
	    (rc = kai_codec_get_strv(r, "env", KAI_STEP_ENV_MAX, STR_MAX,
		 &v->env, &v->nenv)) != 0 ||
	    (rc = kai_codec_get_u32v(r, "pod", KAI_STEP_TASKS_MAX, &v->pod,
		 &v->ntasks)) != 0 ||
	    (rc = kai_codec_get_u32v(r, "node", KAI_STEP_TASKS_MAX, &v->node,
		 &nn)) != 0 ||
	    (rc = kai_codec_get_u32v(r, "local", KAI_STEP_TASKS_MAX, &v->local,
		 &nl)) != 0)
		return rc;
	if (v->kind == 0 || v->kind >= KAI_STEP_EV_MAX)
		return kai_err_set(r->err, KAI_EPROTO,
		    "unrecognized step event kind %u", (unsigned)v->kind);
	if (nn != v->ntasks || nl != v->ntasks)
		return kai_err_set(r->err, KAI_EPROTO,
		    "step event: %zu pods, %zu nodes and %zu local ids",
		    v->ntasks, nn, nl);
	return 0;
}

int
kai_msg_step_events_decode(const void *p, size_t len,
    struct kai_step_event **v, size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	size_t c = 0, i;
	int rc;

	*v = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "events", KAI_STEP_EVENTS_MAX, 8 + 4 +
	    4 + 4 + 1 + 3 * 4 + 5 * 4, &c)) != 0)
		return rc;
	*v = kai_xcalloc(c > 0 ? c : 1, sizeof(**v));
	for (i = 0; i < c && rc == 0; i++)
		rc = event_get(&r, &(*v)[i]);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_step_events_free(*v, c);
		*v = NULL;
		return rc;
	}
	*n = c;
	return 0;
}

void
kai_step_event_fini(struct kai_step_event *v)
{
	free(v->cwd);
	free(v->out);
	free(v->err);
	kai_codec_strv_free(v->argv, v->argc);
	kai_codec_strv_free(v->env, v->nenv);
	free(v->pod);
	free(v->node);
	free(v->local);
	memset(v, 0, sizeof(*v));
}

void
kai_step_events_free(struct kai_step_event *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		kai_step_event_fini(&v[i]);
	free(v);
}

int
kai_msg_step_agent_encode(struct kai_buf *b, uint32_t pod, uint64_t seq)
{
	size_t start = b->len;

	if (kai_codec_put_u32(b, pod) != 0 || kai_codec_put_u64(b, seq) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_step_agent_decode(const void *p, size_t len, uint32_t *pod,
    uint64_t *seq, struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "pod", pod)) != 0 ||
	    (rc = kai_codec_get_u64(&r, "seq", seq)) != 0)
		return rc;
	return kai_codec_rd_end(&r);
}

int
kai_msg_step_done_encode(struct kai_buf *b, const struct kai_step_done *v)
{
	size_t start = b->len;

	if (kai_codec_put_u32(b, v->step) != 0 ||
	    kai_codec_put_u32(b, v->task) != 0 ||
	    kai_codec_put_u32(b, v->status) != 0 ||
	    kai_codec_put_u64(b, v->max_rss_kb) != 0 ||
	    kai_codec_put_u64(b, v->cpu_usec) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_step_done_decode(const void *p, size_t len, struct kai_step_done *v,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(v, 0, sizeof(*v));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "step", &v->step)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "task", &v->task)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "status", &v->status)) != 0 ||
	    (rc = kai_codec_get_u64(&r, "max_rss_kb", &v->max_rss_kb)) != 0 ||
	    (rc = kai_codec_get_u64(&r, "cpu_usec", &v->cpu_usec)) != 0)
		return rc;
	return kai_codec_rd_end(&r);
}

int
kai_msg_step_end_encode(struct kai_buf *b, int32_t status)
{
	return kai_codec_put_i32(b, status);
}

int
kai_msg_step_end_decode(const void *p, size_t len, int32_t *status,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_i32(&r, "status", status)) != 0)
		return rc;
	return kai_codec_rd_end(&r);
}

/* clang-format off */
#define I(m) offsetof(struct kai_step_info, m)

static const struct kai_codec_field info_fields[] = {
	{"job", KAI_CODEC_U64, I(job), 0, 0, 0},
	{"step", KAI_CODEC_U32, I(step), 0, 0, 0},
	{"name", KAI_CODEC_STR, I(name), 0, 4096, 0},
	{"state", KAI_CODEC_ENUM, I(state), 0, KAI_JOB_NSTATES, 0},
	{"exit_status", KAI_CODEC_U32, I(exit_status), 0, 0, 0},
	{"ntasks", KAI_CODEC_U32, I(ntasks), 0, 0, 0},
	{"nodelist", KAI_CODEC_STR, I(nodelist), 0, 65536, 0},
	{"start", KAI_CODEC_I64, I(start), 0, 0, 0},
	{"end", KAI_CODEC_I64, I(end), 0, 0, 0},
	{"max_rss_kb", KAI_CODEC_U64, I(max_rss_kb), 0, 0, 0},
	{"ave_rss_kb", KAI_CODEC_U64, I(ave_rss_kb), 0, 0, 0},
	{"cpu_usec", KAI_CODEC_U64, I(cpu_usec), 0, 0, 0},
};
/* clang-format on */

int
kai_msg_step_list_encode(struct kai_buf *b, const struct kai_step_info *v,
    size_t *n)
{
	size_t start = b->len, first = 0;

	if (*n > KAI_STEP_LIST_MAX || (*n > 0 && v == NULL) ||
	    kai_codec_put_records(b, info_fields, KAI_NELEM(info_fields), v,
	    sizeof(*v), *n, &first, start, KAI_STEP_LIST_MAX,
	    KAI_PROTO_BODY_MAX) != 0 || (first == 0 && *n > 0)) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	*n = first;
	return 0;
}

int
kai_msg_step_list_decode(const void *p, size_t len, struct kai_step_info **v,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	size_t c = 0, i;
	int rc;

	*v = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "steps", KAI_STEP_LIST_MAX,
	    KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return kai_codec_rd_end(&r);
	*v = kai_xcalloc(c, sizeof(**v));
	for (i = 0; i < c && rc == 0; i++)
		rc = kai_codec_get_record(&r, info_fields,
		    KAI_NELEM(info_fields), &(*v)[i]);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_step_info_free(*v, c);
		*v = NULL;
		return rc;
	}
	*n = c;
	return 0;
}

void
kai_step_info_free(struct kai_step_info *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].name);
		free(v[i].nodelist);
	}
	free(v);
}

int
kai_msg_step_ids_encode(struct kai_buf *b, const uint64_t *ids, size_t n)
{
	return kai_codec_put_u64v(b, ids, n, KAI_STEP_IDS_MAX);
}

int
kai_msg_step_ids_decode(const void *p, size_t len, uint64_t **ids, size_t *n,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	*ids = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u64v(&r, "ids", KAI_STEP_IDS_MAX, ids,
	    n)) == 0 && (rc = kai_codec_rd_end(&r)) == 0)
		return 0;
	free(*ids);
	*ids = NULL;
	*n = 0;
	return rc;
}

int
kai_msg_step_signal_encode(struct kai_buf *b, const uint64_t *ids, size_t n,
    uint32_t sig, uint32_t flags)
{
	size_t start = b->len;

	if (kai_codec_put_u64v(b, ids, n, KAI_STEP_IDS_MAX) != 0 ||
	    kai_codec_put_u32(b, sig) != 0 ||
	    kai_codec_put_u32(b, flags) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_step_signal_decode(const void *p, size_t len, uint64_t **ids,
    size_t *n, uint32_t *sig, uint32_t *flags, struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	*ids = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u64v(&r, "ids", KAI_STEP_IDS_MAX, ids,
	    n)) == 0 && (rc = kai_codec_get_u32(&r, "signal", sig)) == 0 &&
	    (rc = kai_codec_get_u32(&r, "flags", flags)) == 0 &&
	    (rc = kai_codec_rd_end(&r)) == 0) {
		if (*sig >= 1 && *sig <= 64 &&
		    (*flags & ~(uint32_t)KAI_STEP_SIG_FLAGS) == 0)
			return 0;
		rc = kai_err_set(err, KAI_EPROTO, "invalid signal %u or "
		    "flags %#x", (unsigned)*sig, (unsigned)*flags);
	}
	free(*ids);
	*ids = NULL;
	*n = 0;
	return rc;
}
