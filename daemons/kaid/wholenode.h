/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * wholenode.h: a whole-node job's pods (--exclusive, --mem=0).
 */
#ifndef KAID_WHOLENODE_H
#define KAID_WHOLENODE_H

#include <stddef.h>
#include <stdint.h>

#include "kaid.h"

/*
 * Gives the allocations allocs[from, n) of job j, placed now on the nodes
 * of sn, their nodes whole, shared among the job's tasks on each node:
 * with --exclusive all the node's CPUs, memory and (whole) GPUs, with
 * --mem=0 its memory.  Nothing for a job that takes no node whole.
 */
void wholenode_share(const struct snap *sn, const struct kai_job *j,
    struct kai_alloc *allocs, size_t from, size_t n);

/*
 * What task `task` of job j holds together with the job's other tasks on
 * its node, from the allocations: CPUs, MiB and GPUs.  false when the
 * task has no allocation (the caller then counts its own way).
 */
bool wholenode_on_node(const struct kai_job *j, uint32_t task,
    uint64_t *cpus, uint64_t *mem_mb, uint64_t *gpus);

#endif
