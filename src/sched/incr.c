/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * incr.c: cycles fed by a kept state (doc/scheduler.md, "Incremental
 * cycles: what is built").
 *
 * A busy cluster's cycle is mostly the same million waiting jobs told
 * the same thing again.  Through a context, and with the caller's job
 * numbers (kai_sched_snapshot.job_gen), a cycle records per closed leaf
 * queue (closed.c) its jobs and what each waiting one was told.  The
 * next cycle leaves such a leaf's waiting jobs out of the snapshot it
 * runs -- all but the first est_jobs in the leaf's order, which the
 * start estimates may take -- and gives them the kept results, when:
 *
 *	- the leaf's jobs are the same, in the same order (their numbers);
 *	- everything but the jobs is the same (incr_world.c), and so are
 *	  the jobs that hold anything (their numbers, in order): then the
 *	  capacity, the queues' allocations and the order inside the leaf
 *	  are those the kept reasons were given against;
 *	- and, checked as the cycle runs, no phase would take a left-out
 *	  job: the leaf is closed again, reclaim finds none within its
 *	  queue's fair share (which moves with every queue's usage),
 *	  preempt no lower-priority victim for any, consolidation no idle
 *	  GPU enough for any; no job of the leaf is placed, evicted or
 *	  moved; the start estimates do not look for candidates over every
 *	  job.
 *
 * Otherwise the cycle is run again over every job (and records anew:
 * incr_record.c).
 * The left-out jobs' pending requests still count in their queues'
 * requests (the fair shares divide them).  A result is the full
 * cycle's, byte for byte: tests/unit/sched-incr compares them over
 * random worlds and deltas.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/incr.h"

void
kai_sched_inc_leaf_free(struct inc_leaf *L)
{
	free(L->gen);
	free(L->tag);
	free(L->wix);
	free(L->whys);
	free(L->off);
	free(L->guser);
	free(L->gheld);
	free(L->gtie);
	free(L->mix);
	memset(L, 0, sizeof(*L));
}

static void
records_free(struct inc_leaf *v, uint32_t nq)
{
	uint32_t q;

	for (q = 0; v != NULL && q < nq; q++)
		kai_sched_inc_leaf_free(&v[q]);
	free(v);
}

/* Forgets every record (the next cycle runs over every job). */
static void
drop(struct kai_sched_inc *k)
{
	records_free(k->leaf, k->nq);
	k->leaf = NULL;
	k->nq = 0;
	KAI_FREE(k->hold);
	k->nhold = 0;
	k->have = false;
}

void
kai_sched_inc_free(struct kai_sched_inc *k)
{
	if (k == NULL)
		return;
	drop(k);
	free(k->world.p);
	free(k->fs);
	free(k);
}

size_t
kai_sched_inc_left_out(const struct kai_sched_inc *k)
{
	return k != NULL ? k->left_out : 0;
}

/* Whether job j of s has a task that is not pending (or no task). */
static bool
job_holds(const struct kai_sched_snapshot *s, size_t j)
{
	const struct kai_sched_snap_job *J = &s->jobs[j];
	size_t t;

	if (J->ntasks == 0)
		return true;
	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (s->tasks[t].state != KAI_SCHED_TASK_PENDING)
			return true;
	return false;
}

/*
 * What the records do not cover, and the cycle then runs over every
 * job: no allocate phase first (the later phases would take every
 * job), backfill reservations that may be made (closed leaves stay in
 * the order until they are handed out, allocate.c;
 * kai_sched_bf_none() tells when none can be), subgroup
 * trees (kept beside the jobs by job index, which the reduced snapshot
 * renumbers).  The frag placement learns its mix of requests from
 * every task, the left-out jobs' too: the records carry their share of
 * it (kai_sched_inc_mix()).  GPU types are covered: a job that names
 * one is never left out (incr_record.c), and the figures per type
 * (gputype.c) count only what jobs hold and what pending jobs that
 * name the type ask, so a left-out job is in none of them; the types'
 * names are the nodes', the queues' and the snapshot's gpu_types, all
 * in the world bytes.
 */
