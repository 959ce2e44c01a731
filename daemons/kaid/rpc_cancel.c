/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_cancel.c: kcancel.
 *
 * The selection is the named ids (each answered, found or not) or, with
 * no ids, every active job that matches the filters.  Only the owner or
 * an operator may cancel a job; anyone else gets "permission denied" and
 * the job is untouched.  The database changes first, in one transaction;
 * the pods are deleted after, so a crash in between leaves pods whose job
 * is finished, which reconcile deletes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

/* The filters of the request (its ids are answered one by one). */
static bool
matches(const struct kai_cancel *c, const struct kai_job *j)
{
	return state_job_matches(j, NULL, 0, c->uids, c->nuids, c->queues,
	    c->nqueues, c->state_mask);
}

static void
result_add(struct kai_cancel_result **r, size_t *n, uint64_t id, int code,
    const char *msg)
{
	*r = kai_xreallocarray(*r, *n + 1, sizeof(**r));
	(*r)[*n].id = id;
	(*r)[*n].code = code;
	(*r)[*n].msg = kai_xstrdup(msg);
	(*n)++;
}

/* Cancels one job the caller may cancel; returns the result code. */
static int
cancel_one(struct kaid *k, struct kai_job *j, uint32_t uid)
{
	bool ran = j->state != KAI_JOB_PENDING;
	uint64_t id = j->id;
	int r;

	r = reconcile_finish(k, j, KAI_JOB_CANCELLED, "cancelled by user", 0,
	    ran ? 15 : 0, uid);
	kai_log_info("audit: uid=%u action=cancel job=%" PRIu64 " result=%s",
	    uid, id, r == 0 ? "ok" : kai_strerror(r));
	return r;
}

static void
select_and_cancel(struct kaid *k, const struct rpc_req *req,
    const struct kai_cancel *c, struct kai_cancel_result **res, size_t *nres)
{
	bool op = rpc_is_operator(k, req->uid);
	size_t i;

	for (i = 0; i < c->nids; i++) {
		struct kai_job *j = state_job(k, c->ids[i]);

		if (j == NULL) {
			result_add(res, nres, c->ids[i], KAI_ENOENT,
			    "invalid job id specified or job already finished");
		} else if (!matches(c, j)) {
			result_add(res, nres, c->ids[i], KAI_ENOENT,
			    "job does not match the filters");
		} else if (j->uid != req->uid && !op) {
			kai_log_info("audit: uid=%u action=cancel job=%" PRIu64
			    " result=permission denied", req->uid, j->id);
			result_add(res, nres, j->id, KAI_EPERM,
			    "permission denied");
		} else {
			uint64_t id = j->id;
			int r = cancel_one(k, j, req->uid);

			result_add(res, nres, id, r,
			    r == 0 ? "" : kai_strerror(r));
		}
	}
	if (c->nids > 0)
		return;
	/* Filters only: walk a snapshot of ids, cancelling removes jobs. */
	{
		uint64_t *ids = kai_xcalloc(k->njobs, sizeof(*ids));
		size_t n = 0;

		for (i = 0; i < k->njobs; i++)
			if (matches(c, k->jobs[i]) &&
			    (op || k->jobs[i]->uid == req->uid))
				ids[n++] = k->jobs[i]->id;
		for (i = 0; i < n; i++) {
			struct kai_job *j = state_job(k, ids[i]);
			int r = j != NULL ? cancel_one(k, j, req->uid) : 0;

			result_add(res, nres, ids[i], r,
			    r == 0 ? "" : kai_strerror(r));
		}
		free(ids);
	}
}

bool
rpc_cancel(struct kaid *k, const struct rpc_req *req)
{
	struct kai_cancel_result *res = NULL;
	struct kai_cancel c;
	struct kai_err err;
	struct kai_buf b;
	size_t nres = 0;

	memset(&c, 0, sizeof(c));
	if (kai_msg_cancel_decode(req->body, req->len, &c, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	arrays_expand_ids(k, &c);
	select_and_cancel(k, req, &c, &res, &nres);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_reply_encode(&b, res, nres) == 0)
		server_reply(k, req->conn, KAI_MSG_CANCEL_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the cancel results", NULL);
	kai_buf_fini(&b);
	kai_cancel_results_free(res, nres);
	kai_cancel_fini(&c);
	if (nres > 0)
		tick_soon(k);
	return false;
}
