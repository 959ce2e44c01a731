/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_steps.c: the steps of jobs (sql/017-job-steps.sql), written by
 * kaid's steps.c when a step starts and ends, read for kacct.
 *
 * A step of a requeued job's new run replaces the row of the same number
 * (ON CONFLICT): the job's steps are those of its last run, as Slurm
 * keeps them.
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "model/jobstate.h"
#include "proto/proto_step.h"

/* KAI_STEP_LIST_MAX in the SQL text, so the two cannot differ. */
#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)

/* The row's number: -1 for the batch script. */
static int64_t
step_col(uint32_t step)
{
	return step == KAI_STEP_BATCH ? -1 : (int64_t)step;
}

int
kai_db_step_start(struct kai_db *db, const struct kai_step_info *s,
    struct kai_err *err)
{
	struct kai_db_params p;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, s->job);
	(void)kai_db_param_i64(&p, step_col(s->step));
	(void)kai_db_param_str(&p, s->name);
	(void)kai_db_param_u64(&p, s->ntasks);
	(void)kai_db_param_str(&p, s->nodelist);
	(void)kai_db_param_i64(&p, s->start);
	r = kai_db_cmd(db,
	    "INSERT INTO job_steps (job_id, step, name, state, ntasks, "
	    "nodelist, start_time) VALUES ($1::bigint, $2::int, $3, "
	    "'RUNNING', $4::int, $5, $6::bigint) "
	    "ON CONFLICT (job_id, step) DO UPDATE SET name = EXCLUDED.name, "
	    "state = 'RUNNING', exit_status = 0, max_rss_kb = 0, "
	    "ave_rss_kb = 0, cpu_usec = 0, ntasks = EXCLUDED.ntasks, "
	    "nodelist = EXCLUDED.nodelist, start_time = EXCLUDED.start_time, "
	    "end_time = 0",
	    &p, "could not record a job step", err);
	kai_db_params_fini(&p);
	return r;
}

int
kai_db_step_end(struct kai_db *db, const struct kai_step_info *s,
    struct kai_err *err)
{
	struct kai_db_params p;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, s->job);
	(void)kai_db_param_i64(&p, step_col(s->step));
	(void)kai_db_param_str(&p, kai_jobstate_name(s->state));
	(void)kai_db_param_i64(&p, s->exit_status);
	(void)kai_db_param_i64(&p, s->end);
	(void)kai_db_param_u64(&p, s->max_rss_kb);
	(void)kai_db_param_u64(&p, s->ave_rss_kb);
	(void)kai_db_param_u64(&p, s->cpu_usec);
	r = kai_db_cmd(db,
	    "UPDATE job_steps SET state = $3, exit_status = $4::int, "
	    "end_time = $5::bigint, max_rss_kb = $6::bigint, "
	    "ave_rss_kb = $7::bigint, cpu_usec = $8::bigint "
	    "WHERE job_id = $1::bigint AND step = $2::int",
	    &p, "could not record the end of a job step", err);
	kai_db_params_fini(&p);
	return r;
}

int
kai_db_steps_load(struct kai_db *db, const uint64_t *ids, size_t n,
    int64_t uid, struct kai_step_info **v, size_t *nv, struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_buf b;
	PGresult *res;
	size_t i, rows;
	int r;

	*v = NULL;
	*nv = 0;
	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	if (kai_db_array_u64(&b, ids, n) != 0) {
		kai_buf_fini(&b);
		kai_db_params_fini(&p);
		return kai_err_set(err, KAI_EINVAL,
		    "could not read job steps: too many jobs");
	}
	(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
	(void)kai_db_param_i64(&p, uid);
	res = kai_db_exec(db,
	    "SELECT s.job_id, s.step, s.name, s.state, s.exit_status, "
	    "s.ntasks, s.nodelist, s.start_time, s.end_time, s.max_rss_kb, "
	    "s.ave_rss_kb, s.cpu_usec FROM job_steps s "
	    "JOIN jobs j ON j.id = s.job_id WHERE s.job_id = ANY($1::bigint[]) "
	    "AND ($2::bigint < 0 OR j.uid = $2::bigint) "
	    "ORDER BY s.job_id, s.step LIMIT " TEXT(KAI_STEP_LIST_MAX),
	    &p, PGRES_TUPLES_OK, "could not read job steps", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	rows = (size_t)PQntuples(res);
	*v = kai_xcalloc(rows > 0 ? rows : 1, sizeof(**v));
	for (i = 0; i < rows; i++) {
		struct kai_db_row row = {res, (int)i, false};
		struct kai_step_info *s = &(*v)[i];

		s->job = kai_db_get_u64(&row, 0);
		s->step = kai_db_get_i64(&row, 1) < 0 ? KAI_STEP_BATCH :
		    (uint32_t)kai_db_get_i64(&row, 1);
		s->name = kai_db_get_dup(&row, 2);
		s->state = (uint32_t)kai_db_get_state(&row, 3);
		s->exit_status = (uint32_t)kai_db_get_i64(&row, 4);
		s->ntasks = kai_db_get_u32(&row, 5);
		s->nodelist = kai_db_get_dup(&row, 6);
		s->start = kai_db_get_i64(&row, 7);
		s->end = kai_db_get_i64(&row, 8);
		s->max_rss_kb = kai_db_get_u64(&row, 9);
		s->ave_rss_kb = kai_db_get_u64(&row, 10);
		s->cpu_usec = kai_db_get_u64(&row, 11);
		if (row.bad) {
			PQclear(res);
			kai_step_info_free(*v, rows);
			*v = NULL;
			return kai_err_set(err, KAI_EDB,
			    "could not read job steps: a malformed row");
		}
	}
	PQclear(res);
	*nv = rows;
	return 0;
}
