/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_jobs.c: the jobs, tasks, users and usage of a scenario.
 *
 * A job's `state` is the default state of its tasks; a task may override
 * it (running, pending, releasing, failed).  Running and releasing tasks
 * must say where they are; a pending task must not.  Durations in the
 * file become timestamps before SCENARIO_NOW.  Users are made up from the
 * names jobs and usage entries give; a scenario without them has none.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "scenario.h"

static int
gpu_index(struct sload *ld, const struct ynode *l, uint64_t *mask)
{
	size_t i;
	int rc;

	if ((rc = sload_kind(ld, l, YT_SEQ, "gpu_index")) != 0)
		return rc;
	for (i = 0; i < l->n; i++) {
		int64_t d;

		if ((rc = sload_i64(ld, l->v[i], 0, KAI_SCHED_MAX_NODE_GPUS - 1,
			 &d)) != 0)
			return rc;
		if (*mask & (UINT64_C(1) << d))
			return sload_fail(ld, l->v[i], "GPU %d is listed twice",
			    (int)d);
		*mask |= UINT64_C(1) << d;
	}
	return 0;
}

static int
task_place(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_task *t)
{
	const struct ynode *n = ytree_get(m, "node"), *g;
	uint32_t node;
	int rc;

	t->node = -1;
	if (n == NULL) {
		if (t->state == KAI_SCHED_TASK_RUNNING ||
		    t->state == KAI_SCHED_TASK_RELEASING)
			return sload_fail(ld, m,
			    "a running or releasing task "
			    "needs a node");
		if (ytree_get(m, "gpu_index") != NULL)
			return sload_fail(ld, ytree_get(m, "gpu_index"),
			    "gpu_index without a node");
		return 0;
	}
	if (t->state == KAI_SCHED_TASK_PENDING)
		return sload_fail(ld, n, "a pending task has no node");
	if ((rc = sload_node(ld, n, &node)) != 0)
		return rc;
	t->node = (int32_t)node;
	if ((g = ytree_get(m, "gpu_index")) != NULL &&
	    (rc = gpu_index(ld, g, &t->gpu_mask)) != 0)
		return rc;
	return 0;
}

static int
load_task(struct sload *ld, const struct ynode *m, int job_state,
    struct kai_sched_snap_task *t)
{
	static const char *const keys[] = {"gpus", "gpu_fraction",
	    "gpu_memory_mib", "cpu_millis", "memory_mib", "node", "gpu_index",
	    "state", NULL};
	const struct ynode *n;
	int64_t gpus = 0, frac = 0, gmem = 0, cpu = 0, mem = 0;
	struct kai_err e;
	int rc, st = job_state;

	if ((rc = sload_keys(ld, m, keys, "a task")) != 0)
		return rc;
	if ((n = ytree_get(m, "state")) != NULL &&
	    (rc = sload_task_state(ld, n, KAI_SCHED_TASK_FAILED, &st)) != 0)
		return rc;
	t->state = (uint8_t)st;
	/* The scheduler's bounds are kai_sched_task_request()'s to say. */
	if ((rc = sload_get_i64(ld, m, "gpus", 0, INT64_MAX, &gpus)) != 0 ||
	    (rc = sload_get_i64(ld, m, "gpu_memory_mib", 1, INT64_MAX,
		 &gmem)) != 0 ||
	    (rc = sload_get_i64(ld, m, "cpu_millis", 0, INT64_MAX, &cpu)) !=
		0 ||
	    (rc = sload_get_i64(ld, m, "memory_mib", 0, INT64_MAX, &mem)) != 0)
		return rc;
	if ((n = ytree_get(m, "gpu_fraction")) != NULL) {
		if ((rc = sload_gpu(ld, n, false, &frac)) != 0)
			return rc;
		if (frac <= 0 || frac >= KAI_SCHED_GPU_UNIT)
			return sload_fail(ld, n,
			    "gpu_fraction must be between "
			    "0 and 1 (exclusive)");
	}
	if ((gpus > 0) + (frac > 0) + (gmem > 0) > 1)
		return sload_fail(ld, m,
		    "give one of gpus, gpu_fraction and "
		    "gpu_memory_mib");
	if (kai_sched_task_request(t, (uint64_t)gpus, (uint64_t)frac,
		(uint64_t)gmem, (uint64_t)cpu, (uint64_t)mem, &e) != 0)
		return sload_fail(ld, m, "%s", kai_err_msg(&e));
	return task_place(ld, m, t);
}

