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
 * Only nodes with the idle whole GPUs, CPU and memory of the whole group
 * are candidates, and a step whose group needs more GPUs than any node
 * has idle fails before any scan; a try fails then only on what the sum
 * does not see (device layout, pools, GPU types, reservations), each one
 * a scan of the nodes.  1000 nodes of 8 GPUs, half with 4 taken, 2000
 * jobs of 8 one-GPU tasks: one allocate cycle takes 14 ms grouped by 8,
 * 7 ms free (it was 11 s before the filter, trying every half-full node
 * for every job).
 *
 * Consolidation moves a running grouped job as a whole: every task is
 * evicted, then the groups are placed again by the same rule
 * (kai_sched_move_groups()), so a move never splits a group.  Only there
 * do evicted tasks count as ones to place; elsewhere an evicted task
 * stays evicted.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

/* Whether task t is one to place: pending, or evicted when moving. */
static bool
to_place(const struct sess *S, size_t t, bool moving)
{
	return S->tasks[t].state == KAI_SCHED_TASK_PENDING ||
	    (moving && S->tasks[t].state == KAI_SCHED_TASK_EVICTED);
}

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

/*
 * The nodes not struck off in used[] that could hold the group's pending
 * tasks (their whole GPUs, CPU and memory together; a node with releasing
 * tasks may when pipelining), in index order, into out[].  The test is
 * cheap and spares a scan and a rollback per node that cannot.
 */
static uint32_t
candidates(const struct sess *S, const uint8_t *used, size_t first,
    uint32_t k, bool pipe, bool moving, uint32_t *out)
{
	int64_t need[NRES] = {0};
	uint32_t n, nc = 0;
	size_t t;
	int r;

	for (t = first; t < first + k; t++) {
		const struct kai_sched_snap_task *in = &S->s->tasks[t];

		if (!to_place(S, t, moving))
			continue;
		need[R_GPU] += in->gpus;
		need[R_CPU] += in->cpu_millis;
		need[R_MEM] += in->memory_mib;
	}
	for (n = 0; n < S->nn; n++) {
		const struct snode *nd = &S->nodes[n];
		bool room = nd->whole_idle >= need[R_GPU];

		for (r = R_CPU; room && r <= R_MEM; r++)
			room = nd->cap[r] - nd->alloc[r] - nd->rel[r] >=
			    need[r];
		if (!used[n] && nd->ok && (room || (pipe && nd->has_rel)))
			out[nc++] = n;
	}
	return nc;
}

/* The pending tasks of the group go on node (all of them, or none). */
static bool
fill_node(struct sess *S, size_t first, uint32_t k, uint32_t node,
    bool pipe, bool moving)
{
	struct kai_sched_choice c;
	size_t t;

	for (t = first; t < first + k; t++) {
		if (!to_place(S, t, moving))
			continue;
		if (!kai_sched_choose(S, (uint32_t)t, &node, 1, NULL, pipe, &c))
			return false;
		kai_sched_place(S, (uint32_t)t, (uint32_t)c.node, c.mask,
		    c.ugpu, c.pipelined);
	}
	return true;
}

/* The group's first task to place, or first + k when none is. */
static size_t
first_pending(const struct sess *S, size_t first, uint32_t k, bool moving)
{
	size_t t;

	for (t = first; t < first + k; t++)
		if (to_place(S, t, moving))
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
    bool pipe, bool moving)
{
	uint32_t *cand = S->scratch_nodes, nc, tried = 0, i;
	size_t t0 = first_pending(S, first, k, moving), mark;
	struct kai_sched_choice c;
	bool ok = false;

	while ((nc = candidates(S, used, first, k, pipe, moving, cand)) > 0) {
		if (!kai_sched_choose(S, (uint32_t)t0, cand, nc, NULL, pipe,
			&c))
			break;
		mark = kai_sched_mark(S);
		if (fill_node(S, first, k, (uint32_t)c.node, pipe, moving)) {
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

/*
 * The most whole GPUs a group yet to be placed asks of one node.  When
 * no node has that many idle (the node index knows the most in O(max
 * GPUs)), the step fails at once instead of trying every node for every
 * group: a long queue of such jobs would otherwise cost nodes^2 each.
 */
static uint32_t
most_group_gpus(const struct sess *S, const struct kai_sched_snap_job *J,
    bool moving)
{
	uint32_t k = J->tasks_per_node, g, most = 0;

	for (g = 0; g < J->ntasks / k; g++) {
		size_t first = J->first_task + (size_t)g * k, t;
		uint32_t sum = 0;

		if (group_node(S, first, k) >= 0)
			continue;
		for (t = first; t < first + k; t++)
			if (to_place(S, t, moving))
				sum += S->s->tasks[t].gpus;
		if (sum > most)
			most = sum;
	}
	return most;
}

static void
why_groups(struct kai_sched_why_info *why, uint32_t k, uint32_t placed,
    uint32_t ngroups)
{
	kai_sched_why_clear(why);
	why->why = KAI_SCHED_WHY_NODE_GROUP;
	why->a = k;
	why->b = placed;
	why->c = ngroups;
}

static bool
place_groups(struct sess *S, uint32_t j, bool pipe, bool moving,
    struct kai_sched_why_info *why)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t k = J->tasks_per_node, ngroups = (uint32_t)(J->ntasks / k),
		 g, placed = 0;
	uint8_t *used = S->scratch_nflag;
	size_t mark = kai_sched_mark(S);
	int32_t node;
	bool ok = true;

	if (!(pipe && S->nrel > 0) &&
	    most_group_gpus(S, J, moving) > kai_sched_most_idle_gpus(S)) {
		why_groups(why, k, 0, ngroups);
		return false;
	}
	memset(used, 0, S->nn);
	/* Nodes the job's groups already hold are no other group's. */
	for (g = 0; g < ngroups; g++)
		if ((node = group_node(S, J->first_task + (size_t)g * k, k)) >=
		    0)
			used[node] = 1;
	for (g = 0; g < ngroups; g++) {
		size_t first = J->first_task + (size_t)g * k;

		if (first_pending(S, first, k, moving) == first + k) {
			placed++;
			continue;
		}
		node = group_node(S, first, k);
		if (node >= 0
			? fill_node(S, first, k, (uint32_t)node, pipe, moving)
			: place_new_group(S, first, k, used, pipe, moving)) {
			placed++;
			used[group_node(S, first, k)] = 1;
			continue;
		}
		ok = false;
	}
	if (ok)
		return true;
	kai_sched_rollback(S, mark);
	why_groups(why, k, placed, ngroups);
	return false;
}

bool
kai_sched_place_groups(struct sess *S, uint32_t j, bool pipe,
    struct kai_sched_why_info *why)
{
	return place_groups(S, j, pipe, false, why);
}

bool
kai_sched_move_groups(struct sess *S, uint32_t j)
{
	struct kai_sched_why_info why;

	return place_groups(S, j, true, true, &why);
}
