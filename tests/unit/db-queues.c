/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db-queues: the queue tree in PostgreSQL (kctl queue), against a real,
 * private server.
 *
 * Run by db-queues.t, which starts the server and passes the conninfo and
 * the sql/ directory.  The schema is first built at version 1 by hand,
 * with two queues in it, so the test sees migration 002 turn existing
 * queues into top-level leaves.  A second, raw libpq connection looks at
 * the rows themselves: a refused batch must leave every row as it was.
 */
#include "config.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "db/db.h"
#include "tap.h"

static PGconn *raw;

static char *
sql_str(const char *sql)
{
	PGresult *res = PQexec(raw, sql);
	char *s = NULL;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0)
		s = kai_xstrdup(PQgetisnull(res, 0, 0) ? "NULL"
						       : PQgetvalue(res, 0, 0));
	else
		diag("sql failed: %s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
	return s != NULL ? s : kai_xstrdup("(error)");
}

static void
is_sql(const char *sql, const char *want, const char *what)
{
	char *got = sql_str(sql);

	is_str(got, want, "%s", what);
	free(got);
}

static void
sql_do(const char *sql)
{
	PGresult *res = PQexec(raw, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
	    PQresultStatus(res) != PGRES_TUPLES_OK)
		diag("sql failed: %.60s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
}

/* A schema at version 1 with two queues, as a release before 002 left it. */
static void
setup_v1(const char *sqldir)
{
	char path[4096], *text;
	FILE *f;
	long len;

	(void)snprintf(path, sizeof(path), "%s/001-initial.sql", sqldir);
	if ((f = fopen(path, "r")) == NULL ||
	    fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		if (f != NULL)
			fclose(f);
		skip_all("cannot read sql/001-initial.sql");
	}
	text = kai_xcalloc((size_t)len + 1, 1);
	if (fread(text, 1, (size_t)len, f) != (size_t)len)
		diag("short read of %s", path);
	fclose(f);
	sql_do(text);
	free(text);
	sql_do("INSERT INTO schema_version VALUES (1)");
	sql_do("INSERT INTO queues (name, created) VALUES "
	    "('old2', '2020-01-02'), ('old1', '2020-01-01')");
}

static struct kai_queue *
find(struct kai_queue *q, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(q[i].name, name) == 0)
			return &q[i];
	return NULL;
}

static void
test_migrate(struct kai_db *db)
{
	struct kai_queue *q = NULL;
	struct kai_err err;
	size_t n = 0;
	int v = 0;

	is_int(kai_db_migrate(db, &v, &err), 0, "migrate from version 1");
	is_int(v, kai_db_schema_version_known(), "to the newest version");
	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load the queues");
	ok(n == 2 && strcmp(q[0].name, "old1") == 0 &&
		strcmp(q[1].name, "old2") == 0 && q[0].order < q[1].order,
	    "existing queues keep their creation order");
	ok(n == 2 && q[0].parent == NULL && q[0].priority == 100 &&
		q[0].res[KAI_QUEUE_GPU].quota == -1 &&
		q[0].res[KAI_QUEUE_GPU].limit == -1 &&
		q[0].res[KAI_QUEUE_GPU].weight == KAI_QUEUE_WEIGHT_UNIT &&
		q[1].res[KAI_QUEUE_MEM].quota == -1 &&
		q[1].res[KAI_QUEUE_CPU].weight == KAI_QUEUE_WEIGHT_UNIT &&
		q[1].preempt_min_runtime_s == -1,
	    "and become top-level leaves: unlimited, no limit, weight 1");
	kai_queues_free(q, n);
}

static void
test_sync(struct kai_db *db)
{
	const char *names[] = {"batch", "gpu", "short"};
	struct kai_queue *q = NULL;
	struct kai_err err;
	size_t n = 0;

	is_int(kai_db_queues_sync(db, names, 3, &err), 0, "seed partitions");
	is_int(kai_db_queues_sync(db, names, 3, &err), 0, "seed them again");
	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load");
	ok(n == 5 && strcmp(q[2].name, "batch") == 0 &&
		strcmp(q[3].name, "gpu") == 0 &&
		strcmp(q[4].name, "short") == 0,
	    "partitions are created once, in the order kaid.yaml lists them");
	kai_queues_free(q, n);
}

/* A change of op for name with parent; strings are borrowed copies. */
static void
mkchange(struct kai_queue_change *c, enum kai_queue_op op, const char *name,
    const char *parent, uint32_t set)
{
	memset(c, 0, sizeof(*c));
	kai_queue_init(&c->q);
	c->op = op;
	c->set = set | (parent != NULL ? KAI_QUEUE_SET_PARENT : 0);
	c->q.name = kai_xstrdup(name);
	c->q.parent = parent != NULL ? kai_xstrdup(parent) : NULL;
}

