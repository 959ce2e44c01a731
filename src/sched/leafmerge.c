/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * leafmerge.c: a leaf's jobs in the leaf's own order, while nothing can
 * be placed.
 *
 * The allocate phase takes a closed leaf (closed.c), or every leaf once
 * the cluster is full (allocate.c), on its own: its jobs only wait, so
 * nothing any key reads changes between them.  Their order is still the
 * group order of order.c -- the head's priority, then its elastic
 * state, then the account's and the user's keys (acctshare.c, the
 * usage), then the head's age and index -- but the group keys are
 * fixed, so the leaf's order is a plain merge of the groups' runs.  The
 * general order does it with a heap of group numbers whose comparisons
 * go through a callback and read each group's cached key elsewhere: at
 * a million jobs whose groups' runs interleave (equal usage, so age
 * decides at every job) that is most of the cost of a job that waits.
 * Here the heap holds the heads' keys themselves, with the account and
 * usage keys of a group folded into one rank (groups sorted by them,
 * equal pairs equal ranks), and compares them inline.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct kai_sched_lent {
	uint64_t hi;  /* priority (higher first), elastic state, rank */
	uint64_t age; /* created, as an unsigned order */
	uint32_t job, group;
};

/* The leaf's group order (order.c's group_before) over heads' keys. */
static inline bool
before(const struct kai_sched_lent *a, const struct kai_sched_lent *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi;
	if (a->age != b->age)
		return a->age < b->age;
	return a->job < b->job;
}

static void
sift_down(struct kai_sched_lent *h, uint32_t n, uint32_t i)
{
	struct kai_sched_lent e = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

/* Group g's head as an entry; rank: the group's rank in its leaf. */
static void
head(const struct kai_sched_order *o, uint32_t g, uint32_t rank,
    struct kai_sched_lent *e)
{
	const struct okey *k = &o->jrun[o->gcur[g]];

	/* Higher priority first: INT32_MAX - prio, which fits 32 bits. */
	e->hi = (uint64_t)((int64_t)INT32_MAX - k->prio) << 32 |
	    (uint64_t)k->elastic << 30 | rank;
	e->age = (uint64_t)k->created ^ UINT64_C(0x8000000000000000);
	e->job = k->job;
	e->group = g;
}

struct kai_sched_lgrp { /* a group's fixed keys, to rank them */
	double acct, usage;
	uint32_t group;
};

/* The groups by their account and usage keys, as group_before() has them. */
static int
by_keys(const void *a, const void *b)
{
	const struct kai_sched_lgrp *x = a, *y = b;

	if (x->acct != y->acct)
		return x->acct < y->acct ? -1 : 1;
	if (x->usage != y->usage)
		return x->usage < y->usage ? -1 : 1;
	return 0;
}

void
kai_sched_lmerge_init(struct kai_sched_lmerge *m, struct kai_sched_order *o)
{
	memset(m, 0, sizeof(*m));
	m->o = o;
}

/*
 * Starts on leaf q: its groups with jobs left (those in its heap of the
 * general order, whose keys are up to date there).
 */
void
kai_sched_lmerge_leaf(struct kai_sched_lmerge *m, uint32_t leaf)
{
	struct kai_sched_order *o = m->o;
	const struct kai_sched_heap *gh = &o->qh[leaf];
	uint32_t i, rank = 0;

	m->n = 0;
	if (gh->n > m->cap) {
		m->cap = gh->n;
		m->h = kai_xreallocarray(m->h, m->cap, sizeof(*m->h));
		m->g = kai_xreallocarray(m->g, m->cap, sizeof(*m->g));
	}
	for (i = 0; i < gh->n; i++) {
		uint32_t g = gh->a[i];

		if (o->gcur[g] == o->gend[g])
			continue;
		m->g[m->n].acct = o->gk[g].acct;
		m->g[m->n].usage = o->gk[g].usage;
		m->g[m->n++].group = g;
	}
	if (m->n == 0)
		return; /* m->g may be NULL: nothing to sort */
	qsort(m->g, m->n, sizeof(*m->g), by_keys);
	for (i = 0; i < m->n; i++) {
		if (i > 0 && by_keys(&m->g[i - 1], &m->g[i]) != 0)
			rank++;
		head(o, m->g[i].group, rank, &m->h[i]);
	}
	for (i = m->n / 2; i-- > 0;)
		sift_down(m->h, m->n, i);
}

int64_t
kai_sched_lmerge_top(const struct kai_sched_lmerge *m)
{
	return m->n > 0 ? (int64_t)m->h[0].job : -1;
}

void
kai_sched_lmerge_next(struct kai_sched_lmerge *m)
{
	struct kai_sched_order *o = m->o;
	const struct sess *S = o->S;
	uint32_t g = m->h[0].group,
		 rank = (uint32_t)m->h[0].hi & ((UINT32_C(1) << 30) - 1);

	if (++o->gcur[g] < o->gend[g]) {
		uint32_t a = o->jrun[o->gcur[g]].job;

		head(o, g, rank, &m->h[0]);
		/* Groups take turns: g's new head comes up some jobs from
		 * now, and what waiting reads of it is its session entry
		 * and its reason, anywhere in a million jobs' arrays. */
		__builtin_prefetch(&S->jobs[a]);
		__builtin_prefetch((const char *)&S->jobs[a] +
		    sizeof(S->jobs[a]) - 1);
		__builtin_prefetch(&S->r->jobs[a].why, 1);
		/* With reservations, the memo's backfill class reads its
		 * time limit in the snapshot's entry (backfill.c). */
		if (S->bf_on)
			__builtin_prefetch(&S->s->jobs[a].time_limit_s);
	} else {
		m->h[0] = m->h[--m->n];
	}
	sift_down(m->h, m->n, 0);
}

void
kai_sched_lmerge_fini(struct kai_sched_lmerge *m)
{
	free(m->h);
	free(m->g);
	memset(m, 0, sizeof(*m));
}
