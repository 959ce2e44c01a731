/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-closed: closed leaf queues (closed.c) over random busy worlds
 * and random arrivals (users, accounts, GPU types, exclusive jobs).
 *
 *  1. The verdict is never wrong: no job of a closed leaf can have its
 *     next step placed on the session as the cycle opened it (tried
 *     with the placement code itself, each try rolled back).
 *  2. A closed leaf takes no part: when its jobs come in another
 *     order (another job at its head, whose request today's rules 5 and
 *     6 would weigh), the allocate phase decides every other job
 *     exactly as before (state, tasks' nodes and devices, reason and
 *     start estimate) -- what lets a later cycle leave such a leaf
 *     alone.
 *  3. The closed leaves' own jobs are placed by no cycle, and wait.
 *  4. With backfill reservations (most jobs have a time limit) the
 *     closed leaves stay in the allocation order until no more
 *     reservations can be handed out: every job reserved, where and
 *     from when, is the one of the phase in which no leaf is closed
 *     (doc/scheduler.md, "Closed leaves with reservations"), and the
 *     closed leaves' own jobs are not placed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"
#include "rnd.h"
#include "tap.h"

/* The GPU types jobs may ask for (kai_sched_snap_job.gpu_type). */
static const char *const job_types[] = {"A", "B"};

#define NN 48
#define NJ 420 /* jobs, one task each but for gangs */
#define NT 1000
#define NQ 7   /* two departments of three leaves */

struct world {
	struct kai_sched_snap_node nodes[NN];
	char names[NN][16];
	struct kai_sched_snap_queue qs[NQ];
	struct kai_sched_snap_user users[4];
	struct kai_sched_snap_account accts[2];
	struct kai_sched_snap_job jobs[NJ];
	struct kai_sched_snap_task tasks[NT];
	char jnames[NJ][16];
	struct kai_sched_snapshot s;
};

static const char *const QNAMES[NQ] = {"d1", "d2", "a", "b", "c", "x", "y"};

static void
add_task(struct world *w, uint32_t big)
{
	struct kai_sched_snap_task *t = &w->tasks[w->s.ntasks++];
	uint32_t kind = rnd(5);

	kai_sched_task_init(t);
	t->cpu_millis = INT64_C(500) * rnd(8);
	if (big) {
		t->gpus = 3 + rnd(4);
		return;
	}
	if (kind <= 1)
		t->gpus = 1 + rnd(3);
	else if (kind == 2)
		t->gpu_fraction = INT64_C(100000) * (1 + rnd(9));
	else if (kind == 3)
		t->gpu_memory_mib = INT64_C(2048) * (1 + rnd(10));
	/* Now and then a share over 2 or 3 devices. */
	if ((kind == 2 || kind == 3) && rnd(4) == 0)
		t->gpu_devices = 2 + rnd(2);
}

