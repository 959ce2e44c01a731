/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench: how fast the scheduler core is (not run by make check).
 *
 *	sched-bench [-n NODES] [-j JOBS] [-q QUEUES] [-r RUNS] [-e EST]
 *	    [-B RESV] [-U] [-g TYPES] [-m] [-P] [-S] [-p PLACEMENT]
 *	    [-t TRACEDIR]
 *
 * Synthetic part: NODES x 8 GPUs (default 5,000), JOBS pending jobs
 * (default 100,000) in QUEUES leaf queues (default 50, under 5
 * departments) with 200 users, of mixed shapes drawn from a fixed seed:
 * whole-GPU jobs of 1-8 GPUs, fractions (by portion and by GPU memory),
 * and gangs of 4-32 tasks.  It times, as the median of RUNS runs:
 *	1. one full cycle (all five phases) from an empty cluster;
 *	2. one cycle when nothing fits: the cluster as cycle 1 left it
 *	   (its placements running), the rest still pending, with no phase
 *	   at all (what opening the session and writing the result cost,
 *	   the floor of any cycle over these jobs), allocate only, and all
 *	   five phases;
 * and reports placements per second of cycle 1 and the peak RSS.  Jobs
 * have time limits of 10 minutes to 8 hours, so the start estimates of
 * the first EST pending jobs (the core's default; -e 0: none) have
 * running jobs' ends to replay; -B RESV gives RESV jobs a backfill
 * reservation (0, the core's default: none); -U gives no job a time
 * limit (kaid's default partition gives none: no reservation can then be
 * made); -p binpack|spread|frag
 * the placement (binpack, the core's default).  -g TYPES gives the nodes
 * TYPES GPU types in turn (doc/scheduler.md, "GPU types"), every leaf
 * queue a limit on the first type of half its GPU quota and a weight of
 * its own on the second, and half the jobs a type (job i names type
 * i / 2 mod TYPES, no random draw, so the shapes are those of -g 0).
 * -G puts every gang's tasks in node groups (tasks_per_node: as many
 * tasks as divide the gang and fit 8 GPUs), for the cost of nodegroup.c.
 * -C gives the nodes features (a100 or h100 in turn, ib on half) and a
 * third of the jobs a requirement of eight (doc/scheduler.md, "Node
 * constraints": a100, h100, a100|h100, [a100|h100], a100&ib, an
 * exclusion of 10 nodes, a list of 64, [a100&ib|h100&ib]), for the cost
 * of nodereq.c.
 * The cycles run through one scheduler context (struct kai_sched_ctx),
 * as kaid's do, so every run but the first reuses what the one before
 * kept; -S runs them without one (kai_sched_cycle()), for comparison.
 * With a context, last, the steady state (sched-bench-steady.c): the
 * cluster settled until a cycle changes nothing, then cycles with the
 * jobs' numbers, so that the context leaves alone the waiting jobs
 * nothing changed for: after no change, and after 1 % of the pending
 * jobs changed.
 * -m reports each case's fastest run instead of the median (on a host
 * other work loads, the least spoilt figure).
 * With -P, only the full cycle, cut by phase: the full cycle with the
 * first K of the five phases (K = 0..5: what each phase adds), then all
 * five without start estimates (what the estimates cost).
 * With -t, also the Alibaba trace replay (sched-bench-trace.c).  With
 * -b, only the starvation simulation (sched-bench-starve.c): when a big
 * gang starts among arriving 1-GPU jobs, with and without backfill.
 * With -t and -T COMPRESS, also the trace replayed with time running,
 * arrivals COMPRESS times faster (sched-bench-time.c).
 */
#include "config.h"

#include "sched-bench.h"

#include <sys/resource.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"

/* -p: index = enum kai_sched_placement. */
static const char *const PLACEMENTS[] = {"binpack", "spread", "frag", NULL};

/* -U: no job has a time limit, as under kaid's default partition. */
static bool unlimited;

uint64_t
bench_rand(struct bench_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * UINT64_C(2685821657736338717);
}

uint32_t
bench_below(struct bench_rng *r, uint32_t n)
{
	return (uint32_t)(bench_rand(r) % n);
}

double
bench_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double
bench_cpu_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

long
bench_peak_rss_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return ru.ru_maxrss;
}

