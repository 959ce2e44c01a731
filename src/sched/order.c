/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * order.c: which pending job goes next -- queue order down the tree,
 * then user order and job order inside a leaf queue.
 *
 * Queues.  At every level of the tree the children are compared with
 * KAI's rules, each subtree standing for its best pending job (its
 * "representative"); the first rule that separates two queues wins:
 *	1. not over its fair share first (over = above it in every tracked
 *	   resource the queue uses);
 *	2. allocated + the job's request within quota in every resource;
 *	3. higher queue priority;
 *	4. no zero-share penalty (using a resource whose allocatable share
 *	   is 0);
 *	5. lower dominant resource share with the job (DRF: max over the
 *	   resources of allocated / allocatable share);
 *	6. lower dominant share without it;
 *	7. smaller allocatable share (less in one resource, <= in all);
 *	8. older queue.
 * Jobs.  Inside a leaf the jobs are grouped by user; the next job is the
 * best group head by priority (higher first), elastic state (below its
 * minimum, at it, above it), then its account's GPUs in the leaf over the
 * account's weight (acctshare.c), then the user's usage -- their decayed
 * usage plus the GPUs the user holds in this queue now, as a share of
 * the cluster -- then age.  A user who has had less goes first at equal
 * priority, and a user's turn passes as soon as they get GPUs.
 *
 * Queues and groups are binary heaps (heap.c) with cached keys; a
 * group's jobs are one run of keys sorted once (their keys do not change
 * while they wait, and a run read in order stays in the cache, where a
 * heap of a million jobs' keys would miss at every level), so a pop costs
 * O(depth x log fan-out).  Anything that changes a queue's or
 * group's key (stmt.c marks them dirty) is re-keyed bottom-up before the
 * next pop.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

/*
 * Over its fair share in every resource it uses; for a job of GPU type
 * ty (>= 0), the type's share stands for the GPU share (gputype.c).
 */
static bool
over_typed(const struct sess *S, uint32_t q, int32_t ty)
{
	const struct squeue *Q = &S->q[q];
	bool used = false;
	int r;

	for (r = 0; r < NRES; r++) {
		if (r == R_GPU && ty >= 0) {
			if (!kai_sched_type_over(S, q, ty) &&
			    kai_sched_type_dshare(S, q, ty, 0) > 0)
				return false;
			used |= kai_sched_type_over(S, q, ty);
			continue;
		}
		if (S->total[r] < 0 || Q->alloc[r] <= 0)
			continue;
		if (Q->alloc[r] <= Q->fs[r])
			return false;
		used = true;
	}
	return used;
}

bool
kai_sched_queue_over(const struct sess *S, uint32_t q)
{
	return over_typed(S, q, -1);
}

static double
natural(int r, int64_t v)
{
	static const double unit[NRES] = {GPU_UNIT, 1000.0, 1024.0};

	return (double)v / unit[r];
}

/*
 * DRF: max over tracked resources of (alloc + add) / allocatable share;
 * for a job of GPU type ty (>= 0) the type's figures stand for the GPU's.
 */
static double
dshare_typed(const struct sess *S, uint32_t q, const int64_t *add, int32_t ty)
{
	const struct squeue *Q = &S->q[q];
	double best = 0, v;
	int r;

	for (r = 0; r < NRES; r++) {
		int64_t a = Q->alloc[r] + (add != NULL ? add[r] : 0);

		if (r == R_GPU && ty >= 0) {
			v = kai_sched_type_dshare(S, q, ty,
			    add != NULL ? add[r] : 0);
			if (v > best)
				best = v;
			continue;
		}
		if (S->total[r] < 0)
			continue;
		/* No allocatable share: the heaviest penalty, as in KAI. */
		v = Q->as[r] > 0 ? (double)a / (double)Q->as[r]
				 : natural(r, a) * 1000.0;
		if (v > best)
			best = v;
	}
	return best;
}

double
kai_sched_dshare(const struct sess *S, uint32_t q, const int64_t *add)
{
	return dshare_typed(S, q, add, -1);
}

