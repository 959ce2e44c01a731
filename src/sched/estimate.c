/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * estimate.c: when will a pending job start?  squeue --start's
 * START_TIME, computed after the phases on the session they left.
 *
 * The replay assumes every running job ends at its time limit (started +
 * time_limit_s; a job without a limit never ends, a job past its limit
 * ends now) and that nothing new arrives, is preempted or is cancelled.
 * It walks the end times in order.  At each time it frees what ends by
 * then (releasing and evicted tasks are freed at once: their pods are
 * going; so are the places consolidation moved tasks from), then tries
 * the candidates still without an estimate, in their allocation order,
 * with the same step, admission and placement as the
 * allocate phase (gang minimum, fractions, topology, queue limits), on
 * idle resources only.  A candidate that fits gets that time as its
 * estimate and keeps its place: it holds it until estimate + its own
 * limit (forever without one), so no later candidate is given the same
 * slot.  That is the policy the allocate phase runs: a smaller job
 * behind a blocked one may be given an earlier slot if it fits there,
 * exactly as the allocate phase would start it then.  With backfill,
 * jobs that hold a reservation keep its start as their estimate, and
 * the replay honours the reservations as allocate does (backfill.c).
 *
 * Candidates are the first config.est_jobs jobs in allocation order (as
 * the allocate phase met them) that are pending with nothing running,
 * not held, and not stopped by a queue limit or quota, by a task no node
 * can hold, or by the lack of schedulable nodes: time alone cures none
 * of those.  The work is
 * bounded: at most EST_TRIES_PER_JOB placement tries per candidate in
 * all; candidates left when the budget or the end times run out get no
 * estimate.  The session is changed for good: this runs last.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

/* Placement tries per candidate, over the whole replay. */
#define EST_TRIES_PER_JOB 64

struct est {
	struct sess *S;
	uint32_t *cand; /* candidates in allocation order */
	uint32_t ncand, left;
	struct kai_sched_est_ev *run; /* running jobs' ends, sorted */
	size_t nrun, at;
	struct kai_sched_est_ev *res; /* estimated jobs' ends, sorted */
	size_t nres, rat;
	uint64_t tries;
	uint32_t *ending; /* the tasks that end at one time */
	size_t nending, capending;
	uint8_t *seen; /* per node, for kai_sched_end_tasks() */
};

static bool
want(const struct sess *S, uint32_t j)
{
	const struct kai_sched_job_out *o = &S->r->jobs[j];
	enum kai_sched_why w = o->why.why;

	return o->state == KAI_SCHED_JOB_PENDING &&
	    o->est_start == KAI_SCHED_NO_TIME && S->jobs[j].nactive == 0 &&
	    S->jobs[j].npending > 0 && !S->jobs[j].static_fail &&
	    !S->s->jobs[j].held && w != KAI_SCHED_WHY_LIMIT &&
	    w != KAI_SCHED_WHY_NP_QUOTA;
}

void
kai_sched_est_note(struct sess *S, uint32_t j,
    const struct kai_sched_why_info *w)
{
	if (S->allocated || S->cf->est_jobs == 0 ||
	    S->nest_cand == S->cf->est_jobs || w->why == KAI_SCHED_WHY_LIMIT ||
	    w->why == KAI_SCHED_WHY_NP_QUOTA)
		return;
	if (S->est_cand == NULL)
		S->est_cand =
		    kai_xcalloc(S->cf->est_jobs, sizeof(*S->est_cand));
	S->est_cand[S->nest_cand++] = j;
}

/*
 * The allocate phase met its waiting jobs in allocation order, and noted
 * the first ones (kai_sched_est_note()): those still waiting are the
 * candidates, at no cost.  Without an allocate phase, or when all it
 * noted are gone (reclaim or preempt placed them), the order is built
 * again, a pass over every job.
 */
static void
candidates(struct est *E)
{
	struct sess *S = E->S;
	struct kai_sched_order o;
	int64_t top;
	uint32_t i;

	E->cand = kai_xcalloc(S->cf->est_jobs, sizeof(*E->cand));
	for (i = 0; i < S->nest_cand; i++)
		if (want(S, S->est_cand[i]))
			E->cand[E->ncand++] = S->est_cand[i];
	E->left = E->ncand;
	if (S->allocated && (E->ncand > 0 || S->nest_cand == 0))
		return;
	if (S->inc != NULL)
		kai_sched_inc_all_jobs(S);
	kai_sched_order_init(&o, S, want);
	while (E->ncand < S->cf->est_jobs &&
	    (top = kai_sched_order_top(&o)) >= 0) {
		E->cand[E->ncand++] = (uint32_t)top;
		kai_sched_order_next(&o, (uint32_t)top, false);
	}
	kai_sched_order_fini(&o);
	E->left = E->ncand;
}

