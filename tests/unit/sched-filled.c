/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-filled: the allocate phase once nothing can be placed, over
 * random worlds (users, accounts with weights, priorities, gangs,
 * fractions, limits, reservations).
 *
 *  1. Once the cluster is full, the allocate phase takes the rest leaf
 *     by leaf (allocate.c, filled()): every job's state, tasks, reason
 *     (with its figures), the start-estimate candidates and the
 *     reservations are those of the phase that keeps the whole tree's
 *     order to its end (the session's keep_order).
 *  2. When nothing fits from the start (a full cluster, new jobs), the
 *     closed leaves' pass (leafmerge.c, each leaf in its own order)
 *     gives what the tree's order gives.
 * The worlds are made so that both happen often; the test counts that
 * they did.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"
#include "rnd.h"
#include "tap.h"

#define NN 24
#define NJ 600
#define NT 1400
#define NQ 8 /* two departments of three leaves, one of one */
#define NU 6

struct world {
	struct kai_sched_snap_node nodes[NN];
	char names[NN][16];
	struct kai_sched_snap_queue qs[NQ];
	struct kai_sched_snap_user users[NU];
	struct kai_sched_snap_account accts[2];
	struct kai_sched_snap_job jobs[NJ];
	struct kai_sched_snap_task tasks[NT];
	char jnames[NJ][16];
	struct kai_sched_snapshot s;
};

static const char *const QNAMES[NQ] = {"d1", "d2", "d3", "a", "b", "c",
    "x", "y"};
static const char *const UNAMES[NU] = {"u0", "u1", "u2", "u3", "u4", "u5"};

/* Whole GPUs mostly, so that the cluster fills to its last GPU. */
static void
add_task(struct world *w)
{
	struct kai_sched_snap_task *t = &w->tasks[w->s.ntasks++];
	uint32_t kind = rnd(8);

	kai_sched_task_init(t);
	t->cpu_millis = INT64_C(250) * rnd(4);
	if (kind < 6)
		t->gpus = 1 + rnd(kind < 4 ? 1 : 4);
	else if (kind == 6)
		t->gpu_fraction = INT64_C(250000) * (1 + rnd(3));
	else
		t->gpu_memory_mib = INT64_C(4096) * (1 + rnd(3));
}

static void
add_job(struct world *w, uint32_t leaf)
{
	size_t i = w->s.njobs++;
	struct kai_sched_snap_job *J = &w->jobs[i];
	uint32_t n = rnd(5) == 0 ? 2 + rnd(3) : 1, k;

	kai_sched_job_init(J);
	(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%zu", i);
	J->name = w->jnames[i];
	J->queue = leaf;
	J->user = (int32_t)rnd(NU + 1) - 1; /* -1: none */
	J->account = (int32_t)rnd(3) - 1;
	J->priority = 50 + 25 * rnd(3);
	J->preemptible = rnd(2) != 0;
	/* Many jobs of one time: age ties, the index decides. */
	J->created = (int64_t)rnd(NJ / 4);
	J->time_limit_s = rnd(3) == 0 ? -1 : INT64_C(600) * (1 + rnd(8));
	J->first_task = w->s.ntasks;
	J->ntasks = n;
	J->min_tasks = n > 1 && rnd(3) == 0 ? 1 : 0;
	for (k = 0; k < n; k++)
		add_task(w);
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
	w->s.config.nphases = 1;
	/* Few candidates, or none: the rest of the phase is then free of
	 * them sooner (filled() waits for the last one). */
	w->s.config.est_jobs = seed % 4 == 0 ? 0 : 1 + rnd(8);
	w->s.config.bf_reservations = seed % 5 == 4 ? 1 + rnd(3) : 0;
	w->s.config.bf_max_job_test = 1 + rnd(4);
	for (i = 0; i < NN; i++) {
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02u", i);
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 2 + 2 * rnd(4);
		w->nodes[i].gpu_memory_mib = INT64_C(16384) * (1 + rnd(2));
		w->nodes[i].cpu_millis = 64000;
		w->nodes[i].memory_mib = -1;
		w->nodes[i].unschedulable = rnd(20) == 0;
	}
	for (i = 0; i < NQ; i++) {
		kai_sched_queue_init(&w->qs[i]);
		w->qs[i].name = QNAMES[i];
		w->qs[i].parent = i < 3 ? -1 : i < 6 ? 0 : i < 7 ? 1 : 2;
		w->qs[i].res[KAI_SCHED_GPU].weight = 1 + rnd(3);
	}
	w->qs[3].res[KAI_SCHED_GPU].quota = INT64_C(20) * KAI_SCHED_GPU_UNIT;
	w->qs[4].res[KAI_SCHED_GPU].limit = INT64_C(30) * KAI_SCHED_GPU_UNIT;
	w->qs[7].priority = 150;
	for (i = 0; i < NU; i++) {
		w->users[i].name = UNAMES[i];
		/* Two usages only: groups tie, and age decides. */
		w->users[i].usage = rnd(2) ? 0.25 : 0;
	}
	w->s.users = w->users;
	w->s.nusers = NU;
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
	w->s.now = 100000;
	while (w->s.njobs < NJ / 2 && w->s.ntasks + 4 < NT)
		add_job(w, 3 + rnd(5));
}

/* Runs allocate, makes its placements the running state, adds jobs. */
static int
settle(struct world *w)
{
	struct kai_sched_result r;
	struct kai_err err;
	size_t t;

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
	while (w->s.njobs < NJ && w->s.ntasks + 4 < NT)
		add_job(w, 3 + rnd(5));
	return 0;
}

static int
allocate(const struct world *w, bool keep, struct sess *S,
    struct kai_sched_result *r)
{
	if (kai_sched_sess_init(S, NULL, NULL, &w->s, r, NULL, NULL) != 0) {
		diag("sess_init failed");
		return -1;
	}
	S->keep_order = keep;
	kai_sched_fairshare(S);
	kai_sched_allocate(S);
	return 0;
}

/*
 * The phase over w both ways; returns the differences (jobs, tasks,
 * candidates, reservations), *taken the jobs taken leaf by leaf.
 */
static int
alike(const struct world *w, uint32_t *taken)
{
	struct kai_sched_result ra, rb;
	struct sess A, B;
	int diff = 0;
	uint32_t i;
	size_t j, t;

	if (allocate(w, false, &A, &ra) != 0)
		return 1;
	if (allocate(w, true, &B, &rb) != 0) {
		kai_sched_sess_fini(&A);
		kai_sched_result_fini(&ra);
		return 1;
	}
	*taken = A.nfilled;
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		bool eq = kai_sched_why_equal(&A.r->jobs[j].why,
			      &B.r->jobs[j].why) &&
		    A.jobs[j].nactive == B.jobs[j].nactive;

		for (t = J->first_task; t < J->first_task + J->ntasks; t++)
			eq &= A.tasks[t].state == B.tasks[t].state &&
			    A.tasks[t].node == B.tasks[t].node &&
			    memcmp(&A.tasks[t], &B.tasks[t],
				sizeof(A.tasks[t])) == 0;
		if (!eq && diff++ == 0)
			diag("job %zu (leaf %u): why %d/%d a %lld/%lld "
			     "b %lld/%lld",
			    j, J->queue, A.r->jobs[j].why.why,
			    B.r->jobs[j].why.why,
			    (long long)A.r->jobs[j].why.a,
			    (long long)B.r->jobs[j].why.a,
			    (long long)A.r->jobs[j].why.b,
			    (long long)B.r->jobs[j].why.b);
	}
	if (A.nest_cand != B.nest_cand) {
		diag("candidates: %u/%u", A.nest_cand, B.nest_cand);
		diff++;
	}
	for (i = 0; i < A.nest_cand && i < B.nest_cand; i++)
		if (A.est_cand[i] != B.est_cand[i] && diff++ == 0)
			diag("candidate %u: job %u/%u", i, A.est_cand[i],
			    B.est_cand[i]);
	if (kai_sched_bf_count(&A) != kai_sched_bf_count(&B)) {
		diag("reservations: %u/%u", kai_sched_bf_count(&A),
		    kai_sched_bf_count(&B));
		diff++;
	}
	kai_sched_sess_fini(&A);
	kai_sched_result_fini(&ra);
	kai_sched_sess_fini(&B);
	kai_sched_result_fini(&rb);
	return diff;
}

int
main(void)
{
	static struct world w;
	int seed, worlds = 0, diff = 0, filled = 0, closed = 0,
		  with_bf = 0, ndiff = 0, cdiff = 0;
	uint32_t taken;

	/* 1: an empty cluster that fills in the phase. */
	for (seed = 0; seed < 300; seed++) {
		world_init(&w, (uint32_t)seed);
		worlds++;
		diff += alike(&w, &taken);
		filled += taken > 0;
		with_bf += taken > 0 && w.s.config.bf_reservations > 0;
	}
	is_int(diff, 0, "the phase that takes the rest leaf by leaf once "
			"the cluster is full decides as the tree's order does");
	ok(filled >= 100 && with_bf >= 10,
	    "the cluster filled in %d of %d worlds (%d with reservations)",
	    filled, worlds, with_bf);

	/* 2: a full cluster and new jobs: closed leaves from the start. */
	for (seed = 0; seed < 300; seed++) {
		struct kai_sched_result r;
		struct sess S;
		uint32_t q, n = 0;

		world_init(&w, (uint32_t)seed);
		if (settle(&w) != 0) {
			cdiff++;
			continue;
		}
		if (allocate(&w, false, &S, &r) == 0) {
			size_t j;

			for (q = 0; q < NQ; q++)
				n += S.closed[q];
			for (j = 0; j < w.s.njobs; j++)
				if (S.jobs[j].npending > 0 &&
				    !S.jobs[j].static_fail &&
				    !S.closed[S.jobs[j].queue])
					n = 0;
			kai_sched_sess_fini(&S);
			kai_sched_result_fini(&r);
		}
		/* Only when every leaf is closed is the tree's order the
		 * closed pass's (doc/scheduler.md: otherwise the closed
		 * leaves come first). */
		if (n == 0)
			continue;
		closed++;
		ndiff += alike(&w, &taken);
	}
	is_int(cdiff, 0, "every settled world is a valid snapshot");
	is_int(ndiff, 0, "the closed leaves' pass, each leaf in its own "
			 "order, decides as the tree's order does");
	ok(closed >= 50, "every leaf closed from the start in %d worlds",
	    closed);
	return done_testing();
}
