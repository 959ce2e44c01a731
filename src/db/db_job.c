/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_job.c: submitting jobs, loading the active ones, reading a job's spec.
 *
 * Submissions are group-committed: kaid hands over every job that arrived
 * since the last commit and they go in with a single statement (a
 * multi-row INSERT whose RETURNING feeds the event rows through a
 * data-modifying CTE), so a batch costs one round trip and one fsync.  A
 * single statement is its own transaction: a bad row (a queue that does
 * not exist) fails the batch and leaves nothing behind.  The ids come back
 * sorted, which is the order of the rows: PostgreSQL draws the serial for
 * each VALUES row in turn, so ids[i] belongs to jobs[i].  Very large
 * batches are split into statements of DB_INSERT_CHUNK rows inside one
 * explicit transaction, to stay far below the protocol's 65,535
 * parameters per statement.
 */
#include "config.h"

#include "db/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

#define DB_INSERT_CHUNK 128
#define DB_INSERT_PREPARED 64	/* sizes with a prepared statement */
/* The parameters of a row: the columns of insert_head, then the table's. */
#define DB_INSERT_NPARAM (30 + kai_db_fields_count(KAI_JF_REC_SPEC))

#define DB_ACTIVE_STATES "('PENDING', 'CONFIGURING', 'RUNNING')"

static const char insert_head[] =
    "WITH j AS (INSERT INTO jobs (name, uid, gid, user_name, queue, "
    "account, priority, hold, submit_time, time_limit_s, ntasks, "
    "cpus_per_task, mem_mb, gpus_per_task, image, workdir, stdout_pattern, "
    "stderr_pattern, script, argv, env, priority_class, preemptible, "
    "requeue, min_tasks, gpu_fraction, gpu_memory_mb, topology, "
    "topology_preferred, open_mode";
/* then the columns of model/jobfields.def, then: */
static const char insert_values[] = ", state) VALUES ";
static const char insert_tail[] =
    " RETURNING id, uid, submit_time), "
    "e AS (INSERT INTO events (job_id, time, from_state, to_state, "
    "actor_uid) SELECT id, submit_time, NULL, 'PENDING', uid FROM j) "
    "SELECT id FROM j ORDER BY id";

/* An array literal parameter for argv or env. */
static int
param_strv(struct kai_db_params *p, char *const *v, size_t n)
{
	struct kai_buf b;
	int r = -1;

	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	if (kai_db_array_text(&b, (const char *const *)v, n) == 0)
		r = kai_db_param_own(p, kai_buf_detach(&b, NULL));
	kai_buf_fini(&b);
	return r;
}