/*
 * Sorts ev[0..n) by time, stably, so that events of one time keep the
 * order they were pushed in (jobs ascending, then reservations' ends,
 * NONE32): the order a sort by (time, job) gives.  An LSD radix sort on
 * the time's offset from the earliest, a byte a pass and only as many
 * passes as the latest offset needs (two for a day in seconds): qsort()
 * took a call per comparison, some 400,000 of them for 27,000 ends.
 */
static size_t
digit(const struct kai_sched_est_ev *e, int64_t lo, unsigned shift)
{
	return (size_t)((((uint64_t)e->t - (uint64_t)lo) >> shift) & 0xff);
}

static void
sort_ends(struct kai_sched_est_ev *ev, size_t n)
{
	struct kai_sched_est_ev *tmp, *from = ev, *to;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i, k, cnt[256];
	uint64_t span;
	unsigned shift;

	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		lo = ev[i].t < lo ? ev[i].t : lo;
		hi = ev[i].t > hi ? ev[i].t : hi;
	}
	span = (uint64_t)hi - (uint64_t)lo;
	tmp = kai_xcalloc(n, sizeof(*tmp));
	to = tmp;
	for (shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[digit(&from[i], lo, shift)]++;
		for (k = 0; k < 256; k++) {
			size_t c = cnt[k];

			cnt[k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[cnt[digit(&from[i], lo, shift)]++] = from[i];
		to = from;
		from = from == ev ? tmp : ev;
	}
	if (from != ev)
		memcpy(ev, from, n * sizeof(*ev));
	free(tmp);
}

static void
push_end(struct kai_sched_est_ev **ev, uint32_t *n, uint32_t *cap, int64_t t,
    uint32_t job)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*ev = kai_xreallocarray(*ev, *cap, sizeof(**ev));
	}
	(*ev)[*n].t = t;
	(*ev)[(*n)++].job = job;
}

void
kai_sched_est_held(struct sess *S, uint32_t j)
{
	const struct sjob *sj = &S->jobs[j];
	int64_t end;

	if (sj->releasing || sj->nevicted > 0) {
		if (S->nest_rel == S->capest_rel) {
			S->capest_rel = S->capest_rel ? 2 * S->capest_rel : 256;
			S->est_rel = kai_xreallocarray(S->est_rel,
			    S->capest_rel, sizeof(*S->est_rel));
		}
		S->est_rel[S->nest_rel++] = j;
	}
	if (sj->nactive > 0 && S->s->jobs[j].time_limit_s >= 0 &&
	    (end = kai_sched_job_end(S, j)) != KAI_SCHED_NO_TIME)
		push_end(&S->est_ends, &S->nest_ends, &S->capest_ends, end, j);
}

/*
 * Before the replay, the releasing and evicted tasks are freed and the
 * running jobs' ends sorted, from what the cycle handed over
 * (kai_sched_est_held(), in job order): not a walk over every task and
 * another over every job, 3.5 million tasks and a million jobs at a
 * million pending jobs.  Only the tasks of a job with releasing ones
 * (counted as its result was written) or evicted ones are looked at,
 * not those of every running job.  A moved task's old place is
 * releasing too, under no task: the session kept it at the move's
 * commit (stmt.c), and it is freed with them.
 */
static void
prepare(struct est *E)
{
	struct sess *S = E->S;
	uint32_t i, n, cap;
	size_t t;
	int64_t end;

	for (i = 0; i < S->nest_rel; i++) {
		const struct kai_sched_snap_job *J = &S->s->jobs[S->est_rel[i]];

		for (t = J->first_task; t < J->first_task + J->ntasks; t++)
			kai_sched_release(S, (uint32_t)t);
	}
	kai_sched_release_moved(S);
	/* The ends are the replay's now; reservations' ends after them. */
	E->run = S->est_ends;
	n = S->nest_ends;
	cap = S->capest_ends;
	S->est_ends = NULL;
	S->nest_ends = S->capest_ends = 0;
	/* A reservation's end is a time when its resources free up. */
	for (i = 0; i < kai_sched_bf_count(S); i++)
		if ((end = kai_sched_bf_end(S, i)) != KAI_SCHED_NO_TIME)
			push_end(&E->run, &n, &cap, end, NONE32);
	E->nrun = n;
	sort_ends(E->run, E->nrun);
}

