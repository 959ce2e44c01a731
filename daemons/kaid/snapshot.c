/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * snapshot.c: the scheduler core's view of the cluster, built once per
 * tick from kaid's caches (struct snap in kaid.h).
 *
 * What goes in:
 *  - every node with its allocatable capacity, labels, GPU memory and
 *    whether new work may go there (Ready and not cordoned);
 *  - the queue tree from the queue cache, parents before children;
 *  - kaid's active jobs with their priority, preemptibility, gang
 *    minimum, GPU share and topology: PENDING ones with their tasks to
 *    place, and CONFIGURING/RUNNING ones with one running task per
 *    allocation row, on the node and devices the row names, plus, for
 *    an elastic job, its unstarted tasks as pending ones.  Running tasks
 *    hold capacity and count as their queue's allocation, whether their
 *    pods exist yet or not, so a placement whose pod is not bound is
 *    never given away;
 *  - kaid's own pods that no active allocation accounts for (a preempted
 *    run, a cancelled or finished job's pod still terminating) as
 *    RELEASING tasks in the queue their label names, with the devices
 *    their labels name, so that the core pipelines onto them;
 *  - every other pod that holds capacity (other schedulers' pods, and
 *    kaid's pods whose queue is gone) as capacity held on its node.
 *
 * The core refuses a snapshot in which running tasks do not fit their
 * nodes, and kaid must never stop scheduling because a node shrank or
 * a pod asked for more than the node reports; so a node's capacity is
 * raised to what kaid's own tasks hold on it, and what others hold is
 * cut to what is left.  Nothing can be placed on such a node until it
 * has room again, which is the truth.
 *
 * A pending job whose queue is gone or has become a parent cannot be
 * given to the core (it takes only jobs in leaves); it is set aside with
 * a reason.  kctl refuses both changes while a queue has active jobs, so
 * this only happens when the database was edited by hand.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "deps.h"
#include "kaid.h"
#include "policy.h"
#include "queues.h"
#include "snapshot.h"
#include "sys/log.h"

/* What holds capacity on one node: kaid's tasks (run), the rest (held). */
struct nodeuse {
	int64_t run_gpus, run_cpu, run_mem;
	int64_t held_gpus, held_cpu, held_mem;
};

static long
map_ix(const struct kai_map *m, const char *name)
{
	uintptr_t v = name != NULL ? (uintptr_t)kai_map_get(m, name) : 0;

	return v == 0 ? -1 : (long)(v - 1);
}

static int64_t
clamp_i64(uint64_t v)
{
	return v > (uint64_t)1 << 50 ? (int64_t)1 << 50 : (int64_t)v;
}

static size_t
count_labels(const struct kaid *k)
{
	const char *key;
	void *v;
	size_t it = 0, n = 0;

	while (kai_map_next(&k->nodes, &it, &key, &v))
		n += ((const struct kai_node *)v)->nlabels;
	return n;
}

/* "key=value" into the next label. */
static void
add_label(struct snap *sn, const char *kv)
{
	char *copy = kai_xstrdup(kv), *eq = strchr(copy, '=');
	struct kai_sched_label *l = &sn->labels[sn->nlabels];

	sn->label_text[sn->nlabels++] = copy;
	if (eq != NULL)
		*eq = '\0';
	l->key = copy;
	l->value = eq != NULL ? eq + 1 : "";
}

static void
snap_nodes(const struct kaid *k, struct snap *sn)
{
	const char *key;
	void *v;
	size_t it = 0, n = 0, l, total = count_labels(k);

	sn->nodes = kai_xcalloc(k->nodes.len + 1, sizeof(*sn->nodes));
	sn->labels = kai_xcalloc(total + 1, sizeof(*sn->labels));
	sn->label_text = kai_xcalloc(total + 1, sizeof(*sn->label_text));
	pools_snap_taints_alloc(k, sn);
	while (kai_map_next(&k->nodes, &it, &key, &v)) {
		const struct kai_node *nd = v;
		struct kai_sched_snap_node *s = &sn->nodes[n];

		s->name = nd->name;
		s->gpus = nd->gpus < KAI_SCHED_MAX_NODE_GPUS
		    ? nd->gpus : KAI_SCHED_MAX_NODE_GPUS;
		s->gpu_memory_mib = clamp_i64(nd->gpu_mem_mb);
		s->cpu_millis = nd->cpu_milli > 0 ? nd->cpu_milli : 0;
		s->memory_mib = clamp_i64(nd->mem_mb);
		s->unschedulable = !nd->ready || nd->unschedulable;
		s->labels = &sn->labels[sn->nlabels];
		for (l = 0; l < nd->nlabels; l++)
			add_label(sn, nd->labels[l]);
		s->nlabels = nd->nlabels;
		for (l = 0; l < s->nlabels; l++)
			if (strcmp(s->labels[l].key,
				k->conf->sched_gpu_type_label) == 0)
				s->gpu_type = s->labels[l].value;
		pools_snap_taints(sn, nd, s);
		kai_map_put(&sn->node_ix, nd->name, (void *)(uintptr_t)(n + 1));
		n++;
	}
	sn->s.nodes = sn->nodes;
	sn->s.nnodes = n;
}

static void
add_queue(struct snap *sn, const struct kai_queue *q)
{
	struct kai_sched_snap_queue *s = &sn->queues[sn->s.nqueues];
	int r;

	kai_sched_queue_init(s);
	s->name = q->name;
	s->parent = (int32_t)map_ix(&sn->queue_ix, q->parent);
	s->priority = q->priority;
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		s->res[r].quota = q->res[r].quota;
		s->res[r].limit = q->res[r].limit;
		s->res[r].weight =
		    (double)q->res[r].weight / (double)KAI_QUEUE_WEIGHT_UNIT;
	}
	s->preempt_min_runtime_s = q->preempt_min_runtime_s;
	s->reclaim_min_runtime_s = q->reclaim_min_runtime_s;
	s->types = &sn->qtypes[sn->nqtypes];
	s->ntypes = q->ntypes;
	for (r = 0; r < (int)q->ntypes; r++) {
		struct kai_sched_qtype *x = &sn->qtypes[sn->nqtypes++];

		x->type = q->types[r].type;
		x->quota = q->types[r].quota;
		x->limit = q->types[r].limit;
		x->weight = q->types[r].weight < 0 ? -1
		    : (double)q->types[r].weight /
			(double)KAI_QUEUE_WEIGHT_UNIT;
	}
	sn->s.nqueues++;
	kai_map_put(&sn->queue_ix, q->name,
	    (void *)(uintptr_t)sn->s.nqueues);
}

