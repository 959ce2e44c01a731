/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * heap.c: a binary min-heap of 32-bit ids ordered by a caller's "before"
 * function, on storage the caller sized.
 *
 * The queue tree and the job lists are heaps of these: a cycle pops up to
 * every pending job once, and each pop or re-key costs O(log n) instead
 * of re-sorting.  When pos is given the heap records where each id sits,
 * so an id whose key changed (a queue whose allocation moved) can be put
 * back in order in place; ties must be broken by the caller down to the
 * id, which keeps the order deterministic.
 */
#include "config.h"

#include "sched/sched_int.h"

static void
put(struct kai_sched_heap *h, uint32_t i, uint32_t id)
{
	h->a[i] = id;
	if (h->pos != NULL)
		h->pos[id] = i;
}

static void
sift_up(struct kai_sched_heap *h, uint32_t i)
{
	uint32_t id = h->a[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!h->before(h->ctx, id, h->a[p]))
			break;
		put(h, i, h->a[p]);
		i = p;
	}
	put(h, i, id);
}

static void
sift_down(struct kai_sched_heap *h, uint32_t i)
{
	uint32_t id = h->a[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->before(h->ctx, h->a[c + 1], h->a[c]))
			c++;
		if (!h->before(h->ctx, h->a[c], id))
			break;
		put(h, i, h->a[c]);
		i = c;
	}
	put(h, i, id);
}

void
kai_sched_heap_init(struct kai_sched_heap *h, uint32_t *a, uint32_t *pos,
    kai_sched_before_fn *before, const void *ctx)
{
	h->a = a;
	h->n = 0;
	h->pos = pos;
	h->before = before;
	h->ctx = ctx;
}

/* Orders a[0..n) filled by the caller: O(n), cheaper than n pushes. */
void
kai_sched_heap_build(struct kai_sched_heap *h)
{
	uint32_t i;

	if (h->pos != NULL)
		for (i = 0; i < h->n; i++)
			h->pos[h->a[i]] = i;
	for (i = h->n / 2; i-- > 0;)
		sift_down(h, i);
}

void
kai_sched_heap_push(struct kai_sched_heap *h, uint32_t id)
{
	put(h, h->n, id);
	h->n++;
	sift_up(h, h->n - 1);
}

uint32_t
kai_sched_heap_top(const struct kai_sched_heap *h)
{
	return h->n > 0 ? h->a[0] : NONE32;
}

static void
remove_at(struct kai_sched_heap *h, uint32_t i)
{
	uint32_t gone = h->a[i];

	h->n--;
	if (i != h->n) {
		put(h, i, h->a[h->n]);
		sift_down(h, i);
		sift_up(h, i);
	}
	if (h->pos != NULL)
		h->pos[gone] = NONE32;
}

void
kai_sched_heap_pop(struct kai_sched_heap *h)
{
	if (h->n > 0)
		remove_at(h, 0);
}

void
kai_sched_heap_fix(struct kai_sched_heap *h, uint32_t id)
{
	uint32_t i = h->pos[id];

	if (i == NONE32)
		return;
	sift_down(h, i);
	sift_up(h, h->pos[id]);
}

void
kai_sched_heap_remove(struct kai_sched_heap *h, uint32_t id)
{
	if (h->pos[id] != NONE32)
		remove_at(h, h->pos[id]);
}

bool
kai_sched_heap_has(const struct kai_sched_heap *h, uint32_t id)
{
	return h->pos[id] != NONE32;
}
