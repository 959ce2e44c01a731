/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_cancel.c: kcancel.
 *
 * The selection is the named ids (each answered, found or not) or, with
 * no ids, every active job that matches the filters.  Only the owner or
 * an operator may cancel a job; anyone else gets "permission denied" and
 * the job is untouched.  A selection of another user's jobs (kcancel -u
 * bob, by alice) is refused whole, as scancel refuses it, instead of
 * matching none of alice's jobs and succeeding silently.  The database changes first, in one transaction;
 * the pods are deleted after, so a crash in between leaves pods whose job
 * is finished, which reconcile deletes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"
#include "tick.h"

/* The filters of the request (its ids are answered one by one). */
static bool
matches(const struct kai_cancel *c, const struct kai_job *j)
{
	return state_job_matches(j, NULL, 0, c->uids, c->nuids, c->queues,
	    c->nqueues, c->state_mask);
}

/* Orders indexes into a job list by job, then by position. */
static struct kai_job **dedupe_jobs;

static int
by_job(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uintptr_t p = (uintptr_t)dedupe_jobs[x], q = (uintptr_t)dedupe_jobs[y];

	if (p != q)
		return p < q ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Drops the later copies of a job named twice (kcancel 5 5), keeping the
 * order: a job must be cancelled, and freed, once.  n log n, since a
 * request may name 100,000 ids.
 */
static void
dedupe(struct kai_job **todo, size_t *at, size_t *n)
{
	size_t *ix = kai_xcalloc(*n + 1, sizeof(*ix));
	bool *drop = kai_xcalloc(*n + 1, sizeof(*drop));
	size_t i, m = 0;

	for (i = 0; i < *n; i++)
		ix[i] = i;
	dedupe_jobs = todo;
	qsort(ix, *n, sizeof(*ix), by_job);
	dedupe_jobs = NULL;
	for (i = 1; i < *n; i++)
		drop[ix[i]] = todo[ix[i]] == todo[ix[i - 1]];
	for (i = 0; i < *n; i++) {
		if (drop[i])
			continue;
		todo[m] = todo[i];
		at[m++] = at[i];
	}
	*n = m;
	free(ix);
	free(drop);
}

/*
 * Appends a result.  *r has room for at least cap results (allocated by
 * the caller): kcancel -u answers 50,000 jobs, and growing the array one
 * result at a time copied it over and over.
 */
static void
result_add(struct kai_cancel_result **r, size_t *n, size_t cap, uint64_t id,
    int code, const char *msg)
{
	if (*n >= cap)
		*r = kai_xreallocarray(*r, *n + 1, sizeof(**r));
	(*r)[*n].id = id;
	(*r)[*n].code = code;
	(*r)[*n].msg = kai_xstrdup(msg);
	(*n)++;
}

/*
 * Cancels jobs[0..n) (each one the caller may cancel) in one
 * transaction and fills their results, which sit at res[at[i]].
 */
static void
cancel_all(struct kaid *k, const struct rpc_req *req, struct kai_job **jobs,
    size_t n, struct kai_cancel_result *res, const size_t *at)
{
	uint64_t *ids = kai_xcalloc(n + 1, sizeof(*ids));
	uint32_t uid = req->uid;
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		ids[i] = jobs[i]->id;
	r = reconcile_cancel_many(k, jobs, n, uid, req->now);
	for (i = 0; i < n; i++) {
		kai_log_info("audit: uid=%u action=cancel job=%" PRIu64
		    " result=%s", uid, ids[i], r == 0 ? "ok" : kai_strerror(r));
		res[at[i]].code = r;
		if (r != 0) {
			free(res[at[i]].msg);
			res[at[i]].msg = kai_xstrdup(kai_strerror(r));
		}
	}
	free(ids);
}

/*
 * The named ids, each answered in order, or with none every active job
 * that matches the filters and that the caller may cancel.
 */
static void
select_and_cancel(struct kaid *k, const struct rpc_req *req,
    const struct kai_cancel *c, struct kai_cancel_result **res, size_t *nres)
{
	bool op = rpc_is_operator(k, req->uid);
	size_t i, n = 0, cap = c->nids > 0 ? c->nids : state_njobs(k);
	struct kai_job **todo = kai_xcalloc(cap + 1, sizeof(*todo));
	size_t *at = kai_xcalloc(cap + 1, sizeof(*at));

	*res = kai_xreallocarray(*res, *nres + cap + 1, sizeof(**res));
	cap += *nres;

	for (i = 0; i < c->nids; i++) {
		struct kai_job *j = state_job(k, c->ids[i]);

		if (j == NULL) {
			result_add(res, nres, cap, c->ids[i], KAI_ENOENT,
			    "invalid job id specified or job already finished");
		} else if (!matches(c, j)) {
			result_add(res, nres, cap, c->ids[i], KAI_ENOENT,
			    "job does not match the filters");
		} else if (j->uid != req->uid && !op) {
			kai_log_info("audit: uid=%u action=cancel job=%" PRIu64
			    " result=permission denied", req->uid, j->id);
			result_add(res, nres, cap, j->id, KAI_EPERM,
			    "permission denied");
		} else {
			at[n] = *nres;
			todo[n++] = j;
			result_add(res, nres, cap, j->id, 0, "");
		}
	}
	dedupe(todo, at, &n);
	for (i = 0; c->nids == 0 && i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (matches(c, j) && (op || j->uid == req->uid)) {
			at[n] = *nres;
			todo[n++] = j;
			result_add(res, nres, cap, j->id, 0, "");
		}
	}
	cancel_all(k, req, todo, n, *res, at);
	free(todo);
	free(at);
}

/*
 * Whether the user filter names only the caller (or the caller is an
 * operator); if not, the refusal is answered and audited.
 */
static bool
user_filter_allowed(struct kaid *k, const struct rpc_req *req,
    const struct kai_cancel *c)
{
	size_t i;

	if (rpc_is_operator(k, req->uid))
		return true;
	for (i = 0; i < c->nuids; i++) {
		if (c->uids[i] == req->uid)
			continue;
		kai_log_info("audit: uid=%u action=cancel user=%u "
		    "result=permission denied", req->uid, c->uids[i]);
		server_reply_error(k, req->conn, KAI_EPERM, "permission "
		    "denied: only operators may cancel other users' jobs",
		    NULL);
		return false;
	}
	return true;
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
	if (!user_filter_allowed(k, req, &c)) {
		kai_cancel_fini(&c);
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
