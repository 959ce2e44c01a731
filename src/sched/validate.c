/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * validate.c: the snapshot's own consistency, checked before a cycle.
 *
 * The core trusts nothing it did not check: every index is in range, a
 * queue's parent comes before it (so the tree has no cycle), jobs sit in
 * leaf queues, a task asks for whole GPUs or part of one but not both,
 * and running tasks name a node.  Whether running tasks fit their nodes
 * is checked while they are laid out (session.c).  Messages name the
 * object and the reason, in the house wording.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/xmalloc.h"

#include "sched/sched_int.h"

static int
check_nodes(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	size_t i, l;

	for (i = 0; i < s->nnodes; i++) {
		const struct kai_sched_snap_node *n = &s->nodes[i];

		if (n->name == NULL || n->name[0] == '\0')
			return kai_err_set(err, KAI_EINVAL,
			    "node %zu has no name", i);
		if (n->gpus > KAI_SCHED_MAX_NODE_GPUS)
			return kai_err_set(err, KAI_EINVAL,
			    "node \"%s\": %u GPUs, more than the %d supported",
			    n->name, n->gpus, KAI_SCHED_MAX_NODE_GPUS);
		if (n->held_gpus > n->gpus)
			return kai_err_set(err, KAI_EINVAL,
			    "node \"%s\": %u GPUs held, more than it has",
			    n->name, n->held_gpus);
		if (n->cpu_millis < -1 || n->memory_mib < -1 ||
		    n->held_cpu_millis < 0 || n->held_memory_mib < 0)
			return kai_err_set(err, KAI_EINVAL,
			    "node \"%s\": negative capacity", n->name);
		for (l = 0; l < n->nlabels; l++)
			if (n->labels[l].key == NULL ||
			    n->labels[l].value == NULL)
				return kai_err_set(err, KAI_EINVAL,
				    "node \"%s\": label %zu is empty", n->name,
				    l);
	}
	return 0;
}

static int
check_queues(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	size_t i, r;

	for (i = 0; i < s->nqueues; i++) {
		const struct kai_sched_snap_queue *q = &s->queues[i];

		if (q->name == NULL || q->name[0] == '\0')
			return kai_err_set(err, KAI_EINVAL,
			    "queue %zu has no name", i);
		if (q->parent >= (int32_t)i || q->parent < -1)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": its parent must be listed before it",
			    q->name);
		for (r = 0; r < NRES; r++) {
			const struct kai_sched_qres *x = &q->res[r];

			if (x->quota < -1 || x->limit < -1 ||
			    !(x->weight >= 0) || !(x->usage >= 0))
				return kai_err_set(err, KAI_EINVAL,
				    "queue \"%s\": negative quota, limit, "
				    "weight or usage",
				    q->name);
		}
		if (kai_sched_types_validate(q, err) != 0)
			return kai_err_prefix(err, "queue \"%s\"", q->name);
	}
	return 0;
}

/*
 * parent[q] != 0 when some queue has q as its parent: marked once, so
 * that a million jobs are not each checked against every queue.
 */
uint8_t *
kai_sched_mark_parents(const struct kai_sched_snapshot *s)
{
	uint8_t *parent = kai_xcalloc(s->nqueues + 1, 1);
	size_t i;

	for (i = 0; i < s->nqueues; i++)
		if (s->queues[i].parent >= 0)
			parent[s->queues[i].parent] = 1;
	return parent;
}

_Static_assert(sizeof(struct kai_sched_snap_task) == 32,
    "a million pending jobs: keep the snapshot's task at 32 bytes");
_Static_assert(sizeof(struct kai_sched_snap_job) == 96,
    "a million pending jobs: keep the snapshot's job at 96 bytes");
_Static_assert(sizeof(struct kai_sched_task_out) == 16,
    "a million pending jobs: keep the result's task at 16 bytes");
_Static_assert(KAI_SCHED_GPU_UNIT < (1 << 24) &&
	KAI_SCHED_TASK_EVICTED < (1 << 7),
    "kai_sched_task_out's bit-fields hold a device's share and a state");

