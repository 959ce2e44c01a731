/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * snap_tree.c: a Kubernetes-native gang's subgroup tree in the
 * scheduler's snapshot (doc/k8s-native.md, "Subgroups").
 *
 * The core wants a tree job's tasks leaf by leaf (sched_model.h, struct
 * kai_sched_subgroup): snap_tree_order() lists them so, each leaf's
 * placed members (their allocations) and then its unbound ones, and
 * snap_tree_rows() writes the subgroup rows and the job's topology (its
 * own levels, then its subgroups', as node label keys: kaid.yaml names
 * no topologies).  A member's leaf is its pod's subgroup (pod_rec); a
 * tree whose members cannot all be put in a leaf is given to the core
 * as the flat gang it was before (false), never half.
 *
 * snap_native_sizes() gives each pending task of a gang, tree or flat,
 * its own member's request: a PyTorchJob's master of 1 GPU and workers
 * of 4, a Ray head or a LeaderWorkerSet leader without GPUs, are placed
 * as each asks, not each as the largest.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/native.h"
#include "snapshot.h"
#include "sys/log.h"

static int32_t
leaf_of(const struct kaid *k, const struct kai_sgtree *t, const char *pod)
{
	const struct pod_rec *r = kai_map_get(&k->pods, pod);
	int32_t i;

	if (r == NULL || (i = kai_sgtree_find(t, r->subgroup)) < 0 ||
	    !kai_sgtree_leaf(t, (size_t)i))
		return -1;
	return i;
}

size_t
snap_tree_order(const struct kaid *k, const struct kai_job *j,
    struct snap_tree_task **out)
{
	const struct kai_sgtree *t = j->sgtree;
	const char **keys;
	size_t nm, i, n = 0, cap;
	struct snap_tree_task *v;
	int32_t *ml, *al;
	bool ok = true;
	size_t l;

	*out = NULL;
	if (t == NULL || t->len == 0 || !native_gang(j))
		return 0;
	keys = native_members(k, j, &nm);
	cap = nm + j->nallocs + 1;
	v = kai_xcalloc(cap, sizeof(*v));
	ml = kai_xcalloc(nm + 1, sizeof(*ml));
	al = kai_xcalloc(j->nallocs + 1, sizeof(*al));
	for (i = 0; i < nm && ok; i++)
		ok = (ml[i] = leaf_of(k, t, keys[i])) >= 0;
	for (i = 0; i < j->nallocs && ok; i++)
		ok = (al[i] = leaf_of(k, t, j->allocs[i].pod)) >= 0;
	for (l = 0; l < t->len && ok; l++) {
		for (i = 0; i < j->nallocs; i++)
			if (al[i] == (int32_t)l) {
				v[n].leaf = (uint32_t)l;
				v[n].alloc = &j->allocs[i];
				v[n++].pod = j->allocs[i].pod;
			}
		for (i = 0; i < nm; i++)
			if (ml[i] == (int32_t)l) {
				v[n].leaf = (uint32_t)l;
				v[n++].pod = keys[i];
			}
	}
	free(ml);
	free(al);
	free(keys);
	if (!ok || n == 0) {
		free(v);
		return 0;
	}
	*out = v;
	return n;
}

/* The index of key among the first n levels, or -1. */
static int32_t
level_ix(const char **lv, size_t n, const char *key)
{
	size_t i;

	for (i = 0; key != NULL && i < n; i++)
		if (strcmp(lv[i], key) == 0)
			return (int32_t)i;
	return -1;
}

static void
add_level(const char **lv, size_t *n, const char *key)
{
	if (key != NULL && key[0] != '\0' && level_ix(lv, *n, key) < 0)
		lv[(*n)++] = key;
}

/*
 * The job's topology with its subgroups' levels: the job's required,
 * its preferred, then each subgroup's, widest first as written.
 */
static void
tree_topology(struct snap *sn, const struct kai_job *j,
    struct kai_sched_snap_job *s)
{
	const struct kai_sgtree *t = j->sgtree;
	struct kai_sched_topology *tp;
	const char **lv = kai_xcalloc(2 * t->len + 3, sizeof(*lv));
	size_t n = 0, i;

	add_level(lv, &n, j->topology);
	add_level(lv, &n, j->topology_preferred);
	for (i = 0; i < t->len; i++) {
		add_level(lv, &n, t->n[i].topo_req);
		add_level(lv, &n, t->n[i].topo_pref);
	}
	if (n == 0) {
		free(lv);
		return;
	}
	sn->tree_lv = kai_xreallocarray(sn->tree_lv, sn->ntree_lv + 1,
	    sizeof(*sn->tree_lv));
	sn->tree_lv[sn->ntree_lv++] = lv;
	tp = &sn->topos[sn->s.ntopologies];
	tp->name = lv[0];
	tp->levels = lv;
	tp->nlevels = n;
	s->topology = (int32_t)sn->s.ntopologies++;
	s->required_level = level_ix(lv, n, j->topology);
	s->preferred_level = level_ix(lv, n, j->topology_preferred);
}

