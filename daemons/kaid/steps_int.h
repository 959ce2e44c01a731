/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * steps_int.h: a running job's steps, shared by steps.c (the requests
 * and the agents' events) and steps_acct.c (placement and records).
 */
#ifndef KAID_STEPS_INT_H
#define KAID_STEPS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kaid.h"
#include "proto/proto_step.h"

#define STEPS_MAX 65536 /* steps of one job run: each keeps a few bytes */

struct step {
	uint32_t id;
	int64_t start;		/* unix s */
	char *name;		/* the command's base name (JobName) */
	char *nodelist;
	uint32_t ntasks;
	uint32_t left;		/* tasks not reported yet */
	uint32_t *status;	/* wait status of each task */
	bool *done;
	uint64_t max_rss_kb;	/* the largest task's peak */
	uint64_t sum_rss_kb;	/* the tasks' peaks, for their mean */
	uint64_t cpu_usec;	/* all tasks' CPU */
	bool kill_on_bad_exit;
	bool killed;		/* a SIGKILL event was sent */
	struct kai_step_event *run; /* its RUN event, in the job's log;
				     * NULL for one recovered after a
				     * restart (steps_recover()) */
};

struct step_job {
	uint64_t id;
	uint32_t next_step;	/* SLURM_STEP_ID of the next srun */
	bool ended;		/* the batch script ended */
	bool batch;		/* its N.batch row was written */
	uint32_t run;		/* the job's requeue_count for this run */
	uint64_t epoch;		/* its kaid's (struct steps): seq's high half */
	struct kai_step_event **events; /* the log; seq = index + 1 */
	size_t nevents;
	struct step **steps;	/* steps[i]->id == i */
	size_t nsteps;
	struct step_job *next;
};

/* A step numbered id of ntasks tasks, none reported yet; and its end. */
struct step *step_new(uint32_t id, uint32_t ntasks);
void step_free(struct step *s);
/*
 * The steps of sj's run that job_steps holds, when kaid restarted while
 * the job ran: numbered as they were (the next srun goes on from the
 * last), a RUNNING one waiting for its tasks' reports again, an ended
 * one answering its srun with its recorded status.
 */
void steps_recover(struct kaid *k, struct step_job *sj);
/*
 * Its row in job_steps: at its start (end false) or its end (the worst
 * task's status; CANCELLED when tasks never reported; its usage).
 */
void steps_record(struct kaid *k, uint64_t job, const struct step *s,
    bool end, int64_t now);
/* The batch script's row (N.batch): RUNNING, then state and status. */
void steps_record_batch(struct kaid *k, struct step_job *sj, bool end,
    uint32_t state, uint32_t status);
/*
 * Where r's tasks go among job j's pods: fills ev's pod, node and local
 * arrays, or says why they do not fit (err, Slurm's wording).
 */
int steps_place(const struct kai_job *j, const struct kai_step_req *r,
    struct kai_step_event *ev, struct kai_err *err);
/* The nodes of the step's pods, "a,b" in task order, each once. */
char *steps_nodes(const struct kai_job *j, const struct kai_step_event *ev);

#endif /* KAID_STEPS_INT_H */
