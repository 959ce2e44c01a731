/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reclaim.c: the reclaim phase -- a queue below its fair share takes
 * resources back from queues above theirs.
 *
 * A pending job may reclaim only while its queue stays within its fair
 * share with the job (allocated + step <= fair share in every tracked
 * resource the step asks for); a non-preemptible job must also fit its
 * quota, which admission checks.  Victims are preemptible running jobs
 * of other queues.  Reclaimer and victim are compared at the level where
 * their paths in the queue tree part (department against department),
 * and a victim is acceptable when, before it is taken, either
 *	- its side is above its allocatable share in a resource the
 *	  reclaimer asks for (KAI's MaintainFairShare), or
 *	- the reclaimer's side stays within its quota with the job and the
 *	  victim's side is above its quota (GuaranteeDeservedQuota),
 * and the reclaimer's side is still within its fair share.  After each
 * victim the victim queues are ordered again: over their fair share
 * first, then lower priority, then higher dominant share, then newer;
 * within a queue, lowest priority and newest job first.  Min-runtime
 * protection uses the queue one level below the two queues' lowest common
 * ancestor, on the victim's side (KAI's "lca" method).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct rctx {
	uint32_t leaf;
	uint32_t job;
	int32_t ty; /* the job's GPU type, or -1 */
	int64_t req[NRES];
	uint32_t *cur; /* per queue: cursor into vjobs */
	uint8_t *dead; /* per queue: no more acceptable victims */
};

/* The two queues just below the lowest common ancestor of a and b. */
static void
diverge(const struct sess *S, uint32_t a, uint32_t b, uint32_t *ca,
    uint32_t *cb)
{
	int32_t x = (int32_t)a, y = (int32_t)b;

	while (S->q[x].depth > S->q[y].depth)
		x = S->q[x].parent;
	while (S->q[y].depth > S->q[x].depth)
		y = S->q[y].parent;
	while (S->q[x].parent != S->q[y].parent) {
		x = S->q[x].parent;
		y = S->q[y].parent;
	}
	*ca = (uint32_t)x;
	*cb = (uint32_t)y;
}

static bool
acceptable(const struct sess *S, const struct rctx *c, uint32_t v)
{
	const struct squeue *V;
	uint32_t qa, va;
	bool mfs = false, above_quota = false;
	int r;

	diverge(S, c->leaf, v, &qa, &va);
	if (!kai_sched_job_within_fair_share(S, qa, c->job, c->req))
		return false;
	V = &S->q[va];
	for (r = 0; r < NRES; r++) {
		int64_t quota = S->s->queues[va].res[r].quota;
		bool aq;

		if (c->req[r] <= 0 || S->total[r] < 0)
			continue;
		/* A job of a GPU type takes back that type's share. */
		if (r == R_GPU && c->ty >= 0) {
			mfs |= kai_sched_type_victim_side(S, va, c->ty, &aq);
			above_quota |= aq;
			continue;
		}
		mfs |= V->alloc[r] > V->as[r];
		above_quota |= quota >= 0 && V->alloc[r] > quota;
	}
	return mfs || (above_quota && kai_sched_within_quota(S, qa, c->req) &&
	    kai_sched_type_within_quota(S, qa, c->ty, c->req[R_GPU]));
}

/* Victim queue order: over share, lower priority, more DRF, newer. */
static bool
vq_better(const struct sess *S, uint32_t a, uint32_t b)
{
	bool oa = kai_sched_queue_over(S, a), ob = kai_sched_queue_over(S, b);
	int64_t pa = S->s->queues[a].priority, pb = S->s->queues[b].priority;
	double da, db;

	if (oa != ob)
		return oa;
	if (pa != pb)
		return pa < pb;
	if ((da = kai_sched_dshare(S, a, NULL)) !=
	    (db = kai_sched_dshare(S, b, NULL)))
		return da > db;
	return a > b;
}

/* The first unit queue v can still give, or false (queue exhausted). */
static bool
queue_unit(struct sess *S, struct rctx *c, uint32_t v, struct kai_sched_unit *u)
{
	uint32_t qa, va;

	diverge(S, c->leaf, v, &qa, &va);
	/* A victim on nodes the job may not use (its pool, GPU type or
	 * node requirements) frees nothing for it, and would only take
	 * its queue down towards its share, sparing the useful ones. */
	for (; c->cur[v] < S->vstart[v + 1]; c->cur[v]++)
		if (kai_sched_victim_helps(S, c->job, S->vjobs[c->cur[v]]) &&
		    kai_sched_victim_unit(S, S->vjobs[c->cur[v]], S->q[va].rmin,
			u))
			return true;
	return false;
}

static bool
next_victim(struct sess *S, void *ctx, struct kai_sched_unit *u)
{
	struct rctx *c = ctx;
	struct kai_sched_unit cand;
	int64_t best = -1;
	uint32_t v;

	for (v = 0; v < S->nq; v++) {
		if (v == c->leaf || c->dead[v] ||
		    S->vstart[v] == S->vstart[v + 1])
			continue;
		if (!queue_unit(S, c, v, &cand) || !acceptable(S, c, v)) {
			c->dead[v] = 1;
			continue;
		}
		if (best < 0 || vq_better(S, v, (uint32_t)best)) {
			best = v;
			*u = cand;
		}
	}
	return best >= 0;
}

