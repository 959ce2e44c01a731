/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_async.c: the long reads (kacct's history, kacct --report, the usage
 * of finished jobs) without blocking the caller's loop.
 *
 * They run on a connection of their own (a second struct kai_db, opened
 * by kaid for reads only), with libpq's asynchronous calls: the statement
 * is sent, the caller watches kai_db_async_fd() for what
 * kai_db_async_wants() says, and kai_db_async_io() reads what has come
 * and, once a result is whole, converts it and runs the request's
 * callback.  One statement is in flight at a time; the others wait their
 * turn in order.  The writes and the short reads stay on kaid's main
 * connection, so a kacct over a million jobs, or one waiting on a lock,
 * holds up neither the scheduler nor other clients; statement_timeout
 * (kai_db_set_statement_timeout) bounds how long it may take.
 *
 * As in libuv, a request whose send fails returns an error and never
 * runs its callback; one that was queued runs it exactly once (with
 * KAI_EAGAIN when the connection is closed first).  The connection is
 * reopened, blocking, before the next statement when it was lost.
 */
#include "config.h"

#include "db/db.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

enum areq_kind {
	AREQ_JOBS,
	AREQ_REPORT,
	AREQ_USAGE
};

struct areq {
	enum areq_kind kind;
	char *sql;		/* owned, or NULL when sql_static */
	const char *sql_static;
	struct kai_db_params p;
	union {
		kai_db_jobs_fn *jobs;
		kai_db_report_fn *report;
		kai_db_usage_fn *usage;
	} fn;
	void *ctx;
	struct areq *next;
};

struct db_async {
	struct areq *head, *tail;
	bool sent;		/* head's statement is on the connection */
	bool flushing;		/* part of it still to be written */
	PGresult *first;	/* its result, until the NULL that ends it */
};

static struct db_async *
async_of(struct kai_db *db)
{
	if (db->async == NULL)
		db->async = kai_xcalloc(1, sizeof(*db->async));
	return db->async;
}

static const char *
what_of(const struct areq *a)
{
	return a->kind == AREQ_JOBS ? "could not query jobs" :
	    a->kind == AREQ_REPORT ? "could not read the report" :
	    "could not load the usage";
}

/* Converts res (NULL: err says why) and runs a's callback; frees a. */
static void
deliver(struct kai_db *db, struct areq *a, PGresult *res, struct kai_err *err)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_report_row *rows = NULL;
	struct kai_db_usage *usage = NULL;
	size_t n = 0;
	int code = 0;

	if (res != NULL && PQresultStatus(res) != PGRES_TUPLES_OK)
		code = kai_db_error(db, res, what_of(a), err);
	else if (res == NULL)
		code = kai_db_errcode(err);
	else if (a->kind == AREQ_JOBS)
		code = kai_db_jobs_query_rows(res, &jobs, &n, err);
	else if (a->kind == AREQ_REPORT)
		code = kai_db_report_rows(res, &rows, &n, err);
	else
		code = kai_db_usage_rows(res, &usage, &n, err);
	PQclear(res);
	if (a->kind == AREQ_JOBS)
		a->fn.jobs(code, code != 0 ? err : NULL, jobs, n, a->ctx);
	else if (a->kind == AREQ_REPORT)
		a->fn.report(code, code != 0 ? err : NULL, rows, n, a->ctx);
	else
		a->fn.usage(code, code != 0 ? err : NULL, usage, n, a->ctx);
	kai_db_params_fini(&a->p);
	free(a->sql);
	free(a);
}

/* Takes the head off the queue. */
static struct areq *
pop(struct db_async *q)
{
	struct areq *a = q->head;

	q->head = a->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->sent = false;
	q->flushing = false;
	return a;
}

/* The statement in flight failed on the connection: drop it. */
static void
fail_sent(struct kai_db *db)
{
	struct db_async *q = db->async;
	struct kai_err err;
	struct areq *a = q->head;

	(void)kai_db_error(db, NULL, what_of(a), &err);
	db->broken = true;	/* reconnect before the next one */
	PQclear(q->first);
	q->first = NULL;
	deliver(db, pop(q), NULL, &err);
}

/* Sends the statement at the head of the queue, if none is in flight. */
static void
start_next(struct kai_db *db)
{
	struct db_async *q = db->async;
	struct kai_err err;
	struct areq *a;
	int r;

	while (q != NULL && q->head != NULL && !q->sent) {
		a = q->head;
		if (kai_db_ready(db, &err) != 0) {
			deliver(db, pop(q), NULL, &err);
			continue;
		}
		if (PQsetnonblocking(db->conn, 1) != 0 ||
		    !PQsendQueryParams(db->conn, a->sql != NULL ? a->sql :
		    a->sql_static, a->p.n, NULL, a->p.v, NULL, NULL, 0)) {
			(void)kai_db_error(db, NULL, what_of(a), &err);
			db->broken = true;
			deliver(db, pop(q), NULL, &err);
			continue;
		}
		q->sent = true;
		if ((r = PQflush(db->conn)) < 0)
			fail_sent(db);
		else
			q->flushing = r == 1;
	}
}

/*
 * Queues a, or when nothing is in flight sends it at once: a failure then
 * is returned (a freed, its callback never run), so that no callback runs
 * inside the caller's send.
 */
