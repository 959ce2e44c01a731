/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * map.c: open-addressing string hash map.  See map.h.
 */
#include "config.h"

#include "base/map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

/* A distinct non-NULL pointer marking a deleted slot. */
static char tomb_marker;
#define KAI_MAP_TOMB (&tomb_marker)

/* FNV-1a: short keys, no adversary controls more than a pod name. */
static uint64_t
hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/*
 * An empty map owns no memory (cap 0), like an empty kai_buf: init never
 * allocates, so a map that was never filled needs no fini.  The first put
 * allocates the slots.
 */
void
kai_map_init(struct kai_map *m, kai_map_free_fn *free_fn)
{
	m->cap = 0;
	m->slots = NULL;
	m->len = 0;
	m->used = 0;
	m->free_fn = free_fn;
}

void
kai_map_fini(struct kai_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		char *k = m->slots[i].key;

		if (k == NULL || k == KAI_MAP_TOMB)
			continue;
		if (m->free_fn != NULL)
			m->free_fn(m->slots[i].value);
		free(k);
	}
	KAI_FREE(m->slots);
	m->cap = m->len = m->used = 0;
}

/* The slot holding key, or NULL. */
static struct kai_map_slot *
find(const struct kai_map *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = (size_t)hash(key) & (m->cap - 1);
	for (;;) {
		struct kai_map_slot *s = &m->slots[i];

		if (s->key == NULL)
			return NULL;
		if (s->key != KAI_MAP_TOMB && strcmp(s->key, key) == 0)
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

static void
insert_fresh(struct kai_map *m, char *key, void *value)
{
	size_t i = (size_t)hash(key) & (m->cap - 1);

	while (m->slots[i].key != NULL && m->slots[i].key != KAI_MAP_TOMB)
		i = (i + 1) & (m->cap - 1);
	if (m->slots[i].key == NULL)
		m->used++;
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->len++;
}

static void
rehash(struct kai_map *m, size_t cap)
{
	struct kai_map_slot *old = m->slots;
	size_t oldcap = m->cap, i;

	m->slots = kai_xcalloc(cap, sizeof(*m->slots));
	m->cap = cap;
	m->len = m->used = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i].key != NULL && old[i].key != KAI_MAP_TOMB)
			insert_fresh(m, old[i].key, old[i].value);
	free(old);
}

void *
kai_map_get(const struct kai_map *m, const char *key)
{
	struct kai_map_slot *s = find(m, key);

	return s != NULL ? s->value : NULL;
}

void
kai_map_put(struct kai_map *m, const char *key, void *value)
{
	struct kai_map_slot *s = find(m, key);

	if (s != NULL) {
		if (m->free_fn != NULL && s->value != value)
			m->free_fn(s->value);
		s->value = value;
		return;
	}
	/* Keep the load (tombstones included) under 3/4. */
	if (m->cap == 0)
		rehash(m, 16);
	else if ((m->used + 1) * 4 > m->cap * 3)
		rehash(m, m->len * 2 + 1 > m->cap / 2 ? m->cap * 2 : m->cap);
	insert_fresh(m, kai_xstrdup(key), value);
}

void
kai_map_del(struct kai_map *m, const char *key)
{
	struct kai_map_slot *s = find(m, key);

	if (s == NULL)
		return;
	if (m->free_fn != NULL)
		m->free_fn(s->value);
	free(s->key);
	s->key = KAI_MAP_TOMB;
	s->value = NULL;
	m->len--;
}

int
kai_map_next(const struct kai_map *m, size_t *iter, const char **key,
    void **value)
{
	while (*iter < m->cap) {
		struct kai_map_slot *s = &m->slots[(*iter)++];

		if (s->key != NULL && s->key != KAI_MAP_TOMB) {
			*key = s->key;
			*value = s->value;
			return 1;
		}
	}
	return 0;
}