/* Adds one job's parameters and its "($a, ..., 'PENDING')" to sql. */
static int
add_row(struct kai_db_params *p, struct kai_buf *sql,
    const struct kai_db_newjob *j)
{
	const struct kai_jobspec *s = j->spec;
	int first = p->n + 1, i, r;

	KAI_ASSERT(s != NULL);
	(void)kai_db_param_str(p, s->name);
	(void)kai_db_param_u64(p, j->uid);
	(void)kai_db_param_u64(p, j->gid);
	(void)kai_db_param_str(p, j->user != NULL ? j->user : "");
	(void)kai_db_param_str(p, j->queue);
	(void)kai_db_param_str(p, s->account != NULL ? s->account : "");
	(void)kai_db_param_u64(p, j->priority);
	(void)kai_db_param_bool(p, s->hold);
	(void)kai_db_param_i64(p, j->submit_time);
	(void)kai_db_param_i64(p, j->time_limit_s);
	(void)kai_db_param_u64(p, s->ntasks != 0 ? s->ntasks : 1);
	(void)kai_db_param_u64(p, s->cpus_per_task != 0 ? s->cpus_per_task : 1);
	(void)kai_db_param_u64(p, j->mem_mb);
	(void)kai_db_param_u64(p, s->gpus_per_task);
	(void)kai_db_param_str(p, s->image);
	(void)kai_db_param_str(p, s->workdir != NULL ? s->workdir : "/");
	(void)kai_db_param_str(p, s->stdout_pattern);
	(void)kai_db_param_str(p, s->stderr_pattern);
	(void)kai_db_param_str(p, s->script);
	if (param_strv(p, s->argv, s->argc) < 0 ||
	    param_strv(p, s->env, s->nenv) < 0)
		return KAI_EINVAL;
	(void)kai_db_param_str(p, s->priority_class != NULL
		? s->priority_class : KAI_PRIO_CLASS_DEFAULT);
	(void)kai_db_param_bool(p, j->preemptible);
	(void)kai_db_param_bool(p, s->requeue != KAI_TRI_NO);
	(void)kai_db_param_u64(p, s->min_tasks);
	(void)kai_db_param_u64(p, s->gpu_fraction);
	(void)kai_db_param_u64(p, s->gpu_memory_mb);
	(void)kai_db_param_str(p, s->topology != NULL ? s->topology : "");
	(void)kai_db_param_str(p, s->topology_preferred != NULL
		? s->topology_preferred : "");
	(void)kai_db_param_str(p, kai_db_open_mode_text(s->open_mode));
	kai_db_fields_params(p, s);
	KAI_ASSERT(p->n - first + 1 == DB_INSERT_NPARAM);
	r = kai_buf_adds(sql, first == 1 ? "(" : ",(");
	for (i = 0; i < DB_INSERT_NPARAM && r == 0; i++)
		r = kai_buf_addf(sql, "$%d,", first + i);
	if (r == 0)
		r = kai_buf_adds(sql, "'PENDING')");
	return r;
}

/*
 * Runs the INSERT of n rows.  Batches of up to DB_INSERT_PREPARED rows run
 * as a statement prepared once per connection and size: a group commit
 * of a few submissions is the common case, and planning this statement
 * costs about as much as executing it.
 */
static PGresult *
insert_exec(struct kai_db *db, const char *sql, size_t n,
    const struct kai_db_params *p, struct kai_err *err)
{
	uint64_t bit = n <= DB_INSERT_PREPARED ? UINT64_C(1) << (n - 1) : 0;
	char name[32];
	PGresult *res;

	if (bit == 0)
		return kai_db_exec(db, sql, p, PGRES_TUPLES_OK,
		    "could not insert jobs", err);
	(void)snprintf(name, sizeof(name), "kai_insert_%zu", n);
	if ((db->insert_prepared & bit) == 0) {
		res = PQprepare(db->conn, name, sql, 0, NULL);
		if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
			(void)kai_db_error(db, res, "could not insert jobs",
			    err);
			PQclear(res);
			return NULL;
		}
		PQclear(res);
		db->insert_prepared |= bit;
	}
	res = PQexecPrepared(db->conn, name, p->n, p->v, NULL, NULL, 0);
	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK)
		return res;
	(void)kai_db_error(db, res, "could not insert jobs", err);
	PQclear(res);
	return NULL;
}

/* One INSERT statement for jobs[0..n), 0 < n <= DB_INSERT_CHUNK. */
static int
insert_chunk(struct kai_db *db, const struct kai_db_newjob *jobs, size_t n,
    uint64_t *ids, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	struct kai_buf sql;
	PGresult *res = NULL;
	size_t i;
	int r;

	kai_db_params_init(&p);
	kai_buf_init(&sql, KAI_DB_TEXT_MAX);
	r = kai_buf_adds(&sql, insert_head);
	if (r == 0)
		r = kai_db_fields_columns(&sql, KAI_JF_REC_SPEC);
	if (r == 0)
		r = kai_buf_adds(&sql, insert_values);
	for (i = 0; i < n && r == 0; i++)
		r = add_row(&p, &sql, &jobs[i]);
	if (r == 0)
		r = kai_buf_adds(&sql, insert_tail);
	if (r != 0)
		r = kai_err_set(err, KAI_EINVAL,
		    "could not insert jobs: submission too large");
	else if ((res = insert_exec(db, sql.data, n, &p, err)) == NULL)
		r = kai_db_errcode(err);
	else if ((size_t)PQntuples(res) != n)
		r = kai_err_set(err, KAI_EDB,
		    "could not insert jobs: %d ids returned for %zu jobs",
		    PQntuples(res), n);
	for (i = 0; i < n && r == 0; i++) {
		row.res = res;
		row.row = (int)i;
		ids[i] = kai_db_get_u64(&row, 0);
	}
	if (r == 0 && row.bad)
		r = kai_err_set(err, KAI_EDB,
		    "could not insert jobs: malformed id returned");
	PQclear(res);
	kai_buf_fini(&sql);
	kai_db_params_fini(&p);
	return r;
}

