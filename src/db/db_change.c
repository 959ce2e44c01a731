/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_change.c: state changes and pending reasons.
 *
 * A state change is one statement (prepared once per connection as
 * "kai_change"): an UPDATE guarded by "state = from", whose RETURNING
 * drives the event row and the allocation rows through data-modifying
 * CTEs.  A change that finds its job elsewhere updates nothing, writes no
 * event and returns no row, which is how applied[i] is known without a
 * second query or a lock.
 *
 * A scheduler tick sends all its changes in pipeline mode: the statements
 * go out back to back and the answers come back together, one round trip
 * for the whole tick.  Without BEGIN, everything up to a pipeline sync is
 * one implicit transaction, so a failing change rolls back all of them.
 * A change back to PENDING is a requeue and counts in requeue_count.
 * Dropping allocations keeps the first keep_allocs of them (tasks
 * 0 .. keep_allocs-1): 0 drops all (a requeue), more shrinks a running
 * elastic job (kaid's evict.c).
 * Ticks larger than DB_CHANGE_CHUNK are cut into several pipelines inside
 * an explicit transaction, so that neither side's socket buffer fills up
 * while the other waits (libpq's blocking pipeline could deadlock).
 */
#include "config.h"

#include "db/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

#define DB_CHANGE_CHUNK 256
#define DB_CHANGE_NPARAM 23

static const char change_sql[] =
    "WITH u AS (UPDATE jobs SET state = $3::text, reason = $4::text, "
    "start_time = CASE WHEN $6::boolean THEN $5::bigint ELSE start_time END, "
    "end_time = CASE WHEN $7::boolean THEN $5::bigint ELSE end_time END, "
    "exit_code = CASE WHEN $8::boolean THEN $9::int ELSE exit_code END, "
    "exit_signal = CASE WHEN $8::boolean THEN $10::int ELSE exit_signal END, "
    "exit_reason = CASE WHEN $8::boolean THEN $23::text ELSE exit_reason "
    "END, "
    "nodelist = coalesce($11::text, nodelist), "
    "requeue_count = requeue_count + "
    "CASE WHEN $3::text = 'PENDING' THEN 1 ELSE 0 END "
    "WHERE id = $1::bigint AND state = $2::text RETURNING id), "
    "e AS (INSERT INTO events (job_id, time, from_state, to_state, reason, "
    "actor_uid) SELECT id, $5::bigint, $2::text, $3::text, $4::text, "
    "$12::bigint FROM u), "
    "d AS (DELETE FROM allocations WHERE $13::boolean AND "
    "task >= $22::int AND job_id IN (SELECT id FROM u)), "
    "a AS (INSERT INTO allocations (job_id, task, node, pod, gpus, cpus, "
    "mem_mb, gpu_mask, gpu_fraction) SELECT u.id, t.* FROM u, "
    "unnest($14::int[], $15::text[], $16::text[], $17::int[], $18::int[], "
    "$19::bigint[], $20::bigint[], $21::bigint[]) AS t) "
    "SELECT id FROM u";

static int
prepare_change(struct kai_db *db, struct kai_err *err)
{
	PGresult *res;
	int r = 0;

	if (db->change_prepared)
		return 0;
	res = PQprepare(db->conn, "kai_change", change_sql, 0, NULL);
	if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK)
		r = kai_db_error(db, res, "could not prepare state changes",
		    err);
	PQclear(res);
	db->change_prepared = r == 0;
	return r;
}

/* Allocation field k (0 task, 3 gpus, 4 cpus, 5 mem_mb) as an array. */
static int
alloc_numbers(struct kai_buf *b, const struct kai_db_change *c, size_t k)
{
	const struct kai_alloc *a;
	uint64_t v;
	size_t i;
	int r = kai_buf_addc(b, '{');

	for (i = 0; i < c->nallocs && r == 0; i++) {
		a = &c->allocs[i];
		v = k == 0 ? a->task : k == 3 ? a->gpus : k == 4 ? a->cpus :
		    k == 5 ? a->mem_mb : k == 6 ? a->gpu_mask :
		    a->gpu_fraction;
		/* bigint is signed: a mask with bit 63 goes in as negative */
		r = kai_buf_addf(b, "%s%" PRId64, i > 0 ? "," : "",
		    (int64_t)v);
	}
	if (r == 0)
		r = kai_buf_addc(b, '}');
	return r;
}

/* The six allocation arrays ($14..$19) of one change. */
static int
param_allocs(struct kai_db_params *p, const struct kai_db_change *c)
{
	const char **nodes, **pods;
	struct kai_buf b;
	size_t i, k;
	int r = 0;

	nodes = kai_xcalloc(c->nallocs + 1, sizeof(*nodes));
	pods = kai_xcalloc(c->nallocs + 1, sizeof(*pods));
	for (i = 0; i < c->nallocs; i++) {
		nodes[i] = c->allocs[i].node;
		pods[i] = c->allocs[i].pod;
	}
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	for (k = 0; k < 8 && r == 0; k++) {
		if (k == 1)
			r = kai_db_array_text(&b, nodes, c->nallocs);
		else if (k == 2)
			r = kai_db_array_text(&b, pods, c->nallocs);
		else
			r = alloc_numbers(&b, c, k);
		if (r == 0)
			(void)kai_db_param_own(p, kai_buf_detach(&b, NULL));
	}
	kai_buf_fini(&b);
	free(nodes);
	free(pods);
	return r;
}

static int
change_params(struct kai_db_params *p, const struct kai_db_change *c,
    struct kai_err *err)
{
	if ((unsigned)c->from >= KAI_JOB_NSTATES ||
	    (unsigned)c->to >= KAI_JOB_NSTATES)
		return kai_err_set(err, KAI_EINVAL,
		    "job %" PRIu64 ": invalid state change %d -> %d",
		    c->id, (int)c->from, (int)c->to);
	if (c->drop_allocs && c->nallocs > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "job %" PRIu64 ": a change cannot both drop and add allocations",
		    c->id);
	(void)kai_db_param_u64(p, c->id);
	(void)kai_db_param_str(p, kai_jobstate_name(c->from));
	(void)kai_db_param_str(p, kai_jobstate_name(c->to));
	(void)kai_db_param_str(p, c->reason != NULL ? c->reason : "");
	(void)kai_db_param_i64(p, c->time);
	(void)kai_db_param_bool(p, c->set_start);
	(void)kai_db_param_bool(p, c->set_end);
	(void)kai_db_param_bool(p, c->set_exit);
	(void)kai_db_param_i64(p, c->exit_code);
	(void)kai_db_param_i64(p, c->exit_signal);
	(void)kai_db_param_str(p, c->nodelist);
	(void)kai_db_param_i64(p, c->actor_uid);
	(void)kai_db_param_bool(p, c->drop_allocs);
	if (param_allocs(p, c) != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "job %" PRIu64 ": allocations too large",
		    c->id);
	(void)kai_db_param_i64(p, c->keep_allocs);
	(void)kai_db_param_str(p, c->exit_reason != NULL ? c->exit_reason : "");
	KAI_ASSERT(p->n == DB_CHANGE_NPARAM);
	return 0;
}

/*
 * Reads the answers of n changes and the sync that follows them.  The
 * first error is reported; the pipeline aborted the rest, and they are
 * drained all the same so the connection stays usable.
 */
static int
read_changes(struct kai_db *db, size_t n, bool *applied, struct kai_err *err)
{
	PGresult *res;
	ExecStatusType st;
	size_t i;
	int r = 0;

	for (i = 0; i < n; i++) {
		if ((res = PQgetResult(db->conn)) == NULL) {
			db->broken = true;
			return r != 0 ? r : kai_db_error(db, NULL,
			    "could not change jobs", err);
		}
		st = PQresultStatus(res);
		if (st == PGRES_TUPLES_OK && applied != NULL)
			applied[i] = PQntuples(res) == 1;
		else if (st != PGRES_TUPLES_OK && st != PGRES_PIPELINE_ABORTED &&
		    r == 0)
			r = kai_db_error(db, res, "could not change jobs", err);
		PQclear(res);
		/* Each statement's results end with a NULL. */
		if ((res = PQgetResult(db->conn)) != NULL) {
			PQclear(res);
			db->broken = true;
		}
	}
	res = PQgetResult(db->conn);
	if (res == NULL || PQresultStatus(res) != PGRES_PIPELINE_SYNC)
		db->broken = true;
	PQclear(res);
	if (r == 0 && db->broken)
		r = kai_err_set(err, KAI_EDB,
		    "could not change jobs: pipeline out of step");
	return r;
}

/*
 * The fencing token first: in the same implicit transaction, a change of
 * a kaid that no longer leads fails and takes the rest down with it.
 */
static bool
send_fence(struct kai_db *db)
{
	char e[32];
	const char *v[1] = {e};

	(void)snprintf(e, sizeof(e), "%lld", (long long)db->epoch);
	return PQsendQueryParams(db->conn, "SELECT kai_fence($1::bigint)", 1,
	    NULL, v, NULL, NULL, 0) != 0;
}

/* Reads the fence's answer; a refusal deposes this kaid. */
static int
read_fence(struct kai_db *db, struct kai_err *err)
{
	PGresult *res = PQgetResult(db->conn);
	const char *state;
	int r = 0;

	if (res == NULL) {
		db->broken = true;
		return kai_db_error(db, NULL, "could not change jobs", err);
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (state != NULL && strcmp(state, "KAI01") == 0)
			db->deposed = true;
		r = kai_db_error(db, res, "could not change jobs", err);
		if (db->deposed)
			err->code = r = KAI_EPERM;
	}
	PQclear(res);
	if ((res = PQgetResult(db->conn)) != NULL) {
		PQclear(res);
		db->broken = true;
	}
	return r;
}

/*
 * One pipeline: sends, syncs, reads.  A failed send skips the sync, so the
 * implicit transaction never commits and dies with the connection.
 */
static int
run_pipeline(struct kai_db *db, const struct kai_db_params *p, size_t n,
    bool *applied, struct kai_err *err)
{
	struct kai_err drained;	/* the aborted rest after a refused fence */
	size_t i;
	int r;

	if (!PQenterPipelineMode(db->conn))
		return kai_db_error(db, NULL, "could not change jobs", err);
	if (db->epoch > 0 && !send_fence(db)) {
		db->broken = true;
		return kai_db_error(db, NULL, "could not change jobs", err);
	}
	for (i = 0; i < n; i++) {
		if (!PQsendQueryPrepared(db->conn, "kai_change", p[i].n,
		    p[i].v, NULL, NULL, 0)) {
			db->broken = true;
			return kai_db_error(db, NULL, "could not change jobs",
			    err);
		}
	}
	if (!PQpipelineSync(db->conn)) {
		db->broken = true;
		return kai_db_error(db, NULL, "could not change jobs", err);
	}
	r = db->epoch > 0 ? read_fence(db, err) : 0;
	if (r == 0)
		r = read_changes(db, n, applied, err);
	else
		(void)read_changes(db, n, NULL, &drained);
	if (!PQexitPipelineMode(db->conn))
		db->broken = true;
	return r;
}

/*
 * Checks and encodes every change before the first one is sent: once
 * statements are in the pipeline there is no taking one back.
 */
static int
change_chunk(struct kai_db *db, const struct kai_db_change *c, size_t n,
    bool *applied, struct kai_err *err)
{
	struct kai_db_params *p = kai_xcalloc(n, sizeof(*p));
	size_t i, built;
	int r = 0;

	for (built = 0; built < n && r == 0; built++) {
		kai_db_params_init(&p[built]);
		r = change_params(&p[built], &c[built], err);
	}
	if (r == 0)
		r = run_pipeline(db, p, n, applied, err);
	for (i = 0; i < built; i++)
		kai_db_params_fini(&p[i]);
	free(p);
	return r;
}

/* Several pipelines in one explicit transaction. */
static int
change_chunks(struct kai_db *db, const struct kai_db_change *c, size_t n,
    bool *applied, struct kai_err *err)
{
	size_t i, k;
	int r;

	if ((r = kai_db_cmd(db, "BEGIN", NULL, "could not change jobs",
	    err)) != 0)
		return r;
	for (i = 0; i < n && r == 0; i += k) {
		k = n - i < DB_CHANGE_CHUNK ? n - i : DB_CHANGE_CHUNK;
		r = change_chunk(db, c + i, k,
		    applied != NULL ? applied + i : NULL, err);
	}
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, "could not change jobs", err);
	if (r != 0 && !db->broken)
		kai_db_rollback(db);
	return r;
}