/* A job of 1 task, or a gang of 2-4; big: of 4-8 GPUs a task. */
static void
add_job(struct world *w, uint32_t leaf, uint32_t big)
{
	size_t i = w->s.njobs++;
	struct kai_sched_snap_job *J = &w->jobs[i];
	uint32_t n = big ? 3 + rnd(2) : rnd(6) == 0 ? 2 + rnd(3) : 1, k;

	kai_sched_job_init(J);
	(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%zu", i);
	J->name = w->jnames[i];
	J->queue = leaf;
	J->user = (int32_t)rnd(5) - 1; /* -1: none */
	J->priority = 50 + rnd(3);
	J->preemptible = rnd(3) != 0;
	J->created = (int64_t)i;
	J->time_limit_s = rnd(4) == 0 ? -1 : INT64_C(600) * (1 + rnd(10));
	/* The rules that narrow a job's nodes, on arrivals (the first
	 * wave must fill the cluster): a closed verdict must stay right
	 * under them (it reads the idle capacity only). */
	J->account = (int32_t)rnd(3) - 1; /* -1: none */
	if (i >= NJ * 2 / 3) {
		J->exclusive = rnd(8) == 0;
		J->gpu_type = rnd(4) == 0 ? (rnd(2) ? 1 : 2) : 0; /* A, B */
	}
	J->first_task = w->s.ntasks;
	J->ntasks = n;
	J->min_tasks = n > 1 && rnd(2) ? 1 : 0;
	for (k = 0; k < n; k++)
		add_task(w, big);
}

static void
world_init(struct world *w, uint32_t seed)
{
	uint32_t i;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	w->s.config.placement = seed % 3 == 1 ? KAI_SCHED_SPREAD
	    : seed % 3 == 2		      ? KAI_SCHED_FRAG
					      : KAI_SCHED_BINPACK;
	for (i = 0; i < NN; i++) {
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02u",
		    (i * 29) % NN);
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 2 + rnd(7);
		w->nodes[i].gpu_memory_mib = INT64_C(16384) * (1 + rnd(2));
		w->nodes[i].cpu_millis = 16000 + INT64_C(1000) * rnd(24);
		w->nodes[i].memory_mib = -1;
		w->nodes[i].unschedulable = rnd(25) == 0;
		w->nodes[i].gpu_type = i % 3 == 0 ? "B" : "A";
	}
	for (i = 0; i < NQ; i++) {
		kai_sched_queue_init(&w->qs[i]);
		w->qs[i].name = QNAMES[i];
		w->qs[i].parent = i < 2 ? -1 : i < 5 ? 0 : 1;
		w->qs[i].res[KAI_SCHED_GPU].weight = 1 + rnd(3);
	}
	w->qs[2].res[KAI_SCHED_GPU].quota = INT64_C(40) * KAI_SCHED_GPU_UNIT;
	w->qs[3].res[KAI_SCHED_GPU].limit = INT64_C(90) * KAI_SCHED_GPU_UNIT;
	/*
	 * x, of big gangs, comes first in d2, so under the rules before
	 * closed leaves its head stood for d2; d2's quota then makes
	 * rule 2 turn on that head's request against d1's.
	 */
	w->qs[5].priority = 200;
	w->qs[0].res[KAI_SCHED_GPU].quota = INT64_C(1000) * KAI_SCHED_GPU_UNIT;
	w->qs[1].res[KAI_SCHED_GPU].quota = INT64_C(16) * KAI_SCHED_GPU_UNIT;
	for (i = 0; i < 4; i++) {
		static const char *const un[4] = {"u0", "u1", "u2", "u3"};

		w->users[i].name = un[i];
		w->users[i].usage = (double)rnd(100) / 400.0;
	}
	w->s.users = w->users;
	w->s.nusers = 4;
	w->accts[0].name = "acct0";
	w->accts[0].weight = 1;
	w->accts[1].name = "acct1";
	w->accts[1].weight = 3;
	w->s.accounts = w->accts;
	w->s.naccounts = 2;
	w->s.nodes = w->nodes;
	w->s.nnodes = NN;
	w->s.queues = w->qs;
	w->s.nqueues = NQ;
	w->s.jobs = w->jobs;
	w->s.tasks = w->tasks;
	w->s.gpu_types = job_types;
	w->s.ngpu_types = 2;
	w->s.now = 100000;
	/* The first wave, into a, b and c, fills the cluster. */
	while (w->s.njobs < NJ * 2 / 3 && w->s.ntasks + 4 < NT)
		add_job(w, 2 + rnd(3), 0);
}

/* Runs allocate and makes its placements the running state. */
static int
settle(struct world *w)
{
	struct kai_sched_result r;
	struct kai_err err;
	size_t t;

	w->s.config.nphases = 1;
	if (kai_sched_cycle(&w->s, &r, &err) != 0) {
		diag("settle: %s", err.msg);
		return -1;
	}
	for (t = 0; t < w->s.ntasks; t++) {
		const struct kai_sched_task_out *o = &r.tasks[t];

		if (o->state != KAI_SCHED_TASK_RUNNING)
			continue;
		w->tasks[t].state = KAI_SCHED_TASK_RUNNING;
		w->tasks[t].node = o->node;
		w->tasks[t].gpu_mask = o->gpu_mask;
	}
	kai_sched_result_fini(&r);
	return 0;
}

/*
 * The delta: some running jobs end (their tasks fail: they hold
 * nothing), new jobs arrive; x gets only big gangs, y in half the
 * worlds too, so some leaves close and others stay open.
 */
static void
delta(struct world *w)
{
	bool ybig = rnd(2) == 0;
	uint32_t j, t;

	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];

		if (rnd(16) != 0 ||
		    w->tasks[J->first_task].state != KAI_SCHED_TASK_RUNNING)
			continue;
		for (t = 0; t < J->ntasks; t++)
			w->tasks[J->first_task + t].state =
			    KAI_SCHED_TASK_FAILED;
	}
	while (w->s.njobs < NJ && w->s.ntasks + 4 < NT) {
		uint32_t leaf = 2 + rnd(5);

		add_job(w, leaf, leaf == 5 || (leaf == 6 && ybig));
	}
}

static bool
want(const struct sess *S, uint32_t j)
{
	return S->jobs[j].npending > 0 && !S->jobs[j].static_fail;
}