struct synth {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_node *nodes;
	struct kai_sched_snap_queue *queues;
	struct kai_sched_snap_user *users;
	struct kai_sched_snap_job *jobs;
	struct kai_sched_snap_task *tasks;
	char *names;   /* all generated names, packed (name()) */
	size_t nnames; /* bytes of names used */
	struct kai_sched_qtype *qtypes; /* -g: two per leaf queue */
	struct kai_sched_nodereq reqs[8]; /* -C */
	uint32_t *req_nodes;		  /* -C: the lists of reqs 5 and 6 */
};

static const char *const type_names[] = {"T0", "T1", "T2", "T3", "T4",
    "T5", "T6", "T7"};
#define MAX_TYPES (sizeof(type_names) / sizeof(type_names[0]))

#define NAMELEN 32
#define NDEPT   5
#define NUSERS  200

/*
 * Names are packed one after the other, each as long as it is, as a
 * caller that interns its strings keeps them: a million "job123456"
 * take 11 MiB, not the 31 of fixed 32-byte slots.  The buffer is sized
 * for the longest names; the pages never written are never faulted in.
 */
static char *
name(struct synth *y, const char *prefix, size_t i)
{
	char *p = y->names + y->nnames;
	int n;

	/* Prefixes are short and i has at most 20 digits: never cut. */
	n = snprintf(p, NAMELEN, "%.8s%zu", prefix, i);
	y->nnames += (size_t)n + 1;
	return p;
}

static void
synth_queues(struct synth *y, size_t nq, size_t nodes)
{
	size_t i;

	y->queues = kai_xcalloc(nq + NDEPT, sizeof(*y->queues));
	for (i = 0; i < nq + NDEPT; i++) {
		struct kai_sched_snap_queue *q = &y->queues[i];
		bool dept = i < NDEPT;
		int64_t gpus =
		    (int64_t)nodes * 8 / (int64_t)(dept ? NDEPT : nq);

		kai_sched_queue_init(q);
		q->name = name(y, dept ? "dept" : "q", i);
		q->parent = dept ? -1 : (int32_t)((i - NDEPT) % NDEPT);
		/* Guarantee each leaf an equal part of the GPUs. */
		q->res[KAI_SCHED_GPU].quota = gpus * KAI_SCHED_GPU_UNIT;
		q->res[KAI_SCHED_GPU].weight = 1 + (double)(i % 3);
	}
	y->s.queues = y->queues;
	y->s.nqueues = nq + NDEPT;
}

/* One task of a job's shape (at most 8 GPUs: within every bound). */
static void
shape_task(struct bench_rng *rng, uint32_t kind, uint32_t gpus,
    struct kai_sched_snap_task *t)
{
	kai_sched_task_init(t);
	if (kind == 1)
		t->gpu_fraction = 100000 * (int32_t)(1 + bench_below(rng, 9));
	else if (kind == 2)
		t->gpu_memory_mib = 4096 * (int32_t)(1 + bench_below(rng, 16));
	else
		t->gpus = (uint8_t)gpus;
	t->cpu_millis = 2000 * (int32_t)(gpus > 0 ? gpus : 1);
	t->memory_mib = 16384 * (int32_t)(gpus > 0 ? gpus : 1);
}

static void
synth_jobs(struct synth *y, struct bench_rng *rng, size_t njobs, size_t nq)
{
	static const uint32_t sizes[] = {1, 1, 1, 1, 2, 2, 4, 8};
	size_t j, cap = njobs * 4, nt = 0, k;

	y->jobs = kai_xcalloc(njobs, sizeof(*y->jobs));
	y->tasks = kai_xcalloc(cap, sizeof(*y->tasks));
	for (j = 0; j < njobs; j++) {
		struct kai_sched_snap_job *J = &y->jobs[j];
		uint32_t roll = bench_below(rng, 100), kind = 0, n = 1, gpus;

		kai_sched_job_init(J);
		J->name = name(y, "job", j);
		J->queue = (uint32_t)(NDEPT + bench_below(rng, (uint32_t)nq));
		J->user = (int32_t)bench_below(rng, NUSERS);
		J->priority = 50 + 25 * bench_below(rng, 3);
		J->preemptible = J->priority < 100;
		J->created = (int64_t)j;
		J->time_limit_s = unlimited
		    ? -1
		    : 600 * (1 + (int64_t)(j % 48)); /* no draw */
		gpus = sizes[bench_below(rng, 8)];
		if (roll < 25)
			kind = 1 + bench_below(rng, 2); /* fraction */
		else if (roll >= 85)
			n = 4 + bench_below(rng, 29); /* gang of 4-32 */
		if (n > 1)
			gpus = sizes[bench_below(rng, 6)];
		if (nt + n > cap) {
			cap *= 2;
			y->tasks =
			    kai_xreallocarray(y->tasks, cap, sizeof(*y->tasks));
		}
		J->first_task = nt;
		J->ntasks = n;
		for (k = 0; k < n; k++)
			shape_task(rng, kind, kind ? 0 : gpus, &y->tasks[nt++]);
	}
	y->s.jobs = y->jobs;
	y->s.njobs = njobs;
	y->s.tasks = y->tasks;
	y->s.ntasks = nt;
}