/*
 * Recomputes q's key for its representative; false when nothing it
 * depends on (the queue's allocation, the representative's request)
 * changed, so the key and q's place in its heap are still right.
 */
bool
kai_sched_qkey_update(struct sess *S, uint32_t q, const int64_t *req)
{
	static const int64_t none[NRES] = {0, 0, 0};
	struct squeue *Q = &S->q[q];
	struct qkey *k = &Q->key;
	int32_t ty = S->gt != NULL && Q->rep >= 0
	    ? kai_sched_job_type(S, (uint32_t)Q->rep)
	    : -1;
	int r;

	if (req == NULL)
		req = none;
	if (!Q->kdirty && memcmp(req, Q->kreq, sizeof(Q->kreq)) == 0 &&
	    (S->qtype == NULL || S->qtype[q] == ty))
		return false;
	memcpy(Q->kreq, req, sizeof(Q->kreq));
	if (S->qtype != NULL)
		S->qtype[q] = ty;
	Q->kdirty = false;
	k->over = over_typed(S, q, ty);
	k->under_quota = true;
	k->zero_pen = false;
	for (r = 0; r < NRES; r++) {
		int64_t quota = S->s->queues[q].res[r].quota;

		if (quota >= 0 && Q->alloc[r] + req[r] > quota)
			k->under_quota = false;
		if (S->total[r] >= 0 && Q->as[r] == 0 &&
		    Q->alloc[r] + req[r] > 0)
			k->zero_pen = true;
	}
	k->prio = S->s->queues[q].priority;
	k->dsw = dshare_typed(S, q, req, ty);
	k->dswo = dshare_typed(S, q, NULL, ty);
	return true;
}

/* Rule 7: a is smaller than b in one resource and not larger in any. */
static bool
as_smaller(const struct squeue *a, const struct squeue *b)
{
	bool less = false;
	int r;

	for (r = 0; r < NRES; r++) {
		if (a->as[r] > b->as[r])
			return false;
		less |= a->as[r] < b->as[r];
	}
	return less;
}

static bool
queue_before(const void *ctx, uint32_t x, uint32_t y)
{
	const struct sess *S = ((const struct kai_sched_order *)ctx)->S;
	const struct squeue *a = &S->q[x], *b = &S->q[y];
	const struct qkey *ka = &a->key, *kb = &b->key;

	if (ka->over != kb->over)
		return !ka->over;
	if (ka->under_quota != kb->under_quota)
		return ka->under_quota;
	if (ka->prio != kb->prio)
		return ka->prio > kb->prio;
	if (ka->zero_pen != kb->zero_pen)
		return !ka->zero_pen;
	if (ka->dsw != kb->dsw)
		return ka->dsw < kb->dsw;
	if (ka->dswo != kb->dswo)
		return ka->dswo < kb->dswo;
	if (as_smaller(a, b))
		return true;
	if (as_smaller(b, a))
		return false;
	return x < y;
}

/* Job order: priority, elastic state, then age, then index. */
static bool
key_before(const struct okey *a, const struct okey *b)
{
	if (a->prio != b->prio)
		return a->prio > b->prio;
	if (a->elastic != b->elastic)
		return a->elastic < b->elastic;
	if (a->created != b->created)
		return a->created < b->created;
	return a->job < b->job;
}

static int
key_cmp(const void *a, const void *b)
{
	return key_before(a, b) ? -1 : key_before(b, a);
}

/*
 * A group's run into job order.  Most runs are short (a user's jobs in
 * one queue) and often in order already (jobs arrive in age order):
 * those are sorted in place with the comparison inline, a pass when
 * sorted; the long ones go to qsort().
 */
