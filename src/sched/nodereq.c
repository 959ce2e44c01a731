/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodereq.c: the nodes a job chose for itself -- Slurm's --constraint
 * (node features), --nodelist and --exclude (sched_model.h, struct
 * kai_sched_nodereq; doc/scheduler.md, "Node constraints").
 *
 * kai_sched_pool_allows() asks kai_sched_nodereq_allows() at every
 * placement, so every phase (allocate, consolidation, reclaim, preempt,
 * the backfill reservations and the start estimates) keeps a job on the
 * nodes it asked for.  A node's features are a 64-bit set and each
 * alternative of the constraint is one too, so the feature test is an AND
 * per alternative; the node lists are sorted indices, searched by halves.
 *
 * Matching OR ([a|b]): all the job's nodes must satisfy one and the same
 * alternative.  Each such job keeps the set of alternatives every one of
 * its active tasks' nodes satisfies (open[j], one bit per alternative);
 * a node may take another task when it satisfies one of them.  The set
 * narrows at each placement and is worked out again from the tasks when
 * a placement is undone, so a rollback leaves it exact.  A job with
 * nothing active may start on any alternative; kai_sched_try_step() tries
 * them one at a time (kai_sched_nodereq_try()), so a gang that fits on
 * the nodes of the second alternative only is not lost to a greedy first
 * node of the first.
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

static const struct kai_sched_nodereq *
req_of(const struct sess *S, uint32_t j)
{
	uint32_t r = S->s->jobs[j].nodereq;

	return r == 0 ? NULL : &S->s->nodereqs[r - 1];
}

static bool
listed(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The alternatives of R that node n satisfies, one bit each. */
static uint64_t
satisfied(const struct sess *S, const struct kai_sched_nodereq *R, uint32_t n)
{
	uint64_t f = S->s->nodes[n].features, out = 0;
	size_t a;

	for (a = 0; a < R->nalts; a++)
		if ((R->alts[a] & ~f) == 0)
			out |= UINT64_C(1) << a;
	return out;
}

static uint64_t
all_alts(const struct kai_sched_nodereq *R)
{
	return R->nalts >= 64 ? ~UINT64_C(0)
			      : (UINT64_C(1) << R->nalts) - 1;
}

/* Where a job of R with nothing active may start. */
static uint64_t
start_alts(const struct sess *S, uint32_t j, const struct kai_sched_nodereq *R)
{
	if (S->try_job == (int64_t)j)
		return UINT64_C(1) << S->try_alt;
	return all_alts(R);
}

/* Node n is in R's lists (ignoring features). */
static bool
lists_allow(const struct kai_sched_nodereq *R, uint32_t n)
{
	if (R->nnever > 0 && listed(R->never, R->nnever, n))
		return false;
	return !R->only_set || listed(R->only, R->nonly, n);
}

/* open[j] again from j's active tasks. */
static void
recompute(struct sess *S, uint32_t j, const struct kai_sched_nodereq *R)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint64_t m = start_alts(S, j, R);
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (kai_sched_task_active(&S->tasks[t]))
			m &= satisfied(S, R, (uint32_t)S->tasks[t].node);
	S->open[j] = m;
}

void
kai_sched_nodereq_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t j, r;
	uint32_t n;

	S->try_job = -1;
	if (s->nnodereqs == 0)
		return;
	S->req_nodes = kai_xcalloc(s->nnodereqs, sizeof(*S->req_nodes));
	S->req_feat = kai_xcalloc(s->nnodereqs, sizeof(*S->req_feat));
	for (r = 0; r < s->nnodereqs; r++) {
		const struct kai_sched_nodereq *R = &s->nodereqs[r];

		for (n = 0; n < S->nn; n++) {
			bool f = R->nalts == 0 || satisfied(S, R, n) != 0;

			/* Any node, schedulable or not: whether the
			 * features exist at all. */
			S->req_feat[r] += f;
			S->req_nodes[r] += S->nodes[n].ok && f &&
			    lists_allow(R, n);
		}
	}
	S->open = kai_sched_calloc(S->ctx, s->njobs, sizeof(*S->open));
	for (j = 0; j < s->njobs; j++) {
		const struct kai_sched_nodereq *R = req_of(S, (uint32_t)j);

		if (R != NULL && R->match)
			recompute(S, (uint32_t)j, R);
	}
}

void
kai_sched_nodereq_fini(struct sess *S)
{
	KAI_FREE(S->req_nodes);
	KAI_FREE(S->req_feat);
	kai_sched_free(S->ctx, S->open);
	S->open = NULL;
}

bool
kai_sched_nodereq_allows(const struct sess *S, uint32_t j, uint32_t n)
{
	const struct kai_sched_nodereq *R = req_of(S, j);
	uint64_t sat;

	if (R == NULL)
		return true;
	if (!lists_allow(R, n))
		return false;
	if (R->nalts == 0)
		return true;
	sat = satisfied(S, R, n);
	if (!R->match)
		return sat != 0;
	return (sat & (S->jobs[j].nactive > 0 ? S->open[j]
					      : start_alts(S, j, R))) != 0;
}

void
kai_sched_nodereq_placed(struct sess *S, uint32_t t)
{
	uint32_t j = kai_sched_task_job(S, t);
	const struct kai_sched_nodereq *R = req_of(S, j);

	if (R == NULL || !R->match || R->nalts == 0)
		return;
	/* Called before the task counts as active. */
	if (S->jobs[j].nactive == 0)
		S->open[j] = start_alts(S, j, R);
	S->open[j] &= satisfied(S, R, (uint32_t)S->tasks[t].node);
}

void
kai_sched_nodereq_undone(struct sess *S, uint32_t t)
{
	uint32_t j = kai_sched_task_job(S, t);
	const struct kai_sched_nodereq *R = req_of(S, j);

	if (R != NULL && R->match && R->nalts > 0)
		recompute(S, j, R);
}

uint32_t
kai_sched_nodereq_starts(const struct sess *S, uint32_t j)
{
	const struct kai_sched_nodereq *R = req_of(S, j);

	if (R == NULL || !R->match || R->nalts < 2 || S->jobs[j].nactive > 0)
		return 0;
	return (uint32_t)R->nalts;
}

void
kai_sched_nodereq_try(struct sess *S, uint32_t j, int32_t alt)
{
	S->try_job = alt < 0 ? -1 : (int64_t)j;
	S->try_alt = alt < 0 ? 0 : alt;
}

bool
kai_sched_nodereq_none(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *w)
{
	uint32_t r = S->s->jobs[j].nodereq;

	if (r == 0 || S->req_nodes[r - 1] > 0)
		return false;
	w->why = S->req_feat[r - 1] == 0 ? KAI_SCHED_WHY_NO_FEATURE_NODES
					 : KAI_SCHED_WHY_NO_REQ_NODES;
	w->a = r - 1;
	return true;
}
