/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * evict.c: acting on the scheduler's evictions (reclaim, preempt,
 * consolidation, stale gangs).
 *
 * A victim is a whole kaid job, except for one thing: when the core
 * evicts only elastic tasks of a RUNNING elastic job (tasks above its
 * --min-tasks; the core takes the highest first) and those are its last
 * allocations, tasks keep .. nallocs-1, kaid shrinks the job instead.
 * Its allocation rows from keep on are deleted and the job stays
 * RUNNING: a resize, not a state change, whose event row (RUNNING ->
 * RUNNING) names the tasks and the core's reason; then only those pods are deleted (with the Preempted
 * event on them).  The shed tasks become unstarted tasks again, which the
 * snapshot gives the core as pending ones, so the job grows back later
 * (tick.c), but not while a pod of one of their names still exists.
 * Allocations stay numbered 0 .. nallocs-1 and running pods cannot be
 * renamed, so when the evicted tasks are not the last ones (the core's
 * minimising kept one in the middle, a node of the job is gone) or a
 * task was moved by consolidation, the whole run ends as below.
 *
 * Otherwise kaid ends the job's current run.  As with placements, the
 * decision is committed before any Kubernetes call: in one transaction
 * every victim's rows change (a shrink's too), then the pods are deleted.
 * A job that may be requeued (the default; --no-requeue says otherwise)
 * goes back to PENDING, one event row with the core's reason ("preempted
 * by ...", "reclaimed by ..."), its allocations dropped and its requeue
 * count raised (the same statement does that for every move to PENDING);
 * one that may not ends PREEMPTED.  (PREEMPTED is terminal: a requeue
 * does not pass through it.)  A kaid that dies between the commit and
 * the deletes finds, after restart, pods whose job is PENDING or ended,
 * or whose task has no allocation row, and reconcile deletes them: the
 * delete is redone, the requeue or the shrink is never lost.
 *
 * Until the victims' pods are gone the snapshot gives them to the core as
 * releasing tasks (snapshot.c: pods no allocation accounts for), so the
 * job that caused the eviction is pipelined onto them instead of causing
 * a second eviction, and kaid waits for them before it places that job
 * (tick.c).  This holds after a restart too, since it rests on the pods'
 * labels alone.  A requeued job's pods keep their names, so it is not
 * placed again while an old pod of that name still exists.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "mail.h"
#include "snapshot.h"
#include "sys/log.h"

/* SIGTERM, then this long before the kubelet kills a victim's task. */
#define EVICT_GRACE_S 5

/*
 * A victim's pod is marked (the condition DisruptionTarget, reason
 * PreemptionByScheduler, the scheduler's reason as its message) and then
 * deleted: kaid's own pods with EVICT_GRACE_S, a Kubernetes-native
 * workload's pod with its own terminationGracePeriodSeconds, which its
 * owner chose.
 */
static void
evict_pod(struct kaid *k, const struct kai_job *j, const char *pod,
    const char *why, int64_t now)
{
	dispatch_evict_pod(k, pod, native_job(j) ? -1 : EVICT_GRACE_S, why,
	    now);
}

bool
evict_victim(const struct snap *sn, const struct kai_sched_result *r, size_t i)
{
	const struct kai_sched_snap_job *sj = &sn->s.jobs[i];
	size_t t;

	if (r->jobs[i].state == KAI_SCHED_JOB_EVICTED)
		return true;
	for (t = 0; t < sj->ntasks; t++) {
		const struct kai_sched_task_out *o =
		    &r->tasks[sj->first_task + t];

		if (o->state == KAI_SCHED_TASK_EVICTED || o->moved)
			return true;
	}
	return false;
}

void
evict_retry_deletes(struct kaid *k)
{
	const struct kai_job *j;
	const char *key;
	void *v;
	size_t it = 0;

	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *r = v;

		if (!r->managed || r->deleting ||
		    ((j = state_job(k, r->job_id)) != NULL &&
			j->state != KAI_JOB_PENDING && r->task < j->nallocs))
			continue;
		/* A pending workload's pod is the job itself (native.c). */
		if (j != NULL && native_job(j))
			continue;
		kai_log_info("deleting pod \"%s\" again: its job or task is "
		    "not active", key);
		if (j != NULL && j->state != KAI_JOB_PENDING)
			evict_delete_shed(k, key);
		else
			dispatch_delete_pod(k, key, 0);
	}
}

/*
 * A shed task's pod goes as a preempted one does, SIGTERM first: its job
 * runs on, and the kubelet reports the task's end before the pod is
 * gone, so nothing about the old pod arrives once a new pod of its name
 * exists.
 */
void
evict_delete_shed(struct kaid *k, const char *pod)
{
	dispatch_delete_pod(k, pod, EVICT_GRACE_S);
}

