/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-incr: a cycle fed by a kept state (incr.c) gives the full
 * cycle's result, byte for byte, over random worlds and random deltas.
 *
 * Each world runs cycle after cycle, as kaid does: the placements of a
 * cycle start running, its evictions go back to pending, and between
 * cycles a random delta -- nothing (the steady state), arrivals, ends
 * (some ended jobs leave the arrays, so indices move), a node drained
 * or returned, usage decayed -- and, in half the worlds, every queue's
 * and user's usage decayed and accrued at every tick as kaid does it.
 * A third of the worlds (seeds 60-89) have backfill reservations, 1 to 4:
 * in half of them most jobs have time limits, so reservations are made
 * and kept in the results (their holders' reasons and estimates, what
 * kqueue --start shows), in the other half no job has one, as under
 * kaid's default partition, where no reservation can be made and jobs
 * must be left alone.
 * Every cycle runs twice: through one
 * context with the jobs' numbers (kai_sched_snapshot.job_gen), and
 * from scratch (kai_sched_cycle()); every task's state and place, every
 * job's state, reason and estimate, every queue's and type's figures
 * must be the same.  The test also counts the cycles that did leave
 * jobs alone, and fails if too few did: a test of a path never taken
 * proves nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_model.h"
#include "rnd.h"
#include "tap.h"

#define NN 40
#define NJ 700
#define NT 1600
#define NQ 7 /* two departments: a, b, c and x, y */
#define NCYCLES 20
#define NWORLDS 90
#define BFWORLDS 60 /* the worlds from this seed have reservations */

struct world {
	struct kai_sched_snap_node nodes[NN];
	char names[NN][16];
	struct kai_sched_snap_queue qs[NQ];
	struct kai_sched_snap_user users[4];
	struct kai_sched_snap_account accts[2];
	struct kai_sched_snap_job jobs[NJ];
	struct kai_sched_snap_task tasks[NT];
	uint64_t gen[NJ];
	uint64_t next_gen;
	uint32_t next_name;
	char jnames[NJ][16];
	bool one_prio; /* one priority, few preemptible jobs: calm */
	bool decays;   /* usage decays and accrues at every tick, as kaid's */
	bool limits;   /* jobs have time limits (3 in 4 of them) */
	struct kai_sched_snapshot s;
};

static const char *const QNAMES[NQ] = {"d1", "d2", "a", "b", "c", "x", "y"};

static void
add_task(struct world *w, bool big)
{
	struct kai_sched_snap_task *t = &w->tasks[w->s.ntasks++];
	uint32_t kind = rnd(6);

	kai_sched_task_init(t);
	t->cpu_millis = INT64_C(500) * rnd(8);
	if (big) {
		t->gpus = 3 + rnd(4);
		return;
	}
	if (kind <= 2)
		t->gpus = 1 + rnd(3);
	else if (kind == 3)
		t->gpu_fraction = INT64_C(100000) * (1 + rnd(9));
	else if (kind == 4)
		t->gpu_memory_mib = INT64_C(2048) * (1 + rnd(10));
}

