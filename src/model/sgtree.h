/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sgtree.h: a gang's subgroup tree, as KAI's PodGroup spec.subGroups
 * writes it (doc/k8s-native.md, "Subgroups").  kaid builds one for a
 * Kubernetes-native gang from its PodGroup, or from its top owner as
 * KAI's pod grouper would (a JobSet's replicated jobs and replicas...),
 * and hands it to the scheduler core as struct kai_sched_subgroup rows.
 *
 * Ownership: the tree owns its arrays and strings; kai_sgtree_free()
 * releases all (NULL is a no-op).
 */
#ifndef KAI_MODEL_SGTREE_H
#define KAI_MODEL_SGTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kai_sgtree_node {
	char *name;
	int32_t parent;        /* index of a node before it, -1: the root */
	uint32_t min_member;   /* a leaf: its pods that must run */
	uint32_t min_subgroup; /* a parent: its children to satisfy; 0 all */
	char *topo_req;        /* node label key, or NULL */
	char *topo_pref;
};

struct kai_sgtree {
	struct kai_sgtree_node *n;
	size_t len, cap;
	uint32_t min_subgroup; /* the root's; 0: all its children */
};

struct kai_sgtree *kai_sgtree_new(void);
void kai_sgtree_free(struct kai_sgtree *t);
/*
 * Appends a node (copies of the strings; topo_* may be NULL or "");
 * returns its index.
 */
size_t kai_sgtree_add(struct kai_sgtree *t, const char *name, int32_t parent,
    uint32_t min_member, uint32_t min_subgroup, const char *topo_req,
    const char *topo_pref);
/* The index of the node named name, or -1. */
int32_t kai_sgtree_find(const struct kai_sgtree *t, const char *name);
/* Whether node i is a leaf (no node names it as parent). */
bool kai_sgtree_leaf(const struct kai_sgtree *t, size_t i);
/* A deep copy. */
struct kai_sgtree *kai_sgtree_dup(const struct kai_sgtree *t);

#endif /* KAI_MODEL_SGTREE_H */