int
kai_db_jobs_insert_in(struct kai_db *db, const struct kai_db_newjob *jobs,
    size_t n, uint64_t *ids, struct kai_err *err)
{
	size_t i, k;
	int r = 0;

	for (i = 0; i < n && r == 0; i += k) {
		k = n - i < DB_INSERT_CHUNK ? n - i : DB_INSERT_CHUNK;
		r = insert_chunk(db, jobs + i, k, ids + i, err);
	}
	return r;
}

int
kai_db_jobs_insert(struct kai_db *db, const struct kai_db_newjob *jobs,
    size_t n, uint64_t *ids, struct kai_err *err)
{
	int r;

	if (n == 0)
		return 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	if (n <= DB_INSERT_CHUNK)
		return insert_chunk(db, jobs, n, ids, err);
	if ((r = kai_db_cmd(db, "BEGIN", NULL, "could not insert jobs",
	    err)) != 0)
		return r;
	r = kai_db_jobs_insert_in(db, jobs, n, ids, err);
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, "could not insert jobs", err);
	if (r != 0)
		kai_db_rollback(db);
	return r;
}

/*
 * Loading the active jobs
 */

static void
row_to_job(struct kai_db_row *r, struct kai_job *j)
{
	j->id = kai_db_get_u64(r, 0);
	j->uid = kai_db_get_u32(r, 1);
	j->gid = kai_db_get_u32(r, 2);
	j->user = kai_db_get_dup(r, 3);
	j->name = kai_db_get_dup(r, 4);
	j->queue = kai_db_get_dup(r, 5);
	j->state = (enum kai_job_state)kai_db_get_state(r, 6);
	j->priority = kai_db_get_u32(r, 7);
	j->submit_time = kai_db_get_i64(r, 8);
	j->start_time = kai_db_get_i64(r, 9);
	j->ntasks = kai_db_get_u32(r, 10);
	j->cpus_per_task = kai_db_get_u32(r, 11);
	j->mem_mb = kai_db_get_u64(r, 12);
	j->gpus_per_task = kai_db_get_u32(r, 13);
	j->time_limit_s = kai_db_get_i64(r, 14);
	j->hold = kai_db_get_bool(r, 15);
	j->reason = kai_db_get_dup(r, 16);
	j->account = kai_db_get_optstr(r, 17);
	j->workdir = kai_db_get_dup(r, 18);
	j->preemptible = kai_db_get_bool(r, 19);
	j->requeue = kai_db_get_bool(r, 20);
	j->requeue_count = kai_db_get_u32(r, 21);
	j->min_tasks = kai_db_get_u32(r, 22);
	j->gpu_fraction = kai_db_get_u32(r, 23);
	j->gpu_memory_mb = kai_db_get_u64(r, 24);
	j->topology = kai_db_get_optstr(r, 25);
	j->topology_preferred = kai_db_get_optstr(r, 26);
	j->why = kai_db_get_dup(r, 27);
	j->workload = kai_db_get_optstr(r, 28);
	j->qos = kai_db_get_optstr(r, 29);
	j->gpu_type = kai_db_get_optstr(r, 30);
	j->ntasks_per_node = kai_db_get_u32(r, 31);
	j->features = kai_db_get_optstr(r, 32);
	j->node_req = kai_db_get_optstr(r, 33);
	j->gpus_per_node = kai_db_get_u32(r, 34);
	j->whole_node = kai_db_get_u32(r, 35);
	j->mail_mask = kai_mail_type_mask(PQgetvalue(r->res, r->row, 36));
	j->mail_user = kai_db_get_optstr(r, 37);
	j->mail_sent = kai_db_get_u32(r, 38);
	j->gpu_devices = kai_db_get_u32(r, 39);
}

