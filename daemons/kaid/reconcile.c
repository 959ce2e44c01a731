/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reconcile.c: what the pod and node watches mean for jobs.
 *
 * A pod of ours that runs moves its job to RUNNING; a pod that ends ends
 * its job: exit 0 of every task is COMPLETED, OOMKilled is OUT_OF_MEMORY,
 * DeadlineExceeded is TIMEOUT, a lost node is NODE_FAIL, anything else is
 * FAILED with the exit code and signal.  Each change is one transaction
 * (row update plus event row); the pods of a finished job are deleted.
 *
 * A pod of an active job whose task has no allocation (a task an elastic
 * job shed, evict.c, even if kaid died before deleting it) is no longer
 * the job's: it is deleted, and its ending or deletion says nothing
 * about the job.
 *
 * After a (re)list, pods whose job is no longer active are deleted, and
 * RUNNING jobs whose pods are gone are failed with a reason.  None of that
 * happens before both watches have synced: if kaid cannot read the cluster
 * it changes nothing (fail closed).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "mail.h"
#include "sys/log.h"
#include "tick.h"

/* The change that ends job: state to, end time, exit status. */
static void
finish_change(struct kai_db_change *c, const struct kai_job *job,
    enum kai_job_state to, const char *reason, int32_t exit_code,
    int32_t exit_signal, int64_t actor_uid, int64_t now)
{
	memset(c, 0, sizeof(*c));
	c->id = job->id;
	c->from = job->state;
	c->to = to;
	c->reason = reason;
	c->time = now;
	c->actor_uid = actor_uid;
	c->set_end = true;
	c->set_start = job->start_time == 0 && job->state != KAI_JOB_PENDING;
	c->set_exit = true;
	c->exit_code = exit_code;
	c->exit_signal = exit_signal;
}

/* After the commit: the log, the metrics, the pods, the cache. */
void
reconcile_recorded(struct kaid *k, struct kai_job *job,
    const struct kai_db_change *c)
{
	uint64_t id = job->id;

	kai_log_info("job %" PRIu64 ": %s%s%s exit %d:%d", id,
	    kai_jobstate_name(c->to), c->reason[0] != '\0' ? " (" : "",
	    c->reason[0] != '\0' ? c->reason : "", c->exit_code,
	    c->exit_signal);
	metrics_job_finished(&k->metrics, c->to);
	mail_ended(k, job, c->to, c->exit_code, c->exit_signal, c->time);
	/* A workload's pod belongs to its controller (or its user): kaid
	 * deletes it only when the job is cancelled, as KAI evicts. */
	if (native_job(job)) {
		native_ended(k, job, c->to == KAI_JOB_CANCELLED);
	} else if (job->nallocs > 0) {
		dispatch_delete_pods(k, job,
		    c->to == KAI_JOB_CANCELLED ? -1 : 0);
	}
	state_job_remove(k, id);
}

/* reconcile_finish(), and why its container ended (NULL = not known). */
static int
finish(struct kaid *k, struct kai_job *job, enum kai_job_state to,
    const char *reason, int32_t exit_code, int32_t exit_signal,
    int64_t actor_uid, const char *exit_reason, int64_t now)
{
	struct kai_db_change c;
	struct kai_err err;
	bool applied = false;

	/* Its end is known and waits for the database: the first one counts. */
	if (writeq_has(k, job->id, true))
		return KAI_EDB;
	finish_change(&c, job, to, reason, exit_code, exit_signal, actor_uid,
	    now);
	c.exit_reason = exit_reason;
	if (writeq_has(k, job->id, false)) {
		writeq_add(k, &c);	/* behind its earlier changes */
		return KAI_EDB;
	}
	if (kai_db_jobs_change(k->db, &c, 1, &applied, &err) != 0) {
		kai_log_err("job %" PRIu64 ": could not record %s: %s", job->id,
		    kai_jobstate_name(to), err.msg);
		/* A move the table refuses never will be recorded. */
		if (err.code != KAI_EINTERNAL)
			writeq_add(k, &c);
		return err.code;
	}
	reconcile_recorded(k, job, &c);
	tick_soon(k);
	return 0;
}

int
reconcile_finish(struct kaid *k, struct kai_job *job, enum kai_job_state to,
    const char *reason, int32_t exit_code, int32_t exit_signal,
    int64_t actor_uid, int64_t now)
{
	return finish(k, job, to, reason, exit_code, exit_signal, actor_uid,
	    NULL, now);
}

/* Bytes of a termination message kept: its end, where the error is. */
#define EXIT_MESSAGE_MAX 1024

