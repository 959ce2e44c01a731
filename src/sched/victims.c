/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * victims.c: the eviction solver shared by reclaim and preempt.
 *
 * A phase hands the solver a pending job and a generator that yields
 * victims one at a time, best first (the generator knows the phase's
 * rules and re-orders after every eviction).  The solver tries the job's
 * step; while it does not fit it evicts the next victim and tries again,
 * so the set is the shortest prefix of the victim order that works.  It
 * then drops, from the newest back, every victim the job turns out not to
 * need (a victim on a node the job did not use), which gives the smallest
 * set that works without searching all subsets.  Evicted resources stay
 * "releasing", so the job is pipelined onto them.
 *
 * A unit of eviction is one elastic task (a task above the job's
 * min_tasks, highest index first) or the job's whole core: a gang is
 * never cut below its minimum, and min-runtime protection guards the
 * core only, as in KAI.  Jobs placed or evicted earlier in this cycle are
 * never victims, so a cycle cannot undo its own decisions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

#define MINIMIZE_MAX 32 /* victims beyond this are not minimised */

struct vkey {
	int64_t prio, created;
	uint32_t j;
};

/* Victim order inside a queue: lowest priority, then newest. */
static int
vkey_cmp(const void *a, const void *b)
{
	const struct vkey *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	if (x->created != y->created)
		return x->created > y->created ? -1 : 1;
	return x->j > y->j ? -1 : x->j < y->j;
}

/* The session's entry only: preemptible is copied there (sess_jobs.c). */
static bool
candidate(const struct sess *S, uint32_t j)
{
	const struct sjob *sj = &S->jobs[j];

	return sj->nactive > 0 && sj->nplaced == 0 && sj->nevicted == 0 &&
	    sj->nmoved == 0 && sj->preemptible;
}

/* The jobs with an active task, in index order, in an array to free(). */
static uint32_t *
active_jobs(const struct sess *S, uint32_t *n)
{
	uint32_t nj = (uint32_t)S->s->njobs, j, k = 0, cap = 1024;
	uint32_t *a = kai_xmalloc(cap * sizeof(*a));

	for (j = 0; j < nj; j++) {
		if (S->jobs[j].nactive == 0)
			continue;
		if (k == cap) {
			cap *= 2;
			a = kai_xreallocarray(a, cap, sizeof(*a));
		}
		a[k++] = j;
	}
	*n = k;
	return a;
}

/* Per leaf queue, the candidates among js[0..n) in victim order. */
static void
build(struct sess *S, const uint32_t *js, uint32_t n)
{
	uint32_t i, q;
	struct vkey *v;
	uint32_t *fill;

	kai_sched_free(S->ctx, S->vjobs);
	kai_sched_free(S->ctx, S->vstart);
	S->vstart = kai_sched_calloc(S->ctx, S->nq + 2, sizeof(*S->vstart));
	for (i = 0; i < n; i++)
		if (candidate(S, js[i]))
			S->vstart[S->jobs[js[i]].queue + 1]++;
	for (q = 0; q < S->nq; q++)
		S->vstart[q + 1] += S->vstart[q];
	/* Sized by the running candidates, not the jobs: at a million
	 * pending jobs that is 28 MiB less.  The running jobs follow the
	 * victims when they are a list for the rest of the cycle. */
	v = kai_sched_calloc(S->ctx, S->vstart[S->nq] + 1, sizeof(*v));
	S->vjobs = kai_sched_calloc(S->ctx,
	    S->vstart[S->nq] + (S->nlog == 0 ? n : 0) + 1, sizeof(*S->vjobs));
	S->vact = NULL;
	S->nvact = 0;
	if (S->nlog == 0) {
		S->vact = S->vjobs + S->vstart[S->nq];
		S->nvact = n;
		if (n > 0) /* js may be NULL then */
			memcpy(S->vact, js, n * sizeof(*js));
	}
	fill = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*fill));
	for (i = 0; i < n; i++) {
		uint32_t j = js[i], at;

		if (!candidate(S, j))
			continue;
		q = S->jobs[j].queue;
		at = S->vstart[q] + fill[q]++;
		v[at].prio = S->s->jobs[j].priority;
		v[at].created = S->s->jobs[j].created;
		v[at].j = j;
	}
	for (q = 0; q < S->nq; q++)
		qsort(v + S->vstart[q], S->vstart[q + 1] - S->vstart[q],
		    sizeof(*v), vkey_cmp);
	for (i = 0; i < S->vstart[S->nq]; i++)
		S->vjobs[i] = v[i].j;
	kai_sched_free(S->ctx, fill);
	kai_sched_free(S->ctx, v);
}

/*
 * The kept lists less the jobs that are no longer victims.  A job only
 * stops being one: placing a task of it, evicting one or moving one
 * sets a count candidate() wants at 0, nothing sets preemptible, and a
 * rollback goes back to a state after the lists were built, as they
 * were built with nothing uncommitted.  So the victims now are the
 * kept ones still candidates, and their keys (priority, creation,
 * index) have not changed: the order is the one a new build would
 * sort, without a pass over every job.
 */
