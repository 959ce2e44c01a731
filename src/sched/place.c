/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * place.c: where one task goes -- the node, then the GPU devices.
 *
 * Node order is KAI's sum of plugin scores, written as a lexicographic
 * key because each score dominates the ones below it:
 *	1. topology preference (pref[], higher first), when given;
 *	2. binpack only: a fraction goes first to a node that already has a
 *	   shared GPU with idle room for it (gpusharingorder);
 *	3. the task fits on idle resources now, rather than by waiting for
 *	   releasing ones (nodeavailability);
 *	4. a CPU-only task prefers a node without GPUs (resourcetype);
 *	5. binpack: fewest idle whole GPUs (idle CPU for a CPU-only task);
 *	   spread: the most;
 *	6. the node name, ascending.
 * kai_sched_choose() scans a node list with that key (topology domains,
 * CPU-only tasks, nodes with releasing resources), or, for a GPU task
 * anywhere in the cluster, walks the buckets of the node index in key
 * order, which finds the same node as the scan without looking at the
 * others.
 *
 * Devices: a whole-GPU task takes the lowest-numbered idle devices; a
 * fraction goes to the fullest device with room (pack) or the emptiest
 * (spread), ties to the lower index.  A fraction never spans devices, and
 * a device holding a whole-GPU task is full, so the two never share one.
 * When nothing fits on idle devices, devices that releasing tasks are
 * leaving count as free, and the placement is pipelined.  While backfill
 * reservations bind (backfill.c), a device or node resources reserved
 * over the job's run are not free.
 */
#include "config.h"

#include "sched/sched_int.h"

static bool
is_frac(const struct sess *S, uint32_t t)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	return in->gpus == 0 &&
	    (in->gpu_fraction > 0 || in->gpu_memory_mib > 0);
}

static bool
pick_whole(const struct sess *S, const struct snode *n, uint32_t k,
    bool allow_pipe, uint64_t *mask, bool *pipelined)
{
	uint64_t idle = 0, freed = 0;
	uint32_t d, ni = 0, nf = 0;

	for (d = 0; d < n->ngpu; d++) {
		uint32_t g = n->gpu0 + d;

		if (S->dalloc[g] != 0 || !kai_sched_bf_dev_ok(S, g))
			continue;
		if (S->drel[g] == 0 && ni < k) {
			idle |= UINT64_C(1) << d;
			ni++;
		} else if (S->drel[g] != 0 && nf < k) {
			freed |= UINT64_C(1) << d;
			nf++;
		}
	}
	if (ni == k) {
		*mask = idle;
		*pipelined = false;
		return true;
	}
	if (!allow_pipe || ni + nf < k)
		return false;
	/* Idle devices first, then the lowest releasing ones. */
	while (ni < k) {
		uint64_t low = freed & (~freed + 1);

		idle |= low;
		freed &= ~low;
		ni++;
	}
	*mask = idle;
	*pipelined = true;
	return true;
}

/* Device order for fractions: pack = fuller first, spread = emptier. */
static bool
dev_better(bool pack, int32_t used, int32_t best_used)
{
	return pack ? used > best_used : used < best_used;
}

static bool
pick_frac(const struct sess *S, const struct snode *n, int32_t u,
    bool allow_pipe, uint64_t *mask, bool *pipelined)
{
	bool pack = S->cf->gpu_placement != KAI_SCHED_SPREAD;
	int best = -1, bestp = -1;
	int32_t bu = 0, bpu = 0;
	uint32_t d;

	for (d = 0; d < n->ngpu; d++) {
		int32_t a = S->dalloc[n->gpu0 + d], r = S->drel[n->gpu0 + d];
		int32_t used = a + r;

		if (!kai_sched_bf_dev_ok(S, n->gpu0 + d))
			continue;
		if (used + u <= GPU_UNIT) {
			if (best < 0 || dev_better(pack, used, bu)) {
				best = (int)d;
				bu = used;
			}
		} else if (a + u <= GPU_UNIT &&
		    (bestp < 0 || dev_better(pack, used, bpu))) {
			bestp = (int)d;
			bpu = used;
		}
	}
	if (best < 0 && (!allow_pipe || bestp < 0))
		return false;
	*pipelined = best < 0;
	*mask = UINT64_C(1) << (best >= 0 ? best : bestp);
	return true;
}

bool
kai_sched_pick_devices(const struct sess *S, uint32_t n, uint32_t t, int32_t u,
    bool allow_pipe, uint64_t *mask, bool *pipelined)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	if (in->gpus > 0)
		return pick_whole(S, &S->nodes[n], in->gpus, allow_pipe, mask,
		    pipelined);
	return pick_frac(S, &S->nodes[n], u, allow_pipe, mask, pipelined);
}

bool
kai_sched_fit_node(const struct sess *S, uint32_t t, uint32_t n,
    bool allow_pipe, struct kai_sched_choice *c)
{
	const struct snode *nd = &S->nodes[n];
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	int32_t u;
	bool idle, pipe, p = false, wait;
	uint64_t mask = 0;

	if (!nd->ok || !kai_sched_excl_ok(S, t, n, allow_pipe, &wait) ||
	    !kai_sched_pool_allows(S, t, n) ||
	    (u = kai_sched_task_ugpu(S, t, n)) < 0 ||
	    !kai_sched_bf_node_ok(S, n, in->cpu_millis, in->memory_mib))
		return false;
	idle = nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU] >=
		in->cpu_millis &&
	    nd->cap[R_MEM] - nd->alloc[R_MEM] - nd->rel[R_MEM] >=
		in->memory_mib;
	pipe = allow_pipe &&
	    nd->cap[R_CPU] - nd->alloc[R_CPU] >= in->cpu_millis &&
	    nd->cap[R_MEM] - nd->alloc[R_MEM] >= in->memory_mib;
	if (!idle && !pipe)
		return false;
	if (u > 0) {
		if (idle &&
		    kai_sched_pick_devices(S, n, t, u, false, &mask, &p))
			idle = true;
		else if (pipe &&
		    kai_sched_pick_devices(S, n, t, u, true, &mask, &p))
			idle = false;
		else
			return false;
	}
	c->node = (int32_t)n;
	c->mask = mask;
	c->ugpu = u;
	c->pipelined = !idle || p || wait;
	return true;
}

