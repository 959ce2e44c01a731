/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * incr_record.c: what a cycle leaves for the next one (incr.c): per
 * closed leaf its jobs' numbers, which waiting jobs may be left out
 * with the reason they were given, the count of left-out waiting jobs
 * ahead of each job kept in, and what the phases would need to know of
 * the left-out ones (doc/scheduler.md, "Incremental cycles: what is
 * built").  Read from the session and the result at the cycle's end,
 * before the session is closed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/incr.h"

/* Whether the session's job j holds anything (incr.c's job_holds()),
 * from what the session counted. */
static bool
sess_holds(const struct sess *S, uint32_t j)
{
	return S->jobs[j].holds || S->s->jobs[j].ntasks == 0;
}

static void
leaf_alloc(struct inc_leaf *L, uint32_t n)
{
	int r;

	L->gen = kai_xcalloc(n, sizeof(*L->gen));
	L->tag = kai_xcalloc(n, sizeof(*L->tag));
	L->wix = kai_xcalloc(n, sizeof(*L->wix));
	L->off = kai_xcalloc(n, sizeof(*L->off));
	for (r = 0; r < NRES; r++)
		L->minreq[r] = INT64_MAX;
	L->maxprio = INT64_MIN;
	L->mingpu = INT64_MAX;
}

/*
 * The pending requests of the jobs of the leaf kept in (pending tasks,
 * not held jobs: what sess_jobs.c sums into a queue's request), into
 * v; what the left-out ones ask is then the leaf's request at the start
 * less its allocation (at the end of the phases, the same: nothing of
 * the leaf moved; the session's is the start estimates' by now) less v,
 * without a pass over their million tasks.
 */
static void
kept_in_request(const struct sess *S, uint32_t j, int64_t v[NRES])
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	int64_t w[NRES];
	size_t t;
	int r;

	if (J->held)
		return;
	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		if (S->s->tasks[t].state != KAI_SCHED_TASK_PENDING)
			continue;
		kai_sched_task_req(S, (uint32_t)t, w);
		for (r = 0; r < NRES; r++)
			v[r] += w[r];
	}
}

/* Job j (session index) is left out next time: what the phases need. */
static void
note_out(const struct sess *S, struct inc_leaf *L, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct sjob *sj = &S->jobs[j];
	int64_t v[NRES];
	int r;

	if (sj->npending == 0 || sj->static_fail)
		return;
	kai_sched_step_req(S, j, v);
	L->wants = true;
	for (r = 0; r < NRES; r++)
		if (v[r] < L->minreq[r])
			L->minreq[r] = v[r];
	if (J->priority > L->maxprio)
		L->maxprio = J->priority;
	if (J->preemptible && v[R_GPU] > 0 && v[R_GPU] < L->mingpu)
		L->mingpu = v[R_GPU];
}

/* Job j's tasks, left out, into leaf L's share of frag's mix. */
static void
note_mix(const struct sess *S, struct inc_leaf *L, uint32_t j, uint32_t *cap)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t t, i, gpus;
	int32_t ugpu;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		const struct kai_sched_snap_task *in = &S->s->tasks[t];
		struct kai_sched_mix_row *m;

		if (!kai_sched_frag_class(S, t, &gpus, &ugpu))
			continue;
		for (i = 0; i < L->nmix; i++)
			if (L->mix[i].gpus == gpus && L->mix[i].ugpu == ugpu)
				break;
		if (i == L->nmix) {
			if (L->nmix == *cap) {
				*cap = *cap ? 2 * *cap : 16;
				L->mix = kai_xreallocarray(L->mix, *cap,
				    sizeof(*L->mix));
			}
			memset(&L->mix[L->nmix++], 0, sizeof(*L->mix));
			L->mix[i].gpus = gpus;
			L->mix[i].ugpu = ugpu;
		}
		m = &L->mix[i];
		m->count++;
		m->cpusum += in->cpu_millis;
		m->memsum += in->memory_mib;
	}
}

static bool
has_phase(const struct sess *S, enum kai_sched_action a)
{
	size_t i;

	for (i = 0; i < S->cf->nphases && i < KAI_SCHED_MAX_PHASES; i++)
		if (S->cf->phases[i] == a)
			return true;
	return false;
}

/* The least priority of leaf q's victims as preempt last saw them. */
static int64_t
victim_prio(const struct sess *S, uint32_t q)
{
	if (!has_phase(S, KAI_SCHED_PREEMPT) || S->vstart == NULL ||
	    S->vstart[q] == S->vstart[q + 1])
		return INT64_MAX;
	return S->s->jobs[S->vjobs[S->vstart[q]]].priority;
}