static void
add_job(struct world *w, uint32_t leaf, bool big)
{
	size_t i = w->s.njobs++;
	struct kai_sched_snap_job *J = &w->jobs[i];
	uint32_t n = big ? 2 + rnd(2) : rnd(6) == 0 ? 2 + rnd(3) : 1, k;

	kai_sched_job_init(J);
	(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%u",
	    w->next_name++);
	J->name = w->jnames[i];
	J->queue = leaf;
	J->user = (int32_t)rnd(5) - 1;
	J->account = (int32_t)rnd(3) - 1;
	J->priority = w->one_prio ? 50 : 50 + rnd(3);
	J->preemptible = w->one_prio ? rnd(8) == 0 : rnd(3) != 0;
	J->created = (int64_t)w->next_name;
	J->time_limit_s = !w->limits || rnd(4) == 0
	    ? -1
	    : INT64_C(600) * (1 + rnd(10));
	J->held = rnd(40) == 0;
	/* In the GPU-type worlds, some jobs name the type. */
	J->gpu_type = w->s.ngpu_types > 0 && rnd(4) == 0 ? 1 : 0;
	J->first_task = w->s.ntasks;
	J->ntasks = n;
	J->min_tasks = n > 1 && rnd(2) ? 1 : 0;
	for (k = 0; k < n; k++)
		add_task(w, big);
	w->gen[i] = ++w->next_gen;
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
	w->s.config.est_jobs = seed % 4 == 0 ? 0 : seed % 4 == 1 ? 2 : 6;
	if (seed % 5 == 4) /* allocate only */
		w->s.config.nphases = 1;
	w->one_prio = seed % 2 == 0;
	w->limits = true;
	if (seed >= BFWORLDS) {
		w->s.config.bf_reservations = 1 + seed % 4;
		w->limits = seed / 4 % 2 == 0;
	}
	w->decays = seed / 2 % 2 == 1;
	for (i = 0; i < NN; i++) {
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02u",
		    (i * 29) % NN);
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 2 + rnd(7);
		w->nodes[i].gpu_memory_mib = INT64_C(16384) * (1 + rnd(2));
		w->nodes[i].cpu_millis = 16000 + INT64_C(1000) * rnd(24);
		w->nodes[i].memory_mib = -1;
		w->nodes[i].unschedulable = rnd(25) == 0;
		/* GPU types in one world of seven: half the nodes are
		 * of type A, a queue has a quota of it, some jobs name it. */
		w->nodes[i].gpu_type = seed % 7 == 6 && i % 2 ? "A" : NULL;
	}
	for (i = 0; i < NQ; i++) {
		kai_sched_queue_init(&w->qs[i]);
		w->qs[i].name = QNAMES[i];
		w->qs[i].parent = i < 2 ? -1 : i < 5 ? 0 : 1;
		w->qs[i].res[KAI_SCHED_GPU].weight = 1 + rnd(3);
		w->qs[i].res[KAI_SCHED_GPU].usage = (double)rnd(100) / 200.0;
	}
	w->qs[2].res[KAI_SCHED_GPU].quota = INT64_C(40) * KAI_SCHED_GPU_UNIT;
	w->qs[3].res[KAI_SCHED_GPU].limit = INT64_C(90) * KAI_SCHED_GPU_UNIT;
	w->qs[5].priority = 200;
	if (seed % 7 == 6) {
		static const char *const types[1] = {"A"};
		static const struct kai_sched_qtype qa = {
		    .type = "A", .quota = INT64_C(8) * KAI_SCHED_GPU_UNIT,
		    .limit = -1, .weight = -1};

		w->qs[3].types = &qa;
		w->qs[3].ntypes = 1;
		w->s.gpu_types = types;
		w->s.ngpu_types = 1;
	}
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
	w->s.job_gen = w->gen;
	w->s.now = 100000;
	while (w->s.njobs < NJ / 2 && w->s.ntasks + 4 < NT) {
		uint32_t leaf = 2 + rnd(5);

		add_job(w, leaf, leaf == 5);
	}
}

/* The cycle's decisions become the cluster's state, as kaid commits
 * them: placements run (pipelined ones wait), evicted jobs requeue. */
static void
apply(struct world *w, const struct kai_sched_result *r)
{
	size_t j, t;

	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		bool changed = false;

		for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
			const struct kai_sched_task_out *o = &r->tasks[t];
			struct kai_sched_snap_task *k = &w->tasks[t];

			if (o->state == KAI_SCHED_TASK_RUNNING &&
			    (k->state != KAI_SCHED_TASK_RUNNING ||
				k->node != o->node || k->gpu_mask != o->gpu_mask)) {
				k->state = KAI_SCHED_TASK_RUNNING;
				k->node = o->node;
				k->gpu_mask = o->gpu_mask;
				changed = true;
			} else if (o->state == KAI_SCHED_TASK_EVICTED) {
				k->state = KAI_SCHED_TASK_PENDING;
				k->node = -1;
				k->gpu_mask = 0;
				changed = true;
			}
		}
		if (changed)
			w->gen[j] = ++w->next_gen;
	}
}

