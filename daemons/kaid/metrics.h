/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * metrics.h: what kaid counts for GET /metrics (doc/metrics.md).
 *
 * struct metrics holds the counters that exist only as events (ticks,
 * submissions, Kubernetes calls, finished jobs, HTTP answers) and the
 * per-queue outputs of the last cycle; everything else on the page
 * (jobs by state, nodes, connections) is read from kaid's caches when
 * the page is written.  The hooks are one call each so that the files
 * they sit in (tick.c, dispatch.c, rpc_submit.c, reconcile.c) carry one
 * line per event.  Counters only grow; nothing here may fail.
 */
#ifndef KAID_METRICS_H
#define KAID_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/buf.h"
#include "model/jobstate.h"
#include "sched/sched_model.h"

#define METRICS_CYCLE_BUCKETS 12 /* bounds of the cycle-time histogram */
#define METRICS_HTTP_CODES    10 /* statuses counted (metrics.c) */

/* The Kubernetes calls that make a job's pods. */
enum metrics_call {
	METRICS_CREATE,
	METRICS_BIND,
	METRICS_NCALLS
};

/* One queue's fair share and allocation, from the last cycle. */
struct metrics_queue {
	char *name;
	int64_t fair[KAI_SCHED_NRES];	/* sched units; -1 = not tracked */
	int64_t alloc[KAI_SCHED_NRES];
	int64_t req[KAI_SCHED_NRES];
};

struct metrics {
	int64_t start_time;			/* unix s */
	uint64_t submit_accepted;		/* stored as jobs */
	uint64_t submit_refused;		/* answered with an error */
	uint64_t submit_failed;			/* valid, but not stored */
	uint64_t ticks;				/* cycles attempted */
	uint64_t cycles_ok;			/* of which the core ran */
	uint64_t tasks_placed;
	uint64_t jobs_left_alone;		/* by the last good cycle */
	uint64_t cycle_counts[METRICS_CYCLE_BUCKETS + 1];
	double cycle_sum_s;
	double last_cycle_s;
	struct timespec tick_t0;		/* CLOCK_MONOTONIC */
	uint64_t calls_ok[METRICS_NCALLS];
	uint64_t calls_failed[METRICS_NCALLS];
	uint64_t jobs_finished[KAI_JOB_NSTATES];
	uint64_t http_answers[METRICS_HTTP_CODES + 1]; /* last: other */
	uint64_t http_refused;			/* over the connection cap */
	struct metrics_queue *queues;		/* of the last good cycle */
	size_t nqueues;
};

struct kaid;

void metrics_init(struct metrics *m, int64_t now);
void metrics_fini(struct metrics *m);

/* tick.c: around one cycle, and with its result when the core ran. */
void metrics_tick_begin(struct metrics *m);
void metrics_tick_result(struct metrics *m,
    const struct kai_sched_snapshot *s, const struct kai_sched_result *r);
void metrics_tick_end(struct metrics *m);

/*
 * dispatch.c: a create or bind answered with code.  0 counts as done;
 * 409 (the pod exists or is bound: kaid adopts it) and the cancellation
 * at shutdown count as neither done nor failed.
 */
void metrics_kube_call(struct metrics *m, enum metrics_call c, int code);

/* reconcile.c: an active job reached its terminal state. */
void metrics_job_finished(struct metrics *m, enum kai_job_state to);

/* httpd.c: an answer with this status was sent. */
void metrics_http_answer(struct metrics *m, int status);

/*
 * Writes the whole exposition page into out.  Returns 0, or KAI_EINVAL
 * when it does not fit out's limit.
 */
int metrics_render(const struct kaid *k, struct kai_buf *out);

#endif /* KAID_METRICS_H */