/*
 * Whether reclaim or consolidation would likely take job j next cycle
 * (its checks would then rerun that cycle over every job): by the state
 * this cycle ended in, which is the next one's when nothing changes.
 */
static bool
likely_taken(const struct sess *S, uint32_t j, bool quiet)
{
	int64_t req[NRES];

	if (S->jobs[j].npending == 0 || S->jobs[j].static_fail)
		return false;
	kai_sched_step_req(S, j, req);
	if (has_phase(S, KAI_SCHED_RECLAIM) &&
	    !(quiet && kai_sched_inc_no_min_runtime(S, KAI_SCHED_RECLAIM)) &&
	    kai_sched_within_fair_share(S, S->jobs[j].queue, req))
		return true;
	return !quiet && has_phase(S, KAI_SCHED_CONSOLIDATE) &&
	    S->cf->placement != KAI_SCHED_SPREAD &&
	    S->s->jobs[j].preemptible && req[R_GPU] > 0 &&
	    req[R_GPU] <= S->idle_ugpu;
}

/*
 * Whether job j, pending, may be left out with what it was told.  One
 * above prio, the least priority of its leaf's victims, would be taken
 * by preempt: such jobs come first in the leaf's order (the order's
 * first key is the priority), so those kept in are still a prefix.
 */
static bool
may_leave_out(const struct sess *S, uint32_t j, int64_t prio, bool quiet)
{
	const struct kai_sched_job_out *o = &S->r->jobs[j];

	if (o->state != KAI_SCHED_JOB_PENDING || o->placed_tasks > 0 ||
	    o->est_start != KAI_SCHED_NO_TIME || o->why.job >= 0 ||
	    S->inc->head[j] ||
	    (S->s->jobs[j].priority > prio &&
		!(quiet && kai_sched_inc_no_min_runtime(S, KAI_SCHED_PREEMPT))) ||
	    S->s->jobs[j].gpu_type != 0)
		return false;
	return !likely_taken(S, j, quiet);
}


/*
 * Whether the cycle placed, evicted or moved any of job j's tasks, by
 * its result and the mark cycle.c set as the phases left it (the
 * session's counts are the start estimates' by now: they replay
 * placements; the result's tasks are written after the capture).
 */
static bool
touched(const struct sess *S, uint32_t j)
{
	return S->r->jobs[j].placed_tasks > 0 || S->jobs[j].touched;
}

static void
hold_push(struct kai_sched_inc_run *run, uint64_t gen)
{
	if (run->nhold == run->caphold) {
		run->caphold = run->caphold ? 2 * run->caphold : 1024;
		run->hold = kai_xreallocarray(run->hold, run->caphold,
		    sizeof(*run->hold));
	}
	run->hold[run->nhold++] = gen;
}

/*
 * The left-out jobs that wait, ahead of each job kept in, in its leaf's
 * order (the allocate phase took them in seq[], a leaf at a time): a
 * kept job's "N jobs ahead" next time is what that cycle counts plus
 * these.  A job waited when the leaf's count grew before the next one.
 */
static void
offsets(const struct sess *S, struct kai_sched_inc_run *run, const uint32_t *n)
{
	uint32_t *pos = kai_xcalloc(S->s->njobs + 1, sizeof(*pos));
	uint32_t *left = kai_xcalloc(S->nq + 1, sizeof(*left));
	uint32_t *last = kai_xcalloc(S->nq + 1, sizeof(*last));
	uint32_t i, j, q, prev;

	/* Each job's place in its leaf's record (snapshot order). */
	for (j = 0; j < S->s->njobs; j++) {
		q = S->jobs[j].queue;
		if (n[q] > 0)
			pos[j] = last[q]++;
	}
	for (q = 0; q <= S->nq; q++)
		last[q] = UINT32_MAX;
	for (i = 0; i < run->nseq; i++) {
		struct inc_leaf *L;

		j = run->seq[i];
		q = S->jobs[j].queue;
		if (n[q] == 0)
			continue;
		L = &run->fresh[q];
		if ((prev = last[q]) != UINT32_MAX &&
		    (L->tag[pos[prev]] & TAG_OUT) &&
		    run->ahead[j] > run->ahead[prev])
			left[q]++;
		if (!(L->tag[pos[j]] & TAG_OUT))
			L->off[pos[j]] = left[q];
		last[q] = j;
	}
	free(pos);
	free(left);
	free(last);
}