/* Ended jobs (every task failed) leave the arrays; indices move. */
static void
compact(struct world *w)
{
	size_t j, t, nj = 0, nt = 0;

	for (j = 0; j < w->s.njobs; j++) {
		struct kai_sched_snap_job J = w->jobs[j];
		bool ended = J.ntasks > 0 &&
		    w->tasks[J.first_task].state == KAI_SCHED_TASK_FAILED;

		if (ended)
			continue;
		for (t = 0; t < J.ntasks; t++)
			w->tasks[nt + t] = w->tasks[J.first_task + t];
		J.first_task = nt;
		nt += J.ntasks;
		memmove(w->jnames[nj], w->jnames[j], sizeof(w->jnames[j]));
		J.name = w->jnames[nj];
		w->jobs[nj] = J;
		w->gen[nj++] = w->gen[j];
	}
	w->s.njobs = nj;
	w->s.ntasks = nt;
}

/* Applies a random delta; returns its kind (0-7). */
static uint32_t
delta(struct world *w)
{
	uint32_t kind = rnd(8), j, t, n;

	switch (kind) {
	case 0:
	case 1:
	case 2: /* nothing: the steady state */
		break;
	case 3: /* arrivals */
		for (n = 1 + rnd(6); n > 0 && w->s.njobs < NJ &&
		     w->s.ntasks + 4 < NT;
		     n--) {
			uint32_t leaf = 2 + rnd(5);

			add_job(w, leaf, leaf == 5 || rnd(3) == 0);
		}
		break;
	case 4: /* ends: running jobs' tasks fail; some leave */
		for (j = 0; j < w->s.njobs; j++) {
			const struct kai_sched_snap_job *J = &w->jobs[j];

			if (rnd(10) != 0 || J->ntasks == 0 ||
			    w->tasks[J->first_task].state !=
				KAI_SCHED_TASK_RUNNING)
				continue;
			for (t = 0; t < J->ntasks; t++)
				w->tasks[J->first_task + t].state =
				    KAI_SCHED_TASK_FAILED;
			w->gen[j] = ++w->next_gen;
		}
		if (rnd(2))
			compact(w);
		break;
	case 5: /* a node drained or returned */
		j = rnd(NN);
		w->nodes[j].unschedulable = !w->nodes[j].unschedulable;
		break;
	case 6: /* queues' usage decayed (users' too, in half) */
		for (j = 0; j < NQ; j++)
			w->qs[j].res[KAI_SCHED_GPU].usage *= 0.9;
		if (rnd(2))
			for (j = 0; j < 4; j++)
				w->users[j].usage *= 0.9;
		break;
	default: /* a pending job changed (held or released) */
		j = rnd((uint32_t)w->s.njobs);
		if (w->tasks[w->jobs[j].first_task].state ==
		    KAI_SCHED_TASK_PENDING) {
			w->jobs[j].held = !w->jobs[j].held;
			w->gen[j] = ++w->next_gen;
		}
		break;
	}
	w->s.now += 60;
	return kind;
}

/*
 * kaid's usage at a tick (daemons/kaid/usage.c): every queue's and
 * user's usage decays, and what their running tasks hold is added, so
 * no two snapshots are alike and users who hold GPUs climb past others.
 */
static void
tick_usage(struct world *w)
{
	double held_u[5] = {0}, held_q[NQ] = {0}, total = 0;
	size_t j, t;
	uint32_t i;

	for (i = 0; i < NN; i++)
		total += (double)w->nodes[i].gpus;
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];

		for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
			const struct kai_sched_snap_task *k = &w->tasks[t];
			double g = (double)k->gpus +
			    (double)k->gpu_fraction / 1e6;

			if (k->state != KAI_SCHED_TASK_RUNNING)
				continue;
			held_u[J->user + 1] += g;
			held_q[J->queue] += g;
		}
	}
	for (i = 0; i < NQ; i++)
		w->qs[i].res[KAI_SCHED_GPU].usage =
		    w->qs[i].res[KAI_SCHED_GPU].usage * 0.97 +
		    0.03 * held_q[i] / total;
	for (i = 0; i < 4; i++)
		w->users[i].usage =
		    w->users[i].usage * 0.97 + 0.03 * held_u[i + 1] / total;
}