/*
 * Creation order, except that a parent always comes before its children
 * (the core's rule): kctl may give an old queue a younger parent.
 */
static void
snap_queues(const struct kaid *k, struct snap *sn)
{
	size_t n = queues_count(k), i, depth;
	bool *done = kai_xcalloc(n + 1, sizeof(*done));
	long *stack = kai_xcalloc(n + 1, sizeof(*stack));
	long q;

	sn->queues = kai_xcalloc(n + 1, sizeof(*sn->queues));
	for (i = 0, depth = 0; i < n; i++)
		depth += queues_at(k, (long)i)->ntypes;
	sn->qtypes = kai_xcalloc(depth + 1, sizeof(*sn->qtypes));
	for (i = 0; i < n; i++) {
		for (depth = 0, q = (long)i; q >= 0 && !done[q] && depth < n;
		     q = queues_find(k, queues_at(k, q)->parent))
			stack[depth++] = q;
		while (depth > 0) {
			q = stack[--depth];
			done[q] = true;
			add_queue(sn, queues_at(k, q));
		}
	}
	sn->s.queues = sn->queues;
	free(done);
	free(stack);
}

static int32_t
user_index(struct snap *sn, const char *name)
{
	long u = map_ix(&sn->user_ix, name);

	if (u >= 0)
		return (int32_t)u;
	sn->users[sn->s.nusers].name = name;
	sn->users[sn->s.nusers].usage = 0; /* no decayed usage yet */
	kai_map_put(&sn->user_ix, name, (void *)(uintptr_t)++sn->s.nusers);
	return (int32_t)(sn->s.nusers - 1);
}

/*
 * The snapshot's index + 1 of the GPU type j asks for (0: any), each
 * type listed once; -1 when no more fit (a job's type is 16-bit).
 */
