/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_array.h: the store's side of job arrays and dependencies
 * (db_array.c; the columns are sql/005-arrays.sql's).
 */
#ifndef KAI_DB_DB_ARRAY_H
#define KAI_DB_DB_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "db/db.h"
#include "model/job.h"
#include "model/jobstate.h"

/* What a submission adds to a plain job; all NULL/0 = nothing. */
struct kai_db_jobext {
	const char *array_spec;	   /* every task; NULL = not an array */
	uint32_t array_throttle;   /* 0 = no limit */
	const char *dependency;	   /* canonical; NULL = none */
	bool kill_on_invalid_dep;
};

/*
 * kai_db_jobs_insert() plus the array and dependency columns, all in one
 * transaction: a crash leaves either the whole submission or nothing.
 * An array's row gets array_job_id = its own id and array_pending =
 * array_spec.  ext[i] belongs to jobs[i].
 */
int kai_db_jobs_insert_ext(struct kai_db *db,
    const struct kai_db_newjob *jobs, const struct kai_db_jobext *ext,
    size_t n, uint64_t *ids, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Fills the array and dependency fields of the active jobs just loaded
 * with kai_db_jobs_load_active() (jobs sorted by id).  A stored text
 * that does not parse is KAI_EDB naming the job.
 */
int kai_db_jobs_load_ext(struct kai_db *db, struct kai_job *jobs, size_t n,
    struct kai_err *err) KAI_MUST_CHECK;

/* One task to split off a pending array row. */
struct kai_db_split {
	uint64_t array_id;	/* the row holding the remainder */
	uint32_t task;
	const char *rest;	/* the remainder after; NULL = the row itself
				 * becomes the task (it was the last) */
	uint64_t new_id;	/* out: the task's job id */
};

/*
 * Splits the tasks off in one transaction: each gets a copy of its
 * array's row with a new id (every column copied, so columns added
 * later travel too) and a submission event, and the array's remainder
 * is rewritten.  All or nothing.
 */
int kai_db_array_split(struct kai_db *db, struct kai_db_split *s, size_t n,
    int64_t now, struct kai_err *err) KAI_MUST_CHECK;

/* A finished job record, for dependencies. */
struct kai_db_done {
	uint64_t key;		/* array_job_id, or the id outside arrays */
	int64_t task;		/* array_task_id; -1 = none */
	enum kai_job_state state;
	int64_t start_time;
};

/*
 * Every record in a final state whose id or array_job_id is one of
 * ids[0..n), in one query.  Caller frees *rows.
 */
int kai_db_jobs_done(struct kai_db *db, const uint64_t *ids, size_t n,
    struct kai_db_done **rows, size_t *nrows, struct kai_err *err)
    KAI_MUST_CHECK;

/* exists[i]: a job with id ids[i] was ever submitted.  One query. */
int kai_db_jobs_exist(struct kai_db *db, const uint64_t *ids, size_t n,
    bool *exists, struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_DB_DB_ARRAY_H */
