/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodegroup.c: placing a job whose tasks share nodes in groups.
 *
 * A job with tasks_per_node = K (Slurm's --ntasks-per-node, or -N with
 * -n) has its tasks in groups of K consecutive tasks: each group goes on
 * one node, and no two groups of the job share a node, so -N 2
 * --ntasks-per-node=2 is two tasks on each of two nodes, never four on
 * one.  The step is all or nothing over the groups (the gang of such a
 * job is every task, validate.c).
 *
 * A group whose tasks already run somewhere (a group only partly
 * evicted) stays on that node.  Otherwise the group's first task picks a
 * node in the usual order among the nodes no other group holds; when the
 * rest of the group does not fit there, that node is struck off and the
 * next is tried, so a group fails only when no node can hold it whole.
 * That is at most one try per node per group: O(nodes^2 * K) at worst,
 * and one scan per task when the first node fits, as it usually does.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

/* The node a task of group [first, first + k) is active on, or -1. */
static int32_t
group_node(const struct sess *S, size_t first, uint32_t k)
{
	size_t t;

	for (t = first; t < first + k; t++)
		if (kai_sched_task_active(&S->tasks[t]))
			return S->tasks[t].node;
	return -1;
}

/* The nodes not struck off in used[], in index order, into out[]. */
static uint32_t
candidates(const struct sess *S, const uint8_t *used, uint32_t *out)
{
	uint32_t n, nc = 0;

	for (n = 0; n < S->nn; n++)
		if (!used[n])
			out[nc++] = n;
	return nc;
}

/* The pending tasks of the group go on node (all of them, or none). */
static bool
fill_node(struct sess *S, size_t first, uint32_t k, uint32_t node,
    bool pipe)
{
	struct kai_sched_choice c;
	size_t t;

	for (t = first; t < first + k; t++) {
		if (S->tasks[t].state != KAI_SCHED_TASK_PENDING)
			continue;
		if (!kai_sched_choose(S, (uint32_t)t, &node, 1, NULL, pipe, &c))
			return false;
		kai_sched_place(S, (uint32_t)t, (uint32_t)c.node, c.mask,
		    c.ugpu, c.pipelined);
	}
	return true;
}

/* The first pending task of the group, or first + k when none is. */
static size_t
first_pending(const struct sess *S, size_t first, uint32_t k)
{
	size_t t;

	for (t = first; t < first + k; t++)
		if (S->tasks[t].state == KAI_SCHED_TASK_PENDING)
			break;
	return t;
}

/*
 * One group with no active task: try nodes in placement order until one
 * holds the whole group; used[] marks the nodes tried (and is restored
 * for those that failed, so the next group may try them again).
 */
static bool
place_new_group(struct sess *S, size_t first, uint32_t k, uint8_t *used,
    bool pipe)
{
	uint32_t *cand = S->scratch_nodes, nc, tried = 0, i;
	size_t t0 = first_pending(S, first, k), mark;
	struct kai_sched_choice c;
	bool ok = false;

	while ((nc = candidates(S, used, cand)) > 0) {
		if (!kai_sched_choose(S, (uint32_t)t0, cand, nc, NULL, pipe,
			&c))
			break;
		mark = kai_sched_mark(S);
		if (fill_node(S, first, k, (uint32_t)c.node, pipe)) {
			ok = true;
			break;
		}
		kai_sched_rollback(S, mark);
		used[c.node] = 2; /* tried for this group */
		tried++;
	}
	for (i = 0; tried > 0 && i < S->nn; i++)
		if (used[i] == 2)
			used[i] = 0;
	return ok;
}

bool
kai_sched_place_groups(struct sess *S, uint32_t j, bool pipe,
    struct kai_sched_why_info *why)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t k = J->tasks_per_node, ngroups = (uint32_t)(J->ntasks / k),
		 g, placed = 0;
	uint8_t *used = S->scratch_nflag;
	size_t mark = kai_sched_mark(S);
	int32_t node;
	bool ok = true;

	memset(used, 0, S->nn);
	/* Nodes the job's groups already hold are no other group's. */
	for (g = 0; g < ngroups; g++)
		if ((node = group_node(S, J->first_task + (size_t)g * k, k)) >=
		    0)
			used[node] = 1;
	for (g = 0; g < ngroups; g++) {
		size_t first = J->first_task + (size_t)g * k;

		if (first_pending(S, first, k) == first + k) {
			placed++;
			continue;
		}
		node = group_node(S, first, k);
		if (node >= 0 ? fill_node(S, first, k, (uint32_t)node, pipe)
			      : place_new_group(S, first, k, used, pipe)) {
			placed++;
			used[group_node(S, first, k)] = 1;
			continue;
		}
		ok = false;
	}
	if (ok)
		return true;
	kai_sched_rollback(S, mark);
	kai_sched_why_clear(why);
	why->why = KAI_SCHED_WHY_NODE_GROUP;
	why->a = k;
	why->b = placed;
	why->c = ngroups;
	return false;
}
