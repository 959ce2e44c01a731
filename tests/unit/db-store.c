/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db-store: the PostgreSQL store against a real, private server.
 *
 * Run by db-store.t, which starts the server and passes the conninfo as
 * argv[1].  The database is emptied first, so the test can be rerun by
 * hand against the same server.  A second, raw libpq connection looks at
 * the tables directly: the checks are about what is really stored (event
 * rows, allocations, nothing half-written), not only about what the API
 * says back.
 */
#include "config.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "db/db.h"
#include "db/db_array.h"
#include "tap.h"

static PGconn *raw;		/* the test's own look at the tables */

#define T0 INT64_C(1700000000)	/* a fixed "now" for submit times */

/* Runs sql (with one optional text parameter) and returns row 0 col 0. */
static int64_t
sql_int(const char *sql, const char *arg)
{
	PGresult *res;
	int64_t v = -1;

	res = PQexecParams(raw, sql, arg != NULL ? 1 : 0, NULL, &arg, NULL,
	    NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0)
		v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	else
		diag("sql failed: %s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
	return v;
}

static void
sql_do(const char *sql)
{
	PGresult *res = PQexec(raw, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
	    PQresultStatus(res) != PGRES_TUPLES_OK)
		diag("sql failed: %s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A job for uid in queue, submitted at submit; strings are heap copies. */
static void
mkjob(struct kai_jobspec *js, struct kai_db_newjob *nj, uint32_t uid,
    const char *queue, int64_t submit)
{
	memset(js, 0, sizeof(*js));
	memset(nj, 0, sizeof(*nj));
	js->name = kai_xstrdup("train");
	js->script = kai_xstrdup("#!/bin/sh\necho hello\n");
	js->workdir = kai_xstrdup("/home/u");
	js->ntasks = 1;
	js->cpus_per_task = 2;
	js->gpus_per_task = 1;
	nj->spec = js;
	nj->uid = uid;
	nj->gid = uid + 100;
	nj->user = uid == 1000 ? "alice" : "bob";
	nj->queue = queue;
	nj->time_limit_s = 3600;
	nj->mem_mb = 4096;
	nj->priority = 10;
	nj->submit_time = submit;
}

/* Inserts one job and returns its id (0 on failure). */
static uint64_t
insert_one(struct kai_db *db, uint32_t uid, const char *queue, int64_t t)
{
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_err err;
	uint64_t id = 0;

	mkjob(&js, &nj, uid, queue, t);
	if (kai_db_jobs_insert(db, &nj, 1, &id, &err) != 0)
		diag("insert failed: %s", kai_err_msg(&err));
	kai_jobspec_fini(&js);
	return id;
}

static int
change(struct kai_db *db, uint64_t id, enum kai_job_state from,
    enum kai_job_state to, int64_t t, bool *applied)
{
	struct kai_db_change c;
	struct kai_err err;
	int r;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.from = from;
	c.to = to;
	c.reason = "";
	c.time = t;
	c.actor_uid = -1;
	c.set_start = to == KAI_JOB_RUNNING;
	c.set_end = kai_jobstate_is_terminal(to);
	if ((r = kai_db_jobs_change(db, &c, 1, applied, &err)) != 0)
		diag("change failed: %s", kai_err_msg(&err));
	return r;
}

static void
test_open_migrate(const char *conninfo, struct kai_db **dbp)
{
	struct kai_db *db = NULL, *bad = NULL;
	struct kai_err err;
	char want[128];
	int v1 = -1, v2 = -1, known = kai_db_schema_version_known();

	kai_err_clear(&err);
	is_int(kai_db_open("host=/nonexistent/kai dbname=x", &bad, &err),
	    KAI_EDB, "open of a missing server fails");
	ok(strncmp(err.msg, "could not connect to PostgreSQL: ", 33) == 0,
	    "with a clear message: %s", err.msg);
	is_int(kai_db_open(conninfo, &db, &err), 0, "open");
	ok(known >= 1, "this build knows schema version %d", known);
	is_int(kai_db_migrate(db, &v1, &err), 0, "migrate an empty database");
	is_int(v1, known, "version after the first migrate");
	is_int(kai_db_migrate(db, &v2, &err), 0, "migrate again");
	is_int(v2, known, "second migrate is a no-op");
	is_int(sql_int("SELECT count(*) FROM schema_version", NULL), 1,
	    "one schema_version row");

	snprintf(want, sizeof(want), "%d", known + 5);
	(void)sql_int("UPDATE schema_version SET version = $1::int "
	    "RETURNING version", want);
	is_int(kai_db_migrate(db, &v2, &err), KAI_EDB,
	    "a newer schema is refused");
	snprintf(want, sizeof(want),
	    "database schema version %d is newer than this kaid (%d)",
	    known + 5, known);
	is_str(err.msg, want, "refusal names both versions");
	snprintf(want, sizeof(want), "%d", known);
	(void)sql_int("UPDATE schema_version SET version = $1::int "
	    "RETURNING version", want);
	is_int(kai_db_migrate(db, &v2, &err), 0, "migrate works again");
	*dbp = db;
}

/*
 * While another session holds the migration lock, kai_db_migrate() waits
 * (a child process migrates; it must not finish until the lock goes).
 */
static void
test_migrate_lock(const char *conninfo)
{
	char key[32];
	pid_t pid;
	int status = -1, waited;

	snprintf(key, sizeof(key), "%d", 0x6b616962);
	(void)sql_int("SELECT 1 FROM pg_advisory_lock($1::bigint)", key);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct kai_db *db = NULL;
		struct kai_err err;
		int v;

		/* _exit: the parent's connections must stay untouched. */
		if (kai_db_open(conninfo, &db, &err) != 0 ||
		    kai_db_migrate(db, &v, &err) != 0)
			_exit(1);
		kai_db_close(db);
		_exit(0);
	}
	usleep(300 * 1000);
	waited = waitpid(pid, &status, WNOHANG) == 0;
	ok(waited, "a second migrator waits for the migration lock");
	(void)sql_int("SELECT 1 FROM pg_advisory_unlock($1::bigint)", key);
	if (waited)
		(void)waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "and migrates once the lock is released");
}

static void
test_queues(struct kai_db *db)
{
	const char *q1[] = {"batch", "gpu"};
	const char *q2[] = {"batch", "gpu", "debug"};
	struct kai_err err;

	is_int(kai_db_queues_sync(db, q1, 2, &err), 0, "queues sync");
	is_int(kai_db_queues_sync(db, q2, 3, &err), 0, "queues sync again");
	is_int(sql_int("SELECT count(*) FROM queues", NULL), 3,
	    "three queues, no duplicates");
}

static void
test_insert(struct kai_db *db)
{
	struct kai_jobspec js[3];
	struct kai_db_newjob nj[3];
	struct kai_err err;
	uint64_t ids[3] = {0, 0, 0};
	int64_t jobs0, ev0;
	size_t i;

	for (i = 0; i < 3; i++)
		mkjob(&js[i], &nj[i], 1000, "batch", T0 + (int64_t)i);
	is_int(kai_db_jobs_insert(db, nj, 3, ids, &err), 0, "insert 3 jobs");
	ok(ids[0] > 0 && ids[1] > ids[0] && ids[2] > ids[1],
	    "ids increase: %" PRIu64 " %" PRIu64 " %" PRIu64, ids[0], ids[1],
	    ids[2]);
	is_int(sql_int("SELECT count(*) FROM events WHERE from_state IS NULL "
	    "AND to_state = 'PENDING' AND actor_uid = 1000", NULL), 3,
	    "one submission event per job, with the submitter as actor");

	jobs0 = sql_int("SELECT count(*) FROM jobs", NULL);
	ev0 = sql_int("SELECT count(*) FROM events", NULL);
	nj[1].queue = "nope";
	is_int(kai_db_jobs_insert(db, nj, 3, ids, &err), KAI_ENOENT,
	    "a batch naming an unknown queue fails");
	diag("error: %s", err.msg);
	is_int(sql_int("SELECT count(*) FROM jobs", NULL), jobs0,
	    "and inserts no job at all");
	is_int(sql_int("SELECT count(*) FROM events", NULL), ev0,
	    "and no event");
	for (i = 0; i < 3; i++)
		kai_jobspec_fini(&js[i]);
}

static void
test_load_active(struct kai_db *db)
{
	struct kai_job *jobs = NULL;
	struct kai_err err;
	size_t n = 0, i;

	is_int(kai_db_jobs_load_active(db, &jobs, &n, &err), 0, "load active");
	is_int((int64_t)n, 3, "three active jobs");
	if (n == 3) {
		ok(jobs[0].id < jobs[1].id && jobs[1].id < jobs[2].id,
		    "oldest first");
		is_int(jobs[0].state, KAI_JOB_PENDING, "state");
		is_str(jobs[0].user, "alice", "user");
		is_str(jobs[0].queue, "batch", "queue");
		is_str(jobs[0].name, "train", "name");
		is_int(jobs[0].uid, 1000, "uid");
		is_int(jobs[0].gid, 1100, "gid");
		is_int(jobs[1].submit_time, T0 + 1, "submit_time");
		is_int(jobs[0].time_limit_s, 3600, "time limit");
		is_int((int64_t)jobs[0].mem_mb, 4096, "mem_mb");
		is_int(jobs[0].cpus_per_task, 2, "cpus per task");
		is_int(jobs[0].gpus_per_task, 1, "gpus per task");
		is_int(jobs[0].priority, 10, "priority");
		is_int((int64_t)jobs[0].nallocs, 0, "no allocations yet");
	}
	for (i = 0; i < n; i++)
		kai_job_fini(&jobs[i]);
	free(jobs);
}

/* A script of about 100 KiB with every awkward byte we can store. */
static char *
big_script(void)
{
	static const char line[] = "echo \"q'uo\\te\" {a,b} $HOME \xc3\xbc"
	    "\xe2\x82\xac\t\\\\\n";
	size_t n = KAI_JOB_SCRIPT_MAX - 64, len = strlen(line), off = 0;
	char *s = kai_xmalloc(n + 1);

	while (off + len <= n) {
		memcpy(s + off, line, len);
		off += len;
	}
	s[off] = '\0';
	return s;
}

static void
test_spec(struct kai_db *db)
{
	char *argv[] = {(char *)"", (char *)"two words", (char *)"q\"uote",
	    (char *)"back\\slash", (char *)"NULL", (char *)"{brace,comma}",
	    (char *)"new\nline", (char *)"\xc3\xa9t\xc3\xa9"};
	char *env[] = {(char *)"A=1", (char *)"B=with \"quotes\" and \\",
	    (char *)"C=multi\nline", (char *)"D="};
	struct kai_jobspec js, got;
	struct kai_db_newjob nj;
	struct kai_err err;
	uint64_t id = 0;
	size_t i;
	int same;

	mkjob(&js, &nj, 1000, "gpu", T0);
	free(js.script);
	js.script = big_script();
	js.argv = argv;
	js.argc = KAI_NELEM(argv);
	js.env = env;
	js.nenv = KAI_NELEM(env);
	js.stdout_pattern = kai_xstrdup("out-%j.log");
	js.image = kai_xstrdup("nvcr.io/pytorch:24.01");
	js.hold = true;
	js.signal_number = 10;
	js.signal_secs = 300;
	js.signal_batch = true;
	js.open_mode = KAI_OPEN_APPEND;
	js.umask = KAI_JOB_UMASK_SET | 027;
	js.qos = kai_xstrdup("debug");
	is_int(kai_db_jobs_insert(db, &nj, 1, &id, &err), 0,
	    "insert a job with a 100 KiB script");
	is_int(kai_db_job_spec(db, id, &got, &err), 0, "read its spec back");
	ok(strcmp(got.script, js.script) == 0, "script round-trips (%zu bytes)",
	    strlen(js.script));
	is_int((int64_t)got.argc, (int64_t)js.argc, "argc");
	for (same = got.argc == js.argc, i = 0; same && i < js.argc; i++)
		same = strcmp(got.argv[i], js.argv[i]) == 0;
	ok(same, "argv round-trips exactly");
	is_int((int64_t)got.nenv, (int64_t)js.nenv, "nenv");
	for (same = got.nenv == js.nenv, i = 0; same && i < js.nenv; i++)
		same = strcmp(got.env[i], js.env[i]) == 0;
	ok(same, "env round-trips exactly");
	is_str(got.name, "train", "name");
	is_str(got.queue, "gpu", "queue");
	ok(got.account == NULL, "no account");
	is_str(got.workdir, "/home/u", "workdir");
	is_str(got.stdout_pattern, "out-%j.log", "stdout pattern");
	ok(got.stderr_pattern == NULL, "stderr pattern unset");
	is_str(got.image, "nvcr.io/pytorch:24.01", "image");
	ok(got.hold, "hold");
	is_int(got.time_limit_s, 3600, "resolved time limit");
	ok(got.signal_number == 10 && got.signal_secs == 300 &&
		got.signal_batch,
	    "--signal=B:10@300 round-trips");
	is_int(got.open_mode, KAI_OPEN_APPEND, "--open-mode=append");
	is_int(got.umask, KAI_JOB_UMASK_SET | 027, "the umask round-trips");
	is_str(got.qos, "debug", "the QoS round-trips");
	kai_jobspec_fini(&got);
	is_int(kai_db_job_spec(db, 999999999, &got, &err), KAI_ENOENT,
	    "spec of a missing job");
	is_str(err.msg, "job 999999999 does not exist", "names the job");
	js.argv = NULL;
	js.argc = 0;
	js.env = NULL;
	js.nenv = 0;
	kai_jobspec_fini(&js);
	sql_do("DELETE FROM jobs WHERE queue = 'gpu'");
}

/* Runs q and returns the number of jobs, -1 on error. */
static int64_t
count_query(struct kai_db *db, const struct kai_query *q, bool only_own,
    uint32_t uid)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_err err;
	size_t n = 0, i;

	if (kai_db_jobs_query(db, q, only_own ? KAI_DB_SCOPE_OWN :
	    KAI_DB_SCOPE_ALL, uid, &jobs, &n, &err) != 0) {
		diag("query failed: %s", kai_err_msg(&err));
		return -1;
	}
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	return (int64_t)n;
}