/* Appends allocation row r (of job j) to j->allocs. */
static void
row_to_alloc(struct kai_db_row *r, struct kai_job *j)
{
	struct kai_alloc *a;

	j->allocs = kai_xreallocarray(j->allocs, j->nallocs + 1,
	    sizeof(*j->allocs));
	a = &j->allocs[j->nallocs++];
	a->task = kai_db_get_u32(r, 1);
	a->node = kai_db_get_dup(r, 2);
	a->pod = kai_db_get_dup(r, 3);
	a->gpus = kai_db_get_u32(r, 4);
	a->cpus = kai_db_get_u32(r, 5);
	a->mem_mb = kai_db_get_u64(r, 6);
	a->gpu_mask = (uint64_t)kai_db_get_i64(r, 7);
	a->gpu_fraction = kai_db_get_u32(r, 8);
}

/* Both results are ordered by job id: walk them side by side. */
static int
convert_active(PGresult *jres, PGresult *ares, struct kai_job **jobsp,
    size_t *np, struct kai_err *err)
{
	struct kai_db_row jr = {jres, 0, false}, ar = {ares, 0, false};
	int nj = PQntuples(jres), na = PQntuples(ares);
	struct kai_job *jobs;
	size_t i;

	jobs = nj > 0 ? kai_xcalloc((size_t)nj, sizeof(*jobs)) : NULL;
	for (jr.row = 0; jr.row < nj; jr.row++) {
		row_to_job(&jr, &jobs[jr.row]);
		while (ar.row < na &&
		    kai_db_get_u64(&ar, 0) < jobs[jr.row].id)
			ar.row++;
		for (; ar.row < na && kai_db_get_u64(&ar, 0) ==
		    jobs[jr.row].id; ar.row++)
			row_to_alloc(&ar, &jobs[jr.row]);
	}
	if (jr.bad || ar.bad) {
		for (i = 0; i < (size_t)nj; i++)
			kai_job_fini(&jobs[i]);
		free(jobs);
		return kai_err_set(err, KAI_EDB,
		    "could not load jobs: malformed row");
	}
	*jobsp = jobs;
	*np = (size_t)nj;
	return 0;
}

int
kai_db_jobs_load_active(struct kai_db *db, struct kai_job **jobs, size_t *n,
    struct kai_err *err)
{
	static const char what[] = "could not load jobs";
	PGresult *jres = NULL, *ares = NULL;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	/* One snapshot for both queries, so jobs and allocations agree. */
	r = kai_db_cmd(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	    NULL, what, err);
	if (r == 0 && (jres = kai_db_exec(db,
	    "SELECT id, uid, gid, user_name, coalesce(name, ''), queue, state, "
	    "priority, submit_time, start_time, ntasks, cpus_per_task, mem_mb, "
	    "gpus_per_task, time_limit_s, hold, reason, account, workdir, "
	    "preemptible, requeue, requeue_count, min_tasks, gpu_fraction, "
	    "gpu_memory_mb, topology, topology_preferred, why, workload, qos, "
	    "gpu_type, ntasks_per_node, features, node_req, gpus_per_node, "
	    "whole_node, mail_type, mail_user, mail_sent, gpu_devices "
	    "FROM jobs "
	    "WHERE state IN " DB_ACTIVE_STATES " ORDER BY id",
	    NULL, PGRES_TUPLES_OK, what, err)) == NULL)
		r = kai_db_errcode(err);
	if (r == 0 && (ares = kai_db_exec(db,
	    "SELECT a.job_id, a.task, a.node, a.pod, a.gpus, a.cpus, a.mem_mb, "
	    "a.gpu_mask, a.gpu_fraction "
	    "FROM allocations a JOIN jobs j ON j.id = a.job_id "
	    "WHERE j.state IN " DB_ACTIVE_STATES " ORDER BY a.job_id, a.task",
	    NULL, PGRES_TUPLES_OK, what, err)) == NULL)
		r = kai_db_errcode(err);
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, what, err);
	if (r == 0)
		r = convert_active(jres, ares, jobs, n, err);
	else
		kai_db_rollback(db);
	PQclear(jres);
	PQclear(ares);
	return r;
}

