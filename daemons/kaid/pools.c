/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pools.c: partitions as node pools.
 *
 * A queue belongs to the kaid.yaml partition of its own name or, for a
 * queue made with kctl under one, of its nearest ancestor that is one:
 * so a team's child queue runs on its partition's nodes, with its image
 * and filesystems.  A queue no partition covers has no pool: no
 * selector, no tolerations, the top-level filesystems.
 */
#include "config.h"

#include <string.h>

#include "kaid.h"

const struct kai_conf_partition *
pools_partition(const struct kaid *k, const char *queue)
{
	const struct kai_conf_partition *p;
	const char *name = queue;
	size_t hops;
	long qi;

	/* At most one hop per queue: the tree has no cycles, but be sure. */
	for (hops = 0; name != NULL && hops <= k->nqueues; hops++) {
		if ((p = kai_conf_partition(k->conf, name)) != NULL)
			return p;
		if ((qi = queues_find(k, name)) < 0)
			return NULL;
		name = k->queues[qi].parent;
	}
	return NULL;
}

const char *
pools_partition_name(const struct kaid *k, const char *queue)
{
	const struct kai_conf_partition *p = pools_partition(k, queue);

	return p != NULL ? p->name : queue;
}
