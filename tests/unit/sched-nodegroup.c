/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-nodegroup: the node-group rule (tasks_per_node, nodegroup.c)
 * holds in random worlds through every phase: each group of a job is on
 * one node, no two groups of a job share a node, and a grouped job runs
 * whole or not at all.  The same worlds without the rule break it, so
 * the check can fail.  And snapshots that misuse the rule are refused.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_model.h"
#include "rnd.h"
#include "tap.h"

#define NN 24
#define NJ 80
#define NT (NJ * 8)

struct world {
	struct kai_sched_snap_node nodes[NN];
	char names[NN][16];
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job jobs[NJ];
	struct kai_sched_snap_task tasks[NT];
	char jnames[NJ][16];
	struct kai_sched_snapshot s;
};

/*
 * NJ jobs of 1 to 8 tasks, about half grouped by 1, 2, 3 or 4 (a size
 * that divides the job's tasks); two priorities so that preempt has
 * work, time limits so that estimates and backfill do.
 */
static void
world_init(struct world *w, enum kai_sched_placement pl)
{
	size_t i, t = 0;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	w->s.config.placement = pl;
	w->s.config.bf_reservations = 4;
	w->s.now = 1000;
	for (i = 0; i < NN; i++) {
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02zu",
		    (i * 7) % NN);
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 2 + rnd(7);
		w->nodes[i].cpu_millis = 4000 + INT64_C(1000) * rnd(12);
		w->nodes[i].memory_mib = -1;
	}
	kai_sched_queue_init(&w->q);
	w->q.name = "q";
	for (i = 0; i < NJ; i++) {
		struct kai_sched_snap_job *J = &w->jobs[i];
		uint32_t k = 1 + rnd(4), n = 1 + rnd(8), x;

		(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%zu", i);
		kai_sched_job_init(J);
		J->name = w->jnames[i];
		J->priority = 50 + 50 * rnd(2);
		J->preemptible = true;
		J->created = (int64_t)i;
		J->time_limit_s = INT64_C(600) * (1 + rnd(10));
		if (rnd(2)) {
			n = k * (1 + rnd(3));
			J->tasks_per_node = k;
		}
		J->first_task = t;
		J->ntasks = n;
		for (x = 0; x < n; x++, t++) {
			kai_sched_task_init(&w->tasks[t]);
			w->tasks[t].gpus = rnd(3);
			w->tasks[t].cpu_millis = INT64_C(500) * (1 + rnd(4));
		}
	}
	w->s.nodes = w->nodes;
	w->s.nnodes = NN;
	w->s.queues = &w->q;
	w->s.nqueues = 1;
	w->s.jobs = w->jobs;
	w->s.njobs = NJ;
	w->s.tasks = w->tasks;
	w->s.ntasks = t;
}

static bool
active(enum kai_sched_task_state s)
{
	return s == KAI_SCHED_TASK_RUNNING || s == KAI_SCHED_TASK_PIPELINED;
}

/* Breaks of the rule in r, for the jobs w says are grouped by `k[j]`. */
static int
breaks(const struct world *w, const uint32_t *k,
    const struct kai_sched_result *r)
{
	int bad = 0;
	size_t j;

	for (j = 0; j < NJ; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		int32_t gnode[8];
		size_t t, g, h, nact = 0;

		if (k[j] == 0)
			continue;
		for (g = 0; g < J->ntasks / k[j]; g++) {
			gnode[g] = -1;
			for (t = 0; t < k[j]; t++) {
				const struct kai_sched_task_out *o =
				    &r->tasks[J->first_task + g * k[j] + t];

				if (!active(o->state))
					continue;
				nact++;
				if (gnode[g] < 0)
					gnode[g] = o->node;
				else if (gnode[g] != o->node)
					bad++; /* a group split */
			}
			for (h = 0; h < g; h++)
				bad += gnode[g] >= 0 && gnode[h] == gnode[g];
		}
		bad += nact > 0 && nact < J->ntasks; /* not whole */
	}
	return bad;
}