/*
 * -G: every gang's tasks in node groups (tasks_per_node), each group as
 * many tasks as divide the gang and fit 8 GPUs.
 */
static void
synth_groups(struct synth *y)
{
	size_t j;

	for (j = 0; j < y->s.njobs; j++) {
		struct kai_sched_snap_job *J = &y->jobs[j];
		uint32_t g = y->tasks[J->first_task].gpus, k;

		if (J->ntasks < 2 || g == 0)
			continue;
		for (k = 8 / g; k > 1 && J->ntasks % k != 0; k--)
			;
		J->tasks_per_node = k;
	}
}

/* -C: the nodes' features, eight requirements, a third of the jobs. */
static void
synth_constraints(struct synth *y)
{
	enum { A100 = 1, H100 = 2, IB = 4 };
	static const uint64_t a[] = {A100}, h[] = {H100}, ah[] = {A100, H100},
	    aib[] = {A100 | IB}, ahib[] = {A100 | IB, H100 | IB};
	static const struct {
		const uint64_t *alts;
		size_t n;
		bool match;
	} f[8] = {{a, 1, false}, {h, 1, false}, {ah, 2, false},
	    {ah, 2, true}, {aib, 1, false}, {NULL, 0, false}, {NULL, 0, false},
	    {ahib, 2, true}};
	size_t i, nn = y->s.nnodes, nlist = nn < 64 ? nn : 64,
		  nex = nn < 10 ? nn : 10;

	for (i = 0; i < nn; i++)
		y->nodes[i].features = (i % 2 ? H100 : A100) | (i % 4 < 2 ? IB : 0);
	y->req_nodes = kai_xcalloc(nlist + nex + 1, sizeof(*y->req_nodes));
	for (i = 0; i < nex; i++)
		y->req_nodes[i] = (uint32_t)i;
	for (i = 0; i < nlist; i++) /* every (nn / 64)-th node */
		y->req_nodes[nex + i] = (uint32_t)(i * (nn / nlist));
	for (i = 0; i < 8; i++) {
		y->reqs[i].text = "bench";
		y->reqs[i].alts = f[i].alts;
		y->reqs[i].nalts = f[i].n;
		y->reqs[i].match = f[i].match;
	}
	y->reqs[5].never = y->req_nodes;
	y->reqs[5].nnever = nex;
	y->reqs[6].only_set = true;
	y->reqs[6].only = y->req_nodes + nex;
	y->reqs[6].nonly = nlist;
	y->s.nodereqs = y->reqs;
	y->s.nnodereqs = 8;
	for (i = 0; i < y->s.njobs; i++)
		if (i % 3 == 0)
			y->jobs[i].nodereq = 1 + (uint32_t)((i / 3) % 8);
}

/* -g: the nodes' types, two settings per leaf queue, half the jobs. */
static void
synth_types(struct synth *y, size_t ntypes)
{
	size_t i;

	if (ntypes == 0)
		return;
	for (i = 0; i < y->s.nnodes; i++)
		y->nodes[i].gpu_type = type_names[i % ntypes];
	y->qtypes = kai_xcalloc(2 * y->s.nqueues, sizeof(*y->qtypes));
	for (i = NDEPT; i < y->s.nqueues; i++) {
		struct kai_sched_qtype *x = &y->qtypes[2 * i];

		x[0].type = type_names[0];
		x[0].quota = 0;
		x[0].limit = y->queues[i].res[KAI_SCHED_GPU].quota / 2;
		x[0].weight = -1;
		x[1].type = type_names[1 % ntypes];
		x[1].quota = 0;
		x[1].limit = -1;
		x[1].weight = 1 + (double)(i % 2);
		y->queues[i].types = x;
		y->queues[i].ntypes = ntypes > 1 ? 2 : 1;
	}
	/* A job's type is 1 + its index among the snapshot's job types. */
	y->s.gpu_types = type_names;
	y->s.ngpu_types = ntypes;
	for (i = 0; i < y->s.njobs; i++)
		if (i % 2 == 0)
			y->jobs[i].gpu_type = (uint16_t)(1 + (i / 2) % ntypes);
}