static void
sort_run(struct okey *a, uint32_t n)
{
	uint32_t i, p;

	if (n > 48) {
		qsort(a, n, sizeof(*a), key_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		struct okey k = a[i];

		if (!key_before(&k, &a[i - 1]))
			continue;
		for (p = i; p > 0 && key_before(&k, &a[p - 1]); p--)
			a[p] = a[p - 1];
		a[p] = k;
	}
}

static void
job_key(const struct kai_sched_order *o, uint32_t j, struct okey *k)
{
	const struct sess *S = o->S;

	k->prio = S->s->jobs[j].priority;
	k->created = S->s->jobs[j].created;
	k->elastic = kai_sched_elastic_state(S, j);
	k->job = j;
}

double
kai_sched_group_held(const struct sess *S, uint32_t g)
{
	if (S->total[R_GPU] <= 0)
		return 0;
	return (double)S->groups[g].alloc_gpu / (double)S->total[R_GPU];
}

static double
group_usage(const struct sess *S, uint32_t g)
{
	return kai_sched_usage_key(S->s, S->groups[g].user,
	    kai_sched_group_held(S, g));
}

/* The first job of group g in job order, or NONE32. */
static uint32_t
group_head(const struct kai_sched_order *o, uint32_t g)
{
	return o->gcur[g] < o->gend[g] ? o->jrun[o->gcur[g]].job : NONE32;
}

/* A group's key is its head job's, with the user's usage. */
static void
group_key(struct kai_sched_order *o, uint32_t g)
{
	uint32_t head = group_head(o, g);

	if (head == NONE32)
		return;
	o->gk[g].k = o->jrun[o->gcur[g]];
	o->gk[g].acct = kai_sched_acct_key(o->S, g);
	o->gk[g].usage = group_usage(o->S, g);
	kai_sched_step_req(o->S, head, o->gk[g].req);
}

/*
 * Group order: the head's priority and elastic state, then the user who
 * has had less, then the head's age.  Keys are cached, so the heaps stay
 * consistent whatever changes between two re-keys.
 */
static bool
group_before(const void *ctx, uint32_t x, uint32_t y)
{
	const struct kai_sched_order *o = ctx;
	const struct okey *a = &o->gk[x].k, *b = &o->gk[y].k;

	if (a->prio != b->prio)
		return a->prio > b->prio;
	if (a->elastic != b->elastic)
		return a->elastic < b->elastic;
	if (o->gk[x].acct != o->gk[y].acct)
		return o->gk[x].acct < o->gk[y].acct;
	if (o->gk[x].usage != o->gk[y].usage)
		return o->gk[x].usage < o->gk[y].usage;
	if (a->created != b->created)
		return a->created < b->created;
	return a->job < b->job;
}

/* The heap that holds queue q: its parent's, or the root. */
static struct kai_sched_heap *
home(struct kai_sched_order *o, uint32_t q)
{
	int32_t p = o->S->q[q].parent;

	return p >= 0 ? &o->qh[p] : &o->root;
}

/*
 * q's representative and key: the head of its best group (a leaf) or
 * of its best child.  The representative's request comes from the
 * cached keys, not from the job, which keeps re-keying off random
 * memory.
 */
static bool
refresh(struct kai_sched_order *o, uint32_t q)
{
	struct sess *S = o->S;
	uint32_t top = kai_sched_heap_top(&o->qh[q]);
	const int64_t *req = NULL;

	if (top == NONE32) {
		S->q[q].rep = -1;
	} else if (S->q[q].leaf) {
		S->q[q].rep = (int32_t)o->gk[top].k.job;
		req = o->gk[top].req;
	} else {
		S->q[q].rep = S->q[top].rep;
		req = S->q[top].kreq;
	}
	return kai_sched_qkey_update(S, q, req);
}

/* The jobs want() takes, or with want NULL the list jobs[0..n). */
static void
jobs_in(struct kai_sched_order *o, kai_sched_want_fn *want,
    const uint32_t *jobs, uint32_t n)
{
	struct sess *S = o->S;
	uint32_t i, j, g, nj = want != NULL ? (uint32_t)S->s->njobs : n;

	memset(o->gcur, 0, (S->ng + 1) * sizeof(*o->gcur));
	o->gpu_only = true;
	for (i = 0; i < nj; i++) {
		j = want != NULL ? i : jobs[i];
		if (want != NULL && !want(S, j))
			continue;
		o->gcur[S->jobs[j].group + 1]++;
		/* The step is in the entry want() just read. */
		o->gpu_only &= kai_sched_step(S, j)->sreq[R_GPU] > 0;
	}
	for (g = 0; g < S->ng; g++)
		o->gcur[g + 1] += o->gcur[g];
	memcpy(o->gend, o->gcur, (S->ng + 1) * sizeof(*o->gend));
	for (i = 0; i < nj; i++) {
		j = want != NULL ? i : jobs[i];
		if (want == NULL || want(S, j))
			job_key(o, j, &o->jrun[o->gend[S->jobs[j].group]++]);
	}
	for (g = 0; g < S->ng; g++) {
		sort_run(o->jrun + o->gcur[g], o->gend[g] - o->gcur[g]);
		group_key(o, g);
	}
}

static void
groups_in(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t *start = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*start));
	uint32_t g, q;

	for (g = 0; g < S->ng; g++)
		start[S->groups[g].leaf + 1]++;
	for (q = 0; q < S->nq; q++)
		start[q + 1] += start[q];
	for (q = 0; q < S->nq; q++)
		if (S->q[q].leaf)
			kai_sched_heap_init(&o->qh[q], o->gstore + start[q],
			    o->gpos, group_before, o);
	for (g = 0; g < S->ng; g++) {
		struct kai_sched_heap *h = &o->qh[S->groups[g].leaf];

		if (o->gcur[g] < o->gend[g])
			h->a[h->n++] = g;
	}
	kai_sched_free(S->ctx, start);
}