/* v fits a field bounded by max; else err names the field. */
static int
check_bound(const char *field, uint64_t v, uint64_t max, struct kai_err *err)
{
	if (v <= max)
		return 0;
	return kai_err_set(err, KAI_EINVAL,
	    "%s %" PRIu64 " is above the scheduler's limit of %" PRIu64,
	    field, v, max);
}

int
kai_sched_task_request(struct kai_sched_snap_task *t, uint64_t gpus,
    uint64_t gpu_fraction, uint64_t gpu_memory_mib, uint64_t cpu_millis,
    uint64_t memory_mib, struct kai_err *err)
{
	const uint64_t max = KAI_SCHED_MAX_TASK_REQ;
	int rc;

	if ((rc = check_bound("gpus", gpus, KAI_SCHED_MAX_TASK_GPUS, err)) ||
	    (rc = check_bound("gpu_fraction", gpu_fraction, max, err)) ||
	    (rc = check_bound("gpu_memory_mib", gpu_memory_mib, max, err)) ||
	    (rc = check_bound("cpu_millis", cpu_millis, max, err)) ||
	    (rc = check_bound("memory_mib", memory_mib, max, err)))
		return rc;
	t->gpus = (uint8_t)gpus;
	t->gpu_fraction = (int32_t)gpu_fraction;
	t->gpu_memory_mib = (int32_t)gpu_memory_mib;
	t->cpu_millis = (int32_t)cpu_millis;
	t->memory_mib = (int32_t)memory_mib;
	return 0;
}

static int
check_request(const struct kai_sched_snap_task *t, struct kai_err *err)
{
	int kinds =
	    (t->gpus > 0) + (t->gpu_fraction != 0) + (t->gpu_memory_mib != 0);

	if (kinds > 1)
		return kai_err_set(err, KAI_EINVAL,
		    "asks for whole GPUs and "
		    "part of a GPU at once");
	if (t->gpu_fraction < 0 || t->gpu_fraction >= GPU_UNIT)
		return kai_err_set(err, KAI_EINVAL,
		    "gpu fraction must be "
		    "between 0 and 1 (exclusive)");
	if (t->gpu_memory_mib < 0 || t->cpu_millis < 0 || t->memory_mib < 0)
		return kai_err_set(err, KAI_EINVAL, "negative request");
	if (t->gpu_devices > 1 && t->gpu_fraction == 0 &&
	    t->gpu_memory_mib == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "gpu_devices %u without a fraction or GPU memory",
		    (unsigned)t->gpu_devices);
	if (t->gpu_devices > KAI_SCHED_MAX_NODE_GPUS)
		return kai_err_set(err, KAI_EINVAL,
		    "gpu_devices %u: a node has at most %d GPUs",
		    (unsigned)t->gpu_devices, KAI_SCHED_MAX_NODE_GPUS);
	return 0;
}

static int
check_task(const struct kai_sched_snapshot *s,
    const struct kai_sched_snap_task *t, struct kai_err *err)
{
	int rc;

	if ((rc = check_request(t, err)) != 0)
		return rc;
	switch (t->state) {
	case KAI_SCHED_TASK_PENDING:
		if (t->node != -1)
			return kai_err_set(err, KAI_EINVAL,
			    "a pending task has no node");
		return 0;
	case KAI_SCHED_TASK_RUNNING:
	case KAI_SCHED_TASK_RELEASING:
		if (t->node < 0 || (size_t)t->node >= s->nnodes)
			return kai_err_set(err, KAI_EINVAL,
			    "a running or releasing task needs a node");
		return 0;
	case KAI_SCHED_TASK_FAILED:
		if (t->node < -1 || t->node >= (int64_t)s->nnodes)
			return kai_err_set(err, KAI_EINVAL, "no such node");
		return 0;
	case KAI_SCHED_TASK_PIPELINED:
	case KAI_SCHED_TASK_EVICTED:
		break;
	}
	return kai_err_set(err, KAI_EINVAL, "invalid input state");
}

