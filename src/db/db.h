/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db.h: kaid's PostgreSQL store (libpq).
 *
 * PostgreSQL is the single source of truth: jobs, allocations, queues and
 * the event log.  Every function here is one transaction; on error it is
 * rolled back and nothing is half-written.  PGresult and PGconn never leave
 * this module: results are converted to the model's structs.
 *
 * The schema is the numbered migrations in sql/, compiled into the binary;
 * kai_db_migrate() applies those the database lacks and refuses a database
 * whose schema is newer than this build knows.
 *
 * Calls are synchronous on a local socket; kaid batches work so that one
 * call serves many requests (group commit of submissions, one transaction
 * per scheduler tick).
 */
#ifndef KAI_DB_DB_H
#define KAI_DB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "model/job.h"
#include "model/jobstate.h"
#include "proto/proto.h"
#include "proto/proto_report.h"

struct kai_db;

/* Connects with a libpq conninfo string.  Caller owns *db. */
int kai_db_open(const char *conninfo, struct kai_db **db, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_db_close(struct kai_db *db);
/*
 * Whether db holds a connection not known to be broken (for readiness:
 * it does no I/O, so a connection lost unnoticed still counts until the
 * next call finds out and reconnects).
 */
bool kai_db_connected(const struct kai_db *db);
/*
 * Connects again when the connection is lost or broken (nothing to do
 * otherwise).  Returns 0 or KAI_EDB; blocks while connecting, as every
 * call of this module does.
 */
int kai_db_reconnect(struct kai_db *db, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Applies missing migrations, each in its own transaction.  Sets *version
 * to the schema version afterwards.  KAI_EDB "database schema version 7 is
 * newer than this kaid (5)" for a newer schema.
 */
int kai_db_migrate(struct kai_db *db, int *version, struct kai_err *err)
    KAI_MUST_CHECK;
/* The newest schema version this build knows. */
int kai_db_schema_version_known(void);

/*
 * Makes sure every configured partition exists as a queue: a missing one
 * (or one deleted with kctl) is created as a top-level queue with the
 * defaults of struct kai_queue, in the order given.  Existing queues are
 * left as they are, settings and place in the tree included.
 */
int kai_db_queues_sync(struct kai_db *db, const char *const *names, size_t n,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Loads every queue (deleted ones excepted) in creation order, each with
 * its number of active (PENDING, CONFIGURING, RUNNING) jobs.  Caller owns
 * *qs (kai_queues_free()).
 */
int kai_db_queues_load(struct kai_db *db, struct kai_queue **qs, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Applies n changes (1 <= n <= KAI_QUEUE_MAX) in ONE transaction, all or
 * nothing, and sets res[i] to what change i did.  The queues table is
 * locked for the transaction, so two appliers never interleave.  Refused,
 * with nothing changed:
 *	KAI_EEXIST	CREATE of a queue that exists
 *	KAI_ENOENT	UPDATE of a queue that does not exist; a parent that
 *			does not exist (nor is created by the batch)
 *	KAI_EINVAL	a value kai_queue_check() refuses; a name listed twice;
 *			a cycle of parents; a parent queue with active jobs
 *			(only leaves hold jobs, so a leaf whose jobs are not
 *			finished cannot be given children); more than
 *			KAI_QUEUE_MAX queues in all
 * Finished jobs do not count: a queue whose jobs have all ended may
 * become a parent, and kacct still shows them under its name.
 */
int kai_db_queue_apply(struct kai_db *db, const struct kai_queue_change *c,
    size_t n, enum kai_queue_result *res, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * Deletes n queues in ONE transaction, all or nothing.  KAI_ENOENT for a
 * queue that does not exist; KAI_EINVAL for one with child queues (that
 * are not deleted with it) or with active jobs.  The row stays, marked
 * deleted, so finished jobs keep their queue; creating the queue again
 * revives it as the youngest queue.
 */
int kai_db_queue_delete(struct kai_db *db, char *const *names, size_t n,
    struct kai_err *err) KAI_MUST_CHECK;

/* A submission, validated and resolved by kaid. */
struct kai_db_newjob {
	const struct kai_jobspec *spec; /* borrowed */
	uint32_t uid;
	uint32_t gid;
	const char *user;
	const char *queue;		/* resolved partition */
	int64_t time_limit_s;		/* resolved: KAI_TIME_UNLIMITED or s */
	uint64_t mem_mb;		/* resolved per-task memory */
	uint32_t priority;
	bool preemptible;		/* resolved from the class */
	int64_t submit_time;		/* unix s */
};

/*
 * Inserts n jobs in ONE transaction (group commit) with an event row each,
 * and sets ids[i].  All or nothing.
 */
int kai_db_jobs_insert(struct kai_db *db, const struct kai_db_newjob *jobs,
    size_t n, uint64_t *ids, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Loads every job that is not terminal (PENDING, CONFIGURING, RUNNING) with
 * its allocations, oldest first.  Caller owns *jobs (kai_job_fini() each,
 * then free()).
 */
int kai_db_jobs_load_active(struct kai_db *db, struct kai_job **jobs,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;

/*
 * The full submission of one job, to build its pods: script, args, env,
 * workdir, output patterns, image.  Caller owns js (kai_jobspec_fini()).
 */
int kai_db_job_spec(struct kai_db *db, uint64_t id, struct kai_jobspec *js,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Long reads (db_async.c), on a connection opened for them alone: the
 * statement is sent at once (or after the ones before it), and the
 * callback runs from kai_db_async_io() once its result is whole, with
 * code 0 and the rows (the callback owns them: kai_jobinfo_fini() each
 * and free(); kai_db_report_free()), or a KAI_E code and err.  A send
 * that returns an error never runs its callback; one that returned 0
 * runs it exactly once, with KAI_EAGAIN when the connection is closed
 * first.
 */
struct kai_report_row;
typedef void kai_db_jobs_fn(int code, const struct kai_err *err,
    struct kai_jobinfo *jobs, size_t n, void *ctx);
typedef void kai_db_report_fn(int code, const struct kai_err *err,
    struct kai_report_row *rows, size_t n, void *ctx);

#define KAI_DB_WANT_READ  0x1
#define KAI_DB_WANT_WRITE 0x2
/* The socket to watch, or -1 when no statement is in flight. */
int kai_db_async_fd(const struct kai_db *db);
/* KAI_DB_WANT_* to watch kai_db_async_fd() for; 0 when none. */
int kai_db_async_wants(const struct kai_db *db);
/*
 * Reads what the server sent, runs the callbacks of finished statements
 * and sends the next.  The socket may change (a reconnection): watch
 * kai_db_async_fd() afresh after every call into this API.
 */
void kai_db_async_io(struct kai_db *db);
/* Requests queued or in flight. */
size_t kai_db_async_pending(const struct kai_db *db);
/* Runs every waiting callback with KAI_EAGAIN (kai_db_close() does). */
void kai_db_async_close(struct kai_db *db);

/*
 * statement_timeout, in ms, of every statement on db's connections from
 * now on, this one and those it reconnects (0 = none): a statement that
 * takes longer fails ("canceling statement due to statement timeout").
 */
int kai_db_set_statement_timeout(struct kai_db *db, int64_t ms,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * The lead among several kaid (db_leader.c).  kai_db_leader_try() takes
 * it if no other kaid holds it (*leads), raising the epoch (the fencing
 * token every later change checks); holder names this kaid for the
 * others' logs.  A leader whose connection had to be reopened and found
 * the lead taken is deposed: every call fails from then on.
 */
int kai_db_leader_try(struct kai_db *db, const char *holder,
    const char *address, int64_t now, bool *leads, struct kai_err *err)
    KAI_MUST_CHECK;
/* Who leads, where clients reach it ("" = unknown), and since which
 * epoch (for a standby's messages and forwarding); caller frees. */
int kai_db_leader_holder(struct kai_db *db, char **holder, char **address,
    int64_t *epoch, struct kai_err *err) KAI_MUST_CHECK;
/* This kaid's epoch; 0 when it does not lead. */
int64_t kai_db_epoch(const struct kai_db *db);
bool kai_db_deposed(const struct kai_db *db);

/* Whose jobs a query may return, whatever it asks (kaid's query_scope()). */
enum kai_db_scope {
	KAI_DB_SCOPE_ALL = 0,	   /* every user's */
	KAI_DB_SCOPE_OWN = 1,	   /* requester_uid's only */
	KAI_DB_SCOPE_OWN_ENDED = 2 /* every user's active jobs, and
				      requester_uid's finished ones */
};

/*
 * Answers kqueue and kacct with the jobs matching q, narrowed to scope
 * (so the scope can only narrow the answer).  Results are ordered by id.
 * Caller owns *jobs (kai_jobinfo_fini() each, then free()).
 */
int kai_db_jobs_query(struct kai_db *db, const struct kai_query *q,
    enum kai_db_scope scope, uint32_t requester_uid,
    struct kai_jobinfo **jobs, size_t *n, struct kai_err *err) KAI_MUST_CHECK;
/* kai_db_jobs_query() with db_async.c: fn gets the jobs. */
int kai_db_jobs_query_send(struct kai_db *db, const struct kai_query *q,
    enum kai_db_scope scope, uint32_t requester_uid, kai_db_jobs_fn *fn,
    void *ctx, struct kai_err *err) KAI_MUST_CHECK;

/*
 * One state change, or a resize.  Applied only if the job is still in
 * state `from` (optimistic check); every applied change writes an event
 * row with the time, both states, the reason and the actor uid (-1 =
 * kaid itself).  A resize (an elastic job grows or shrinks) keeps the
 * state: from == to, and its event row says so.
 */
struct kai_db_change {
	uint64_t id;
	enum kai_job_state from;
	enum kai_job_state to;
	bool resize;		/* to == from: only the placement changes */
	const char *reason;	/* borrowed; "" = none */
	int64_t time;		/* unix s of the change */
	int64_t actor_uid;	/* uid of the requester, -1 for kaid */
	bool set_start;		/* start_time = time */
	bool set_end;		/* end_time = time */
	bool set_exit;		/* exit_code / exit_signal below */
	int32_t exit_code;
	int32_t exit_signal;
	const char *exit_reason; /* with set_exit; NULL = "" */
	const char *nodelist;	/* NULL = unchanged */
	const struct kai_alloc *allocs; /* to insert (PENDING -> CONFIGURING) */
	size_t nallocs;
	bool drop_allocs;	/* delete allocations (back to PENDING) */
	uint32_t keep_allocs;	/* with drop_allocs: keep tasks below this */
};

/*
 * Applies n changes in ONE transaction.  applied[i] tells whether change i
 * found its job in `from` (false: someone else moved it first; not an
 * error).  applied may be NULL.  This is where every job state change of
 * kaid is written, and each is checked first against the transition
 * table (kai_jobstate_can_move(); a resize: kai_jobstate_can_resize() and
 * to == from): one that is not there is a bug in kaid, refused with
 * KAI_EINTERNAL naming the job and both states, and nothing is applied.
 */
int kai_db_jobs_change(struct kai_db *db, const struct kai_db_change *c,
    size_t n, bool *applied, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Cancels n active jobs in ONE statement (kcancel -u of 50,000 jobs is
 * one UPDATE and one INSERT ... SELECT, not 50,000 of each): every job
 * ids[i] still in state from[i] becomes `to` with end_time = time (and
 * start_time = time when it had left PENDING without one), exit 0 and
 * signal signals[i], and gets an event row (from, to, reason, actor).
 * applied[i] (may be NULL) tells which jobs were found in their state.
 * Nothing changes when it fails; a move the transition table does not
 * have is KAI_EINTERNAL, as for kai_db_jobs_change().
 */
struct kai_db_cancel {
	const uint64_t *ids;
	const enum kai_job_state *from;
	const uint32_t *signals;	/* exit_signal of each job */
	size_t n;
	enum kai_job_state to;		/* KAI_JOB_CANCELLED */
	const char *reason;
	int64_t time;
	int64_t actor_uid;
};
int kai_db_jobs_cancel(struct kai_db *db, const struct kai_db_cancel *c,
    bool *applied, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Sets the pending reason of jobs, as Slurm's code (reasons[i]) and as a
 * sentence (whys[i]), without an event row (reasons change every tick;
 * they are not state changes).
 */
int kai_db_jobs_set_reason(struct kai_db *db, const uint64_t *ids,
    const char *const *reasons, const char *const *whys, size_t n,
    struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * A change to a PENDING job that keeps it pending (kctl hold, release,
 * update job): applied only while the job is still PENDING, with an event
 * row (PENDING -> PENDING, the event text, the actor) in the same
 * statement.  *applied is false when the job had left PENDING.
 */
/*
 * Job mail (db_mail.c).  kai_db_mail_claim() sets bit in job id's
 * mail_sent unless it was set; *claimed says whether this call set it,
 * so that a notice goes once whoever leads.
 */
int kai_db_mail_claim(struct kai_db *db, uint64_t id, uint32_t bit,
    bool *claimed, struct kai_err *err) KAI_MUST_CHECK;
/* An array's tasks as its summary notice tells them. */
struct kai_db_mail_array {
	uint32_t active;	/* tasks not ended (the rest pending too) */
	int32_t exit_min;	/* smallest and largest exit codes */
	int32_t exit_max;
	int32_t signal_max;	/* largest signal; 0 = none */
	bool requeued;		/* a task was requeued */
	uint32_t not_completed;	/* tasks that ended other than COMPLETED */
};
int kai_db_mail_array(struct kai_db *db, uint64_t array_id,
    struct kai_db_mail_array *a, struct kai_err *err) KAI_MUST_CHECK;

struct kai_db_jobedit {
	uint64_t id;
	int64_t time;		/* unix s, for the event */
	int64_t actor_uid;
	bool set_hold;		/* hold and priority below */
	bool hold;
	uint32_t priority;
	bool set_time_limit;
	int64_t time_limit_s;
	const char *queue;	/* NULL = unchanged */
	const char *reason;	/* the stored pending reason; NULL = unchanged */
	const char *mail_type;	/* NULL = unchanged */
	const char *mail_user;	/* NULL = unchanged */
	const char *event;	/* what changed, for the event row */
};
int kai_db_job_edit(struct kai_db *db, const struct kai_db_jobedit *e,
    bool *applied, struct kai_err *err) KAI_MUST_CHECK;
/*
 * db_jobsize.c: pending job id's sizes per task become at least those
 * given (each only grows); *applied is false when the job is no longer
 * PENDING.
 */
int kai_db_job_grow(struct kai_db *db, uint64_t id, uint32_t cpus_per_task,
    uint64_t mem_mb, uint32_t gpus_per_task, bool *applied,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Job steps (db_steps.c, sql/017-job-steps.sql): a step started (job,
 * step, name, ntasks, nodelist, start) and ended (state, exit_status,
 * end); the recorded steps of ids, of uid's jobs only unless uid < 0.
 * Caller frees *v with kai_step_info_free().
 */
struct kai_step_info;
int kai_db_step_start(struct kai_db *db, const struct kai_step_info *s,
    struct kai_err *err) KAI_MUST_CHECK;
int kai_db_step_end(struct kai_db *db, const struct kai_step_info *s,
    struct kai_err *err) KAI_MUST_CHECK;
int kai_db_steps_load(struct kai_db *db, const uint64_t *ids, size_t n,
    int64_t uid, struct kai_step_info **v, size_t *nv,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * The decayed usage of the jobs that ran and ended within window_s
 * before now, per queue and user (src/sched/decay.h: half-life 0 = no
 * decay).  One aggregate over a range of end_time; running jobs are the
 * caller's to add.  Caller owns *u (kai_db_usage_free()).
 */
struct kai_db_usage {
	char *queue;
	char *user;
	int64_t gpu;	/* decayed micro-GPU-seconds */
	int64_t cpu;	/* decayed millicore-seconds */
	int64_t mem;	/* decayed MiB-seconds */
};
int kai_db_usage_load(struct kai_db *db, int64_t now, int64_t window_s,
    int64_t half_life_s, struct kai_db_usage **u, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_db_usage_free(struct kai_db_usage *u, size_t n);
/* kai_db_usage_load() with db_async.c: fn gets the rows. */
typedef void kai_db_usage_fn(int code, const struct kai_err *err,
    struct kai_db_usage *rows, size_t n, void *ctx);
int kai_db_usage_send(struct kai_db *db, int64_t now, int64_t window_s,
    int64_t half_life_s, kai_db_usage_fn *fn, void *ctx,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * kacct --report: one row per (queue, user) over [q->start, q->end), with
 * q's filters (db_report.c says what counts).  now ends the runs of the
 * jobs still running.  Caller owns *v (kai_db_report_free()).
 */
int kai_db_report(struct kai_db *db, const struct kai_report_req *q,
    int64_t now, struct kai_report_row **v, size_t *n, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_db_report_free(struct kai_report_row *v, size_t n);
/* kai_db_report() with db_async.c: fn gets the rows. */
int kai_db_report_send(struct kai_db *db, const struct kai_report_req *q,
    int64_t now, kai_db_report_fn *fn, void *ctx, struct kai_err *err)
    KAI_MUST_CHECK;

#endif /* KAI_DB_DB_H */