static void heaps_in(struct kai_sched_order *o);

static void
order_alloc(struct kai_sched_order *o, struct sess *S)
{
	/*
	 * The arrays are sized from the session and kept in it between
	 * phases (order_fini hands them back): four phases reuse one set
	 * instead of faulting in fresh memory four times.
	 */
	if (S->ordmem != NULL) {
		*o = *S->ordmem;
		KAI_FREE(S->ordmem);
	} else {
		memset(o, 0, sizeof(*o));
		o->qh = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*o->qh));
		o->gcur = kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*o->gcur));
		o->gend = kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*o->gend));
		o->qstore =
		    kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*o->qstore));
		o->rstore =
		    kai_sched_calloc(S->ctx, S->ntop + 1, sizeof(*o->rstore));
		o->gstore =
		    kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*o->gstore));
		o->jrun = kai_sched_calloc(S->ctx, S->s->njobs + 1,
		    sizeof(*o->jrun));
		o->gk = kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*o->gk));
		o->qpos = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*o->qpos));
		o->gpos = kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*o->gpos));
	}
	o->S = S;
}

void
kai_sched_order_init(struct kai_sched_order *o, struct sess *S,
    kai_sched_want_fn *want)
{
	order_alloc(o, S);
	jobs_in(o, want, NULL, 0);
	heaps_in(o);
}

/*
 * The same over jobs[0..n) only (any order): a phase that found the few
 * jobs it wants in a pass of its own, so that the order does not call
 * want() twice for each of a million jobs.
 */
void
kai_sched_order_init_jobs(struct kai_sched_order *o, struct sess *S,
    const uint32_t *jobs, uint32_t n)
{
	order_alloc(o, S);
	jobs_in(o, NULL, jobs, n);
	heaps_in(o);
}

/*
 * An order over the jobs src has not taken yet in the leaves marked in
 * leaves[]: their runs are copied, already sorted (a job's key is fixed
 * while nothing of it is placed), instead of walking and sorting every
 * job again.  Runs stay contiguous, group after group, as
 * kai_sched_order_rewind() needs.
 */
void
kai_sched_order_init_rest(struct kai_sched_order *o,
    const struct kai_sched_order *src, const uint8_t *leaves)
{
	struct sess *S = src->S;
	uint32_t g, n = 0;

	order_alloc(o, S);
	o->gpu_only = src->gpu_only;
	for (g = 0; g < S->ng; g++) {
		o->gcur[g] = n;
		if (leaves[S->groups[g].leaf] && src->gcur[g] < src->gend[g]) {
			uint32_t k = src->gend[g] - src->gcur[g];

			memcpy(o->jrun + n, src->jrun + src->gcur[g],
			    k * sizeof(*o->jrun));
			n += k;
		}
		o->gend[g] = n;
		group_key(o, g);
	}
	heaps_in(o);
}