static int32_t
user_index(struct scenario *sc, const char *name)
{
	size_t i = sload_find(&sc->user_ix, name);

	if (i == 0) {
		i = sc->snap.nusers++;
		sc->users[i].name = name;
		kai_map_put(&sc->user_ix, name, (void *)(uintptr_t)(i + 1));
		return (int32_t)i;
	}
	return (int32_t)(i - 1);
}

static int
level_of(struct sload *ld, const struct ynode *m, const char *key,
    const struct kai_sched_topology *tp, int8_t *out)
{
	const struct ynode *n = ytree_get(m, key);
	size_t i;
	int rc;

	*out = -1;
	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, key)) != 0)
		return rc;
	for (i = 0; i < tp->nlevels; i++)
		if (strcmp(tp->levels[i], n->s) == 0) {
			if (i > KAI_SCHED_MAX_LEVELS)
				return sload_fail(ld, n,
				    "level \"%s\" is past the %d levels a "
				    "topology may have", n->s,
				    KAI_SCHED_MAX_LEVELS);
			*out = (int8_t)i;
			return 0;
		}
	return sload_fail(ld, n, "topology \"%s\" has no level \"%s\"",
	    tp->name, n->s);
}

static int
job_topology(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	static const char *const keys[] = {"name", "required", "preferred",
	    NULL};
	const struct kai_sched_topology *tp;
	const char *name = NULL;
	size_t i;
	int rc;

	j->topology = j->required_level = j->preferred_level = -1;
	if (m == NULL)
		return 0;
	if ((rc = sload_keys(ld, m, keys, "a job topology")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &name)) != 0)
		return rc;
	if ((i = sload_find(&ld->sc->topo_ix, name)) == 0)
		return sload_fail(ld, ytree_get(m, "name"),
		    "no topology \"%s\"", name);
	j->topology = (int32_t)(i - 1);
	tp = &ld->sc->topos[i - 1];
	if ((rc = level_of(ld, m, "required", tp, &j->required_level)) != 0 ||
	    (rc = level_of(ld, m, "preferred", tp, &j->preferred_level)) != 0)
		return rc;
	if (j->required_level >= 0 && j->preferred_level >= 0 &&
	    j->preferred_level < j->required_level)
		return sload_fail(ld, m,
		    "the preferred level is wider than the "
		    "required one");
	return 0;
}

static bool
is_parent(const struct scenario *sc, size_t q)
{
	size_t i;

	for (i = 0; i < sc->snap.nqueues; i++)
		if (sc->queues[i].parent == (int32_t)q)
			return true;
	return false;
}

static int
job_queue(struct sload *ld, const struct ynode *m, struct kai_sched_snap_job *j)
{
	const char *qname = NULL;
	size_t q;
	int rc;

	if ((rc = sload_get_str(ld, m, "queue", true, &qname)) != 0)
		return rc;
	if ((q = sload_find(&ld->sc->queue_ix, qname)) == 0)
		return sload_fail(ld, ytree_get(m, "queue"), "no queue \"%s\"",
		    qname);
	if (is_parent(ld->sc, q - 1))
		return sload_fail(ld, ytree_get(m, "queue"),
		    "queue \"%s\" is "
		    "not a leaf queue",
		    qname);
	j->queue = (uint32_t)(q - 1);
	return 0;
}

static int
job_times(struct sload *ld, const struct ynode *m, size_t i,
    struct kai_sched_snap_job *j)
{
	int64_t stale = -1, ran = -1, min = -1, tpn = 0;
	int64_t grace = KAI_SCHED_GRACE_DEFAULT;
	bool held = false, excl = false;
	int rc;