static void
fini_changes(struct kai_queue_change *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kai_queue_fini(&c[i].q);
}

/* Applies c and expects code; on a refusal the message must be msg. */
static void
apply(struct kai_db *db, struct kai_queue_change *c, size_t n, int code,
    const char *msg, const char *what)
{
	enum kai_queue_result res[8];
	struct kai_err err;
	char *before = sql_str("SELECT string_agg(q::text, ';' ORDER BY name) "
			       "FROM queues q");
	char *after;

	kai_err_clear(&err);
	is_int(kai_db_queue_apply(db, c, n, res, &err), code, "%s", what);
	if (msg != NULL)
		is_str(err.msg, msg, "%s: message", what);
	if (code != 0) {
		after = sql_str("SELECT string_agg(q::text, ';' ORDER BY name) "
				"FROM queues q");
		is_str(after, before, "%s: no row changed", what);
		free(after);
	}
	free(before);
	fini_changes(c, n);
}

static void
test_create(struct kai_db *db)
{
	struct kai_queue_change c[3];
	enum kai_queue_result res[3];
	struct kai_queue *q = NULL;
	struct kai_err err;
	size_t n = 0;

	/* The leaf comes first: the store must insert its parents first. */
	mkchange(&c[0], KAI_QUEUE_CREATE, "vision", "research",
	    KAI_QUEUE_SET_QUOTA(KAI_QUEUE_GPU) |
		KAI_QUEUE_SET_LIMIT(KAI_QUEUE_GPU) |
		KAI_QUEUE_SET_WEIGHT(KAI_QUEUE_GPU) | KAI_QUEUE_SET_PRIORITY);
	c[0].q.res[KAI_QUEUE_GPU].quota = 1500000;
	c[0].q.res[KAI_QUEUE_GPU].limit = 4000000;
	c[0].q.res[KAI_QUEUE_GPU].weight = 500000;
	c[0].q.priority = 7;
	mkchange(&c[1], KAI_QUEUE_CREATE, "research", "org",
	    KAI_QUEUE_SET_LIMIT(KAI_QUEUE_CPU));
	c[1].q.res[KAI_QUEUE_CPU].limit = 64000;
	mkchange(&c[2], KAI_QUEUE_CREATE, "org", NULL, 0);
	is_int(kai_db_queue_apply(db, c, 3, res, &err), 0,
	    "create a three-level tree in one batch");
	ok(res[0] == KAI_QUEUE_CREATED && res[1] == KAI_QUEUE_CREATED &&
		res[2] == KAI_QUEUE_CREATED, "all three created");
	fini_changes(c, 3);
	is_sql("SELECT gpu_quota || ' ' || gpu_limit || ' ' || gpu_weight "
	       "FROM queues WHERE name = 'vision'",
	    "1.500000 4.000000 0.500000", "GPU values are stored exactly");
	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load");
	ok(n == 8 && strcmp(q[5].name, "org") == 0 &&
		strcmp(q[6].name, "research") == 0 &&
		strcmp(q[7].name, "vision") == 0,
	    "new queues are older than their children");
	ok(n == 8 && q[7].res[KAI_QUEUE_GPU].quota == 1500000 &&
		q[7].res[KAI_QUEUE_GPU].limit == 4000000 &&
		q[7].res[KAI_QUEUE_GPU].weight == 500000 &&
		q[7].priority == 7 && strcmp(q[7].parent, "research") == 0 &&
		q[7].res[KAI_QUEUE_CPU].quota == -1,
	    "and read back with what was set, defaults elsewhere");
	ok(n == 8 && q[6].res[KAI_QUEUE_CPU].limit == 64000,
	    "a CPU limit in millicores");
	kai_queues_free(q, n);
}