/* Number of differences between the two results (diag for the first). */
static int
differ(const struct kai_sched_result *x, const struct kai_sched_result *y,
    uint32_t world, uint32_t cyc)
{
	int bad = 0;
	size_t i;

	if (x->ntasks != y->ntasks || x->njobs != y->njobs ||
	    x->nqueues != y->nqueues || x->ntypes != y->ntypes) {
		diag("world %u cycle %u: sizes differ", world, cyc);
		return 1;
	}
	for (i = 0; i < x->ntasks; i++) {
		const struct kai_sched_task_out *a = &x->tasks[i], *b = &y->tasks[i];

		if (a->state != b->state || a->node != b->node ||
		    a->gpu_mask != b->gpu_mask ||
		    a->gpu_fraction != b->gpu_fraction || a->moved != b->moved) {
			if (bad++ == 0)
				diag("world %u cycle %u: task %zu: %d@%d vs %d@%d",
				    world, cyc, i, a->state, a->node, b->state,
				    b->node);
		}
	}
	for (i = 0; i < x->njobs; i++) {
		const struct kai_sched_job_out *a = &x->jobs[i], *b = &y->jobs[i];

		if (a->state != b->state || a->placed_tasks != b->placed_tasks ||
		    !kai_sched_why_equal(&a->why, &b->why) ||
		    a->est_start != b->est_start) {
			if (bad++ == 0)
				diag("world %u cycle %u: job %zu: state %d/%d "
				     "why %d/%d a %lld/%lld est %lld/%lld",
				    world, cyc, i, a->state, b->state, a->why.why,
				    b->why.why, (long long)a->why.a,
				    (long long)b->why.a, (long long)a->est_start,
				    (long long)b->est_start);
		}
	}
	/* And byte for byte, padding included, as the core promises. */
	if (bad == 0 &&
	    (memcmp(x->tasks, y->tasks, x->ntasks * sizeof(*x->tasks)) != 0 ||
		memcmp(x->jobs, y->jobs, x->njobs * sizeof(*x->jobs)) != 0)) {
		diag("world %u cycle %u: results differ in their bytes", world,
		    cyc);
		bad++;
	}
	if (memcmp(x->queues, y->queues, x->nqueues * sizeof(*x->queues)) != 0) {
		if (bad++ == 0)
			diag("world %u cycle %u: queue figures differ", world,
			    cyc);
	}
	for (i = 0; i < x->ntypes; i++)
		if (strcmp(x->types[i], y->types[i]) != 0)
			bad++;
	if (x->ntypes > 0 &&
	    memcmp(x->qtypes, y->qtypes,
		x->ntypes * x->nqueues * sizeof(*x->qtypes)) != 0)
		bad++;
	if (x->placed != y->placed || x->evicted != y->evicted ||
	    x->moved != y->moved)
		bad++;
	return bad;
}

/*
 * A kept-in job behind left-out ones: the leaf's three 1-GPU jobs wait
 * (no GPU idle) and are left out; its last job, 0.3 of a GPU (0.4 is
 * idle in two slivers of 0.2), is kept in, since reclaim may take it
 * (within the fair share, and a min runtime makes its victims depend on
 * the clock), and must still say "3 jobs ahead of it".
 */