/* Runs allocate, then makes its placements the running state. */
static void
settle(struct world *w)
{
	struct kai_sched_result r;
	size_t t;

	w->s.config.phases[0] = KAI_SCHED_ALLOCATE;
	w->s.config.nphases = 1;
	if (kai_sched_cycle(&w->s, &r, NULL) != 0)
		return;
	for (t = 0; t < w->s.ntasks; t++)
		if (active(r.tasks[t].state)) {
			w->tasks[t].state = KAI_SCHED_TASK_RUNNING;
			w->tasks[t].node = r.tasks[t].node;
			w->tasks[t].gpu_mask = r.tasks[t].gpu_mask;
		}
	kai_sched_result_fini(&r);
	/* Then every phase, for a second wave of jobs, at a higher
	 * priority for some so that preempt and reclaim act. */
	kai_sched_config_init(&w->s.config);
}

static void
test_random_worlds(void)
{
	struct world *w = calloc(1, sizeof(*w));
	uint32_t k[NJ];
	int seed, runs = 0, bad = 0, bad_without = 0, placed = 0;

	for (seed = 0; seed < 40; seed++) {
		static const enum kai_sched_placement pls[] = {
		    KAI_SCHED_FRAG, KAI_SCHED_BINPACK, KAI_SCHED_SPREAD};
		enum kai_sched_placement pl = pls[seed % 3];
		struct kai_sched_result r;
		struct kai_err err;
		size_t j, t;

		world_init(w, pl);
		for (j = 0; j < NJ; j++)
			k[j] = w->jobs[j].tasks_per_node;
		settle(w);
		w->s.config.placement = pl;
		w->s.config.bf_reservations = 4;
		/* New pending jobs: the unplaced ones stay, the priority of
		 * half goes up so preempt has victims. */
		for (j = 0; j < NJ; j++)
			if (rnd(2))
				w->jobs[j].priority += 100;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		bad += breaks(w, k, &r);
		for (t = 0; t < w->s.ntasks; t++)
			placed += r.tasks[t].state == KAI_SCHED_TASK_RUNNING &&
			    w->tasks[t].state == KAI_SCHED_TASK_PENDING;
		kai_sched_result_fini(&r);

		/* The same world without the rule. */
		world_init(w, pl);
		rng ^= (uint64_t)seed; /* a different world is fine too */
		for (j = 0; j < NJ; j++) {
			k[j] = w->jobs[j].tasks_per_node;
			w->jobs[j].tasks_per_node = 0;
		}
		if (kai_sched_cycle(&w->s, &r, &err) == 0) {
			bad_without += breaks(w, k, &r);
			kai_sched_result_fini(&r);
		}
	}
	is_int(runs, 40, "groups: every random world is a valid snapshot");
	ok(placed > 0, "groups: the cycles placed tasks (%d)", placed);
	is_int(bad, 0,
	    "groups: each group on one node, no two on one node, whole");
	ok(bad_without > 0,
	    "groups: without tasks_per_node the same check fails (%d)",
	    bad_without);
	free(w);
}

static void
test_refusals(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_result r;
	struct kai_err err;

	world_init(w, KAI_SCHED_BINPACK);
	w->s.njobs = 1;
	w->jobs[0].ntasks = 3;
	w->jobs[0].tasks_per_node = 2;
	ok(kai_sched_cycle(&w->s, &r, &err) != 0 &&
		strstr(err.msg, "not a multiple of tasks_per_node") != NULL,
	    "refused: 3 tasks in groups of 2 (%s)", err.msg);
	world_init(w, KAI_SCHED_BINPACK);
	w->s.njobs = 1;
	w->jobs[0].ntasks = 4;
	w->jobs[0].tasks_per_node = 2;
	w->jobs[0].min_tasks = 2;
	ok(kai_sched_cycle(&w->s, &r, &err) != 0 &&
		strstr(err.msg, "runs every task or none") != NULL,
	    "refused: an elastic minimum with groups (%s)", err.msg);
	free(w);
}

int
main(void)
{
	rng = 0x9e3779b97f4a7c15ULL; /* this program's worlds */
	test_random_worlds();
	test_refusals();
	return done_testing();
}
