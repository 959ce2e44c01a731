/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * allocate.c: the allocate phase -- pending jobs in queue order, each
 * placed on free (or releasing) resources, never evicting anything.
 *
 * A job that fits is placed and, if it has elastic tasks left, goes back
 * into the order under its new key; a job that does not fit keeps the
 * reason why.  Within one allocate phase resources only ever shrink, so
 * a step shape (its tasks' requests and topology) that failed to fit once
 * cannot fit later: such shapes are remembered (KAI's scheduling
 * signatures) and later jobs of the same shape fail at once with the same
 * reason.  With 100,000 pending jobs of a few dozen shapes this makes the
 * "nothing fits" cycle cost one hash lookup per job.  Admission is per
 * queue and is checked before the memo, so only placement failures are
 * shared.
 *
 * A leaf queue none of whose jobs can fit the idle capacity at the
 * phase's start is closed (closed.c): it takes no part in the order, and
 * its jobs get their reasons first, against that capacity.  With
 * backfill reservations it stays in the order until no more can be
 * handed out, and leaves it then (switch_closed()).  Once the cluster
 * is full (filled()), every job left waits, and the rest of the phase
 * goes leaf by leaf as the closed leaves do (by_leaf(), leafmerge.c).
 *
 * The first job of a leaf queue left waiting for resources says so; the
 * ones after it say that jobs ahead of them are waiting (Slurm's
 * "Priority").  With backfill (backfill.c), the first jobs left waiting
 * get reservations, and a job that would fit but for one says so.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

enum outcome {
	PLACED = 0,
	REFUSED, /* by admission: per queue, never remembered */
	FAILED,  /* tried, did not fit */
	KNOWN    /* its shape failed before: w is the stored reason */
};

/* Admission, the memo, then placement: the allocate step of job j. */
static enum outcome
step(struct sess *S, struct kai_sched_memo *m, uint32_t j,
    struct kai_sched_why_info *w)
{
	const struct kai_sched_why_info *seen;

	if (!kai_sched_admit(S, j, w))
		return REFUSED;
	if (S->bf_on) /* the memo's keys need the job's backfill class */
		kai_sched_bf_job(S, j, S->s->now);
	if ((seen = kai_sched_memo_find(m, S, j)) != NULL) {
		*w = *seen;
		return KNOWN;
	}
	if (kai_sched_try_step(S, j, true, w))
		return PLACED;
	return w->why == KAI_SCHED_WHY_LIMIT ||
		w->why == KAI_SCHED_WHY_NP_QUOTA ||
		w->why == KAI_SCHED_WHY_QOS_GPUS
	    ? REFUSED
	    : FAILED;
}

static bool
want(const struct sess *S, uint32_t j)
{
	return S->jobs[j].npending > 0 && !S->jobs[j].static_fail;
}

/*
 * j's step placed: kept, and a job that held nothing (held: its active
 * tasks before) is one the reservations' replays must now end too.
 */
static void
placed(struct sess *S, uint32_t j, uint32_t held)
{
	kai_sched_commit(S);
	if (held == 0 && S->bf_on)
		kai_sched_bf_placed(S, j);
}

/* The jobs of closed leaves, and those of the others. */
static bool
want_closed(const struct sess *S, uint32_t j)
{
	return want(S, j) && S->closed[S->jobs[j].queue];
}

static bool
want_open(const struct sess *S, uint32_t j)
{
	return want(S, j) && !S->closed[S->jobs[j].queue];
}

/*
 * Backfill: a job that did not fit may fit but for a reservation
 * (checked once per shape: the memo then holds that reason), or gets one
 * of its own.  Returns the reason to show; *store is the one to remember
 * for the shape (a reservation is this job's alone).
 */
static bool
backfill(struct sess *S, uint32_t j, enum outcome how,
    struct kai_sched_why_info *w, struct kai_sched_why_info *store)
{
	*store = *w;
	if (how == KNOWN && w->why == KAI_SCHED_WHY_BACKFILL)
		return true;
	if (how == FAILED && kai_sched_bf_blocks(S, j, w)) {
		*store = *w;
		return true;
	}
	return kai_sched_bf_reserve(S, j, w);
}

/* A job left pending: a reason, and Priority for those behind it. */
static void
failed(struct sess *S, struct kai_sched_memo *m, uint32_t j, enum outcome how,
    struct kai_sched_why_info *w)
{
	uint32_t leaf = S->jobs[j].queue, ahead;
	struct kai_sched_why_info store = *w;
	bool waits = w->why == KAI_SCHED_WHY_RESOURCES ||
	    w->why == KAI_SCHED_WHY_GANG || w->why == KAI_SCHED_WHY_TOPOLOGY ||
	    w->why == KAI_SCHED_WHY_NODE_GROUP ||
	    w->why == KAI_SCHED_WHY_EXCLUSIVE ||
	    w->why == KAI_SCHED_WHY_SUBGROUP ||
	    w->why == KAI_SCHED_WHY_SUBGROUPS ||
	    w->why == KAI_SCHED_WHY_BACKFILL;
	/* A subgroup tree is placed by its own walk, not reserved. */
	bool tree = kai_sched_tree(S, j) != NULL;
	bool bf = waits && !tree && S->bf_on && S->jobs[j].nactive == 0 &&
	    backfill(S, j, how, w, &store);

	/* Remember placement failures only: admission is per queue. */
	if (how == FAILED)
		kai_sched_memo_store(m, S, j, &store);
	if (S->jobs[j].nactive > 0) {
		kai_sched_set_why(S, j, w, true);
		return;
	}
	kai_sched_est_note(S, j, w); /* candidates for start estimates */
	/* A cycle fed by a kept state counts the jobs it left out too. */
	ahead = S->blocked[leaf] + (S->inc != NULL ? kai_sched_inc_ahead(S, j) : 0);
	if (!bf && waits && ahead > 0) {
		struct kai_sched_why_info p;

		kai_sched_why_clear(&p);
		p.why = KAI_SCHED_WHY_PRIORITY;
		p.queue = (int32_t)leaf;
		p.a = ahead;
		kai_sched_set_why(S, j, &p, true);
	} else {
		kai_sched_set_why(S, j, w, true);
	}
	if (waits)
		S->blocked[leaf]++;
}

static void closed_pass(struct sess *S, struct kai_sched_order *o);

/*
 * The jobs o still holds in the leaves marked in leaves[] (NULL: every
 * leaf), leaf by leaf, each leaf in its own order, while nothing can be
 * placed (closed leaves, or a full cluster).  heads: the closed pass's
 * bookkeeping for a later cycle (incr.c) is kept.  Returns how many
 * jobs it took.
 */
static uint32_t
by_leaf(struct sess *S, struct kai_sched_order *o, struct kai_sched_memo *m,
    const uint8_t *leaves, bool heads)
{
	struct kai_sched_lmerge lm;
	uint32_t q, n = 0;
	int64_t top;

	kai_sched_lmerge_init(&lm, o);
	for (q = 0; q < S->nq; q++) {
		if (!S->q[q].leaf || (leaves != NULL && !leaves[q]))
			continue;
		kai_sched_lmerge_leaf(&lm, q);
		while ((top = kai_sched_lmerge_top(&lm)) >= 0) {
			uint32_t j = (uint32_t)top, held = S->jobs[j].nactive;
			struct kai_sched_why_info w;

			enum outcome how;

			kai_sched_why_clear(&w);
			if (heads)
				kai_sched_inc_head(S, j);
			if ((how = step(S, m, j, &w)) == PLACED)
				placed(S, j, held); /* the bound is wrong */
			else
				failed(S, m, j, how, &w);
			kai_sched_lmerge_next(&lm);
			n++;
		}
	}
	kai_sched_lmerge_fini(&lm);
	return n;
}

/*
 * The cluster is full (doc/scheduler.md, "The allocate phase once the
 * cluster is full"): no idle GPU is left on any schedulable node,
 * nothing is releasing, and every job the order still holds asks for
 * some GPU in its next step, so none of them can be placed in this
 * phase (idle capacity only shrinks in it).  Then nothing changes
 * between their tries -- no queue's allocation, so no admission and no
 * key; no capacity, so the memo's reasons are the ones the next job of
 * a shape would get -- and what a job gets depends only on its own
 * leaf's order (its "N ahead" count).  What still depends on the order
 * across leaves must be spent first: the start-estimate candidates are
 * all noted, and no reservation can be handed out any more.
 */
static bool
filled(const struct sess *S, const struct kai_sched_order *o)
{
	return S->idle_ugpu == 0 && o->gpu_only && !S->keep_order &&
	    (!S->bf_on || kai_sched_bf_spent(S)) &&
	    (S->cf->est_jobs == 0 || S->nest_cand == S->cf->est_jobs);
}

/* The start-estimate candidates noted so far, taken out of S. */
struct cands {
	uint32_t *j, n;
};

static void
cands_take(struct sess *S, struct cands *c)
{
	c->j = NULL;
	c->n = S->nest_cand;
	if (c->n > 0) {
		c->j = kai_xcalloc(c->n, sizeof(*c->j));
		memcpy(c->j, S->est_cand, c->n * sizeof(*c->j));
	}
	S->nest_cand = 0;
}

/*
 * The switch (doc/scheduler.md, "Closed leaves with reservations"): no
 * more reservations can be handed out, so the closed leaves' jobs not
 * reached yet would fail as in the closed pass.  They leave the order
 * and get the closed pass's treatment now, against the capacity as it
 * is now; their start-estimate candidates go to *later, to come after
 * the open leaves' ones.  The closed pass's order wrote the queues' keys
 * in the session: the open leaves' order is built again over the runs
 * as they stand.
 */
static void
switch_closed(struct sess *S, struct kai_sched_order *o, struct cands *later)
{
	struct kai_sched_order rest;
	struct cands before;

	kai_sched_order_init_rest(&rest, o, S->closed);
	kai_sched_order_drop(o, S->closed);
	cands_take(S, &before);
	closed_pass(S, &rest);
	cands_take(S, later);
	if (before.n > 0)
		memcpy(S->est_cand, before.j, before.n * sizeof(*before.j));
	S->nest_cand = before.n;
	free(before.j);
	kai_sched_order_rebuild(o);
}

/*
 * One pass of the phase over the jobs want() takes, in queue order.
 * With closed leaves in it (reservations on), they leave it at the
 * switch; *later gets their start-estimate candidates.
 */
static void
pass(struct sess *S, kai_sched_want_fn *which, bool closed,
    struct cands *later)
{
	struct kai_sched_order o;
	struct kai_sched_memo m;
	/* kai_sched_releasing(), once filled() holds (-1: not yet asked).
	 * Once the reservations are spent the answer no longer changes in
	 * the phase: nothing in it evicts, and nothing ends. */
	int rel = -1;
	int64_t top;

	kai_sched_memo_init(&m);
	kai_sched_order_init(&o, S, which);
	while ((top = kai_sched_order_top(&o)) >= 0) {
		uint32_t j = (uint32_t)top, held;
		struct kai_sched_why_info w;

		enum outcome how;

		/* The rest leaf by leaf, with the same memo: the tree's
		 * keys no longer need re-keying at every job. */
		if (!closed && rel != 1 && filled(S, &o)) {
			if (rel < 0)
				rel = kai_sched_releasing(S);
			if (rel == 0) {
				S->nfilled += by_leaf(S, &o, &m, NULL, false);
				break;
			}
		}
		held = S->jobs[j].nactive;
		kai_sched_why_clear(&w);
		if ((how = step(S, &m, j, &w)) == PLACED) {
			placed(S, j, held);
			kai_sched_order_next(&o, j, S->jobs[j].npending > 0);
		} else {
			failed(S, &m, j, how, &w);
			kai_sched_order_next(&o, j, false);
			if (closed && kai_sched_bf_spent(S)) {
				switch_closed(S, &o, later);
				closed = false;
			}
		}
	}
	kai_sched_order_fini(&o);
	kai_sched_memo_fini(&m);
}

/*
 * The closed leaves' pass.  Nothing can be placed, so nothing changes
 * between their jobs: no queue's key, no capacity, no admission.  Each
 * leaf is taken on its own, in its own order (which is all its jobs'
 * reasons and "N ahead" counts depend on; the memo's reasons depend on
 * the shape and the capacity only), without re-keying the tree at every
 * job.  The start-estimate candidates are the first waiting jobs in the
 * tree's order: the order is rewound and walked until they are found
 * (est_note() takes what failed() would have given it: a reason it
 * stored is a waiting job's own, or Priority for one, never a limit's).
 * o holds the closed leaves' jobs; it is finished here.
 */
static void
closed_pass(struct sess *S, struct kai_sched_order *o)
{
	struct kai_sched_memo m;
	int64_t top;

	kai_sched_memo_init(&m);
	(void)by_leaf(S, o, &m, S->closed, S->inc != NULL);
	S->nest_cand = 0;
	if (S->cf->est_jobs > 0) {
		kai_sched_order_rewind(o);
		while (S->nest_cand < S->cf->est_jobs &&
		    (top = kai_sched_order_top(o)) >= 0) {
			uint32_t j = (uint32_t)top;

			if (S->jobs[j].nactive == 0 && S->jobs[j].nplaced == 0)
				kai_sched_est_note(S, j, &S->r->jobs[j].why);
			kai_sched_order_next(o, j, false);
		}
	}
	kai_sched_order_fini(o);
	kai_sched_memo_fini(&m);
}

/*
 * Closed leaves (closed.c) take no part in the order: their jobs get
 * their reasons first, against the capacity at the phase's start, in an
 * order of their own and with a memo of their own, so the open leaves'
 * pass is what it would be without them.  Their waiting jobs come after
 * the open leaves' among the start-estimate candidates.  While
 * reservations can still be handed out, they are handed out in the
 * order of every waiting job: the closed leaves stay in it until the
 * switch (switch_closed()).
 */
void
kai_sched_allocate(struct sess *S)
{
	struct cands later = {NULL, 0};
	uint32_t nclosed, nopen, i;
	struct kai_sched_why_info none;
	bool first;

	memset(S->blocked, 0, S->nq * sizeof(*S->blocked));
	/* Until the cycle ends; off when none can be made (backfill.c). */
	S->bf_on = !kai_sched_bf_none(S->s);
	S->bf_clock = S->s->now;
	S->bf_tested = 0;
	kai_sched_bf_phase(S);
	/* A pass with no job is still two walks over every job: skipped. */
	kai_sched_closed_leaves(S, want, &nclosed, &nopen);
	if ((S->keep_order || (S->keep_closed && S->bf_on)) && nclosed > 0) {
		memset(S->closed, 0, S->nq);
		nopen += nclosed;
		nclosed = 0;
	}
	first = nclosed > 0 && (!S->bf_on || kai_sched_bf_spent(S));
	if (first) {
		struct kai_sched_order o;

		kai_sched_order_init(&o, S, want_closed);
		closed_pass(S, &o);
		cands_take(S, &later);
	}
	if (first && nopen > 0)
		pass(S, want_open, false, NULL);
	else if (!first && nclosed + nopen > 0)
		pass(S, want, nclosed > 0, &later);
	/* They passed est_note's test when noted: a cleared reason
	 * lets them through again, after the open leaves' own. */
	kai_sched_why_clear(&none);
	for (i = 0; i < later.n; i++)
		kai_sched_est_note(S, later.j[i], &none);
	free(later.j);
	S->allocated = true;
}
