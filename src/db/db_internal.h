/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_internal.h: what the files of src/db share and nobody else sees.
 *
 * The connection handle, the compiled-in migrations (generated from sql/ by
 * build-aux/sql2c.sh), and small helpers that keep every call to libpq in
 * the same shape: values always travel as parameters (a kai_db_params list
 * of text values, never spliced into SQL), results are checked in one
 * place and converted to a kai_err with the SQLSTATE mapped to our codes,
 * and rows are read through a kai_db_row that notes any malformed value
 * instead of making every getter return an error.
 */
#ifndef KAI_DB_DB_INTERNAL_H
#define KAI_DB_DB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "db/db.h"
#include "model/jobfields.h"

/* One migration: sql/NNN-name.sql. */
struct kai_sql_migration {
	int version;		/* NNN */
	const char *name;	/* "001-initial.sql" */
	const char *sql;	/* the whole file */
};

/* sql/migrations.c, in version order 1, 2, ... */
extern const struct kai_sql_migration kai_sql_migrations[];
extern const size_t kai_sql_nmigrations;

struct kai_db {
	PGconn *conn;
	char *conninfo;		/* kept to reconnect; may hold a password */
	bool broken;		/* protocol state unknown: reconnect first */
	bool change_prepared;	/* "kai_change" exists on this connection */
	uint64_t insert_prepared; /* bit n-1: "kai_insert_<n>" exists */
	int64_t statement_timeout_ms; /* set on every connection; 0 = none */
	struct db_async *async;	/* db_async.c: reads in flight, or NULL */
	int64_t epoch;		/* db_leader.c: > 0 while this kaid leads */
	bool deposed;		/* the lead was lost: refuse everything */
};

/*
 * Makes sure the connection is usable before a call: reconnects when it
 * was lost or left in an unknown state (prepared statements go with it).
 */
int kai_db_ready(struct kai_db *db, struct kai_err *err) KAI_MUST_CHECK;
/*
 * kai_db_jobs_insert() inside the caller's transaction (db_job.c): no
 * check of the connection, whose transaction is in progress, and no
 * transaction of its own.
 */
int kai_db_jobs_insert_in(struct kai_db *db, const struct kai_db_newjob *jobs,
    size_t n, uint64_t *ids, struct kai_err *err) KAI_MUST_CHECK;

/* The text parameters of one statement; owns what it formats. */
struct kai_db_params {
	const char **v;		/* NULL entries are SQL NULLs */
	int n;
	int cap;
	char **owned;		/* freed by _fini */
	size_t nowned;
	size_t capowned;
};

void kai_db_params_init(struct kai_db_params *p);
void kai_db_params_fini(struct kai_db_params *p);
/* Each returns the parameter's number, for "$n" in the SQL. */
int kai_db_param_str(struct kai_db_params *p, const char *s);
int kai_db_param_own(struct kai_db_params *p, char *s);
int kai_db_param_i64(struct kai_db_params *p, int64_t v);
int kai_db_param_u64(struct kai_db_params *p, uint64_t v);
int kai_db_param_bool(struct kai_db_params *p, bool v);

/*
 * Runs one statement with parameters (p may be NULL).  Returns the result
 * when its status is `want`; otherwise sets err ("<what>: <server
 * message>") and returns NULL.  Caller owns the result (PQclear).
 */
PGresult *kai_db_exec(struct kai_db *db, const char *sql,
    const struct kai_db_params *p, ExecStatusType want, const char *what,
    struct kai_err *err);
/*
 * Runs a statement whose rows, if any, are not wanted (BEGIN, UPDATE,
 * SELECT pg_advisory_lock(...)).  Returns 0 or the error code.
 */
int kai_db_cmd(struct kai_db *db, const char *sql,
    const struct kai_db_params *p, const char *what, struct kai_err *err)
    KAI_MUST_CHECK;
/* The code of a failure reported in err (KAI_EDB when err is NULL). */
int kai_db_errcode(const struct kai_err *err);
/* ROLLBACK after a failure; its own failure only marks db broken. */
void kai_db_rollback(struct kai_db *db);

/*
 * Converts a failed result (or a NULL one: the connection's message) into
 * err: SQLSTATE 23505 -> KAI_EEXIST, 23503 -> KAI_ENOENT, 40001/40P01 ->
 * KAI_EAGAIN, anything else KAI_EDB.  Returns the code.
 */
int kai_db_error(struct kai_db *db, const PGresult *res, const char *what,
    struct kai_err *err);

/* Reads the fields of one row; bad is set by any malformed value. */
struct kai_db_row {
	const PGresult *res;
	int row;
	bool bad;
};

int64_t kai_db_get_i64(struct kai_db_row *r, int col);
uint32_t kai_db_get_u32(struct kai_db_row *r, int col);
uint64_t kai_db_get_u64(struct kai_db_row *r, int col);
bool kai_db_get_bool(struct kai_db_row *r, int col);
/* jobs.open_mode as enum kai_open_mode, and back (NULL for the default). */
uint32_t kai_db_get_open_mode(struct kai_db_row *r, int col);
const char *kai_db_open_mode_text(uint32_t mode);
/* Caller owns the copy; a NULL field gives "" (or NULL for _dupnull). */
char *kai_db_get_dup(struct kai_db_row *r, int col);
char *kai_db_get_dupnull(struct kai_db_row *r, int col);
/* A kai_job optional text field: kai_job_empty when the value is "". */
char *kai_db_get_optstr(struct kai_db_row *r, int col);
/* The state name stored in the row; bad for an unknown one. */
int kai_db_get_state(struct kai_db_row *r, int col);

