/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * memo.c: step shapes that failed to fit, remembered within one phase
 * (KAI's scheduling signatures).
 *
 * A shape is what placement depends on: the requests of the step's tasks
 * in order, and the topology constraint.  While a phase only consumes
 * resources, a shape that did not fit will not fit later in the phase, so
 * a later job of the same shape fails with the stored reason after one
 * hash lookup.  A job with a topology or a matching OR constraint and
 * tasks already running is never memoised: where it may go depends on
 * where it runs.  The pool and node requirements are part of the shape.
 *
 * Shapes are compared by two independent 64-bit hashes of every task's
 * request plus the task count (gang.c computes them with the step, in
 * the same pass, through kai_sched_shape_add(); a run of equal requests,
 * the common gang, is hashed once with its length): two different shapes
 * would have to collide in 128 bits at once to be confused, which the
 * cycle's few thousand shapes will not do, and a probe costs no walk
 * over the tasks of two jobs.  The
 * table grows by doubling and holds only the shapes that failed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

#define MEMO_CAP0 1024

/* A 64-bit finaliser (splitmix64): every input bit moves every output. */
uint64_t
kai_sched_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static void
shape_mix(struct sjob *sj, uint64_t v)
{
	/* Two unrelated hashes of the same values: boost's hash_combine,
	 * and the finaliser over the running value. */
	sj->sh1 ^=
	    v + UINT64_C(0x9e3779b97f4a7c15) + (sj->sh1 << 6) + (sj->sh1 >> 2);
	sj->sh2 = kai_sched_mix64(sj->sh2 ^ v);
}

/* Starts j's step shape with its topology constraint. */
void
kai_sched_shape_start(struct sjob *sj, const struct kai_sched_snap_job *J)
{
	sj->sh1 = (uint64_t)((int64_t)J->topology + 1);
	sj->sh2 = UINT64_C(0xcbf29ce484222325);
	shape_mix(sj,
	    (uint64_t)(J->required_level + 1) << 32 |
		(uint32_t)(J->preferred_level + 1));
	/* Node groups make a placement harder than the same tasks free. */
	if (J->tasks_per_node > 0)
		shape_mix(sj, UINT64_C(0x6e6f646567727000) | J->tasks_per_node);
	/* Where it may go: its pool, and the nodes it asked for. */
	shape_mix(sj, UINT64_C(0x706f6f6c00000000) ^
		(uint64_t)(uint32_t)(J->pool + 1));
	if (J->nodereq > 0)
		shape_mix(sj, UINT64_C(0x6e72657100000000) | J->nodereq);
	/* So does --exclusive (exclusive.c): the same tasks may fit where
	 * the exclusive ones do not. */
	if (J->exclusive)
		shape_mix(sj, UINT64_C(0x6578636c75736976));
}

void
kai_sched_shape_mix(struct sjob *sj, uint64_t v)
{
	shape_mix(sj, v);
}

/* Whether two tasks ask for the same (what the shape is made of). */
bool
kai_sched_same_request(const struct kai_sched_snap_task *a,
    const struct kai_sched_snap_task *b)
{
	return a->gpus == b->gpus && a->gpu_fraction == b->gpu_fraction &&
	    a->gpu_memory_mib == b->gpu_memory_mib &&
	    kai_sched_task_ndev(a) == kai_sched_task_ndev(b) &&
	    a->cpu_millis == b->cpu_millis && a->memory_mib == b->memory_mib;
}

/*
 * Adds `run` consecutive tasks asking for what k asks for: runs are
 * maximal (the caller merges equal neighbours), so one sequence of
 * requests has one encoding and equal shapes hash alike.
 */
void
kai_sched_shape_add(struct sjob *sj, const struct kai_sched_snap_task *k,
    uint32_t run)
{
	/* Seven figures in three words, each placed in bits of its own
	 * (the requests are 32-bit and not negative, validate.c; a task's
	 * GPUs and devices 8-bit): the same sequences of runs hash alike
	 * and different ones still differ before hashing, for 3 rounds of
	 * the finaliser where there were 7. */
	shape_mix(sj, (uint64_t)run << 32 | (uint32_t)k->cpu_millis);
	shape_mix(sj, (uint64_t)(uint32_t)k->gpu_fraction << 32 |
		(uint32_t)k->gpu_memory_mib);
	shape_mix(sj, (uint64_t)(uint32_t)k->memory_mib << 32 |
		(uint64_t)k->gpus << 16 | kai_sched_task_ndev(k));
}

static void
table_new(struct kai_sched_memo *m, size_t cap)
{
	m->cap = cap;
	m->e = kai_xreallocarray(NULL, cap, sizeof(*m->e));
	memset(m->e, 0xff, cap * sizeof(*m->e));
}

void
kai_sched_memo_init(struct kai_sched_memo *m)
{
	memset(m, 0, sizeof(*m));
	table_new(m, MEMO_CAP0);
}

void
kai_sched_memo_fini(struct kai_sched_memo *m)
{
	free(m->e);
	free(m->whys);
	memset(m, 0, sizeof(*m));
}

static bool
usable(const struct sess *S, uint32_t j, const struct sjob **sj)
{
	const struct sjob *x = &S->jobs[j];

	/* Nor a subgroup tree (which marks topo too): what fits depends
	 * on the tree, not on the step's shape alone. */
	if (x->topo && (x->nactive > 0 || kai_sched_tree(S, j) != NULL))
		return false;
	/* Nor a matching OR with tasks running: they chose its features. */
	if (x->nactive > 0 && S->s->jobs[j].nodereq > 0 &&
	    S->s->nodereqs[S->s->jobs[j].nodereq - 1].match)
		return false;
	/* A gang that cannot reach its minimum fails for its own reason. */
	if (x->min > x->nactive && x->min - x->nactive > x->npending)
		return false;
	*sj = kai_sched_step(S, j);
	return (*sj)->sn > 0;
}

/*
 * The shape's hashes, with the job's backfill class in them while
 * reservations bind: then whether a step fits depends on how long it
 * runs, but only through how many reservations start before it would
 * end (kai_sched_bf_class()), so jobs of one shape fall in a few classes
 * whatever their limits.  Entries made before the first reservation are
 * simply not found afterwards.
 */
static void
keys(const struct sess *S, uint32_t j, const struct sjob *sj, uint64_t *h1,
    uint64_t *h2)
{
	uint64_t c;

	*h1 = sj->sh1;
	*h2 = sj->sh2;
	if (!S->bf_on || kai_sched_bf_count(S) == 0)
		return;
	c = (uint64_t)kai_sched_bf_class(S, j) + 1;
	*h1 ^= kai_sched_mix64(c ^ UINT64_C(0x6a09e667f3bcc909));
	*h2 = kai_sched_mix64(*h2 ^ c);
}

static struct kai_sched_memo_ent *
slot(const struct kai_sched_memo *m, uint64_t h1, uint64_t h2, uint32_t n)
{
	size_t i;

	/* h2 ends in the finaliser, h1 does not: h2's low bits are the
	 * ones every input bit reaches, and pick the slot. */
	for (i = h2 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct kai_sched_memo_ent *e = &m->e[i];

		if (e->why == NONE32 ||
		    (e->h1 == h1 && e->h2 == h2 && e->n == n))
			return e;
	}
}

const struct kai_sched_why_info *
kai_sched_memo_find(const struct kai_sched_memo *m, const struct sess *S,
    uint32_t j)
{
	const struct kai_sched_memo_ent *e;
	const struct sjob *sj;
	uint64_t h1, h2;

	if (!usable(S, j, &sj))
		return NULL;
	keys(S, j, sj, &h1, &h2);
	e = slot(m, h1, h2, sj->sn);
	return e->why == NONE32 ? NULL : &m->whys[e->why];
}

static void
grow(struct kai_sched_memo *m)
{
	struct kai_sched_memo_ent *old = m->e;
	size_t n = m->cap, i;

	table_new(m, 2 * n);
	for (i = 0; i < n; i++)
		if (old[i].why != NONE32)
			*slot(m, old[i].h1, old[i].h2, old[i].n) = old[i];
	free(old);
}

void
kai_sched_memo_store(struct kai_sched_memo *m, const struct sess *S, uint32_t j,
    const struct kai_sched_why_info *why)
{
	struct kai_sched_memo_ent *e;
	const struct sjob *sj;
	uint64_t h1, h2;

	if (!usable(S, j, &sj))
		return;
	keys(S, j, sj, &h1, &h2);
	if (2 * (m->used + 1) > m->cap)
		grow(m);
	if ((e = slot(m, h1, h2, sj->sn))->why != NONE32)
		return;
	if (m->nwhys == m->capwhys) {
		m->capwhys = m->capwhys ? 2 * m->capwhys : 64;
		m->whys =
		    kai_xreallocarray(m->whys, m->capwhys, sizeof(*m->whys));
	}
	m->whys[m->nwhys] = *why;
	e->h1 = h1;
	e->h2 = h2;
	e->n = sj->sn;
	e->why = (uint32_t)m->nwhys++;
	m->used++;
}