static int32_t
jtype_index(struct snap *sn, const struct kai_job *j)
{
	long t;

	if (j->gpu_type == NULL || j->gpu_type[0] == '\0')
		return 0;
	if ((t = map_ix(&sn->jtype_ix, j->gpu_type)) >= 0)
		return (int32_t)t + 1;
	if (sn->s.ngpu_types == KAI_SCHED_MAX_GPU_TYPES)
		return -1;
	sn->jtypes[sn->s.ngpu_types] = j->gpu_type;
	kai_map_put(&sn->jtype_ix, j->gpu_type,
	    (void *)(uintptr_t)++sn->s.ngpu_types);
	return (int32_t)sn->s.ngpu_types;
}

/* Why a pending job cannot go to the core, or NULL when it can. */
static char *
queue_problem(const struct kaid *k, const struct kai_job *j)
{
	long qi = queues_find(k, j->queue);

	if (qi < 0)
		return kai_xasprintf("queue \"%s\" does not exist", j->queue);
	if (queues_is_parent(k, qi))
		return kai_xasprintf("queue \"%s\" is not a leaf queue",
		    j->queue);
	return NULL;
}

/*
 * One past the last task of a started job the snapshot holds: its
 * allocations, then, for an elastic job (min_tasks below ntasks), the
 * tasks it has not started yet, which kaid still starts as room frees.
 * Allocations are kept in task order, 0 .. nallocs-1, so the unstarted
 * ones are nallocs .. ntasks-1.
 */
size_t
snap_unstarted_end(const struct kai_job *j)
{
	if (!state_job_elastic(j) || j->nallocs >= j->ntasks)
		return j->nallocs;
	return j->ntasks;
}

/*
 * The request of j's task `task` (as its allocation a holds it, when a is
 * not NULL) into t: non-zero, with err naming the field, when it is
 * above what the core takes (kai_sched_task_request()).  Submission keeps
 * new jobs within those bounds (the asserts below); a job stored before
 * them is set aside with the reason (request_problem()).
 */
_Static_assert(KAI_JOB_GPUS_MAX <= KAI_SCHED_MAX_TASK_GPUS,
    "a job's GPUs per task fit the core's task");
_Static_assert(KAI_JOB_GPU_DEVICES_MAX <= KAI_SCHED_MAX_NODE_GPUS,
    "a share's devices fit the core's task");
_Static_assert((int64_t)KAI_JOB_CPUS_MAX * 1000 <= KAI_SCHED_MAX_TASK_REQ &&
	KAI_JOB_MEM_MAX <= KAI_SCHED_MAX_TASK_REQ &&
	KAI_JOB_GPU_MEM_MAX <= KAI_SCHED_MAX_TASK_REQ,
    "a job's CPUs, memory and GPU memory per task fit the core's task");

static int
task_request(const struct kai_job *j, const struct kai_alloc *a,
    uint32_t task, struct kai_sched_snap_task *t, struct kai_err *err)
{
	int r = kai_sched_task_request(t,
	    a != NULL ? a->gpus : kai_job_task_gpus(j->gpus_per_task,
	    j->gpus_per_node, j->ntasks_per_node, task),
	    j->gpu_fraction, j->gpu_memory_mb,
	    (uint64_t)(a != NULL ? a->cpus : j->cpus_per_task) * 1000,
	    a != NULL ? a->mem_mb : j->mem_mb, err);

	if (r != 0 || t->gpus > 0 ||
	    (t->gpu_fraction == 0 && t->gpu_memory_mib == 0))
		return r;
	/* A share's devices (sql/023 keeps them within the bound). */
	if (j->gpu_devices > KAI_JOB_GPU_DEVICES_MAX)
		return kai_err_set(err, KAI_EINVAL, "gpu_devices %" PRIu32
		    " is above the scheduler's limit of %d", j->gpu_devices,
		    KAI_JOB_GPU_DEVICES_MAX);
	t->gpu_devices = (uint8_t)j->gpu_devices;
	return 0;
}

/*
 * Why j cannot be given to the core, its priority or a task's request
 * being above what the core holds, or NULL (caller frees).
 */