/* Property 1: returns the closed leaves (bits), counts wrong verdicts. */
static uint32_t
verdicts(const struct world *w, int *wrong, int *tried, int *counted)
{
	struct kai_sched_result r;
	struct sess S;
	uint32_t j, q, closed = 0, open, nclosed, nopen;

	if (kai_sched_sess_init(&S, NULL, NULL, &w->s, &r, NULL, NULL) != 0)
		return 0;
	kai_sched_fairshare(&S);
	kai_sched_closed_leaves(&S, want, &nclosed, &nopen);
	for (q = 0; q < NQ; q++)
		if (S.closed[q])
			closed |= 1u << q;
	for (j = 0, open = 0; j < w->s.njobs; j++)
		if (want(&S, j) && !S.closed[S.jobs[j].queue])
			open |= 1u << S.jobs[j].queue;
	(*counted) += (uint32_t)__builtin_popcount(closed) == nclosed &&
	    (uint32_t)__builtin_popcount(open) == nopen;
	for (j = 0; j < w->s.njobs; j++) {
		struct kai_sched_why_info why;
		size_t mark = kai_sched_mark(&S);

		if (!want(&S, j) || !S.closed[S.jobs[j].queue])
			continue;
		(*tried)++;
		kai_sched_why_clear(&why);
		if (kai_sched_try_step(&S, j, true, &why))
			(*wrong)++;
		kai_sched_rollback(&S, mark);
	}
	kai_sched_sess_fini(&S);
	kai_sched_result_fini(&r);
	return closed;
}

/*
 * w with the closed leaves' jobs in another order: new priorities and
 * ages, so another job heads each closed leaf.  Their requests, and so
 * every queue's fair share, stay as they were.
 */
static void
shuffled(const struct world *w, uint32_t closed, struct world *o)
{
	size_t j;

	*o = *w;
	o->s.jobs = o->jobs;
	o->s.tasks = o->tasks;
	o->s.nodes = o->nodes;
	o->s.queues = o->qs;
	o->s.users = o->users;
	o->s.accounts = o->accts;
	for (j = 0; j < w->s.njobs; j++) {
		if (!(closed & (1u << w->jobs[j].queue)))
			continue;
		o->jobs[j].priority = 50 + rnd(3);
		o->jobs[j].created = (int64_t)rnd(NJ);
	}
}

/* Property 2 and 3 for one world; returns the jobs that differ. */
static int
compare(const struct world *w, uint32_t closed, int *placed_closed)
{
	static struct world o;
	struct kai_sched_result a, b;
	struct kai_err err;
	int diff = 0;
	size_t j, t;

	shuffled(w, closed, &o);
	if (kai_sched_cycle(&w->s, &a, &err) != 0) {
		diag("world: %s", err.msg);
		return 1;
	}
	if (kai_sched_cycle(&o.s, &b, &err) != 0) {
		diag("shuffled: %s", err.msg);
		kai_sched_result_fini(&a);
		return 1;
	}
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_job_out *x = &a.jobs[j], *y;
		const struct kai_sched_snap_job *J = &w->jobs[j];
		bool eq;

		if (closed & (1u << J->queue)) {
			/* Its running jobs run on; the others wait. */
			*placed_closed += x->placed_tasks > 0 ||
			    (w->tasks[J->first_task].state ==
				    KAI_SCHED_TASK_PENDING &&
				x->state != KAI_SCHED_JOB_PENDING);
			continue;
		}
		y = &b.jobs[j];
		eq = x->state == y->state &&
		    x->placed_tasks == y->placed_tasks &&
		    x->est_start == y->est_start &&
		    kai_sched_why_equal(&x->why, &y->why);
		for (t = 0; t < J->ntasks; t++) {
			const struct kai_sched_task_out *p =
			    &a.tasks[J->first_task + t];
			const struct kai_sched_task_out *q =
			    &b.tasks[J->first_task + t];

			eq &= p->state == q->state && p->node == q->node &&
			    p->gpu_mask == q->gpu_mask &&
			    p->gpu_fraction == q->gpu_fraction;
		}
		if (!eq && diff++ == 0)
			diag("job %zu: state %d/%d why %d/%d a %lld/%lld "
			     "b %lld/%lld est %lld/%lld",
			    j, x->state, y->state, x->why.why, y->why.why,
			    (long long)x->why.a, (long long)y->why.a,
			    (long long)x->why.b, (long long)y->why.b,
			    (long long)x->est_start, (long long)y->est_start);
	}
	kai_sched_result_fini(&a);
	kai_sched_result_fini(&b);
	return diff;
}

/* One allocate phase over w; keep: no leaf closed while reserving. */
static int
allocate(const struct world *w, bool keep, struct sess *S,
    struct kai_sched_result *r)
{
	if (kai_sched_sess_init(S, NULL, NULL, &w->s, r, NULL, NULL) != 0) {
		diag("sess_init failed");
		return -1;
	}
	S->keep_closed = keep;
	kai_sched_fairshare(S);
	kai_sched_allocate(S);
	return 0;
}