static bool
eligible(const struct kai_sched_snapshot *s)
{
	return s->config.nphases > 0 &&
	    s->config.phases[0] == KAI_SCHED_ALLOCATE &&
	    s->config.bf_reservations == 0 && s->ntrees == 0;
}

/* --- during the cycle ------------------------------------------------ */

void
kai_sched_inc_extra(const struct sess *S, uint32_t q, int64_t v[NRES])
{
	const struct kai_sched_inc_run *run = S->inc;

	memset(v, 0, NRES * sizeof(*v));
	if (run->dormant != NULL && run->dormant[q])
		memcpy(v, run->k->leaf[q].extra, NRES * sizeof(*v));
}

void
kai_sched_inc_head(struct sess *S, uint32_t j)
{
	struct kai_sched_inc_run *run = S->inc;
	uint32_t q = S->jobs[j].queue;

	run->seq[run->nseq++] = j;
	run->ahead[j] = S->blocked[q];
	if (run->gheld == NULL) {
		run->gheld = kai_xcalloc(S->ng + 1, sizeof(*run->gheld));
		run->gseen = kai_xcalloc(S->ng + 1, 1);
	}
	if (!run->gseen[S->jobs[j].group]) {
		/* Nothing of a closed leaf is placed: its groups' GPUs are
		 * those at the phase's start, for all of its order. */
		run->gseen[S->jobs[j].group] = 1;
		run->gheld[S->jobs[j].group] =
		    kai_sched_group_held(S, S->jobs[j].group);
	}
	if (S->jobs[j].nactive > 0 || S->jobs[j].nplaced > 0)
		return;
	if (run->nhead[q] < S->cf->est_jobs) {
		run->head[j] = 1;
		run->nhead[q]++;
	}
}

void
kai_sched_inc_shares(struct sess *S)
{
	struct kai_sched_inc_run *run = S->inc;
	struct kai_sched_inc *k = run->k;
	uint32_t q;
	bool same = k->fs != NULL && k->nfs == S->nq;

	for (q = 0; same && q < S->nq; q++)
		same = memcmp(&k->fs[(size_t)q * NRES], S->q[q].fs,
			   sizeof(S->q[q].fs)) == 0;
	run->fs_gen = same ? k->fs_gen : k->fs_gen + 1;
	if (same)
		return;
	run->fs = kai_xcalloc((size_t)S->nq * NRES + 1, sizeof(*run->fs));
	for (q = 0; q < S->nq; q++)
		memcpy(&run->fs[(size_t)q * NRES], S->q[q].fs,
		    sizeof(S->q[q].fs));
}

/* A cycle's result stands: its fair shares are the ones to compare. */
static void
shares_commit(struct kai_sched_inc *k, struct kai_sched_inc_run *run,
    uint32_t nq)
{
	if (run->fs == NULL)
		return;
	free(k->fs);
	k->fs = run->fs;
	k->nfs = nq;
	k->fs_gen = run->fs_gen;
	run->fs = NULL;
}

const struct kai_sched_mix_row *
kai_sched_inc_mix(const struct sess *S, uint32_t q, uint32_t *n)
{
	const struct kai_sched_inc_run *run = S->inc;

	*n = 0;
	if (run->dormant == NULL || !run->dormant[q])
		return NULL;
	*n = run->k->leaf[q].nmix;
	return run->k->leaf[q].mix;
}

uint32_t
kai_sched_inc_ahead(const struct sess *S, uint32_t j)
{
	return S->inc->off != NULL ? S->inc->off[j] : 0;
}

void
kai_sched_inc_all_jobs(struct sess *S)
{
	if (S->inc->dormant != NULL)
		S->inc->abort = true;
}

/*
 * Whether the left-out jobs of every queue's min runtime for phase a
 * is 0 (the victims then do not depend on `now`).
 */
bool
kai_sched_inc_no_min_runtime(const struct sess *S, enum kai_sched_action a)
{
	uint32_t q;

	for (q = 0; q < S->nq; q++)
		if ((a == KAI_SCHED_RECLAIM ? S->q[q].rmin : S->q[q].pmin) > 0)
			return false;
	return true;
}