static void
filter(struct sess *S)
{
	uint32_t q, i, w = 0, from = 0;

	for (q = 0; q < S->nq; q++) {
		uint32_t end = S->vstart[q + 1];

		S->vstart[q] = w;
		for (i = from; i < end; i++)
			if (candidate(S, S->vjobs[i]))
				S->vjobs[w++] = S->vjobs[i];
		from = end;
	}
	S->vstart[S->nq] = w;
}

/* Per leaf queue, the preemptible running jobs in victim order. */
void
kai_sched_victims_build(struct sess *S)
{
	uint32_t *act, n;

	if (S->vkept) {
		filter(S);
		S->vkept = S->nlog == 0;
		return;
	}
	act = active_jobs(S, &n);
	kai_sched_victims_build_from(S, act, n);
	free(act);
}

void
kai_sched_victims_build_from(struct sess *S, const uint32_t *act, uint32_t n)
{
	if (S->vkept)
		filter(S);
	else
		build(S, act, n);
	S->vkept = S->nlog == 0;
}

uint32_t
kai_sched_want_pass(struct sess *S, kai_sched_want_fn *want, bool victims,
    uint32_t **wanted)
{
	uint32_t nj = (uint32_t)S->s->njobs, j, k = 0, cap = 0, nw = 0;
	uint32_t *act = NULL, *w;
	bool collect = victims && !S->vkept;

	if (victims && S->vkept)
		kai_sched_victims_build(S);
	w = kai_sched_alloc_dirty(S->ctx, (size_t)nj + 1, sizeof(*w));
	for (j = 0; j < nj; j++) {
		if (want(S, j))
			w[nw++] = j;
		if (!collect || S->jobs[j].nactive == 0)
			continue;
		if (k == cap) {
			cap = cap ? 2 * cap : 1024;
			act = kai_xreallocarray(act, cap, sizeof(*act));
		}
		act[k++] = j;
	}
	if (collect)
		kai_sched_victims_build_from(S, act, k);
	free(act);
	*wanted = w;
	return nw;
}

bool
kai_sched_victim_helps(const struct sess *S, uint32_t j, uint32_t v)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j], *V = &S->s->jobs[v];
	size_t t, k;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (S->tasks[t].state == KAI_SCHED_TASK_PENDING)
			break;
	if (t == J->first_task + J->ntasks)
		return true;
	for (k = V->first_task; k < V->first_task + V->ntasks; k++)
		if (kai_sched_task_active(&S->tasks[k]) &&
		    kai_sched_pool_allows(S, (uint32_t)t,
			(uint32_t)S->tasks[k].node))
			return true;
	return false;
}

/*
 * The next unit of victim job v: an elastic task while it runs above its
 * minimum, then its core unless min_run (s) protects it.  False when v
 * has nothing (more) to give.
 */
bool
kai_sched_victim_unit(const struct sess *S, uint32_t v, int64_t min_run,
    struct kai_sched_unit *u)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[v];
	const struct sjob *sj = &S->jobs[v];

	if (sj->nactive == 0 || sj->nplaced > 0 || sj->nmoved > 0)
		return false;
	u->job = v;
	if (kai_sched_tree(S, v) != NULL) {
		/* A task whose leaf stays satisfied, else the whole core. */
		u->task = kai_sched_sg_spare(S, v);
		if (u->task >= 0)
			return true;
	} else if (sj->nactive > sj->min) {
		size_t t;

		for (t = J->first_task + J->ntasks; t-- > J->first_task;)
			if (kai_sched_task_active(&S->tasks[t]))
				break;
		u->task = (int64_t)t;
		return true;
	}
	if (min_run > 0 && J->started != KAI_SCHED_NO_TIME &&
	    S->s->now < J->started + min_run)
		return false;
	u->task = -1;
	return true;
}

void
kai_sched_evict_unit(struct sess *S, const struct kai_sched_unit *u)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[u->job];
	size_t t;

	if (u->task >= 0) {
		kai_sched_evict(S, (uint32_t)u->task);
		return;
	}
	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (kai_sched_task_active(&S->tasks[t]))
			kai_sched_evict(S, (uint32_t)t);
}

struct units {
	struct kai_sched_unit *u;
	bool *dropped;
	size_t n, cap;
};

static void
units_push(struct units *us, const struct kai_sched_unit *u)
{
	if (us->n == us->cap) {
		us->cap = us->cap ? 2 * us->cap : 8;
		us->u = kai_xreallocarray(us->u, us->cap, sizeof(*us->u));
	}
	us->u[us->n++] = *u;
}

/* Rolls back to mark and evicts the units not dropped, except skip. */
static void
replay(struct sess *S, size_t mark, const struct units *us, size_t skip)
{
	size_t k;

	kai_sched_rollback(S, mark);
	for (k = 0; k < us->n; k++)
		if (k != skip && !us->dropped[k])
			kai_sched_evict_unit(S, &us->u[k]);
}

