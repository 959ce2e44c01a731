/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gputype.c: quotas, limits and fair shares per GPU type (KAI issue 145):
 * a cluster with A100 and H100 nodes lets a queue be guaranteed 4 H100s
 * and capped at 8 A100s, on top of what it gets in GPUs of any type.
 *
 * A node's type is the value of one label (kaid takes
 * nvidia.com/gpu.product unless kaid.yaml names another); a job that
 * names a type runs only on nodes of that type and counts against its
 * queues' quota and limit of that type as well as against their GPU
 * quota and limit; a job that names none runs on any type.  What a queue
 * holds of a type is what its tasks hold on nodes of that type, whoever
 * named it, so a type's limit also keeps a job that named no type off
 * that type's nodes once the queue is at it (kai_sched_type_allows).
 *
 * Each type's GPUs are divided among the queues like a resource of its
 * own (fairshare.c's division, on per type arrays): quota first, then
 * the rest by over-quota weight among the queues that want the type
 * (what they hold of it plus the pending jobs that name it).  A type a
 * queue does not name has quota 0, no limit and the queue's GPU weight,
 * so the queues that name nothing share every type by their GPU weight.
 * The queue order (order.c) compares queues for a job that names a type
 * by their share of that type in place of their share of all GPUs, and
 * reclaim (reclaim.c) takes back a type's share for such a job.
 *
 * Nothing here runs when the snapshot names no type: sess.gt is NULL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct tq {
	int64_t quota, limit; /* uGPU; -1 unlimited / none */
	double weight, usage;
	bool named;	       /* the queue names the type */
	int64_t fs, as;	       /* fair share, allocatable share */
	int64_t alloc, alloc_np, req;
};

struct kai_sched_gtypes {
	uint32_t nt;
	const char **name;  /* sorted; borrowed from the snapshot */
	int32_t *node_type; /* per node, -1 none */
	int32_t *job_type;  /* per job, -1 any */
	int64_t *total;	    /* per type: uGPU on schedulable nodes */
	uint32_t *nnodes;   /* per type: schedulable nodes */
	struct tq *q;	    /* [q * nt + t] */
	bool *limited;	    /* per queue: it or an ancestor has a limit */
	int32_t *deepest;   /* per queue: the deepest one of those, or -1 */
};

static bool
named(const char *s)
{
	return s != NULL && *s != '\0';
}

static void
add_name(const char ***v, uint32_t *n, uint32_t *cap, const char *s)
{
	uint32_t i;

	if (!named(s))
		return;
	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*v = kai_xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = s;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int32_t
find(const struct kai_sched_gtypes *g, const char *s)
{
	const char **p;

	if (!named(s))
		return -1;
	p = bsearch(&s, g->name, g->nt, sizeof(*g->name), name_cmp);
	return p != NULL ? (int32_t)(p - g->name) : -1;
}

bool
kai_sched_types_none(const struct kai_sched_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (named(s->nodes[i].gpu_type))
			return false;
	for (i = 0; i < s->nqueues; i++)
		if (s->queues[i].ntypes > 0)
			return false;
	return s->ngpu_types == 0;
}

/* Every type the snapshot names, sorted; NULL when there is none. */
static struct kai_sched_gtypes *
collect(const struct kai_sched_snapshot *s)
{
	struct kai_sched_gtypes *g;
	const char **v = NULL;
	uint32_t n = 0, cap = 0;
	uint8_t *used; /* [1 + i]: a job asks for gpu_types[i] */
	size_t i, k;

	for (i = 0; i < s->nnodes; i++)
		add_name(&v, &n, &cap, s->nodes[i].gpu_type);
	for (i = 0; i < s->nqueues; i++)
		for (k = 0; k < s->queues[i].ntypes; k++)
			add_name(&v, &n, &cap, s->queues[i].types[k].type);
	used = kai_xcalloc(s->ngpu_types + 1, 1);
	/* A pass over a million jobs only when some job may name a type. */
	for (i = 0; s->ngpu_types > 0 && i < s->njobs; i++)
		used[s->jobs[i].gpu_type] = 1;
	for (i = 1; i <= s->ngpu_types; i++)
		if (used[i])
			add_name(&v, &n, &cap, s->gpu_types[i - 1]);
	free(used);
	if (n == 0)
		return NULL;
	qsort(v, n, sizeof(*v), name_cmp);
	g = kai_xcalloc(1, sizeof(*g));
	g->nt = n;
	g->name = v;
	return g;
}

static void
queue_settings(struct sess *S, struct kai_sched_gtypes *g)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t q, t;
	size_t k;

	g->limited = kai_xcalloc(S->nq + 1, sizeof(*g->limited));
	g->deepest = kai_xcalloc(S->nq + 1, sizeof(*g->deepest));
	for (q = 0; q < S->nq; q++) {
		const struct kai_sched_snap_queue *in = &s->queues[q];
		struct tq *row = &g->q[(size_t)q * g->nt];

		for (t = 0; t < g->nt; t++) {
			row[t].quota = 0;
			row[t].limit = -1;
			row[t].weight = in->res[R_GPU].weight;
			row[t].usage = in->res[R_GPU].usage;
		}
		for (k = 0; k < in->ntypes; k++) {
			const struct kai_sched_qtype *x = &in->types[k];
			struct tq *c = &row[find(g, x->type)];

			c->quota = x->quota;
			c->limit = x->limit;
			c->named = true;
			if (x->weight >= 0)
				c->weight = x->weight;
			if (x->limit >= 0)
				g->limited[q] = true;
		}
		/* Parents come first. */
		g->deepest[q] = g->limited[q] ? (int32_t)q
		    : in->parent >= 0	   ? g->deepest[in->parent]
					   : -1;
		if (in->parent >= 0 && g->limited[in->parent])
			g->limited[q] = true;
	}
}

static void
sums(struct sess *S, struct kai_sched_gtypes *g)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t t;
	uint32_t q, k;

	for (t = 0; t < s->ntasks; t++) {
		uint32_t j = S->task_job[t];
		const struct stask *st = &S->tasks[t];
		int64_t v[NRES];
		struct tq *c;
		int32_t ty;

		if (st->state == KAI_SCHED_TASK_RUNNING) {
			ty = g->node_type[st->node];
			if (ty < 0)
				continue;
			kai_sched_task_held(S, (uint32_t)t, v);
			c = &g->q[(size_t)s->jobs[j].queue * g->nt + (size_t)ty];
			c->alloc += v[R_GPU];
			c->req += v[R_GPU];
			if (!s->jobs[j].preemptible)
				c->alloc_np += v[R_GPU];
		} else if (st->state == KAI_SCHED_TASK_PENDING &&
		    !s->jobs[j].held && (ty = g->job_type[j]) >= 0) {
			kai_sched_task_req(S, (uint32_t)t, v);
			g->q[(size_t)s->jobs[j].queue * g->nt + (size_t)ty]
			    .req += v[R_GPU];
		}
	}
	/* Children come after their parents: sum from the end. */
	for (q = S->nq; q-- > 0;) {
		int32_t p = S->q[q].parent;

		if (p < 0)
			continue;
		for (k = 0; k < g->nt; k++) {
			struct tq *c = &g->q[(size_t)q * g->nt + k];
			struct tq *pc = &g->q[(size_t)p * g->nt + k];

			pc->alloc += c->alloc;
			pc->alloc_np += c->alloc_np;
			pc->req += c->req;
		}
	}
}