static char *
request_problem(const struct kai_job *j)
{
	struct kai_sched_snap_task t;
	struct kai_err err;
	size_t i, n;

	/* QoS priorities are at most 1,000,000 (conf_table.c), classes
	 * less: only a row edited by hand gets here. */
	if (j->priority > INT32_MAX)
		return kai_xasprintf("priority %" PRIu32 " is above the "
		    "scheduler's limit of %d", j->priority, INT32_MAX);
	if (j->state == KAI_JOB_PENDING) {
		n = j->ntasks > 0 ? j->ntasks : 1;
		for (i = 0; i < n; i++)
			if (task_request(j, NULL, (uint32_t)i, &t, &err) != 0)
				return kai_xstrdup(err.msg);
		return NULL;
	}
	for (i = 0; i < j->nallocs; i++)
		if (task_request(j, &j->allocs[i], j->allocs[i].task, &t,
			&err) != 0)
			return kai_xstrdup(err.msg);
	for (i = j->nallocs; i < snap_unstarted_end(j); i++)
		if (task_request(j, NULL, (uint32_t)i, &t, &err) != 0)
			return kai_xstrdup(err.msg);
	return NULL;
}

static void
add_task(struct snap *sn, const struct kai_job *j, const struct kai_alloc *a,
    uint32_t task, long node, struct nodeuse *use)
{
	struct kai_sched_snap_task *t = &sn->tasks[sn->s.ntasks++];
	struct kai_err err;

	kai_sched_task_init(t);
	/* request_problem() found none: this cannot fail. */
	if (task_request(j, a, task, t, &err) != 0)
		kai_log_err("job %" PRIu64 ": %s", j->id, err.msg);
	if (a == NULL)
		return;
	t->state = KAI_SCHED_TASK_RUNNING;
	t->node = (int32_t)node;
	/* The devices the core chose; 0 (rows from before) lets it lay out,
	 * as for a share whose row names other than its devices' count. */
	t->gpu_mask = a->gpu_mask;
	if (t->gpus == 0 && __builtin_popcountll(t->gpu_mask) !=
	    (int)(t->gpu_devices > 1 ? t->gpu_devices : 1))
		t->gpu_mask = 0;
	use[node].run_gpus += t->gpus;
	use[node].run_cpu += t->cpu_millis;
	use[node].run_mem += t->memory_mib;
}

/*
 * kaid.yaml names no topologies: a job's levels are node label keys, and
 * it gets a topology of its own, the required level first and the
 * preferred one nested inside it (a "host" preferred inside a "rack").
 */
static void
snap_topology(struct snap *sn, const struct kai_job *j,
    struct kai_sched_snap_job *s)
{
	struct kai_sched_topology *tp = &sn->topos[sn->s.ntopologies];
	const char **lv = sn->topo_levels[sn->s.ntopologies];
	bool req = j->topology != NULL && j->topology[0] != '\0';
	bool pref = j->topology_preferred != NULL &&
	    j->topology_preferred[0] != '\0';

	if (!req && !pref)
		return;
	tp->nlevels = 0;
	if (req)
		lv[tp->nlevels++] = j->topology;
	if (pref && !(req && strcmp(j->topology, j->topology_preferred) == 0))
		lv[tp->nlevels++] = j->topology_preferred;
	tp->name = req ? j->topology : j->topology_preferred;
	tp->levels = (const char *const *)lv;
	s->topology = (int32_t)sn->s.ntopologies++;
	s->required_level = req ? 0 : -1;
	s->preferred_level = pref ? (int8_t)(tp->nlevels - 1) : -1;
}

/* A running job whose queue cannot hold it still holds its nodes. */
static void
hold_allocs(struct snap *sn, const struct kai_job *j, struct nodeuse *use)
{
	size_t t;
	long ni;

	for (t = 0; t < j->nallocs; t++) {
		if ((ni = map_ix(&sn->node_ix, j->allocs[t].node)) < 0)
			continue;
		use[ni].held_gpus += j->allocs[t].gpus;
		use[ni].held_cpu += (int64_t)j->allocs[t].cpus * 1000;
		use[ni].held_mem += clamp_i64(j->allocs[t].mem_mb);
	}
}

static void
add_job(const struct kaid *k, struct snap *sn, struct kai_job *j,
    struct nodeuse *use)
{
	struct kai_sched_snap_job *s = &sn->jobs[sn->s.njobs];
	size_t first = sn->s.ntasks, t, ntree;
	struct snap_tree_task *tv = NULL;
	long ni;