static void
synth_init(struct synth *y, size_t nodes, size_t njobs, size_t nq)
{
	struct bench_rng rng = {UINT64_C(0x9e3779b97f4a7c15)};
	size_t i;

	memset(y, 0, sizeof(*y));
	kai_sched_config_init(&y->s.config);
	y->names = kai_xcalloc(nodes + nq + NDEPT + njobs + NUSERS, NAMELEN);
	y->nodes = kai_xcalloc(nodes, sizeof(*y->nodes));
	for (i = 0; i < nodes; i++) {
		y->nodes[i].name = name(y, "node", i);
		y->nodes[i].gpus = 8;
		y->nodes[i].gpu_memory_mib = 81920;
		y->nodes[i].cpu_millis = 128000;
		y->nodes[i].memory_mib = INT64_C(2) * 1024 * 1024;
	}
	y->s.nodes = y->nodes;
	y->s.nnodes = nodes;
	synth_queues(y, nq, nodes);
	y->users = kai_xcalloc(NUSERS, sizeof(*y->users));
	for (i = 0; i < NUSERS; i++) {
		y->users[i].name = name(y, "u", i);
		y->users[i].usage = (double)bench_below(&rng, 100) / 1000.0;
	}
	y->s.users = y->users;
	y->s.nusers = NUSERS;
	synth_jobs(y, &rng, njobs, nq);
	y->s.now = 1000000000;
}

