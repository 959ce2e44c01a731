/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_report.c: kacct --report's figures, one row per (queue, user) over a
 * period, added up by PostgreSQL in one aggregate, so that a report over
 * a million finished jobs sends kaid a few rows, never the jobs.
 *
 * The period is [start, end), as sreport's: a job counts when it ran in
 * the period or ended in it.  Its usage is the part of its run inside the
 * period (a running job's run goes until now), times its cores and its
 * GPUs (KAI_DB_GPU_MICRO_SQL: a fraction counts as such).  The states
 * count the jobs that ended in the period; running, those not ended.
 * The WHERE clause is two index scans, ORed: a range of end_time
 * (jobs_end_idx) for the jobs that ended in or after the period's start,
 * and the few active jobs (jobs_active_idx); so a day's report reads that
 * day's jobs, not the history.  A job that ended at the period's start
 * ran entirely before it but ended in it: it counts, with no usage.
 */
#include "config.h"

#include "db/db.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

/* $1 start, $2 end, $3 now, $4 uids (bigint[]), $5 queues (text[]). */
#define ENDED                                                                  \
	"(end_time >= greatest($1::bigint, 1) AND end_time < $2::bigint)"
/* fin: the final state of a job that ended in the period, else NULL. */
#define STATE(s) "count(*) FILTER (WHERE fin IN (" s "))"
static const char report_sql[] =
    "SELECT queue, user_name, uid, count(*), "
    STATE("'COMPLETED'") ", "
    STATE("'FAILED', 'NODE_FAIL', 'OUT_OF_MEMORY'") ", "
    STATE("'CANCELLED'") ", " STATE("'TIMEOUT'") ", "
    STATE("'PREEMPTED'") ", "
    "count(*) FILTER (WHERE end_time = 0), "
    "coalesce(sum(cpus * ov), 0)::bigint, "
    "coalesce(round(sum(gpu_micro::float8 * ov) / 1000), 0)::bigint "
    "FROM (SELECT queue, user_name, uid, end_time, "
    "CASE WHEN " ENDED " THEN state END AS fin, "
    "greatest(ntasks, 1)::bigint * greatest(cpus_per_task, 1) AS cpus, "
    KAI_DB_GPU_MICRO_SQL " AS gpu_micro, "
    "CASE WHEN start_time > 0 THEN greatest(0, least(CASE WHEN "
    "end_time > 0 THEN end_time ELSE $3::bigint END, $2::bigint) - "
    "greatest(start_time, $1::bigint)) ELSE 0 END AS ov "
    "FROM jobs WHERE ((end_time >= greatest($1::bigint, 1) AND "
    "(end_time < $2::bigint OR (start_time > 0 AND "
    "start_time < $2::bigint))) OR (state IN ('PENDING', 'CONFIGURING', "
    "'RUNNING') AND end_time = 0 AND start_time > 0 AND "
    "start_time < $2::bigint)) "
    "AND (cardinality($4::bigint[]) = 0 OR uid = ANY($4::bigint[])) "
    "AND (cardinality($5::text[]) = 0 OR queue = ANY($5::text[]))) j "
    "GROUP BY queue, user_name, uid ORDER BY queue, user_name, uid";

static int
read_rows(const PGresult *res, struct kai_report_row *v, size_t n,
    struct kai_err *err)
{
	struct kai_db_row row = {res, 0, false};
	size_t i;

	for (i = 0; i < n; i++) {
		row.row = (int)i;
		v[i].queue = kai_db_get_dup(&row, 0);
		v[i].user = kai_db_get_dup(&row, 1);
		v[i].uid = kai_db_get_u32(&row, 2);
		v[i].jobs = kai_db_get_u64(&row, 3);
		v[i].completed = kai_db_get_u64(&row, 4);
		v[i].failed = kai_db_get_u64(&row, 5);
		v[i].cancelled = kai_db_get_u64(&row, 6);
		v[i].timeout = kai_db_get_u64(&row, 7);
		v[i].preempted = kai_db_get_u64(&row, 8);
		v[i].running = kai_db_get_u64(&row, 9);
		v[i].cpu_s = kai_db_get_i64(&row, 10);
		v[i].gpu_ms = kai_db_get_i64(&row, 11);
	}
	if (row.bad)
		return kai_err_set(err, KAI_EDB,
		    "could not read the report: malformed value");
	return 0;
}

/* The two filter lists as array literals ($4, $5). */
static int
report_params(struct kai_db_params *p, const struct kai_report_req *q)
{
	struct kai_buf lit;
	int r;

	kai_buf_init(&lit, KAI_DB_TEXT_MAX);
	r = kai_db_array_u32(&lit, q->uids, q->nuids);
	if (r == 0) {
		(void)kai_db_param_own(p, kai_buf_detach(&lit, NULL));
		r = kai_db_array_text(&lit, (const char *const *)q->queues,
		    q->nqueues);
	}
	if (r == 0)
		(void)kai_db_param_own(p, kai_buf_detach(&lit, NULL));
	kai_buf_fini(&lit);
	return r;
}

int
kai_db_report(struct kai_db *db, const struct kai_report_req *q, int64_t now,
    struct kai_report_row **out, size_t *n, struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_report_row *v;
	PGresult *res;
	size_t m;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_i64(&p, q->start);
	(void)kai_db_param_i64(&p, q->end);
	(void)kai_db_param_i64(&p, now);
	if (report_params(&p, q) != 0) {
		kai_db_params_fini(&p);
		return kai_err_set(err, KAI_EINVAL, "report filters too large");
	}
	res = kai_db_exec(db, report_sql, &p, PGRES_TUPLES_OK,
	    "could not read the report", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	m = (size_t)PQntuples(res);
	v = kai_xcalloc(m + 1, sizeof(*v));
	if ((r = read_rows(res, v, m, err)) != 0) {
		kai_db_report_free(v, m);
		PQclear(res);
		return r;
	}
	PQclear(res);
	*out = v;
	*n = m;
	return 0;
}

void
kai_db_report_free(struct kai_report_row *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].queue);
		free(v[i].user);
	}
	free(v);
}

/* The two halves of kai_db_report(), for db_async.c. */
const char *
kai_db_report_sql(struct kai_db_params *p, const struct kai_report_req *q,
    int64_t now, struct kai_err *err)
{
	(void)kai_db_param_i64(p, q->start);
	(void)kai_db_param_i64(p, q->end);
	(void)kai_db_param_i64(p, now);
	if (report_params(p, q) != 0) {
		(void)kai_err_set(err, KAI_EINVAL, "report filters too large");
		return NULL;
	}
	return report_sql;
}

int
kai_db_report_rows(PGresult *res, struct kai_report_row **out, size_t *n,
    struct kai_err *err)
{
	size_t m = (size_t)PQntuples(res);
	struct kai_report_row *v = kai_xcalloc(m + 1, sizeof(*v));
	int r;

	*out = NULL;
	*n = 0;
	if ((r = read_rows(res, v, m, err)) != 0) {
		kai_db_report_free(v, m);
		return r;
	}
	*out = v;
	*n = m;
	return 0;
}