int
kai_db_move_check(uint64_t id, enum kai_job_state from,
    enum kai_job_state to, bool resize, struct kai_err *err)
{
	if (resize ? from == to && kai_jobstate_can_resize(from) :
	    kai_jobstate_can_move(from, to))
		return 0;
	return kai_err_set(err, KAI_EINTERNAL,
	    "job %" PRIu64 ": %s %s -> %s is not in the transition table",
	    id, resize ? "a resize" : "a state change",
	    kai_jobstate_name(from), kai_jobstate_name(to));
}

int
kai_db_jobs_change(struct kai_db *db, const struct kai_db_change *c,
    size_t n, bool *applied, struct kai_err *err)
{
	size_t i;
	int r;

	if (n == 0)
		return 0;
	if (applied != NULL)
		memset(applied, 0, n * sizeof(*applied));
	for (i = 0; i < n; i++)
		if ((r = kai_db_move_check(c[i].id, c[i].from, c[i].to,
		    c[i].resize, err)) != 0)
			return r;
	if ((r = kai_db_ready(db, err)) != 0 ||
	    (r = prepare_change(db, err)) != 0)
		return r;
	if (applied != NULL)
		memset(applied, 0, n * sizeof(*applied));
	if (n <= DB_CHANGE_CHUNK)
		r = change_chunk(db, c, n, applied, err);
	else
		r = change_chunks(db, c, n, applied, err);
	/* Nothing was applied when the transaction failed. */
	if (r != 0 && applied != NULL)
		memset(applied, 0, n * sizeof(*applied));
	return r;
}

int
kai_db_jobs_set_reason(struct kai_db *db, const uint64_t *ids,
    const char *const *reasons, const char *const *whys, size_t n,
    struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_buf b;
	int r;

	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	r = kai_db_array_u64(&b, ids, n);
	if (r == 0) {
		(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
		r = kai_db_array_text(&b, reasons, n);
	}
	if (r == 0) {
		(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
		r = kai_db_array_text(&b, whys, n);
	}
	if (r == 0) {
		(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
		/* Unchanged reasons are skipped: no dead row per job per tick. */
		r = kai_db_cmd(db,
		    "UPDATE jobs SET reason = v.reason, why = v.why "
		    "FROM unnest($1::bigint[], $2::text[], $3::text[]) "
		    "AS v(id, reason, why) WHERE jobs.id = v.id AND "
		    "(jobs.reason <> v.reason OR jobs.why <> v.why)",
		    &p, "could not set pending reasons", err);
	} else
		r = kai_err_set(err, KAI_EINVAL,
		    "could not set pending reasons: too many");
	kai_buf_fini(&b);
	kai_db_params_fini(&p);
	return r;
}
