/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_jobctl.c: kctl hold, kctl release and kctl update job.
 *
 * Each acts on a pending job only, and only for its owner or an operator
 * (anyone else gets "permission denied" and the job is untouched).  The
 * words are scontrol's: "Invalid job id specified" for a job kaid does
 * not hold (unknown or finished), "Job is no longer pending execution"
 * for one that has started.  Every change is written to PostgreSQL with
 * an event row (kai_db_job_edit(), guarded by state PENDING) and logged
 * as an audit line before the reply; kaid's copy of the job changes only
 * once the database has it.  A release asks for a tick, so the job is
 * considered at the next one.
 *
 * kctl update job checks what ksubmit's submission is checked against:
 * the partition must be a leaf of the queue tree, and the time limit
 * (the new one, or the job's) must not pass the partition's maximum.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "mail.h"
#include "policy.h"
#include "proto/msg_tools.h"
#include "queues.h"
#include "sys/log.h"
#include "tick.h"

#define MSG_INVALID    "Invalid job id specified"
#define MSG_NOTPENDING "Job is no longer pending execution"
#define MSG_PERM       "permission denied"
#define MSG_PENDING    "Job is pending execution"
#define REQUEUE_REASON "requeued by user"

/*
 * The job a verb may act on, or NULL with *code / *msg set: a pending
 * job for hold, release and update, a started one for requeue.
 */
static struct kai_job *
job_for(struct kaid *k, const struct rpc_req *req, uint64_t id,
    bool started, int *code, const char **msg)
{
	struct kai_job *j = state_job(k, id);

	*code = KAI_OK;
	*msg = "";
	if (j == NULL) {
		*code = KAI_ENOENT;
		*msg = MSG_INVALID;
	} else if (j->uid != req->uid && !rpc_is_operator(k, req->uid)) {
		*code = KAI_EPERM;
		*msg = MSG_PERM;
	} else if (!started && j->state != KAI_JOB_PENDING) {
		*code = KAI_EINVAL;
		*msg = MSG_NOTPENDING;
	} else if (started && j->state == KAI_JOB_PENDING) {
		*code = KAI_EINVAL;
		*msg = MSG_PENDING;
	}
	return *code == KAI_OK ? j : NULL;
}

static void
audit(const struct rpc_req *req, const char *action, uint64_t id,
    const char *what, const char *result)
{
	kai_log_info("audit: uid=%u action=%s job=%" PRIu64 "%s%s result=%s",
	    req->uid, action, id, *what ? " " : "", what, result);
}

/*
 * Requeues one started job, as scontrol requeue: the change to PENDING
 * (the requeue count raised, the allocations dropped, an event row with
 * the actor) is committed, then its pods are deleted with their grace
 * period; the job waits for them to go before it is placed again
 * (evict_pods_linger()).
 */
static int
requeue_one(struct kaid *k, const struct rpc_req *req, struct kai_job *j,
    const char **msg)
{
	struct kai_db_change c;
	struct kai_err err;
	bool applied = false;

	memset(&c, 0, sizeof(c));
	c.id = j->id;
	c.from = j->state;
	c.to = KAI_JOB_PENDING;
	c.reason = REQUEUE_REASON;
	c.time = req->now;
	c.actor_uid = req->uid;
	c.nodelist = "";
	c.drop_allocs = true;
	if (kai_db_jobs_change(k->db, &c, 1, &applied, &err) != 0) {
		kai_log_err("could not requeue job %" PRIu64 ": %s", j->id,
		    err.msg);
		*msg = "could not write the change";
		return err.code;
	}
	if (!applied) {	/* it ended meanwhile */
		*msg = MSG_INVALID;
		return KAI_EINVAL;
	}
	evict_post_events(k, j, "Evicted", REQUEUE_REASON);
	dispatch_delete_pods(k, j, -1);
	mail_requeued(k, j, req->now);
	evict_requeued(j, REQUEUE_REASON, req->now);
	*msg = "ok";
	return KAI_OK;
}

/*
 * The priority a released job gets back: its submission's, from its
 * priority class and QoS (policy.c).  The store keeps the default class
 * for a job that named none (db_job.c), so that one reads back as not
 * given and the QoS's priority applies.
 */
static uint32_t
released_priority(struct kaid *k, const struct kai_job *j)
{
	struct kai_jobspec js;
	struct kai_err err;
	const char *cls = NULL;
	uint32_t prio;

	if (kai_db_job_spec(k->db, j->id, &js, &err) != 0) {
		kai_log_warn("job %" PRIu64 ": could not read its priority "
		    "class, released with its QoS's: %s", j->id, err.msg);
		return policy_priority(k, j->qos, NULL);
	}
	if (js.priority_class != NULL &&
	    strcmp(js.priority_class, KAI_PRIO_CLASS_DEFAULT) != 0)
		cls = js.priority_class;
	prio = policy_priority(k, j->qos, cls);
	kai_jobspec_fini(&js);
	return prio;
}

/* Holds, releases or requeues one job; returns the code, sets *msg. */
static int
control_one(struct kaid *k, const struct rpc_req *req, enum kai_job_op op,
    uint64_t id, const char **msg)
{
	bool hold = op == KAI_JOB_OP_HOLD, applied;
	bool requeue = op == KAI_JOB_OP_REQUEUE;
	struct kai_db_jobedit e;
	struct kai_job *j;
	struct kai_err err;
	int code;

	if ((j = job_for(k, req, id, requeue, &code, msg)) == NULL) {
		audit(req, kai_job_op_name(op), id, "", *msg);
		return code;
	}
	if (requeue) {
		code = requeue_one(k, req, j, msg);
		audit(req, kai_job_op_name(op), id, "", *msg);
		if (code == KAI_OK)
			*msg = "";
		return code;
	}
	if (j->hold == hold) { /* nothing to change; Slurm says nothing */
		audit(req, kai_job_op_name(op), id, "", "ok (unchanged)");
		return KAI_OK;
	}
	memset(&e, 0, sizeof(e));
	e.id = id;
	e.time = req->now;
	e.actor_uid = req->uid;
	e.set_hold = true;
	e.hold = hold;
	e.priority = hold ? 0 : released_priority(k, j);
	e.reason = hold ? "JobHeldUser" : "None";
	e.event = hold ? "held by user" : "released by user";
	if (kai_db_job_edit(k->db, &e, &applied, &err) != 0) {
		kai_log_err("could not %s job %" PRIu64 ": %s",
		    kai_job_op_name(op), id, err.msg);
		*msg = "could not write the change";
		audit(req, kai_job_op_name(op), id, "", *msg);
		return err.code;
	}
	if (!applied) {
		*msg = MSG_NOTPENDING;
		audit(req, kai_job_op_name(op), id, "", *msg);
		return KAI_EINVAL;
	}
	j->hold = hold;
	j->priority = e.priority;
	free(j->reason);
	j->reason = kai_xstrdup(e.reason);
	audit(req, kai_job_op_name(op), id, "", "ok");
	return KAI_OK;
}

bool
rpc_job_control(struct kaid *k, const struct rpc_req *req)
{
	struct kai_cancel_result *res;
	struct kai_job_control c;
	struct kai_err err;
	struct kai_buf b;
	bool released = false;
	size_t i;

	if (kai_msg_job_control_decode(req->body, req->len, &c, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	res = kai_xcalloc(c.nids, sizeof(*res));
	for (i = 0; i < c.nids; i++) {
		const char *msg;

		res[i].id = c.ids[i];
		res[i].code = control_one(k, req, c.op, c.ids[i], &msg);
		res[i].msg = kai_xstrdup(msg);
		released |= res[i].code == KAI_OK && c.op != KAI_JOB_OP_HOLD;
	}
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_reply_encode(&b, res, c.nids) == 0)
		server_reply(k, req->conn, KAI_MSG_JOB_CONTROL_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the results", NULL);
	kai_buf_fini(&b);
	kai_cancel_results_free(res, c.nids);
	kai_job_control_fini(&c);
	if (released)
		tick_soon(k);
	return false;
}

/*
 * A job moved to another partition must still find its files there: its
 * working directory and output files on that partition's filesystems
 * (the spec is read from PostgreSQL: kaid keeps no patterns in memory).
 */
static int
update_paths(struct kaid *k, const struct kai_job *j, const char *queue,
    struct kai_err *err)
{
	struct kai_jobspec js;
	int r;

	memset(&js, 0, sizeof(js));
	if (kai_db_job_spec(k->db, j->id, &js, err) != 0)
		return err->code;
	r = pools_check_paths(k, &js, queue, err);
	kai_jobspec_fini(&js);
	return r;
}

/* The checks ksubmit's submission gets (rpc_submit.c), for the new values. */
static int
update_check(struct kaid *k, const struct kai_job *j,
    const struct kai_job_update *u, struct kai_err *err)
{
	const char *queue = u->partition != NULL ? u->partition : j->queue;
	int64_t tl = (u->set & KAI_JOB_UPD_TIME_LIMIT) ? u->time_limit_s
						       : j->time_limit_s;
	const struct kai_conf_partition *p;
	char kids[256];
	uint32_t mask;
	size_t unknown = 0;
	long qi;

	if (u->partition != NULL) {
		if ((qi = queues_find(k, queue)) < 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid partition specified: \"%s\"", queue);
		if (queues_is_parent(k, qi)) {
			queues_children(k, (size_t)qi, kids, sizeof(kids));
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\" is not a leaf: use one of its "
			    "children (%s)",
			    queue, kids);
		}
	}
	p = kai_conf_partition(k->conf, queue);
	if (p != NULL && p->max_time_s > 0 &&
	    (tl == KAI_TIME_UNLIMITED || tl > p->max_time_s))
		return kai_err_set(err, KAI_EINVAL,
		    "requested time limit exceeds the limit of partition "
		    "\"%s\"",
		    p->name);
	if ((u->set & KAI_JOB_UPD_TIME_LIMIT) &&
	    policy_check_wall(k, j->qos, tl, err) != 0)
		return err->code;
	if (u->mail_type != NULL &&
	    kai_mail_type_parse(u->mail_type, &mask, &unknown, err) != 0)
		return err->code;
	if (unknown > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "Invalid --mail-type specification \"%s\"", u->mail_type);
	if (u->mail_user != NULL && kai_mail_user_check(u->mail_user, err) != 0)
		return err->code;
	if (u->partition != NULL)
		return update_paths(k, j, queue, err);
	return 0;
}

/* "TimeLimit=60 Partition=gpu" for the event and the audit line. */
static void
update_text(const struct kai_job_update *u, char *buf, size_t size)
{
	char tl[32] = "";
	size_t n;

	if (u->set & KAI_JOB_UPD_TIME_LIMIT)
		(void)snprintf(tl, sizeof(tl), "TimeLimit=%" PRId64 "s",
		    u->time_limit_s);
	(void)snprintf(buf, size, "update %s%s%s%s", tl,
	    *tl && u->partition ? " " : "", u->partition ? "Partition=" : "",
	    u->partition ? u->partition : "");
	if (u->mail_type != NULL && (n = strlen(buf)) < size)
		(void)snprintf(buf + n, size - n, "%sMailType=%s",
		    n > 7 ? " " : "", u->mail_type);
	if (u->mail_user != NULL && (n = strlen(buf)) < size)
		(void)snprintf(buf + n, size - n, "%sMailUser=%s",
		    n > 7 ? " " : "", u->mail_user);
}

static int
update_apply(struct kaid *k, const struct rpc_req *req, struct kai_job *j,
    const struct kai_job_update *u, struct kai_err *err)
{
	struct kai_db_jobedit e;
	char what[KAI_MAIL_TYPE_TEXT_MAX + KAI_MAIL_USER_MAX + 128];
	bool applied;

	update_text(u, what, sizeof(what));
	memset(&e, 0, sizeof(e));
	e.id = j->id;
	e.time = req->now;
	e.actor_uid = req->uid;
	e.set_time_limit = (u->set & KAI_JOB_UPD_TIME_LIMIT) != 0;
	e.time_limit_s = u->time_limit_s;
	e.queue = u->partition;
	e.mail_type = u->mail_type;
	e.mail_user = u->mail_user;
	e.event = what;
	if (kai_db_job_edit(k->db, &e, &applied, err) != 0) {
		kai_log_err("could not update job %" PRIu64 ": %s", j->id,
		    err->msg);
		return err->code;
	}
	if (!applied)
		return kai_err_set(err, KAI_EINVAL, MSG_NOTPENDING);
	if (e.set_time_limit)
		j->time_limit_s = u->time_limit_s;
	if (u->partition != NULL) {
		free(j->queue);
		j->queue = kai_xstrdup(u->partition);
	}
	if (u->mail_type != NULL)
		j->mail_mask = kai_mail_type_mask(u->mail_type);
	if (u->mail_user != NULL) {
		if (j->mail_user != kai_job_empty)
			free(j->mail_user);
		j->mail_user = kai_job_optstr(u->mail_user);
	}
	audit(req, "update", j->id, what + 7, "ok");
	return 0;
}

bool
rpc_job_update(struct kaid *k, const struct rpc_req *req)
{
	struct kai_job_update u;
	struct kai_job *j;
	struct kai_err err;
	struct kai_buf b;
	const char *msg;
	int code;

	if (kai_msg_job_update_decode(req->body, req->len, &u, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if ((j = job_for(k, req, u.id, false, &code, &msg)) == NULL)
		(void)kai_err_set(&err, code, "%s", msg);
	if (j == NULL || update_check(k, j, &u, &err) != 0 ||
	    update_apply(k, req, j, &u, &err) != 0) {
		audit(req, "update", u.id, "", err.msg);
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
	} else {
		kai_buf_init(&b, 64);
		if (kai_msg_u32_encode(&b,
			(uint32_t)__builtin_popcount(u.set)) == 0)
			server_reply(k, req->conn, KAI_MSG_JOB_UPDATE_REPLY, 0,
			    &b);
		kai_buf_fini(&b);
		tick_soon(k);
	}
	kai_job_update_fini(&u);
	return false;
}
