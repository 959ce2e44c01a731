/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_query.c: the jobs kqueue and kacct ask for.
 *
 * The WHERE clause is assembled from fixed fragments, one per filter the
 * query uses, and every value goes in as a parameter ($n); leaving unused
 * filters out (rather than writing "$1 IS NULL OR ...") lets the planner
 * use the partial index on active states and the (uid, submit_time) index.
 * One statement answers the whole query; the rows are converted in a
 * single pass, with the output patterns expanded here so that kqueue and
 * kacct print what the job will really write.
 *
 * Semantics: ids, uids and queues are sets (any member matches); the
 * state mask defaults to the active states, or to every state for a
 * history query; a time window [start, end] keeps the jobs submitted
 * by end (inclusive, as sacct -E is: a job submitted this second shows)
 * that had not ended before start.  The scope adds "uid = requester"
 * (for finished jobs only, with KAI_DB_SCOPE_OWN_ENDED) on top of
 * everything else, so it can only narrow the answer.
 * KAI_QUERY_ALL_USERS is kaid's business (it decides the uids); it is not
 * looked at here.
 */
#include "config.h"

#include "db/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

static const char query_head[] =
    "SELECT id, coalesce(name, ''), uid, gid, user_name, queue, account, "
    "state, reason, submit_time, start_time, end_time, time_limit_s, "
    "ntasks, cpus_per_task, mem_mb, gpus_per_task, nodelist, exit_code, "
    "exit_signal, workdir, stdout_pattern, stderr_pattern, hold, priority, "
    "array_job_id, array_task_id, array_pending, array_throttle, "
    /* tasks_run: counted only for elastic jobs, the others start whole */
    "CASE WHEN min_tasks > 0 AND min_tasks < ntasks THEN "
    "(SELECT count(*) FROM allocations a WHERE a.job_id = jobs.id) "
    "WHEN start_time > 0 OR state IN ('CONFIGURING', 'RUNNING') "
    "THEN ntasks ELSE 0 END, "
    /* gpu_micro: an elastic job's from the tasks it ran, as in kaid */
    "CASE WHEN min_tasks > 0 AND min_tasks < ntasks THEN "
    "coalesce((SELECT sum(a.gpus::bigint * 1000000 + a.gpu_fraction * "
    "greatest(jobs.gpu_devices, 1)) "
    "FROM allocations a WHERE a.job_id = jobs.id), 0)::bigint ELSE "
    KAI_DB_GPU_MICRO_SQL " END, "
    "open_mode";
/* then the columns of model/jobfields.def, then: */
static const char query_from[] = " FROM jobs WHERE true";
/*
 * kacct -D, sacct's --duplicates: each earlier run of a requeued job is a
 * row of its own, the job's row with state REQUEUED and the run's times
 * (from the events: the start is the last placement before the requeue,
 * the end the move back to PENDING).  jsonb_populate_record() copies
 * every other column, whatever the migrations added; called in FROM, it
 * runs once per row.  The outer filters apply to both kinds of row.
 */
static const char query_from_runs[] =
    " FROM (SELECT * FROM jobs UNION ALL SELECT x.* FROM jobs j "
    "JOIN events e ON e.job_id = j.id AND e.to_state = 'PENDING' "
    "AND e.from_state IN ('CONFIGURING', 'RUNNING') "
    "CROSS JOIN LATERAL jsonb_populate_record(j, jsonb_build_object("
    "'state', 'REQUEUED', 'end_time', e.time, 'exit_code', 0, "
    "'exit_signal', 0, 'reason', '', 'nodelist', '', 'start_time', "
    "coalesce((SELECT max(s.time) FROM events s WHERE s.job_id = j.id "
    "AND s.id < e.id AND s.from_state = 'PENDING' "
    "AND s.to_state IN ('CONFIGURING', 'RUNNING')), 0))) x "
    "WHERE j.requeue_count > 0) AS jobs WHERE true";

/* Appends " AND <pre>$n<post>" for parameter n. */
static int
add_cond(struct kai_buf *sql, const char *pre, int n, const char *post)
{
	return kai_buf_addf(sql, " AND %s$%d%s", pre, n, post);
}

/* A condition on an array parameter: lit becomes parameter $n. */
static int
add_filter(struct kai_buf *sql, struct kai_db_params *p, const char *pre,
    struct kai_buf *lit, const char *post)
{
	return add_cond(sql, pre, kai_db_param_own(p, kai_buf_detach(lit,
	    NULL)), post);
}

/* Job ids: the jobs themselves, and every task of an array among them. */
static int
add_ids_filter(struct kai_buf *sql, struct kai_db_params *p,
    struct kai_buf *lit)
{
	int n = kai_db_param_own(p, kai_buf_detach(lit, NULL));

	return kai_buf_addf(sql, " AND (id = ANY($%d::bigint[]) OR "
	    "array_job_id = ANY($%d::bigint[]))", n, n);
}

