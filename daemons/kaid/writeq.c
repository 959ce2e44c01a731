/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * writeq.c: state changes the database did not take, kept until it does.
 *
 * What kaid learns from the cluster (a pod runs, a pod ended, a node went
 * away) is a fact with a time; if PostgreSQL is down when it is learnt,
 * the watch will not tell it again, and the job used to stay RUNNING
 * until a restart recorded it with the restart's time.  A change that
 * fails is queued here with the time it happened and retried at the
 * start of every tick, in the order the changes were made, until the
 * database takes it.  While a job has a change queued, its later changes
 * queue behind it (a job's events must keep their order), and the job
 * stays in the cache with its pods until its final state is recorded:
 * nothing is concluded, and no pod deleted, before it is durable.
 *
 * The queue lives in memory: if kaid dies with changes queued, the
 * relist after its restart finds the pods and records what they show,
 * with the times they show (the container's startedAt and finishedAt,
 * reconcile.c), and no pod is deleted before its job's end is recorded.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"
#include "tick.h"

struct writeq_item {
	struct kai_db_change c;	/* c.reason, c.exit_reason point below */
	char *reason;
	char *exit_reason;
};

struct writeq {
	struct writeq_item *v;
	size_t n, cap;
	int64_t since;		/* unix s of the oldest change queued (log) */
};

static struct writeq *
wq(struct kaid *k)
{
	if (k->writeq == NULL)
		k->writeq = kai_xcalloc(1, sizeof(*k->writeq));
	return k->writeq;
}

bool
writeq_has(const struct kaid *k, uint64_t id, bool final_only)
{
	size_t i;

	if (k->writeq == NULL)
		return false;
	for (i = 0; i < k->writeq->n; i++)
		if (k->writeq->v[i].c.id == id &&
		    (!final_only || k->writeq->v[i].c.set_end))
			return true;
	return false;
}

size_t
writeq_len(const struct kaid *k)
{
	return k->writeq != NULL ? k->writeq->n : 0;
}

void
writeq_add(struct kaid *k, const struct kai_db_change *c)
{
	struct writeq *q = wq(k);
	struct writeq_item *it;

	/* Only the changes of one job at a time: no allocation rows. */
	KAI_ASSERT(c->nallocs == 0 && c->nodelist == NULL);
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 16;
		q->v = kai_xreallocarray(q->v, q->cap, sizeof(*q->v));
	}
	if (q->n == 0)
		q->since = c->time;	/* when it failed: its own time */
	it = &q->v[q->n++];
	it->c = *c;
	it->reason = kai_xstrdup(c->reason != NULL ? c->reason : "");
	it->c.reason = it->reason;
	it->exit_reason = kai_xstrdup(c->exit_reason != NULL ?
	    c->exit_reason : "");
	it->c.exit_reason = it->exit_reason;
	kai_log_warn("job %" PRIu64 ": %s at %" PRId64 " kept to be recorded "
	    "when the database answers (%zu waiting)", c->id,
	    kai_jobstate_name(c->to), c->time, q->n);
}

void
writeq_retry(struct kaid *k)
{
	struct writeq *q = k->writeq;
	struct kai_err err;
	struct kai_job *job;
	bool applied;
	size_t i, done = 0;

	if (q == NULL || q->n == 0)
		return;
	for (i = 0; i < q->n; i++) {
		applied = false;
		if (kai_db_jobs_change(k->db, &q->v[i].c, 1, &applied,
		    &err) != 0) {
			kai_log_debug("%zu state changes still not recorded: %s",
			    q->n - i, err.msg);
			break;
		}
		done++;
		job = state_job(k, q->v[i].c.id);
		if (!applied)
			kai_log_warn("job %" PRIu64 ": not %s in the database "
			    "when its %s was recorded", q->v[i].c.id,
			    kai_jobstate_name(q->v[i].c.from),
			    kai_jobstate_name(q->v[i].c.to));
		if (job != NULL && q->v[i].c.set_end)
			reconcile_recorded(k, job, &q->v[i].c);
		free(q->v[i].reason);
		free(q->v[i].exit_reason);
	}
	if (done == 0)
		return;
	kai_log_info("recorded %zu state changes kept since %" PRId64
	    " (%zu waiting)", done, q->since, q->n - done);
	memmove(q->v, q->v + done, (q->n - done) * sizeof(*q->v));
	q->n -= done;
	tick_soon(k);
}

void
writeq_free(struct kaid *k)
{
	size_t i;

	if (k->writeq == NULL)
		return;
	if (k->writeq->n > 0)
		kai_log_warn("%zu state changes were never recorded; the next "
		    "start reads them from the cluster", k->writeq->n);
	for (i = 0; i < k->writeq->n; i++) {
		free(k->writeq->v[i].reason);
		free(k->writeq->v[i].exit_reason);
	}
	free(k->writeq->v);
	KAI_FREE(k->writeq);
}
