/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_array.c: job arrays and dependencies in PostgreSQL (db_array.h).
 *
 * A submission with an array or a dependency goes in with the plain
 * INSERT of db_job.c (kai_db_jobs_insert_in(): inside this transaction)
 * followed by one UPDATE per such job for the columns of sql/005, in one
 * explicit transaction.  Splitting a task off copies the array's row through jsonb
 * (to_jsonb, then jsonb_populate_record over the new id), so every
 * column is copied, those that other migrations add included, without
 * this file naming them.
 */
#include "config.h"

#include "db/db_array.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

#define ACTIVE "('PENDING', 'CONFIGURING', 'RUNNING')"

static int
set_ext(struct kai_db *db, uint64_t id, const struct kai_db_jobext *x,
    struct kai_err *err)
{
	struct kai_db_params p;
	int r;

	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, id);
	(void)kai_db_param_str(&p, x->array_spec);
	(void)kai_db_param_u64(&p, x->array_throttle);
	(void)kai_db_param_str(&p, x->dependency);
	(void)kai_db_param_bool(&p, x->kill_on_invalid_dep);
	r = kai_db_cmd(db, "UPDATE jobs SET array_job_id = CASE WHEN "
	    "$2::text IS NULL THEN NULL ELSE id END, array_spec = $2, "
	    "array_pending = $2, array_throttle = $3, dependency = $4, "
	    "kill_on_invalid_dep = $5 WHERE id = $1", &p,
	    "could not insert jobs", err);
	kai_db_params_fini(&p);
	return r;
}

static bool
has_ext(const struct kai_db_jobext *x)
{
	return x->array_spec != NULL || x->dependency != NULL ||
	    x->kill_on_invalid_dep;
}

int
kai_db_jobs_insert_ext(struct kai_db *db, const struct kai_db_newjob *jobs,
    const struct kai_db_jobext *ext, size_t n, uint64_t *ids,
    struct kai_err *err)
{
	size_t i;
	int r;

	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	if ((r = kai_db_cmd(db, "BEGIN", NULL, "could not insert jobs",
	    err)) != 0)
		return r;
	/* Not kai_db_jobs_insert(): its check of the connection takes a
	 * transaction in progress for one left over and reconnects, which
	 * cost every array a new connection and ran its INSERT and UPDATE
	 * outside this transaction. */
	r = kai_db_jobs_insert_in(db, jobs, n, ids, err);
	for (i = 0; i < n && r == 0; i++)
		if (has_ext(&ext[i]))
			r = set_ext(db, ids[i], &ext[i], err);
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, "could not insert jobs",
		    err);
	if (r != 0)
		kai_db_rollback(db);
	return r;
}

/* The loaded job with this id (jobs sorted by id), or NULL. */
static struct kai_job *
find_job(struct kai_job *jobs, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (jobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && jobs[lo].id == id ? &jobs[lo] : NULL;
}

/* Row r's columns into j; false when a stored text does not parse. */
static bool
row_to_ext(struct kai_db_row *r, struct kai_job *j)
{
	struct kai_err e;
	char *pend;

	j->array_job_id = PQgetisnull(r->res, r->row, 1) ? 0 :
	    kai_db_get_u64(r, 1);
	j->array_task_id = PQgetisnull(r->res, r->row, 2) ? 0 :
	    kai_db_get_u32(r, 2);
	j->array_spec = kai_db_get_dupnull(r, 3);
	pend = kai_db_get_dupnull(r, 4);
	if (pend != NULL) {
		j->array_pending = kai_xcalloc(1, sizeof(*j->array_pending));
		if (kai_array_parse(pend, j->array_pending, &e) != 0)
			r->bad = true;
		j->array_pending->throttle = kai_db_get_u32(r, 5);
		free(pend);
	}
	j->dep_text = kai_db_get_dupnull(r, 6);
	if (j->dep_text != NULL) {
		j->dep = kai_xcalloc(1, sizeof(*j->dep));
		if (kai_dep_parse(j->dep_text, j->dep, &e) != 0)
			r->bad = true;
	}
	j->kill_on_invalid_dep = kai_db_get_bool(r, 7);
	return !r->bad;
}

int
kai_db_jobs_load_ext(struct kai_db *db, struct kai_job *jobs, size_t n,
    struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_job *j;
	PGresult *res;
	int r = 0;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	res = kai_db_exec(db, "SELECT id, array_job_id, array_task_id, "
	    "array_spec, array_pending, array_throttle, dependency, "
	    "kill_on_invalid_dep FROM jobs WHERE state IN " ACTIVE
	    " AND (array_job_id IS NOT NULL OR dependency IS NOT NULL)",
	    NULL, PGRES_TUPLES_OK, "could not load jobs", err);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	for (row.row = 0; row.row < PQntuples(res) && r == 0; row.row++) {
		if ((j = find_job(jobs, n, kai_db_get_u64(&row, 0))) == NULL)
			continue; /* became active since: not in this load */
		if (!row_to_ext(&row, j))
			r = kai_err_set(err, KAI_EDB, "could not load job %"
			    PRIu64 ": malformed array or dependency", j->id);
	}
	PQclear(res);
	return r;
}

/*
 * The copy of the array's row for one task, with its event.  The record
 * comes from a LATERAL call, not (jsonb_populate_record(...)).*, which
 * PostgreSQL expands into one call per column: nextval() then ran once
 * per column and every task skipped dozens of job ids.
 */
static const char split_sql[] =
    "WITH n AS (INSERT INTO jobs SELECT r.* FROM jobs j, LATERAL "
    "jsonb_populate_record(NULL::jobs, to_jsonb(j) || jsonb_build_object("
    "'id', nextval(pg_get_serial_sequence('jobs', 'id')), 'array_task_id', "
    "$2::int, 'array_pending', NULL, 'reason', '')) r "
    "WHERE j.id = $1 AND j.state = 'PENDING' RETURNING id), "
    "e AS (INSERT INTO events (job_id, time, from_state, to_state, reason) "
    "SELECT id, $3, NULL, 'PENDING', 'task ' || $2 || ' of array ' || $1 "
    "FROM n) SELECT id FROM n";

static int
split_one(struct kai_db *db, struct kai_db_split *s, int64_t now,
    struct kai_err *err)
{
	static const char what[] = "could not split an array task";
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	PGresult *res;
	int r;

	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, s->array_id);
	(void)kai_db_param_u64(&p, s->task);
	if (s->rest == NULL) {
		s->new_id = s->array_id;
		r = kai_db_cmd(db, "UPDATE jobs SET array_task_id = $2, "
		    "array_pending = NULL WHERE id = $1", &p, what, err);
		kai_db_params_fini(&p);
		return r;
	}
	(void)kai_db_param_i64(&p, now);
	res = kai_db_exec(db, split_sql, &p, PGRES_TUPLES_OK, what, err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kai_err_set(err, KAI_ENOENT, "%s: array %" PRIu64
		    " is not pending", what, s->array_id);
	}
	s->new_id = kai_db_get_u64(&row, 0);
	PQclear(res);
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, s->array_id);
	(void)kai_db_param_str(&p, s->rest);
	r = kai_db_cmd(db, "UPDATE jobs SET array_pending = $2 WHERE id = $1",
	    &p, what, err);
	kai_db_params_fini(&p);
	return r;
}