/*
 * Whether a change of job id is in the transition table (a resize: the
 * same state, one that may be resized); KAI_EINTERNAL naming the job and
 * both states otherwise.  Every state change is written through it.
 */
int kai_db_move_check(uint64_t id, enum kai_job_state from,
    enum kai_job_state to, bool resize, struct kai_err *err) KAI_MUST_CHECK;

/*
 * The columns of model/jobfields.def (db_fields.c): the rows of record rec
 * that name a column, in the table's order.
 */
/* Appends ", col1, col2, ..." to sql; KAI_EINVAL past its max. */
int kai_db_fields_columns(struct kai_buf *sql, enum kai_jf_rec rec)
    KAI_MUST_CHECK;
/* How many columns kai_db_fields_columns() appends. */
int kai_db_fields_count(enum kai_jf_rec rec);
/* Adds the spec's values of those columns as parameters, in order. */
void kai_db_fields_params(struct kai_db_params *p,
    const struct kai_jobspec *js);
/*
 * Reads those columns from col on into out (a struct of record rec; its
 * strings are the caller's to free).  Returns the next column.
 */
int kai_db_fields_read(struct kai_db_row *r, int col, enum kai_jf_rec rec,
    void *out);

/*
 * PostgreSQL array literals for parameters: {"a","b\"c"} and {1,2}.
 * Every element is quoted, so no element can be mistaken for NULL or
 * split; a NULL pointer in v is written as "".  KAI_EINVAL when the
 * literal would pass the buffer's max.
 */
int kai_db_array_text(struct kai_buf *b, const char *const *v, size_t n)
    KAI_MUST_CHECK;
int kai_db_array_u64(struct kai_buf *b, const uint64_t *v, size_t n)
    KAI_MUST_CHECK;
int kai_db_array_u32(struct kai_buf *b, const uint32_t *v, size_t n)
    KAI_MUST_CHECK;

/*
 * Parses a one-dimensional text[] as PostgreSQL prints it ({a,"b c"}) into
 * a NULL-terminated vector.  Caller owns *v and its strings.  Returns 0,
 * or KAI_EINVAL for anything else (NULL elements included).
 */
int kai_db_parse_text_array(const char *s, char ***v, size_t *n)
    KAI_MUST_CHECK;


/*
 * The GPUs a job of table "jobs" holds, all tasks together, in micro-GPUs
 * (bigint): --gpu-fraction counts its fraction per task; --gpu-memory the
 * fraction of the device the scheduler charged it (allocations.gpu_
 * fraction, its memory over the device's, rounded up, as KAI does), looked
 * up only for those jobs; either times the devices of a share over
 * several (gpu_devices, 023); whole GPUs are ntasks x gpus_per_task, or
 * per node group, or for a whole-node job what its allocations held (019),
 * as for a started gang of Kubernetes pods (a workload with a colon, 012),
 * whose members each hold what they ask (a master of 1 GPU beside workers
 * of 4), not the per-task figure, its largest member's.
 */
#define KAI_DB_GPU_MICRO_SQL                                                   \
	"(CASE WHEN gpu_fraction > 0 THEN "                                    \
	"greatest(ntasks, 1)::bigint * gpu_fraction "                          \
	"* greatest(gpu_devices, 1) "                                          \
	"WHEN gpu_memory_mb > 0 THEN coalesce((SELECT sum(a.gpu_fraction) "    \
	"FROM allocations a WHERE a.job_id = jobs.id), 0)::bigint "            \
	"* greatest(gpu_devices, 1) "                                          \
	"WHEN whole_node > 0 OR (start_time > 0 AND "                          \
	"strpos(coalesce(workload, ''), ':') > 0) THEN "                      \
	"coalesce((SELECT sum(a.gpus) "                                        \
	"FROM allocations a WHERE a.job_id = jobs.id), 0)::bigint * 1000000 "  \
	"WHEN gpus_per_node > 0 AND ntasks_per_node > 0 THEN "                 \
	"greatest(ntasks, 1)::bigint / ntasks_per_node * gpus_per_node "       \
	"* 1000000 "                                                           \
	"ELSE greatest(ntasks, 1)::bigint * gpus_per_task * 1000000 END)"

/*
 * The halves of the long reads, shared by the blocking calls and
 * db_async.c: the statement with its parameters, and the conversion of
 * its result (caller owns the rows).
 */
int kai_db_jobs_query_sql(struct kai_buf *sql, struct kai_db_params *p,
    const struct kai_query *q, enum kai_db_scope scope,
    uint32_t requester_uid, struct kai_err *err) KAI_MUST_CHECK;
int kai_db_jobs_query_rows(PGresult *res, struct kai_jobinfo **jobs,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;
/* The report's statement (static) with p filled, or NULL and err. */
const char *kai_db_report_sql(struct kai_db_params *p,
    const struct kai_report_req *q, int64_t now, struct kai_err *err);
int kai_db_report_rows(PGresult *res, struct kai_report_row **out, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

const char *kai_db_usage_sql(struct kai_db_params *p, int64_t now,
    int64_t window_s, int64_t half_life_s);
int kai_db_usage_rows(PGresult *res, struct kai_db_usage **out, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/* db_leader.c: takes the lead's lock again (*got: whether it did). */
int kai_db_leader_lock(struct kai_db *db, bool *got, struct kai_err *err)
    KAI_MUST_CHECK;

/* Largest array literal or statement text we build: 64 MiB. */
#define KAI_DB_TEXT_MAX ((size_t)64 * 1024 * 1024)

#endif /* KAI_DB_DB_INTERNAL_H */
