/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * exclusive.c: Slurm's --exclusive, whole nodes for one job.
 *
 * A job marked exclusive never shares a node with another job: its tasks
 * go only on nodes where no task of another job is held (active, or
 * releasing: then the placement is pipelined, as it waits for them), and
 * no other job's task goes on a node where one of its tasks is held.
 * Tasks of the same exclusive job may share a node.  Resources that pods
 * outside the snapshot hold on a node (held_*) belong to other jobs, so an
 * exclusive job does not go there either.
 *
 * The rule is a test in kai_sched_fit_node(), through which every phase
 * places a task (allocate, node groups, consolidation, preempt, reclaim,
 * backfill replays), fed by per-node counts that the two hold() functions
 * (session.c at the start, stmt.c for every change and its undo) keep in
 * step, so a rolled-back trial leaves them exact.  That the job then gets
 * the whole node (all its CPUs, memory and GPUs) is kaid's part: the
 * core only guarantees that nobody else is there.
 */
#include "config.h"

#include "sched/sched_int.h"

void
kai_sched_excl_hold(struct sess *S, uint32_t t, uint32_t node, int32_t sign,
    bool rel)
{
	uint32_t j = kai_sched_task_job(S, t);
	struct snode *nd = &S->nodes[node];
	struct excl_count *c = rel ? &nd->ex_rel : &nd->ex_act;

	c->tasks = (uint32_t)((int32_t)c->tasks + sign);
	if (!S->s->jobs[j].exclusive)
		return;
	c->excl = (uint32_t)((int32_t)c->excl + sign);
	/* Two exclusive jobs' tasks (releasing ones) make the count no
	 * job's own: every job then waits for all of them, until none is
	 * left. */
	if (sign > 0)
		c->job = c->excl > 1 && c->job != j ? UINT32_MAX : j;
	else if (c->excl == 0)
		c->job = 0;
}

/* Tasks of jobs other than j counted in c. */
static uint32_t
others(const struct excl_count *c, uint32_t j, bool j_excl)
{
	return j_excl && c->excl > 0 && c->job == j ? c->tasks - c->excl
						   : c->tasks;
}

bool
kai_sched_excl_ok(const struct sess *S, uint32_t t, uint32_t n,
    bool allow_pipe, bool *wait)
{
	uint32_t j = kai_sched_task_job(S, t);
	const struct snode *nd = &S->nodes[n];
	const struct kai_sched_snap_node *in = &S->s->nodes[n];

	*wait = false;
	if (!S->s->jobs[j].exclusive) {
		if (nd->ex_act.excl > 0)
			return false;
		/* An exclusive job leaving: after it, when pipelining. */
		*wait = nd->ex_rel.excl > 0;
		return !*wait || allow_pipe;
	}
	if (in->held_gpus > 0 || in->held_cpu_millis > 0 ||
	    in->held_memory_mib > 0 || others(&nd->ex_act, j, true) > 0)
		return false;
	*wait = others(&nd->ex_rel, j, true) > 0;
	return !*wait || allow_pipe;
}
