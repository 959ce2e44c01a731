/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched.h: the scheduler core.  Pure: a snapshot and `now` go in,
 * decisions with reasons come out; no I/O, no clock, no randomness.
 *
 * kaid's tick builds struct kai_sched_input from its caches (free capacity
 * per node after every pod that holds resources, and the pending jobs),
 * calls kai_sched_plan(), commits the placements to PostgreSQL and only
 * then creates pods.  The input is borrowed and not changed; the output
 * owns its arrays (kai_sched_output_fini()).
 *
 * This first policy: jobs by priority (higher first), then submit time,
 * then id; each job all-or-nothing over its tasks (one pod per task);
 * whole GPUs, CPU and memory; tasks bin-packed onto the node that leaves
 * the least free GPUs, then CPU.  A job that does not fit leaves its
 * resources to later jobs (no reservation yet).
 */
#ifndef KAI_SCHED_SCHED_H
#define KAI_SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kai_sched_node {
	const char *name;
	int64_t cpu_free_milli;	/* allocatable minus what pods hold */
	uint64_t mem_free_mb;
	uint32_t gpus_free;
	uint32_t gpus_total;
	bool schedulable;	/* Ready and not cordoned */
};

struct kai_sched_job {
	uint64_t id;
	uint32_t priority;
	int64_t submit_time;
	uint32_t ntasks;
	int64_t cpu_milli;	/* per task */
	uint64_t mem_mb;	/* per task */
	uint32_t gpus;		/* per task */
	bool hold;
};

struct kai_sched_input {
	const struct kai_sched_node *nodes;
	size_t nnodes;
	const struct kai_sched_job *jobs; /* pending jobs, any order */
	size_t njobs;
	int64_t now;		/* unix s */
};

enum kai_sched_reason {
	KAI_SCHED_PLACED = 0,
	KAI_SCHED_WAIT_HELD,	    /* JobHeldUser */
	KAI_SCHED_WAIT_RESOURCES,   /* highest job that did not fit */
	KAI_SCHED_WAIT_PRIORITY,    /* a higher-priority job waits first */
	KAI_SCHED_WAIT_NEVER_FITS,  /* no node has that many GPUs */
	KAI_SCHED_WAIT_NO_NODES     /* no schedulable node at all */
};

struct kai_sched_decision {
	uint64_t job_id;
	enum kai_sched_reason reason;
	uint32_t *task_node;	/* placed: node index per task; else NULL */
	uint32_t ntasks;
};

struct kai_sched_output {
	struct kai_sched_decision *decisions; /* one per job, in plan order */
	size_t n;
	size_t nplaced;
};

/* Plans one tick.  Never fails; out is initialised here. */
void kai_sched_plan(const struct kai_sched_input *in,
    struct kai_sched_output *out);
void kai_sched_output_fini(struct kai_sched_output *out);

/*
 * The user-facing pending reason, in Slurm's vocabulary ("Resources",
 * "Priority", "JobHeldUser", ...), static.
 */
const char *kai_sched_reason_name(enum kai_sched_reason r);

#endif /* KAI_SCHED_SCHED_H */
