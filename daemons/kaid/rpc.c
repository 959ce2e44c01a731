/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc.c: the RPC table and its single choke point, rpc_dispatch().
 *
 * Every request passes here: its MUNGE credential (or, from inside a
 * job, its job credential: jobauth.c) is decoded as soon as it arrived (rpc_authenticate(), before the body is read) and its
 * payload must equal the digest of the frame (so it cannot be moved onto
 * another body).  The uid and gid come from the credential alone, and
 * the handler named by the table runs, unless the table reserves the request for operators and the
 * caller is not one ("permission denied", with an audit line).  Handlers
 * reply themselves (or defer, for the group commit) and write the audit
 * line of what they changed.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "auth/jobcred.h"
#include "kaid.h"
#include "sys/log.h"

#define RPC_MUTATES  0x1 /* changes state: writes an audit line */
#define RPC_OPERATOR 0x2 /* operators only (uid 0 or `operators:`) */
#define RPC_JOB	     0x4 /* allowed with a job credential */

typedef bool rpc_fn(struct kaid *k, const struct rpc_req *req);

static bool rpc_ping(struct kaid *k, const struct rpc_req *req);

static const struct rpc_entry {
	uint16_t type;
	const char *name;
	rpc_fn *handler;
	int flags;
} rpc_table[] = {
	{KAI_MSG_SUBMIT, "submit", rpc_submit, RPC_MUTATES | RPC_JOB},
	{KAI_MSG_SUBMIT_EXT, "submit", rpc_submit_ext, RPC_MUTATES | RPC_JOB},
	{KAI_MSG_CANCEL_TASKS, "cancel", rpc_cancel_tasks,
	    RPC_MUTATES | RPC_JOB},
	{KAI_MSG_QUERY, "query", rpc_query, RPC_JOB},
	{KAI_MSG_CANCEL, "cancel", rpc_cancel, RPC_MUTATES | RPC_JOB},
	{KAI_MSG_PING, "ping", rpc_ping, RPC_JOB},
	{KAI_MSG_QUEUE_LIST, "queue-list", rpc_queue_list, RPC_JOB},
	{KAI_MSG_QUEUE_APPLY, "queue-apply", rpc_queue_apply,
	    RPC_MUTATES | RPC_OPERATOR},
	{KAI_MSG_QUEUE_DELETE, "queue-delete", rpc_queue_delete,
	    RPC_MUTATES | RPC_OPERATOR},
	{KAI_MSG_NODE_LIST, "node-list", rpc_nodes, RPC_JOB},
	{KAI_MSG_JOB_CONTROL, "job-control", rpc_job_control,
	    RPC_MUTATES | RPC_JOB},
	{KAI_MSG_JOB_UPDATE, "job-update", rpc_job_update,
	    RPC_MUTATES | RPC_JOB},
	{KAI_MSG_LOG, "log", rpc_log, RPC_JOB},
	{KAI_MSG_SHARE, "share", rpc_share, RPC_JOB},
	{KAI_MSG_REPORT, "report", rpc_report, RPC_JOB},
	{KAI_MSG_QOS_LIST, "qos-list", rpc_qos_list, RPC_JOB},
	{KAI_MSG_STEP_RUN, "step-run", rpc_step_run, RPC_JOB},
	{KAI_MSG_STEP_AGENT, "step-agent", rpc_step_agent, RPC_JOB},
	{KAI_MSG_STEP_DONE, "step-done", rpc_step_done, RPC_JOB},
	{KAI_MSG_STEP_END, "step-end", rpc_step_end, RPC_JOB},
	{KAI_MSG_STEP_LIST, "step-list", rpc_step_list, RPC_JOB},
	{KAI_MSG_STEP_SIGNAL, "signal", rpc_step_signal,
	    RPC_MUTATES | RPC_JOB},
	{KAI_MSG_PTY_ATTACH, "pty-attach", rpc_pty_attach, 0},
	{KAI_MSG_PTY_SERVE, "pty-serve", rpc_pty_serve, RPC_JOB},
};

bool
rpc_is_operator(const struct kaid *k, uint32_t uid)
{
	return kai_conf_is_operator(k->conf, uid);
}