void
snap_tree_rows(struct snap *sn, const struct kai_job *j,
    struct kai_sched_snap_job *s, const struct snap_tree_task *v, size_t n)
{
	const struct kai_sgtree *t = j->sgtree;
	struct kai_sched_job_tree *R;
	uint32_t top;
	size_t i;

	if (sn->nsgs + t->len > sn->csgs) {
		sn->csgs = 2 * (sn->nsgs + t->len);
		sn->sgs = kai_xreallocarray(sn->sgs, sn->csgs,
		    sizeof(*sn->sgs));
	}
	/* The job's own level, if any, comes from snap_topology(): the
	 * tree's replaces it to hold the subgroups' too. */
	s->topology = s->required_level = s->preferred_level = -1;
	tree_topology(sn, j, s);
	if (sn->ntrees == sn->ctrees) {
		sn->ctrees = sn->ctrees > 0 ? 2 * sn->ctrees : 16;
		sn->trees = kai_xreallocarray(sn->trees, sn->ctrees,
		    sizeof(*sn->trees));
	}
	R = &sn->trees[sn->ntrees++];
	R->job = (uint32_t)sn->s.njobs; /* s, the job being added */
	R->first_subgroup = (uint32_t)sn->nsgs;
	R->nsubgroups = (uint32_t)t->len;
	R->min_subgroup = t->min_subgroup;
	s->min_tasks = 0;
	for (i = 0; i < t->len; i++) {
		struct kai_sched_subgroup *g = &sn->sgs[sn->nsgs + i];
		const struct kai_sched_topology *tp = s->topology >= 0
		    ? &sn->topos[s->topology] : NULL;
		size_t x;

		uint32_t nchild = 0;

		memset(g, 0, sizeof(*g));
		g->name = t->n[i].name;
		g->parent = t->n[i].parent;
		for (x = i + 1; x < t->len; x++)
			nchild += t->n[x].parent == (int32_t)i;
		for (x = 0; x < n; x++)
			g->ntasks += v[x].leaf == i;
		/* What a PodGroup may say but the core refuses: a leaf's
		 * minimum above the pods it has (it lost some), minSubGroup
		 * on a leaf or above its children, a preferred level wider
		 * than the required one.  KAI's webhook refuses most. */
		if (nchild == 0)
			g->min_member = t->n[i].min_member < g->ntasks
			    ? t->n[i].min_member : g->ntasks;
		else
			g->min_subgroup = t->n[i].min_subgroup < nchild
			    ? t->n[i].min_subgroup : nchild;
		g->required_level = tp != NULL ? level_ix((const char **)
		    tp->levels, tp->nlevels, t->n[i].topo_req) : -1;
		g->preferred_level = tp != NULL ? level_ix((const char **)
		    tp->levels, tp->nlevels, t->n[i].topo_pref) : -1;
		if (g->preferred_level >= 0 &&
		    g->preferred_level < g->required_level)
			g->preferred_level = -1;
	}
	for (i = 0, top = 0; i < t->len; i++)
		top += t->n[i].parent < 0;
	if (R->min_subgroup > top)
		R->min_subgroup = top;
	sn->nsgs += t->len;
	sn->s.subgroups = sn->sgs;
	sn->s.nsubgroups = sn->nsgs;
	sn->s.trees = sn->trees;
	sn->s.ntrees = sn->ntrees;
}

void
snap_native_sizes(const struct kaid *k, struct snap *sn,
    const struct kai_job *j, size_t first)
{
	const char **keys = NULL;
	size_t i, nm = 0, m = 0;

	if (!native_gang(j))
		return;
	/* A flat gang is given to the core only pending, with all its
	 * members (native_gang_wait): task i is member i. */
	if (j->state == KAI_JOB_PENDING)
		keys = native_members(k, j, &nm);
	for (i = first; i < sn->s.ntasks; i++) {
		struct kai_sched_snap_task *t = &sn->tasks[i], want;
		const char *pod = sn->task_pod[i];
		const struct pod_rec *r;
		struct kai_err err;
		uint32_t cpus;
		uint64_t mem;

		if (t->state != KAI_SCHED_TASK_PENDING)
			continue;	/* placed: its allocation's size */
		if (pod == NULL)
			pod = m < nm ? keys[m++] : NULL;
		if (pod == NULL || (r = kai_map_get(&k->pods, pod)) == NULL)
			continue;
		native_task_size(k, r->cpu_milli, r->mem_mb, &cpus, &mem);
		kai_sched_task_init(&want);
		/* Within the job's figures, its largest member's (grow()),
		 * which request_problem() checked: cannot fail. */
		if (kai_sched_task_request(&want, t->gpus > 0 ? r->gpus : 0,
		    (uint64_t)t->gpu_fraction, (uint64_t)t->gpu_memory_mib,
		    (uint64_t)cpus * 1000, mem, &err) != 0) {
			kai_log_err("job %" PRIu64 ": pod \"%s\": %s", j->id,
			    pod, err.msg);
			continue;
		}
		t->gpus = want.gpus;
		t->cpu_millis = want.cpu_millis;
		t->memory_mib = want.memory_mib;
	}
	free(keys);
}
