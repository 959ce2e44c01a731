/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ctx.c: what one cycle keeps for the next (struct kai_sched_ctx).
 *
 * A cycle's working state is a few dozen arrays sized from the snapshot:
 * per job, per task, per node, per group.  At a million pending jobs
 * they come to hundreds of MiB, and allocating them fresh every cycle
 * costs more than the scheduling they serve: glibc maps such blocks
 * anew, the kernel faults in and zeroes every page, and free() unmaps
 * them again.  The context keeps the large blocks a cycle hands back and
 * gives them to the next cycle, which asks for the same sizes when the
 * cluster has not changed much (best fit, at most twice the size asked).
 * Blocks no cycle asked for during a whole cycle are released, so a
 * cluster that shrinks does not keep its old peak.
 *
 * Every block carries a small header with its size, so a block is given
 * back with kai_sched_free() whether or not it came from the cache, and
 * small blocks go straight to malloc and free.  A cycle without a
 * context (kai_sched_cycle()) uses a context of its own, released at the
 * end: the same code path, nothing kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

/* Blocks below a page come from malloc and go back to it: nothing to
 * save there, and a cache of tiny blocks would only fragment. */
#define CTX_MIN_KEEP 4096
/* A header of this size keeps the block's alignment (malloc's 16). */
#define CTX_HDR 16

struct ctx_block {
	void *p;     /* the header's address */
	size_t size; /* bytes after the header */
	bool used;   /* asked for during the current cycle */
};

struct kai_sched_ctx {
	struct ctx_block *b; /* blocks handed back, waiting for reuse */
	size_t nb, capb;
	struct kai_sched_inc *inc; /* incr.c: the leaves left alone */
};

struct kai_sched_ctx *
kai_sched_ctx_new(void)
{
	return kai_xcalloc(1, sizeof(struct kai_sched_ctx));
}

void
kai_sched_ctx_free(struct kai_sched_ctx *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nb; i++)
		free(c->b[i].p);
	free(c->b);
	kai_sched_inc_free(c->inc);
	free(c);
}

struct kai_sched_inc **
kai_sched_ctx_inc(struct kai_sched_ctx *c)
{
	return &c->inc;
}

size_t
kai_sched_ctx_left_out(const struct kai_sched_ctx *c)
{
	return c != NULL ? kai_sched_inc_left_out(c->inc) : 0;
}

static void *
fresh(size_t bytes)
{
	unsigned char *h = kai_xcalloc(1, CTX_HDR + bytes);

	memcpy(h, &bytes, sizeof(bytes));
	return h + CTX_HDR;
}

static void *take(struct kai_sched_ctx *c, size_t n, size_t size, bool zero);

void *
kai_sched_calloc(struct kai_sched_ctx *c, size_t n, size_t size)
{
	return take(c, n, size, true);
}

void *
kai_sched_alloc_dirty(struct kai_sched_ctx *c, size_t n, size_t size)
{
	return take(c, n, size, false);
}

static void *
take(struct kai_sched_ctx *c, size_t n, size_t size, bool zero)
{
	size_t bytes, i, best = SIZE_MAX;
	unsigned char *h;

	/* No room for the header: as any allocation too large, this aborts
	 * (kai_xmalloc() never returns NULL). */
	if (size != 0 && n > (SIZE_MAX - CTX_HDR) / size)
		return kai_xmalloc(SIZE_MAX);
	bytes = n * size;
	if (c == NULL || bytes < CTX_MIN_KEEP)
		return fresh(bytes);
	for (i = 0; i < c->nb; i++)
		if (c->b[i].size >= bytes && c->b[i].size / 2 <= bytes &&
		    (best == SIZE_MAX || c->b[i].size < c->b[best].size))
			best = i;
	if (best == SIZE_MAX)
		return fresh(bytes);
	h = c->b[best].p;
	c->b[best] = c->b[--c->nb];
	/* Keep the recorded size: the block can be asked for again. */
	if (zero)
		memset(h + CTX_HDR, 0, bytes);
	return h + CTX_HDR;
}

void
kai_sched_free(struct kai_sched_ctx *c, void *p)
{
	unsigned char *h;
	size_t bytes;

	if (p == NULL)
		return;
	h = (unsigned char *)p - CTX_HDR;
	memcpy(&bytes, h, sizeof(bytes));
	if (c == NULL || bytes < CTX_MIN_KEEP) {
		free(h);
		return;
	}
	if (c->nb == c->capb) {
		c->capb = c->capb ? 2 * c->capb : 32;
		c->b = kai_xreallocarray(c->b, c->capb, sizeof(*c->b));
	}
	c->b[c->nb].p = h;
	c->b[c->nb].size = bytes;
	c->b[c->nb].used = true;
	c->nb++;
}

/*
 * The end of a cycle: a block handed back during it stays for the next
 * one; a block that sat unused through it is released.
 */
void
kai_sched_ctx_trim(struct kai_sched_ctx *c)
{
	size_t i = 0;

	while (i < c->nb) {
		if (c->b[i].used) {
			c->b[i++].used = false;
			continue;
		}
		free(c->b[i].p);
		c->b[i] = c->b[--c->nb];
	}
}

/* How many bytes the context holds for the next cycle. */
size_t
kai_sched_ctx_kept(const struct kai_sched_ctx *c)
{
	size_t i, n = 0;

	for (i = 0; c != NULL && i < c->nb; i++)
		n += c->b[i].size;
	return n;
}
