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
#include "queues.h"
#include "sys/log.h"

/* The cache: replaced whole by queues_reload(), read through the rest. */
struct queues {
	struct kai_queue *v;	/* the tree, in creation order */
	size_t n;
	bool *parent;		/* queue i has children */
	struct kai_map ix;	/* name -> index + 1 */
	bool stale;		/* a reload failed: retry before a tick */
};

void
queues_free(struct kaid *k)
{
	struct queues *qs = k->queues;

	if (qs == NULL)
		return;
	kai_queues_free(qs->v, qs->n);
	free(qs->parent);
	kai_map_fini(&qs->ix);
	KAI_FREE(k->queues);
}

int
queues_reload(struct kaid *k, struct kai_err *err)
{
	struct kai_queue *q;
	struct queues *qs;
	size_t n, i;
	long p;
	int r;

	if ((r = kai_db_queues_load(k->db, &q, &n, err)) != 0) {
		if (k->queues != NULL)
			k->queues->stale = true;
		return r;
	}
	queues_free(k);
	qs = k->queues = kai_xcalloc(1, sizeof(*k->queues));
	qs->v = q;
	qs->n = n;
	qs->parent = kai_xcalloc(n + 1, sizeof(*qs->parent));
	kai_map_init(&qs->ix, NULL);
	for (i = 0; i < n; i++)
		kai_map_put(&qs->ix, q[i].name, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < n; i++)
		if ((p = queues_find(k, q[i].parent)) >= 0)
			qs->parent[p] = true;
	kai_log_debug("%zu queues loaded", n);
	/* Pods that waited for a queue this may have made. */
	native_queues_changed(k);
	return 0;
}

bool
queues_stale(const struct kaid *k)
{
	return k->queues == NULL || k->queues->stale;
}

size_t
queues_count(const struct kaid *k)
{
	return k->queues != NULL ? k->queues->n : 0;
}

const struct kai_queue *
queues_at(const struct kaid *k, size_t i)
{
	KAI_ASSERT(i < queues_count(k));
	return &k->queues->v[i];
}

bool
queues_is_parent(const struct kaid *k, size_t i)
{
	KAI_ASSERT(i < queues_count(k));
	return k->queues->parent[i];
}

long
queues_find(const struct kaid *k, const char *name)
{
	uintptr_t v;

	if (name == NULL || k->queues == NULL)
		return -1;
	v = (uintptr_t)kai_map_get(&k->queues->ix, name);
	return v == 0 ? -1 : (long)(v - 1);
}

void
queues_children(const struct kaid *k, size_t i, char *buf, size_t size)
{
	size_t c, shown = 0, len = 0;

	buf[0] = '\0';
	for (c = 0; c < queues_count(k) && len + 1 < size; c++) {
		const char *p = queues_at(k, c)->parent;

		if (p == NULL || strcmp(p, queues_at(k, i)->name) != 0)
			continue;
		if (shown == 6) {
			(void)snprintf(buf + len, size - len, ", ...");
			break;
		}
		(void)snprintf(buf + len, size - len, "%s%s",
		    shown > 0 ? ", " : "", queues_at(k, c)->name);
		len = strlen(buf);
		shown++;
	}
}