	/* A gang with a subgroup tree: its tasks leaf by leaf, each its
	 * member's (snap_tree.c); one whose node is gone goes flat. */
	ntree = snap_tree_order(k, j, &tv);
	for (t = 0; t < ntree; t++)
		if (tv[t].alloc != NULL &&
		    map_ix(&sn->node_ix, tv[t].alloc->node) < 0)
			ntree = 0;
	for (t = 0; t < ntree; t++) {
		const struct kai_alloc *a = tv[t].alloc;

		sn->task_pod[sn->s.ntasks] = kai_xstrdup(tv[t].pod);
		add_task(sn, j, a, a != NULL ? a->task : (uint32_t)t,
		    a != NULL ? map_ix(&sn->node_ix, a->node) : -1, use);
	}
	if (ntree > 0) {
		/* tasks added above */
	} else if (j->state == KAI_JOB_PENDING) {
		for (t = 0; t < (j->ntasks > 0 ? j->ntasks : 1); t++)
			add_task(sn, j, NULL, (uint32_t)t, -1, use);
	} else {
		for (t = 0; t < j->nallocs; t++)
			if ((ni = map_ix(&sn->node_ix, j->allocs[t].node)) >= 0)
				add_task(sn, j, &j->allocs[t],
				    j->allocs[t].task, ni, use);
		if (sn->s.ntasks == first)
			return; /* every node it ran on is gone */
		for (t = j->nallocs; t < snap_unstarted_end(j); t++)
			add_task(sn, j, NULL, (uint32_t)t, -1, use);
	}
	snap_native_sizes(k, sn, j, first);	/* each member as it asks */
	if (sn->s.ntasks == first) {
		free(tv);
		return;
	}
	kai_sched_job_init(s);
	(void)snprintf(sn->jnames[sn->s.njobs], sizeof(sn->jnames[0]),
	    "%" PRIu64, j->id);
	s->name = sn->jnames[sn->s.njobs];
	s->queue = (uint32_t)map_ix(&sn->queue_ix, j->queue);
	s->pool = (int16_t)pools_snap_index(k, j->queue); /* validate.c */
	s->gpu_type = (uint16_t)jtype_index(sn, j); /* > 0: snap_jobs() */
	s->user = user_index(sn, j->user != NULL ? j->user : "");
	s->account = (int32_t)map_ix(&sn->acct_ix, j->account);
	s->priority = (int32_t)j->priority; /* request_problem() */
	s->preemptible = j->preemptible;
	/*
	 * The gang minimum, pending or running: kaid starts a job once
	 * min_tasks of its tasks are placed (tick.c), and a running elastic
	 * job's unstarted tasks are pending tasks here, placed as room
	 * frees.  0 (every task) for a plain gang.
	 */
	s->min_tasks = state_job_elastic(j) ? j->min_tasks : 0;
	if (ntree > 0)
		snap_tree_rows(sn, j, s, tv, ntree);
	else
		snap_topology(sn, j, s);
	free(tv);
	s->held = j->hold;
	s->created = j->submit_time;
	if (j->time_limit_s != KAI_TIME_UNLIMITED) /* for start estimates */
		s->time_limit_s = j->time_limit_s;
	if (j->start_time > 0)
		s->started = j->start_time;
	/* The core refuses a snapshot of UINT32_MAX tasks or more. */
	s->first_task = (uint32_t)first;
	s->ntasks = (uint32_t)(sn->s.ntasks - first);
	/* Node groups (-N, --ntasks-per-node) when the snapshot can hold
	 * them: the core refuses the whole snapshot otherwise. */
	if (j->ntasks_per_node > 0 && s->min_tasks == 0 &&
	    s->topology < 0 && s->ntasks % j->ntasks_per_node == 0)
		s->tasks_per_node = j->ntasks_per_node;
	/* --mem=0 takes all of a node's memory, which leaves no room for
	 * another job's pod: the core keeps them off as for --exclusive. */
	s->exclusive = j->whole_node != 0;
	sn->kjobs[sn->s.njobs++] = j;
}