static void
ahead_kept(void)
{
	struct kai_sched_snap_node nodes[2];
	struct kai_sched_snap_queue q[2];
	struct kai_sched_snap_job jobs[8];
	struct kai_sched_snap_task tasks[8];
	uint64_t gen[8];
	struct kai_sched_snapshot s;
	struct kai_sched_ctx *c = kai_sched_ctx_new();
	struct kai_sched_result ri, rf;
	struct kai_err err;
	size_t i, left = 0;
	int bad = 0, k;

	memset(&s, 0, sizeof(s));
	kai_sched_config_init(&s.config);
	s.config.est_jobs = 0;
	for (i = 0; i < 2; i++) {
		memset(&nodes[i], 0, sizeof(nodes[i]));
		nodes[i].name = i == 0 ? "n0" : "n1";
		nodes[i].gpus = 2;
		nodes[i].cpu_millis = nodes[i].memory_mib = -1;
		kai_sched_queue_init(&q[i]);
	}
	q[0].name = "top";
	q[1].name = "leaf";
	q[1].parent = 0;
	/* Reclaim's victims then depend on the clock: job 7, within the
	 * leaf's fair share, is one reclaim may take, every cycle. */
	q[1].reclaim_min_runtime_s = 60;
	/* Jobs 0-3 run on the nodes: a whole GPU and 0.8 of one each,
	 * nothing preemptible; jobs 4-6 wait for a GPU, job 7 for 0.3. */
	for (i = 0; i < 8; i++) {
		kai_sched_job_init(&jobs[i]);
		kai_sched_task_init(&tasks[i]);
		jobs[i].name = "j";
		jobs[i].queue = 1;
		jobs[i].priority = 50;
		jobs[i].created = (int64_t)i;
		jobs[i].first_task = i;
		jobs[i].ntasks = 1;
		tasks[i].gpus = 1;
		gen[i] = i + 1;
		if (i < 4) {
			tasks[i].state = KAI_SCHED_TASK_RUNNING;
			tasks[i].node = (int32_t)(i / 2);
			tasks[i].gpu_mask = i % 2 ? 2 : 1;
			if (i % 2) {
				tasks[i].gpus = 0;
				tasks[i].gpu_fraction = 800000;
			}
		}
	}
	tasks[7].gpus = 0;
	tasks[7].gpu_fraction = 300000;
	jobs[7].preemptible = true;
	s.nodes = nodes;
	s.nnodes = 2;
	s.queues = q;
	s.nqueues = 2;
	s.jobs = jobs;
	s.njobs = 8;
	s.tasks = tasks;
	s.ntasks = 8;
	s.job_gen = gen;
	for (k = 0; k < 2; k++) {
		if (kai_sched_cycle_ctx(c, &s, &ri, &err) != 0 ||
		    kai_sched_cycle(&s, &rf, &err) != 0) {
			diag("ahead_kept: %s", err.msg);
			bad++;
			break;
		}
		bad += differ(&ri, &rf, 1000, (uint32_t)k) != 0;
		bad += ri.jobs[7].why.why != KAI_SCHED_WHY_PRIORITY ||
		    ri.jobs[7].why.a != 3;
		left = kai_sched_ctx_left_out(c);
		kai_sched_result_fini(&ri);
		kai_sched_result_fini(&rf);
	}
	ok(bad == 0 && left == 3, "a kept-in job still counts the left-out "
				  "jobs ahead of it (%zu left out)",
	    left);
	kai_sched_ctx_free(c);
}

