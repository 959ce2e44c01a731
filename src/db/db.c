/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db.c: the connection, schema migrations and the seeding of queues
 * from kaid.yaml's partitions (the queue tree itself is db_queue.c).
 *
 * The connection is synchronous (kaid batches its work so one call serves
 * many requests).  When it is lost, or a pipeline leaves it in a state we
 * cannot vouch for, the next call reconnects from the saved conninfo, so
 * a PostgreSQL restart costs kaid one failed call rather than a restart.
 *
 * Migrations run under a session advisory lock, so two kaids starting
 * together apply each migration once: the second waits, then finds the
 * schema current.  Each migration and its schema_version update commit
 * together or not at all.
 */
#include "config.h"

#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"
#include "sys/log.h"

/* pg_advisory_lock key for migrations: "kaib" in ASCII. */
#define DB_MIGRATE_LOCK 0x6b616962

/* Server notices (e.g. "there is no transaction in progress") go to debug. */
static void
notice_to_log(void *arg, const char *msg)
{
	(void)arg;
	kai_log_debug("postgres: %.*s", (int)strcspn(msg, "\n"), msg);
}

/* statement_timeout on this connection, from db->statement_timeout_ms. */
static int
set_timeout(struct kai_db *db, struct kai_err *err)
{
	char sql[64];

	(void)snprintf(sql, sizeof(sql), "SET statement_timeout = %lld",
	    (long long)db->statement_timeout_ms);
	return kai_db_cmd(db, sql, NULL, "could not set statement_timeout",
	    err);
}

/*
 * A leader's new connection takes the lead's lock again first: the old
 * session took it along.  If another kaid took it meanwhile, this one is
 * deposed for good (db_leader.c).
 */
static int
relock(struct kai_db *db, struct kai_err *err)
{
	bool got = false;
	int r;

	if ((r = kai_db_leader_lock(db, &got, err)) == 0 && !got) {
		db->deposed = true;
		r = kai_err_set(err, KAI_EPERM, "this kaid (epoch %lld) is no "
		    "longer the leader: another kaid took the lead",
		    (long long)db->epoch);
	}
	if (r != 0) {
		PQfinish(db->conn);
		db->conn = NULL;
	}
	return r;
}

static int
connect_conn(struct kai_db *db, struct kai_err *err)
{
	char line[KAI_ERR_MSG_MAX];
	const char *msg;
	int r;

	db->conn = PQconnectdb(db->conninfo);
	if (db->conn == NULL)
		return kai_err_set(err, KAI_EDB,
		    "could not connect to PostgreSQL: out of memory");
	if (PQstatus(db->conn) != CONNECTION_OK) {
		msg = PQerrorMessage(db->conn);
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(msg, "\n"),
		    msg);
		PQfinish(db->conn);
		db->conn = NULL;
		return kai_err_set(err, KAI_EDB,
		    "could not connect to PostgreSQL: %s", line);
	}
	(void)PQsetNoticeProcessor(db->conn, notice_to_log, NULL);
	/* Scripts and names are stored and returned as the bytes we got. */
	if (PQsetClientEncoding(db->conn, "UTF8") != 0) {
		PQfinish(db->conn);
		db->conn = NULL;
		return kai_err_set(err, KAI_EDB,
		    "could not set client encoding \"UTF8\"");
	}
	/*
	 * No JIT: kaid's statements are short, and the planner prices the
	 * aggregates' per-job subplan (usage, kacct --report) so high that
	 * compiling them cost more than running them (0.1-0.7 s).  A server
	 * without the setting refuses it, which changes nothing.
	 */
	PQclear(PQexec(db->conn, "SET jit = off"));
	if (db->statement_timeout_ms > 0 &&
	    (r = set_timeout(db, err)) != 0) {
		PQfinish(db->conn);
		db->conn = NULL;
		return r;
	}
	if (db->epoch > 0 && (r = relock(db, err)) != 0)
		return r;
	db->broken = false;
	db->change_prepared = false;
	db->insert_prepared = 0;
	return 0;
}

int
kai_db_open(const char *conninfo, struct kai_db **dbp, struct kai_err *err)
{
	struct kai_db *db;
	int r;

	db = kai_xcalloc(1, sizeof(*db));
	db->conninfo = kai_xstrdup(conninfo != NULL ? conninfo : "");
	if ((r = connect_conn(db, err)) != 0) {
		kai_db_close(db);
		return r;
	}
	*dbp = db;
	return 0;
}

void
kai_db_close(struct kai_db *db)
{
	if (db == NULL)
		return;
	kai_db_async_close(db);
	if (db->conn != NULL)
		PQfinish(db->conn);
	kai_free_secret(db->conninfo, strlen(db->conninfo));
	free(db);
}

int
kai_db_set_statement_timeout(struct kai_db *db, int64_t ms,
    struct kai_err *err)
{
	db->statement_timeout_ms = ms;
	if (db->conn == NULL || db->broken)
		return 0;	/* the next connection gets it */
	return set_timeout(db, err);
}

bool
kai_db_connected(const struct kai_db *db)
{
	return db != NULL && db->conn != NULL && !db->broken &&
	    PQstatus(db->conn) == CONNECTION_OK;
}

int
kai_db_reconnect(struct kai_db *db, struct kai_err *err)
{
	return kai_db_ready(db, err);
}