bool
evict_pods_linger(const struct kaid *k, const struct kai_job *j)
{
	size_t t, n = j->ntasks > 0 ? j->ntasks : 1;
	bool found = false;
	char *pod;

	/* A started elastic job's unstarted tasks, or every task. */
	for (t = j->nallocs; t < n && !found; t++) {
		pod = kai_job_pod_name(j->id, (uint32_t)t);
		/* A create still on its way counts: it may land later. */
		found = kai_map_get(&k->pods, pod) != NULL ||
		    dispatch_inflight(k, pod);
		free(pod);
	}
	return found;
}

/*
 * The change of a victim, with the core's reason: back to PENDING (a
 * requeue, the same move as kctl requeue's) or, for a job that may not be
 * requeued, PREEMPTED, which is terminal.
 */
static size_t
victim_changes(const struct kai_job *j, const char *why, int64_t now,
    struct kai_db_change *c)
{
	memset(c, 0, sizeof(*c));
	c->id = j->id;
	c->from = j->state;
	c->reason = why;
	c->time = now;
	c->actor_uid = -1;
	if (!j->requeue) {
		c->to = KAI_JOB_PREEMPTED;
		c->set_end = true;
		c->set_start = j->start_time == 0 &&
		    j->state == KAI_JOB_RUNNING;
		return 1;
	}
	c->to = KAI_JOB_PENDING;
	c->nodelist = "";
	c->drop_allocs = true;
	return 1;
}

/*
 * The pod event's reason: "Preempted" when another job takes the place
 * (preempt, reclaim), "Evicted" when the scheduler moves or stops the
 * job for its own reasons (consolidation, a stale gang), as KAI's Evict
 * events tell those apart by action.
 */
static const char *
event_reason(const struct kai_sched_why_info *w)
{
	return w->why == KAI_SCHED_WHY_PREEMPTED ||
		w->why == KAI_SCHED_WHY_RECLAIMED
	    ? "Preempted" : "Evicted";
}

/* A Warning event on the pods of j's tasks from .. nallocs-1. */
static void
post_events(struct kaid *k, const struct kai_job *j, size_t from,
    const char *reason, const char *why)
{
	size_t t;

	for (t = from; t < j->nallocs; t++)
		events_post(k, j->allocs[t].pod, KAI_EVENT_WARNING, reason,
		    "%s", why);
}

/* After the commit: delete the run's pods; requeue or forget the job. */
static void
victim_done(struct kaid *k, struct kai_job *j, const char *reason,
    const char *why, int64_t now)
{
	size_t t;

	kai_log_info("job %" PRIu64 ": PREEMPTED (%s)%s", j->id, why,
	    j->requeue ? ", requeued" : "");
	/* kubectl describe pod tells what kqueue tells. */
	evict_post_events(k, j, reason, why);
	for (t = 0; t < j->nallocs; t++)
		evict_pod(k, j, j->allocs[t].pod, why, now);
	if (j->ntasks > 1)
		dispatch_delete_service(k, j->id);
	if (!j->requeue) {
		mail_ended(k, j, KAI_JOB_PREEMPTED, 0, 0, now);
		state_job_remove(k, j->id);
		return;
	}
	mail_requeued(k, j, now);
	evict_requeued(j, why, now);
}

void
evict_post_events(struct kaid *k, const struct kai_job *j, const char *reason,
    const char *why)
{
	post_events(k, j, 0, reason, why);
}

void
evict_requeued(struct kai_job *j, const char *why, int64_t now)
{
	size_t t;

	for (t = 0; t < j->nallocs; t++)
		kai_alloc_fini(&j->allocs[t]);
	KAI_FREE(j->allocs);
	j->nallocs = 0;
	(void)state_job_move(j, KAI_JOB_PENDING);
	j->requeue_count++;
	j->not_before = now + EVICT_REQUEUE_HOLD_S;
	free(j->reason);
	j->reason = kai_xstrdup(why);
}

/*
 * How many allocations victim i keeps when the core evicted only elastic
 * tasks of it and those are its last ones, tasks keep .. nallocs-1 (the
 * core evicts an elastic job's highest task first, victims.c); SIZE_MAX
 * when its whole run ends instead.  A shrunk job's allocations stay
 * numbered 0 .. nallocs-1 and its pods keep their names, so kaid cannot
 * take out a task in the middle.  The snapshot's tasks of a started job
 * are its allocations in task order unless the node of one is gone
 * (snapshot.c), which the count tells.
 */
static size_t
shrink_keep(const struct snap *sn, const struct kai_sched_result *r, size_t i)
{
	const struct kai_sched_snap_job *sj = &sn->s.jobs[i];
	const struct kai_job *j = sn->kjobs[i];
	size_t t, keep = SIZE_MAX;

	if (j->state != KAI_JOB_RUNNING || !state_job_elastic(j) ||
	    r->jobs[i].state == KAI_SCHED_JOB_EVICTED ||
	    sj->ntasks != snap_unstarted_end(j))
		return SIZE_MAX;
	for (t = 0; t < sj->ntasks; t++) {
		const struct kai_sched_task_out *o =
		    &r->tasks[sj->first_task + t];
		bool ev = o->state == KAI_SCHED_TASK_EVICTED;

		if (o->moved || (ev && t >= j->nallocs))
			return SIZE_MAX;
		if (ev && keep == SIZE_MAX)
			keep = t;
		else if (!ev && keep != SIZE_MAX && t < j->nallocs)
			return SIZE_MAX;	/* not its last tasks */
	}
	if (keep == 0 || keep < j->min_tasks)
		return SIZE_MAX;
	return keep;
}