static void
snap_jobs(struct kaid *k, struct snap *sn, struct nodeuse *use)
{
	size_t i, njobs = state_njobs(k), nt = k->pods.len;
	size_t nj = njobs + k->pods.len + 1;
	const char *code;
	char *why;

	/* Room for a releasing job of one task per pod (snap_pods). */
	for (i = 0; i < njobs; i++) {
		const struct kai_job *j = state_job_at(k, i);

		nt += j->state == KAI_JOB_PENDING || j->sgtree != NULL
		    ? (j->ntasks > 0 ? j->ntasks : 1) : snap_unstarted_end(j);
	}
	sn->jobs = kai_xcalloc(nj, sizeof(*sn->jobs));
	sn->kjobs = kai_xcalloc(nj, sizeof(*sn->kjobs));
	sn->jnames = kai_xcalloc(nj, sizeof(*sn->jnames));
	sn->topos = kai_xcalloc(njobs + 1, sizeof(*sn->topos));
	sn->topo_levels = kai_xcalloc(njobs + 1, sizeof(*sn->topo_levels));
	sn->users = kai_xcalloc(njobs + 1, sizeof(*sn->users));
	sn->tasks = kai_xcalloc(nt + 1, sizeof(*sn->tasks));
	sn->task_pod = kai_xcalloc(nt + 1, sizeof(*sn->task_pod));
	sn->jtypes = kai_xcalloc(njobs + 1, sizeof(*sn->jtypes));
	sn->lost = kai_xcalloc(state_njobs(k) + 1, sizeof(*sn->lost));
	sn->lost_why = kai_xcalloc(state_njobs(k) + 1, sizeof(*sn->lost_why));
	sn->lost_code = kai_xcalloc(state_njobs(k) + 1, sizeof(*sn->lost_code));
	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);
		bool active = j->state == KAI_JOB_CONFIGURING ||
		    j->state == KAI_JOB_RUNNING;

		if (j->state != KAI_JOB_PENDING && !active)
			continue;
		if (j->state == KAI_JOB_PENDING && j->gate != NULL) {
			sn->lost[sn->nlost] = j; /* deps.c: not yet */
			sn->lost_code[sn->nlost] = j->gate;
			sn->lost_why[sn->nlost++] = deps_gate_text(j);
			continue;
		}
		if (j->state == KAI_JOB_PENDING && j->not_before > sn->s.now) {
			/* Requeued a moment ago (evict.c): Slurm's word. */
			sn->lost[sn->nlost] = j;
			sn->lost_code[sn->nlost] = "BeginTime";
			sn->lost_why[sn->nlost++] = kai_xstrdup("requeued: held "
			    "back a moment before it restarts");
			continue;
		}
		if (j->state == KAI_JOB_PENDING &&
		    (why = native_gang_wait(k, j)) != NULL) {
			sn->lost[sn->nlost] = j; /* native.c: not yet */
			sn->lost_code[sn->nlost] = "PodGroup";
			sn->lost_why[sn->nlost++] = why;
			continue;
		}
		/* Slurm's word for a job its partition cannot take */
		code = "PartitionConfig";
		if ((why = queue_problem(k, j)) == NULL &&
		    (why = request_problem(j)) != NULL)
			code = "BadConstraints"; /* ... no node can meet */
		if (why == NULL && jtype_index(sn, j) < 0) {
			why = kai_xasprintf("GPU type \"%s\": jobs ask for "
			    "more than %d types", j->gpu_type,
			    KAI_SCHED_MAX_GPU_TYPES);
			code = "BadConstraints";
		}
		if (why == NULL) {
			add_job(k, sn, j, use);
		} else if (active) {
			hold_allocs(sn, j, use);
			free(why);
		} else {
			sn->lost[sn->nlost] = j;
			sn->lost_code[sn->nlost] = code;
			sn->lost_why[sn->nlost++] = why;
		}
	}
	sn->s.jobs = sn->jobs;
	sn->s.gpu_types = sn->jtypes;
	sn->s.tasks = sn->tasks;
	sn->s.users = sn->users;
	sn->s.topologies = sn->topos;
}

static bool
pod_holds_capacity(const struct pod_rec *r)
{
	return r->node[0] != '\0' && r->phase != KAI_POD_SUCCEEDED &&
	    r->phase != KAI_POD_FAILED;
}

