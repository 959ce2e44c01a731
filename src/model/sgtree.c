/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sgtree.c: a gang's subgroup tree (sgtree.h).  Trees are small (a
 * PodGroup's subgroups, a JobSet's replicas): lookups are linear.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/sgtree.h"

struct kai_sgtree *
kai_sgtree_new(void)
{
	return kai_xcalloc(1, sizeof(struct kai_sgtree));
}

void
kai_sgtree_free(struct kai_sgtree *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->len; i++) {
		free(t->n[i].name);
		free(t->n[i].topo_req);
		free(t->n[i].topo_pref);
	}
	free(t->n);
	free(t);
}

static char *
opt(const char *s)
{
	return s != NULL && s[0] != '\0' ? kai_xstrdup(s) : NULL;
}

size_t
kai_sgtree_add(struct kai_sgtree *t, const char *name, int32_t parent,
    uint32_t min_member, uint32_t min_subgroup, const char *topo_req,
    const char *topo_pref)
{
	struct kai_sgtree_node *x;

	if (t->len == t->cap) {
		t->cap = t->cap > 0 ? 2 * t->cap : 8;
		t->n = kai_xreallocarray(t->n, t->cap, sizeof(*t->n));
	}
	x = &t->n[t->len];
	x->name = kai_xstrdup(name);
	x->parent = parent;
	x->min_member = min_member;
	x->min_subgroup = min_subgroup;
	x->topo_req = opt(topo_req);
	x->topo_pref = opt(topo_pref);
	return t->len++;
}

int32_t
kai_sgtree_find(const struct kai_sgtree *t, const char *name)
{
	size_t i;

	for (i = 0; t != NULL && name != NULL && i < t->len; i++)
		if (strcmp(t->n[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

bool
kai_sgtree_leaf(const struct kai_sgtree *t, size_t i)
{
	size_t k;

	for (k = i + 1; k < t->len; k++)
		if (t->n[k].parent == (int32_t)i)
			return false;
	return true;
}

struct kai_sgtree *
kai_sgtree_dup(const struct kai_sgtree *t)
{
	struct kai_sgtree *c = kai_sgtree_new();
	size_t i;

	c->min_subgroup = t->min_subgroup;
	for (i = 0; i < t->len; i++)
		(void)kai_sgtree_add(c, t->n[i].name, t->n[i].parent,
		    t->n[i].min_member, t->n[i].min_subgroup, t->n[i].topo_req,
		    t->n[i].topo_pref);
	return c;
}