/* Jobs for the query tests, on top of the three of test_insert. */
static uint64_t q_b, q_c, q_d;

static void
setup_query_jobs(struct kai_db *db)
{
	q_b = insert_one(db, 2000, "debug", T0 + 10);
	q_c = insert_one(db, 2000, "batch", T0 - 1000);
	q_d = insert_one(db, 1000, "debug", T0 + 500);
	(void)change(db, q_c, KAI_JOB_PENDING, KAI_JOB_CONFIGURING, T0 - 900,
	    NULL);
	(void)change(db, q_c, KAI_JOB_CONFIGURING, KAI_JOB_RUNNING, T0 - 800,
	    NULL);
	(void)change(db, q_c, KAI_JOB_RUNNING, KAI_JOB_COMPLETED, T0 + 100,
	    NULL);
	(void)change(db, q_d, KAI_JOB_PENDING, KAI_JOB_CANCELLED, T0 + 600,
	    NULL);
}

static void
test_query_filters(struct kai_db *db)
{
	struct kai_query q;
	uint64_t ids[2];
	uint32_t uids[1] = {2000}, me[1] = {1000};
	char *queues[1] = {(char *)"debug"};

	setup_query_jobs(db);
	memset(&q, 0, sizeof(q));
	is_int(count_query(db, &q, false, 0), 4, "default: active jobs only");
	ids[0] = q_b;
	ids[1] = q_c;
	q.ids = ids;
	q.nids = 2;
	is_int(count_query(db, &q, false, 0), 1, "ids, active");
	q.flags = KAI_QUERY_HISTORY;
	is_int(count_query(db, &q, false, 0), 2, "ids, history");
	memset(&q, 0, sizeof(q));
	q.uids = uids;
	q.nuids = 1;
	is_int(count_query(db, &q, false, 0), 1, "uids, active");
	q.flags = KAI_QUERY_HISTORY;
	is_int(count_query(db, &q, false, 0), 2, "uids, history");
	memset(&q, 0, sizeof(q));
	q.queues = queues;
	q.nqueues = 1;
	q.flags = KAI_QUERY_HISTORY;
	is_int(count_query(db, &q, false, 0), 2, "queues, history");
	memset(&q, 0, sizeof(q));
	q.state_mask = KAI_JOB_STATE_BIT(KAI_JOB_COMPLETED);
	is_int(count_query(db, &q, false, 0), 1, "state mask COMPLETED");
	q.state_mask |= KAI_JOB_STATE_BIT(KAI_JOB_CANCELLED);
	is_int(count_query(db, &q, false, 0), 2, "state mask CD|CA");
	memset(&q, 0, sizeof(q));
	q.flags = KAI_QUERY_HISTORY;
	is_int(count_query(db, &q, false, 0), 6, "history: every job");
	q.flags = KAI_QUERY_HISTORY;
	is_int(count_query(db, &q, true, 2000), 2, "only_own narrows to uid");
	q.uids = me;
	q.nuids = 1;
	is_int(count_query(db, &q, true, 2000), 0,
	    "only_own wins over the uids asked for");
}

