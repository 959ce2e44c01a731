/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_usage.c: the decayed usage of finished jobs, per queue and user, for
 * time-based fair share (kaid's usage.c adds the running jobs).
 *
 * One aggregate over the jobs that ran and ended inside the window: each
 * job contributes its size (the GPUs it held, fractions counting as their
 * share of the device, see KAI_DB_GPU_MICRO_SQL; ntasks x per-task cores
 * and MiB) times
 * the decayed length of its run, the closed form of src/sched/decay.h
 * written in SQL, so no row leaves PostgreSQL.  The WHERE clause is a
 * range of end_time, which jobs_end_idx (and the covering index of
 * sql/004-usage.sql, once applied) serves: the cost grows with the jobs
 * inside the window, never with the whole history.  Figures come back as
 * integers in the scheduler's units (micro-GPU-seconds, millicore-
 * seconds, MiB-seconds), rounded once, at the end.
 */
#include "config.h"

#include "db/db.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

/* $1 now, $2 window, $3 half-life (0: no decay); all seconds. */
#define FROM "greatest(start_time, $1::bigint - $2::bigint)"
#define TO   "least(end_time, $1::bigint)"
static const char usage_sql[] =
    "SELECT queue, user_name, "
    "round(sum(gpu_micro::float8 * d))::bigint, "
    "round(sum(ntasks::float8 * cpus_per_task * d * 1000))::bigint, "
    "round(sum(ntasks::float8 * mem_mb * d))::bigint "
    "FROM (SELECT queue, user_name, ntasks, cpus_per_task, mem_mb, "
    KAI_DB_GPU_MICRO_SQL " AS gpu_micro, CASE WHEN " TO " <= " FROM " THEN 0 "
    "WHEN $3::bigint = 0 THEN (" TO " - " FROM ")::float8 "
    "ELSE $3::float8 / ln(2) * "
    "(power(0.5, ($1::bigint - " TO ")::float8 / $3::float8) - "
    "power(0.5, ($1::bigint - " FROM ")::float8 / $3::float8)) END AS d "
    "FROM jobs WHERE start_time > 0 AND end_time > 0 "
    "AND end_time > $1::bigint - $2::bigint) j "
    "GROUP BY queue, user_name ORDER BY queue, user_name";

static int
read_rows(const PGresult *res, struct kai_db_usage *u, size_t n,
    struct kai_err *err)
{
	struct kai_db_row row = {res, 0, false};
	size_t i;

	for (i = 0; i < n; i++) {
		row.row = (int)i;
		u[i].queue = kai_db_get_dup(&row, 0);
		u[i].user = kai_db_get_dup(&row, 1);
		u[i].gpu = kai_db_get_i64(&row, 2);
		u[i].cpu = kai_db_get_i64(&row, 3);
		u[i].mem = kai_db_get_i64(&row, 4);
	}
	if (row.bad)
		return kai_err_set(err, KAI_EDB,
		    "could not load the usage: malformed value");
	return 0;
}

int
kai_db_usage_load(struct kai_db *db, int64_t now, int64_t window_s,
    int64_t half_life_s, struct kai_db_usage **out, size_t *n,
    struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_db_usage *u;
	PGresult *res;
	size_t m;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_i64(&p, now);
	(void)kai_db_param_i64(&p, window_s);
	(void)kai_db_param_i64(&p, half_life_s > 0 ? half_life_s : 0);
	res = kai_db_exec(db, usage_sql, &p, PGRES_TUPLES_OK,
	    "could not load the usage", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	m = (size_t)PQntuples(res);
	u = kai_xcalloc(m + 1, sizeof(*u));
	if ((r = read_rows(res, u, m, err)) != 0) {
		kai_db_usage_free(u, m);
		PQclear(res);
		return r;
	}
	PQclear(res);
	*out = u;
	*n = m;
	return 0;
}

void
kai_db_usage_free(struct kai_db_usage *u, size_t n)
{
	size_t i;

	if (u == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(u[i].queue);
		free(u[i].user);
	}
	free(u);
}

/* The two halves of kai_db_usage_load(), for db_async.c. */
const char *
kai_db_usage_sql(struct kai_db_params *p, int64_t now, int64_t window_s,
    int64_t half_life_s)
{
	(void)kai_db_param_i64(p, now);
	(void)kai_db_param_i64(p, window_s);
	(void)kai_db_param_i64(p, half_life_s > 0 ? half_life_s : 0);
	return usage_sql;
}

int
kai_db_usage_rows(PGresult *res, struct kai_db_usage **out, size_t *n,
    struct kai_err *err)
{
	size_t m = (size_t)PQntuples(res);
	struct kai_db_usage *u = kai_xcalloc(m + 1, sizeof(*u));
	int r;

	*out = NULL;
	*n = 0;
	if ((r = read_rows(res, u, m, err)) != 0) {
		kai_db_usage_free(u, m);
		return r;
	}
	*out = u;
	*n = m;
	return 0;
}