/* Drops every victim the job does not need, newest first. */
static void
minimize(struct sess *S, uint32_t j, size_t mark, struct units *us)
{
	struct kai_sched_why_info w;
	size_t i;

	if (us->n < 2 || us->n > MINIMIZE_MAX)
		return;
	us->dropped = kai_xcalloc(us->n, sizeof(*us->dropped));
	/* The last victim was needed: without it the step did not fit. */
	for (i = us->n - 1; i-- > 0;) {
		replay(S, mark, us, i);
		if (kai_sched_try_step(S, j, true, &w))
			us->dropped[i] = true;
	}
	replay(S, mark, us, SIZE_MAX);
	if (!kai_sched_try_step(S, j, true, &w)) {
		/* Cannot happen (the last trial fitted); be safe anyway. */
		memset(us->dropped, 0, us->n * sizeof(*us->dropped));
		replay(S, mark, us, SIZE_MAX);
		KAI_ASSERT(kai_sched_try_step(S, j, true, &w));
	}
}

/*
 * same_queue: the victims are in the job's own queue, so evicting them
 * lowers the allocation a limit or quota check failed on; otherwise such
 * a failure ends the search at once.
 */
bool
kai_sched_solve(struct sess *S, uint32_t j, kai_sched_next_victim_fn *next,
    void *ctx, bool same_queue, struct kai_sched_why_info *why)
{
	size_t mark = kai_sched_mark(S);
	struct units us = {NULL, NULL, 0, 0};
	struct kai_sched_unit u;
	bool ok;

	for (;;) {
		if ((ok = kai_sched_try_step(S, j, true, why)))
			break;
		if ((!same_queue &&
			(why->why == KAI_SCHED_WHY_LIMIT ||
			    why->why == KAI_SCHED_WHY_NP_QUOTA ||
			    why->why == KAI_SCHED_WHY_TYPE_LIMIT ||
			    why->why == KAI_SCHED_WHY_TYPE_NP_QUOTA)) ||
		    why->why == KAI_SCHED_WHY_NO_TYPE_NODES ||
		    !next(S, ctx, &u))
			break;
		kai_sched_evict_unit(S, &u);
		units_push(&us, &u);
	}
	if (ok)
		minimize(S, j, mark, &us);
	else
		kai_sched_rollback(S, mark);
	free(us.u);
	free(us.dropped);
	return ok;
}

/*
 * A per-queue memo of the last job the solver failed for: a later job of
 * the same queue whose every task is at least as large as that job's
 * largest, with at least as many tasks, no topology and no higher
 * priority cannot succeed either (victims only get fewer within a phase),
 * and is skipped without a search (KAI's scheduling signatures).
 */
static void
step_shape(const struct sess *S, uint32_t j, uint32_t *n, int64_t lo[NRES],
    int64_t hi[NRES])
{
	uint32_t *t = S->scratch_tasks2, i;
	bool shortg;
	int r;

	*n = kai_sched_step_tasks(S, j, t, &shortg);
	for (r = 0; r < NRES; r++) {
		lo[r] = INT64_MAX;
		hi[r] = 0;
	}
	for (i = 0; i < *n; i++) {
		int64_t v[NRES];

		kai_sched_task_req(S, t[i], v);
		for (r = 0; r < NRES; r++) {
			lo[r] = v[r] < lo[r] ? v[r] : lo[r];
			hi[r] = v[r] > hi[r] ? v[r] : hi[r];
		}
	}
}

bool
kai_sched_fmemo_skip(const struct sess *S, const struct kai_sched_fmemo *m,
    uint32_t j)
{
	int64_t lo[NRES], hi[NRES];
	uint32_t n;
	int r;

	const struct sjob *st;

	if (!m->set || S->s->jobs[j].topology >= 0 ||
	    S->s->jobs[j].priority > m->prio)
		return false;
	/*
	 * The cached step (gang.c: the same tasks, and their requests
	 * summed) settles most jobs without a walk of their tasks: the
	 * smallest task is no larger than the mean, so a sum below n times
	 * the memo's largest has a task below it; a step of one task is
	 * its own smallest.
	 */
	st = kai_sched_step(S, j);
	if (st->sn < m->n)
		return false;
	for (r = 0; r < NRES; r++)
		if (st->sreq[r] < (int64_t)st->sn * m->hi[r])
			return false;
	if (st->sn == 1)
		return true;
	step_shape(S, j, &n, lo, hi);
	if (n < m->n)
		return false;
	for (r = 0; r < NRES; r++)
		if (lo[r] < m->hi[r])
			return false;
	return true;
}

void
kai_sched_fmemo_note(const struct sess *S, struct kai_sched_fmemo *m,
    uint32_t j)
{
	int64_t lo[NRES];

	/* A job held back by its topology or node groups says nothing
	 * about a larger job without them. */
	if (S->s->jobs[j].topology >= 0 || S->s->jobs[j].tasks_per_node > 0)
		return;
	step_shape(S, j, &m->n, lo, m->hi);
	m->prio = S->s->jobs[j].priority;
	m->set = true;
}