static void
test_query_window(struct kai_db *db)
{
	struct kai_query q;

	memset(&q, 0, sizeof(q));
	q.flags = KAI_QUERY_HISTORY;
	q.start = T0 + 200;
	is_int(count_query(db, &q, false, 0), 5,
	    "window from T0+200: ended before it are left out");
	q.start = 0;
	q.end = T0 + 5;
	is_int(count_query(db, &q, false, 0), 4,
	    "window until T0+5: submitted later are left out");
	q.start = T0 + 50;
	q.end = T0 + 200;
	is_int(count_query(db, &q, false, 0), 5, "window [T0+50, T0+200)");
	q.start = T0 + 101;
	is_int(count_query(db, &q, false, 0), 4,
	    "a job that ended at T0+100 is not in [T0+101, T0+200)");
}

static void
test_query_info(struct kai_db *db)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_query q;
	struct kai_err err;
	uint64_t id = q_c;
	char want[128];
	size_t n = 0, i;

	memset(&q, 0, sizeof(q));
	q.ids = &id;
	q.nids = 1;
	q.flags = KAI_QUERY_HISTORY;
	is_int(kai_db_jobs_query(db, &q, KAI_DB_SCOPE_ALL, 0, &jobs, &n, &err), 0,
	    "query one finished job");
	is_int((int64_t)n, 1, "found it");
	if (n == 1) {
		is_int(jobs[0].state, KAI_JOB_COMPLETED, "state");
		is_int(jobs[0].submit_time, T0 - 1000, "submit_time");
		is_int(jobs[0].start_time, T0 - 800, "start_time");
		is_int(jobs[0].end_time, T0 + 100, "end_time");
		is_str(jobs[0].user, "bob", "user");
		is_str(jobs[0].account, "", "no account is \"\"");
		snprintf(want, sizeof(want), "/home/u/slurm-%" PRIu64 ".out",
		    id);
		is_str(jobs[0].stdout_path, want, "default stdout path");
		is_str(jobs[0].stderr_path, want, "stderr defaults to stdout");
	}
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
}