static bool
rpc_ping(struct kaid *k, const struct rpc_req *req)
{
	struct kai_buf b;

	kai_buf_init(&b, 64);
	if (kai_msg_ping_reply_encode(&b, req->uid, req->gid) == 0)
		server_reply(k, req->conn, KAI_MSG_PING_REPLY, 0, &b);
	kai_buf_fini(&b);
	return false;
}

/* The table's name of a request type, for messages. */
static const struct rpc_entry *
rpc_find(uint16_t type)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(rpc_table); i++)
		if (rpc_table[i].type == type)
			return &rpc_table[i];
	return NULL;
}

bool
rpc_authenticate(struct kaid *k, struct conn *conn,
    const struct kai_frame_hdr *h, const char *cred, struct rpc_cred *who)
{
	const struct rpc_entry *e = rpc_find(h->type);
	const char *name = e != NULL ? e->name : "unrecognized";
	struct kai_err err;

	if (h->cred_len == 0) {
		kai_log_warn("%s request refused: missing credential", name);
		server_reply_error(k, conn, KAI_EAUTH, "missing credential",
		    NULL);
		return false;
	}
	who->job_id = 0;
	if (kai_jobcred_is(cred) ? jobauth_verify(k, cred, who, &err) != 0
	    : kai_auth_decode(k->conf->munge_socket, cred, who->digest,
		  sizeof(who->digest), &who->uid, &who->gid, &err) != 0) {
		kai_log_warn("%s request refused: %s", name, err.msg);
		server_reply_error(k, conn, KAI_EAUTH, err.msg, NULL);
		return false;
	}
	return true;
}

bool
rpc_dispatch(struct kaid *k, struct conn *conn, const struct kai_frame_hdr *h,
    const struct rpc_cred *who, const void *body)
{
	uint8_t digest[KAI_PROTO_DIGEST_LEN];
	const struct rpc_entry *e = rpc_find(h->type);
	struct rpc_req req;
	struct kai_err err;

	if (e == NULL) {
		kai_err_set(&err, KAI_EPROTO, "unrecognized request type %u",
		    (unsigned)h->type);
		kai_log_warn("%s", err.msg);
		server_reply_error(k, conn, err.code, err.msg, NULL);
		return false;
	}
	kai_frame_digest(h->version, h->type, body, h->body_len, digest);
	if (memcmp(digest, who->digest, sizeof(digest)) != 0) {
		kai_log_warn("%s request refused: credential does not match "
		    "the request", e->name);
		server_reply_error(k, conn, KAI_EAUTH,
		    "credential does not match the request", NULL);
		return false;
	}
	memset(&req, 0, sizeof(req));
	req.uid = who->uid;
	req.gid = who->gid;
	req.job_id = who->job_id;
	req.conn = conn;
	req.type = h->type;
	req.body = body;
	req.len = h->body_len;
	req.now = kaid_now();
	kai_log_debug("uid %u (job %" PRIu64 "): %s request, %zu bytes",
	    req.uid, req.job_id, e->name, req.len);
	if (req.job_id != 0 && (e->flags & RPC_JOB) == 0) {
		kai_log_info("audit: uid=%u job=%" PRIu64 " action=%s "
		    "result=permission denied", req.uid, req.job_id, e->name);
		server_reply_error(k, conn, KAI_EPERM,
		    "permission denied: not with a job credential",
		    "run it outside the job, with MUNGE");
		return false;
	}
	/* The handler's audit line names the uid; this one says a job's
	 * credential stood for it. */
	if (req.job_id != 0 && (e->flags & RPC_MUTATES))
		kai_log_info("audit: uid=%u job=%" PRIu64 " action=%s "
		    "credential=job", req.uid, req.job_id, e->name);
	if ((e->flags & RPC_OPERATOR) && !rpc_is_operator(k, req.uid)) {
		kai_log_info("audit: uid=%u action=%s result=permission denied",
		    req.uid, e->name);
		server_reply_error(k, conn, KAI_EPERM, "permission denied",
		    "only operators (root and the users listed under "
		    "\"operators\" in kaid.yaml) may do this");
		return false;
	}
	return e->handler(k, &req);
}
