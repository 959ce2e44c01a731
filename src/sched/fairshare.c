/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fairshare.c: each queue's fair share of each resource, divided down the
 * queue tree once at the start of the cycle (KAI's proportion plugin).
 *
 * Siblings divide their parent's fair share (top-level queues divide the
 * cluster), one resource at a time:
 *	1. deserved: each queue gets min(quota, requestable), quota -1
 *	   meaning the whole amount; requestable = min(requested, limit),
 *	   requested = allocated + pending.  Quotas may add up to more than
 *	   there is; then nothing is left for step 2.
 *	2. over quota: the rest goes to the highest priority level first,
 *	   lower levels get what it leaves.  Within a level, in rounds, each
 *	   unsatisfied queue of non-zero weight w gets
 *		share = left * P / sum(P),
 *		P = max(0, w' + k * (w' - U)),  w' = w / sum(w),
 *	   U its normalised historical usage (time-based fair share; k = 0
 *	   or no usage gives plain weights).  A queue that needs less than
 *	   its share takes what it needs; the others take floor(share) in
 *	   whole units (1 GPU, 1 millicore, 1 MiB) and remember the
 *	   fraction.  Another round runs while a satisfied queue left some.
 *	3. leftover: what the rounding kept goes one unit at a time to the
 *	   largest remembered fraction first, ties to the older queue.
 * A resource no node tracks (cpu_millis or memory_mib absent) has no
 * share: -1 for every queue.  Queues are visited in creation order, so
 * the result never depends on anything but the snapshot.
 *
 * The division works on per queue arrays (struct kai_sched_fsview), so
 * that gputype.c divides each GPU type's GPUs with the same code.
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct div {
	struct sess *S;
	const struct kai_sched_fsview *v;
	double *rem; /* per queue: fraction kept by rounding */
};

static int64_t
requestable(const struct div *d, uint32_t q)
{
	int64_t lim = d->v->limit[q], req = d->v->req[q];

	return lim >= 0 && lim < req ? lim : req;
}

static int64_t
remaining(const struct div *d, uint32_t q)
{
	int64_t want = requestable(d, q), fs = d->v->fs[q];

	return want > fs ? want - fs : 0;
}

static bool
satisfied(const struct div *d, uint32_t q)
{
	int64_t lim = d->v->limit[q], fs = d->v->fs[q];

	return d->v->req[q] <= fs || (lim >= 0 && lim <= fs);
}

/* Share weights of the unsatisfied queues; returns their sum. */
static double
weights(const struct div *d, const uint32_t *ids, size_t n, double *P)
{
	double wsum = 0, psum = 0, k = d->S->s->config.k_value;
	size_t i;

	if (!(k > 0))
		k = 0;
	for (i = 0; i < n; i++)
		if (remaining(d, ids[i]) > 0)
			wsum += d->v->weight[ids[i]];
	if (wsum <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		double w = d->v->weight[ids[i]] / wsum;

		P[i] = 0;
		if (satisfied(d, ids[i]) || remaining(d, ids[i]) == 0)
			continue;
		P[i] = w + k * (w - d->v->usage[ids[i]]);
		if (P[i] < 0)
			P[i] = 0;
		psum += P[i];
	}
	return psum;
}

/* Step 2 for one priority level; returns what is left. */
static int64_t
rounds(struct div *d, const uint32_t *ids, size_t n, int64_t left)
{
	double *P = kai_xcalloc(n, sizeof(*P));
	int64_t unit = d->v->unit;

	for (;;) {
		double psum = weights(d, ids, n, P), C = (double)left;
		bool again = false;
		size_t i;

		if (psum <= 0)
			break;
		for (i = 0; i < n && left > 0; i++) {
			uint32_t q = ids[i];
			int64_t rq = remaining(d, q), give;
			double share = C * P[i] / psum;

			if (satisfied(d, q) || d->v->weight[q] <= 0)
				continue;
			if ((double)rq <= share) {
				give = rq;
				d->rem[q] = 0;
			} else {
				/* share >= 0: truncation is floor. */
				give = (int64_t)(share / (double)unit) * unit;
				d->rem[q] = share - (double)give;
			}
			if (give > left)
				give = left;
			d->v->fs[q] += give;
			left -= give;
			again |= (double)rq < share;
		}
		if (!again || left <= 0)
			break;
	}
	free(P);
	return left;
}

struct remq {
	uint32_t q;
	double rem;
};

static int
remq_cmp(const void *a, const void *b)
{
	const struct remq *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->q < y->q ? -1 : x->q > y->q;
}

/* Step 3: one unit each, largest remainder first, older on ties. */
static int64_t
leftover(struct div *d, const uint32_t *ids, size_t n, int64_t left)
{
	struct remq *v = kai_xcalloc(n, sizeof(*v));
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (d->rem[ids[i]] > 0) {
			v[m].q = ids[i];
			v[m++].rem = d->rem[ids[i]];
		}
	qsort(v, m, sizeof(*v), remq_cmp);
	for (i = 0; i < m && left > 0; i++) {
		int64_t give = d->v->unit, rq = remaining(d, v[i].q);

		/* Never past what the queue asked for. */
		if (give > rq)
			give = rq;
		if (give > left)
			give = left;
		d->v->fs[v[i].q] += give;
		left -= give;
	}
	free(v);
	return left;
}

static int
by_priority(const void *a, const void *b, const struct sess *S)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t px = S->s->queues[x].priority, py = S->s->queues[y].priority;

	if (px != py)
		return px > py ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Insertion sort: sibling lists are short and qsort has no context. */