static void
test_query_paths(struct kai_db *db)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_query q;
	struct kai_err err;
	uint64_t id = 0;
	char want[128];
	size_t n = 0, i;

	mkjob(&js, &nj, 1000, "debug", T0);
	js.stdout_pattern = kai_xstrdup("/data/%u/%j.log");
	js.stderr_pattern = kai_xstrdup("err-%j.txt");
	if (kai_db_jobs_insert(db, &nj, 1, &id, &err) != 0)
		diag("insert failed: %s", kai_err_msg(&err));
	kai_jobspec_fini(&js);
	memset(&q, 0, sizeof(q));
	q.ids = &id;
	q.nids = 1;
	is_int(kai_db_jobs_query(db, &q, KAI_DB_SCOPE_ALL, 0, &jobs, &n, &err), 0,
	    "query a job with output patterns");
	if (n == 1) {
		snprintf(want, sizeof(want), "/data/alice/%" PRIu64 ".log", id);
		is_str(jobs[0].stdout_path, want, "absolute pattern expanded");
		snprintf(want, sizeof(want), "/home/u/err-%" PRIu64 ".txt", id);
		is_str(jobs[0].stderr_path, want,
		    "relative pattern under workdir");
	}
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	sql_do("DELETE FROM jobs WHERE stderr_pattern IS NOT NULL");
}

static int64_t
events_of(uint64_t id)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%" PRIu64, id);
	return sql_int("SELECT count(*) FROM events WHERE job_id = $1::bigint",
	    arg);
}

/* PENDING -> CONFIGURING with allocations on n1 and n2. */
static void
place(struct kai_db_change *c, struct kai_alloc *a, uint64_t id)
{
	memset(c, 0, sizeof(*c));
	memset(a, 0, 2 * sizeof(*a));
	a[0].task = 0;
	a[0].node = (char *)"n1";
	a[0].pod = (char *)"kai-1-0";
	a[1].task = 1;
	a[1].node = (char *)"n2";
	a[1].pod = (char *)"kai-1-1";
	a[0].gpus = a[1].gpus = 1;
	a[0].cpus = a[1].cpus = 2;
	a[0].mem_mb = a[1].mem_mb = 4096;
	a[1].gpu_mask = UINT64_C(1) << 63; /* bigint is signed */
	a[1].gpu_fraction = 250000;
	c->id = id;
	c->from = KAI_JOB_PENDING;
	c->to = KAI_JOB_CONFIGURING;
	c->reason = "";
	c->time = T0 + 20;
	c->actor_uid = -1;
	c->nodelist = "n1,n2";
	c->allocs = a;
	c->nallocs = 2;
}

/* The scheduling options go in with the job and come back in the cache. */
static void
test_sched_fields(struct kai_db *db)
{
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_job *jobs = NULL;
	struct kai_err err;
	uint64_t id = 0;
	size_t n = 0, i, seen = 0;

	mkjob(&js, &nj, 1000, "batch", T0 + 1);
	js.priority_class = kai_xstrdup("inference");
	js.requeue = KAI_TRI_NO;
	js.ntasks = 4;
	js.min_tasks = 2;
	js.gpus_per_task = 0;
	js.gpu_fraction = 500000;
	js.topology = kai_xstrdup("kaibatch.io/rack");
	js.topology_preferred = kai_xstrdup("kubernetes.io/hostname");
	nj.priority = 125;
	nj.preemptible = false;
	is_int(kai_db_jobs_insert(db, &nj, 1, &id, &err), 0,
	    "insert a job with scheduling options");
	kai_jobspec_fini(&js);
	is_int(kai_db_jobs_load_active(db, &jobs, &n, &err), 0, "load it");
	for (i = 0; i < n; i++) {
		if (jobs[i].id != id)
			continue;
		seen++;
		is_int(jobs[i].priority, 125, "priority");
		ok(!jobs[i].preemptible, "not preemptible");
		ok(!jobs[i].requeue, "not requeued");
		is_int(jobs[i].min_tasks, 2, "min tasks");
		is_int(jobs[i].gpu_fraction, 500000, "GPU fraction");
		is_str(jobs[i].topology, "kaibatch.io/rack", "topology");
		is_str(jobs[i].topology_preferred, "kubernetes.io/hostname",
		    "preferred topology");
		is_int(jobs[i].requeue_count, 0, "never requeued");
	}
	is_int((int64_t)seen, 1, "the job is active");
	for (i = 0; i < n; i++)
		kai_job_fini(&jobs[i]);
	free(jobs);
	is_int(change(db, id, KAI_JOB_PENDING, KAI_JOB_CANCELLED, T0 + 2,
	    NULL), 0, "and cancel it");
}

