/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_queue.c: kctl queue list, create/update/apply and delete.
 *
 * Anyone may list the queues; changing them is for operators, which
 * rpc_dispatch() enforces from the RPC table before a handler runs.  A
 * change goes to PostgreSQL first, as one transaction that either passes
 * every check of the tree or changes nothing (db_queue.c); only then is
 * kaid's copy of the tree replaced and a tick asked for, so the next tick
 * schedules with the new tree and no restart is needed.
 *
 * Submissions waiting for the group commit are committed before a change
 * is checked: a job accepted into a leaf must be in the database when the
 * store decides whether that leaf may get children or be deleted.  Every
 * change writes an audit line per queue.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "queues.h"
#include "sys/log.h"
#include "tick.h"

static const char *const op_name[KAI_QUEUE_NOPS] = {"create", "update",
    "apply"};

bool
rpc_queue_list(struct kaid *k, const struct rpc_req *req)
{
	struct kai_queue *q;
	struct kai_buf b;
	size_t i, j;
	long qi;

	if (req->len != 0) {
		server_reply_error(k, req->conn, KAI_EPROTO,
		    "a queue list request has an empty body", NULL);
		return false;
	}
	/* The cache's tree; active jobs counted from memory, exact now. */
	q = kai_xcalloc(queues_count(k) + 1, sizeof(*q));
	for (i = 0; i < queues_count(k); i++) {
		q[i] = *queues_at(k, i);
		q[i].active_jobs = 0;
	}
	for (j = 0; j < state_njobs(k); j++)
		if ((qi = queues_find(k, state_job_at(k, j)->queue)) >= 0)
			q[qi].active_jobs++;
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_queues_encode(&b, q, queues_count(k)) == 0)
		server_reply(k, req->conn, KAI_MSG_QUEUE_LIST_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the queue list", NULL);
	kai_buf_fini(&b);
	free(q); /* the strings are the cache's */
	return false;
}

/* After a committed change: the new tree, for the next tick. */
static void
changed(struct kaid *k)
{
	struct kai_err err;

	if (queues_reload(k, &err) != 0)
		kai_log_err("could not reload the queues: %s (retrying at the "
		    "next tick)", err.msg);
	tick_soon(k);
}

static void
refused(struct kaid *k, const struct rpc_req *req, const char *action,
    const struct kai_err *err)
{
	kai_log_info("audit: uid=%u action=%s result=refused: %s", req->uid,
	    action, err->msg);
	server_reply_error(k, req->conn, err->code, err->msg, err->hint);
}

/*
 * With queues_source: kubernetes the KAI Queue objects are the tree; a
 * kctl write would be undone at the next change of one.
 */
static bool
not_ours(struct kaid *k, const struct rpc_req *req, const char *action)
{
	struct kai_err err;

	if (!kaiqueues_in_charge(k))
		return false;
	(void)kai_err_set(&err, KAI_EPERM, "queues come from KAI Queue objects "
	    "(queues_source: kubernetes in kaid.yaml): change them with "
	    "kubectl, not kctl");
	refused(k, req, action, &err);
	return true;
}

bool
rpc_queue_apply(struct kaid *k, const struct rpc_req *req)
{
	struct kai_queue_change *c = NULL;
	struct kai_queue_outcome *o;
	enum kai_queue_result *res;
	struct kai_err err;
	struct kai_buf b;
	size_t n = 0, i;

	if (not_ours(k, req, "queue-apply"))
		return false;
	if (kai_msg_queue_apply_decode(req->body, req->len, &c, &n,
		&err) != 0) {
		refused(k, req, "queue-apply", &err);
		return false;
	}
	submit_commit(k);
	res = kai_xcalloc(n, sizeof(*res));
	if (kai_db_queue_apply(k->db, c, n, res, &err) != 0) {
		refused(k, req, "queue-apply", &err);
		kai_queue_changes_free(c, n);
		free(res);
		return false;
	}
	o = kai_xcalloc(n, sizeof(*o));
	for (i = 0; i < n; i++) {
		o[i].name = c[i].q.name;
		o[i].result = res[i];
		kai_log_info("audit: uid=%u action=queue-%s queue=%s result=%s",
		    req->uid, op_name[c[i].op], c[i].q.name,
		    kai_queue_result_name(res[i]));
	}
	changed(k);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_queue_outcomes_encode(&b, o, n) == 0)
		server_reply(k, req->conn, KAI_MSG_QUEUE_APPLY_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the results", NULL);
	kai_buf_fini(&b);
	free(o); /* names borrowed from c */
	kai_queue_changes_free(c, n);
	free(res);
	return false;
}

bool
rpc_queue_delete(struct kaid *k, const struct rpc_req *req)
{
	struct kai_err err;
	struct kai_buf b;
	char **names = NULL;
	size_t n = 0, i;

	if (not_ours(k, req, "queue-delete"))
		return false;
	if (kai_msg_queue_delete_decode(req->body, req->len, &names, &n,
		&err) != 0) {
		refused(k, req, "queue-delete", &err);
		return false;
	}
	submit_commit(k);
	if (kai_db_queue_delete(k->db, names, n, &err) != 0) {
		refused(k, req, "queue-delete", &err);
	} else {
		for (i = 0; i < n; i++)
			kai_log_info("audit: uid=%u action=queue-delete "
			    "queue=%s result=deleted", req->uid, names[i]);
		changed(k);
		kai_buf_init(&b, 64);
		if (kai_msg_u32_encode(&b, (uint32_t)n) == 0)
			server_reply(k, req->conn, KAI_MSG_QUEUE_DELETE_REPLY,
			    0, &b);
		kai_buf_fini(&b);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return false;
}
