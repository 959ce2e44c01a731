/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reads.c: the long reads, off the loop's critical path.
 *
 * kacct's history, kacct --report and the refresh of the usage of
 * finished jobs (usage.c) may read many rows, or wait on a lock; on kaid's main connection (synchronous) they stalled the
 * scheduler and every other client meanwhile.  They go to a second
 * connection, reads_db(k), driven asynchronously (src/db/db_async.c): the
 * request is sent, the client's reply deferred, the connection's socket
 * watched by the loop, and the reply sent from the read's callback.
 * Everything else, kqueue from the cache included, goes on meanwhile.
 * database_timeout (kaid.yaml) bounds each read.
 *
 * A read keeps its client's connection in a struct read_call; when the
 * client goes away first, reads_forget_conn() clears it and the answer is
 * dropped.  libpq may close and reopen the socket (a lost connection is
 * reopened before the next read), so the loop's watch is taken off
 * before every call into the db API and put back after, on whatever
 * socket is current: the loop never watches a number that was closed and
 * may have been given to a client since.
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

struct read_call {
	struct kaid *k;
	struct conn *conn;	/* NULL once the client went away */
	struct read_call *next;
};

static void reads_event(struct kai_loop *loop, int fd, int events,
    void *ctx);

/* The connection for reads and the calls waiting on it. */
struct reads {
	struct kai_db *db;	/* NULL until reads_open() */
	int fd;			/* its socket while the loop watches it */
	struct read_call *calls; /* reads waiting for their answer */
};

void
reads_init(struct kaid *k)
{
	k->reads = kai_xcalloc(1, sizeof(*k->reads));
	k->reads->fd = -1;
}

struct kai_db *
reads_db(const struct kaid *k)
{
	return k->reads->db;
}

static void
disarm(struct kaid *k)
{
	if (k->reads->fd >= 0)
		kai_loop_fd_del(k->loop, k->reads->fd);
	k->reads->fd = -1;
}

static void
arm(struct kaid *k)
{
	struct kai_db *db = k->reads->db;
	int fd = kai_db_async_fd(db), want = kai_db_async_wants(db);
	int ev = (want & KAI_DB_WANT_READ ? KAI_LOOP_READ : 0) |
	    (want & KAI_DB_WANT_WRITE ? KAI_LOOP_WRITE : 0);

	if (fd < 0 || ev == 0)
		return;
	if (kai_loop_fd_set(k->loop, fd, ev, reads_event, k) != 0) {
		kai_log_err("could not watch the database connection for "
		    "reads");
		return;
	}
	k->reads->fd = fd;
}

static void
reads_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct kaid *k = ctx;

	(void)loop;
	(void)fd;
	(void)events;
	disarm(k);
	kai_db_async_io(k->reads->db);
	arm(k);
}

int
reads_open(struct kaid *k, struct kai_err *err)
{
	if (kai_db_open(k->conf->database, &k->reads->db, err) != 0)
		return kai_err_prefix(err, "the connection for reads");
	return kai_db_set_statement_timeout(k->reads->db, k->conf->db_timeout_ms,
	    err);
}

void
reads_close(struct kaid *k)
{
	disarm(k);
	kai_db_close(k->reads->db); /* waiting callbacks run, conn NULL */
	KAI_FREE(k->reads);
}

struct read_call *
reads_call_new(struct kaid *k, const struct rpc_req *req)
{
	struct read_call *c = kai_xcalloc(1, sizeof(*c));

	c->k = k;
	c->conn = req->conn;
	c->next = k->reads->calls;
	k->reads->calls = c;
	disarm(k);	/* the send may reopen the connection */
	return c;
}

void
reads_begin(struct kaid *k)
{
	disarm(k);
}

void
reads_sent(struct kaid *k)
{
	arm(k);
}

struct conn *
reads_call_conn(const struct read_call *c)
{
	return c->conn;
}

struct kaid *
reads_call_kaid(const struct read_call *c)
{
	return c->k;
}

void
reads_call_done(struct read_call *c, bool resume)
{
	struct read_call **p;
	struct kaid *k = c->k;

	for (p = &k->reads->calls; *p != NULL; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	if (resume)
		server_resume(k, c->conn);
	free(c);
}

void
reads_forget_conn(struct kaid *k, struct conn *conn)
{
	struct read_call *c;

	for (c = k->reads->calls; c != NULL; c = c->next)
		if (c->conn == conn)
			c->conn = NULL;
}
