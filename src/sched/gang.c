/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gang.c: one step of a job, all or nothing.
 *
 * A job's first step is its gang: enough pending tasks to reach
 * min_tasks, placed together or not at all.  Once a job runs at its
 * minimum, every further step is one elastic task, so the scheduler
 * grows elastic jobs one task per turn and interleaves them with other
 * jobs (KAI pushes an elastic job back after each step).  Tasks are taken
 * in index order.
 *
 * kai_sched_try_step() is the unit every phase uses: admission, cheap
 * fail-fast tests, then placement (through the topology when the job has
 * one), rolled back on failure with a reason that says what was missing.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

uint32_t
kai_sched_step_tasks(const struct sess *S, uint32_t j, uint32_t *out,
    bool *short_gang)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct sjob *sj = &S->jobs[j];
	uint32_t need = sj->min > sj->nactive ? sj->min - sj->nactive : 0,
		 n = 0;
	size_t t;

	if (kai_sched_tree(S, j) != NULL)
		return kai_sched_sg_step(S, j, out, short_gang);
	*short_gang = need > sj->npending;
	if (need == 0)
		need = sj->npending > 0 ? 1 : 0;
	for (t = J->first_task; n < need && t < J->first_task + J->ntasks; t++)
		if (S->tasks[t].state == KAI_SCHED_TASK_PENDING)
			out[n++] = (uint32_t)t;
	return n;
}

/*
 * The next step's tasks, request and shape, in one pass over the job's
 * tasks (the step is what kai_sched_step_tasks() returns).
 */
static void
step_compute(const struct sess *S, uint32_t j, struct sjob *sj)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct kai_sched_snap_task *prev = NULL;
	uint32_t need = sj->min > sj->nactive ? sj->min - sj->nactive : 1,
		 run = 0;
	int64_t v[NRES];
	size_t t;
	int r;

	const uint32_t *list = NULL;
	uint32_t nlist = 0, i = 0;
	bool shortg;

	memset(sj->sreq, 0, sizeof(sj->sreq));
	sj->sn = 0;
	kai_sched_shape_start(sj, J);
	if (S->gt != NULL)
		kai_sched_shape_mix(sj, kai_sched_type_salt(S, j));
	/* A subgroup tree says which tasks: the step's, in its order. */
	if (kai_sched_tree(S, j) != NULL) {
		list = kai_sched_sg_buf(S);
		nlist = kai_sched_sg_step(S, j, kai_sched_sg_buf(S), &shortg);
		need = nlist;
	}
	for (t = list != NULL ? (nlist > 0 ? list[0] : 0) : J->first_task;
	     sj->sn < need && t < J->first_task + J->ntasks;
	     t = list != NULL ? (++i < nlist ? list[i] : SIZE_MAX) : t + 1) {
		const struct kai_sched_snap_task *k = &S->s->tasks[t];

		if (S->tasks[t].state != KAI_SCHED_TASK_PENDING)
			continue;
		kai_sched_task_req(S, (uint32_t)t, v);
		for (r = 0; r < NRES; r++)
			sj->sreq[r] += v[r];
		sj->sn++;
		/* A gang's tasks are mostly alike: a run of equal
		 * requests goes into the shape once, with its length. */
		if (prev != NULL && kai_sched_same_request(prev, k)) {
			run++;
			continue;
		}
		if (prev != NULL)
			kai_sched_shape_add(sj, prev, run);
		prev = k;
		run = 1;
	}
	if (prev != NULL)
		kai_sched_shape_add(sj, prev, run);
}

/*
 * The step of j, cached per job: queue keys, admission and the memo ask
 * for it again and again; stmt.c drops the cache when j's tasks change.
 */
const struct sjob *
kai_sched_step(const struct sess *S, uint32_t j)
{
	struct sjob *sj = &S->jobs[j];

	if (!sj->sreq_ok) {
		step_compute(S, j, sj);
		sj->sreq_ok = true;
	}
	return sj;
}

/* The request of j's next step (GPU memory by the smallest GPU). */
void
kai_sched_step_req(const struct sess *S, uint32_t j, int64_t req[NRES])
{
	memcpy(req, kai_sched_step(S, j)->sreq, sizeof(req[0]) * NRES);
}

/* 0: below its minimum, 1: at it, 2: above (elastic tasks running). */
uint32_t
kai_sched_elastic_state(const struct sess *S, uint32_t j)
{
	const struct sjob *sj = &S->jobs[j];

	if (sj->nactive < sj->min)
		return 0;
	return sj->nactive == sj->min ? 1 : 2;
}

static void
why_resources(const struct sess *S, uint32_t t, struct kai_sched_why_info *w)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	kai_sched_why_clear(w);
	w->why = KAI_SCHED_WHY_RESOURCES;
	if (in->gpus > 0) {
		w->res = R_GPU;
		w->a = in->gpus;
		w->b = kai_sched_pool_most_idle(S, t);
	} else if (in->gpu_fraction > 0 || in->gpu_memory_mib > 0) {
		w->res = R_GPU;
		w->c = kai_sched_task_ndev(in);
		w->a = in->gpu_fraction > 0 ? in->gpu_fraction
					    : in->gpu_memory_mib;
		w->b = in->gpu_fraction > 0 ? 0 : 1; /* 1: a is MiB */
	} else {
		w->res =
		    in->cpu_millis > 0 || in->memory_mib == 0 ? R_CPU : R_MEM;
		w->a = w->res == R_CPU ? in->cpu_millis : in->memory_mib;
	}
	/* The figures above count nodes other jobs hold (exclusive.c). */
	if (S->s->jobs[kai_sched_task_job(S, t)].exclusive)
		w->why = KAI_SCHED_WHY_EXCLUSIVE;
}