static void
allocate_fini(struct sess *S, struct kai_sched_result *r)
{
	kai_sched_sess_fini(S);
	kai_sched_result_fini(r);
}

/* Property 4 for one world; returns the jobs whose reservation differs. */
static int
reserved_alike(const struct world *w, int *switched, int *closed_reserved,
    int *reserved, int *placed_closed)
{
	struct kai_sched_result ra, rb;
	struct sess A, B;
	int diff = 0;
	uint32_t j, q, nclosed = 0;
	size_t t;

	if (allocate(w, false, &A, &ra) != 0)
		return 1;
	if (allocate(w, true, &B, &rb) != 0) {
		allocate_fini(&A, &ra);
		return 1;
	}
	for (q = 0; q < NQ; q++)
		nclosed += A.closed[q];
	*switched += nclosed > 0 && kai_sched_bf_spent(&A);
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		const struct kai_sched_why_info *x = &A.r->jobs[j].why;
		const struct kai_sched_why_info *y = &B.r->jobs[j].why;
		bool in_closed = A.closed[J->queue];

		if (x->why == KAI_SCHED_WHY_RESERVED) {
			(*reserved)++;
			*closed_reserved += in_closed;
		}
		if ((x->why == KAI_SCHED_WHY_RESERVED ||
			y->why == KAI_SCHED_WHY_RESERVED) &&
		    !kai_sched_why_equal(x, y) && diff++ == 0)
			diag("job %u (leaf %u%s): why %d/%d at %lld/%lld", j,
			    J->queue, in_closed ? ", closed" : "", x->why,
			    y->why, (long long)x->a, (long long)y->a);
		for (t = J->first_task; in_closed && t < J->first_task + J->ntasks;
		     t++)
			*placed_closed += w->tasks[t].state ==
				KAI_SCHED_TASK_PENDING &&
			    kai_sched_task_active(&A.tasks[t]);
	}
	allocate_fini(&A, &ra);
	allocate_fini(&B, &rb);
	return diff;
}

int
main(void)
{
	static struct world w;
	int seed, wrong = 0, tried = 0, diff = 0, placed_closed = 0, counted = 0,
		  worlds = 0, with_closed = 0, with_open = 0, switched = 0,
		  closed_reserved = 0, reserved = 0;

	rng = 0x9e3779b97f4a7c15ULL; /* this program's worlds */
	for (seed = 0; seed < 200; seed++) {
		uint32_t closed, leaves = (1u << 2) | (1u << 3) | (1u << 4) |
		    (1u << 5) | (1u << 6);

		world_init(&w, (uint32_t)seed);
		if (settle(&w) != 0)
			continue;
		delta(&w);
		worlds++;
		closed = verdicts(&w, &wrong, &tried, &counted);
		with_closed += closed != 0;
		with_open += (closed & leaves) != leaves;
		/* Allocate only: the phase the rule is about.  No
		 * start estimates: their replay interleaves every
		 * candidate, closed leaves' too (doc/scheduler.md). */
		w.s.config.nphases = 1;
		w.s.config.est_jobs = 0;
		diff += compare(&w, closed, &placed_closed);
	}
	is_int(worlds, 200, "every random world is a valid snapshot");
	ok(with_closed >= 30 && with_open >= 30,
	    "the worlds have closed leaves (%d) and open ones (%d)",
	    with_closed, with_open);
	ok(tried > 0, "closed leaves' jobs tried: %d", tried);
	is_int(counted, worlds, "the closed and the open leaves are counted right");
	is_int(wrong, 0, "no job of a closed leaf can be placed");
	is_int(diff, 0,
	    "the other jobs are decided alike whatever order closed leaves are in");
	is_int(placed_closed, 0, "no job of a closed leaf is placed; all wait");

	/* 4: the same worlds with reservations. */
	diff = placed_closed = worlds = 0;
	for (seed = 0; seed < 200; seed++) {
		world_init(&w, (uint32_t)seed);
		if (settle(&w) != 0)
			continue;
		delta(&w);
		worlds++;
		w.s.config.nphases = 1;
		w.s.config.est_jobs = 0;
		w.s.config.bf_reservations = 1 + (uint32_t)seed % 4;
		diff += reserved_alike(&w, &switched, &closed_reserved,
		    &reserved, &placed_closed);
	}
	is_int(worlds, 200, "every world with reservations is valid");
	ok(switched >= 30,
	    "closed leaves left the order after the reservations: %d worlds",
	    switched);
	ok(closed_reserved > 0 && reserved > closed_reserved,
	    "closed leaves' jobs held %d of the %d reservations",
	    closed_reserved, reserved);
	is_int(diff, 0,
	    "every reservation is the one made with no leaf closed");
	is_int(placed_closed, 0,
	    "with reservations no job of a closed leaf is placed");
	return done_testing();
}
