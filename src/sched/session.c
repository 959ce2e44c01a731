/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * session.c: turns a snapshot into the working state of one cycle (KAI's
 * session open).
 *
 * Nodes get their rank in name order (the tie-break of every placement),
 * running and releasing tasks are laid out on their devices (tasks that
 * name their GPUs first, then GPUs held by outside pods, then the tasks
 * that let the core choose, so a free choice never steals a named GPU),
 * and the queues' allocations and requests are summed up the tree.  Jobs
 * that cannot run this cycle whatever happens (held, no node, a task
 * bigger than any node) get their reason here once.  Job-to-group
 * bookkeeping for per-user ordering is in sess_jobs.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct byname {
	const char *name;
	uint32_t i;
};

static int
byname_cmp(const void *a, const void *b)
{
	const struct byname *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int
rank_nodes(struct sess *S, struct kai_err *err)
{
	const struct kai_sched_snapshot *s = S->s;
	struct byname *v = kai_sched_calloc(S->ctx, S->nn, sizeof(*v));
	uint32_t i;
	int rc = 0;

	for (i = 0; i < S->nn; i++) {
		v[i].name = s->nodes[i].name;
		v[i].i = i;
	}
	qsort(v, S->nn, sizeof(*v), byname_cmp);
	for (i = 0; i < S->nn; i++) {
		if (i > 0 && strcmp(v[i - 1].name, v[i].name) == 0) {
			rc = kai_err_set(err, KAI_EINVAL,
			    "node \"%s\" is listed twice", v[i].name);
			break;
		}
		S->nodes[v[i].i].rank = i;
		S->by_rank[i] = v[i].i;
	}
	kai_sched_free(S->ctx, v);
	return rc;
}

static void
gpu_memory_range(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t i;
	bool any = false;

	S->min_gmem = S->max_gmem = KAI_SCHED_DEFAULT_GPU_MEM;
	for (i = 0; i < S->nn; i++) {
		int64_t g = S->nodes[i].gmem;

		if (s->nodes[i].gpus == 0 || !S->nodes[i].ok)
			continue;
		if (!any || g < S->min_gmem)
			S->min_gmem = g;
		if (!any || g > S->max_gmem)
			S->max_gmem = g;
		any = true;
	}
}

static int
nodes_init(struct sess *S, struct kai_err *err)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t i, ndev = 0;

	S->nn = (uint32_t)s->nnodes;
	S->nodes = kai_sched_calloc(S->ctx, S->nn, sizeof(*S->nodes));
	S->by_rank = kai_sched_calloc(S->ctx, S->nn, sizeof(*S->by_rank));
	S->relnodes = kai_sched_calloc(S->ctx, S->nn, sizeof(*S->relnodes));
	for (i = 0; i < S->nn; i++) {
		const struct kai_sched_snap_node *in = &s->nodes[i];
		struct snode *n = &S->nodes[i];

		n->gpu0 = ndev;
		n->ngpu = in->gpus;
		ndev += in->gpus;
		n->gmem = in->gpu_memory_mib > 0 ? in->gpu_memory_mib
						 : KAI_SCHED_DEFAULT_GPU_MEM;
		n->cap[R_CPU] = in->cpu_millis < 0 ? BIG : in->cpu_millis;
		n->cap[R_MEM] = in->memory_mib < 0 ? BIG : in->memory_mib;
		n->alloc[R_CPU] = in->held_cpu_millis;
		n->alloc[R_MEM] = in->held_memory_mib;
		n->ok = !in->unschedulable;
		S->any_ok |= n->ok;
		if (in->gpus > S->max_gpus)
			S->max_gpus = in->gpus;
	}
	S->dalloc = kai_sched_calloc(S->ctx, ndev, sizeof(*S->dalloc));
	S->drel = kai_sched_calloc(S->ctx, ndev, sizeof(*S->drel));
	gpu_memory_range(S);
	return rank_nodes(S, err);
}