/*
 * One job's spec
 */

static int
row_to_spec(struct kai_db_row *r, struct kai_jobspec *js)
{
	memset(js, 0, sizeof(*js));
	js->name = kai_db_get_dupnull(r, 0);
	js->queue = kai_db_get_dup(r, 1);
	js->account = kai_db_get_dup(r, 2);
	if (js->account[0] == '\0')
		KAI_FREE(js->account);
	js->script = kai_db_get_dup(r, 3);
	if (kai_db_parse_text_array(PQgetvalue(r->res, r->row, 4), &js->argv,
	    &js->argc) != 0 ||
	    kai_db_parse_text_array(PQgetvalue(r->res, r->row, 5), &js->env,
	    &js->nenv) != 0)
		r->bad = true;
	js->workdir = kai_db_get_dup(r, 6);
	js->stdout_pattern = kai_db_get_dupnull(r, 7);
	js->stderr_pattern = kai_db_get_dupnull(r, 8);
	js->image = kai_db_get_dupnull(r, 9);
	js->ntasks = kai_db_get_u32(r, 10);
	js->cpus_per_task = kai_db_get_u32(r, 11);
	js->mem_mb = kai_db_get_u64(r, 12);
	js->gpus_per_task = kai_db_get_u32(r, 13);
	js->time_limit_s = kai_db_get_i64(r, 14);
	js->hold = kai_db_get_bool(r, 15);
	js->open_mode = kai_db_get_open_mode(r, 16);
	js->priority_class = kai_db_get_dupnull(r, 17);
	(void)kai_db_fields_read(r, 18, KAI_JF_REC_SPEC, js);
	return r->bad ? KAI_EDB : 0;
}

int
kai_db_job_spec(struct kai_db *db, uint64_t id, struct kai_jobspec *js,
    struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	struct kai_buf sql;
	PGresult *res = NULL;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, id);
	kai_buf_init(&sql, KAI_DB_TEXT_MAX);
	if (kai_buf_adds(&sql, "SELECT name, queue, account, script, argv, "
	    "env, workdir, stdout_pattern, stderr_pattern, image, ntasks, "
	    "cpus_per_task, mem_mb, gpus_per_task, time_limit_s, hold, "
	    "open_mode, priority_class") != 0 ||
	    kai_db_fields_columns(&sql, KAI_JF_REC_SPEC) != 0 ||
	    kai_buf_adds(&sql, " FROM jobs WHERE id = $1") != 0)
		(void)kai_err_set(err, KAI_EINTERNAL,
		    "could not read job: statement too large");
	else
		res = kai_db_exec(db, sql.data, &p, PGRES_TUPLES_OK,
		    "could not read job", err);
	kai_buf_fini(&sql);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	if (PQntuples(res) == 0) {
		PQclear(res);
		return kai_err_set(err, KAI_ENOENT,
		    "job %" PRIu64 " does not exist", id);
	}
	row.res = res;
	if (row_to_spec(&row, js) != 0) {
		kai_jobspec_fini(js);
		r = kai_err_set(err, KAI_EDB,
		    "could not read job %" PRIu64 ": malformed row", id);
	}
	PQclear(res);
	return r;
}

/*
 * Cancellation, set-based: the ids, their states and their signals go in
 * as three arrays and one statement updates every row and writes every
 * event row.  Row by row (kai_db_jobs_change) cost about 90 us a job, 4.6 s
 * for kcancel -u of 50,000 jobs; this is one round trip.
 */