static void
test_update(struct kai_db *db)
{
	struct kai_queue_change c[2];
	enum kai_queue_result res[2];
	struct kai_queue *q = NULL;
	struct kai_err err;
	size_t n = 0;

	mkchange(&c[0], KAI_QUEUE_UPDATE, "vision", NULL,
	    KAI_QUEUE_SET_LIMIT(KAI_QUEUE_GPU));
	c[0].q.res[KAI_QUEUE_GPU].limit = 8000000;
	mkchange(&c[1], KAI_QUEUE_UPDATE, "org", NULL, 0);
	is_int(kai_db_queue_apply(db, c, 2, res, &err), 0, "update");
	ok(res[0] == KAI_QUEUE_UPDATED && res[1] == KAI_QUEUE_UNCHANGED,
	    "one updated, one unchanged");
	fini_changes(c, 2);
	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load");
	ok(find(q, n, "vision") != NULL &&
		find(q, n, "vision")->res[KAI_QUEUE_GPU].limit == 8000000 &&
		find(q, n, "vision")->res[KAI_QUEUE_GPU].quota == 1500000 &&
		find(q, n, "vision")->priority == 7 &&
		strcmp(find(q, n, "vision")->parent, "research") == 0,
	    "an update changes only the fields it sets");
	kai_queues_free(q, n);

	mkchange(&c[0], KAI_QUEUE_REPLACE, "vision", "research", 0);
	is_int(kai_db_queue_apply(db, c, 1, res, &err), 0, "replace");
	is_int(res[0], KAI_QUEUE_UPDATED, "replaced");
	fini_changes(c, 1);
	is_sql("SELECT gpu_quota || ' ' || gpu_limit || ' ' || priority "
	       "FROM queues WHERE name = 'vision'",
	    "-1.000000 -1.000000 100", "a replace resets what it does not set");
	mkchange(&c[0], KAI_QUEUE_REPLACE, "vision", "research", 0);
	is_int(kai_db_queue_apply(db, c, 1, res, &err), 0, "replace again");
	is_int(res[0], KAI_QUEUE_UNCHANGED, "unchanged");
	fini_changes(c, 1);
}

static void
test_refusals(struct kai_db *db)
{
	struct kai_queue_change c[2];

	mkchange(&c[0], KAI_QUEUE_CREATE, "vision", NULL, 0);
	apply(db, c, 1, KAI_EEXIST, "queue \"vision\" already exists",
	    "create of an existing queue");
	mkchange(&c[0], KAI_QUEUE_UPDATE, "nope", NULL, 0);
	apply(db, c, 1, KAI_ENOENT, "queue \"nope\" does not exist",
	    "update of a missing queue");
	mkchange(&c[0], KAI_QUEUE_CREATE, "x", "nope", 0);
	apply(db, c, 1, KAI_ENOENT,
	    "parent queue \"nope\" of queue \"x\" does not exist",
	    "an unknown parent");
	mkchange(&c[0], KAI_QUEUE_UPDATE, "org", "vision", 0);
	apply(db, c, 1, KAI_EINVAL,
	    "queue \"org\" would be its own ancestor: parents may not form a "
	    "cycle", "a cycle");
	mkchange(&c[0], KAI_QUEUE_CREATE, "fine", NULL, 0);
	mkchange(&c[1], KAI_QUEUE_CREATE, "bad", NULL,
	    KAI_QUEUE_SET_QUOTA(KAI_QUEUE_MEM) |
		KAI_QUEUE_SET_LIMIT(KAI_QUEUE_MEM));
	c[1].q.res[KAI_QUEUE_MEM].quota = 2048;
	c[1].q.res[KAI_QUEUE_MEM].limit = 1024;
	apply(db, c, 2, KAI_EINVAL,
	    "queue \"bad\": memory limit 1024 is below its quota 2048",
	    "a bad queue fails the whole batch");
	mkchange(&c[0], KAI_QUEUE_CREATE, "twice", NULL, 0);
	mkchange(&c[1], KAI_QUEUE_UPDATE, "twice", NULL, 0);
	apply(db, c, 2, KAI_EINVAL, "queue \"twice\" is listed twice",
	    "a name listed twice");
	mkchange(&c[0], KAI_QUEUE_CREATE, "Bad Name", NULL, 0);
	apply(db, c, 1, KAI_EINVAL,
	    "invalid queue name \"Bad Name\": expected 1 to 63 lower-case "
	    "letters, digits, '_' and '-'", "a bad name");
}

/* Inserts an active job into queue; returns its id. */
static uint64_t
add_job(struct kai_db *db, const char *queue)
{
	struct kai_jobspec js;
	struct kai_db_newjob nj;
	struct kai_err err;
	uint64_t id = 0;

	memset(&js, 0, sizeof(js));
	memset(&nj, 0, sizeof(nj));
	js.script = (char *)"#!/bin/sh\ntrue\n";
	js.ntasks = 1;
	nj.spec = &js;
	nj.uid = 1000;
	nj.gid = 1000;
	nj.user = "alice";
	nj.queue = queue;
	nj.submit_time = 1700000000;
	if (kai_db_jobs_insert(db, &nj, 1, &id, &err) != 0)
		diag("insert failed: %s", err.msg);
	return id;
}

static void
finish_job(uint64_t id)
{
	char sql[128];

	(void)snprintf(sql, sizeof(sql),
	    "UPDATE jobs SET state = 'COMPLETED' WHERE id = %" PRIu64, id);
	sql_do(sql);
}