void
kai_sched_types_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	struct kai_sched_gtypes *g = collect(s);
	int32_t *jt; /* [1 + i]: the type of gpu_types[i]; [0] -1, any */
	uint32_t n;
	size_t j;

	if (g == NULL)
		return;
	S->gt = g;
	g->node_type = kai_xcalloc(S->nn + 1, sizeof(*g->node_type));
	g->job_type = kai_xcalloc(s->njobs + 1, sizeof(*g->job_type));
	g->total = kai_xcalloc(g->nt, sizeof(*g->total));
	g->nnodes = kai_xcalloc(g->nt, sizeof(*g->nnodes));
	g->q = kai_xcalloc((size_t)S->nq * g->nt + 1, sizeof(*g->q));
	S->qtype = kai_xcalloc(S->nq + 1, sizeof(*S->qtype));
	memset(S->qtype, 0xff, (S->nq + 1) * sizeof(*S->qtype));
	for (n = 0; n < S->nn; n++) {
		int32_t ty = find(g, s->nodes[n].gpu_type);

		g->node_type[n] = ty;
		if (ty < 0 || !S->nodes[n].ok)
			continue;
		g->total[ty] += (int64_t)S->nodes[n].ngpu * GPU_UNIT;
		g->nnodes[ty]++;
	}
	jt = kai_xcalloc(s->ngpu_types + 1, sizeof(*jt));
	jt[0] = -1;
	for (j = 0; j < s->ngpu_types; j++)
		jt[j + 1] = find(g, s->gpu_types[j]);
	for (j = 0; j < s->njobs; j++)
		g->job_type[j] = jt[s->jobs[j].gpu_type];
	free(jt);
	queue_settings(S, g);
	sums(S, g);
}

