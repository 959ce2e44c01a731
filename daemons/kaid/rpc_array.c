/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_array.c: KAI_MSG_CANCEL_TASKS, kcancel's "123_4" and "123_[1-3]".
 *
 * A task that has been split off is a job like any other and is
 * cancelled as one.  A task still in its array's pending remainder is
 * split off first (its own record, as when it starts; the last one takes
 * the array's record) and then cancelled, so that kacct and dependencies
 * see a CANCELLED record for it, as Slurm keeps one.  kcancel 123 (the
 * whole array) goes through rpc_cancel.c, which arrays_expand_ids()
 * widens to every task.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"
#include "tick.h"

struct results {
	struct kai_cancel_result *v;
	size_t n;
};

static void
add(struct results *r, uint64_t id, int code, const char *msg)
{
	r->v = kai_xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	r->v[r->n].id = id;
	r->v[r->n].code = code;
	r->v[r->n].msg = kai_xstrdup(msg);
	r->n++;
}

/* The active record of task t of array a, split off already; or NULL. */
static struct kai_job *
split_task(const struct kaid *k, uint64_t a, uint32_t t)
{
	size_t i;

	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (j->array_job_id == a && j->array_pending == NULL &&
		    j->array_task_id == t)
			return j;
	}
	return NULL;
}

/* Takes pending task t out of array a into a record of its own. */
static struct kai_job *
split_pending(struct kaid *k, struct kai_job *a, uint32_t t, int64_t now)
{
	struct kai_db_split s = {a->id, t, NULL, 0};
	struct kai_array rest = {NULL, 0, 0};
	char text[KAI_ARRAY_TEXT_MAX];
	struct kai_job *j;
	struct kai_err err;

	rest.r = kai_xcalloc(a->array_pending->n + 1, sizeof(*rest.r));
	memcpy(rest.r, a->array_pending->r,
	    a->array_pending->n * sizeof(*rest.r));
	rest.n = a->array_pending->n;
	(void)kai_array_remove(&rest, t);
	(void)kai_array_format(&rest, text, sizeof(text));
	s.rest = rest.n > 0 ? text : NULL;
	if (kai_db_array_split(k->db, &s, 1, now, &err) != 0) {
		kai_log_err("could not split task %" PRIu32 " of array %"
		    PRIu64 ": %s", t, a->id, err.msg);
		kai_array_fini(&rest);
		return NULL;
	}
	(void)kai_array_remove(a->array_pending, t);
	if (s.rest == NULL) {
		kai_array_fini(a->array_pending);
		KAI_FREE(a->array_pending);
		a->array_task_id = t;
		j = a;
	} else {
		j = arrays_task_new(a, s.new_id, t);
		state_job_add(k, j);
	}
	kai_array_fini(&rest);
	return j;
}

static void
cancel_task(struct kaid *k, const struct rpc_req *req,
    const struct kai_task_ref *t, struct results *res)
{
	struct kai_job *j = split_task(k, t->array_id, t->task);
	struct kai_job *a = state_job(k, t->array_id);
	bool ran;
	int r;

	if (j == NULL && (a == NULL || a->array_pending == NULL ||
	    !kai_array_contains(a->array_pending, t->task))) {
		add(res, t->array_id, KAI_ENOENT, "invalid job id specified "
		    "or job already finished");
		return;
	}
	if ((j != NULL ? j : a)->uid != req->uid &&
	    !rpc_is_operator(k, req->uid)) {
		add(res, t->array_id, KAI_EPERM, "permission denied");
		return;
	}
	if (j == NULL && (j = split_pending(k, a, t->task, req->now)) == NULL) {
		add(res, t->array_id, KAI_EDB, "could not cancel the task");
		return;
	}
	ran = j->state != KAI_JOB_PENDING;
	r = reconcile_finish(k, j, KAI_JOB_CANCELLED, "cancelled by user", 0,
	    ran ? 15 : 0, req->uid, req->now);
	kai_log_info("audit: uid=%u action=cancel job=%" PRIu64 "_%" PRIu32
	    " result=%s", req->uid, t->array_id, t->task,
	    r == 0 ? "ok" : kai_strerror(r));
	add(res, t->array_id, r, r == 0 ? "" : kai_strerror(r));
}

bool
rpc_cancel_tasks(struct kaid *k, const struct rpc_req *req)
{
	struct results res = {NULL, 0};
	struct kai_task_ref *t;
	struct kai_err err;
	struct kai_buf b;
	size_t i, n;

	if (kai_msg_cancel_tasks_decode(req->body, req->len, &t, &n,
	    &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	for (i = 0; i < n; i++)
		cancel_task(k, req, &t[i], &res);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_reply_encode(&b, res.v, res.n) == 0)
		server_reply(k, req->conn, KAI_MSG_CANCEL_TASKS_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the cancel results", NULL);
	kai_buf_fini(&b);
	kai_cancel_results_free(res.v, res.n);
	free(t);
	if (n > 0)
		tick_soon(k);
	return false;
}