/* Cluster totals over schedulable nodes; -1 for an untracked resource. */
static void
totals(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t i;

	memset(S->total, 0, sizeof(S->total));
	for (i = 0; i < S->nn; i++) {
		const struct kai_sched_snap_node *in = &s->nodes[i];

		if (!S->nodes[i].ok)
			continue;
		S->total[R_GPU] +=
		    (int64_t)(in->gpus - in->held_gpus) * GPU_UNIT;
		if (in->cpu_millis < 0 || S->total[R_CPU] < 0)
			S->total[R_CPU] = -1;
		else
			S->total[R_CPU] += in->cpu_millis - in->held_cpu_millis;
		if (in->memory_mib < 0 || S->total[R_MEM] < 0)
			S->total[R_MEM] = -1;
		else
			S->total[R_MEM] += in->memory_mib - in->held_memory_mib;
	}
	/* An empty cluster has no CPU to share rather than unlimited CPU. */
	if (S->total[R_CPU] < -1)
		S->total[R_CPU] = 0;
	if (S->total[R_MEM] < -1)
		S->total[R_MEM] = 0;
}

/* GPUs held by pods outside the snapshot take the lowest free devices. */
static void
lay_held(struct sess *S)
{
	uint32_t i, d;

	for (i = 0; i < S->nn; i++) {
		struct snode *n = &S->nodes[i];
		uint32_t left = S->s->nodes[i].held_gpus;

		for (d = 0; d < n->ngpu && left > 0; d++) {
			int32_t *a = &S->dalloc[n->gpu0 + d];

			if (*a == 0 && S->drel[n->gpu0 + d] == 0) {
				*a = GPU_UNIT;
				left--;
			}
		}
	}
}

static int
check_mask(const struct sess *S, uint32_t t, uint32_t n, uint64_t mask,
    int32_t u, struct kai_err *err)
{
	const struct snode *nd = &S->nodes[n];
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	int want = in->gpus > 0 ? (int)in->gpus : (int)kai_sched_task_ndev(in);
	uint32_t d;

	if (nd->ngpu < 64 && (mask >> nd->ngpu) != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "node \"%s\" has no such "
		    "GPU",
		    S->s->nodes[n].name);
	if (__builtin_popcountll(mask) != want)
		return kai_err_set(err, KAI_EINVAL,
		    "gpu_index lists %d GPUs "
		    "for a task of %d",
		    __builtin_popcountll(mask), want);
	for (d = 0; d < nd->ngpu; d++) {
		int64_t used;

		if (!(mask & (UINT64_C(1) << d)))
			continue;
		used = (int64_t)S->dalloc[nd->gpu0 + d] + S->drel[nd->gpu0 + d];
		if (used + u > GPU_UNIT)
			return kai_err_set(err, KAI_EINVAL,
			    "GPU %u of node "
			    "\"%s\" is already in use",
			    d, S->s->nodes[n].name);
	}
	return 0;
}

static int
hold(struct sess *S, uint32_t t, bool rel, struct kai_err *err)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	struct snode *nd = &S->nodes[in->node];
	int64_t *acc = rel ? nd->rel : nd->alloc;

	acc[R_CPU] += in->cpu_millis;
	acc[R_MEM] += in->memory_mib;
	kai_sched_excl_hold(S, t, (uint32_t)in->node, 1, rel);
	if (nd->alloc[R_CPU] + nd->rel[R_CPU] > nd->cap[R_CPU] ||
	    nd->alloc[R_MEM] + nd->rel[R_MEM] > nd->cap[R_MEM])
		return kai_err_set(err, KAI_EINVAL,
		    "node \"%s\" has not "
		    "enough CPU or memory for it",
		    S->s->nodes[in->node].name);
	return 0;
}

/* Lays out one running or releasing task; pass 0 = named GPUs only. */
static int
lay_task(struct sess *S, uint32_t t, int pass, struct kai_err *err)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	struct stask *st = &S->tasks[t];
	uint32_t n = (uint32_t)in->node, d;
	bool rel = in->state == KAI_SCHED_TASK_RELEASING, pipe;
	int32_t u = kai_sched_task_ugpu(S, t, n);
	uint64_t mask = in->gpu_mask;
	int rc;

	if ((pass == 0) != (mask != 0))
		return 0;
	if (u < 0)
		return kai_err_set(err, KAI_EINVAL,
		    "a GPU of node \"%s\" has "
		    "less memory than it asks for",
		    S->s->nodes[n].name);
	if (u == 0 && mask != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "gpu_index given for a "
		    "task without GPUs");
	if (u > 0 && mask == 0 &&
	    !kai_sched_pick_devices(S, n, t, u, false, &mask, &pipe))
		return kai_err_set(err, KAI_EINVAL,
		    "node \"%s\" has no free "
		    "GPU for it",
		    S->s->nodes[n].name);
	if (u > 0 && (rc = check_mask(S, t, n, mask, u, err)) != 0)
		return rc;
	for (d = 0; d < S->nodes[n].ngpu; d++)
		if (mask & (UINT64_C(1) << d))
			(rel ? S->drel : S->dalloc)[S->nodes[n].gpu0 + d] += u;
	st->state = (uint8_t)in->state;
	st->node = (int32_t)n;
	st->mask = mask;
	st->ugpu = u;
	return hold(S, t, rel, err);
}