/*
 * Phase a may take left-out jobs of a quiet record: they failed it
 * against the state it starts from now, if this cycle changes nothing
 * either (then every try of the phase fails, and a failed try leaves a
 * reason as it was); reclaim's tries read the fair shares too, and
 * reclaim's and preempt's the clock through the min runtimes.  The
 * cycle is then marked to be checked at its end.
 */
static bool
relies(struct sess *S, const struct inc_leaf *L, enum kai_sched_action a)
{
	if (!L->quiet)
		return false;
	if (a == KAI_SCHED_RECLAIM &&
	    (L->fs_gen != S->inc->fs_gen || !kai_sched_inc_no_min_runtime(S, a)))
		return false;
	if (a == KAI_SCHED_PREEMPT && !kai_sched_inc_no_min_runtime(S, a))
		return false;
	S->inc->need_quiet = true;
	return true;
}

/* Whether phase a would take a left-out job of leaf q (see above). */
static bool
takes(struct sess *S, const struct inc_leaf *L, uint32_t q,
    enum kai_sched_action a)
{
	switch (a) {
	case KAI_SCHED_ALLOCATE:
		/* A leaf whose jobs are all left out has none to close. */
		return !S->closed[q] && (S->closed_rel || S->inc->wanted[q]);
	case KAI_SCHED_RECLAIM:
		return L->wants &&
		    kai_sched_within_fair_share(S, q, L->minreq) &&
		    !relies(S, L, KAI_SCHED_RECLAIM);
	case KAI_SCHED_PREEMPT:
		return L->wants && S->vstart[q] < S->vstart[q + 1] &&
		    S->s->jobs[S->vjobs[S->vstart[q]]].priority < L->maxprio &&
		    !relies(S, L, KAI_SCHED_PREEMPT);
	case KAI_SCHED_CONSOLIDATE:
		/* A quiet record's jobs failed consolidation against the
		 * state this phase starts from if this cycle, too, changes
		 * nothing (kai_sched_inc_capture() checks). */
		return L->mingpu <= S->idle_ugpu &&
		    !relies(S, L, KAI_SCHED_CONSOLIDATE);
	case KAI_SCHED_STALEGANG:
	case KAI_SCHED_NACTIONS:
		break;
	}
	return false;
}

void
kai_sched_inc_phase(struct sess *S, enum kai_sched_action a)
{
	struct kai_sched_inc_run *run = S->inc;
	uint32_t q, j;

	if (run->dormant == NULL)
		return;
	if (a == KAI_SCHED_ALLOCATE) {
		memset(run->wanted, 0, S->nq);
		for (j = 0; j < S->s->njobs; j++)
			if (S->jobs[j].npending > 0 && !S->jobs[j].static_fail)
				run->wanted[S->jobs[j].queue] = 1;
	}
	for (q = 0; q < S->nq && !run->abort; q++)
		if (run->dormant[q] && takes(S, &run->k->leaf[q], q, a))
			run->abort = true;
}

/* --- the cycle --------------------------------------------------------- */

static void
run_free(struct kai_sched_inc_run *run, uint32_t nq)
{
	free(run->head);
	free(run->nhead);
	free(run->seq);
	free(run->ahead);
	free(run->wanted);
	free(run->gheld);
	free(run->gseen);
	free(run->fs);
	free(run->hold);
	records_free(run->fresh, nq);
	memset(run, 0, sizeof(*run));
}

/* A cycle over every job, recording anew. */
static int
full(struct kai_sched_ctx *c, struct kai_sched_inc *k,
    const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct inc_bytes *world, struct kai_err *err)
{
	struct kai_sched_inc_run run;
	uint32_t nq = (uint32_t)s->nqueues;
	int rc;

	memset(&run, 0, sizeof(run));
	run.k = k;
	run.gen = s->job_gen;
	run.head = kai_xcalloc(s->njobs + 1, 1);
	run.nhead = kai_xcalloc(nq + 1, sizeof(*run.nhead));
	run.seq = kai_xcalloc(s->njobs + 1, sizeof(*run.seq));
	run.ahead = kai_xcalloc(s->njobs + 1, sizeof(*run.ahead));
	drop(k);
	rc = kai_sched_cycle_run(c, c, s, r, &run, err);
	if (rc == 0 && run.captured) {
		struct inc_bytes t = k->world;

		k->world = *world; /* the new one is kept, the old reused */
		*world = t;
		k->leaf = run.fresh;
		run.fresh = NULL;
		k->nq = nq;
		k->hold = run.hold;
		k->nhold = run.nhold;
		run.hold = NULL;
		k->have = true;
		shares_commit(k, &run, nq);
	}
	run_free(&run, nq);
	return rc;
}