static int
check_topology(const struct kai_sched_snapshot *s,
    const struct kai_sched_snap_job *j, struct kai_err *err)
{
	const struct kai_sched_topology *tp;

	if (j->topology < 0) {
		if (j->required_level >= 0 || j->preferred_level >= 0)
			return kai_err_set(err, KAI_EINVAL,
			    "topology level without a topology");
		return 0;
	}
	if ((size_t)j->topology >= s->ntopologies)
		return kai_err_set(err, KAI_EINVAL, "no such topology");
	tp = &s->topologies[j->topology];
	if (j->required_level >= (int32_t)tp->nlevels ||
	    j->preferred_level >= (int32_t)tp->nlevels ||
	    j->required_level < -1 || j->preferred_level < -1)
		return kai_err_set(err, KAI_EINVAL,
		    "no such level in "
		    "topology \"%s\"",
		    tp->name);
	if (j->required_level >= 0 && j->preferred_level >= 0 &&
	    j->preferred_level < j->required_level)
		return kai_err_set(err, KAI_EINVAL,
		    "the preferred level is "
		    "wider than the required one");
	return 0;
}

static int
check_job(const struct kai_sched_snapshot *s, const uint8_t *parent,
    const struct kai_sched_snap_job *j, struct kai_err *err)
{
	size_t t;
	int rc;

	if (j->queue >= s->nqueues)
		return kai_err_set(err, KAI_EINVAL, "no such queue");
	if (parent[j->queue])
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\" is not a "
		    "leaf queue",
		    s->queues[j->queue].name);
	if (j->user < -1 || j->user >= (int64_t)s->nusers)
		return kai_err_set(err, KAI_EINVAL, "no such user");
	if (j->account < -1 || j->account >= (int64_t)s->naccounts)
		return kai_err_set(err, KAI_EINVAL, "no such account");
	if (j->account >= 0 && s->accounts[j->account].weight <= 0)
		return kai_err_set(err, KAI_EINVAL,
		    "account \"%s\" has a weight of %" PRId64
		    ": it must be above 0",
		    s->accounts[j->account].name,
		    s->accounts[j->account].weight);
	if (j->first_task > s->ntasks || j->ntasks > s->ntasks - j->first_task)
		return kai_err_set(err, KAI_EINVAL, "tasks out of range");
	if (j->min_tasks > j->ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "min_tasks (%u) is more "
		    "than its %u tasks",
		    j->min_tasks, j->ntasks);
	if (j->tasks_per_node > 0 && j->ntasks % j->tasks_per_node != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "its %u tasks are not a multiple of tasks_per_node (%u)",
		    j->ntasks, j->tasks_per_node);
	if (j->tasks_per_node > 0 && j->min_tasks != 0 &&
	    j->min_tasks != j->ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "a job with tasks_per_node runs every task or none "
		    "(min_tasks %u of %u)",
		    j->min_tasks, j->ntasks);
	if (j->tasks_per_node > 0 && j->topology >= 0)
		return kai_err_set(err, KAI_EINVAL,
		    "tasks_per_node and a topology cannot be combined");
	if (j->pool < -1 || j->pool >= (int64_t)s->npools)
		return kai_err_set(err, KAI_EINVAL, "no such pool");
	if (j->gpu_type > s->ngpu_types)
		return kai_err_set(err, KAI_EINVAL, "no such GPU type");
	if (j->gpu_limit > s->ngpu_limits)
		return kai_err_set(err, KAI_EINVAL, "no such GPU limit");
	if (j->nodereq > s->nnodereqs)
		return kai_err_set(err, KAI_EINVAL, "no such node requirement");
	if ((rc = check_topology(s, j, err)) != 0)
		return rc;
	for (t = 0; t < j->ntasks; t++)
		if (check_task(s, &s->tasks[j->first_task + t], err) != 0)
			return kai_err_prefix(err, "task %zu", t);
	return 0;
}

/* Node indices ascending and in range. */
static int
check_nodeset(const struct kai_sched_snapshot *s, const uint32_t *v, size_t n,
    const char *what, struct kai_err *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= s->nnodes || (i > 0 && v[i] <= v[i - 1]))
			return kai_err_set(err, KAI_EINVAL,
			    "its %s nodes are not ascending node indices",
			    what);
	return 0;
}