static const char cancel_sql[] =
    "WITH v AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[]) "
    "AS v(id, from_state, sig)), "
    "u AS (UPDATE jobs SET state = $4::text, reason = $5::text, "
    "start_time = CASE WHEN jobs.start_time = 0 AND "
    "v.from_state <> 'PENDING' THEN $6::bigint ELSE jobs.start_time END, "
    "end_time = $6::bigint, exit_code = 0, exit_signal = v.sig "
    "FROM v WHERE jobs.id = v.id AND jobs.state = v.from_state "
    "RETURNING jobs.id, v.from_state), "
    "e AS (INSERT INTO events (job_id, time, from_state, to_state, reason, "
    "actor_uid) SELECT id, $6::bigint, from_state, $4::text, $5::text, "
    "$7::bigint FROM u) "
    "SELECT id FROM u ORDER BY id";

/* The three arrays of c as parameters $1..$3. */
static int
cancel_arrays(struct kai_db_params *p, const struct kai_db_cancel *c,
    struct kai_err *err)
{
	const char **from = kai_xcalloc(c->n + 1, sizeof(*from));
	struct kai_buf b;
	size_t i;
	int r;

	for (i = 0; i < c->n; i++)
		from[i] = kai_jobstate_name(c->from[i]);
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	r = kai_db_array_u64(&b, c->ids, c->n);
	if (r == 0) {
		(void)kai_db_param_own(p, kai_buf_detach(&b, NULL));
		r = kai_db_array_text(&b, from, c->n);
	}
	if (r == 0) {
		(void)kai_db_param_own(p, kai_buf_detach(&b, NULL));
		r = kai_db_array_u32(&b, c->signals, c->n);
	}
	if (r == 0)
		(void)kai_db_param_own(p, kai_buf_detach(&b, NULL));
	else
		r = kai_err_set(err, KAI_EINVAL,
		    "could not cancel %zu jobs: too many", c->n);
	kai_buf_fini(&b);
	free(from);
	return r;
}

static int
by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* applied[i]: whether ids[i] is among the returned (sorted) ids. */
static void
cancel_applied(PGresult *res, const struct kai_db_cancel *c, bool *applied)
{
	size_t i, m = (size_t)PQntuples(res);
	uint64_t *got = kai_xcalloc(m + 1, sizeof(*got));

	for (i = 0; i < m; i++)
		got[i] = strtoull(PQgetvalue(res, (int)i, 0), NULL, 10);
	for (i = 0; i < c->n; i++)
		applied[i] = bsearch(&c->ids[i], got, m, sizeof(*got),
		    by_u64) != NULL;
	free(got);
}

int
kai_db_jobs_cancel(struct kai_db *db, const struct kai_db_cancel *c,
    bool *applied, struct kai_err *err)
{
	struct kai_db_params p;
	PGresult *res;
	size_t i;
	int r;

	if (c->n == 0)
		return 0;
	for (i = 0; i < c->n; i++)
		if ((unsigned)c->from[i] >= KAI_JOB_NSTATES)
			return kai_err_set(err, KAI_EINVAL,
			    "job %" PRIu64 ": invalid state %d", c->ids[i],
			    (int)c->from[i]);
	if ((unsigned)c->to >= KAI_JOB_NSTATES)
		return kai_err_set(err, KAI_EINVAL, "invalid state %d",
		    (int)c->to);
	for (i = 0; i < c->n; i++)
		if ((r = kai_db_move_check(c->ids[i], c->from[i], c->to, false,
		    err)) != 0)
			return r;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	if ((r = cancel_arrays(&p, c, err)) == 0) {
		(void)kai_db_param_str(&p, kai_jobstate_name(c->to));
		(void)kai_db_param_str(&p, c->reason != NULL ? c->reason : "");
		(void)kai_db_param_i64(&p, c->time);
		(void)kai_db_param_i64(&p, c->actor_uid);
		res = kai_db_exec(db, cancel_sql, &p, PGRES_TUPLES_OK,
		    "could not cancel jobs", err);
		if (res == NULL)
			r = kai_db_errcode(err);
		else if (applied != NULL)
			cancel_applied(res, c, applied);
		PQclear(res);
	}
	kai_db_params_fini(&p);
	return r;
}