void
kai_sched_types_fini(struct sess *S)
{
	struct kai_sched_gtypes *g = S->gt;

	KAI_FREE(S->qtype);
	if (g == NULL)
		return;
	free(g->name);
	free(g->node_type);
	free(g->job_type);
	free(g->total);
	free(g->nnodes);
	free(g->q);
	free(g->limited);
	free(g->deepest);
	free(g);
	S->gt = NULL;
}

int32_t
kai_sched_job_type(const struct sess *S, uint32_t j)
{
	return S->gt != NULL ? S->gt->job_type[j] : -1;
}

static const struct tq *
cell(const struct sess *S, int32_t q, int32_t t)
{
	return &S->gt->q[(size_t)q * S->gt->nt + (size_t)t];
}

bool
kai_sched_type_allows(const struct sess *S, uint32_t t, uint32_t n)
{
	const struct kai_sched_gtypes *g = S->gt;
	uint32_t j;
	int32_t jt, nt, q;
	int64_t v[NRES];

	if (g == NULL)
		return true;
	j = kai_sched_task_job(S, t);
	jt = g->job_type[j];
	nt = g->node_type[n];
	if (jt >= 0 && nt != jt)
		return false;
	/*
	 * The limit, for every task: admission checked a step that names
	 * the type as a whole, but a running task that consolidation moves
	 * is placed again without it, after the pending job may have taken
	 * what it held.
	 */
	if (nt < 0 || !g->limited[S->s->jobs[j].queue])
		return true;
	kai_sched_task_req(S, t, v);
	if (v[R_GPU] <= 0)
		return true;
	for (q = (int32_t)S->s->jobs[j].queue; q >= 0; q = S->q[q].parent) {
		const struct tq *c = cell(S, q, nt);

		if (c->limit >= 0 && c->alloc + v[R_GPU] > c->limit)
			return false;
	}
	return true;
}

void
kai_sched_types_account(struct sess *S, uint32_t t, int64_t sign,
    int64_t ugpu)
{
	const struct kai_sched_gtypes *g = S->gt;
	uint32_t j;
	int32_t nt, q;

	if (g == NULL || ugpu == 0 || S->tasks[t].node < 0 ||
	    (nt = g->node_type[S->tasks[t].node]) < 0)
		return;
	j = kai_sched_task_job(S, t);
	for (q = (int32_t)S->s->jobs[j].queue; q >= 0; q = S->q[q].parent) {
		struct tq *c = &g->q[(size_t)q * g->nt + (size_t)nt];

		c->alloc += sign * ugpu;
		if (!S->s->jobs[j].preemptible)
			c->alloc_np += sign * ugpu;
	}
}