static int
add_state_filter(struct kai_buf *sql, struct kai_db_params *p, uint32_t mask)
{
	const char *names[KAI_JOB_NSTATES];
	struct kai_buf lit;
	size_t n = 0;
	unsigned s;
	int r;

	if ((mask & KAI_JOB_STATES_ALL) == KAI_JOB_STATES_ALL)
		return 0;
	for (s = 0; s < KAI_JOB_NSTATES; s++)
		if (mask & KAI_JOB_STATE_BIT(s))
			names[n++] = kai_jobstate_name((enum kai_job_state)s);
	kai_buf_init(&lit, KAI_DB_TEXT_MAX);
	r = kai_db_array_text(&lit, names, n);
	if (r == 0)
		r = add_filter(sql, p, "state = ANY(", &lit, "::text[])");
	kai_buf_fini(&lit);
	return r;
}

/* Builds the statement for q; KAI_EINVAL when it would be too large. */
static int
build_query(struct kai_buf *sql, struct kai_db_params *p,
    const struct kai_query *q, enum kai_db_scope scope,
    uint32_t requester_uid)
{
	struct kai_buf lit;
	uint32_t mask = q->state_mask;
	int r = kai_buf_adds(sql, query_head);

	if (r == 0)
		r = kai_db_fields_columns(sql, KAI_JF_REC_INFO);
	if (r == 0)
		r = kai_buf_adds(sql, (q->flags & KAI_QUERY_DUPLICATES)
			? query_from_runs
			: query_from);

	kai_buf_init(&lit, KAI_DB_TEXT_MAX);
	if (r == 0 && q->nids > 0 &&
	    (r = kai_db_array_u64(&lit, q->ids, q->nids)) == 0)
		r = add_ids_filter(sql, p, &lit);
	if (r == 0 && q->nuids > 0 &&
	    (r = kai_db_array_u32(&lit, q->uids, q->nuids)) == 0)
		r = add_filter(sql, p, "uid = ANY(", &lit, "::bigint[])");
	if (r == 0 && q->nqueues > 0 && (r = kai_db_array_text(&lit,
	    (const char *const *)q->queues, q->nqueues)) == 0)
		r = add_filter(sql, p, "queue = ANY(", &lit, "::text[])");
	kai_buf_fini(&lit);
	if (r == 0 && scope == KAI_DB_SCOPE_OWN)
		r = add_cond(sql, "uid = ", kai_db_param_i64(p, requester_uid),
		    "");
	else if (r == 0 && scope == KAI_DB_SCOPE_OWN_ENDED)
		r = add_cond(sql, "(state IN ('PENDING', 'CONFIGURING', "
		    "'RUNNING') OR uid = ", kai_db_param_i64(p, requester_uid),
		    ")");
	if (mask == 0)
		mask = (q->flags & KAI_QUERY_HISTORY) ? KAI_JOB_STATES_ALL :
		    KAI_JOB_STATES_ACTIVE;
	if (r == 0)
		r = add_state_filter(sql, p, mask);
	if (r == 0 && q->end != 0)
		r = add_cond(sql, "submit_time <= ", kai_db_param_i64(p, q->end),
		    "");
	if (r == 0 && q->start != 0)
		r = add_cond(sql, "(end_time = 0 OR end_time >= ",
		    kai_db_param_i64(p, q->start), ")");
	if (r == 0)
		r = kai_buf_adds(sql, (q->flags & KAI_QUERY_DUPLICATES)
			? " ORDER BY id, state <> 'REQUEUED', start_time"
			: " ORDER BY id");
	return r;
}

/*
 * The file a pattern names, made absolute against the working directory.
 * Plain copies rather than a printf: this runs twice per row of answers
 * that may hold 10,000 rows.
 */
/* A record's array (columns 25-28 of the query): id 0 = none. */
struct arr {
	uint64_t id;
	uint32_t task;
};

static char *
expand_path(const char *pattern, const struct kai_jobinfo *ji,
    const struct arr *arr)
{
	size_t wl, sl;
	char *s, *abs;

	s = kai_pattern_expand_array(pattern, ji->id, ji->name, ji->user,
	    arr->id, arr->task);
	if (s[0] == '/')
		return s;
	wl = strlen(ji->workdir);
	while (wl > 0 && ji->workdir[wl - 1] == '/')
		wl--;
	sl = strlen(s);
	abs = kai_xmalloc(wl + sl + 2);
	memcpy(abs, ji->workdir, wl);
	abs[wl] = '/';
	memcpy(abs + wl + 1, s, sl + 1);
	free(s);
	return abs;
}

/* "123_4" or "123_[5-99%10]" (array_pending), as squeue shows them. */
static void
row_to_array(struct kai_db_row *r, struct kai_jobinfo *ji, struct arr *arr)
{
	uint32_t thr;

	memset(arr, 0, sizeof(*arr));
	if (PQgetisnull(r->res, r->row, 25))
		return;
	arr->id = kai_db_get_u64(r, 25);
	if (!PQgetisnull(r->res, r->row, 27)) {
		thr = kai_db_get_u32(r, 28);
		ji->array_id = thr > 0 ? kai_xasprintf("%" PRIu64 "_[%s%%%"
		    PRIu32 "]", arr->id, PQgetvalue(r->res, r->row, 27),
		    thr) : kai_xasprintf("%" PRIu64 "_[%s]", arr->id,
		    PQgetvalue(r->res, r->row, 27));
		return;
	}
	arr->task = kai_db_get_u32(r, 26);
	ji->array_id = kai_xasprintf("%" PRIu64 "_%" PRIu32, arr->id,
	    arr->task);
}

