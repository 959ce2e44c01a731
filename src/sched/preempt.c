/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * preempt.c: the preempt phase -- inside one queue, a pending job evicts
 * running jobs of strictly lower priority.
 *
 * Victims are the preemptible running jobs of the same leaf queue with a
 * priority strictly below the preemptor's, lowest priority first, then
 * newest; a job started less than the queue's preempt min-runtime ago
 * keeps its core (the first value set walking up from the queue).  A
 * non-preemptible preemptor still has to fit its quota (admission).  The
 * eviction search itself is victims.c.
 *
 * A job this phase cannot help, while its own queue runs jobs of higher
 * priority, is told so: "waiting for GPUs held by N higher-priority
 * jobs" says more than "not enough free GPUs".
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct pctx {
	uint32_t leaf;
	int64_t prio;
	uint32_t cur; /* cursor into vjobs */
};

static bool
next_victim(struct sess *S, void *ctx, struct kai_sched_unit *u)
{
	struct pctx *c = ctx;

	for (; c->cur < S->vstart[c->leaf + 1]; c->cur++) {
		uint32_t v = S->vjobs[c->cur];

		/* The list is by priority: nothing lower is left. */
		if (S->s->jobs[v].priority >= c->prio)
			return false;
		if (kai_sched_victim_unit(S, v, S->q[c->leaf].pmin, u))
			return true;
	}
	return false;
}

/*
 * Job j, pending, is one the order takes: once allocate has run, only
 * one with a lower-priority victim in its queue (the others just get
 * their reason, sort_out()).
 */
static bool
ahead(const struct sess *S, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t q = J->queue;

	if (!S->allocated)
		return true;
	return S->vstart[q] < S->vstart[q + 1] &&
	    S->s->jobs[S->vjobs[S->vstart[q]]].priority < J->priority;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Per leaf queue, the distinct priorities of the jobs holding GPUs at
 * the start of the phase, act[0..n) (gather()), rising,
 * each with how many hold GPUs at that priority or above: "how many
 * higher-priority jobs" is then a binary search over a few values (a
 * queue's jobs have few priorities), not over every holder.
 */
struct holders {
	int64_t *prio;
	uint32_t *above;
	uint32_t *start; /* per queue: prio[start[q], start[q + 1]) */
};

static void
holders(const struct sess *S, const uint32_t *act, uint32_t n,
    struct holders *h)
{
	uint32_t i, q, k, w = 0, *fill;

	h->start = kai_sched_calloc(S->ctx, S->nq + 2, sizeof(*h->start));
	fill = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*fill));
	/* The queue from the snapshot's entry, on the priority's line:
	 * one line a holder, not that and the session's entry. */
	for (i = 0; i < n; i++)
		h->start[S->s->jobs[act[i]].queue + 1]++;
	for (q = 0; q < S->nq; q++)
		h->start[q + 1] += h->start[q];
	/* Sized by the holders, not the jobs: 8 MiB less at a million
	 * pending jobs. */
	h->prio = kai_sched_calloc(S->ctx, h->start[S->nq] + 1,
	    sizeof(*h->prio));
	h->above = kai_sched_calloc(S->ctx, h->start[S->nq] + 1,
	    sizeof(*h->above));
	for (i = 0; i < n; i++) {
		const struct kai_sched_snap_job *J = &S->s->jobs[act[i]];

		h->prio[h->start[J->queue] + fill[J->queue]++] = J->priority;
	}
	/* Each queue's run sorted, then made distinct in place. */
	for (q = 0; q < S->nq; q++) {
		uint32_t lo = h->start[q], hi = h->start[q + 1];

		qsort(h->prio + lo, hi - lo, sizeof(*h->prio), cmp_i64);
		h->start[q] = w;
		for (k = lo; k < hi; k++) {
			if (k > lo && h->prio[k] == h->prio[w - 1])
				continue;
			h->prio[w] = h->prio[k];
			h->above[w++] = hi - k;
		}
	}
	h->start[S->nq] = w;
	kai_sched_free(S->ctx, fill);
}

static void
holders_free(const struct sess *S, struct holders *h)
{
	kai_sched_free(S->ctx, h->prio);
	kai_sched_free(S->ctx, h->above);
	kai_sched_free(S->ctx, h->start);
}

/* How many of queue q's holders have a priority above v. */
static int64_t
count_above(const struct holders *h, uint32_t q, int64_t v)
{
	uint32_t a = h->start[q], b = h->start[q + 1];

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (h->prio[m] <= v)
			a = m + 1;
		else
			b = m;
	}
	return a < h->start[q + 1] ? (int64_t)h->above[a] : 0;
}

static void
waiting(struct sess *S, uint32_t j, const struct holders *h)
{
	struct kai_sched_why_info *cur, w;
	uint32_t q = S->s->jobs[j].queue; /* on priority's line */
	int64_t n;

	/* The cheaper test first: most jobs of a million have nothing
	 * above them, and their reasons are not read. */
	if (h->start[q] == h->start[q + 1])
		return;
	n = count_above(h, q, S->s->jobs[j].priority);
	if (n == 0)
		return;
	cur = &S->r->jobs[j].why;
	if (cur->why != KAI_SCHED_WHY_RESOURCES &&
	    cur->why != KAI_SCHED_WHY_PRIORITY &&
	    cur->why != KAI_SCHED_WHY_NONE)
		return;
	kai_sched_why_clear(&w);
	w.why = KAI_SCHED_WHY_HIGHER_PRIO;
	w.queue = (int32_t)q;
	w.a = n;
	kai_sched_set_why(S, j, &w, true);
}

