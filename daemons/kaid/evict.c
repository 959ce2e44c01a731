/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * evict.c: acting on the scheduler's evictions (reclaim, preempt,
 * consolidation, stale gangs).
 *
 * A victim is a whole kaid job: when the core evicts any of its tasks
 * (an elastic one, or moves one by consolidation), kaid ends the job's
 * current run, because kaid does not shrink a running job (an elastic
 * job grows from its minimum, tick.c, but never sheds a task).  As with
 * placements, the decision is committed before any Kubernetes call: in
 * one transaction every victim's row changes, then the pods are deleted.
 * A job that may be requeued (the default; --no-requeue says otherwise)
 * gets two event rows, RUNNING -> PREEMPTED with the core's reason and
 * PREEMPTED -> PENDING, its allocations dropped and its requeue count
 * raised (the same statement does that for every move to PENDING); one
 * that may not ends PREEMPTED.  A kaid that dies between the commit and
 * the deletes finds, after restart, pods whose job is PENDING or ended,
 * and reconcile deletes them: the delete is redone, the requeue is never
 * lost.
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
#include "kaid.h"
#include "sys/log.h"

/* SIGTERM, then this long before the kubelet kills a victim's task. */
#define EVICT_GRACE_S 5

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
			j->state != KAI_JOB_PENDING))
			continue;
		kai_log_info("deleting pod \"%s\" again: its job is not "
		    "active", key);
		dispatch_delete_pod(k, key, 0);
	}
}

bool
evict_pods_linger(const struct kaid *k, const struct kai_job *j)
{
	uint32_t t, n = j->ntasks > 0 ? j->ntasks : 1;
	bool found = false;
	char *pod;

	for (t = 0; t < n && !found; t++) {
		pod = state_pod_name(j->id, t);
		found = kai_map_get(&k->pods, pod) != NULL;
		free(pod);
	}
	return found;
}

/* The one or two changes of a victim, with the core's reason. */
static size_t
victim_changes(const struct kai_job *j, const char *why, int64_t now,
    struct kai_db_change *c)
{
	memset(c, 0, 2 * sizeof(*c));
	c[0].id = j->id;
	c[0].from = j->state;
	c[0].to = KAI_JOB_PREEMPTED;
	c[0].reason = why;
	c[0].time = now;
	c[0].actor_uid = -1;
	if (!j->requeue) {
		c[0].set_end = true;
		c[0].set_start = j->start_time == 0 &&
		    j->state == KAI_JOB_RUNNING;
		return 1;
	}
	c[1] = c[0];
	c[1].from = KAI_JOB_PREEMPTED;
	c[1].to = KAI_JOB_PENDING;
	c[1].reason = why;
	c[1].nodelist = "";
	c[1].drop_allocs = true;
	return 2;
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

/* After the commit: delete the run's pods; requeue or forget the job. */
static void
victim_done(struct kaid *k, struct kai_job *j, const char *reason,
    const char *why)
{
	kai_log_info("job %" PRIu64 ": PREEMPTED (%s)%s", j->id, why,
	    j->requeue ? ", requeued" : "");
	/* kubectl describe pod tells what kqueue tells. */
	evict_post_events(k, j, reason, why);
	dispatch_delete_pods(k, j, EVICT_GRACE_S);
	if (!j->requeue) {
		state_job_remove(k, j->id);
		return;
	}
	evict_requeued(j, why);
}

void
evict_post_events(struct kaid *k, const struct kai_job *j, const char *reason,
    const char *why)
{
	size_t t;

	for (t = 0; t < j->nallocs; t++)
		events_post(k, j->allocs[t].pod, KAI_EVENT_WARNING, reason,
		    "%s", why);
}

void
evict_requeued(struct kai_job *j, const char *why)
{
	size_t t;

	for (t = 0; t < j->nallocs; t++)
		kai_alloc_fini(&j->allocs[t]);
	KAI_FREE(j->allocs);
	j->nallocs = 0;
	j->state = KAI_JOB_PENDING;
	j->requeue_count++;
	free(j->reason);
	j->reason = kai_xstrdup(why);
}

size_t
evict_commit(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r)
{
	struct kai_db_change *c = kai_xcalloc(2 * sn->s.njobs + 2, sizeof(*c));
	struct kai_job **vj = kai_xcalloc(sn->s.njobs + 1, sizeof(*vj));
	char **why = kai_xcalloc(sn->s.njobs + 1, sizeof(*why));
	const char **reason = kai_xcalloc(sn->s.njobs + 1, sizeof(*reason));
	size_t *first = kai_xcalloc(sn->s.njobs + 1, sizeof(*first));
	bool *applied = kai_xcalloc(2 * sn->s.njobs + 2, sizeof(*applied));
	char buf[KAI_ERR_MSG_MAX];
	struct kai_err err;
	size_t i, n = 0, nc = 0, done = 0;
	int64_t now = kaid_now();

	for (i = 0; i < sn->s.njobs; i++) {
		struct kai_job *j = sn->kjobs[i];

		if (j == NULL || j->state == KAI_JOB_PENDING ||
		    !evict_victim(sn, r, i))
			continue;
		why[n] = kai_xstrdup(r->jobs[i].why.why == KAI_SCHED_WHY_NONE
			? "moved to make room (consolidation)"
			: kai_sched_why_text(&sn->s, &r->jobs[i].why, buf,
			      sizeof(buf)));
		reason[n] = event_reason(&r->jobs[i].why);
		first[n] = nc;
		vj[n] = j;
		nc += victim_changes(j, why[n], now, &c[nc]);
		n++;
	}
	if (nc > 0 && kai_db_jobs_change(k->db, c, nc, applied, &err) != 0) {
		kai_log_err("could not commit %zu evictions: %s", n, err.msg);
		n = 0;	/* nothing deleted: the next tick decides again */
	}
	for (i = 0; i < n; i++) {
		if (!applied[first[i]])
			continue;	/* the job moved on (ended, cancelled) */
		victim_done(k, vj[i], reason[i], why[i]);
		done++;
	}
	for (i = 0; i < sn->s.njobs; i++)
		free(why[i]);
	free(why);
	free(reason);
	free(vj);
	free(first);
	free(c);
	free(applied);
	return done;
}
