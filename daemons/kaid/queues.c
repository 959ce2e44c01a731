/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queues.c: kaid's cache of the queue tree.
 *
 * PostgreSQL holds the tree (kctl changes it through rpc_queue.c); kaid
 * keeps a copy in memory, loaded at start and replaced as a whole after
 * every change kctl commits, so the next tick schedules with the new tree
 * and no restart is needed.  Submissions are checked against the copy
 * (a job goes to an existing leaf), and the tick builds the scheduler's
 * queues from it.  The cache is only ever replaced whole, never edited,
 * so it is always a tree the store accepted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

void
queues_free(struct kaid *k)
{
	kai_queues_free(k->queues, k->nqueues);
	free(k->queue_parent);
	kai_map_fini(&k->queue_ix);
	k->queues = NULL;
	k->queue_parent = NULL;
	k->nqueues = 0;
}

int
queues_reload(struct kaid *k, struct kai_err *err)
{
	struct kai_queue *q;
	size_t n, i;
	long p;
	int r;

	if ((r = kai_db_queues_load(k->db, &q, &n, err)) != 0) {
		k->queues_stale = true;
		return r;
	}
	queues_free(k);
	k->queues = q;
	k->nqueues = n;
	k->queue_parent = kai_xcalloc(n + 1, sizeof(*k->queue_parent));
	kai_map_init(&k->queue_ix, NULL);
	for (i = 0; i < n; i++)
		kai_map_put(&k->queue_ix, q[i].name, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < n; i++)
		if ((p = queues_find(k, q[i].parent)) >= 0)
			k->queue_parent[p] = true;
	k->queues_stale = false;
	kai_log_debug("%zu queues loaded", n);
	return 0;
}

long
queues_find(const struct kaid *k, const char *name)
{
	uintptr_t v;

	if (name == NULL || k->queues == NULL)
		return -1;
	v = (uintptr_t)kai_map_get(&k->queue_ix, name);
	return v == 0 ? -1 : (long)(v - 1);
}

void
queues_children(const struct kaid *k, size_t i, char *buf, size_t size)
{
	size_t c, shown = 0, len = 0;

	buf[0] = '\0';
	for (c = 0; c < k->nqueues && len + 1 < size; c++) {
		const char *p = k->queues[c].parent;

		if (p == NULL || strcmp(p, k->queues[i].name) != 0)
			continue;
		if (shown == 6) {
			(void)snprintf(buf + len, size - len, ", ...");
			break;
		}
		(void)snprintf(buf + len, size - len, "%s%s",
		    shown > 0 ? ", " : "", k->queues[c].name);
		len = strlen(buf);
		shown++;
	}
}