static void
blame(struct sess *S, uint32_t j, size_t mark)
{
	size_t i;

	for (i = mark; i < S->nlog; i++) {
		struct kai_sched_why_info w;
		uint32_t v;

		if (S->log[i].kind != UNDO_EVICT)
			continue;
		v = kai_sched_task_job(S, S->log[i].task);
		kai_sched_why_clear(&w);
		w.why = KAI_SCHED_WHY_PREEMPTED;
		w.job = (int32_t)j;
		w.queue = (int32_t)S->jobs[v].queue;
		kai_sched_set_why(S, v, &w, true);
	}
}

static void
attempt(struct sess *S, struct kai_sched_fmemo *fm, uint32_t j,
    const struct holders *h)
{
	struct pctx c;
	struct kai_sched_why_info w;
	size_t mark = kai_sched_mark(S);

	c.leaf = S->jobs[j].queue;
	c.prio = S->s->jobs[j].priority;
	c.cur = S->vstart[c.leaf];
	kai_sched_why_clear(&w);
	if (c.cur == S->vstart[c.leaf + 1] ||
	    S->s->jobs[S->vjobs[c.cur]].priority >= c.prio ||
	    kai_sched_fmemo_skip(S, &fm[c.leaf], j)) {
		kai_sched_untried(S, j);
		waiting(S, j, h);
		return;
	}
	if (kai_sched_solve(S, j, next_victim, &c, true, &w)) {
		blame(S, j, mark);
		kai_sched_commit(S);
		return;
	}
	kai_sched_fmemo_note(S, &fm[c.leaf], j);
	kai_sched_set_why(S, j, &w, false);
	waiting(S, j, h);
}

/*
 * The phase's one pass over the jobs: those with an active task (the
 * holders, and what the victims are drawn from) into act, the pending
 * ones into pend, both in index order; arrays of njobs + 1.
 */
static void
gather(const struct sess *S, uint32_t *act, uint32_t *nact, uint32_t *pend,
    uint32_t *npend)
{
	uint32_t nj = (uint32_t)S->s->njobs, j, a = 0, p = 0;

	for (j = 0; j < nj; j++) {
		const struct sjob *sj = &S->jobs[j];

		if (sj->nactive > 0)
			act[a++] = j;
		if (sj->npending > 0 && !sj->static_fail)
			pend[p++] = j;
	}
	*nact = a;
	*npend = p;
}

/*
 * Before any is tried, the pending jobs pend[0..n): those the order
 * takes (once allocate has run, a leaf without victims has none) move
 * to the front of pend, and every other one gets its reason.  Those
 * reasons were given after the tries before; it is the same: the tries
 * place only jobs the order takes, an eviction leaves a job's pending
 * tasks as they were, so the jobs left alone are the same at the end,
 * and a try writes no reason of theirs but PREEMPTED, over any
 * (blame()), which waiting() would have left as it was.  The holders
 * are fixed at the phase's start, and no try reads another pending
 * job's reason.  Returns how many the order takes.
 */
static uint32_t
sort_out(struct sess *S, uint32_t *pend, uint32_t n, const struct holders *h)
{
	uint32_t i, nw = 0;
	bool order = !S->allocated || S->vstart[S->nq] > 0;

	for (i = 0; i < n; i++) {
		uint32_t j = pend[i];

		if (order && ahead(S, j))
			pend[nw++] = j;
		else
			waiting(S, j, h);
	}
	return nw;
}

void
kai_sched_preempt(struct sess *S)
{
	struct kai_sched_order o;
	struct kai_sched_fmemo *fm;
	struct holders h;
	int64_t top;
	uint32_t *act, *pend, nact, npend, nw;

	/* One pass over the jobs: the holders, the victims unless an
	 * earlier phase's lists are kept, and the pending jobs. */
	act = kai_sched_alloc_dirty(S->ctx, S->s->njobs + 1, sizeof(*act));
	pend = kai_sched_alloc_dirty(S->ctx, S->s->njobs + 1, sizeof(*pend));
	gather(S, act, &nact, pend, &npend);
	kai_sched_victims_build_from(S, act, nact);
	holders(S, act, nact, &h);
	kai_sched_free(S->ctx, act);
	if (S->inc != NULL)
		kai_sched_inc_phase(S, KAI_SCHED_PREEMPT);
	if ((nw = sort_out(S, pend, npend, &h)) > 0) {
		fm = kai_xcalloc(S->nq + 1, sizeof(*fm));
		kai_sched_order_init_jobs(&o, S, pend, nw);
		while ((top = kai_sched_order_top(&o)) >= 0) {
			attempt(S, fm, (uint32_t)top, &h);
			kai_sched_order_next(&o, (uint32_t)top, false);
		}
		kai_sched_order_fini(&o);
		free(fm);
	}
	kai_sched_free(S->ctx, pend);
	holders_free(S, &h);
}