/*
 * Whether leaf L's groups still come in the order they were recorded in
 * (incr.h): the order reads their usage only by `<` and `!=`, so equal
 * comparisons of each two neighbours in the recorded order mean the
 * same order throughout (a total preorder is fixed by its neighbours),
 * and the same ties.  The other keys of a group (its head's priority
 * and age, its account's GPUs) are fixed by the leaf's jobs and the
 * holding jobs, which match() compares.
 */
static bool
users_in_order(const struct inc_leaf *L, const struct kai_sched_snapshot *s)
{
	double prev = 0, cur;
	uint32_t i;

	for (i = 0; i < L->ngrp; i++) {
		if (L->guser[i] >= (int32_t)s->nusers)
			return false;
		cur = kai_sched_usage_key(s, L->guser[i], L->gheld[i]);
		if (i > 0 && (L->gtie[i] ? !(cur == prev) : !(prev < cur)))
			return false;
		prev = cur;
	}
	return true;
}

/* at[j]: the job may be left out (TAG_OUT in its leaf's record); a
 * place in a record is below KAI_SCHED_MAX_JOBS, 2^30. */
#define AT_OUT (UINT64_C(1) << 31)

/*
 * The leaves kept: ok[q] when leaf q's record holds for s; at[j] is job
 * j's leaf (high half), AT_OUT, and its place in the leaf's record, so
 * that the walks below read neither a job's entry nor its leaf's record
 * unless it is kept in.
 */
static bool
match(const struct kai_sched_inc *k, const struct kai_sched_snapshot *s,
    uint8_t *ok, uint64_t *at)
{
	uint32_t *pos = kai_xcalloc(k->nq + 1, sizeof(*pos)), q;
	size_t j, nh = 0;
	bool same = true, any = false;

	for (q = 0; q < k->nq; q++)
		ok[q] = k->leaf[q].n > 0;
	for (j = 0; j < s->njobs && same; j++) {
		const struct inc_leaf *L;
		bool holds;

		q = s->jobs[j].queue;
		if (q >= k->nq) { /* the full cycle will say so */
			same = false;
			break;
		}
		L = &k->leaf[q];
		at[j] = (uint64_t)q << 32 | pos[q];
		if (ok[q] && pos[q] < L->n && L->gen[pos[q]] == s->job_gen[j]) {
			uint8_t tag = L->tag[pos[q]++];

			holds = (tag & TAG_HOLD) != 0;
			if (tag & TAG_OUT)
				at[j] |= AT_OUT;
		} else {
			ok[q] = 0;
			holds = job_holds(s, j);
		}
		if (holds)
			same = nh < k->nhold && k->hold[nh++] == s->job_gen[j];
	}
	same = same && nh == k->nhold;
	for (q = 0; q < k->nq; q++) {
		ok[q] = ok[q] && pos[q] == k->leaf[q].n &&
		    users_in_order(&k->leaf[q], s);
		any |= ok[q];
	}
	free(pos);
	return same && any;
}

/* Whether job j (at[j]) is left out; *i its place in its leaf's record. */
static bool
left_out(const uint8_t *ok, uint64_t at, uint32_t *q, uint32_t *i)
{
	*q = (uint32_t)(at >> 32);
	*i = (uint32_t)(at & (AT_OUT - 1));
	return (at & AT_OUT) && ok[*q];
}

/* The jobs of s a cycle with the kept leaves ok[] runs over. */
struct reduced {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_job *jobs;
	struct kai_sched_snap_task *tasks;
	uint32_t *orig; /* per job: its index in the caller's snapshot */
	uint64_t *gen;
	uint32_t *off;  /* per job: inc_leaf.off */
	size_t out;     /* jobs left out */
};