/* Lay-out order of tasks without gpu_index: whole GPUs, then larger
 * fractions first (first-fit decreasing packs best). */
struct lay {
	uint32_t t;
	int64_t size;
};

static int
lay_cmp(const void *a, const void *b)
{
	const struct lay *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int
lay_failed(struct sess *S, uint32_t t, struct kai_err *err)
{
	const struct kai_sched_snap_job *j =
	    &S->s->jobs[kai_sched_task_job(S, t)];

	return kai_err_prefix(err, "job \"%s\": task %zu", j->name,
	    (size_t)(t - j->first_task));
}

/*
 * The running and releasing tasks laid out on their devices: the named
 * GPUs in task order, the GPUs outside pods hold, the rest by size.  The
 * session's tasks were written, and those that hold something listed
 * (S->held, in task order), in the jobs' pass (sess_jobs.c): the
 * snapshot's tasks are not read again here.
 */
static int
layout(struct sess *S, struct kai_err *err)
{
	const struct kai_sched_snapshot *s = S->s;
	struct lay *v = kai_xreallocarray(NULL, S->nheld + 1, sizeof(*v));
	size_t n = 0, i;
	int rc = 0;

	for (i = 0; i < S->nheld && rc == 0; i++) {
		uint32_t t = S->held[i];
		const struct kai_sched_snap_task *in = &s->tasks[t];

		if (in->gpu_mask != 0) {
			if ((rc = lay_task(S, t, 0, err)) != 0)
				rc = lay_failed(S, t, err);
			continue;
		}
		v[n].t = t;
		v[n++].size = in->gpus > 0
		    ? (int64_t)in->gpus * GPU_UNIT * 2
		    : ((int64_t)in->gpu_fraction + in->gpu_memory_mib) *
			kai_sched_task_ndev(in);
	}
	if (rc == 0)
		lay_held(S);
	qsort(v, n, sizeof(*v), lay_cmp);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = lay_task(S, v[i].t, 1, err)) != 0)
			rc = lay_failed(S, v[i].t, err);
	free(v);
	return rc;
}

/* Recomputes node n's idle figures after a device or CPU change. */
void
kai_sched_node_refresh(struct sess *S, uint32_t n)
{
	struct snode *nd = &S->nodes[n];
	uint32_t d, whole = 0;
	int32_t room = 0;
	bool rel = nd->rel[R_CPU] > 0 || nd->rel[R_MEM] > 0;

	nd->ver++;
	if (S->frag != NULL)
		kai_sched_frag_touch(S, n);
	for (d = nd->gpu0; d < nd->gpu0 + nd->ngpu; d++) {
		int32_t used = S->dalloc[d] + S->drel[d];

		if (used == 0)
			whole++;
		else if (used < GPU_UNIT && GPU_UNIT - used > room)
			room = GPU_UNIT - used;
		rel |= S->drel[d] > 0;
	}
	if (nd->ok) {
		int64_t idle = (int64_t)nd->ngpu * GPU_UNIT;

		for (d = nd->gpu0; d < nd->gpu0 + nd->ngpu; d++)
			idle -= S->dalloc[d] + S->drel[d];
		S->idle_ugpu += idle - nd->idle_ugpu;
		nd->idle_ugpu = idle;
	}
	nd->whole_idle = whole;
	nd->room = room;
	nd->has_rel = rel;
	if (rel && !nd->in_rellist) {
		nd->in_rellist = true;
		S->relnodes[S->nrel++] = n;
	}
	kai_sched_idx_set(&S->idx, nd->rank, nd->ok ? whole : NONE32, room,
	    nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU],
	    nd->cap[R_MEM] - nd->alloc[R_MEM] - nd->rel[R_MEM]);
}