/* The heaps of groups and queues over the runs as they stand. */
static void
heaps_in(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t q;

	memset(o->qpos, 0xff, (S->nq + 1) * sizeof(*o->qpos));
	memset(o->gpos, 0xff, (S->ng + 1) * sizeof(*o->gpos));
	groups_in(o);
	kai_sched_heap_init(&o->root, o->rstore, o->qpos, queue_before, o);
	for (q = 0; q < S->nq; q++)
		if (!S->q[q].leaf)
			kai_sched_heap_init(&o->qh[q],
			    o->qstore + S->q[q].child0, o->qpos, queue_before,
			    o);
	/* Children have higher indices: build bottom-up from the end. */
	for (q = S->nq; q-- > 0;) {
		struct kai_sched_heap *h;

		kai_sched_heap_build(&o->qh[q]);
		S->q[q].kdirty = true;
		(void)refresh(o, q);
		if (S->q[q].rep < 0)
			continue;
		h = home(o, q);
		h->a[h->n++] = q;
	}
	kai_sched_heap_build(&o->root);
	S->nqdirty = S->ngdirty = 0;
	memset(S->qdirty, 0, S->nq);
	memset(S->gdirty, 0, S->ng);
}

/* Hands the arrays back to the session for the next phase. */
void
kai_sched_order_fini(struct kai_sched_order *o)
{
	struct sess *S = o->S;

	if (S != NULL && S->ordmem == NULL) {
		S->ordmem = kai_xmalloc(sizeof(*S->ordmem));
		*S->ordmem = *o;
		memset(o, 0, sizeof(*o));
		return;
	}
	kai_sched_order_free(o);
}

void
kai_sched_order_free(struct kai_sched_order *o)
{
	if (o == NULL)
		return;
	kai_sched_free(o->S->ctx, o->qh);
	kai_sched_free(o->S->ctx, o->gcur);
	kai_sched_free(o->S->ctx, o->gend);
	kai_sched_free(o->S->ctx, o->qstore);
	kai_sched_free(o->S->ctx, o->rstore);
	kai_sched_free(o->S->ctx, o->gstore);
	kai_sched_free(o->S->ctx, o->jrun);
	kai_sched_free(o->S->ctx, o->gk);
	kai_sched_free(o->S->ctx, o->qpos);
	kai_sched_free(o->S->ctx, o->gpos);
	memset(o, 0, sizeof(*o));
}

static void
settle_groups(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t i;

	for (i = 0; i < S->ngdirty; i++) {
		uint32_t g = S->gdirty_list[i];
		struct kai_sched_heap *h = &o->qh[S->groups[g].leaf];

		S->gdirty[g] = 0;
		if (!kai_sched_heap_has(h, g))
			continue;
		if (o->gcur[g] == o->gend[g]) {
			kai_sched_heap_remove(h, g);
		} else {
			group_key(o, g);
			kai_sched_heap_fix(h, g);
		}
		kai_sched_touch_queue(S, S->groups[g].leaf);
	}
	S->ngdirty = 0;
}

/* Re-keys every dirty queue and its ancestors, bottom-up. */
static void
settle(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t i;

	settle_groups(o);
	for (i = 0; i < S->nqdirty; i++) {
		int32_t q = (int32_t)S->qdirty_list[i];

		S->qdirty[q] = 0;
		for (; q >= 0; q = S->q[q].parent) {
			struct kai_sched_heap *h = home(o, (uint32_t)q);

			bool moved = refresh(o, (uint32_t)q);

			if (S->q[q].rep < 0)
				kai_sched_heap_remove(h, (uint32_t)q);
			else if (moved)
				kai_sched_heap_fix(h, (uint32_t)q);
		}
	}
	S->nqdirty = 0;
}

