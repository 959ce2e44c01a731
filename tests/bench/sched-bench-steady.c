/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench-steady.c: the steady state of a busy cluster, a cycle
 * after a cycle, through one context with the jobs' numbers
 * (kai_sched_snapshot.job_gen), as kaid's tick runs them:
 *
 *	- nothing changed since the cycle before (the same snapshot);
 *	- 1 % of the pending jobs changed (each a new number and a time
 *	  limit a minute longer, drawn anew before every timed cycle).
 *
 * First the cluster is settled, as kaid's ticks would settle it: the
 * nothing-fits cycle still preempts and reclaims, so its placements
 * start (pipelined ones too: their victims' pods are taken as gone) and
 * its victims wait again, cycle after cycle (at most SETTLE), until a
 * cycle changes nothing.
 *
 * Each figure is the median of RUNS cycles, wall and CPU time, after
 * one untimed cycle that lets the context record; with the number of
 * jobs the last cycle left alone.  The same cycles without numbers are
 * the "nothing fits, all phases" line above them.
 */
#include "config.h"

#include "sched-bench.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/xmalloc.h"

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One cycle through c, timed into wall[i], cpu[i]. */
static void
one(struct kai_sched_ctx *c, const struct kai_sched_snapshot *s, double *wall,
    double *cpu)
{
	struct kai_sched_result r;
	struct kai_err err;
	double w0 = bench_now_ms(), c0 = bench_cpu_ms();

	if (kai_sched_cycle_ctx(c, s, &r, &err) != 0) {
		(void)fprintf(stderr, "sched-bench: %s\n", err.msg);
		exit(1);
	}
	*wall = bench_now_ms() - w0;
	*cpu = bench_cpu_ms() - c0;
	kai_sched_result_fini(&r);
}

#define SETTLE 60

/* Pending jobs: their first task is pending. */
static void
change(struct kai_sched_snapshot *s, struct kai_sched_snap_job *jobs,
    uint64_t *gen, uint64_t *next, struct bench_rng *rng)
{
	size_t n = s->njobs / 100, k;

	for (k = 0; k < n; k++) {
		size_t j = bench_below(rng, (uint32_t)s->njobs);

		if (s->tasks[jobs[j].first_task].state !=
		    KAI_SCHED_TASK_PENDING)
			continue;
		if (jobs[j].time_limit_s > 0)
			jobs[j].time_limit_s += 60;
		gen[j] = (*next)++;
	}
}

/* Cycles until one changes nothing; returns how many ran. */
static unsigned
settle(struct kai_sched_ctx *c, struct kai_sched_snapshot *s,
    struct kai_sched_snap_task *tasks)
{
	unsigned i;

	for (i = 1; i <= SETTLE; i++) {
		struct kai_sched_result r;
		struct kai_err err;
		size_t t;
		bool quiet;

		if (kai_sched_cycle_ctx(c, s, &r, &err) != 0) {
			(void)fprintf(stderr, "sched-bench: %s\n", err.msg);
			exit(1);
		}
		quiet = r.placed == 0 && r.evicted == 0 && r.moved == 0;
		for (t = 0; t < s->ntasks && !quiet; t++) {
			const struct kai_sched_task_out *o = &r.tasks[t];

			if (o->state == KAI_SCHED_TASK_RUNNING ||
			    o->state == KAI_SCHED_TASK_PIPELINED) {
				tasks[t].state = KAI_SCHED_TASK_RUNNING;
				tasks[t].node = o->node;
				tasks[t].gpu_mask = o->gpu_mask;
			} else if (o->state == KAI_SCHED_TASK_EVICTED) {
				tasks[t].state = KAI_SCHED_TASK_PENDING;
				tasks[t].node = -1;
				tasks[t].gpu_mask = 0;
			}
		}
		kai_sched_result_fini(&r);
		if (quiet)
			break;
	}
	return i;
}

static void
report(const char *what, double *wall, double *cpu, unsigned runs,
    size_t left)
{
	qsort(wall, runs, sizeof(*wall), cmp_dbl);
	qsort(cpu, runs, sizeof(*cpu), cmp_dbl);
	(void)printf("  %s %7.1f / %7.1f ms  (%zu jobs left alone)\n", what,
	    wall[runs / 2], cpu[runs / 2], left);
}

void
bench_steady(struct kai_sched_ctx *c, struct kai_sched_snapshot *s,
    struct kai_sched_snap_job *jobs, struct kai_sched_snap_task *tasks,
    unsigned runs)
{
	uint64_t *gen = kai_xcalloc(s->njobs + 1, sizeof(*gen)), next;
	double *wall = kai_xcalloc(runs, sizeof(*wall));
	double *cpu = kai_xcalloc(runs, sizeof(*cpu));
	struct bench_rng rng = {UINT64_C(0x9e3779b97f4a7c15)};
	size_t j;
	unsigned i;

	i = settle(c, s, tasks);
	if (i > SETTLE)
		(void)printf("  (not settled after %u cycles: the figures below "
			     "are of a cluster still changing)\n",
		    SETTLE);
	else
		(void)printf("  settled after %u cycles\n", i);
	for (j = 0; j < s->njobs; j++)
		gen[j] = j + 1;
	next = s->njobs + 1;
	s->job_gen = gen;
	one(c, s, &wall[0], &cpu[0]); /* records */
	for (i = 0; i < runs; i++)
		one(c, s, &wall[i], &cpu[i]);
	report("steady, no change:          ", wall, cpu, runs,
	    kai_sched_ctx_left_out(c));
	for (i = 0; i < runs; i++) {
		change(s, jobs, gen, &next, &rng);
		one(c, s, &wall[i], &cpu[i]);
	}
	report("steady, 1% of jobs changed: ", wall, cpu, runs,
	    kai_sched_ctx_left_out(c));
	s->job_gen = NULL;
	free(gen);
	free(wall);
	free(cpu);
}