int32_t
kai_sched_task_ugpu(const struct sess *S, uint32_t t, uint32_t n)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	int64_t g = S->nodes[n].gmem;

	if (in->gpus > 0)
		return GPU_UNIT;
	if (in->gpu_fraction > 0)
		return (int32_t)in->gpu_fraction;
	if (in->gpu_memory_mib <= 0)
		return 0;
	if (in->gpu_memory_mib > g)
		return -1;
	/* Round up: a task never gets less memory than it asked for. */
	return (int32_t)(((int64_t)in->gpu_memory_mib * GPU_UNIT + g - 1) / g);
}

/*
 * S->relnodes lists every node that had releasing resources in this
 * cycle, the reservations' replays' (rolled back) among them, so each
 * listed node is asked.
 */
bool
kai_sched_releasing(const struct sess *S)
{
	uint32_t i;

	for (i = 0; i < S->nrel; i++)
		if (S->nodes[S->relnodes[i]].has_rel)
			return true;
	return false;
}

bool
kai_sched_task_active(const struct stask *t)
{
	return t->state == KAI_SCHED_TASK_RUNNING ||
	    t->state == KAI_SCHED_TASK_PIPELINED;
}

static void
results_init(struct sess *S, struct kai_sched_ctx *rc)
{
	const struct kai_sched_snapshot *s = S->s;
	struct kai_sched_result *r = S->r;

	memset(r, 0, sizeof(*r));
	r->ctx = rc;
	r->ntasks = s->ntasks;
	r->njobs = s->njobs;
	r->nqueues = s->nqueues;
	/* r->tasks: the session's, written over at the end (cycle.c). */
	r->jobs = kai_sched_calloc(rc, s->njobs, sizeof(*r->jobs));
	r->queues = kai_sched_calloc(rc, s->nqueues, sizeof(*r->queues));
}

int
kai_sched_sess_init(struct sess *S, struct kai_sched_ctx *c,
    struct kai_sched_ctx *rctx, const struct kai_sched_snapshot *s,
    struct kai_sched_result *r, struct kai_sched_inc_run *inc,
    struct kai_err *err)
{
	uint32_t i;
	int rc;

	memset(S, 0, sizeof(*S));
	S->inc = inc;
	S->ctx = c;
	S->s = s;
	S->cf = &s->config;
	S->r = r;
	/* The head first: its counts size the result, and a count it
	 * refuses (2^30 jobs) would ask for tens of GiB before. */
	if ((rc = kai_sched_validate_head(s, err)) != 0) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	results_init(S, rctx);
	/* The jobs are validated in the jobs' pass (sess_jobs.c); a node
	 * listed twice is reported only if they are valid, as when the
	 * validator ran whole first. */
	if ((rc = nodes_init(S, err)) != 0) {
		struct kai_err v;
		int vrc = kai_sched_validate(s, &v);

		if (vrc != 0)
			*err = v;
		return vrc != 0 ? vrc : rc;
	}
	kai_sched_pools_init(S);
	totals(S);
	kai_sched_queues_init(S);
	if ((rc = kai_sched_jobs_init(S, err)) != 0 ||
	    (rc = layout(S, err)) != 0)
		return rc;
	kai_sched_nodereq_init(S);
	kai_sched_idx_init(&S->idx, S->nn, S->max_gpus);
	for (i = 0; i < S->nn; i++)
		kai_sched_node_refresh(S, i);
	kai_sched_types_init(S);
	kai_sched_accounts_init(S);
	kai_sched_qoslimit_init(S);
	if (S->cf->placement == KAI_SCHED_FRAG)
		kai_sched_frag_init(S);
	return 0;
}

void
kai_sched_sess_fini(struct sess *S)
{
	kai_sched_topo_fini(S);
	kai_sched_sg_fini(S);
	kai_sched_bf_fini(S);
	kai_sched_frag_fini(S);
	kai_sched_pools_fini(S);
	kai_sched_nodereq_fini(S);
	kai_sched_qoslimit_fini(S);
	kai_sched_types_fini(S);
	kai_sched_order_free(S->ordmem);
	free(S->ordmem);
	free(S->est_cand);
	kai_sched_idx_fini(&S->idx);
	kai_sched_free(S->ctx, S->nodes);
	kai_sched_free(S->ctx, S->by_rank);
	kai_sched_free(S->ctx, S->relnodes);
	kai_sched_free(S->ctx, S->dalloc);
	kai_sched_free(S->ctx, S->drel);
	kai_sched_jobs_fini(S);
	free(S->log);
	free(S->moved_from);
	memset(S, 0, sizeof(*S));
}