static int
enqueue(struct kai_db *db, struct areq *a, struct kai_err *err)
{
	struct db_async *q = async_of(db);
	int r, f = 0;

	if (q->head != NULL) {
		q->tail->next = a;
		q->tail = a;
		return 0;
	}
	if ((r = kai_db_ready(db, err)) == 0 &&
	    (PQsetnonblocking(db->conn, 1) != 0 ||
	    !PQsendQueryParams(db->conn, a->sql != NULL ? a->sql :
	    a->sql_static, a->p.n, NULL, a->p.v, NULL, NULL, 0) ||
	    (f = PQflush(db->conn)) < 0)) {
		r = kai_db_error(db, NULL, what_of(a), err);
		db->broken = true;
	}
	if (r != 0) {
		kai_db_params_fini(&a->p);
		free(a->sql);
		free(a);
		return r;
	}
	q->head = q->tail = a;
	q->sent = true;
	q->flushing = f == 1;
	return 0;
}

int
kai_db_jobs_query_send(struct kai_db *db, const struct kai_query *q,
    enum kai_db_scope scope, uint32_t requester_uid, kai_db_jobs_fn *fn,
    void *ctx, struct kai_err *err)
{
	struct areq *a = kai_xcalloc(1, sizeof(*a));
	struct kai_buf sql;
	int r;

	a->kind = AREQ_JOBS;
	a->fn.jobs = fn;
	a->ctx = ctx;
	kai_db_params_init(&a->p);
	kai_buf_init(&sql, KAI_DB_TEXT_MAX);
	if ((r = kai_db_jobs_query_sql(&sql, &a->p, q, scope, requester_uid,
	    err)) != 0) {
		kai_buf_fini(&sql);
		kai_db_params_fini(&a->p);
		free(a);
		return r;
	}
	a->sql = kai_buf_detach(&sql, NULL);
	kai_buf_fini(&sql);
	return enqueue(db, a, err);
}

int
kai_db_report_send(struct kai_db *db, const struct kai_report_req *q,
    int64_t now, kai_db_report_fn *fn, void *ctx, struct kai_err *err)
{
	struct areq *a = kai_xcalloc(1, sizeof(*a));

	a->kind = AREQ_REPORT;
	a->fn.report = fn;
	a->ctx = ctx;
	kai_db_params_init(&a->p);
	if ((a->sql_static = kai_db_report_sql(&a->p, q, now, err)) == NULL) {
		kai_db_params_fini(&a->p);
		free(a);
		return kai_db_errcode(err);
	}
	return enqueue(db, a, err);
}

int
kai_db_usage_send(struct kai_db *db, int64_t now, int64_t window_s,
    int64_t half_life_s, kai_db_usage_fn *fn, void *ctx, struct kai_err *err)
{
	struct areq *a = kai_xcalloc(1, sizeof(*a));

	a->kind = AREQ_USAGE;
	a->fn.usage = fn;
	a->ctx = ctx;
	kai_db_params_init(&a->p);
	a->sql_static = kai_db_usage_sql(&a->p, now, window_s, half_life_s);
	return enqueue(db, a, err);
}

int
kai_db_async_fd(const struct kai_db *db)
{
	if (db == NULL || db->async == NULL || !db->async->sent ||
	    db->conn == NULL)
		return -1;
	return PQsocket(db->conn);
}

int
kai_db_async_wants(const struct kai_db *db)
{
	if (kai_db_async_fd(db) < 0)
		return 0;
	return KAI_DB_WANT_READ | (db->async->flushing ? KAI_DB_WANT_WRITE : 0);
}

void
kai_db_async_io(struct kai_db *db)
{
	struct db_async *q = db->async;
	struct kai_err err;
	PGresult *res;
	int r;

	if (q == NULL || !q->sent)
		return;
	if (q->flushing) {
		if ((r = PQflush(db->conn)) < 0) {
			fail_sent(db);
			start_next(db);
			return;
		}
		q->flushing = r == 1;
	}
	if (!PQconsumeInput(db->conn)) {
		fail_sent(db);
		start_next(db);
		return;
	}
	while (q->sent && !PQisBusy(db->conn)) {
		if ((res = PQgetResult(db->conn)) != NULL) {
			if (q->first == NULL)
				q->first = res;
			else
				PQclear(res);
			continue;
		}
		/* NULL: the statement is done, its result is whole. */
		res = q->first;
		q->first = NULL;
		if (res == NULL)
			(void)kai_db_error(db, NULL, what_of(q->head), &err);
		deliver(db, pop(q), res, &err);
		start_next(db);
	}
}

size_t
kai_db_async_pending(const struct kai_db *db)
{
	const struct areq *a;
	size_t n = 0;

	if (db == NULL || db->async == NULL)
		return 0;
	for (a = db->async->head; a != NULL; a = a->next)
		n++;
	return n;
}

void
kai_db_async_close(struct kai_db *db)
{
	struct db_async *q = db->async;
	struct kai_err err;

	if (q == NULL)
		return;
	if (q->sent && db->conn != NULL)
		db->broken = true;	/* a statement was abandoned */
	q->sent = false;
	PQclear(q->first);
	q->first = NULL;
	while (q->head != NULL) {
		kai_err_set(&err, KAI_EAGAIN, "%s: kaid is stopping",
		    what_of(q->head));
		deliver(db, pop(q), NULL, &err);
	}
	free(q);
	db->async = NULL;
}