static void
why_gang(struct kai_sched_why_info *w, int64_t need, int64_t fit, int64_t c)
{
	kai_sched_why_clear(w);
	w->why = KAI_SCHED_WHY_GANG;
	w->a = need;
	w->b = fit;
	w->c = c;
}

/*
 * How many of the step's whole-GPU tasks could fit on idle GPUs if CPU
 * and memory were no object: an upper bound from the index's bucket
 * counts, O(max GPUs per node).  -1 when the step is not uniform.
 */
static int64_t
gang_bound(const struct sess *S, const uint32_t *tasks, uint32_t n)
{
	uint32_t k = S->s->tasks[tasks[0]].gpus, i, b;
	int64_t fit = 0;

	if (k == 0)
		return -1;
	for (i = 1; i < n; i++)
		if (S->s->tasks[tasks[i]].gpus != k)
			return -1;
	for (b = k; b < S->idx.nb; b++)
		fit += (int64_t)S->idx.count[b] * (b / k);
	return fit;
}

static bool
place_plain(struct sess *S, const uint32_t *tasks, uint32_t n, bool pipe,
    struct kai_sched_why_info *why)
{
	size_t mark = kai_sched_mark(S);
	struct kai_sched_choice c;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!kai_sched_choose(S, tasks[i], NULL, 0, NULL, pipe, &c)) {
			kai_sched_rollback(S, mark);
			if (i > 0)
				why_gang(why, n, i, 0);
			else
				why_resources(S, tasks[i], why);
			return false;
		}
		kai_sched_place(S, tasks[i], (uint32_t)c.node, c.mask, c.ugpu,
		    c.pipelined);
	}
	return true;
}

static bool
try_step(struct sess *S, uint32_t j, bool allow_pipe,
    struct kai_sched_why_info *why)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct sjob *sj = &S->jobs[j];
	uint32_t *tasks = S->scratch_tasks, n;
	bool short_gang;
	int64_t fit;

	kai_sched_bf_job(S, j, S->bf_clock); /* how long it would hold */
	n = kai_sched_step_tasks(S, j, tasks, &short_gang);
	if (short_gang && kai_sched_tree(S, j) != NULL) {
		kai_sched_sg_short_why(S, j, why);
		return false;
	}
	if (short_gang) {
		why_gang(why, sj->min, sj->nactive + sj->npending, 1);
		return false;
	}
	if (n == 0 || !kai_sched_admit(S, j, why))
		return false;
	if (kai_sched_tree(S, j) != NULL)
		return kai_sched_sg_place(S, j, allow_pipe, why);
	/* Fail fast, without touching a node, when idle GPUs cannot do. */
	if (!(allow_pipe && S->nrel > 0) &&
	    (fit = gang_bound(S, tasks, n)) >= 0 && fit < n) {
		if (fit == 0)
			why_resources(S, tasks[0], why);
		else
			why_gang(why, n, fit, 0);
		return false;
	}
	if (J->tasks_per_node > 0)
		return kai_sched_place_groups(S, j, allow_pipe, why);
	if (J->topology < 0)
		return place_plain(S, tasks, n, allow_pipe, why);
	kai_sched_why_clear(why);
	if (kai_sched_topo_place(S, j, tasks, n, allow_pipe, why))
		return true;
	if (why->why == KAI_SCHED_WHY_NONE)
		why_resources(S, tasks[0], why);
	return false;
}

/*
 * A job of a matching OR ([a|b]) that starts tries the alternatives in
 * order, each on its own, and keeps the first that fits: all its nodes
 * then have the same features (nodereq.c).  The reason is the first
 * alternative's.
 */
bool
kai_sched_try_step(struct sess *S, uint32_t j, bool allow_pipe,
    struct kai_sched_why_info *why)
{
	struct kai_sched_why_info w;
	uint32_t n = kai_sched_nodereq_starts(S, j), a;
	bool ok = false;

	if (n == 0)
		return try_step(S, j, allow_pipe, why);
	for (a = 0; a < n && !ok; a++) {
		kai_sched_nodereq_try(S, j, (int32_t)a);
		ok = try_step(S, j, allow_pipe, a == 0 ? why : &w);
	}
	kai_sched_nodereq_try(S, j, -1);
	return ok;
}

/*
 * A phase that has no way to help job j (no victims, over its share)
 * still owes it a reason when no earlier phase gave one, as when the
 * allocate phase is not run: try it as allocate would, keeping the
 * placement if it fits after all.
 */
void
kai_sched_untried(struct sess *S, uint32_t j)
{
	struct kai_sched_why_info w;

	if (S->r->jobs[j].why.why != KAI_SCHED_WHY_NONE)
		return;
	kai_sched_why_clear(&w);
	if (kai_sched_try_step(S, j, true, &w))
		kai_sched_commit(S);
	else
		kai_sched_set_why(S, j, &w, false);
}
