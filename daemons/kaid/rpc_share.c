/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_share.c: kshare (KAI_MSG_SHARE).
 *
 * Anyone may ask.  The answer is the copy share.c keeps from the last
 * scheduling pass, filtered by the request: the queues named and every
 * queue below them (all queues when none is named), and the user rows of
 * the users named inside those queues (all users when none is named).
 * The filtered lists borrow the copy's strings, and are encoded before
 * the loop runs again, so the copy cannot change under them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "share.h"

static bool
listed(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Queue i of the share is named or below one named (parents first). */
static void
pick_queues(const struct kai_share *s, const struct kai_share_req *q,
    bool *in)
{
	size_t i, p;

	for (i = 0; i < s->nqueues; i++) {
		in[i] = q->nqueues == 0 || listed(q->queues, q->nqueues,
		    s->queues[i].name);
		for (p = 0; !in[i] && s->queues[i].parent != NULL && p < i; p++)
			in[i] = in[p] && strcmp(s->queues[p].name,
			    s->queues[i].parent) == 0;
	}
}

static void
reply(struct kaid *k, struct conn *conn, const struct kai_share *f)
{
	size_t qf = 0, uf = 0;
	struct kai_buf b;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	do {
		kai_buf_reset(&b);
		if (kai_msg_share_encode(&b, f, &qf, &uf,
		    KAI_PROTO_BODY_MAX) != 0) {
			server_reply_error(k, conn, KAI_EINTERNAL,
			    "could not encode the fair share figures", NULL);
			break;
		}
		server_reply(k, conn, KAI_MSG_SHARE_REPLY,
		    qf < f->nqueues || uf < f->nusers ? KAI_FRAME_MORE : 0, &b);
	} while (qf < f->nqueues || uf < f->nusers);
	kai_buf_fini(&b);
}

bool
rpc_share(struct kaid *k, const struct rpc_req *req)
{
	const struct kai_share *s = share_last(k);
	struct kai_share_req q;
	struct kai_share f;
	struct kai_err err;
	bool *in;
	size_t i, j;

	if (kai_msg_share_req_decode(req->body, req->len, &q, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if (s->time == 0) {
		server_reply_error(k, req->conn, KAI_EAGAIN,
		    "no scheduling pass has run yet",
		    "kaid schedules once it sees the cluster; try again");
		kai_share_req_fini(&q);
		return false;
	}
	for (i = 0; i < q.nqueues; i++) {
		for (j = 0; j < s->nqueues; j++)
			if (strcmp(s->queues[j].name, q.queues[i]) == 0)
				break;
		if (j == s->nqueues) {
			(void)kai_err_set(&err, KAI_ENOENT,
			    "queue \"%s\" does not exist", q.queues[i]);
			server_reply_error(k, req->conn, err.code, err.msg,
			    NULL);
			kai_share_req_fini(&q);
			return false;
		}
	}
	f = *s;
	in = kai_xcalloc(s->nqueues + 1, sizeof(*in));
	pick_queues(s, &q, in);
	f.queues = kai_xcalloc(s->nqueues + 1, sizeof(*f.queues));
	f.users = kai_xcalloc(s->nusers + 1, sizeof(*f.users));
	for (i = f.nqueues = 0; i < s->nqueues; i++)
		if (in[i])
			f.queues[f.nqueues++] = s->queues[i];
	for (i = f.nusers = 0; i < s->nusers; i++) {
		for (j = 0; j < s->nqueues && strcmp(s->queues[j].name,
		    s->users[i].queue) != 0; j++)
			;
		if (j < s->nqueues && in[j] && (q.nusers == 0 ||
		    listed(q.users, q.nusers, s->users[i].user)))
			f.users[f.nusers++] = s->users[i];
	}
	reply(k, req->conn, &f);
	free(f.queues); /* the strings are the copy's */
	free(f.users);
	free(in);
	kai_share_req_fini(&q);
	return false;
}