static void
reduce(const struct kai_sched_inc *k, const struct kai_sched_snapshot *s,
    const uint8_t *ok, const uint64_t *at, struct reduced *d)
{
	size_t j, nj = 0, nt = 0, t;
	uint32_t q, i;

	memset(d, 0, sizeof(*d));
	nj = s->njobs;
	nt = s->ntasks;
	for (q = 0; q < k->nq; q++)
		if (ok[q]) {
			nj -= k->leaf[q].nout;
			nt -= k->leaf[q].nout_tasks;
		}
	d->jobs = kai_xcalloc(nj + 1, sizeof(*d->jobs));
	d->tasks = kai_xcalloc(nt + 1, sizeof(*d->tasks));
	d->orig = kai_xcalloc(nj + 1, sizeof(*d->orig));
	d->gen = kai_xcalloc(nj + 1, sizeof(*d->gen));
	d->off = kai_xcalloc(nj + 1, sizeof(*d->off));
	nj = nt = 0;
	for (j = 0; j < s->njobs; j++) {
		const struct kai_sched_snap_job *J;

		if (left_out(ok, at[j], &q, &i)) {
			d->out++;
			continue;
		}
		J = &s->jobs[j];
		if (ok[q])
			d->off[nj] = k->leaf[q].off[i];
		d->jobs[nj] = *J;
		d->jobs[nj].first_task = nt;
		for (t = 0; t < J->ntasks; t++)
			d->tasks[nt++] = s->tasks[J->first_task + t];
		d->orig[nj] = (uint32_t)j;
		d->gen[nj++] = s->job_gen[j];
	}
	d->s = *s;
	d->s.jobs = d->jobs;
	d->s.njobs = nj;
	d->s.tasks = d->tasks;
	d->s.ntasks = nt;
	d->s.job_gen = NULL;
}

static void
reduced_free(struct reduced *d)
{
	free(d->jobs);
	free(d->tasks);
	free(d->orig);
	free(d->gen);
	free(d->off);
}

/* A left-out job's results; static, so their padding is zero. */
static const struct kai_sched_task_out pending_task = {.node = -1};
static const struct kai_sched_job_out pending_job = {
    .state = KAI_SCHED_JOB_PENDING, .est_start = KAI_SCHED_NO_TIME};

/*
 * The caller's result from the reduced one and the kept reasons.  Every
 * task is first pending on no node, as a left-out job's are; the kept-in
 * jobs' tasks are then copied over theirs.
 */
static void
merge(struct kai_sched_ctx *c, const struct kai_sched_inc *k,
    const struct kai_sched_snapshot *s, const uint8_t *ok,
    const uint64_t *at, const struct reduced *d,
    struct kai_sched_result *rr, struct kai_sched_result *r)
{
	size_t j, t, jr = 0;
	uint32_t q, i;

	memset(r, 0, sizeof(*r));
	r->ctx = c;
	r->ntasks = s->ntasks;
	r->njobs = s->njobs;
	r->nqueues = rr->nqueues;
	/* Every entry is written whole, from entries whose padding is
	 * zero (static, or the reduced result's calloc'd ones). */
	r->tasks = kai_sched_alloc_dirty(c, s->ntasks, sizeof(*r->tasks));
	r->jobs = kai_sched_alloc_dirty(c, s->njobs, sizeof(*r->jobs));
	r->queues = rr->queues;
	r->types = rr->types;
	r->ntypes = rr->ntypes;
	r->qtypes = rr->qtypes;
	rr->queues = NULL;
	rr->types = NULL;
	rr->qtypes = NULL;
	r->placed = rr->placed;
	r->evicted = rr->evicted;
	r->moved = rr->moved;
	for (t = 0; t < s->ntasks; t++)
		memcpy(&r->tasks[t], &pending_task, sizeof(pending_task));
	for (j = 0; j < s->njobs; j++) {
		const struct kai_sched_snap_job *J;
		struct kai_sched_job_out *o = &r->jobs[j];

		if (left_out(ok, at[j], &q, &i)) {
			/* The leaves' records are read in turn, a leaf's
			 * next reason many jobs later: fetch it now (a
			 * fifth of the merge at a million jobs). */
			if (i + 2 < k->leaf[q].n)
				__builtin_prefetch(&k->leaf[q].wix[i + 2]);
			memcpy(o, &pending_job, sizeof(pending_job));
			o->why = k->leaf[q].whys[k->leaf[q].wix[i]];
			continue;
		}
		J = &s->jobs[j];
		memcpy(o, &rr->jobs[jr], sizeof(*o));
		if (o->why.job >= 0)
			o->why.job = (int32_t)d->orig[o->why.job];
		memcpy(&r->tasks[J->first_task],
		    &rr->tasks[d->jobs[jr].first_task],
		    J->ntasks * sizeof(*r->tasks));
		jr++;
	}
}

