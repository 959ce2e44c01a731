/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * map.h: a hash map from strings to pointers (open addressing, linear
 * probing, tombstones), for kaid's caches of nodes and pods by name.
 *
 * The map owns copies of its keys; values are the caller's, and the map
 * releases them with the free function given at init (or not at all when
 * it is NULL), as a redis dictType declares ownership.  An empty map owns
 * no memory: init never allocates.
 */
#ifndef KAI_BASE_MAP_H
#define KAI_BASE_MAP_H

#include <stddef.h>

typedef void kai_map_free_fn(void *value);

struct kai_map_slot {
	char *key;	/* NULL = empty; KAI_MAP_TOMB = deleted */
	void *value;
};

struct kai_map {
	struct kai_map_slot *slots;
	size_t cap;	/* power of two */
	size_t len;	/* live entries */
	size_t used;	/* live entries plus tombstones */
	kai_map_free_fn *free_fn;
};

void kai_map_init(struct kai_map *m, kai_map_free_fn *free_fn);
/* Frees every value (with free_fn) and key. */
void kai_map_fini(struct kai_map *m);
/* Borrowed value for key, or NULL. */
void *kai_map_get(const struct kai_map *m, const char *key);
/* Inserts or replaces (the old value is freed with free_fn). */
void kai_map_put(struct kai_map *m, const char *key, void *value);
/* Removes key, freeing its value; no-op when absent. */
void kai_map_del(struct kai_map *m, const char *key);

/*
 * Iteration: for (i = 0; kai_map_next(m, &i, &k, &v);) ...  The map must
 * not be changed during the loop except by kai_map_del() of the current
 * key.
 */
int kai_map_next(const struct kai_map *m, size_t *iter, const char **key,
    void **value);

#endif /* KAI_BASE_MAP_H */