static void
test_change_place(struct kai_db *db, uint64_t id)
{
	struct kai_db_change c;
	struct kai_alloc a[2];
	struct kai_job *jobs = NULL;
	struct kai_err err;
	bool applied = false;
	size_t n = 0, i;

	place(&c, a, id);
	is_int(kai_db_jobs_change(db, &c, 1, &applied, &err), 0,
	    "PENDING -> CONFIGURING with allocations");
	ok(applied, "applied");
	is_int(events_of(id), 2, "an event row for the change");
	is_int(kai_db_jobs_load_active(db, &jobs, &n, &err), 0, "load active");
	for (i = 0; i < n; i++) {
		if (jobs[i].id != id)
			continue;
		is_int(jobs[i].state, KAI_JOB_CONFIGURING, "state stored");
		is_int((int64_t)jobs[i].nallocs, 2, "two allocations loaded");
		if (jobs[i].nallocs == 2) {
			is_str(jobs[i].allocs[1].node, "n2", "node of task 1");
			is_str(jobs[i].allocs[1].pod, "kai-1-1", "pod of task 1");
			is_int((int64_t)jobs[i].allocs[1].mem_mb, 4096, "mem");
			ok(jobs[i].allocs[1].gpu_mask == UINT64_C(1) << 63,
			    "a device mask with bit 63 round-trips");
			is_int(jobs[i].allocs[1].gpu_fraction, 250000,
			    "the share of a fraction");
			ok(jobs[i].allocs[0].gpu_mask == 0, "no mask is 0");
		}
	}
	for (i = 0; i < n; i++)
		kai_job_fini(&jobs[i]);
	free(jobs);

	applied = true;
	is_int(change(db, id, KAI_JOB_PENDING, KAI_JOB_CANCELLED, T0 + 21,
	    &applied), 0, "a stale change is not an error");
	ok(!applied, "but it is not applied");
	is_int(events_of(id), 2, "and writes no event");
}

static void
test_change_atomic(struct kai_db *db, uint64_t placed, uint64_t other)
{
	struct kai_db_change c[2];
	struct kai_alloc a[2];
	struct kai_err err;
	bool applied[2] = {true, true};
	int64_t ev0 = sql_int("SELECT count(*) FROM events", NULL);

	memset(&c[0], 0, sizeof(c[0]));
	c[0].id = placed;
	c[0].from = KAI_JOB_CONFIGURING;
	c[0].to = KAI_JOB_RUNNING;
	c[0].time = T0 + 30;
	c[0].actor_uid = -1;
	place(&c[1], a, other);
	a[1].task = 0;		/* two allocations for task 0 */
	ok(kai_db_jobs_change(db, c, 2, applied, &err) != 0,
	    "a batch with a bad change fails");
	diag("error: %s", err.msg);
	ok(!applied[0] && !applied[1], "and reports nothing applied");
	is_int(sql_int("SELECT count(*) FROM events", NULL), ev0,
	    "no event from the failed batch");
	is_int(sql_int("SELECT count(*) FROM jobs WHERE state = 'RUNNING'",
	    NULL), 0, "its good change was rolled back too");

	a[1].task = 1;
	c[1].drop_allocs = true;	/* refused before anything is sent */
	is_int(kai_db_jobs_change(db, c, 2, applied, &err), KAI_EINVAL,
	    "a batch with an invalid change is refused");
	is_int(sql_int("SELECT count(*) FROM jobs WHERE state = 'RUNNING'",
	    NULL), 0, "and its valid change is not applied");
}

static void
test_change_finish(struct kai_db *db, uint64_t id)
{
	struct kai_db_change c;
	struct kai_err err;
	char arg[32];
	bool applied = false;

	snprintf(arg, sizeof(arg), "%" PRIu64, id);
	is_int(change(db, id, KAI_JOB_CONFIGURING, KAI_JOB_RUNNING, T0 + 40,
	    &applied), 0, "CONFIGURING -> RUNNING");
	is_int(sql_int("SELECT start_time FROM jobs WHERE id = $1::bigint",
	    arg), T0 + 40, "start_time set");
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.from = KAI_JOB_RUNNING;
	c.to = KAI_JOB_FAILED;
	c.reason = "NonZeroExitCode";
	c.time = T0 + 90;
	c.actor_uid = -1;
	c.set_end = true;
	c.set_exit = true;
	c.exit_code = 3;
	c.exit_signal = 9;
	is_int(kai_db_jobs_change(db, &c, 1, &applied, &err), 0,
	    "RUNNING -> FAILED");
	ok(applied, "applied");
	is_int(sql_int("SELECT end_time FROM jobs WHERE id = $1::bigint", arg),
	    T0 + 90, "end_time set");
	is_int(sql_int("SELECT exit_code * 1000 + exit_signal FROM jobs "
	    "WHERE id = $1::bigint", arg), 3009, "exit code and signal set");
	is_int(sql_int("SELECT count(*) FROM jobs WHERE id = $1::bigint AND "
	    "reason = 'NonZeroExitCode' AND nodelist = 'n1,n2'", arg), 1,
	    "reason set, nodelist kept");
	is_int(events_of(id), 4, "submit, place, run, finish: four events");
	is_int(sql_int("SELECT count(*) FROM events WHERE job_id = $1::bigint "
	    "AND actor_uid = -1 AND from_state IS NOT NULL", arg), 3,
	    "kaid's changes have actor -1");
}

