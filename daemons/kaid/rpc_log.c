/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_log.c: klog, a job's pod log through kaid, for users without
 * kubectl.
 *
 * Only the job's owner or an operator may read it.  The job must be
 * active: a finished job's pods are deleted once its end is recorded, and
 * its output file is the record, which the error says.  kaid asks the
 * apiserver for pods/kai-<job>-<task>/log and passes each piece on as a
 * KAI_MSG_LOG_REPLY frame with KAI_FRAME_MORE, then ends with an empty
 * frame without it (or an ERROR).  With follow the request stays open
 * until the container ends.  The reply is deferred, so the connection
 * reads nothing else meanwhile; if the client goes away, server.c calls
 * log_forget_conn() and the Kubernetes request is stopped (at once, or
 * from its next piece when the connection died inside one).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "proto/msg_tools.h"
#include "sys/log.h"

/* Without -f: the head of the log, at most this much (klog(1)). */
#define LOG_LIMIT_BYTES ((int64_t)64 * 1024 * 1024)

struct log_stream {
	struct kaid *k;
	struct conn *conn; /* NULL once the client went away */
	struct kai_kube_log *call;
	bool in_cb; /* inside a callback of call */
	struct log_stream *next;
};

static void
stream_unlink(struct kaid *k, struct log_stream *s)
{
	struct log_stream **p;

	for (p = &k->logs; *p != NULL; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			return;
		}
}

static int
on_log_data(const char *p, size_t n, void *ctx)
{
	struct log_stream *s = ctx;
	struct kai_buf b;
	size_t off;

	if (s->conn == NULL)
		return -1;
	s->in_cb = true;
	for (off = 0; off < n && s->conn != NULL;) {
		size_t len =
		    n - off < KAI_LOG_CHUNK_MAX ? n - off : KAI_LOG_CHUNK_MAX;

		b.data = (char *)(uintptr_t)(p + off);
		b.len = len;
		server_reply(s->k, s->conn, KAI_MSG_LOG_REPLY, KAI_FRAME_MORE,
		    &b);
		off += len;
		server_flush(s->k, s->conn); /* may close: conn set NULL */
	}
	s->in_cb = false;
	return s->conn != NULL ? 0 : -1;
}

static void
on_log_done(int code, const struct kai_err *err, void *ctx)
{
	struct log_stream *s = ctx;
	struct kai_buf b;

	/* Unlinked first: the resume below may close the connection. */
	stream_unlink(s->k, s);
	if (s->conn != NULL) {
		if (code == 0) {
			kai_buf_init(&b, 16);
			server_reply(s->k, s->conn, KAI_MSG_LOG_REPLY, 0, &b);
			kai_buf_fini(&b);
		} else {
			server_reply_error(s->k, s->conn, code, err->msg, NULL);
		}
		server_resume(s->k, s->conn);
	}
	free(s);
}

void
log_forget_conn(struct kaid *k, struct conn *conn)
{
	struct log_stream *s, *next;

	for (s = k->logs; s != NULL; s = next) {
		next = s->next;
		if (s->conn != conn)
			continue;
		s->conn = NULL;
		if (s->in_cb)
			continue; /* the callback stops the call */
		stream_unlink(k, s);
		kai_kube_log_cancel(s->call);
		free(s);
	}
}

/* A job that is not active: finished (its pod is gone) or unknown. */
static void
log_inactive(struct kaid *k, const struct rpc_req *req, uint64_t id)
{
	struct kai_jobinfo *ji = NULL;
	struct kai_query q;
	struct kai_err err;
	size_t n = 0, i;

	memset(&q, 0, sizeof(q));
	q.ids = &id;
	q.nids = 1;
	q.state_mask = KAI_JOB_STATES_ALL;
	if (kai_db_jobs_query(k->db, &q, KAI_DB_SCOPE_ALL, req->uid, &ji, &n, &err) != 0)
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
	else if (n == 0 ||
	    (ji[0].uid != req->uid && !rpc_is_operator(k, req->uid)))
		server_reply_error(k, req->conn, KAI_ENOENT,
		    n == 0 ? "Invalid job id specified" : "permission denied",
		    NULL);
	else
		server_reply_error(k, req->conn, KAI_ENOENT,
		    "job has finished and its pod is gone",
		    "its output is in its output file (kctl show job shows "
		    "StdOut)");
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&ji[i]);
	free(ji);
}

bool
rpc_log(struct kaid *k, const struct rpc_req *req)
{
	struct log_stream *s;
	struct kai_log_req l;
	struct kai_job *j;
	struct kai_err err;
	char *pod;

	if (kai_msg_log_decode(req->body, req->len, &l, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if ((j = state_job(k, l.id)) == NULL) {
		log_inactive(k, req, l.id);
		return false;
	}
	if (j->uid != req->uid && !rpc_is_operator(k, req->uid)) {
		kai_log_info("audit: uid=%u action=log job=%" PRIu64
			     " result=permission denied",
		    req->uid, l.id);
		server_reply_error(k, req->conn, KAI_EPERM, "permission denied",
		    NULL);
		return false;
	}
	if (l.task >= (j->ntasks > 0 ? j->ntasks : 1)) {
		server_reply_error(k, req->conn, KAI_EINVAL,
		    "invalid task: the job has fewer tasks", NULL);
		return false;
	}
	if (j->state == KAI_JOB_PENDING) {
		server_reply_error(k, req->conn, KAI_EAGAIN,
		    "job has not started: it has no log yet", NULL);
		return false;
	}
	s = kai_xcalloc(1, sizeof(*s));
	s->k = k;
	s->conn = req->conn;
	s->next = k->logs;
	k->logs = s;
	pod = kai_job_pod_name(l.id, l.task);
	s->call = kai_kube_pod_log(k->kube, pod, l.follow,
	    l.follow ? 0 : LOG_LIMIT_BYTES, on_log_data, on_log_done, s);
	free(pod);
	return true;
}