int64_t
kai_sched_order_top(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t q;

	settle(o);
	if ((q = kai_sched_heap_top(&o->root)) == NONE32)
		return -1;
	while (!S->q[q].leaf)
		q = kai_sched_heap_top(&o->qh[q]);
	return (int64_t)group_head(o, kai_sched_heap_top(&o->qh[q]));
}

/*
 * Both ends of an entry: a session job (80 bytes) or a snapshot job (96)
 * always spans two cache lines, and the step request the group's re-key
 * reads in the session entry lies wholly or partly in the second one
 * for three jobs in four.
 */
static void
prefetch_entry(const void *p, size_t size, int write)
{
	const char *c = p;

	if (write) {
		__builtin_prefetch(c, 1);
		__builtin_prefetch(c + size - 1, 1);
	} else {
		__builtin_prefetch(c);
		__builtin_prefetch(c + size - 1);
	}
}

/*
 * The group's next jobs are taken some pops from now, and what the
 * allocate step reads of them (their session, snapshot and result
 * entries) lies anywhere in arrays of a million jobs: ask for those
 * lines now, so that a pop does not wait on memory each time.
 */
static void
prefetch_head(const struct kai_sched_order *o, uint32_t g)
{
	const struct sess *S = o->S;
	uint32_t i;

	for (i = o->gcur[g]; i < o->gend[g] && i < o->gcur[g] + 2; i++) {
		uint32_t h = o->jrun[i].job;

		prefetch_entry(&S->jobs[h], sizeof(S->jobs[h]), 0);
		prefetch_entry(&S->s->jobs[h], sizeof(S->s->jobs[h]), 0);
		prefetch_entry(&S->r->jobs[h], sizeof(S->r->jobs[h]), 1);
	}
}

void
kai_sched_order_next(struct kai_sched_order *o, uint32_t j, bool keep)
{
	uint32_t g = o->S->jobs[j].group, at = o->gcur[g], p;
	struct okey k;

	/*
	 * j is the head of its group, at the run's cursor.  Done with it:
	 * the cursor moves on.  To be placed again (elastic), it goes back
	 * under its new key: the jobs that now come before it move up one
	 * into its slot (its state only grows, so its key moves back).
	 */
	if (!keep) {
		o->gcur[g]++;
	} else {
		o->gpu_only &= kai_sched_step(o->S, j)->sreq[R_GPU] > 0;
		job_key(o, j, &k);
		for (p = at + 1; p < o->gend[g] && key_before(&o->jrun[p], &k);
		     p++)
			o->jrun[p - 1] = o->jrun[p];
		o->jrun[p - 1] = k;
	}
	prefetch_head(o, g);
	kai_sched_touch_group(o->S, g);
}

/*
 * Back to the order as kai_sched_order_init() made it (the runs are
 * contiguous, group after group; jobs taken with keep false only):
 * every group's cursor at its run's start, the heaps built again.
 */
void
kai_sched_order_rewind(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t g;

	for (g = 0; g < S->ng; g++)
		o->gcur[g] = g > 0 ? o->gend[g - 1] : 0;
	kai_sched_order_rebuild(o);
}

/*
 * The jobs of the leaves marked in leaves[] that are not taken yet
 * leave the order for good (allocate.c, closed leaves with
 * reservations): their groups' cursors go to the runs' ends.  The heaps
 * are not touched: kai_sched_order_rebuild() must follow.
 */
void
kai_sched_order_drop(struct kai_sched_order *o, const uint8_t *leaves)
{
	struct sess *S = o->S;
	uint32_t g;

	for (g = 0; g < S->ng; g++)
		if (leaves[S->groups[g].leaf])
			o->gcur[g] = o->gend[g];
}

/*
 * The heaps built again over the runs as they stand: every key is a
 * function of the session's state, so the order is the one the
 * incremental re-keying would have kept (another order built meanwhile
 * wrote the queues' keys and representatives in the session).
 */
void
kai_sched_order_rebuild(struct kai_sched_order *o)
{
	struct sess *S = o->S;
	uint32_t g;

	for (g = 0; g < S->ng; g++)
		group_key(o, g);
	heaps_in(o);
}
