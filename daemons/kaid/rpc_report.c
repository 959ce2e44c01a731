/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_report.c: kacct --report (KAI_MSG_REPORT).
 *
 * The rows come from one aggregate in PostgreSQL (kai_db_report()), so
 * the answer costs kaid a few rows whatever the history holds.  Who sees
 * what follows kacct's job history (rpc_query.c): an operator sees every
 * user's rows; anyone else only their own, whatever they asked for (a
 * request naming only other users gets no rows, not an error, as sacct
 * -u other gives no jobs).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

static void
reply_rows(struct kaid *k, struct conn *conn, const struct kai_report_row *v,
    size_t n)
{
	struct kai_buf b;
	size_t first = 0;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	do {
		kai_buf_reset(&b);
		if (kai_msg_report_encode(&b, v, n, &first,
		    KAI_PROTO_BODY_MAX) != 0) {
			server_reply_error(k, conn, KAI_EINTERNAL,
			    "could not encode the report", NULL);
			break;
		}
		server_reply(k, conn, KAI_MSG_REPORT_REPLY,
		    first < n ? KAI_FRAME_MORE : 0, &b);
	} while (first < n);
	kai_buf_fini(&b);
}

/* A user who is no operator: their own uid, or nothing when not asked. */
static bool
own_only(struct kai_report_req *q, uint32_t uid)
{
	size_t i;
	bool asked = q->nuids == 0;

	for (i = 0; i < q->nuids; i++)
		asked = asked || q->uids[i] == uid;
	if (!asked)
		return false;
	free(q->uids);
	q->uids = kai_xcalloc(1, sizeof(*q->uids));
	q->uids[0] = uid;
	q->nuids = 1;
	return true;
}

/* The rows from the database (reads.c, on its own connection). */
static void
report_done(int code, const struct kai_err *err, struct kai_report_row *v,
    size_t n, void *ctx)
{
	struct read_call *c = ctx;
	struct conn *conn = reads_call_conn(c);
	struct kaid *k = reads_call_kaid(c);

	if (code != 0) {
		if (code != KAI_EAGAIN)
			kai_log_err("could not make a report: %s", err->msg);
		server_reply_error(k, conn, code, err->msg, NULL);
	} else if (conn != NULL) {
		reply_rows(k, conn, v, n);
	}
	kai_db_report_free(v, n);
	reads_call_done(c, true);
}

bool
rpc_report(struct kaid *k, const struct rpc_req *req)
{
	struct kai_report_req q;
	struct read_call *c;
	struct kai_err err;
	int r;

	if (kai_msg_report_req_decode(req->body, req->len, &q, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if (!rpc_is_operator(k, req->uid) && !own_only(&q, req->uid)) {
		reply_rows(k, req->conn, NULL, 0);
		kai_report_req_fini(&q);
		return false;
	}
	c = reads_call_new(k, req);
	r = kai_db_report_send(reads_db(k), &q, req->now, report_done, c,
	    &err);
	reads_sent(k);
	kai_report_req_fini(&q);
	if (r != 0) {
		kai_log_err("could not make a report: %s", err.msg);
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		reads_call_done(c, false);
		return false;
	}
	return true;	/* report_done() answers */
}
