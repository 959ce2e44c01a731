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

static bool
pending(const struct sess *S, uint32_t j)
{
	return S->jobs[j].npending > 0 && !S->jobs[j].static_fail;
}

/*
 * Once allocate has run, only jobs with a lower-priority victim in their
 * queue are ordered; the others just get their reason (see below).
 */
static bool
want(const struct sess *S, uint32_t j)
{
	uint32_t q = S->jobs[j].queue;

	if (!pending(S, j))
		return false;
	if (!S->allocated)
		return true;
	return S->vstart[q] < S->vstart[q + 1] &&
	    S->s->jobs[S->vjobs[S->vstart[q]]].priority <
	    S->s->jobs[j].priority;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Per leaf queue, the sorted priorities of the jobs holding GPUs at the
 * start of the phase: "how many higher-priority jobs" is then a binary
 * search.
 */
static void
holders(const struct sess *S, int64_t **prio, uint32_t **start)
{
	uint32_t nj = (uint32_t)S->s->njobs, j, q, *fill;

	*start = kai_sched_calloc(S->ctx, S->nq + 2, sizeof(**start));
	fill = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*fill));
	for (j = 0; j < nj; j++)
		if (S->jobs[j].nactive > 0)
			(*start)[S->jobs[j].queue + 1]++;
	for (q = 0; q < S->nq; q++)
		(*start)[q + 1] += (*start)[q];
	/* Sized by the holders, not the jobs: 8 MiB less at a million
	 * pending jobs. */
	*prio = kai_sched_calloc(S->ctx, (*start)[S->nq] + 1, sizeof(**prio));
	for (j = 0; j < nj; j++) {
		q = S->jobs[j].queue;
		if (S->jobs[j].nactive > 0)
			(*prio)[(*start)[q] + fill[q]++] =
			    S->s->jobs[j].priority;
	}
	for (q = 0; q < S->nq; q++)
		qsort(*prio + (*start)[q], (*start)[q + 1] - (*start)[q],
		    sizeof(**prio), cmp_i64);
	kai_sched_free(S->ctx, fill);
}

static int64_t
count_above(const int64_t *p, uint32_t lo, uint32_t hi, int64_t v)
{
	uint32_t a = lo, b = hi;

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (p[m] <= v)
			a = m + 1;
		else
			b = m;
	}
	return (int64_t)(hi - a);
}

static void
waiting(struct sess *S, uint32_t j, const int64_t *prio, const uint32_t *start)
{
	struct kai_sched_why_info *cur = &S->r->jobs[j].why, w;
	uint32_t q = S->jobs[j].queue;
	int64_t n;

	if (cur->why != KAI_SCHED_WHY_RESOURCES &&
	    cur->why != KAI_SCHED_WHY_PRIORITY &&
	    cur->why != KAI_SCHED_WHY_NONE)
		return;
	n = count_above(prio, start[q], start[q + 1], S->s->jobs[j].priority);
	if (n == 0)
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
    const int64_t *prio, const uint32_t *start)
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
		waiting(S, j, prio, start);
		return;
	}
	if (kai_sched_solve(S, j, next_victim, &c, true, &w)) {
		blame(S, j, mark);
		kai_sched_commit(S);
		return;
	}
	kai_sched_fmemo_note(S, &fm[c.leaf], j);
	kai_sched_set_why(S, j, &w, false);
	waiting(S, j, prio, start);
}

void
kai_sched_preempt(struct sess *S)
{
	struct kai_sched_order o;
	struct kai_sched_fmemo *fm = kai_xcalloc(S->nq + 1, sizeof(*fm));
	int64_t *prio, top;
	uint32_t *start;
	size_t j;

	kai_sched_victims_build(S);
	holders(S, &prio, &start);
	if (S->inc != NULL)
		kai_sched_inc_phase(S, KAI_SCHED_PREEMPT);
	kai_sched_order_init(&o, S, want);
	while ((top = kai_sched_order_top(&o)) >= 0) {
		attempt(S, fm, (uint32_t)top, prio, start);
		kai_sched_order_next(&o, (uint32_t)top, false);
	}
	kai_sched_order_fini(&o);
	for (j = 0; j < S->s->njobs; j++)
		if (pending(S, (uint32_t)j) && !want(S, (uint32_t)j))
			waiting(S, (uint32_t)j, prio, start);
	kai_sched_free(S->ctx, prio);
	kai_sched_free(S->ctx, start);
	free(fm);
}
