/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * subgroup_check.c: whether a job's subgroup tree is one the core can
 * place (sched_model.h, struct kai_sched_subgroup): names unique and
 * given, parents before their children, a leaf's minimum within its
 * tasks and the leaves holding every task of the job, a parent's
 * min_subgroup within its children, levels of the job's topology.
 * kai_sched_validate() calls it; the message names the subgroup.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

static int
check_sg(const struct kai_sched_snapshot *s, const struct kai_sched_snap_job *J,
    const struct kai_sched_subgroup *G, uint32_t k, const uint32_t *nchild,
    struct kai_err *err)
{
	const struct kai_sched_subgroup *g = &G[k];
	uint32_t i;

	if (g->name == NULL || g->name[0] == '\0')
		return kai_err_set(err, KAI_EINVAL, "subgroup %u has no name",
		    k);
	for (i = 0; i < k; i++)
		if (strcmp(G[i].name, g->name) == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "subgroup \"%s\" is listed twice", g->name);
	if (g->parent < -1 || g->parent >= (int32_t)k)
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\": its parent must be listed before it",
		    g->name);
	if (nchild[k] == 0 && g->min_member > g->ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\": min_member %u is more than its %u tasks",
		    g->name, g->min_member, g->ntasks);
	if (nchild[k] == 0 && g->min_subgroup > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\" has no subgroups: min_subgroup is for "
		    "parents", g->name);
	if (nchild[k] > 0 && (g->ntasks > 0 || g->min_member > 0))
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\" has subgroups: its tasks and min_member "
		    "are its leaves'", g->name);
	if (nchild[k] > 0 && g->min_subgroup > nchild[k])
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\": min_subgroup %u is more than its %u "
		    "subgroups", g->name, g->min_subgroup, nchild[k]);
	if ((g->required_level >= 0 || g->preferred_level >= 0) &&
	    J->topology < 0)
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\" has a topology level but the job no "
		    "topology", g->name);
	if (J->topology >= 0 && J->topology < (int64_t)s->ntopologies &&
	    (g->required_level >= (int64_t)s->topologies[J->topology].nlevels ||
		g->preferred_level >=
		    (int64_t)s->topologies[J->topology].nlevels))
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\": no such topology level", g->name);
	if (g->required_level >= 0 && g->preferred_level >= 0 &&
	    g->preferred_level < g->required_level)
		return kai_err_set(err, KAI_EINVAL,
		    "subgroup \"%s\": the preferred level is wider than the "
		    "required one", g->name);
	return 0;
}

static int
check_tree(const struct kai_sched_snapshot *s,
    const struct kai_sched_job_tree *R, struct kai_err *err)
{
	const struct kai_sched_snap_job *J = &s->jobs[R->job];
	const struct kai_sched_subgroup *G;
	uint32_t *nchild, k, top = 0;
	uint64_t sum = 0;
	int rc = 0;

	if (R->nsubgroups == 0 || R->nsubgroups > KAI_SCHED_MAX_SUBGROUPS)
		return kai_err_set(err, KAI_EINVAL,
		    "%" PRIu32 " subgroups: 1 to %d", R->nsubgroups,
		    KAI_SCHED_MAX_SUBGROUPS);
	if (R->first_subgroup > s->nsubgroups ||
	    R->nsubgroups > s->nsubgroups - R->first_subgroup)
		return kai_err_set(err, KAI_EINVAL, "subgroups out of range");
	if (J->tasks_per_node > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "tasks_per_node and subgroups cannot be combined");
	G = &s->subgroups[R->first_subgroup];
	nchild = kai_xcalloc(R->nsubgroups + 1, sizeof(*nchild));
	for (k = 0; k < R->nsubgroups; k++) {
		if (G[k].parent >= 0 && (uint32_t)G[k].parent < R->nsubgroups)
			nchild[G[k].parent]++;
		top += G[k].parent < 0;
	}
	for (k = 0; k < R->nsubgroups && rc == 0; k++) {
		rc = check_sg(s, J, G, k, nchild, err);
		if (nchild[k] == 0)
			sum += G[k].ntasks;
	}
	free(nchild);
	if (rc != 0)
		return rc;
	if (sum != J->ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "its leaf subgroups hold %" PRIu64 " tasks, the job has %"
		    PRIu32, sum, (uint32_t)J->ntasks);
	if (R->min_subgroup > top)
		return kai_err_set(err, KAI_EINVAL,
		    "min_subgroup %" PRIu32 " is more than its %" PRIu32
		    " top-level subgroups", R->min_subgroup, top);
	return 0;
}

int
kai_sched_sg_check(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	size_t i;

	for (i = 0; i < s->ntrees; i++) {
		const struct kai_sched_job_tree *R = &s->trees[i];

		if (R->job >= s->njobs || (i > 0 && R->job <= s->trees[i - 1].job))
			return kai_err_set(err, KAI_EINVAL,
			    "subgroup tree %zu: its job is out of range or "
			    "not after the previous tree's", i);
		if (check_tree(s, R, err) != 0)
			return kai_err_prefix(err, "job \"%s\"",
			    s->jobs[R->job].name);
	}
	return 0;
}