static void
test_change_cancel_requeue(struct kai_db *db, uint64_t id, uint64_t id2)
{
	struct kai_db_change c;
	struct kai_alloc a[2];
	struct kai_err err;
	char arg[32];
	bool applied = false;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.from = KAI_JOB_PENDING;
	c.to = KAI_JOB_CANCELLED;
	c.reason = "cancelled by uid 1000";
	c.time = T0 + 50;
	c.actor_uid = 1000;
	c.set_end = true;
	is_int(kai_db_jobs_change(db, &c, 1, &applied, &err), 0, "cancel");
	snprintf(arg, sizeof(arg), "%" PRIu64, id);
	is_int(sql_int("SELECT count(*) FROM events WHERE job_id = $1::bigint "
	    "AND to_state = 'CANCELLED' AND actor_uid = 1000 "
	    "AND reason = 'cancelled by uid 1000' AND time = 1700000050", arg),
	    1, "the cancellation event names the requester");

	place(&c, a, id2);
	is_int(kai_db_jobs_change(db, &c, 1, &applied, &err), 0, "place");
	memset(&c, 0, sizeof(c));
	c.id = id2;
	c.from = KAI_JOB_CONFIGURING;
	c.to = KAI_JOB_PENDING;
	c.reason = "PodCreateFailed";
	c.time = T0 + 60;
	c.actor_uid = -1;
	c.nodelist = "";
	c.drop_allocs = true;
	is_int(kai_db_jobs_change(db, &c, 1, &applied, &err), 0, "requeue");
	ok(applied, "applied");
	snprintf(arg, sizeof(arg), "%" PRIu64, id2);
	is_int(sql_int("SELECT count(*) FROM allocations WHERE "
	    "job_id = $1::bigint", arg), 0, "allocations dropped");
	is_int(sql_int("SELECT requeue_count FROM jobs WHERE id = $1::bigint",
	    arg), 1, "requeue counted");
}

/*
 * Every state change is written through kai_db_jobs_change(), which
 * refuses a move the transition table does not have (and a resize that
 * changes the state), writing nothing: the grow of an elastic job was
 * RUNNING -> RUNNING, a preemption's requeue went through the terminal
 * PREEMPTED.
 */
static void
test_change_table(struct kai_db *db, uint64_t id, uint64_t id2)
{
	struct kai_db_change c[2];
	struct kai_db_cancel dc;
	struct kai_alloc a[2];
	struct kai_err err;
	enum kai_job_state from = KAI_JOB_COMPLETED;
	uint32_t sig = 0;
	bool applied[2] = {true, true};
	int64_t ev0;
	char arg[32], arg2[32], want[160];

	snprintf(arg, sizeof(arg), "%" PRIu64, id);
	snprintf(arg2, sizeof(arg2), "%" PRIu64, id2);
	place(&c[0], a, id);
	is_int(kai_db_jobs_change(db, c, 1, applied, &err), 0, "placed");
	is_int(change(db, id, KAI_JOB_CONFIGURING, KAI_JOB_RUNNING, T0 + 70,
	    &applied[0]), 0, "running");
	ev0 = events_of(id);

	memset(c, 0, sizeof(c));
	c[0].id = id2;
	c[0].from = KAI_JOB_PENDING;
	c[0].to = KAI_JOB_CANCELLED;
	c[0].reason = "";
	c[0].time = T0 + 71;
	c[1] = c[0];
	c[1].id = id;
	c[1].from = KAI_JOB_RUNNING;
	c[1].to = KAI_JOB_RUNNING;
	is_int(kai_db_jobs_change(db, c, 2, applied, &err), KAI_EINTERNAL,
	    "RUNNING -> RUNNING as a state change is refused");
	snprintf(want, sizeof(want), "job %" PRIu64 ": a state change "
	    "RUNNING -> RUNNING is not in the transition table", id);
	is_str(err.msg, want, "the message names the job and both states");
	ok(!applied[0] && !applied[1], "nothing applied");
	is_int(events_of(id) + events_of(id2), ev0 + 1,
	    "no event row written, not even the legal change's");
	is_int(sql_int("SELECT count(*) FROM jobs WHERE state = 'CANCELLED' "
	    "AND id = $1::bigint", arg2), 0, "which was not applied");

	c[1].resize = true;
	c[1].reason = "tasks 1-1 evicted";
	c[1].nodelist = "n1";
	c[1].drop_allocs = true;
	c[1].keep_allocs = 1;
	is_int(kai_db_jobs_change(db, &c[1], 1, applied, &err), 0,
	    "the same as a resize (a shrink) is written");
	ok(applied[0], "applied");
	is_int(sql_int("SELECT count(*) FROM events WHERE job_id = $1::bigint "
	    "AND from_state = 'RUNNING' AND to_state = 'RUNNING' "
	    "AND reason = 'tasks 1-1 evicted'", arg), 1,
	    "its event row keeps the state and says what changed");
	c[1].to = KAI_JOB_PENDING;
	is_int(kai_db_jobs_change(db, &c[1], 1, applied, &err), KAI_EINTERNAL,
	    "a resize that changes the state is refused");
	snprintf(want, sizeof(want), "job %" PRIu64 ": a resize RUNNING -> "
	    "PENDING is not in the transition table", id);
	is_str(err.msg, want, "its message");

	c[0].from = KAI_JOB_PENDING;
	c[0].to = KAI_JOB_RUNNING;
	is_int(kai_db_jobs_change(db, c, 1, applied, &err), KAI_EINTERNAL,
	    "PENDING -> RUNNING (never placed) is refused");
	is_int(change(db, id, KAI_JOB_RUNNING, KAI_JOB_PREEMPTED, T0 + 72,
	    &applied[0]), 0, "RUNNING -> PREEMPTED");
	c[0].id = id;
	c[0].from = KAI_JOB_PREEMPTED;
	c[0].to = KAI_JOB_PENDING;
	is_int(kai_db_jobs_change(db, c, 1, applied, &err), KAI_EINTERNAL,
	    "PREEMPTED -> PENDING (out of a terminal state) is refused");
	is_int(sql_int("SELECT count(*) FROM jobs WHERE id = $1::bigint AND "
	    "state = 'PREEMPTED'", arg), 1, "the job stays PREEMPTED");

	memset(&dc, 0, sizeof(dc));
	dc.ids = &id;
	dc.from = &from;
	dc.signals = &sig;
	dc.n = 1;
	dc.to = KAI_JOB_CANCELLED;
	dc.reason = "";
	is_int(kai_db_jobs_cancel(db, &dc, applied, &err), KAI_EINTERNAL,
	    "cancelling a COMPLETED job is refused the same way");
}