/*
 * Reasons for the victims of job j: the log since mark holds them.  For
 * a job of a GPU type the figures are the victim queue's of that type
 * (reasons.c reads the type from the job).
 */
static void
blame(struct sess *S, uint32_t j, size_t mark, int64_t *gone)
{
	int32_t ty = kai_sched_job_type(S, j);
	size_t i;

	for (i = mark; i < S->nlog; i++)
		if (S->log[i].kind == UNDO_EVICT) {
			uint32_t t = S->log[i].task;

			gone[S->jobs[kai_sched_task_job(S, t)].queue] +=
			    (int64_t)__builtin_popcountll(S->tasks[t].mask) *
			    S->tasks[t].ugpu;
		}
	for (i = mark; i < S->nlog; i++) {
		struct kai_sched_why_info w;
		uint32_t v, q;

		if (S->log[i].kind != UNDO_EVICT)
			continue;
		v = kai_sched_task_job(S, S->log[i].task);
		q = S->jobs[v].queue;
		kai_sched_why_clear(&w);
		w.why = KAI_SCHED_WHY_RECLAIMED;
		w.job = (int32_t)j;
		w.queue = (int32_t)q;
		w.res = R_GPU;
		w.a = S->q[q].alloc[R_GPU] + gone[q];
		w.b = S->q[q].fs[R_GPU];
		w.c = S->s->queues[q].res[R_GPU].quota;
		if (ty >= 0) {
			kai_sched_type_figures(S, q, ty, &w.a, &w.b, &w.c);
			w.a += gone[q];
		}
		kai_sched_set_why(S, v, &w, true);
	}
	for (i = mark; i < S->nlog; i++)
		if (S->log[i].kind == UNDO_EVICT)
			gone[S->jobs[kai_sched_task_job(S, S->log[i].task)]
				 .queue] = 0;
}

/*
 * Once allocate has run (every job has its reason), only jobs whose
 * queue is within its fair share with them can reclaim; a reclaimer's
 * queue only grows during the phase, so leaving the others out of the
 * ordering changes nothing and saves a pop per pending job.
 */
static bool
want(const struct sess *S, uint32_t j)
{
	int64_t req[NRES];

	if (S->jobs[j].npending == 0 || S->jobs[j].static_fail)
		return false;
	if (!S->allocated)
		return true;
	kai_sched_step_req(S, j, req);
	return kai_sched_job_within_fair_share(S, S->jobs[j].queue, j, req);
}

static void
attempt(struct sess *S, struct rctx *c, struct kai_sched_fmemo *fm, uint32_t j,
    int64_t *gone)
{
	struct kai_sched_why_info w;
	size_t mark = kai_sched_mark(S);

	c->leaf = S->jobs[j].queue;
	c->job = j;
	c->ty = kai_sched_job_type(S, j);
	kai_sched_step_req(S, j, c->req);
	if (!kai_sched_job_within_fair_share(S, c->leaf, j, c->req) ||
	    kai_sched_fmemo_skip(S, &fm[c->leaf], j)) {
		kai_sched_untried(S, j);
		return;
	}
	memcpy(c->cur, S->vstart, S->nq * sizeof(*c->cur));
	memset(c->dead, 0, S->nq);
	kai_sched_why_clear(&w);
	if (kai_sched_solve(S, j, next_victim, c, false, &w)) {
		blame(S, j, mark, gone);
		kai_sched_commit(S);
		return;
	}
	kai_sched_fmemo_note(S, &fm[c->leaf], j);
	kai_sched_set_why(S, j, &w, false);
}

void
kai_sched_reclaim(struct sess *S)
{
	struct kai_sched_order o;
	struct kai_sched_fmemo *fm;
	int64_t *gone;
	struct rctx c;
	int64_t top;
	uint32_t nw, *wanted;

	/* The victims and which jobs to order, in one pass over the jobs
	 * (six before: two for the victims, two for each want()). */
	nw = kai_sched_want_pass(S, want, true, &wanted);
	if (S->inc != NULL)
		kai_sched_inc_phase(S, KAI_SCHED_RECLAIM);
	if (nw == 0) {
		/* An empty order: no job is tried.  Building it would only
		 * write the queues' keys, which every order rebuilds. */
		kai_sched_free(S->ctx, wanted);
		return;
	}
	fm = kai_xcalloc(S->nq + 1, sizeof(*fm));
	gone = kai_xcalloc(S->nq + 1, sizeof(*gone));
	c.cur = kai_xcalloc(S->nq + 1, sizeof(*c.cur));
	c.dead = kai_xcalloc(S->nq + 1, 1);
	kai_sched_order_init_jobs(&o, S, wanted, nw);
	kai_sched_free(S->ctx, wanted);
	while ((top = kai_sched_order_top(&o)) >= 0) {
		attempt(S, &c, fm, (uint32_t)top, gone);
		kai_sched_order_next(&o, (uint32_t)top, false);
	}
	kai_sched_order_fini(&o);
	free(c.cur);
	free(c.dead);
	free(gone);
	free(fm);
}