	j->created = (int64_t)i;
	j->staleness_grace_s = KAI_SCHED_GRACE_DEFAULT;
	j->time_limit_s = -1; /* none, as kai_sched_job_init() says */
	/* INT32_MIN is KAI_SCHED_GRACE_DEFAULT, the key left out. */
	if ((rc = sload_get_i64(ld, m, "created", INT64_MIN / 4, INT64_MAX / 4,
		 &j->created)) != 0 ||
	    (rc = sload_get_i64(ld, m, "stale_for_s", 0, INT32_MAX, &stale)) !=
		0 ||
	    (rc = sload_get_i64(ld, m, "staleness_grace_s", INT32_MIN + 1,
		 INT32_MAX, &grace)) != 0 ||
	    (rc = sload_get_i64(ld, m, "running_for_s", 0, INT32_MAX, &ran)) !=
		0 ||
	    (rc = sload_get_i64(ld, m, "min_tasks", 0, (int64_t)j->ntasks,
		 &min)) != 0 ||
	    (rc = sload_get_i64(ld, m, "tasks_per_node", 0,
		 (int64_t)j->ntasks, &tpn)) != 0 ||
	    (rc = sload_get_bool(ld, m, "held", &held)) != 0 ||
	    (rc = sload_get_bool(ld, m, "exclusive", &excl)) != 0 ||
	    (rc = sload_get_i64(ld, m, "time_limit_s", -1, INT32_MAX,
		 &j->time_limit_s)) != 0)
		return rc;
	j->staleness_grace_s = (int32_t)grace;
	j->stale_since = stale >= 0 ? SCENARIO_NOW - stale : KAI_SCHED_NO_TIME;
	j->started = ran >= 0 ? SCENARIO_NOW - ran : KAI_SCHED_NO_TIME;
	/* min_tasks 0 is KAI's "fully elastic": one task is enough. */
	j->min_tasks = min < 0 ? (uint32_t)j->ntasks
	    : min == 0         ? 1
			       : (uint32_t)min;
	j->held = held;
	j->tasks_per_node = (uint32_t)tpn;
	j->exclusive = excl;
	return 0;
}

static int
load_job(struct sload *ld, const struct ynode *m, size_t i, size_t *t)
{
	static const char *const keys[] = {"name", "queue", "priority",
	    "preemptible", "min_tasks", "state", "created", "topology",
	    "stale_for_s", "staleness_grace_s", "tasks", "user",
	    "running_for_s", "held", "time_limit_s", "pool", "gpu_cap",
	    "gpu_type", "tasks_per_node", "constraint", "nodelist", "exclude",
	    "exclusive", "account", NULL};
	static const char *const states[] = {"pending", "running", NULL};
	struct scenario *sc = ld->sc;
	struct kai_sched_snap_job *j = &sc->jobs[i];
	const struct ynode *ts, *n;
	const char *user = NULL;
	int64_t prio = 50;
	bool preempt;
	int rc, st = 0;
	size_t k;

	if ((rc = sload_keys(ld, m, keys, "a job")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &j->name)) != 0 ||
	    (rc = sload_index(ld, &sc->job_ix, ytree_get(m, "name"), i,
		 "job")) != 0 ||
	    (rc = job_queue(ld, m, j)) != 0 ||
	    (rc = scenario_job_pool(ld, m, j)) != 0 ||
	    (rc = scenario_job_cap(ld, m, j)) != 0 ||
	    (rc = scenario_job_account(ld, m, j)) != 0 ||
	    (rc = scenario_job_type(ld, m, j)) != 0 ||
	    (rc = scenario_job_nodereq(ld, m, j)) != 0)
		return rc;
	if ((ts = ytree_get(m, "tasks")) == NULL || ts->kind != YT_SEQ ||
	    ts->n == 0)
		return sload_fail(ld, m, "job \"%s\" needs a list of tasks",
		    j->name);
	/* The core refuses a snapshot of UINT32_MAX tasks or more. */
	j->first_task = (uint32_t)*t;
	j->ntasks = (uint32_t)ts->n;
	if ((rc = sload_get_i64(ld, m, "priority", INT32_MIN, INT32_MAX,
		 &prio)) != 0)
		return rc;
	j->priority = (int32_t)prio;
	preempt = j->priority < 100;
	if ((rc = sload_get_bool(ld, m, "preemptible", &preempt)) != 0 ||
	    (rc = job_times(ld, m, i, j)) != 0 ||
	    (rc = job_topology(ld, ytree_get(m, "topology"), j)) != 0 ||
	    (rc = sload_get_str(ld, m, "user", false, &user)) != 0)
		return rc;
	j->preemptible = preempt;
	if ((n = ytree_get(m, "state")) != NULL &&
	    (rc = sload_choice(ld, n, states, "job state", &st)) != 0)
		return rc;
	j->user = user != NULL ? user_index(sc, user) : -1;
	for (k = 0; k < ts->n; k++, (*t)++)
		if ((rc = load_task(ld, ts->v[k], st, &sc->tasks[*t])) != 0)
			return rc;
	return 0;
}