int
main(void)
{
	static struct world w;
	uint32_t seed, cyc, kinds = 0, kept_after[8] = {0};
	unsigned long cycles = 0, kept = 0, left = 0, bad = 0, fails = 0;
	unsigned long dcycles = 0, dkept = 0, fcycles = 0, fkept = 0;
	unsigned long tcycles = 0, tkept = 0;
	unsigned long bcycles = 0, bkept = 0, lcycles = 0, lkept = 0, lres = 0;

	plan(11);
	ahead_kept();
	for (seed = 0; seed < NWORLDS; seed++) {
		struct kai_sched_ctx *c = kai_sched_ctx_new();
		uint32_t last = 0;

		world_init(&w, seed);
		for (cyc = 0; cyc < NCYCLES; cyc++) {
			struct kai_sched_result ri, rf;
			struct kai_err err;
			int a = kai_sched_cycle_ctx(c, &w.s, &ri, &err);
			int b = kai_sched_cycle(&w.s, &rf, &err);
			size_t out = kai_sched_ctx_left_out(c);

			cycles++;
			if (a != 0 || b != 0) {
				diag("world %u cycle %u: %s", seed, cyc, err.msg);
				if (a == 0)
					kai_sched_result_fini(&ri);
				if (b == 0)
					kai_sched_result_fini(&rf);
				fails++;
				break;
			}
			bad += differ(&ri, &rf, seed, cyc) != 0;
			dcycles += w.decays;
			dkept += w.decays && out > 0;
			tcycles += w.s.ngpu_types > 0;
			tkept += w.s.ngpu_types > 0 && out > 0;
			fcycles += w.s.config.placement == KAI_SCHED_FRAG;
			fkept += w.s.config.placement == KAI_SCHED_FRAG &&
			    out > 0;
			if (w.s.config.bf_reservations > 0 && !w.limits) {
				bcycles++;
				bkept += out > 0;
			} else if (w.s.config.bf_reservations > 0) {
				size_t j;

				lcycles++;
				lkept += out > 0;
				for (j = 0; j < rf.njobs; j++)
					lres += rf.jobs[j].why.why ==
					    KAI_SCHED_WHY_RESERVED;
			}
			if (out > 0) {
				kept++;
				left += out;
				if (cyc > 0)
					kept_after[last]++;
			}
			apply(&w, &rf);
			kai_sched_result_fini(&ri);
			kai_sched_result_fini(&rf);
			last = delta(&w);
			kinds |= 1u << last;
			if (w.decays)
				tick_usage(&w);
		}
		kai_sched_ctx_free(c);
	}
	diag("%lu cycles, %lu of them left %lu jobs alone in all; kept after "
	     "no change %u, arrivals %u, ends %u, a node %u, decay %u, a "
	     "job changed %u",
	    cycles, kept, left, kept_after[0] + kept_after[1] + kept_after[2],
	    kept_after[3], kept_after[4], kept_after[5], kept_after[6],
	    kept_after[7]);
	ok(fails == 0, "every cycle ran both ways");
	ok(bad == 0, "every result the full cycle's (%lu cycles differ)", bad);
	/* The path must be taken, and after the deltas that leave the
	 * world as it was (the others run over every job by design). */
	ok(kept >= 30, "30 cycles or more left jobs alone (%lu of %lu)", kept,
	    cycles);
	ok(kept_after[0] + kept_after[1] + kept_after[2] > 0 &&
		kept_after[3] > 0 && kept_after[6] > 0 && kept_after[7] > 0,
	    "jobs were left alone after no change, arrivals, decay and a "
	    "job's change");
	ok(kinds == 0xff, "every kind of delta was drawn");
	/* Kept although every user's usage moved since the record: the
	 * records compare the order the usage gives, not the usage. */
	ok(dkept >= 20, "with usage decayed at every tick, cycles still left "
			"jobs alone (%lu of %lu)",
	    dkept, dcycles);
	/* frag learns its mix from every task: the records carry the
	 * left-out tasks' share of it. */
	ok(fkept >= 20, "with the frag placement, cycles left jobs alone "
			"(%lu of %lu)",
	    fkept, fcycles);
	/* A job that names a GPU type is never left out; the others are in
	 * none of the types' figures. */
	ok(tkept >= 10, "with GPU types, cycles left jobs alone (%lu of %lu)",
	    tkept, tcycles);
	/* Reservations on and no job limited (kaid's default): none can
	 * be made, and the cycle is served from the records. */
	ok(bkept >= 20, "with backfill reservations and no time limit, cycles "
			"left jobs alone (%lu of %lu)",
	    bkept, bcycles);
	/* With limits, reservations are made: the results above compare
	 * their holders' reasons and starts; no job is left alone. */
	ok(lres > 0 && lkept == 0, "with backfill reservations and time "
				   "limits, %lu reservations were made and no "
				   "cycle left jobs alone (%lu of %lu)",
	    lres, lkept, lcycles);
	return done_testing();
}