int
kai_db_ready(struct kai_db *db, struct kai_err *err)
{
	if (db->deposed)
		return kai_err_set(err, KAI_EPERM, "this kaid (epoch %lld) is "
		    "no longer the leader", (long long)db->epoch);
	if (db->conn != NULL && !db->broken &&
	    PQstatus(db->conn) == CONNECTION_OK &&
	    PQtransactionStatus(db->conn) == PQTRANS_IDLE)
		return 0;
	if (db->conn != NULL)
		PQfinish(db->conn);
	db->conn = NULL;
	kai_log_debug("reconnecting to PostgreSQL");
	return connect_conn(db, err);
}

int
kai_db_schema_version_known(void)
{
	return kai_sql_migrations[kai_sql_nmigrations - 1].version;
}

/* The database's schema version; 0 for an empty database. */
static int
read_version(struct kai_db *db, int *version, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	PGresult *res;
	int64_t v = 0;

	res = kai_db_exec(db,
	    "SELECT to_regclass('schema_version') IS NOT NULL", NULL,
	    PGRES_TUPLES_OK, "could not read the schema version", err);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	if (kai_db_get_bool(&row, 0)) {
		PQclear(res);
		res = kai_db_exec(db,
		    "SELECT coalesce(max(version), 0) FROM schema_version",
		    NULL, PGRES_TUPLES_OK, "could not read the schema version",
		    err);
		if (res == NULL)
			return kai_db_errcode(err);
		row.res = res;
		v = kai_db_get_i64(&row, 0);
	}
	PQclear(res);
	if (row.bad || v < 0 || v > 1000000)
		return kai_err_set(err, KAI_EDB,
		    "could not read the schema version: malformed value");
	*version = (int)v;
	return 0;
}

/* Applies one migration and records its version, in one transaction. */
static int
apply_one(struct kai_db *db, const struct kai_sql_migration *m,
    struct kai_err *err)
{
	struct kai_db_params p;
	char what[128];
	PGresult *res;
	int r;

	snprintf(what, sizeof(what), "migration \"%s\" failed", m->name);
	if ((r = kai_db_cmd(db, "BEGIN", NULL, what, err)) != 0)
		return r;
	res = PQexec(db->conn, m->sql);
	if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
		r = kai_db_error(db, res, what, err);
		PQclear(res);
		kai_db_rollback(db);
		return r;
	}
	PQclear(res);
	kai_db_params_init(&p);
	(void)kai_db_param_i64(&p, m->version);
	r = kai_db_cmd(db, "DELETE FROM schema_version", NULL, what, err);
	if (r == 0)
		r = kai_db_cmd(db,
		    "INSERT INTO schema_version (version) VALUES ($1)", &p,
		    what, err);
	kai_db_params_fini(&p);
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, what, err);
	if (r != 0)
		kai_db_rollback(db);
	return r;
}

static int
migrate_locked(struct kai_db *db, int *version, struct kai_err *err)
{
	int cur = 0, known = kai_db_schema_version_known();
	size_t i;
	int r;

	if ((r = read_version(db, &cur, err)) != 0)
		return r;
	if (cur > known)
		return kai_err_set(err, KAI_EDB,
		    "database schema version %d is newer than this kaid (%d)",
		    cur, known);
	for (i = 0; i < kai_sql_nmigrations; i++) {
		if (kai_sql_migrations[i].version <= cur)
			continue;
		if ((r = apply_one(db, &kai_sql_migrations[i], err)) != 0)
			return r;
		kai_log_debug("applied migration \"%s\"",
		    kai_sql_migrations[i].name);
		cur = kai_sql_migrations[i].version;
	}
	*version = cur;
	return 0;
}

int
kai_db_migrate(struct kai_db *db, int *version, struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_err uerr;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_i64(&p, DB_MIGRATE_LOCK);
	r = kai_db_cmd(db, "SELECT pg_advisory_lock($1)", &p,
	    "could not lock the schema for migration", err);
	if (r == 0) {
		r = migrate_locked(db, version, err);
		/* A session lock outlives a rollback: always release it. */
		if (kai_db_cmd(db, "SELECT pg_advisory_unlock($1)", &p,
		    "could not unlock the schema", &uerr) != 0) {
			db->broken = true;
			if (r == 0)
				r = kai_err_set(err, uerr.code, "%s", uerr.msg);
		}
	}
	kai_db_params_fini(&p);
	return r;
}

int
kai_db_queues_sync(struct kai_db *db, const char *const *names, size_t n,
    struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_buf b;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	if (kai_db_array_text(&b, names, n) != 0) {
		kai_buf_fini(&b);
		return kai_err_set(err, KAI_EINVAL, "too many queues");
	}
	kai_db_params_init(&p);
	(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
	/*
	 * Queues that left the configuration stay: finished jobs still name
	 * them, and kacct must keep answering for those.  A partition that
	 * was deleted with kctl comes back as a new top-level queue (the
	 * column defaults), youngest of all; one that exists keeps the
	 * settings and the place in the tree kctl gave it.
	 */
	r = kai_db_cmd(db,
	    "INSERT INTO queues (name) SELECT n FROM unnest($1::text[]) "
	    "WITH ORDINALITY AS u (n, i) ORDER BY i "
	    "ON CONFLICT (name) DO UPDATE SET (parent, priority, gpu_quota, "
	    "gpu_limit, gpu_weight, cpu_quota, cpu_limit, cpu_weight, "
	    "mem_quota, mem_limit, mem_weight, preempt_min_runtime_s, "
	    "reclaim_min_runtime_s, deleted, ord, created) = (NULL, 100, -1, "
	    "-1, 1, -1, -1, 1, -1, -1, 1, -1, -1, false, "
	    "nextval('queues_ord_seq'), now()) WHERE queues.deleted",
	    &p, "could not update the queues", err);
	kai_db_params_fini(&p);
	kai_buf_fini(&b);
	return r;
}
