/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fraggroup.c: nodes grouped by state for the frag placement (the why is
 * in fraggroup.h).  A hash table finds a state's group; a changed node
 * is only noted (touch) and moved at the next placement (flush), since
 * a step changes a node several times and rollbacks change it back.
 */
#include "config.h"

#include "sched/fraggroup.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

/* The state of node n, into k (its idle vector into v). */
static void
node_state(const struct sess *S, uint32_t n, struct fgroup *k, int32_t *v)
{
	const struct snode *nd = &S->nodes[n];
	uint64_t h;
	uint32_t d, j;

	k->ngpu = nd->ngpu;
	k->whole = 0;
	for (d = 0; d < nd->ngpu; d++) {
		int32_t x =
		    GPU_UNIT - S->dalloc[nd->gpu0 + d] - S->drel[nd->gpu0 + d];

		for (j = d; j > 0 && v[j - 1] < x; j--)
			v[j] = v[j - 1];
		v[j] = x;
		k->whole += x == GPU_UNIT;
	}
	k->cpu = nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU];
	k->mem = nd->cap[R_MEM] - nd->alloc[R_MEM] - nd->rel[R_MEM];
	k->gmem = nd->gmem;
	h = kai_sched_mix64((uint64_t)k->ngpu + 1);
	h = kai_sched_mix64(h ^ (uint64_t)k->cpu);
	h = kai_sched_mix64(h ^ (uint64_t)k->mem);
	h = kai_sched_mix64(h ^ (uint64_t)k->gmem);
	for (d = 0; d < k->ngpu; d++)
		h = kai_sched_mix64(h ^ (uint64_t)(uint32_t)v[d]);
	k->h = h;
}

static bool
same(const struct fgroups *G, const struct fgroup *g, const struct fgroup *k,
    const int32_t *v)
{
	return g->h == k->h && g->ngpu == k->ngpu && g->cpu == k->cpu &&
	    g->mem == k->mem && g->gmem == k->gmem &&
	    memcmp(&G->idle[g->idle0], v, k->ngpu * sizeof(*v)) == 0;
}

static void
table_put(struct fgroups *G, uint32_t gi)
{
	uint32_t i = (uint32_t)G->g[gi].h & (G->tcap - 1);

	while (G->table[i] != 0)
		i = (i + 1) & (G->tcap - 1);
	G->table[i] = gi + 1;
}

/* Takes gi out of the table, shifting back what probed past it. */
static void
table_del(struct fgroups *G, uint32_t gi)
{
	uint32_t m = G->tcap - 1, i = (uint32_t)G->g[gi].h & m, j;

	while (G->table[i] != gi + 1)
		i = (i + 1) & m;
	for (j = (i + 1) & m; G->table[j] != 0; j = (j + 1) & m) {
		uint32_t home = (uint32_t)G->g[G->table[j] - 1].h & m;

		/* entry j may move to i unless its home lies in (i, j] */
		if (i <= j ? (home <= i || home > j)
			   : (home <= i && home > j)) {
			G->table[i] = G->table[j];
			i = j;
		}
	}
	G->table[i] = 0;
}

/*
 * A group for a new state: a fresh one while fewer than maxg exist,
 * else the one that lost its members longest ago (there are twice as
 * many groups as nodes, so one is empty): its cached results die with
 * it (gen).
 */
/* More room for groups, in the groups and in every slot's results. */
static void
grow(struct fgroups *G)
{
	uint32_t old = G->capg, i;

	G->capg = old == 0 ? 64 : old * 2;
	G->g = kai_xreallocarray(G->g, G->capg, sizeof(*G->g));
	for (i = 0; i < NGSLOTS; i++) {
		struct fgslot *s = &G->slot[i];

		if (s->stamp == NULL)
			continue;
		s->stamp =
		    kai_xreallocarray(s->stamp, G->capg, sizeof(*s->stamp));
		memset(&s->stamp[old], 0, (G->capg - old) * sizeof(*s->stamp));
		s->delta =
		    kai_xreallocarray(s->delta, G->capg, sizeof(*s->delta));
		s->amount =
		    kai_xreallocarray(s->amount, G->capg, sizeof(*s->amount));
	}
}

static uint32_t
group_new(struct fgroups *G, uint32_t ngpu)
{
	uint32_t gi = UINT32_MAX;

	while (G->ng == G->maxg && G->en > 0 && gi == UINT32_MAX) {
		uint32_t x = G->empty[G->ehead];

		G->ehead = (G->ehead + 1) % G->maxg;
		G->en--;
		G->g[x].queued = false;
		if (G->g[x].n == 0)
			gi = x; /* else it has members again: not ours */
	}
	if (gi != UINT32_MAX) {
		table_del(G, gi);
		G->g[gi].gen++;
	} else {
		if (G->ng == G->capg)
			grow(G);
		gi = G->ng++;
		G->g[gi].idlecap = 0;
		G->g[gi].rank = NULL;
		G->g[gi].n = G->g[gi].cap = 0;
		G->g[gi].gen = 1;
		G->g[gi].queued = false;
	}
	if (G->g[gi].idlecap < ngpu) {
		if (G->nidle + ngpu > G->capidle) {
			G->capidle = (G->capidle + ngpu) * 2;
			G->idle = kai_xreallocarray(G->idle, G->capidle,
			    sizeof(*G->idle));
		}
		G->g[gi].idle0 = (uint32_t)G->nidle;
		G->g[gi].idlecap = ngpu;
		G->nidle += ngpu;
	}
	return gi;
}