/* The devices a releasing pod's label names, if they fit its node. */
static uint64_t
releasing_mask(const struct snap *sn, const struct pod_rec *r, long ni)
{
	uint32_t ngpu = sn->nodes[ni].gpus;
	uint64_t all = ngpu >= 64 ? UINT64_MAX : (UINT64_C(1) << ngpu) - 1;
	/* A share may be on several devices: as many as its mask names. */
	int want = r->gpu_share > 0 ? __builtin_popcountll(r->gpu_mask) :
	    (int)r->gpus;

	if (r->gpu_mask == 0 || (r->gpu_mask & ~all) != 0 ||
	    __builtin_popcountll(r->gpu_mask) != want)
		return 0; /* none or stale: the core lays it out */
	return r->gpu_mask;
}

/*
 * A pod of kaid's that no active allocation accounts for -- a preempted
 * run, a cancelled or finished job's pod still terminating -- is a
 * RELEASING task of a job of its own (kjobs NULL, not preemptible), in
 * the queue its label names: the core then pipelines onto what it holds
 * instead of evicting more, and a device a fraction still uses stays
 * shared.  False when its queue is no leaf, or it asks for more than a
 * task of the core holds: it is then held capacity.
 */
static bool
add_releasing(struct snap *sn, const char *name, const struct pod_rec *r,
    long ni, struct nodeuse *use)
{
	long q = map_ix(&sn->queue_ix, r->queue);
	struct kai_sched_snap_job *s;
	struct kai_sched_snap_task *t;
	struct kai_err err;
	size_t c;

	if (q < 0)
		return false;
	for (c = 0; c < sn->s.nqueues; c++)
		if (sn->queues[c].parent == (int32_t)q)
			return false;
	t = &sn->tasks[sn->s.ntasks];
	kai_sched_task_init(t);
	/* A pod asking more than a task holds is held capacity instead. */
	if (kai_sched_task_request(t, r->gpu_share > 0 ? 0 : r->gpus,
		r->gpu_share, 0, r->cpu_milli > 0 ? (uint64_t)r->cpu_milli : 0,
		r->mem_mb, &err) != 0)
		return false;
	t->state = KAI_SCHED_TASK_RELEASING;
	t->node = (int32_t)ni;
	t->gpu_mask = releasing_mask(sn, r, ni);
	if (r->gpu_share > 0 && __builtin_popcountll(t->gpu_mask) > 1)
		t->gpu_devices = (uint8_t)__builtin_popcountll(t->gpu_mask);
	use[ni].run_gpus += t->gpus + (r->gpu_share > 0 &&
	    sn->nodes[ni].gpus == 0);
	use[ni].run_cpu += t->cpu_millis;
	use[ni].run_mem += t->memory_mib;
	s = &sn->jobs[sn->s.njobs];
	kai_sched_job_init(s);
	s->name = name;
	s->queue = (uint32_t)q;
	s->preemptible = false;
	s->first_task = (uint32_t)sn->s.ntasks++;
	s->ntasks = 1;
	sn->kjobs[sn->s.njobs++] = NULL;
	return true;
}

/* Pods that no task of the snapshot stands for hold what they ask. */
static void
snap_pods(const struct kaid *k, struct snap *sn, struct nodeuse *use)
{
	const struct kai_job *j;
	const char *key;
	void *v;
	size_t it = 0;
	long ni;

	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *r = v;

		if (!pod_holds_capacity(r) ||
		    (ni = map_ix(&sn->node_ix, r->node)) < 0)
			continue;
		if (r->managed && (j = state_job(k, r->job_id)) != NULL &&
		    (j->state == KAI_JOB_CONFIGURING ||
			j->state == KAI_JOB_RUNNING) &&
		    r->task < j->nallocs)
			continue;
		if (r->managed && add_releasing(sn, key, r, ni, use))
			continue;
		use[ni].held_gpus += r->gpus;
		use[ni].held_cpu += r->cpu_milli;
		use[ni].held_mem += clamp_i64(r->mem_mb);
	}
}

static int64_t
fit(int64_t held, int64_t room)
{
	return held < 0 ? 0 : held > room ? room : held;
}