static void
test_changes(struct kai_db *db)
{
	uint64_t j1, j2, j3, j4;

	sql_do("DELETE FROM jobs");
	j1 = insert_one(db, 1000, "batch", T0);
	j2 = insert_one(db, 1000, "batch", T0);
	j3 = insert_one(db, 1000, "batch", T0);
	j4 = insert_one(db, 1000, "batch", T0);
	test_sched_fields(db);
	test_change_place(db, j1);
	test_change_atomic(db, j1, j2);
	test_change_finish(db, j1);
	test_change_cancel_requeue(db, j3, j4);
	test_change_table(db, insert_one(db, 1000, "batch", T0),
	    insert_one(db, 1000, "batch", T0));
	(void)j2;
}

static void
test_set_reason(struct kai_db *db)
{
	struct kai_job *jobs = NULL;
	struct kai_err err;
	const char *reasons[2] = {"Priority", "Resources"};
	const char *whys[2] = {"1 job ahead of it", "not enough free GPUs"};
	uint64_t ids[2];
	int64_t ev0 = sql_int("SELECT count(*) FROM events", NULL);
	size_t n = 0, i;
	int found = 0;

	ids[0] = insert_one(db, 1000, "batch", T0);
	ids[1] = insert_one(db, 2000, "batch", T0);
	ev0 += 2;
	is_int(kai_db_jobs_set_reason(db, ids, reasons, whys, 2, &err), 0,
	    "set reasons");
	is_int(kai_db_jobs_load_active(db, &jobs, &n, &err), 0, "load");
	for (i = 0; i < n; i++) {
		if (jobs[i].id == ids[0])
			found += strcmp(jobs[i].reason, "Priority") == 0 &&
			    strcmp(jobs[i].why, whys[0]) == 0;
		if (jobs[i].id == ids[1])
			found += strcmp(jobs[i].reason, "Resources") == 0 &&
			    strcmp(jobs[i].why, whys[1]) == 0;
		kai_job_fini(&jobs[i]);
	}
	free(jobs);
	is_int(found, 2, "reasons stored, code and sentence");
	is_int(sql_int("SELECT count(*) FROM events", NULL), ev0,
	    "reasons write no events");
}

#define PERF_JOBS 10000

/* Inserts PERF_JOBS jobs in batches of bs; returns the milliseconds. */
static int64_t
insert_many(struct kai_db *db, size_t bs, uint64_t *ids)
{
	struct kai_jobspec js[32];
	struct kai_db_newjob nj[32];
	struct kai_err err;
	int64_t t;
	size_t i, k, failed = 0;

	KAI_ASSERT(bs <= 32);
	for (i = 0; i < bs; i++)
		mkjob(&js[i], &nj[i], (uint32_t)(1000 + i % 4), "batch", T0);
	t = now_ms();
	for (i = 0; i < PERF_JOBS; i += k) {
		k = PERF_JOBS - i < bs ? PERF_JOBS - i : bs;
		if (kai_db_jobs_insert(db, nj, k, ids + i, &err) != 0 &&
		    failed++ == 0)
			diag("insert failed: %s", kai_err_msg(&err));
	}
	t = now_ms() - t;
	for (i = 0; i < bs; i++)
		kai_jobspec_fini(&js[i]);
	is_int((int64_t)failed, 0, "%d jobs inserted in batches of %zu",
	    PERF_JOBS, bs);
	return t;
}

static void
test_perf(struct kai_db *db)
{
	uint64_t *ids = kai_xcalloc(PERF_JOBS, sizeof(*ids));
	struct kai_jobinfo *jobs = NULL;
	struct kai_query q;
	struct kai_err err;
	size_t bs[] = {8, 16, 32}, i, n = 0;
	int64_t t;

	for (i = 0; i < KAI_NELEM(bs); i++) {
		sql_do("DELETE FROM jobs");
		t = insert_many(db, bs[i], ids);
		printf("# inserted %d jobs in %" PRId64 " ms in batches of %zu "
		    "(%" PRId64 " jobs/s)\n", PERF_JOBS, t, bs[i],
		    t > 0 ? PERF_JOBS * INT64_C(1000) / t : 0);
	}
	ok(ids[PERF_JOBS - 1] > ids[0], "ids keep increasing");
	memset(&q, 0, sizeof(q));
	t = now_ms();
	is_int(kai_db_jobs_query(db, &q, KAI_DB_SCOPE_ALL, 0, &jobs, &n, &err), 0,
	    "query everything");
	t = now_ms() - t;
	is_int((int64_t)n, PERF_JOBS, "all %d rows", PERF_JOBS);
	printf("# queried %zu jobs in %" PRId64 " ms\n", n, t);
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	free(ids);
}

/* More rows than one statement or one pipeline takes, in one call. */
static void
test_big_batches(struct kai_db *db)
{
	enum { N = 600 };
	struct kai_jobspec js;
	struct kai_db_newjob *nj = kai_xcalloc(N, sizeof(*nj));
	struct kai_db_change *c = kai_xcalloc(N, sizeof(*c));
	uint64_t *ids = kai_xcalloc(N, sizeof(*ids));
	bool *applied = kai_xcalloc(N, sizeof(*applied));
	struct kai_err err;
	size_t i, nok = 0;
	int64_t t;

	sql_do("DELETE FROM jobs");
	mkjob(&js, &nj[0], 1000, "batch", T0);
	for (i = 1; i < N; i++)
		nj[i] = nj[0];
	is_int(kai_db_jobs_insert(db, nj, N, ids, &err), 0,
	    "insert %d jobs in one call", N);
	for (i = 0; i < N; i++) {
		c[i].id = ids[i];
		c[i].from = KAI_JOB_PENDING;
		c[i].to = KAI_JOB_CANCELLED;
		c[i].time = T0 + 1;
		c[i].actor_uid = 1000;
		c[i].set_end = true;
	}
	t = now_ms();
	is_int(kai_db_jobs_change(db, c, N, applied, &err), 0,
	    "cancel %d jobs in one call", N);
	t = now_ms() - t;
	for (i = 0; i < N; i++)
		nok += applied[i];
	is_int((int64_t)nok, N, "every change applied");
	printf("# changed %d jobs in %" PRId64 " ms\n", N, t);
	is_int(sql_int("SELECT count(*) FROM jobs WHERE state = 'CANCELLED'",
	    NULL), N, "all of them stored");
	kai_jobspec_fini(&js);
	free(nj);
	free(c);
	free(ids);
	free(applied);
}

