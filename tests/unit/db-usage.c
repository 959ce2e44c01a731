/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db-usage: kai_db_usage_load() against a real, private PostgreSQL.
 *
 * Run by db-usage.t (argv[1] is the conninfo).  Jobs are written with the
 * store's own calls, their run times set with plain SQL; the aggregate's
 * figures must equal the closed form of src/sched/decay.c for each job,
 * so the SQL and the C arithmetic cannot drift apart.  Jobs that never
 * ran, still run, or ended before the window are not counted.
 */
#include "config.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "db/db.h"
#include "sched/decay.h"
#include "tap.h"

#define NOW INT64_C(1700000000)

static PGconn *raw;

static void
sql_do(const char *sql)
{
	PGresult *res = PQexec(raw, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
	    PQresultStatus(res) != PGRES_TUPLES_OK)
		diag("sql failed: %s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
}

/* A job of ntasks x (gpus, 2 cores, 4096 MiB) run from t0 to t1 (0: not). */
static uint64_t
job(struct kai_db *db, const char *queue, const char *user, uint32_t ntasks,
    uint32_t gpus, int64_t t0, int64_t t1)
{
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_err err;
	uint64_t id = 0;
	char sql[256];

	memset(&js, 0, sizeof(js));
	memset(&nj, 0, sizeof(nj));
	js.script = kai_xstrdup("#!/bin/sh\ntrue\n");
	js.workdir = kai_xstrdup("/");
	js.ntasks = ntasks;
	js.cpus_per_task = 2;
	js.gpus_per_task = gpus;
	nj.spec = &js;
	nj.uid = 1000;
	nj.gid = 1000;
	nj.user = user;
	nj.queue = queue;
	nj.time_limit_s = 3600;
	nj.mem_mb = 4096;
	nj.submit_time = t0 > 0 ? t0 - 10 : NOW - 10;
	if (kai_db_jobs_insert(db, &nj, 1, &id, &err) != 0)
		diag("insert failed: %s", kai_err_msg(&err));
	kai_jobspec_fini(&js);
	(void)snprintf(sql, sizeof(sql), "UPDATE jobs SET start_time = %"
	    PRId64 ", end_time = %" PRId64 ", state = '%s' WHERE id = %"
	    PRIu64, t0, t1, t1 > 0 ? "COMPLETED" : t0 > 0 ? "RUNNING" :
	    "CANCELLED", id);
	sql_do(sql);
	return id;
}

static const struct kai_db_usage *
find(const struct kai_db_usage *u, size_t n, const char *q, const char *user)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(u[i].queue, q) == 0 && strcmp(u[i].user, user) == 0)
			return &u[i];
	return NULL;
}

/* Whether got (micro-units) is want (units) to rounding. */
static bool
near(int64_t got, double want, double scale)
{
	return fabs((double)got - want * scale) <= 1.0 + 1e-9 * want * scale;
}

static void
check(struct kai_db *db, int64_t h)
{
	struct kai_sched_decay d = {h, 86400};
	struct kai_db_usage *u = NULL;
	const struct kai_db_usage *a, *b;
	struct kai_err err;
	double sa, sb;
	size_t n = 0;

	is_int(kai_db_usage_load(db, NOW, 86400, h, &u, &n, &err), 0,
	    "usage loads (half-life %" PRId64 " s)", h);
	is_int((int64_t)n, 2, "two (queue, user) pairs ran inside the window");
	a = find(u, n, "batch", "alice");
	b = find(u, n, "gpu", "bob");
	ok(a != NULL && b != NULL, "alice in batch and bob in gpu");
	if (a == NULL || b == NULL) {
		kai_db_usage_free(u, n);
		return;
	}
	/* alice: 2 tasks x 1 GPU for an hour, two hours ago; and another. */
	sa = kai_sched_decayed_seconds(&d, NOW - 7200, NOW - 3600, NOW) * 2 +
	    kai_sched_decayed_seconds(&d, NOW - 1000, NOW - 400, NOW);
	ok(near(a->gpu, sa, 1e6), "alice's GPU usage is the closed form "
	    "(%" PRId64 " vs %.0f)", a->gpu, sa * 1e6);
	ok(near(a->cpu, 2 * sa, 1e3) && near(a->mem, 4096 * sa, 1),
	    "her core- and MiB-seconds scale with her tasks' size");
	/* bob: from before the window to 10 minutes ago: cut to the window. */
	sb = kai_sched_decayed_seconds(&d, NOW - 90000, NOW - 600, NOW) * 4;
	ok(near(b->gpu, sb, 1e6), "bob's run is cut to the window "
	    "(%" PRId64 " vs %.0f)", b->gpu, sb * 1e6);
	kai_db_usage_free(u, n);
}

int
main(int argc, char **argv)
{
	struct kai_db *db = NULL;
	const char *names[] = {"batch", "gpu"};
	struct kai_err err;
	int v;

	if (argc < 2)
		skip_all("usage: db-usage CONNINFO (run db-usage.t)");
	raw = PQconnectdb(argv[1]);
	if (PQstatus(raw) != CONNECTION_OK)
		skip_all("cannot connect to the test database");
	sql_do("SET client_min_messages = warning");
	sql_do("DROP SCHEMA public CASCADE");
	sql_do("CREATE SCHEMA public");
	if (kai_db_open(argv[1], &db, &err) != 0 ||
	    kai_db_migrate(db, &v, &err) != 0 ||
	    kai_db_queues_sync(db, names, 2, &err) != 0) {
		ok(0, "set up the database: %s", err.msg);
		return done_testing();
	}
	(void)job(db, "batch", "alice", 2, 1, NOW - 7200, NOW - 3600);
	(void)job(db, "batch", "alice", 1, 1, NOW - 1000, NOW - 400);
	(void)job(db, "batch", "alice", 1, 8, NOW - 300000, NOW - 200000);
	(void)job(db, "gpu", "bob", 1, 4, NOW - 90000, NOW - 600);
	(void)job(db, "gpu", "carol", 1, 4, NOW - 500, 0);	/* running */
	(void)job(db, "gpu", "dave", 1, 4, 0, 0);		/* never ran */
	check(db, 3600);
	check(db, 0);
	kai_db_close(db);
	PQfinish(raw);
	return done_testing();
}