struct score {
	int64_t pref;
	int sharing, avail, restype;
	int64_t key;
	uint32_t rank;
};

static void
score(const struct sess *S, uint32_t t, const struct kai_sched_choice *c,
    const int64_t *pref, struct score *sc)
{
	const struct snode *nd = &S->nodes[c->node];
	bool frac = is_frac(S, t);

	sc->pref = pref != NULL ? pref[c->node] : 0;
	sc->sharing = S->cf->placement != KAI_SCHED_SPREAD && frac &&
	    !c->pipelined && nd->room >= c->ugpu;
	sc->avail = !c->pipelined;
	sc->restype = c->ugpu == 0 && nd->ngpu == 0;
	sc->key = c->ugpu > 0
	    ? (int64_t)nd->whole_idle
	    : nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU];
	if (S->cf->placement == KAI_SCHED_SPREAD)
		sc->key = -sc->key;
	sc->rank = nd->rank;
}

static bool
score_better(const struct score *a, const struct score *b)
{
	if (a->pref != b->pref)
		return a->pref > b->pref;
	if (a->sharing != b->sharing)
		return a->sharing > b->sharing;
	if (a->avail != b->avail)
		return a->avail > b->avail;
	if (a->restype != b->restype)
		return a->restype > b->restype;
	if (a->key != b->key)
		return a->key < b->key;
	return a->rank < b->rank;
}

static bool
scan(const struct sess *S, uint32_t t, const uint32_t *nodes, uint32_t nn,
    const int64_t *pref, bool allow_pipe, struct kai_sched_choice *best)
{
	struct score bs = {0}, sc;
	struct kai_sched_choice c;
	bool found = false;
	uint32_t i;

	for (i = 0; i < nn; i++) {
		uint32_t n = nodes != NULL ? nodes[i] : i;

		if (!kai_sched_fit_node(S, t, n, allow_pipe, &c))
			continue;
		score(S, t, &c, pref, &sc);
		if (!found || score_better(&sc, &bs)) {
			*best = c;
			bs = sc;
			found = true;
		}
	}
	return found;
}

/*
 * The first node of bucket b, in name order, where t fits on idle
 * resources (and, with shared, on a device that is already shared).
 */
static bool
walk(const struct sess *S, uint32_t t, uint32_t b, int64_t room, bool shared,
    struct kai_sched_choice *c)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	uint32_t from = 0;
	int64_t r;

	while ((r = kai_sched_idx_find(&S->idx, b, from, room, in->cpu_millis,
		    in->memory_mib)) >= 0) {
		uint32_t n = S->by_rank[r];

		if (kai_sched_fit_node(S, t, n, false, c) && !c->pipelined &&
		    (!shared || S->nodes[n].room >= c->ugpu))
			return true;
		from = (uint32_t)r + 1;
	}
	return false;
}

/* The smallest per-device amount t could need on any node. */
static int64_t
min_room(const struct sess *S, uint32_t t)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	if (in->gpu_fraction > 0)
		return in->gpu_fraction;
	return ((int64_t)in->gpu_memory_mib * GPU_UNIT + S->max_gmem - 1) /
	    S->max_gmem;
}

static bool
idx_choose(const struct sess *S, uint32_t t, struct kai_sched_choice *c)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	uint32_t nb = S->idx.nb, b;
	bool spread = S->cf->placement == KAI_SCHED_SPREAD;

	if (in->gpus > 0) {
		for (b = 0; b + in->gpus < nb; b++) {
			uint32_t k = spread ? nb - 1 - b : in->gpus + b;

			if (walk(S, t, k, 0, false, c))
				return true;
		}
		return false;
	}
	if (spread) {
		for (b = nb; b-- > 1;)
			if (walk(S, t, b, 0, false, c))
				return true;
		return walk(S, t, 0, min_room(S, t), false, c);
	}
	for (b = 0; b < nb; b++)
		if (walk(S, t, b, min_room(S, t), true, c))
			return true;
	for (b = 1; b < nb; b++)
		if (walk(S, t, b, 0, false, c))
			return true;
	return false;
}

bool
kai_sched_choose(const struct sess *S, uint32_t t, const uint32_t *nodes,
    uint32_t nnodes, const int64_t *pref, bool allow_pipe,
    struct kai_sched_choice *c)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	if (S->frag != NULL) {
		if (kai_sched_frag_choose(S, t, nodes, nnodes, pref, c))
			return true;
		if (!allow_pipe)
			return false;
		/* Nothing idle: releasing resources, in the usual order. */
	}
	if (nodes != NULL)
		return scan(S, t, nodes, nnodes, pref, allow_pipe, c);
	if (in->gpus == 0 && !is_frac(S, t))
		return scan(S, t, NULL, S->nn, NULL, allow_pipe, c);
	if (idx_choose(S, t, c))
		return true;
	return allow_pipe && scan(S, t, S->relnodes, S->nrel, NULL, true, c);
}

uint32_t
kai_sched_most_idle_gpus(const struct sess *S)
{
	uint32_t b;

	for (b = S->idx.nb; b-- > 0;)
		if (S->idx.count[b] > 0)
			return b;
	return 0;
}