static void
row_to_info(struct kai_db_row *r, struct kai_jobinfo *ji)
{
	struct arr arr;
	const char *out, *errp;

	ji->id = kai_db_get_u64(r, 0);
	ji->name = kai_db_get_dup(r, 1);
	ji->uid = kai_db_get_u32(r, 2);
	ji->gid = kai_db_get_u32(r, 3);
	ji->user = kai_db_get_dup(r, 4);
	ji->queue = kai_db_get_dup(r, 5);
	ji->account = kai_db_get_dup(r, 6);
	ji->state = (enum kai_job_state)kai_db_get_state(r, 7);
	ji->reason = kai_db_get_dup(r, 8);
	ji->submit_time = kai_db_get_i64(r, 9);
	ji->start_time = kai_db_get_i64(r, 10);
	ji->end_time = kai_db_get_i64(r, 11);
	ji->time_limit_s = kai_db_get_i64(r, 12);
	ji->ntasks = kai_db_get_u32(r, 13);
	ji->cpus_per_task = kai_db_get_u32(r, 14);
	ji->mem_mb = kai_db_get_u64(r, 15);
	ji->gpus_per_task = kai_db_get_u32(r, 16);
	ji->nodelist = kai_db_get_dup(r, 17);
	ji->exit_code = (int32_t)kai_db_get_i64(r, 18);
	ji->exit_signal = (int32_t)kai_db_get_i64(r, 19);
	ji->workdir = kai_db_get_dup(r, 20);
	ji->hold = kai_db_get_bool(r, 23);
	ji->priority = kai_db_get_u32(r, 24);
	ji->tasks_run = kai_db_get_u32(r, 29);
	ji->gpu_micro = kai_db_get_u64(r, 30);
	ji->open_mode = kai_db_get_open_mode(r, 31);
	(void)kai_db_fields_read(r, 32, KAI_JF_REC_INFO, ji);
	row_to_array(r, ji, &arr);
	out = PQgetisnull(r->res, r->row, 21) ?
	    (arr.id != 0 ? "slurm-%A_%a.out" : "slurm-%j.out") :
	    PQgetvalue(r->res, r->row, 21);
	errp = PQgetisnull(r->res, r->row, 22) ? NULL :
	    PQgetvalue(r->res, r->row, 22);
	ji->stdout_path = expand_path(out, ji, &arr);
	ji->stderr_path = errp != NULL ? expand_path(errp, ji, &arr) :
	    kai_xstrdup(ji->stdout_path);
}

static int
convert_infos(PGresult *res, struct kai_jobinfo **jobsp, size_t *np,
    struct kai_err *err)
{
	struct kai_db_row r = {res, 0, false};
	int n = PQntuples(res);
	struct kai_jobinfo *jobs;

	jobs = n > 0 ? kai_xcalloc((size_t)n, sizeof(*jobs)) : NULL;
	for (r.row = 0; r.row < n; r.row++)
		row_to_info(&r, &jobs[r.row]);
	if (r.bad) {
		for (r.row = 0; r.row < n; r.row++)
			kai_jobinfo_fini(&jobs[r.row]);
		free(jobs);
		return kai_err_set(err, KAI_EDB,
		    "could not query jobs: malformed row");
	}
	*jobsp = jobs;
	*np = (size_t)n;
	return 0;
}

int
kai_db_jobs_query(struct kai_db *db, const struct kai_query *q,
    enum kai_db_scope scope, uint32_t requester_uid,
    struct kai_jobinfo **jobs, size_t *n, struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_buf sql;
	PGresult *res = NULL;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	kai_buf_init(&sql, KAI_DB_TEXT_MAX);
	if (build_query(&sql, &p, q, scope, requester_uid) != 0)
		r = kai_err_set(err, KAI_EINVAL,
		    "could not query jobs: query too large");
	else if ((res = kai_db_exec(db, sql.data, &p, PGRES_TUPLES_OK,
	    "could not query jobs", err)) == NULL)
		r = kai_db_errcode(err);
	else
		r = convert_infos(res, jobs, n, err);
	PQclear(res);
	kai_buf_fini(&sql);
	kai_db_params_fini(&p);
	return r;
}

/* The two halves of kai_db_jobs_query(), for db_async.c. */
int
kai_db_jobs_query_sql(struct kai_buf *sql, struct kai_db_params *p,
    const struct kai_query *q, enum kai_db_scope scope,
    uint32_t requester_uid, struct kai_err *err)
{
	if (build_query(sql, p, q, scope, requester_uid) != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "could not query jobs: query too large");
	return 0;
}

int
kai_db_jobs_query_rows(PGresult *res, struct kai_jobinfo **jobs, size_t *n,
    struct kai_err *err)
{
	return convert_infos(res, jobs, n, err);
}
