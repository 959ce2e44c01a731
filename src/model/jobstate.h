/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobstate.h: the job state machine, with Slurm's names and codes.
 *
 * One table (jobstate.c) gives every state its long name, its squeue code
 * and whether it is terminal, and lists the transitions that are allowed;
 * kaid refuses any other transition as a bug: kai_db_jobs_change(), which
 * writes every state change and its event row, checks each against this
 * table, and kaid's cache moves only through state_job_move().  The numeric values travel on
 * the wire and are stored in PostgreSQL as the long name: append only.
 */
#ifndef KAI_MODEL_JOBSTATE_H
#define KAI_MODEL_JOBSTATE_H

#include <stdbool.h>
#include <stdint.h>

enum kai_job_state {
	KAI_JOB_PENDING = 0,	   /* PD: waiting for resources or a hold */
	KAI_JOB_CONFIGURING = 1,   /* CF: placed, pods being created */
	KAI_JOB_RUNNING = 2,	   /* R */
	KAI_JOB_COMPLETED = 3,	   /* CD: every task exited 0 */
	KAI_JOB_FAILED = 4,	   /* F: non-zero exit or signal */
	KAI_JOB_CANCELLED = 5,	   /* CA: kcancel */
	KAI_JOB_TIMEOUT = 6,	   /* TO: time limit reached */
	KAI_JOB_PREEMPTED = 7,	   /* PR: evicted and not requeued */
	KAI_JOB_NODE_FAIL = 8,	   /* NF: its node went away */
	KAI_JOB_OUT_OF_MEMORY = 9, /* OOM: a container was OOM-killed */
	KAI_JOB_REQUEUED = 10,	   /* RQ: an earlier run of a requeued job,
				    * as kacct -D shows it; never a job's
				    * state (no move goes to it) */
	KAI_JOB_NSTATES = 11
};

/* Bit for a state in a state mask (query filters). */
#define KAI_JOB_STATE_BIT(s) (UINT32_C(1) << (s))
/* PD, CF and R: what kqueue shows by default. */
#define KAI_JOB_STATES_ACTIVE                                              \
	(KAI_JOB_STATE_BIT(KAI_JOB_PENDING) |                              \
	    KAI_JOB_STATE_BIT(KAI_JOB_CONFIGURING) |                       \
	    KAI_JOB_STATE_BIT(KAI_JOB_RUNNING))
#define KAI_JOB_STATES_ALL ((UINT32_C(1) << KAI_JOB_NSTATES) - 1)

/* "PENDING", ...; "UNKNOWN" for an out-of-range value. */
const char *kai_jobstate_name(enum kai_job_state s);
/* "PD", "R", "CD", ...; "??" for an out-of-range value. */
const char *kai_jobstate_code(enum kai_job_state s);
bool kai_jobstate_is_terminal(enum kai_job_state s);
/* Whether from -> to is in the transition table. */
bool kai_jobstate_can_move(enum kai_job_state from, enum kai_job_state to);
/*
 * Whether a job in state s may be resized, its state kept while its
 * placement changes (an elastic job grows or shrinks): CONFIGURING and
 * RUNNING.  A resize is not a state change; s -> s is in no table.
 */
bool kai_jobstate_can_resize(enum kai_job_state s);
/*
 * Parses a long name or a code, case-insensitive ("pending", "PD", "r").
 * Returns 0 and sets *out, or -1 when the name is not a state.
 */
int kai_jobstate_parse(const char *s, enum kai_job_state *out);

#endif /* KAI_MODEL_JOBSTATE_H */
