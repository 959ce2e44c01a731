/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queues.h: the queue tree's cache, owned by queues.c.
 *
 * struct queues (in kaid) is defined in queues.c alone; the rest of kaid
 * reads the tree through these functions.
 */
#ifndef KAID_QUEUES_H
#define KAID_QUEUES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
struct kaid;
struct kai_err;
struct kai_queue;

/*
 * Replaces the queue cache with the tree in PostgreSQL.  On failure the
 * old cache stays (and is marked stale, for the next tick to retry).
 */
int queues_reload(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
void queues_free(struct kaid *k);
/* Whether the last reload failed (or none was made yet). */
bool queues_stale(const struct kaid *k);
/* The queues, in creation order: queue i of queues_count(). */
size_t queues_count(const struct kaid *k);
const struct kai_queue *queues_at(const struct kaid *k, size_t i);
/* Whether queue i has children (is no leaf). */
bool queues_is_parent(const struct kaid *k, size_t i);
/* The cache index of name, or -1. */
long queues_find(const struct kaid *k, const char *name);
/* The children of queue i, "a, b, c, ..." (a few), into buf. */
void queues_children(const struct kaid *k, size_t i, char *buf, size_t size);

#endif /* KAID_QUEUES_H */
