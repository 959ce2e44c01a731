/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_query.c: kqueue and kacct.
 *
 * The rows come from PostgreSQL; the pending reason of an active job comes
 * from the scheduler's memory, where the last tick left it.  kqueue shows
 * every user's jobs, as squeue does; kacct (KAI_QUERY_HISTORY) shows a
 * user only their own jobs unless they are an operator.  Long answers go
 * out as several frames so that no frame passes the body limit.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

static void
overlay_reasons(struct kaid *k, struct kai_jobinfo *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct kai_job *j = state_job(k, jobs[i].id);

		if (j == NULL || j->state != KAI_JOB_PENDING)
			continue;
		free(jobs[i].reason);
		jobs[i].reason = kai_xstrdup(j->reason);
	}
}

static void
reply_jobs(struct kaid *k, struct conn *conn, const struct kai_jobinfo *jobs,
    size_t n)
{
	struct kai_buf b;
	size_t first = 0;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	do {
		kai_buf_reset(&b);
		if (kai_msg_jobs_encode(&b, jobs, n, &first,
			KAI_PROTO_BODY_MAX) != 0) {
			server_reply_error(k, conn, KAI_EINTERNAL,
			    "could not encode the job list", NULL);
			break;
		}
		server_reply(k, conn, KAI_MSG_QUERY_REPLY,
		    first < n ? KAI_FRAME_MORE : 0, &b);
	} while (first < n);
	kai_buf_fini(&b);
}

bool
rpc_query(struct kaid *k, const struct rpc_req *req)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_query q;
	struct kai_err err;
	bool only_own;
	size_t i, n = 0;

	memset(&q, 0, sizeof(q));
	if (kai_msg_query_decode(req->body, req->len, &q, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	only_own = (q.flags & KAI_QUERY_HISTORY) &&
	    !rpc_is_operator(k, req->uid);
	if (kai_db_jobs_query(k->db, &q, only_own, req->uid, &jobs, &n,
		&err) != 0) {
		kai_log_err("could not query jobs: %s", err.msg);
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
	} else {
		overlay_reasons(k, jobs, n);
		reply_jobs(k, req->conn, jobs, n);
	}
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	kai_query_fini(&q);
	return false;
}