/* Job j ends: its active tasks are gone, once all that end are listed. */
static void
end_job(struct est *E, uint32_t j)
{
	const struct kai_sched_snap_job *J;
	size_t t;

	if (j == NONE32)
		return; /* a reservation's end: only a time to try at */
	J = &E->S->s->jobs[j];
	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		if (!kai_sched_task_active(&E->S->tasks[t]))
			continue;
		if (E->nending == E->capending) {
			E->capending = E->capending ? 2 * E->capending : 256;
			E->ending = kai_xreallocarray(E->ending, E->capending,
			    sizeof(*E->ending));
		}
		E->ending[E->nending++] = (uint32_t)t;
	}
}

/*
 * Frees everything that ends by time t, each node's figures recomputed
 * once (kai_sched_end_tasks()).  Every change stays in the undo log:
 * once the estimates are written, the cycle puts the session's tasks
 * back as the phases left them (kai_sched_restore_tasks()), since they
 * become the result's (cycle.c).
 */
static void
release_until(struct est *E, int64_t t)
{
	E->nending = 0;
	while (E->at < E->nrun && E->run[E->at].t <= t)
		end_job(E, E->run[E->at++].job);
	while (E->rat < E->nres && E->res[E->rat].t <= t)
		end_job(E, E->res[E->rat++].job);
	if (E->nending == 0)
		return;
	if (E->seen == NULL)
		E->seen = kai_xcalloc(E->S->nn + 1, 1);
	kai_sched_end_tasks(E->S, E->ending, E->nending, E->seen);
}

/* Estimated job j holds its place until t + its limit. */
static void
reserve(struct est *E, uint32_t j, int64_t t)
{
	int64_t lim = E->S->s->jobs[j].time_limit_s;
	size_t i;

	if (lim < 0 || lim > INT64_MAX - t)
		return; /* holds it for good */
	if (E->nres == 0)
		E->res = kai_xcalloc(E->ncand + 1, sizeof(*E->res));
	for (i = E->nres++; i > E->rat && E->res[i - 1].t > t + lim; i--)
		E->res[i] = E->res[i - 1];
	E->res[i].t = t + lim;
	E->res[i].job = j;
}

/* Every candidate still without an estimate, tried at time t. */
static void
try_all(struct est *E, int64_t t)
{
	struct sess *S = E->S;
	uint64_t budget = (uint64_t)E->ncand * EST_TRIES_PER_JOB;
	struct kai_sched_why_info w;
	struct kai_sched_memo m;
	bool memo = false; /* m made: at the first failure, not before */
	uint32_t i, j;

	S->bf_clock = t; /* placements, and the memo's classes, at t */
	for (i = 0; i < E->ncand && E->tries < budget; i++) {
		j = E->cand[i];
		if (S->r->jobs[j].est_start != KAI_SCHED_NO_TIME)
			continue;
		kai_sched_why_clear(&w);
		if (!kai_sched_admit(S, j, &w) ||
		    (memo && kai_sched_memo_find(&m, S, j) != NULL))
			continue;
		E->tries++;
		if (!kai_sched_try_step(S, j, false, &w)) {
			/* Within one time resources only shrink (allocate.c). */
			if (w.why == KAI_SCHED_WHY_LIMIT ||
			    w.why == KAI_SCHED_WHY_NP_QUOTA)
				continue;
			if (!memo)
				kai_sched_memo_init(&m);
			memo = true;
			kai_sched_memo_store(&m, S, j, &w);
			continue;
		}
		S->r->jobs[j].est_start = t;
		E->left--;
		reserve(E, j, t);
	}
	if (memo)
		kai_sched_memo_fini(&m);
}

/* The next end time after t, or NO_TIME. */
static int64_t
next_time(const struct est *E)
{
	int64_t a = E->at < E->nrun ? E->run[E->at].t : KAI_SCHED_NO_TIME;
	int64_t b = E->rat < E->nres ? E->res[E->rat].t : KAI_SCHED_NO_TIME;

	if (a == KAI_SCHED_NO_TIME)
		return b;
	return b == KAI_SCHED_NO_TIME || a < b ? a : b;
}

void
kai_sched_estimate(struct sess *S)
{
	struct est E;
	int64_t t = S->s->now;

	memset(&E, 0, sizeof(E));
	E.S = S;
	S->bf_on = S->bf != NULL; /* reserved jobs hold their slots */
	candidates(&E);
	if (E.ncand > 0)
		prepare(&E);
	while (E.left > 0 && E.tries < (uint64_t)E.ncand * EST_TRIES_PER_JOB) {
		release_until(&E, t);
		try_all(&E, t);
		if ((t = next_time(&E)) == KAI_SCHED_NO_TIME)
			break;
	}
	free(E.cand);
	free(E.run);
	free(E.res);
	free(E.ending);
	free(E.seen);
	KAI_FREE(S->est_ends);
	KAI_FREE(S->est_rel);
	S->nest_ends = S->capest_ends = S->nest_rel = S->capest_rel = 0;
}
