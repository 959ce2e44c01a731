/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * closed.c: which leaf queues the allocate phase cannot place anything
 * from (doc/scheduler.md, "Incremental cycles: the decisions").
 *
 * A leaf is closed when every pending job it wants placed has a next
 * step that cannot fit the idle capacity of the cluster, by a bound
 * that reads the job's step and a few totals: a whole-GPU task asks for
 * more GPUs than any schedulable node has idle, a task asks for more
 * CPU or memory than any node has idle, or the step together asks for
 * more GPU, CPU or memory than all schedulable nodes have idle.  Every
 * figure is a lower bound of what the task needs on any node (a
 * fraction by GPU memory counts on the node with the largest GPUs), so
 * a closed verdict is never wrong; pools, GPU types and topology only
 * narrow the nodes further.  Within the allocate phase idle capacity
 * only shrinks, so a leaf closed at its start stays closed to its end.
 *
 * No leaf is closed while anything is releasing (a step could be
 * pipelined onto it).  With backfill reservations (S->bf_on) the closed
 * leaves stay in the allocation order until no more reservations can be
 * handed out (allocate.c): they are handed out in that order.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

/* The idle capacity the bound compares with. */
struct idle {
	int64_t sum[NRES];  /* over schedulable nodes; BIG: untracked */
	int64_t most[NRES]; /* on one node: whole GPUs (count), CPU, memory */
	int32_t room;       /* largest room on a shared device */
};

static int64_t
add_capped(int64_t a, int64_t b)
{
	return a >= BIG - b ? BIG : a + b;
}

static void
idle_init(const struct sess *S, struct idle *I)
{
	uint32_t n;
	int r;

	memset(I, 0, sizeof(*I));
	I->sum[R_GPU] = S->idle_ugpu;
	for (n = 0; n < S->nn; n++) {
		const struct snode *nd = &S->nodes[n];

		if (!nd->ok)
			continue;
		if ((int64_t)nd->whole_idle > I->most[R_GPU])
			I->most[R_GPU] = nd->whole_idle;
		if (nd->room > I->room)
			I->room = nd->room;
		for (r = R_CPU; r < NRES; r++) {
			int64_t free = nd->cap[r] >= BIG
			    ? BIG
			    : nd->cap[r] - nd->alloc[r] - nd->rel[r];

			I->sum[r] = add_capped(I->sum[r], free);
			if (free > I->most[r])
				I->most[r] = free;
		}
	}
}

/* The least GPU task t can take on any node, in micro-GPUs. */
static int64_t
least_ugpu(const struct sess *S, const struct kai_sched_snap_task *in)
{
	if (in->gpus > 0)
		return (int64_t)in->gpus * GPU_UNIT;
	if (in->gpu_fraction > 0)
		return in->gpu_fraction;
	if (in->gpu_memory_mib > 0)
		return S->max_gmem > 0 ? ((int64_t)in->gpu_memory_mib * GPU_UNIT +
					     S->max_gmem - 1) / S->max_gmem
				       : 1;
	return 0;
}

/* One task fits no node's idle capacity. */
static bool
task_hopeless(const struct idle *I, const struct kai_sched_snap_task *in,
    int64_t ugpu)
{
	if (in->gpus > 0 && (int64_t)in->gpus > I->most[R_GPU])
		return true;
	/* A fraction needs an idle device or a shared one with room. */
	if (in->gpus == 0 && ugpu > 0 && I->most[R_GPU] == 0 && ugpu > I->room)
		return true;
	return in->cpu_millis > I->most[R_CPU] ||
	    in->memory_mib > I->most[R_MEM];
}

/* j's next step cannot be placed on the idle capacity I. */
static bool
job_hopeless(const struct sess *S, const struct idle *I, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t need = kai_sched_step(S, j)->sn, n = 0;
	int64_t sum[NRES] = {0, 0, 0};
	size_t t;
	int r;

	for (t = J->first_task; n < need && t < J->first_task + J->ntasks;
	     t++) {
		const struct kai_sched_snap_task *in = &S->s->tasks[t];
		int64_t u;

		if (S->tasks[t].state != KAI_SCHED_TASK_PENDING)
			continue;
		u = least_ugpu(S, in);
		if (task_hopeless(I, in, u))
			return true;
		sum[R_GPU] += u * kai_sched_task_ndev(in); /* on each device */
		sum[R_CPU] += in->cpu_millis;
		sum[R_MEM] += in->memory_mib;
		n++;
	}
	for (r = 0; r < NRES; r++)
		if (sum[r] > I->sum[r])
			return true;
	return false;
}

void
kai_sched_closed_leaves(struct sess *S, kai_sched_want_fn *want,
    uint32_t *nclosed, uint32_t *nopen)
{
	struct idle I;
	uint32_t j, q;

	memset(S->closed, 0, S->nq);
	*nclosed = 0;
	*nopen = 1; /* not counted: some, as far as the caller knows */
	S->closed_rel = kai_sched_releasing(S);
	if (S->closed_rel)
		return;
	*nopen = 0;
	idle_init(S, &I);
	/* 1: a leaf with a job to place; 2: ... and one that might fit. */
	for (j = 0; j < S->s->njobs; j++) {
		uint8_t *c = &S->closed[S->jobs[j].queue];

		if (*c == 2 || !want(S, j))
			continue;
		*c = job_hopeless(S, &I, j) ? 1 : 2;
	}
	for (q = 0; q < S->nq; q++) {
		*nopen += S->closed[q] == 2;
		S->closed[q] = S->closed[q] == 1;
		*nclosed += S->closed[q];
	}
}
