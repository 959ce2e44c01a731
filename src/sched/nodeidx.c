/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodeidx.c: the node index that keeps placement off O(jobs x nodes).
 *
 * Binpack wants the node with the fewest idle whole GPUs that still fits,
 * ties to the node name; spread wants the most.  So nodes are bucketed by
 * their count of idle whole GPUs, and each bucket is a segment tree over
 * the nodes in name order holding, per subtree, the largest idle room on
 * a shared GPU, the largest idle CPU and the largest idle memory.  "The
 * first node in name order in bucket c that can hold this task" is then
 * one descent that skips every subtree whose maxima are too small:
 * O(log n) when the first candidate fits, instead of a scan of every
 * node.  A node that is in no bucket (not schedulable) has -1 everywhere
 * and is never found.
 *
 * The maxima are per resource, so a subtree may pass the test without
 * one node that passes all three; the descent then backtracks, and the
 * caller still checks the node it gets (devices, memory-sized fractions).
 * Values are capped to int32: 2^31 millicores or MiB per node is more
 * than any machine has.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

static int32_t
cap32(int64_t v)
{
	if (v > INT32_MAX)
		return INT32_MAX;
	return v < -1 ? -1 : (int32_t)v;
}

void
kai_sched_idx_init(struct kai_sched_nodeidx *ix, uint32_t nranks,
    uint32_t max_gpus)
{
	size_t cells;

	memset(ix, 0, sizeof(*ix));
	ix->nb = max_gpus + 1;
	ix->p = 1;
	while (ix->p < nranks)
		ix->p *= 2;
	cells = (size_t)ix->nb * 2 * ix->p;
	ix->room = kai_xreallocarray(NULL, cells, sizeof(*ix->room));
	ix->cpu = kai_xreallocarray(NULL, cells, sizeof(*ix->cpu));
	ix->mem = kai_xreallocarray(NULL, cells, sizeof(*ix->mem));
	/* All bytes 0xff is -1 in every cell: nothing indexed yet. */
	memset(ix->room, 0xff, cells * sizeof(*ix->room));
	memset(ix->cpu, 0xff, cells * sizeof(*ix->cpu));
	memset(ix->mem, 0xff, cells * sizeof(*ix->mem));
	ix->count = kai_xcalloc(ix->nb, sizeof(*ix->count));
	ix->bucket = kai_xreallocarray(NULL, ix->p, sizeof(*ix->bucket));
	memset(ix->bucket, 0xff, ix->p * sizeof(*ix->bucket));
}

void
kai_sched_idx_fini(struct kai_sched_nodeidx *ix)
{
	KAI_FREE(ix->room);
	KAI_FREE(ix->cpu);
	KAI_FREE(ix->mem);
	KAI_FREE(ix->count);
	KAI_FREE(ix->bucket);
}

static int32_t
max32(int32_t a, int32_t b)
{
	return a > b ? a : b;
}

/* Writes one leaf of bucket b's tree and fixes the maxima above it. */
static void
leaf(struct kai_sched_nodeidx *ix, uint32_t b, uint32_t rank, int32_t room,
    int32_t cpu, int32_t mem)
{
	size_t base = (size_t)b * 2 * ix->p;
	int32_t *R = ix->room + base, *C = ix->cpu + base, *M = ix->mem + base;
	uint32_t i = ix->p + rank;

	R[i] = room;
	C[i] = cpu;
	M[i] = mem;
	for (i /= 2; i >= 1; i /= 2) {
		size_t l = (size_t)i * 2;

		R[i] = max32(R[l], R[l + 1]);
		C[i] = max32(C[l], C[l + 1]);
		M[i] = max32(M[l], M[l + 1]);
	}
}

/*
 * Puts the node at rank into bucket (NONE32 takes it out) with its idle
 * room, CPU and memory.
 */
void
kai_sched_idx_set(struct kai_sched_nodeidx *ix, uint32_t rank, uint32_t bucket,
    int64_t room, int64_t cpu, int64_t mem)
{
	uint32_t old = ix->bucket[rank];

	if (old != NONE32 && old != bucket) {
		leaf(ix, old, rank, -1, -1, -1);
		ix->count[old]--;
	}
	if (bucket == NONE32) {
		ix->bucket[rank] = NONE32;
		return;
	}
	if (old != bucket)
		ix->count[bucket]++;
	ix->bucket[rank] = bucket;
	leaf(ix, bucket, rank, cap32(room), cap32(cpu), cap32(mem));
}

struct need {
	const int32_t *R, *C, *M;
	uint32_t p, from;
	int32_t room, cpu, mem;
};

static int64_t
descend(const struct need *nd, size_t i, uint32_t lo, uint32_t hi)
{
	int64_t r;
	uint32_t mid;

	if (hi <= nd->from || nd->R[i] < nd->room || nd->C[i] < nd->cpu ||
	    nd->M[i] < nd->mem)
		return -1;
	if (i >= nd->p)
		return lo;
	mid = lo + (hi - lo) / 2;
	if ((r = descend(nd, (size_t)i * 2, lo, mid)) >= 0)
		return r;
	return descend(nd, (size_t)i * 2 + 1, mid, hi);
}

int64_t
kai_sched_idx_find(const struct kai_sched_nodeidx *ix, uint32_t bucket,
    uint32_t from, int64_t room, int64_t cpu, int64_t mem)
{
	size_t base = (size_t)bucket * 2 * ix->p;
	struct need nd;

	if (bucket >= ix->nb || ix->count[bucket] == 0 || from >= ix->p)
		return -1;
	nd.R = ix->room + base;
	nd.C = ix->cpu + base;
	nd.M = ix->mem + base;
	nd.p = ix->p;
	nd.from = from;
	/* Needs are at least 0, so the -1 of absent nodes never passes. */
	nd.room = cap32(room < 0 ? 0 : room);
	nd.cpu = cap32(cpu < 0 ? 0 : cpu);
	nd.mem = cap32(mem < 0 ? 0 : mem);
	return descend(&nd, 1, 0, ix->p);
}