int
kai_db_array_split(struct kai_db *db, struct kai_db_split *s, size_t n,
    int64_t now, struct kai_err *err)
{
	size_t i;
	int r;

	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	if ((r = kai_db_cmd(db, "BEGIN", NULL, "could not split an array",
	    err)) != 0)
		return r;
	for (i = 0; i < n && r == 0; i++)
		r = split_one(db, &s[i], now, err);
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, "could not split an array",
		    err);
	if (r != 0)
		kai_db_rollback(db);
	return r;
}

/* "{1,2,3}" as parameter $n of p. */
static int
param_ids(struct kai_db_params *p, const uint64_t *ids, size_t n)
{
	struct kai_buf b;

	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	if (kai_db_array_u64(&b, ids, n) != 0) {
		kai_buf_fini(&b);
		return -1;
	}
	return kai_db_param_own(p, kai_buf_detach(&b, NULL));
}

int
kai_db_jobs_done(struct kai_db *db, const uint64_t *ids, size_t n,
    struct kai_db_done **rows, size_t *nrows, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	struct kai_db_done *v = NULL;
	PGresult *res;
	int r, nt;

	*rows = NULL;
	*nrows = 0;
	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	if (param_ids(&p, ids, n) < 0) {
		kai_db_params_fini(&p);
		return kai_err_set(err, KAI_EINVAL, "too many job ids");
	}
	res = kai_db_exec(db, "SELECT coalesce(array_job_id, id), "
	    "coalesce(array_task_id, -1), state, start_time FROM jobs "
	    "WHERE (id = ANY($1::bigint[]) OR array_job_id = "
	    "ANY($1::bigint[])) AND state NOT IN " ACTIVE, &p,
	    PGRES_TUPLES_OK, "could not read finished jobs", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	nt = PQntuples(res);
	if (nt > 0)
		v = kai_xcalloc((size_t)nt, sizeof(*v));
	row.res = res;
	for (row.row = 0; row.row < nt; row.row++) {
		v[row.row].key = kai_db_get_u64(&row, 0);
		v[row.row].task = kai_db_get_i64(&row, 1);
		v[row.row].state = (enum kai_job_state)kai_db_get_state(&row,
		    2);
		v[row.row].start_time = kai_db_get_i64(&row, 3);
	}
	PQclear(res);
	if (row.bad) {
		free(v);
		return kai_err_set(err, KAI_EDB,
		    "could not read finished jobs: malformed row");
	}
	*rows = v;
	*nrows = (size_t)nt;
	return 0;
}

int
kai_db_jobs_exist(struct kai_db *db, const uint64_t *ids, size_t n,
    bool *exists, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	PGresult *res;
	uint64_t id;
	size_t i;
	int r;

	memset(exists, 0, n * sizeof(*exists));
	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	if (param_ids(&p, ids, n) < 0) {
		kai_db_params_fini(&p);
		return kai_err_set(err, KAI_EINVAL, "too many job ids");
	}
	res = kai_db_exec(db, "SELECT id FROM jobs WHERE id = "
	    "ANY($1::bigint[])", &p, PGRES_TUPLES_OK,
	    "could not look up jobs", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	for (row.row = 0; row.row < PQntuples(res); row.row++) {
		id = kai_db_get_u64(&row, 0);
		for (i = 0; i < n; i++)
			if (ids[i] == id)
				exists[i] = true;
	}
	PQclear(res);
	return 0;
}