/*
 * Why the pod's container ended, as its node said, for the job record:
 * the reason ("Error", "OOMKilled", or the pod's own, "DeadlineExceeded",
 * "Evicted") and the message (with FallbackToLogsOnError, the failed
 * container's last log lines), one line: a line break becomes " | ",
 * other control characters a space, and only the last
 * EXIT_MESSAGE_MAX bytes of a long message are kept.  NULL when the pod
 * says nothing.  Caller owns it.
 */
static char *
exit_reason_text(const struct pod_rec *r)
{
	const char *why = *r->reason != '\0' ? r->reason : r->term_reason;
	const char *msg = *r->message != '\0' && *r->reason != '\0' ?
	    r->message : r->term_message;
	size_t len = strlen(msg), i;
	struct kai_buf b;

	if (*why == '\0' && *msg == '\0')
		return NULL;
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		len--;
	if (len > EXIT_MESSAGE_MAX) {
		msg += len - EXIT_MESSAGE_MAX;
		len = EXIT_MESSAGE_MAX;
	}
	kai_buf_init(&b, 4 * EXIT_MESSAGE_MAX);
	KAI_ASSERT(kai_buf_adds(&b, *why != '\0' ? why : "Error") == 0);
	if (len > 0)
		KAI_ASSERT(kai_buf_adds(&b, ": ") == 0);
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)msg[i];

		if (ch == '\n')
			KAI_ASSERT(kai_buf_adds(&b, " | ") == 0);
		else
			KAI_ASSERT(kai_buf_addc(&b, ch < 0x20 || ch == 0x7f ?
			    ' ' : (char)ch) == 0);
	}
	return kai_buf_detach(&b, NULL);
}

static int
by_id_down(const void *a, const void *b)
{
	const struct kai_job *x = *(struct kai_job *const *)a;
	const struct kai_job *y = *(struct kai_job *const *)b;

	return x->id > y->id ? -1 : x->id < y->id;
}

/* The set-based cancellation of jobs[0..n) (kai_db_jobs_cancel). */
static int
record_cancel(struct kaid *k, struct kai_job **jobs, size_t n,
    int64_t actor_uid, int64_t now, bool *applied)
{
	struct kai_db_cancel dc;
	uint64_t *ids = kai_xcalloc(n, sizeof(*ids));
	enum kai_job_state *from = kai_xcalloc(n, sizeof(*from));
	uint32_t *sig = kai_xcalloc(n, sizeof(*sig));
	struct kai_err err;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		ids[i] = jobs[i]->id;
		from[i] = jobs[i]->state;
		sig[i] = jobs[i]->state != KAI_JOB_PENDING ? 15 : 0;
	}
	memset(&dc, 0, sizeof(dc));
	dc.ids = ids;
	dc.from = from;
	dc.signals = sig;
	dc.n = n;
	dc.to = KAI_JOB_CANCELLED;
	dc.reason = "cancelled by user";
	dc.time = now;
	dc.actor_uid = actor_uid;
	r = kai_db_jobs_cancel(k->db, &dc, applied, &err);
	if (r != 0)
		kai_log_err("could not record %zu cancellations: %s", n,
		    err.msg);
	free(ids);
	free(from);
	free(sig);
	return r;
}

/*
 * One statement records every cancellation (committed before any pod is
 * deleted: a crash in between leaves pods of finished jobs, which
 * reconcile deletes); then each job leaves the cache and loses its pods.
 * A job the database had in another state (which kaid, its only writer,
 * does not expect) is logged and still dropped from the cache, as the
 * row-by-row version did.
 */
int
reconcile_cancel_many(struct kaid *k, struct kai_job **jobs, size_t n,
    int64_t actor_uid, int64_t now)
{
	struct kai_db_change c;
	bool *applied;
	size_t i;
	int r;

	if (n == 0)
		return 0;
	/*
	 * Highest ids first: each job leaves the id-sorted cache from its
	 * end, so removing 50,000 moves no pointers instead of billions.
	 */
	qsort(jobs, n, sizeof(*jobs), by_id_down);
	applied = kai_xcalloc(n, sizeof(*applied));
	if ((r = record_cancel(k, jobs, n, actor_uid, now, applied)) != 0) {
		free(applied);
		return r;
	}
	for (i = 0; i < n; i++) {
		finish_change(&c, jobs[i], KAI_JOB_CANCELLED,
		    "cancelled by user", 0,
		    jobs[i]->state != KAI_JOB_PENDING ? 15 : 0, actor_uid, now);
		if (!applied[i])
			kai_log_warn("job %" PRIu64 ": not %s in the database "
			    "when cancelled", jobs[i]->id,
			    kai_jobstate_name(jobs[i]->state));
		reconcile_recorded(k, jobs[i], &c);
	}
	free(applied);
	tick_soon(k);
	return 0;
}