int
scenario_load_jobs(struct sload *ld, const struct ynode *js)
{
	struct scenario *sc = ld->sc;
	size_t i, nt = 0, t = 0;
	int rc;

	if (js == NULL)
		return 0;
	if ((rc = sload_kind(ld, js, YT_SEQ, "jobs")) != 0)
		return rc;
	for (i = 0; i < js->n; i++) {
		const struct ynode *ts = ytree_get(js->v[i], "tasks");

		nt += ts != NULL && ts->kind == YT_SEQ ? ts->n : 0;
	}
	sc->jobs = kai_xcalloc(js->n + 1, sizeof(*sc->jobs));
	sc->tasks = kai_xcalloc(nt + 1, sizeof(*sc->tasks));
	for (i = 0; i < js->n; i++)
		if ((rc = load_job(ld, js->v[i], i, &t)) != 0)
			return rc;
	sc->snap.jobs = sc->jobs;
	sc->snap.njobs = js->n;
	sc->snap.tasks = sc->tasks;
	sc->snap.ntasks = t;
	return 0;
}

static int
load_usage_entry(struct sload *ld, const struct ynode *m)
{
	static const char *const keys[] = {"queue", "user",
	    "gpu_usage_normalized", "cpu_usage_normalized",
	    "memory_usage_normalized", NULL};
	static const char *const res[] = {"gpu_usage_normalized",
	    "cpu_usage_normalized", "memory_usage_normalized"};
	struct scenario *sc = ld->sc;
	const char *q = NULL, *u = NULL;
	const struct ynode *n;
	size_t qi;
	int rc, r;

	if ((rc = sload_keys(ld, m, keys, "a usage entry")) != 0 ||
	    (rc = sload_get_str(ld, m, "queue", false, &q)) != 0 ||
	    (rc = sload_get_str(ld, m, "user", false, &u)) != 0)
		return rc;
	if ((q == NULL) == (u == NULL))
		return sload_fail(ld, m,
		    "a usage entry names a queue or a user");
	if (u != NULL) {
		struct kai_sched_snap_user *us = &sc->users[user_index(sc, u)];

		if ((n = ytree_get(m, "gpu_usage_normalized")) != NULL)
			return sload_dbl(ld, n, 0, 1, &us->usage);
		return 0;
	}
	if ((qi = sload_find(&sc->queue_ix, q)) == 0)
		return sload_fail(ld, ytree_get(m, "queue"), "no queue \"%s\"",
		    q);
	for (r = 0; r < KAI_SCHED_NRES; r++)
		if ((n = ytree_get(m, res[r])) != NULL &&
		    (rc = sload_dbl(ld, n, 0, 1,
			 &sc->queues[qi - 1].res[r].usage)) != 0)
			return rc;
	return 0;
}

int
scenario_load_usage(struct sload *ld, const struct ynode *us)
{
	size_t i;
	int rc;

	if (us == NULL)
		return 0;
	if ((rc = sload_kind(ld, us, YT_SEQ, "usage")) != 0)
		return rc;
	for (i = 0; i < us->n; i++)
		if ((rc = load_usage_entry(ld, us->v[i])) != 0)
			return rc;
	return 0;
}