/* The group of state k (idle vector v), made if new. */
static uint32_t
group_of(struct fgroups *G, const struct fgroup *k, const int32_t *v)
{
	uint32_t i, gi;
	struct fgroup *g;

	for (i = (uint32_t)k->h & (G->tcap - 1); G->table[i] != 0;
	     i = (i + 1) & (G->tcap - 1))
		if (same(G, &G->g[G->table[i] - 1], k, v))
			return G->table[i] - 1;
	gi = group_new(G, k->ngpu);
	g = &G->g[gi];
	g->h = k->h;
	g->ngpu = k->ngpu;
	g->whole = k->whole;
	g->cpu = k->cpu;
	g->mem = k->mem;
	g->gmem = k->gmem;
	memcpy(&G->idle[g->idle0], v, k->ngpu * sizeof(*v));
	g->live = -1;
	g->fb_ok = false;
	table_put(G, gi);
	return gi;
}

static void
join(struct fgroups *G, uint32_t gi, uint32_t rank)
{
	struct fgroup *g = &G->g[gi];
	uint32_t lo = 0, hi = g->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->rank[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (g->n == g->cap) {
		g->cap = g->cap == 0 ? 4 : g->cap * 2;
		g->rank = kai_xreallocarray(g->rank, g->cap, sizeof(*g->rank));
	}
	memmove(&g->rank[lo + 1], &g->rank[lo], (g->n - lo) * sizeof(*g->rank));
	g->rank[lo] = rank;
	if (g->n++ == 0) {
		g->live = (int32_t)G->nlive;
		G->live[G->nlive++] = gi;
	}
}

static void
leave(struct fgroups *G, uint32_t gi, uint32_t rank)
{
	struct fgroup *g = &G->g[gi];
	uint32_t lo = 0, hi = g->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->rank[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&g->rank[lo], &g->rank[lo + 1],
	    (g->n - lo - 1) * sizeof(*g->rank));
	if (--g->n == 0) {
		uint32_t last = G->live[--G->nlive];

		G->live[g->live] = last;
		G->g[last].live = g->live;
		g->live = -1;
		if (!g->queued && G->en < G->maxg) {
			G->empty[(G->ehead + G->en) % G->maxg] = gi;
			G->en++;
			g->queued = true;
		}
	}
}

static void
place(struct fgroups *G, const struct sess *S, uint32_t n)
{
	int32_t v[KAI_SCHED_MAX_NODE_GPUS];
	struct fgroup k;
	uint32_t gi;

	node_state(S, n, &k, v);
	gi = group_of(G, &k, v);
	if (G->of[n] == (int32_t)gi)
		return;
	if (G->of[n] >= 0)
		leave(G, (uint32_t)G->of[n], S->nodes[n].rank);
	join(G, gi, S->nodes[n].rank);
	G->of[n] = (int32_t)gi;
}

void
kai_sched_fgroups_init(struct fgroups *G, const struct sess *S)
{
	uint32_t r;

	memset(G, 0, sizeof(*G));
	G->maxg = 2 * S->nn + 64;
	for (G->tcap = 256; G->tcap < 2 * G->maxg; G->tcap *= 2)
		;
	G->table = kai_xcalloc(G->tcap, sizeof(*G->table));
	G->empty = kai_xcalloc(G->maxg, sizeof(*G->empty));
	G->of = kai_xcalloc(S->nn + 1, sizeof(*G->of));
	G->live = kai_xcalloc(S->nn + 1, sizeof(*G->live));
	G->dirty = kai_xcalloc(S->nn + 1, sizeof(*G->dirty));
	G->isdirty = kai_xcalloc(S->nn + 1, sizeof(*G->isdirty));
	for (r = 0; r < S->nn; r++)
		G->of[r] = -1;
	/* in rank order, so that each join appends */
	for (r = 0; r < S->nn; r++)
		if (S->nodes[S->by_rank[r]].ok)
			place(G, S, S->by_rank[r]);
}

void
kai_sched_fgroups_fini(struct fgroups *G)
{
	uint32_t i;

	for (i = 0; i < G->ng; i++)
		free(G->g[i].rank);
	for (i = 0; i < NGSLOTS; i++) {
		free(G->slot[i].stamp);
		free(G->slot[i].delta);
		free(G->slot[i].amount);
	}
	free(G->g);
	free(G->idle);
	free(G->table);
	free(G->empty);
	free(G->live);
	free(G->of);
	free(G->dirty);
	free(G->isdirty);
	memset(G, 0, sizeof(*G));
}

void
kai_sched_fgroups_touch(struct fgroups *G, uint32_t n)
{
	if (G->isdirty[n] || G->of[n] < 0)
		return;
	G->isdirty[n] = 1;
	G->dirty[G->ndirty++] = n;
}

void
kai_sched_fgroups_flush(struct fgroups *G, const struct sess *S)
{
	uint32_t i;

	for (i = 0; i < G->ndirty; i++) {
		G->isdirty[G->dirty[i]] = 0;
		place(G, S, G->dirty[i]);
	}
	G->ndirty = 0;
}

struct fgslot *
kai_sched_fgroups_slot(struct fgroups *G, uint64_t shape)
{
	struct fgslot *s = &G->slot[0];
	uint32_t i;

	for (i = 0; i < NGSLOTS; i++)
		if (G->slot[i].shape == shape) {
			G->slot[i].used = ++G->clock;
			return &G->slot[i];
		}
	for (i = 1; i < NGSLOTS; i++)
		if (G->slot[i].used < s->used)
			s = &G->slot[i];
	if (s->stamp == NULL) {
		s->stamp = kai_xcalloc(G->capg, sizeof(*s->stamp));
		s->delta = kai_xcalloc(G->capg, sizeof(*s->delta));
		s->amount = kai_xcalloc(G->capg, sizeof(*s->amount));
	} else
		memset(s->stamp, 0, G->ng * sizeof(*s->stamp));
	s->shape = shape;
	s->used = ++G->clock;
	return s;
}