/*
 * When the job started: its container's startedAt, so that a start kaid
 * records late (it was down, or the database was and kaid died with the
 * change queued) keeps its true time; now when the node said nothing or
 * something impossible (later than now, before the submission).
 */
static int64_t
started_at(const struct pod_rec *r, const struct kai_job *job, int64_t now)
{
	if (r->started_at <= 0 || r->started_at > now ||
	    r->started_at < job->submit_time)
		return now;
	return r->started_at;
}

static void
mark_running(struct kaid *k, struct kai_job *job, int64_t now)
{
	struct kai_db_change c;
	struct kai_err err;
	bool applied = false;

	memset(&c, 0, sizeof(c));
	c.id = job->id;
	c.from = job->state;
	c.to = KAI_JOB_RUNNING;
	c.reason = "";
	c.time = now;
	c.actor_uid = -1;
	c.set_start = true;
	if (writeq_has(k, job->id, false)) {
		writeq_add(k, &c);
	} else if (kai_db_jobs_change(k->db, &c, 1, &applied, &err) != 0) {
		kai_log_err("job %" PRIu64 ": could not record RUNNING: %s",
		    job->id, err.msg);
		/* Kept with its time; the cache moves on as if recorded. */
		if (err.code != KAI_EINTERNAL)
			writeq_add(k, &c);
	}
	if (!state_job_move(job, KAI_JOB_RUNNING))
		return;
	job->start_time = c.time;
	mail_started(k, job, c.time);
	kai_log_info("job %" PRIu64 ": RUNNING", job->id);
}

/* The wrapper's status when its alarm ended the job (pod/wrapper.sh). */
#define WRAPPER_TIMEOUT_EXIT 124
/* How much earlier than kaid's clock the wrapper may see the limit come:
 * it counts from the script's start, kaid from when it saw the pod run. */
#define TIMEOUT_SLACK_S 30

/*
 * Did the wrapper end the job at its time limit?  Its status says so, and
 * the time the job ran confirms it: a script that exits 124 on its own
 * long before its limit failed.
 */
static bool
wrapper_timed_out(const struct pod_rec *r, const struct kai_job *job,
    int64_t now)
{
	return r->exit_code == WRAPPER_TIMEOUT_EXIT && job->time_limit_s > 0 &&
	    job->start_time > 0 &&
	    now - job->start_time + TIMEOUT_SLACK_S >=
	    job->time_limit_s;
}

/*
 * The terminal state a finished pod stands for, with its exit status.
 * TIMEOUT's is 0:0, as sacct shows it.
 */
static enum kai_job_state
pod_outcome(const struct pod_rec *r, const struct kai_job *job,
    int64_t now, int32_t *code, int32_t *sig, const char **reason)
{
	*code = 0;
	*sig = 0;
	*reason = "";
	if (strcmp(r->reason, "DeadlineExceeded") == 0 ||
	    wrapper_timed_out(r, job, now)) {
		*reason = "time limit reached";
		return KAI_JOB_TIMEOUT;
	}
	if (strcmp(r->reason, "NodeLost") == 0 ||
	    strcmp(r->reason, "NodeShutdown") == 0) {
		*reason = "node lost";
		return KAI_JOB_NODE_FAIL;
	}
	if (strcmp(r->term_reason, "OOMKilled") == 0) {
		*reason = "OOMKilled";
		*sig = 9;
		return KAI_JOB_OUT_OF_MEMORY;
	}
	if (r->phase == KAI_POD_SUCCEEDED && r->exit_code == 0)
		return KAI_JOB_COMPLETED;
	/* A shell reports death by signal N as 128 + N. */
	if (r->exit_code > 128 && r->exit_code < 128 + 65)
		*sig = r->exit_code - 128;
	else
		*code = r->exit_code;
	*reason = r->terminated ? "" : r->reason;
	return KAI_JOB_FAILED;
}

static bool
all_tasks_succeeded(struct kaid *k, const struct kai_job *job)
{
	size_t t;

	for (t = 0; t < job->nallocs; t++) {
		const struct pod_rec *r = kai_map_get(&k->pods,
		    job->allocs[t].pod);

		if (r == NULL || r->phase != KAI_POD_SUCCEEDED)
			return false;
	}
	return !native_tree_waits(k, job);
}

/*
 * When the job ended: its container's finishedAt, as its node said, so
 * that an end kaid learns late (it was down, or restarted while the
 * database was: the pod is the record of what happened) keeps its true
 * time; now when the node said nothing or something impossible.
 */
static int64_t
ended_at(const struct pod_rec *r, const struct kai_job *job, int64_t now)
{
	if (r->finished_at <= 0 || r->finished_at > now ||
	    r->finished_at < job->start_time)
		return now;
	return r->finished_at;
}

