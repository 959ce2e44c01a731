/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_subgroups.c: a job's subgroup tree in a scenario (KAI's
 * PodGroup subGroups; doc/scheduler.md, "Subgroups").
 *
 *	min_subgroups: 1              # the job's own (0 or absent: all)
 *	subgroups:
 *	  - {name: w, min_subgroups: 1}
 *	  - {name: w-0, parent: w, min_member: 2, tasks: 2,
 *	     topology: {required: rack}}
 *
 * A leaf's `tasks` is how many of the job's tasks it holds: the leaves,
 * in the order listed, take the job's tasks in order.  Parents come
 * before their children, as queues do; the core checks the rest.
 */
#include "config.h"

#include <string.h>

#include "base/xmalloc.h"
#include "scenario.h"

static int
sg_level(struct sload *ld, const struct ynode *m, const char *key,
    const struct kai_sched_snap_job *j, int32_t *out)
{
	const struct ynode *n = ytree_get(m, key);
	const struct kai_sched_topology *tp;
	size_t i;
	int rc;

	*out = -1;
	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, key)) != 0)
		return rc;
	if (j->topology < 0)
		return sload_fail(ld, n,
		    "a subgroup's topology needs the job's topology");
	tp = &ld->sc->topos[j->topology];
	for (i = 0; i < tp->nlevels; i++)
		if (strcmp(tp->levels[i], n->s) == 0) {
			*out = (int32_t)i;
			return 0;
		}
	return sload_fail(ld, n, "topology \"%s\" has no level \"%s\"",
	    tp->name, n->s);
}

static int
sg_parent(struct sload *ld, const struct ynode *m,
    const struct kai_sched_subgroup *G, uint32_t k, int32_t *out)
{
	const char *p = NULL;
	uint32_t i;
	int rc;

	*out = -1;
	if ((rc = sload_get_str(ld, m, "parent", false, &p)) != 0 || p == NULL)
		return rc;
	for (i = 0; i < k; i++)
		if (strcmp(G[i].name, p) == 0) {
			*out = (int32_t)i;
			return 0;
		}
	return sload_fail(ld, ytree_get(m, "parent"),
	    "no subgroup \"%s\" listed before this one", p);
}

static int
load_sg(struct sload *ld, const struct ynode *m,
    const struct kai_sched_snap_job *j, struct kai_sched_subgroup *G,
    uint32_t k)
{
	static const char *const keys[] = {"name", "parent", "min_member",
	    "min_subgroups", "tasks", "topology", NULL};
	static const char *const tkeys[] = {"required", "preferred", NULL};
	struct kai_sched_subgroup *g = &G[k];
	const struct ynode *t;
	int64_t mm = 0, ms = 0, nt = 0;
	int rc;

	g->required_level = g->preferred_level = -1;
	if ((rc = sload_keys(ld, m, keys, "a subgroup")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &g->name)) != 0 ||
	    (rc = sg_parent(ld, m, G, k, &g->parent)) != 0 ||
	    (rc = sload_get_i64(ld, m, "min_member", 0, INT32_MAX, &mm)) !=
		0 ||
	    (rc = sload_get_i64(ld, m, "min_subgroups", 0, INT32_MAX, &ms)) !=
		0 ||
	    (rc = sload_get_i64(ld, m, "tasks", 0, (int64_t)j->ntasks, &nt)) !=
		0)
		return rc;
	g->min_member = (uint32_t)mm;
	g->min_subgroup = (uint32_t)ms;
	g->ntasks = (uint32_t)nt;
	if ((t = ytree_get(m, "topology")) == NULL)
		return 0;
	if ((rc = sload_keys(ld, t, tkeys, "a subgroup topology")) != 0 ||
	    (rc = sg_level(ld, t, "required", j, &g->required_level)) != 0 ||
	    (rc = sg_level(ld, t, "preferred", j, &g->preferred_level)) != 0)
		return rc;
	return 0;
}

int
scenario_job_subgroups(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	struct scenario *sc = ld->sc;
	const struct ynode *l = ytree_get(m, "subgroups");
	struct kai_sched_job_tree *R;
	int64_t ms = 0;
	size_t k;
	int rc;

	if ((rc = sload_get_i64(ld, m, "min_subgroups", 0, INT32_MAX, &ms)) !=
	    0)
		return rc;
	if (l == NULL) {
		if (ms > 0)
			return sload_fail(ld, ytree_get(m, "min_subgroups"),
			    "min_subgroups without subgroups");
		return 0;
	}
	if ((rc = sload_kind(ld, l, YT_SEQ, "subgroups")) != 0)
		return rc;
	if (l->n == 0 || l->n > KAI_SCHED_MAX_SUBGROUPS)
		return sload_fail(ld, l, "subgroups: 1 to %d of them",
		    KAI_SCHED_MAX_SUBGROUPS);
	sc->subgroups = kai_xreallocarray(sc->subgroups,
	    sc->nsubgroups + l->n, sizeof(*sc->subgroups));
	/* Jobs are read in order: the trees stay in job order. */
	sc->trees = kai_xreallocarray(sc->trees, sc->ntrees + 1,
	    sizeof(*sc->trees));
	R = &sc->trees[sc->ntrees++];
	R->job = (uint32_t)(j - sc->jobs);
	R->first_subgroup = (uint32_t)sc->nsubgroups;
	R->nsubgroups = (uint32_t)l->n;
	R->min_subgroup = (uint32_t)ms;
	sc->snap.trees = sc->trees;
	sc->snap.ntrees = sc->ntrees;
	memset(&sc->subgroups[sc->nsubgroups], 0,
	    l->n * sizeof(*sc->subgroups));
	for (k = 0; k < l->n; k++)
		if ((rc = load_sg(ld, l->v[k], j,
			 &sc->subgroups[sc->nsubgroups], (uint32_t)k)) != 0)
			return rc;
	sc->nsubgroups += l->n;
	sc->snap.subgroups = sc->subgroups;
	sc->snap.nsubgroups = sc->nsubgroups;
	return 0;
}