static void
test_jobs(struct kai_db *db)
{
	struct kai_queue_change c[1];
	struct kai_queue *q = NULL;
	struct kai_err err;
	uint64_t a = add_job(db, "vision"), b = add_job(db, "vision");
	size_t n = 0;

	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load");
	ok(find(q, n, "vision") != NULL && find(q, n, "vision")->active_jobs == 2,
	    "a queue's active jobs are counted");
	kai_queues_free(q, n);
	mkchange(&c[0], KAI_QUEUE_CREATE, "sub", "vision", 0);
	apply(db, c, 1, KAI_EINVAL,
	    "queue \"vision\" has 2 active jobs and cannot have child queues: "
	    "only leaf queues hold jobs",
	    "a leaf with active jobs cannot become a parent");
	mkchange(&c[0], KAI_QUEUE_UPDATE, "batch", "vision", 0);
	apply(db, c, 1, KAI_EINVAL, NULL,
	    "nor get a child by an update");
	finish_job(a);
	finish_job(b);
	mkchange(&c[0], KAI_QUEUE_CREATE, "sub", "vision", 0);
	apply(db, c, 1, 0, NULL,
	    "once its jobs have finished, it may become a parent");
}

static void
delete1(struct kai_db *db, const char *name, int code, const char *msg,
    const char *what)
{
	char *names[1] = {(char *)name};
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_db_queue_delete(db, names, 1, &err), code, "%s", what);
	if (msg != NULL)
		is_str(err.msg, msg, "%s: message", what);
}

static void
test_delete(struct kai_db *db)
{
	char *both[2] = {(char *)"sub", (char *)"vision"};
	const char *names[] = {"batch", "gpu", "short"};
	struct kai_queue_change c[1];
	struct kai_queue *q = NULL;
	struct kai_err err;
	uint64_t id = add_job(db, "sub");
	size_t n = 0;

	delete1(db, "nope", KAI_ENOENT, "queue \"nope\" does not exist",
	    "deleting a missing queue");
	delete1(db, "sub", KAI_EINVAL,
	    "queue \"sub\" has 1 active job: it can be deleted once they have "
	    "finished", "deleting a queue with an active job");
	delete1(db, "vision", KAI_EINVAL,
	    "queue \"vision\" has child queues (sub): delete them first",
	    "deleting a parent");
	finish_job(id);
	is_int(kai_db_queue_delete(db, both, 2, &err), 0,
	    "a parent and its child go together");
	is_int(kai_db_queues_load(db, &q, &n, &err), 0, "load");
	ok(find(q, n, "vision") == NULL && find(q, n, "sub") == NULL,
	    "they are gone from the tree");
	kai_queues_free(q, n);
	is_sql("SELECT count(*) FROM jobs WHERE queue = 'sub'", "1",
	    "the finished job keeps its queue");

	mkchange(&c[0], KAI_QUEUE_CREATE, "vision", NULL, 0);
	apply(db, c, 1, 0, NULL, "a deleted queue can be created again");
	is_sql("SELECT (SELECT ord FROM queues WHERE name = 'vision') > "
	       "(SELECT max(ord) FROM queues WHERE name <> 'vision')",
	    "t", "as the youngest queue");
	is_sql("SELECT coalesce(parent, 'top') || ' ' || gpu_limit FROM queues "
	       "WHERE name = 'vision'", "top -1.000000", "with new settings");

	delete1(db, "short", 0, NULL, "delete a partition");
	mkchange(&c[0], KAI_QUEUE_UPDATE, "gpu", NULL,
	    KAI_QUEUE_SET_LIMIT(KAI_QUEUE_GPU));
	c[0].q.res[KAI_QUEUE_GPU].limit = 2000000;
	apply(db, c, 1, 0, NULL, "and limit another");
	is_int(kai_db_queues_sync(db, names, 3, &err), 0, "seed again");
	is_sql("SELECT count(*) FROM queues WHERE name = 'short' AND NOT "
	       "deleted AND parent IS NULL", "1",
	    "kaid.yaml brings a deleted partition back");
	is_sql("SELECT gpu_limit FROM queues WHERE name = 'gpu'", "2.000000",
	    "and leaves an existing one as kctl set it");
}

int
main(int argc, char **argv)
{
	struct kai_db *db = NULL;
	struct kai_err err;

	if (argc < 3)
		skip_all("usage: db-queues CONNINFO SQLDIR (run db-queues.t)");
	raw = PQconnectdb(argv[1]);
	if (PQstatus(raw) != CONNECTION_OK)
		skip_all("cannot connect to the test database");
	sql_do("SET client_min_messages = warning");
	sql_do("DROP SCHEMA public CASCADE");
	sql_do("CREATE SCHEMA public");
	setup_v1(argv[2]);
	if (kai_db_open(argv[1], &db, &err) != 0)
		skip_all("cannot open the store");
	test_migrate(db);
	test_sync(db);
	test_create(db);
	test_update(db);
	test_refusals(db);
	test_jobs(db);
	test_delete(db);
	kai_db_close(db);
	PQfinish(raw);
	return done_testing();
}