static void
synth_fini(struct synth *y)
{
	free(y->nodes);
	free(y->queues);
	free(y->users);
	free(y->jobs);
	free(y->tasks);
	free(y->names);
	free(y->qtypes);
	free(y->req_nodes);
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct timing {
	double wall, cpu; /* medians (-m: minima), ms */
};

/* -m: the fastest run, not the median (what a loaded host spoils least). */
static bool fastest;

/*
 * Runs the snapshot `runs` times, through context c as kaid does (NULL:
 * kai_sched_cycle(), nothing kept between runs); medians of wall and
 * CPU time.
 */
static struct timing
timed(struct kai_sched_ctx *c, const struct kai_sched_snapshot *s,
    unsigned runs, struct kai_sched_result *keep)
{
	double *wall = kai_xcalloc(runs, sizeof(*wall));
	double *cpu = kai_xcalloc(runs, sizeof(*cpu));
	struct timing t;
	struct kai_err err;
	unsigned i;

	for (i = 0; i < runs; i++) {
		struct kai_sched_result r;
		double w0 = bench_now_ms(), c0 = bench_cpu_ms();

		int rc = c != NULL ? kai_sched_cycle_ctx(c, s, &r, &err)
				   : kai_sched_cycle(s, &r, &err);

		if (rc != 0) {
			(void)fprintf(stderr, "sched-bench: %s\n", err.msg);
			exit(1);
		}
		wall[i] = bench_now_ms() - w0;
		cpu[i] = bench_cpu_ms() - c0;
		/* The last run's result: one result alive at a time, as
		 * in kaid, so that the peak RSS is a cycle's. */
		if (i + 1 == runs && keep != NULL)
			*keep = r;
		else
			kai_sched_result_fini(&r);
	}
	qsort(wall, runs, sizeof(*wall), dbl_cmp);
	qsort(cpu, runs, sizeof(*cpu), dbl_cmp);
	t.wall = wall[fastest ? 0 : runs / 2];
	t.cpu = cpu[fastest ? 0 : runs / 2];
	free(wall);
	free(cpu);
	return t;
}

/* The cluster as r left it: its placements run, the rest waits. */
static void
settle(struct synth *y, const struct kai_sched_result *r)
{
	size_t t;

	for (t = 0; t < y->s.ntasks; t++) {
		const struct kai_sched_task_out *o = &r->tasks[t];

		if (o->state != KAI_SCHED_TASK_RUNNING &&
		    o->state != KAI_SCHED_TASK_PIPELINED)
			continue;
		y->tasks[t].state = KAI_SCHED_TASK_RUNNING;
		y->tasks[t].node = o->node;
		y->tasks[t].gpu_mask = o->gpu_mask;
	}
}

/* Pending jobs of r that have a start estimate. */
static size_t
estimated(const struct kai_sched_result *r)
{
	size_t j, n = 0;

	for (j = 0; j < r->njobs; j++)
		n += r->jobs[j].state == KAI_SCHED_JOB_PENDING &&
		    r->jobs[j].est_start != KAI_SCHED_NO_TIME;
	return n;
}

/* -P: the full cycle phase by phase, each figure a median of runs. */
static void
split_full(struct kai_sched_ctx *c, struct kai_sched_snapshot *s,
    unsigned runs)
{
	struct timing t;
	uint32_t k, n = s->config.nphases;

	(void)timed(c, s, 1, NULL); /* the context's first fill */
	for (k = 0; k <= n; k++) {
		s->config.nphases = k;
		t = timed(c, s, runs, NULL);
		(void)printf("  full cycle, first %u phase%s %7.1f / %7.1f ms\n",
		    k, k == 1 ? ": " : "s:", t.wall, t.cpu);
	}
	s->config.est_jobs = 0;
	t = timed(c, s, runs, NULL);
	(void)printf("  full cycle, no estimate:    %7.1f / %7.1f ms\n", t.wall,
	    t.cpu);
}

static void
synthetic(size_t nodes, size_t njobs, size_t nq, unsigned runs, uint32_t est,
    uint32_t bf, size_t ntypes, bool stateless, bool groups, bool cons,
    enum kai_sched_placement pl, bool split)
{
	struct kai_sched_ctx *c = stateless ? NULL : kai_sched_ctx_new();
	struct synth y;
	struct kai_sched_result r1;
	struct timing full, none, none_all;
	double busy = 0;
	size_t i;

	synth_init(&y, nodes, njobs, nq);
	synth_types(&y, ntypes);
	if (groups)
		synth_groups(&y);
	if (cons)
		synth_constraints(&y);
	y.s.config.est_jobs = est;
	y.s.config.bf_reservations = bf;
	y.s.config.placement = y.s.config.gpu_placement = pl;
	(void)printf("synthetic: %zu nodes x 8 GPUs, %zu pending jobs (%zu "
		     "tasks) in %zu queues, %zu GPU types, %s, %s of %u "
		     "runs (wall / CPU)%s%s%s\n",
	    nodes, njobs, y.s.ntasks, nq, ntypes, PLACEMENTS[pl],
	    fastest ? "fastest" : "median", runs,
	    stateless ? ", no context" : "",
	    groups ? ", gangs in node groups" : "",
	    cons ? ", a third of the jobs with node requirements" : "");
	if (split) {
		split_full(c, &y.s, runs);
		kai_sched_ctx_free(c);
		synth_fini(&y);
		return;
	}
	full = timed(c, &y.s, runs, &r1);
	for (i = 0; i < r1.nqueues; i++)
		if (y.queues[i].parent >= 0)
			busy += (double)r1.queues[i].allocated[KAI_SCHED_GPU];
	(void)printf("  full cycle, empty cluster:   %7.1f / %7.1f ms  (%zu "
		     "tasks placed, %.1f%% of GPUs)\n",
	    full.wall, full.cpu, r1.placed,
	    100.0 * busy / ((double)nodes * 8 * KAI_SCHED_GPU_UNIT));
	(void)printf("  placements per second:       %7.0f / %7.0f\n",
	    (double)r1.placed / (full.wall / 1000.0),
	    (double)r1.placed / (full.cpu / 1000.0));
	settle(&y, &r1);
	kai_sched_result_fini(&r1);
	y.s.config.nphases = 0;
	none = timed(c, &y.s, runs, NULL);
	(void)printf("  no phase (session, result):  %7.1f / %7.1f ms\n",
	    none.wall, none.cpu);
	y.s.config.phases[0] = KAI_SCHED_ALLOCATE;
	y.s.config.nphases = 1;
	none = timed(c, &y.s, runs, NULL);
	(void)printf("  nothing fits, allocate only: %7.1f / %7.1f ms\n",
	    none.wall, none.cpu);
	kai_sched_config_init(&y.s.config);
	y.s.config.est_jobs = est;
	y.s.config.bf_reservations = bf;
	y.s.config.placement = y.s.config.gpu_placement = pl;
	none_all = timed(c, &y.s, runs, &r1);
	(void)printf("  nothing fits, all phases:    %7.1f / %7.1f ms  (%zu "
		     "placed, %zu evicted, %zu moved, %zu estimated)\n",
	    none_all.wall, none_all.cpu, r1.placed, r1.evicted, r1.moved,
	    estimated(&r1));
	kai_sched_result_fini(&r1);
	if (c != NULL)
		bench_steady(c, &y.s, y.jobs, y.tasks, runs);
	if (c != NULL)
		(void)printf("  kept by the context:         %7.1f MiB\n",
		    (double)kai_sched_ctx_kept(c) / (1024.0 * 1024.0));
	kai_sched_ctx_free(c);
	synth_fini(&y);
}

static void
usage(FILE *f)
{
	(void)fprintf(f,
	    "usage: sched-bench [-n NODES] [-j JOBS] [-q QUEUES] "
	    "[-r RUNS] [-s SEEDS] [-e EST] [-B RESV] [-U] [-g TYPES] [-G] [-C]\n"
	    "    [-m] [-P] [-S] [-p binpack|spread|frag] [-t TRACEDIR [-c CURVE] "
	    "[-T COMPRESS]] [-b]\n");
}

int
main(int argc, char **argv)
{
	unsigned long nodes = 5000, jobs = 100000, nq = 50, runs = 5,
		      seeds = 10;
	unsigned long est = KAI_SCHED_EST_JOBS;
	const char *trace = NULL, *curve = NULL;
	unsigned long compress = 0, bf = 0, ntypes = 0;
	enum kai_sched_placement pl = KAI_SCHED_BINPACK;
	bool stateless = false, groups = false, cons = false, split = false;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "bB:c:Che:g:Gmn:j:p:Pq:r:s:St:T:U")) != -1) {
		switch (c) {
		case 'p':
			for (i = 0; PLACEMENTS[i] != NULL &&
			     strcmp(PLACEMENTS[i], optarg) != 0;
			     i++)
				;
			pl = (enum kai_sched_placement)i;
			if (PLACEMENTS[i] == NULL) {
				(void)fprintf(stderr,
				    "sched-bench: invalid placement \"%s\": "
				    "expected binpack, spread or frag\n",
				    optarg);
				return 2;
			}
			break;
		case 'P':
			split = true;
			break;
		case 'm':
			fastest = true;
			break;
		case 'b':
			bench_starve();
			return 0;
		case 'B':
			bf = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			curve = optarg;
			break;
		case 'e':
			est = strtoul(optarg, NULL, 10);
			break;
		case 'g':
			ntypes = strtoul(optarg, NULL, 10);
			break;
		case 'G':
			groups = true;
			break;
		case 'C':
			cons = true;
			break;
		case 'n':
			nodes = strtoul(optarg, NULL, 10);
			break;
		case 'j':
			jobs = strtoul(optarg, NULL, 10);
			break;
		case 'q':
			nq = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seeds = strtoul(optarg, NULL, 10);
			break;
		case 'S':
			stateless = true;
			break;
		case 't':
			trace = optarg;
			break;
		case 'T':
			compress = strtoul(optarg, NULL, 10);
			break;
		case 'U':
			unlimited = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (nodes == 0 || jobs == 0 || nq == 0 || runs == 0 || seeds == 0 ||
	    ntypes > MAX_TYPES) {
		usage(stderr);
		return 2;
	}
	synthetic(nodes, jobs, nq, (unsigned)runs, (uint32_t)est, (uint32_t)bf,
	    (size_t)ntypes, stateless, groups, cons, pl, split);
	if (trace != NULL && bench_trace(trace, (unsigned)seeds, curve) != 0)
		return 1;
	if (trace != NULL && compress > 0 &&
	    bench_time(trace, (unsigned)compress) != 0)
		return 1;
	(void)printf("peak RSS: %ld MiB\n", bench_peak_rss_kib() / 1024);
	return 0;
}