static int
check_nodereqs(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	size_t i;

	for (i = 0; i < s->nnodereqs; i++) {
		const struct kai_sched_nodereq *R = &s->nodereqs[i];
		int rc;

		if (R->nalts > 64)
			rc = kai_err_set(err, KAI_EINVAL, "more than 64 "
			    "alternatives");
		else if ((rc = check_nodeset(s, R->only, R->nonly, "only",
			      err)) == 0)
			rc = check_nodeset(s, R->never, R->nnever, "never",
			    err);
		if (rc != 0)
			return kai_err_prefix(err, "node requirement %zu", i);
	}
	return 0;
}

/*
 * The snapshot as a whole: its counts, nodes, queues, node requirements
 * and topologies, everything kai_sched_validate() checks before the
 * jobs.
 */
int
kai_sched_validate_head(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	size_t i, l;
	int rc;

	/* Indices are 32-bit (first_task, and the session's), NONE32 none;
	 * a job's is 30 bits in the order's keys (order.c). */
	if (s->njobs > KAI_SCHED_MAX_JOBS)
		return kai_err_set(err, KAI_EINVAL,
		    "%zu jobs: more than the %u supported", s->njobs,
		    KAI_SCHED_MAX_JOBS);
	if (s->npools > KAI_SCHED_MAX_POOLS ||
	    s->ngpu_types > KAI_SCHED_MAX_GPU_TYPES)
		return kai_err_set(err, KAI_EINVAL,
		    "%zu pools and %zu job GPU types: at most %d and %d",
		    s->npools, s->ngpu_types, KAI_SCHED_MAX_POOLS,
		    KAI_SCHED_MAX_GPU_TYPES);
	for (i = 0; i < s->ngpu_types; i++)
		if (s->gpu_types[i] == NULL || s->gpu_types[i][0] == '\0')
			return kai_err_set(err, KAI_EINVAL,
			    "job GPU type %zu has no name", i);
	if (s->ntasks >= UINT32_MAX || s->nnodes >= UINT32_MAX ||
	    s->nqueues >= UINT32_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "more than %" PRIu32 " tasks, nodes or queues",
		    UINT32_MAX - 1);
	if ((rc = check_nodes(s, err)) != 0 ||
	    (rc = check_queues(s, err)) != 0 ||
	    (rc = check_nodereqs(s, err)) != 0)
		return rc;
	for (i = 0; i < s->ntopologies; i++) {
		const struct kai_sched_topology *tp = &s->topologies[i];

		if (tp->name == NULL || tp->nlevels == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "topology %zu has no name or no levels", i);
		if (tp->nlevels > KAI_SCHED_MAX_LEVELS)
			return kai_err_set(err, KAI_EINVAL,
			    "topology \"%s\": %zu levels, more than the %d "
			    "supported", tp->name, tp->nlevels,
			    KAI_SCHED_MAX_LEVELS);
		for (l = 0; l < tp->nlevels; l++)
			if (tp->levels[l] == NULL)
				return kai_err_set(err, KAI_EINVAL,
				    "topology \"%s\": level %zu is empty",
				    tp->name, l);
	}
	return 0;
}

/* Job i, given the queues that are parents (kai_sched_mark_parents()). */
int
kai_sched_validate_job(const struct kai_sched_snapshot *s,
    const uint8_t *parent, size_t i, struct kai_err *err)
{
	const struct kai_sched_snap_job *j = &s->jobs[i];

	if (j->name == NULL)
		return kai_err_set(err, KAI_EINVAL, "job %zu has no name", i);
	if (check_job(s, parent, j, err) != 0)
		return kai_err_prefix(err, "job \"%s\"", j->name);
	return 0;
}

/*
 * The whole snapshot, the first fault in this order: the head, each job
 * in turn, the subgroup trees.  The session (sess_jobs.c) checks the
 * jobs in its own pass over them and calls this only once it met a
 * fault, so that the fault reported is always this one.
 */
int
kai_sched_validate(const struct kai_sched_snapshot *s, struct kai_err *err)
{
	uint8_t *parent;
	size_t i;
	int rc;

	if ((rc = kai_sched_validate_head(s, err)) != 0)
		return rc;
	parent = kai_sched_mark_parents(s);
	for (i = 0; i < s->njobs && rc == 0; i++)
		rc = kai_sched_validate_job(s, parent, i, err);
	free(parent);
	if (rc == 0)
		rc = kai_sched_sg_check(s, err);
	return rc;
}