/* The division of one type, through fairshare.c on per type arrays. */
static void
divide_type(struct sess *S, uint32_t t)
{
	struct kai_sched_gtypes *g = S->gt;
	size_t n = S->nq + 1;
	int64_t *quota = kai_xcalloc(n, sizeof(int64_t));
	int64_t *limit = kai_xcalloc(n, sizeof(int64_t));
	int64_t *req = kai_xcalloc(n, sizeof(int64_t));
	int64_t *fs = kai_xcalloc(n, sizeof(int64_t));
	double *weight = kai_xcalloc(n, sizeof(double));
	double *usage = kai_xcalloc(n, sizeof(double));
	struct kai_sched_fsview v = {quota, limit, req, weight, usage, fs,
	    GPU_UNIT};
	uint32_t q;

	for (q = 0; q < S->nq; q++) {
		const struct tq *c = cell(S, (int32_t)q, (int32_t)t);

		quota[q] = c->quota;
		limit[q] = c->limit;
		req[q] = c->req;
		weight[q] = c->weight;
		usage[q] = c->usage;
	}
	kai_sched_fs_divide(S, &v, S->top, S->ntop, g->total[t]);
	for (q = 0; q < S->nq; q++)
		if (S->q[q].nchild > 0)
			kai_sched_fs_divide(S, &v, S->qchild + S->q[q].child0,
			    S->q[q].nchild, fs[q]);
	for (q = 0; q < S->nq; q++) {
		struct tq *c = &g->q[(size_t)q * g->nt + t];

		c->fs = fs[q];
		if (c->quota < 0)
			c->as = c->limit >= 0 ? c->limit : g->total[t];
		else
			c->as = c->quota > c->fs ? c->quota : c->fs;
		if (c->limit >= 0 && c->limit < c->as)
			c->as = c->limit;
	}
	free(quota);
	free(limit);
	free(req);
	free(fs);
	free(weight);
	free(usage);
}

void
kai_sched_types_fairshare(struct sess *S)
{
	uint32_t t;

	if (S->gt == NULL)
		return;
	for (t = 0; t < S->gt->nt; t++)
		divide_type(S, t);
}

static void
set(struct kai_sched_why_info *w, enum kai_sched_why why, int32_t q,
    uint32_t j, int64_t a, int64_t b, int64_t c)
{
	kai_sched_why_clear(w);
	w->why = why;
	w->res = KAI_SCHED_GPU;
	w->queue = q;
	w->job = (int32_t)j;
	w->a = a;
	w->b = b;
	w->c = c;
}

bool
kai_sched_types_admit(const struct sess *S, uint32_t j, int64_t gpu,
    struct kai_sched_why_info *w)
{
	const struct kai_sched_gtypes *g = S->gt;
	int32_t jt = kai_sched_job_type(S, j), q;

	if (jt < 0)
		return true;
	if (g->nnodes[jt] == 0) {
		set(w, KAI_SCHED_WHY_NO_TYPE_NODES, -1, j, 0, 0, 0);
		return false;
	}
	if (gpu <= 0)
		return true;
	for (q = (int32_t)S->s->jobs[j].queue; q >= 0; q = S->q[q].parent) {
		const struct tq *c = cell(S, q, jt);

		if (c->limit >= 0 && c->alloc + gpu > c->limit) {
			set(w, KAI_SCHED_WHY_TYPE_LIMIT, q, j, c->limit,
			    c->alloc, gpu);
			return false;
		}
	}
	if (S->s->jobs[j].preemptible)
		return true;
	/* Only a quota the queue names binds: the default 0 is a share. */
	for (q = (int32_t)S->s->jobs[j].queue; q >= 0; q = S->q[q].parent) {
		const struct tq *c = cell(S, q, jt);

		if (c->named && c->quota >= 0 &&
		    c->alloc_np + gpu > c->quota) {
			set(w, KAI_SCHED_WHY_TYPE_NP_QUOTA, q, j, c->quota,
			    c->alloc_np, gpu);
			return false;
		}
	}
	return true;
}

double
kai_sched_type_dshare(const struct sess *S, uint32_t q, int32_t t,
    int64_t add)
{
	const struct tq *c;
	int64_t a;

	if (S->gt == NULL || t < 0)
		return -1;
	c = cell(S, (int32_t)q, t);
	a = c->alloc + add;
	/* No allocatable share: the heaviest penalty, as in order.c. */
	return c->as > 0 ? (double)a / (double)c->as
			 : (double)a / GPU_UNIT * 1000.0;
}

bool
kai_sched_type_within_fs(const struct sess *S, uint32_t q, int32_t t,
    int64_t gpu)
{
	const struct tq *c;

	if (S->gt == NULL || t < 0 || gpu <= 0)
		return true;
	c = cell(S, (int32_t)q, t);
	return c->alloc + gpu <= c->fs;
}

bool
kai_sched_type_victim_side(const struct sess *S, uint32_t q, int32_t t,
    bool *above_quota)
{
	const struct tq *c;

	*above_quota = false;
	if (S->gt == NULL || t < 0)
		return false;
	c = cell(S, (int32_t)q, t);
	*above_quota = c->named && c->quota >= 0 && c->alloc > c->quota;
	return c->alloc > c->as;
}