static void
sort_siblings(const struct sess *S, uint32_t *ids, size_t n)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		uint32_t v = ids[i];

		for (k = i; k > 0 && by_priority(&ids[k - 1], &v, S) > 0; k--)
			ids[k] = ids[k - 1];
		ids[k] = v;
	}
}

void
kai_sched_fs_divide(struct sess *S, const struct kai_sched_fsview *v,
    const uint32_t *sib, size_t n, int64_t total)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t *ids = kai_xcalloc(n + 1, sizeof(*ids));
	struct div d;
	int64_t left = total;
	size_t i, b;

	d.S = S;
	d.v = v;
	d.rem = kai_xcalloc(S->nq + 1, sizeof(*d.rem));
	for (i = 0; i < n; i++) {
		int64_t quota = v->quota[sib[i]];
		int64_t give = requestable(&d, sib[i]);

		if (quota >= 0 && quota < give)
			give = quota;
		if (quota < 0 && total < give)
			give = total;
		v->fs[sib[i]] = give;
		left -= give;
		ids[i] = sib[i];
	}
	sort_siblings(S, ids, n);
	for (b = 0; b < n && left > 0;) {
		size_t e = b;

		while (e < n &&
		    s->queues[ids[e]].priority == s->queues[ids[b]].priority)
			e++;
		left = rounds(&d, ids + b, e - b, left);
		if (left > 0)
			left = leftover(&d, ids + b, e - b, left);
		b = e;
	}
	free(d.rem);
	free(ids);
}

static void
allocatable(struct sess *S, uint32_t q)
{
	int r;

	for (r = 0; r < NRES; r++) {
		const struct kai_sched_qres *x = &S->s->queues[q].res[r];
		int64_t as;

		if (S->total[r] < 0) {
			S->q[q].as[r] = -1;
			continue;
		}
		if (x->quota < 0) {
			as = x->limit >= 0 ? x->limit : S->total[r];
		} else {
			as =
			    x->quota > S->q[q].fs[r] ? x->quota : S->q[q].fs[r];
			if (x->limit >= 0 && x->limit < as)
				as = x->limit;
		}
		S->q[q].as[r] = as;
	}
}

/* The snapshot's figures of resource r as arrays by queue. */
struct resview {
	struct kai_sched_fsview v;
	int64_t *quota, *limit, *req, *fs;
	double *weight, *usage;
};

static void
resview_init(struct resview *rv, const struct sess *S, int r)
{
	uint32_t q;

	rv->quota = kai_xcalloc(S->nq + 1, sizeof(int64_t));
	rv->limit = kai_xcalloc(S->nq + 1, sizeof(int64_t));
	rv->req = kai_xcalloc(S->nq + 1, sizeof(int64_t));
	rv->fs = kai_xcalloc(S->nq + 1, sizeof(int64_t));
	rv->weight = kai_xcalloc(S->nq + 1, sizeof(double));
	rv->usage = kai_xcalloc(S->nq + 1, sizeof(double));
	for (q = 0; q < S->nq; q++) {
		const struct kai_sched_qres *x = &S->s->queues[q].res[r];

		rv->quota[q] = x->quota;
		rv->limit[q] = x->limit;
		rv->weight[q] = x->weight;
		rv->usage[q] = x->usage;
		rv->req[q] = S->q[q].req[r];
	}
	rv->v.quota = rv->quota;
	rv->v.limit = rv->limit;
	rv->v.req = rv->req;
	rv->v.weight = rv->weight;
	rv->v.usage = rv->usage;
	rv->v.fs = rv->fs;
	rv->v.unit = r == R_GPU ? GPU_UNIT : 1;
}

static void
resview_fini(struct resview *rv)
{
	free(rv->quota);
	free(rv->limit);
	free(rv->req);
	free(rv->fs);
	free(rv->weight);
	free(rv->usage);
}

void
kai_sched_fairshare(struct sess *S)
{
	struct resview rv;
	uint32_t q;
	int r;

	for (r = 0; r < NRES; r++) {
		if (S->total[r] < 0) {
			for (q = 0; q < S->nq; q++)
				S->q[q].fs[r] = -1;
			continue;
		}
		resview_init(&rv, S, r);
		kai_sched_fs_divide(S, &rv.v, S->top, S->ntop, S->total[r]);
		/* Parents come first, so their share is known. */
		for (q = 0; q < S->nq; q++)
			if (S->q[q].nchild > 0)
				kai_sched_fs_divide(S, &rv.v,
				    S->qchild + S->q[q].child0,
				    S->q[q].nchild, rv.fs[q]);
		for (q = 0; q < S->nq; q++)
			S->q[q].fs[r] = rv.fs[q];
		resview_fini(&rv);
	}
	for (q = 0; q < S->nq; q++) {
		const struct kai_sched_snap_queue *in = &S->s->queues[q];
		int32_t p = S->q[q].parent;

		/* Parents come first: their flags are known. */
		S->q[q].no_limit = p < 0 || S->q[p].no_limit;
		S->q[q].no_quota = p < 0 || S->q[p].no_quota;
		for (r = 0; r < NRES; r++) {
			S->q[q].no_limit &= in->res[r].limit < 0;
			S->q[q].no_quota &= in->res[r].quota < 0;
		}
	}
	for (q = 0; q < S->nq; q++) {
		allocatable(S, q);
		S->r->queues[q].fair_share[R_GPU] = S->q[q].fs[R_GPU];
		S->r->queues[q].fair_share[R_CPU] = S->q[q].fs[R_CPU];
		S->r->queues[q].fair_share[R_MEM] = S->q[q].fs[R_MEM];
	}
	kai_sched_types_fairshare(S);
}