void
reconcile_pod(struct kaid *k, const char *name, struct pod_rec *r,
    bool deleted, int64_t now)
{
	struct kai_job *job = state_job(k, r->job_id);
	const char *reason;
	int32_t code, sig;
	enum kai_job_state to;

	if (job != NULL && native_job(job) && job->state == KAI_JOB_PENDING)
		return;	/* a workload's pod waits for kaid's bind */
	if (job == NULL || job->state == KAI_JOB_PENDING) {
		/* Not an active job's pod (finished, cancelled, unknown). */
		if (!deleted && !r->deleting && k->pods_synced) {
			kai_log_info("deleting pod \"%s\": its job is not "
			    "active", name);
			r->deleting = true;
			dispatch_delete_pod(k, name, 0);
			/* Task 0 stands for its job: a multi-task job
			 * may have left its Service too, and any job its
			 * key's Secret (404 is fine). */
			if (strlen(name) > 2 &&
			    strcmp(name + strlen(name) - 2, "-0") == 0) {
				dispatch_delete_service(k, r->job_id);
				if (jobauth_enabled(k))
					jobauth_secret_delete(k, r->job_id);
			}
		}
		return;
	}
	if (native_member_waits(job, r->task))
		return;	/* a gang's member not placed yet (native.c) */
	if (r->task >= job->nallocs) {
		/* A task its job shed (evict.c): not the job's any more. */
		if (!deleted && !r->deleting && k->pods_synced) {
			kai_log_info("deleting pod \"%s\": its task is not "
			    "active", name);
			evict_delete_shed(k, name);
		}
		return;
	}
	if (r->waiting_error) {
		char *why = kai_xasprintf("%s: %s", r->wait_reason, r->message);

		(void)finish(k, job, KAI_JOB_FAILED, why, 1, 0, -1, why, now);
		free(why);
		return;
	}
	if (r->phase == KAI_POD_SUCCEEDED || r->phase == KAI_POD_FAILED) {
		int64_t at = ended_at(r, job, now);
		char *exit_reason;

		to = pod_outcome(r, job, at, &code, &sig, &reason);
		if (to == KAI_JOB_COMPLETED && !all_tasks_succeeded(k, job))
			return;	/* other tasks still run */
		exit_reason = to == KAI_JOB_COMPLETED ? NULL :
		    exit_reason_text(r);
		(void)finish(k, job, to, reason, code, sig, -1, exit_reason,
		    at);
		free(exit_reason);
		return;
	}
	if (deleted) {
		/* Gone without an ending we saw: someone removed it. */
		(void)reconcile_finish(k, job, KAI_JOB_FAILED,
		    "pod was deleted outside kaibatch", 0, 9, -1, now);
		return;
	}
	if (r->phase == KAI_POD_RUNNING && job->state == KAI_JOB_CONFIGURING)
		mark_running(k, job, started_at(r, job, now));
}

void
reconcile_node_gone(struct kaid *k, const char *node, int64_t now)
{
	size_t i, t;

	for (i = 0; i < state_njobs(k);) {
		struct kai_job *job = state_job_at(k, i);
		bool hit = false;

		for (t = 0; t < job->nallocs; t++)
			hit |= strcmp(job->allocs[t].node, node) == 0;
		if (hit && reconcile_finish(k, job, KAI_JOB_NODE_FAIL,
		    "node lost", 0, 0, -1, now) == 0)
			continue;	/* removed: same index, next job */
		i++;
	}
}

/*
 * Once both watches have synced: pods without an active job go, and
 * RUNNING jobs without pods fail (their pods vanished while kaid could
 * not see them).  CONFIGURING jobs get their missing pods on the next
 * tick (dispatch_ensure_pods).
 */
void
reconcile_synced(struct kaid *k, int64_t now)
{
	const char *key;
	void *v;
	size_t it = 0, i, t;

	if (!state_synced(k))
		return;
	while (kai_map_next(&k->pods, &it, &key, &v)) {
		struct pod_rec *r = v;

		if (r->managed)
			reconcile_pod(k, key, r, false, now);
	}
	for (i = 0; i < state_njobs(k);) {
		struct kai_job *job = state_job_at(k, i);
		bool any = false;

		if (job->state == KAI_JOB_RUNNING) {
			for (t = 0; t < job->nallocs; t++)
				any |= kai_map_get(&k->pods,
				    job->allocs[t].pod) != NULL;
			if (!any && reconcile_finish(k, job, KAI_JOB_FAILED,
			    "pods vanished while kaid could not see them", 0,
			    0, -1, now) == 0)
				continue;
		}
		i++;
	}
}