struct grp {
	double key, held;
	int32_t user;
	uint32_t leaf;
};

static int
grp_cmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/*
 * The order of each recorded leaf's groups by the usage the order read
 * (incr.h), for the next cycle to compare with its users' usage: decay
 * moves every user's usage at every tick, mostly without changing who
 * comes first.
 */
static void
user_orders(const struct sess *S, struct kai_sched_inc_run *run,
    const uint32_t *n)
{
	struct grp *v = kai_xcalloc(S->ng + 1, sizeof(*v));
	uint32_t g, nv = 0, i;

	for (g = 0; run->gseen != NULL && g < S->ng; g++) {
		uint32_t q = S->groups[g].leaf;

		if (!run->gseen[g] || n[q] == 0 || run->fresh[q].n == 0)
			continue;
		v[nv].held = run->gheld[g];
		v[nv].user = S->groups[g].user;
		v[nv].key = kai_sched_usage_key(S->s, v[nv].user, v[nv].held);
		v[nv++].leaf = q;
		run->fresh[q].ngrp++;
	}
	qsort(v, nv, sizeof(*v), grp_cmp);
	for (i = 0; i < nv; i++) {
		struct inc_leaf *L = &run->fresh[v[i].leaf];
		uint32_t at;

		if (L->guser == NULL) {
			L->guser = kai_xcalloc(L->ngrp, sizeof(*L->guser));
			L->gheld = kai_xcalloc(L->ngrp, sizeof(*L->gheld));
			L->gtie = kai_xcalloc(L->ngrp, 1);
			L->ngrp = 0;
		}
		at = L->ngrp++;
		L->guser[at] = v[i].user;
		L->gheld[at] = v[i].held;
		L->gtie[at] = at > 0 && v[i - 1].key == v[i].key;
	}
	free(v);
}

/* A capture's index of the leaves' distinct reasons: (leaf, reason) ->
 * its place in the leaf's whys[]. */
struct why_slot {
	uint64_t h;
	uint32_t q;
	uint32_t ix; /* NONE32: empty */
};

struct why_tab {
	struct why_slot *e;
	size_t cap, used;
};

/* why_hash() reads every field, as kai_sched_why_equal() compares
 * them: a field added to the reason must be added to both, or two
 * reasons would be taken for one. */
_Static_assert(sizeof(struct kai_sched_why_info) == 40,
    "why_hash() hashes every field of a reason");

static uint64_t
why_hash(uint32_t q, const struct kai_sched_why_info *w)
{
	uint64_t h = kai_sched_mix64(((uint64_t)q << 32) | (uint32_t)w->why);

	h = kai_sched_mix64(h ^ (((uint64_t)(uint32_t)w->res << 32) |
				    (uint32_t)w->queue));
	h = kai_sched_mix64(h ^ (uint32_t)w->job);
	h = kai_sched_mix64(h ^ (uint64_t)w->a);
	h = kai_sched_mix64(h ^ (uint64_t)w->b);
	return kai_sched_mix64(h ^ (uint64_t)w->c);
}

static struct why_slot *
why_slot_of(const struct why_tab *t, const struct kai_sched_inc_run *run,
    uint64_t h, uint32_t q, const struct kai_sched_why_info *w)
{
	size_t i;

	for (i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct why_slot *e = &t->e[i];

		if (e->ix == NONE32 ||
		    (e->h == h && e->q == q &&
			kai_sched_why_equal(&run->fresh[q].whys[e->ix], w)))
			return e;
	}
}

static void
why_tab_init(struct why_tab *t, size_t cap)
{
	size_t i;

	t->cap = cap;
	t->used = 0;
	t->e = kai_xcalloc(cap, sizeof(*t->e));
	for (i = 0; i < cap; i++)
		t->e[i].ix = NONE32;
}

