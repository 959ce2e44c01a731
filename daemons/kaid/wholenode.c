/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * wholenode.c: a whole-node job's pods (--exclusive, --mem=0).  See
 * wholenode.h.
 *
 * The scheduler core keeps every other job off the nodes of a job that
 * takes them whole (src/sched/exclusive.c) but places its tasks by what
 * they ask.  Once placed, kaid gives the pods the rest: a node's
 * capacity (what the node reports allocatable) is split among the job's
 * tasks on it, each getting an equal part and the first ones the
 * remainder, so that the pods together request exactly the node, the
 * kubelet admits them, and SLURM_CPUS_ON_NODE, SLURM_MEM_PER_NODE and
 * SLURM_GPUS_ON_NODE say the node's figures as Slurm's do.  The
 * allocations record the amounts, so the next snapshot charges the
 * whole node to the job and accounting sees what it held.
 */
#include "config.h"

#include <string.h>

#include "base/xmalloc.h"
#include "snapshot.h"
#include "wholenode.h"

/* The snapshot node named name, or NULL. */
static const struct kai_sched_snap_node *
find_node(const struct snap *sn, const char *name)
{
	size_t i;

	for (i = 0; i < sn->s.nnodes; i++)
		if (strcmp(sn->nodes[i].name, name) == 0)
			return &sn->nodes[i];
	return NULL;
}

/* part k of `total` split n ways, the remainder to the first parts. */
static uint64_t
part(uint64_t total, uint32_t n, uint32_t k)
{
	return total / n + (k < total % n ? 1 : 0);
}

/* The devices of part k of a node's g GPUs split n ways, consecutive. */
static uint64_t
part_mask(uint32_t g, uint32_t n, uint32_t k)
{
	uint32_t first = 0, i, cnt = (uint32_t)part(g, n, k);
	uint64_t m = 0;

	for (i = 0; i < k; i++)
		first += (uint32_t)part(g, n, i);
	for (i = first; i < first + cnt && i < 64; i++)
		m |= UINT64_C(1) << i;
	return m;
}

void
wholenode_share(const struct snap *sn, const struct kai_job *j,
    struct kai_alloc *allocs, size_t from, size_t n)
{
	size_t i, o;

	if (j->whole_node == 0)
		return;
	for (i = from; i < n; i++) {
		const struct kai_sched_snap_node *nd =
		    find_node(sn, allocs[i].node);
		uint32_t cnt = 0, k = 0;

		if (nd == NULL)
			continue;
		/* The job's tasks on this node, and i's rank among them. */
		for (o = 0; o < n; o++) {
			if (strcmp(allocs[o].node, allocs[i].node) != 0)
				continue;
			k += o < i;
			cnt++;
		}
		if (nd->memory_mib > 0)
			allocs[i].mem_mb = part((uint64_t)nd->memory_mib, cnt, k);
		if (!(j->whole_node & KAI_JOB_WHOLE_EXCL))
			continue;
		if (nd->cpu_millis > 0)
			allocs[i].cpus = (uint32_t)part(
			    (uint64_t)nd->cpu_millis / 1000, cnt, k);
		/* Whole GPUs only: a part of one GPU stays what it asked. */
		if (j->gpu_fraction == 0 && j->gpu_memory_mb == 0) {
			allocs[i].gpus = (uint32_t)part(nd->gpus, cnt, k);
			allocs[i].gpu_mask = part_mask(nd->gpus, cnt, k);
		}
	}
}

bool
wholenode_on_node(const struct kai_job *j, uint32_t task, uint64_t *cpus,
    uint64_t *mem_mb, uint64_t *gpus)
{
	const char *node = NULL;
	size_t i;

	for (i = 0; i < j->nallocs; i++)
		if (j->allocs[i].task == task)
			node = j->allocs[i].node;
	if (node == NULL)
		return false;
	*cpus = *mem_mb = *gpus = 0;
	for (i = 0; i < j->nallocs; i++) {
		if (strcmp(j->allocs[i].node, node) != 0)
			continue;
		*cpus += j->allocs[i].cpus;
		*mem_mb += j->allocs[i].mem_mb;
		*gpus += j->allocs[i].gpus;
	}
	return true;
}