/*
 * A cycle with the kept leaves ok[]: 0 or an error as a cycle gives,
 * or 1 when it must be run over every job instead.
 */
static int
reduced(struct kai_sched_ctx *c, struct kai_sched_inc *k,
    const struct kai_sched_snapshot *s, const uint8_t *ok,
    const uint64_t *at, struct kai_sched_result *r, struct kai_err *err)
{
	struct kai_sched_inc_run run;
	struct kai_sched_result rr;
	struct reduced d;
	uint32_t q;
	int rc;

	reduce(k, s, ok, at, &d);
	memset(&run, 0, sizeof(run));
	run.k = k;
	run.gen = d.gen;
	run.dormant = ok;
	run.head = kai_xcalloc(d.s.njobs + 1, 1);
	run.nhead = kai_xcalloc(k->nq + 1, sizeof(*run.nhead));
	run.seq = kai_xcalloc(d.s.njobs + 1, sizeof(*run.seq));
	run.ahead = kai_xcalloc(d.s.njobs + 1, sizeof(*run.ahead));
	run.off = d.off;
	run.wanted = kai_xcalloc(k->nq + 1, 1);
	/* An error is the full cycle's to give, with the caller's jobs
	 * (a failed cycle has already released rr). */
	if (kai_sched_cycle_run(c, c, &d.s, &rr, &run, err) != 0) {
		rc = 1;
	} else if (run.abort || !run.captured) {
		kai_sched_result_fini(&rr);
		rc = 1;
	} else {
		merge(c, k, s, ok, at, &d, &rr, r);
		kai_sched_result_fini(&rr);
		for (q = 0; q < k->nq; q++) {
			if (ok[q])
				continue;
			kai_sched_inc_leaf_free(&k->leaf[q]);
			k->leaf[q] = run.fresh[q];
			memset(&run.fresh[q], 0, sizeof(run.fresh[q]));
		}
		k->left_out = d.out;
		shares_commit(k, &run, k->nq);
		rc = 0;
	}
	run_free(&run, k->nq);
	reduced_free(&d);
	return rc;
}

int
kai_sched_inc_cycle(struct kai_sched_ctx *c, const struct kai_sched_snapshot *s,
    struct kai_sched_result *r, struct kai_err *err)
{
	struct kai_sched_inc **kp = kai_sched_ctx_inc(c), *k;
	struct inc_bytes world = {NULL, 0, 0};
	struct kai_sched_snapshot s0;
	uint8_t *ok;
	int rc = 1;

	if (*kp == NULL)
		*kp = kai_xcalloc(1, sizeof(**kp));
	k = *kp;
	k->left_out = 0;
	if (s->config.bf_reservations > 0 && kai_sched_bf_none(s)) {
		/* No reservation can be made: the cycle is the one with
		 * reservations off (backfill.c), which records serve. */
		s0 = *s;
		s0.config.bf_reservations = 0;
		s = &s0;
	}
	if (!eligible(s)) {
		drop(k);
		return kai_sched_cycle_run(c, c, s, r, NULL, err);
	}
	kai_sched_inc_world(&world, s);
	if (k->have && k->nq == s->nqueues && world.n == k->world.n &&
	    memcmp(world.p, k->world.p, world.n) == 0) {
		uint64_t *at = kai_sched_calloc(c, s->njobs + 1, sizeof(*at));

		ok = kai_xcalloc(k->nq + 1, 1);
		if (match(k, s, ok, at))
			rc = reduced(c, k, s, ok, at, r, err);
		free(ok);
		kai_sched_free(c, at);
	}
	if (rc == 1)
		rc = full(c, k, s, r, &world, err);
	free(world.p);
	return rc;
}