/* Leaf q's index of reason w, added to its whys[] when new. */
static uint32_t
why_index(struct why_tab *t, struct kai_sched_inc_run *run, uint32_t q,
    const struct kai_sched_why_info *w)
{
	struct inc_leaf *L = &run->fresh[q];
	uint64_t h = why_hash(q, w);
	struct why_slot *e;

	if (2 * (t->used + 1) > t->cap) {
		struct why_tab old = *t;
		size_t i;

		why_tab_init(t, 2 * old.cap);
		for (i = 0; i < old.cap; i++)
			if (old.e[i].ix != NONE32)
				*why_slot_of(t, run, old.e[i].h, old.e[i].q,
				    &run->fresh[old.e[i].q].whys[old.e[i].ix]) =
				    old.e[i];
		t->used = old.used;
		free(old.e);
	}
	e = why_slot_of(t, run, h, q, w);
	if (e->ix != NONE32)
		return e->ix;
	if (L->nwhys == L->capwhys) {
		L->capwhys = L->capwhys ? 2 * L->capwhys : 8;
		L->whys = kai_xreallocarray(L->whys, L->capwhys,
		    sizeof(*L->whys));
	}
	L->whys[L->nwhys] = *w;
	e->h = h;
	e->q = q;
	e->ix = L->nwhys++;
	t->used++;
	return e->ix;
}

/* Records for the closed leaves not kept this cycle. */
static void
records(struct sess *S, struct kai_sched_inc_run *run)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t *n = kai_xcalloc(S->nq + 1, sizeof(*n)), q, j;
	uint8_t *bad = kai_xcalloc(S->nq + 1, 1);
	int64_t *prio = kai_xcalloc(S->nq + 1, sizeof(*prio));
	bool quiet = S->r->placed == 0 && S->r->evicted == 0 &&
	    S->r->moved == 0;

	for (j = 0; j < s->njobs; j++) {
		q = S->jobs[j].queue;
		if (S->closed[q] && (run->dormant == NULL || !run->dormant[q]))
			n[q]++;
	}
	run->fresh = kai_xcalloc(S->nq, sizeof(*run->fresh));
	for (q = 0; q < S->nq; q++) {
		if (n[q] > 0) {
			leaf_alloc(&run->fresh[q], n[q]);
			run->fresh[q].quiet = quiet;
			run->fresh[q].fs_gen = run->fs_gen;
		}
		prio[q] = victim_prio(S, q);
	}
	uint32_t *mixcap = kai_xcalloc(S->nq + 1, sizeof(*mixcap));
	struct why_tab wt;

	why_tab_init(&wt, 1024);

	for (j = 0; j < s->njobs; j++) {
		const struct sjob *sj = &S->jobs[j];
		struct inc_leaf *L;
		uint32_t i;

		q = sj->queue;
		if (n[q] == 0 || (run->dormant != NULL && run->dormant[q]))
			continue;
		L = &run->fresh[q];
		i = L->n++;
		L->gen[i] = run->gen[j];
		bad[q] |= touched(S, j);
		if (may_leave_out(S, j, prio[q], quiet) && !sess_holds(S, j)) {
			L->tag[i] = TAG_OUT;
			L->wix[i] = why_index(&wt, run, q, &S->r->jobs[j].why);
			L->nout++;
			L->nout_tasks += s->jobs[j].ntasks;
			note_out(S, L, j);
			if (S->frag != NULL)
				note_mix(S, L, j, &mixcap[q]);
			continue;
		}
		L->tag[i] = sess_holds(S, j) ? TAG_HOLD : 0;
		kept_in_request(S, j, L->extra); /* subtracted below */
	}
	for (q = 0; q < S->nq; q++) {
		int r;

		for (r = 0; n[q] > 0 && r < NRES; r++)
			run->fresh[q].extra[r] = S->r->queues[q].requested[r] -
			    S->r->queues[q].allocated[r] -
			    run->fresh[q].extra[r];
	}
	offsets(S, run, n);
	user_orders(S, run, n);
	for (q = 0; q < S->nq; q++)
		if (bad[q] || run->fresh[q].nout == 0)
			kai_sched_inc_leaf_free(&run->fresh[q]);
	free(n);
	free(bad);
	free(prio);
	free(mixcap);
	free(wt.e);
}

void
kai_sched_inc_capture(struct sess *S)
{
	struct kai_sched_inc_run *run = S->inc;
	const struct kai_sched_snapshot *s = S->s;
	uint32_t j;

	/* A kept leaf whose jobs moved: its kept reasons may be stale. */
	for (j = 0; run->dormant != NULL && j < s->njobs; j++)
		if (run->dormant[S->jobs[j].queue] && touched(S, j))
			run->abort = true;
	if (run->need_quiet &&
	    (S->r->placed > 0 || S->r->evicted > 0 || S->r->moved > 0))
		run->abort = true;
	if (run->abort || !S->allocated)
		return;
	for (j = 0; j < s->njobs; j++)
		if (sess_holds(S, j))
			hold_push(run, run->gen[j]);
	records(S, run);
	run->captured = true;
}