/* Capacity at least what kaid's tasks hold; others' cut to the rest. */
static void
snap_clamp(struct snap *sn, const struct nodeuse *use)
{
	size_t i;

	for (i = 0; i < sn->s.nnodes; i++) {
		struct kai_sched_snap_node *n = &sn->nodes[i];
		const struct nodeuse *u = &use[i];

		if (u->run_gpus > n->gpus)
			n->gpus = u->run_gpus < KAI_SCHED_MAX_NODE_GPUS
			    ? (uint32_t)u->run_gpus : KAI_SCHED_MAX_NODE_GPUS;
		n->held_gpus = (uint32_t)fit(u->held_gpus,
		    n->gpus > u->run_gpus ? n->gpus - u->run_gpus : 0);
		if (u->run_cpu > n->cpu_millis)
			n->cpu_millis = u->run_cpu;
		n->held_cpu_millis = fit(u->held_cpu, n->cpu_millis - u->run_cpu);
		if (u->run_mem > n->memory_mib)
			n->memory_mib = u->run_mem;
		n->held_memory_mib = fit(u->held_mem, n->memory_mib - u->run_mem);
	}
}

/*
 * kaid.yaml's accounts and their fair-share weights (src/sched/
 * acctshare.c); a job charged to an account no longer listed has none.
 */
static void
snap_accounts(const struct kaid *k, struct snap *sn)
{
	size_t i, n = k->conf->naccounts;

	sn->accounts = kai_xcalloc(n + 1, sizeof(*sn->accounts));
	for (i = 0; i < n; i++) {
		sn->accounts[i].name = k->conf->accounts[i].name;
		sn->accounts[i].weight = k->conf->accounts[i].fairshare > 0
		    ? k->conf->accounts[i].fairshare : 1;
		kai_map_put(&sn->acct_ix, sn->accounts[i].name,
		    (void *)(uintptr_t)(i + 1));
	}
	sn->s.accounts = sn->accounts;
	sn->s.naccounts = n;
}

void
snap_build(struct kaid *k, struct snap *sn, int64_t now)
{
	struct nodeuse *use;

	memset(sn, 0, sizeof(*sn));
	kai_map_init(&sn->node_ix, NULL);
	kai_map_init(&sn->queue_ix, NULL);
	kai_map_init(&sn->user_ix, NULL);
	kai_map_init(&sn->jtype_ix, NULL);
	kai_map_init(&sn->acct_ix, NULL);
	kai_sched_config_init(&sn->s.config);
	/* All five phases, in KAI's order (kai_sched_config_init()). */
	sn->s.now = now;
	snap_nodes(k, sn);
	snap_queues(k, sn);
	snap_accounts(k, sn);
	pools_snap(k, sn);
	use = kai_xcalloc(sn->s.nnodes + 1, sizeof(*use));
	snap_jobs(k, sn, use);
	nodefeat_snap(k, sn);
	policy_snap(k, sn);
	snap_pods(k, sn, use);
	snap_clamp(sn, use);
	free(use);
}

void
snap_fini(struct snap *sn)
{
	size_t i;

	for (i = 0; i < sn->nlabels; i++)
		free(sn->label_text[i]);
	for (i = 0; i < sn->nlost; i++)
		free(sn->lost_why[i]);
	free(sn->label_text);
	free(sn->labels);
	free(sn->nodes);
	free(sn->queues);
	free(sn->qtypes);
	free(sn->users);
	free(sn->accounts);
	free(sn->jobs);
	free(sn->kjobs);
	free(sn->jnames);
	free(sn->topos);
	free(sn->topo_levels);
	for (i = 0; sn->task_pod != NULL && i < sn->s.ntasks; i++)
		free(sn->task_pod[i]);
	free(sn->task_pod);
	for (i = 0; i < sn->ntree_lv; i++)
		free(sn->tree_lv[i]);
	free(sn->tree_lv);
	free(sn->sgs);
	free(sn->trees);
	free(sn->tasks);
	free(sn->jtypes);
	free(sn->lost);
	free(sn->lost_why);
	free(sn->lost_code);
	free(sn->gpu_limits);
	free(sn->job_gen);
	kai_map_fini(&sn->node_ix);
	kai_map_fini(&sn->queue_ix);
	kai_map_fini(&sn->user_ix);
	kai_map_fini(&sn->jtype_ix);
	kai_map_fini(&sn->acct_ix);
	pools_snap_fini(sn);
	nodefeat_snap_fini(sn);
	memset(sn, 0, sizeof(*sn));
}