/*
 * An array's submission is one transaction on the connection it found:
 * when its array columns are refused (a throttle the int column cannot
 * hold), its row goes too; a good one keeps the same server process.
 */
static void
test_insert_ext_atomic(struct kai_db *db)
{
	struct kai_db_jobext x = {"0-9", UINT32_MAX, NULL, false};
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_err err;
	uint64_t id = 0;
	int64_t before, conns;
	char idtext[32];

	mkjob(&js, &nj, 1000, "batch", 100);
	before = sql_int("SELECT count(*) FROM jobs", NULL);
	conns = sql_int("SELECT count(*) FROM pg_stat_activity "
	    "WHERE datname = current_database()", NULL);
	ok(kai_db_jobs_insert_ext(db, &nj, &x, 1, &id, &err) != 0,
	    "an array whose columns are refused is refused");
	is_int(sql_int("SELECT count(*) FROM jobs", NULL), before,
	    "... and leaves no row: insert and array columns are one "
	    "transaction");
	x.array_throttle = 2;
	is_int(kai_db_jobs_insert_ext(db, &nj, &x, 1, &id, &err), 0,
	    "an array goes in");
	(void)snprintf(idtext, sizeof(idtext), "%" PRIu64, id);
	is_int(sql_int("SELECT count(*) FROM jobs WHERE id = $1 AND "
	    "array_job_id = id AND array_spec = '0-9' AND array_throttle = 2",
	    idtext), 1, "... with its array columns");
	is_int(sql_int("SELECT count(*) FROM pg_stat_activity "
	    "WHERE datname = current_database() AND "
	    "backend_start > now() - interval '1 hour' AND "
	    "state_change IS NOT NULL", NULL), conns,
	    "... on the same connections (none dropped and made again)");
	kai_jobspec_fini(&js);
}

/* The server drops our connection: one call may fail, the next works. */
static void
test_reconnect(struct kai_db *db)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_query q;
	struct kai_err err;
	size_t n = 0, i;

	memset(&q, 0, sizeof(q));
	q.nids = 1;
	q.ids = &(uint64_t){1};
	(void)sql_int("SELECT count(pg_terminate_backend(pid)) "
	    "FROM pg_stat_activity WHERE datname = current_database() "
	    "AND pid <> pg_backend_pid()", NULL);
	if (kai_db_jobs_query(db, &q, KAI_DB_SCOPE_ALL, 0, &jobs, &n, &err) != 0)
		diag("first call after the server dropped us: %s", err.msg);
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	is_int(kai_db_jobs_query(db, &q, KAI_DB_SCOPE_ALL, 0, &jobs, &n, &err), 0,
	    "a lost connection is re-established");
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
}

/* kai_db_job_grow(): a pending job's sizes per task only grow. */
static void
test_grow(struct kai_db *db)
{
	uint64_t id = insert_one(db, 1000, "batch", T0 + 900);
	struct kai_err err;
	bool applied = false;
	char arg[32];

	(void)snprintf(arg, sizeof(arg), "%" PRIu64, id);
	is_int(kai_db_job_grow(db, id, 4, 2048, 1, &applied, &err), 0,
	    "grow a pending job");
	ok(applied, "applied");
	is_int(sql_int("SELECT cpus_per_task * 1000000 + mem_mb * 10 + "
	    "gpus_per_task FROM jobs WHERE id = $1::bigint", arg),
	    4 * 1000000 + 4096 * 10 + 1,
	    "CPUs and GPUs grow, memory never shrinks (4096 > 2048)");
	is_int(kai_db_job_grow(db, id, 2, 8192, 0, &applied, &err), 0,
	    "grow again with fewer CPUs and more memory");
	is_int(sql_int("SELECT cpus_per_task * 1000000 + mem_mb * 10 + "
	    "gpus_per_task FROM jobs WHERE id = $1::bigint", arg),
	    4 * 1000000 + 8192 * 10 + 1, "only the memory grew");
	(void)change(db, id, KAI_JOB_PENDING, KAI_JOB_CANCELLED, T0 + 901,
	    &applied);
	is_int(kai_db_job_grow(db, id, 8, 8192, 0, &applied, &err), 0,
	    "a finished job is not an error");
	ok(!applied, "but nothing changed");
}

int
main(int argc, char **argv)
{
	struct kai_db *db = NULL;

	if (argc < 2)
		skip_all("usage: db-store CONNINFO (run db-store.t)");
	raw = PQconnectdb(argv[1]);
	if (PQstatus(raw) != CONNECTION_OK)
		skip_all("cannot connect to the test database");
	sql_do("SET client_min_messages = warning");
	sql_do("DROP SCHEMA public CASCADE");
	sql_do("CREATE SCHEMA public");
	test_open_migrate(argv[1], &db);
	if (db == NULL)
		return done_testing();
	test_migrate_lock(argv[1]);
	test_queues(db);
	test_insert(db);
	test_load_active(db);
	test_spec(db);
	test_query_filters(db);
	test_query_window(db);
	test_query_info(db);
	test_query_paths(db);
	test_changes(db);
	test_set_reason(db);
	test_grow(db);
	test_big_batches(db);
	test_perf(db);
	test_insert_ext_atomic(db);
	test_reconnect(db);
	kai_db_close(db);
	PQfinish(raw);
	return done_testing();
}