/* One victim of a cycle and what is done to it. */
struct victim {
	struct kai_job *j;
	char *why;		/* the core's reason */
	const char *reason;	/* the pod event's */
	size_t first;		/* its first change */
	size_t keep;		/* tasks kept by a shrink; SIZE_MAX: none */
	char *text;		/* a shrink's event reason */
	char *nodelist;		/* a shrink's nodes left */
};

/*
 * The change of a shrink: the job stays RUNNING on its first keep
 * allocations, the others' rows go; the event row says which tasks.
 */
static size_t
shrink_change(struct victim *v, int64_t now, struct kai_db_change *c)
{
	const struct kai_job *j = v->j;

	v->text = kai_xasprintf("tasks %zu-%zu %s", v->keep, j->nallocs - 1,
	    v->why);
	v->nodelist = state_nodelist(j->allocs, v->keep);
	memset(c, 0, sizeof(*c));
	c->id = j->id;
	c->from = j->state;
	c->to = j->state;
	c->resize = true;
	c->reason = v->text;
	c->time = now;
	c->actor_uid = -1;
	c->nodelist = v->nodelist;
	c->drop_allocs = true;
	c->keep_allocs = (uint32_t)v->keep;
	return 1;
}

/* After the commit: only the shed tasks' pods go; the job runs on. */
static void
shrink_done(struct kaid *k, struct victim *v, int64_t now)
{
	struct kai_job *j = v->j;
	size_t t;

	kai_log_info("job %" PRIu64 ": %s, still on %s", j->id, v->text,
	    v->nodelist);
	post_events(k, j, v->keep, v->reason, v->why);
	for (t = v->keep; t < j->nallocs; t++) {
		evict_pod(k, j, j->allocs[t].pod, v->why, now);
		kai_alloc_fini(&j->allocs[t]);
	}
	j->nallocs = v->keep;
	free(j->reason);
	j->reason = kai_xstrdup(v->text);
}

/* The victims of a cycle and their changes; returns how many. */
static size_t
victims(const struct snap *sn, const struct kai_sched_result *r,
    int64_t now, struct victim *v, struct kai_db_change *c, size_t *nc)
{
	char buf[KAI_ERR_MSG_MAX];
	size_t i, n = 0;

	for (i = 0; i < sn->s.njobs; i++) {
		struct kai_job *j = sn->kjobs[i];

		if (j == NULL || j->state == KAI_JOB_PENDING ||
		    !evict_victim(sn, r, i))
			continue;
		v[n].keep = shrink_keep(sn, r, i);
		if (r->jobs[i].why.why != KAI_SCHED_WHY_NONE)
			v[n].why = kai_xstrdup(kai_sched_why_text(&sn->s,
			    &r->jobs[i].why, buf, sizeof(buf)));
		else
			v[n].why = kai_xstrdup(v[n].keep != SIZE_MAX
			    ? "evicted to make room"
			    : "moved to make room (consolidation)");
		v[n].reason = event_reason(&r->jobs[i].why);
		v[n].first = *nc;
		v[n].j = j;
		if (v[n].keep != SIZE_MAX)
			*nc += shrink_change(&v[n], now, &c[*nc]);
		else
			*nc += victim_changes(j, v[n].why, now, &c[*nc]);
		n++;
	}
	return n;
}

size_t
evict_commit(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r)
{
	struct kai_db_change *c = kai_xcalloc(sn->s.njobs + 1, sizeof(*c));
	struct victim *v = kai_xcalloc(sn->s.njobs + 1, sizeof(*v));
	bool *applied = kai_xcalloc(sn->s.njobs + 1, sizeof(*applied));
	struct kai_err err;
	size_t i, n, nc = 0, done = 0;

	n = victims(sn, r, sn->s.now, v, c, &nc);
	if (nc > 0 && kai_db_jobs_change(k->db, c, nc, applied, &err) != 0) {
		kai_log_err("could not commit %zu evictions: %s", n, err.msg);
		memset(applied, 0, nc * sizeof(*applied));
		/* nothing deleted: the next tick decides again */
	}
	for (i = 0; i < n; i++) {
		/* Not applied: the job moved on (ended, cancelled). */
		if (applied[v[i].first] && v[i].keep != SIZE_MAX)
			shrink_done(k, &v[i], sn->s.now);
		else if (applied[v[i].first])
			victim_done(k, v[i].j, v[i].reason, v[i].why,
			    sn->s.now);
		done += applied[v[i].first];
		free(v[i].why);
		free(v[i].text);
		free(v[i].nodelist);
	}
	free(v);
	free(c);
	free(applied);
	return done;
}