bool
kai_sched_type_within_quota(const struct sess *S, uint32_t q, int32_t t,
    int64_t gpu)
{
	const struct tq *c;

	if (S->gt == NULL || t < 0 || gpu <= 0)
		return true;
	c = cell(S, (int32_t)q, t);
	return !c->named || c->quota < 0 || c->alloc + gpu <= c->quota;
}

void
kai_sched_type_figures(const struct sess *S, uint32_t q, int32_t t,
    int64_t *alloc, int64_t *fs, int64_t *quota)
{
	const struct tq *c = cell(S, (int32_t)q, t);

	*alloc = c->alloc;
	*fs = c->fs;
	*quota = c->named ? c->quota : -1;
}

bool
kai_sched_type_over(const struct sess *S, uint32_t q, int32_t t)
{
	const struct tq *c;

	if (S->gt == NULL || t < 0)
		return false;
	c = cell(S, (int32_t)q, t);
	return c->alloc > 0 && c->alloc > c->fs;
}

uint64_t
kai_sched_type_salt(const struct sess *S, uint32_t j)
{
	const struct kai_sched_gtypes *g = S->gt;
	uint32_t q;

	if (g == NULL)
		return 0;
	q = S->s->jobs[j].queue;
	/*
	 * A job that names a type passed admission against its queues'
	 * limits of it before the memo is asked, so its shape is its type's.
	 * Where a job of no type may go depends on the allocations of the
	 * queues with a type limit on its path: queues with the same deepest
	 * one share them.
	 */
	if (g->job_type[j] >= 0)
		return (uint64_t)(g->job_type[j] + 1);
	return (uint64_t)(g->deepest[q] + 1) << 32;
}

bool
kai_sched_type_dynamic(const struct sess *S, uint32_t t)
{
	uint32_t j;

	if (S->gt == NULL)
		return false;
	j = kai_sched_task_job(S, t);
	return S->gt->limited[S->s->jobs[j].queue];
}

void
kai_sched_types_out(struct sess *S)
{
	const struct kai_sched_gtypes *g = S->gt;
	struct kai_sched_result *r = S->r;
	size_t i, n;

	if (g == NULL)
		return;
	r->ntypes = g->nt;
	r->types = kai_xcalloc(g->nt, sizeof(*r->types));
	memcpy(r->types, g->name, g->nt * sizeof(*r->types));
	n = (size_t)S->nq * g->nt;
	r->qtypes = kai_xcalloc(n + 1, sizeof(*r->qtypes));
	for (i = 0; i < n; i++) {
		r->qtypes[i].fair_share = g->q[i].fs;
		r->qtypes[i].allocated = g->q[i].alloc;
		r->qtypes[i].requested = g->q[i].req;
	}
}

/* The snapshot's queue types: names, values, no type named twice. */
int
kai_sched_types_validate(const struct kai_sched_snap_queue *q,
    struct kai_err *err)
{
	size_t i, k;

	for (i = 0; i < q->ntypes; i++) {
		const struct kai_sched_qtype *x = &q->types[i];

		if (!named(x->type))
			return kai_err_set(err, KAI_EINVAL,
			    "GPU type %zu has no name", i);
		for (k = 0; k < i; k++)
			if (strcmp(q->types[k].type, x->type) == 0)
				return kai_err_set(err, KAI_EINVAL,
				    "GPU type \"%s\" is given twice", x->type);
		if (x->quota < -1 || x->limit < -1)
			return kai_err_set(err, KAI_EINVAL,
			    "GPU type \"%s\": quota and limit must be -1 or "
			    "at least 0", x->type);
		if (x->limit >= 0 && x->quota > x->limit)
			return kai_err_set(err, KAI_EINVAL,
			    "GPU type \"%s\": its limit is below its quota",
			    x->type);
	}
	return 0;
}

const char *
kai_sched_job_gpu_type(const struct kai_sched_snapshot *s, size_t j)
{
	uint16_t t = s->jobs[j].gpu_type;

	return t > 0 && t <= s->ngpu_types ? s->gpu_types[t - 1] : NULL;
}
