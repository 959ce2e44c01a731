/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench-trace.c: the Alibaba 2023 GPU-sharing trace replayed the
 * way the ATC '23 paper measured it (shared/traces/README.md, "How the
 * published ATC '23 numbers were made"):
 *	- the cluster is the 1,213 GPU nodes of nodes.csv (6,212 GPUs);
 *	- pods are drawn at random, with replacement, from the pod list
 *	  until their GPU requests reach 130 % of the cluster's GPUs;
 *	- they arrive one by one in that random order and never finish;
 *	- the figure is the share of GPUs allocated at the end.
 * One allocate cycle over all of them in arrival order is the same as
 * scheduling each as it arrives, since nothing departs and the core
 * serves jobs of one queue and one priority oldest first.  The draw is
 * the bench's (its own seeds, 1..SEEDS), never the core's; results are
 * the mean over the seeds, for the paper's random baseline (played by
 * the bench, random_fit()) and the core's binpack, spread and frag.
 * With a curve file, the share of GPUs allocated as the arrivals reach
 * 5 %, 10 %, ... 130 % of the GPUs, per policy, as CSV
 * (doc/sched-frag-plot.py plots it).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched-bench.h"

#define LINE_MAX_LEN 1024
#define FIELDS       12

struct pod {
	uint32_t gpus;
	int64_t frac; /* uGPU, 0 = whole GPUs */
	int64_t cpu, mem;
};

/* Splits line at commas into at most FIELDS fields (no quoting here). */
int
bench_split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	f[n++] = line;
	for (; *line != '\0' && n < FIELDS; line++)
		if (*line == ',') {
			*line = '\0';
			f[n++] = line + 1;
		}
	return n;
}

FILE *
bench_open_in(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((f = fopen(path, "r")) == NULL)
		(void)fprintf(stderr, "sched-bench: could not open \"%s\"\n",
		    path);
	return f;
}

int
bench_read_nodes(const char *dir, struct kai_sched_snap_node **out, size_t *n,
    char ***names)
{
	char line[LINE_MAX_LEN], *f[FIELDS];
	FILE *in = bench_open_in(dir, "nodes.csv");
	size_t cap = 2048;

	if (in == NULL)
		return -1;
	*out = kai_xcalloc(cap, sizeof(**out));
	*names = kai_xcalloc(cap, sizeof(**names));
	*n = 0;
	/* name,gpus,gpu_memory_mib,cpu_millis,memory_mib,model */
	while (fgets(line, sizeof(line), in) != NULL) {
		struct kai_sched_snap_node *nd;
		long gpus;

		if (bench_split(line, f) < 5 || strcmp(f[0], "name") == 0 ||
		    (gpus = strtol(f[1], NULL, 10)) <= 0 || *n == cap)
			continue;
		nd = &(*out)[*n];
		(*names)[*n] = kai_xstrdup(f[0]);
		nd->name = (*names)[*n];
		nd->gpus = (uint32_t)gpus;
		nd->gpu_memory_mib = strtoll(f[2], NULL, 10);
		nd->cpu_millis = strtoll(f[3], NULL, 10);
		nd->memory_mib = strtoll(f[4], NULL, 10);
		(*n)++;
	}
	(void)fclose(in);
	return 0;
}

static int
read_pods(const char *dir, struct pod **out, size_t *n)
{
	char line[LINE_MAX_LEN], *f[FIELDS];
	FILE *in = bench_open_in(dir, "alibaba_openb_2023_pods.csv");
	struct kai_sched_snap_task t;
	struct kai_err err;
	size_t cap = 16384;

	if (in == NULL)
		return -1;
	*out = kai_xcalloc(cap, sizeof(**out));
	*n = 0;
	/* job_id,submit_s,duration_s,queue,user,tasks,gpus_per_task,
	 * gpu_fraction,gpu_memory_mib,cpu_millis,memory_mib */
	while (fgets(line, sizeof(line), in) != NULL && *n < cap) {
		struct pod *p = &(*out)[*n];

		if (bench_split(line, f) < 11 || strcmp(f[0], "job_id") == 0)
			continue;
		p->gpus = (uint32_t)strtoul(f[6], NULL, 10);
		p->frac = f[7][0] != '\0'
		    ? (int64_t)(strtod(f[7], NULL) * KAI_SCHED_GPU_UNIT + 0.5)
		    : 0;
		if (p->frac > 0)
			p->gpus = 0;
		p->cpu = strtoll(f[9], NULL, 10);
		p->mem = strtoll(f[10], NULL, 10);
		/* Negative figures wrap to huge ones and are refused too. */
		if (kai_sched_task_request(&t, p->gpus, (uint64_t)p->frac, 0,
			(uint64_t)p->cpu, (uint64_t)p->mem, &err) != 0) {
			(void)fprintf(stderr, "sched-bench: pod %zu of the "
			    "trace: %s\n", *n + 1, err.msg);
			(void)fclose(in);
			return -1;
		}
		(*n)++;
	}
	(void)fclose(in);
	return 0;
}

struct replay {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job *jobs;
	struct kai_sched_snap_task *tasks;
};

/* Draws pods until they ask for 130 % of the GPUs; returns how many. */
static size_t
draw(struct replay *rp, const struct pod *pods, size_t npods,
    int64_t cluster_ugpu, uint64_t seed, size_t cap)
{
	struct bench_rng rng = {seed * UINT64_C(0x9e3779b97f4a7c15) + 1};
	int64_t asked = 0, want = cluster_ugpu / 10 * 13;
	size_t n = 0;

	while (asked < want && n < cap) {
		const struct pod *p = &pods[bench_below(&rng, (uint32_t)npods)];
		struct kai_sched_snap_task *t = &rp->tasks[n];
		struct kai_sched_snap_job *j = &rp->jobs[n];

		kai_sched_job_init(j);
		j->name = "pod";
		j->priority = 50;
		j->preemptible = true;
		j->created = (int64_t)n;
		j->first_task = n;
		j->ntasks = 1;
		kai_sched_task_init(t);
		t->gpus = (uint8_t)p->gpus; /* within bounds: read_pods() */
		t->gpu_fraction = (int32_t)p->frac;
		t->cpu_millis = (int32_t)p->cpu;
		t->memory_mib = (int32_t)p->mem;
		asked += p->frac > 0 ? p->frac
				     : (int64_t)p->gpus * KAI_SCHED_GPU_UNIT;
		n++;
	}
	return n;
}

static void
replay_init(struct replay *rp, struct kai_sched_snap_node *nodes, size_t nn,
    size_t cap)
{
	memset(rp, 0, sizeof(*rp));
	kai_sched_config_init(&rp->s.config);
	rp->s.config.phases[0] = KAI_SCHED_ALLOCATE;
	rp->s.config.nphases = 1;
	kai_sched_queue_init(&rp->q);
	rp->q.name = "trace";
	rp->jobs = kai_xcalloc(cap, sizeof(*rp->jobs));
	rp->tasks = kai_xcalloc(cap, sizeof(*rp->tasks));
	rp->s.nodes = nodes;
	rp->s.nnodes = nn;
	rp->s.queues = &rp->q;
	rp->s.nqueues = 1;
	rp->s.jobs = rp->jobs;
	rp->s.tasks = rp->tasks;
}

#define NPOL    4 /* random, then the core's binpack, spread and frag */
#define NPOINTS 26 /* the curve: every 5 % of the GPUs, 5 % to 130 % */
#define RF_GPUS 8  /* random_fit(): devices per node at most */

/* Whether task t fits on node n's idle cpu, mem and idle[] devices. */
static bool
rf_fits(const struct kai_sched_snap_task *t, int64_t cpu, int64_t mem,
    const int32_t *idle, uint32_t ngpu)
{
	uint32_t d, full = 0;

	if (t->cpu_millis > cpu || t->memory_mib > mem)
		return false;
	for (d = 0; d < ngpu; d++) {
		if (t->gpu_fraction > 0 && idle[d] >= t->gpu_fraction)
			return true;
		full += idle[d] == KAI_SCHED_GPU_UNIT;
	}
	return t->gpu_fraction == 0 && full >= t->gpus;
}

/*
 * The paper's random baseline, which the core has not (its placements
 * are deterministic), so the bench plays it itself: each pod in arrival
 * order goes to a node drawn at random among those where it fits on idle
 * CPU, memory and GPUs; a fraction to a GPU of it drawn at random among
 * those with room, whole GPUs to the lowest idle ones (all alike).
 * ran[j] says whether pod j runs; returns the micro-GPUs allocated.
 */
static int64_t
random_fit(const struct replay *rp, uint64_t seed, bool *ran)
{
	struct bench_rng rng = {seed * UINT64_C(0xbf58476d1ce4e5b9) + 7};
	size_t nn = rp->s.nnodes, j, n;
	int64_t *cpu = kai_xcalloc(nn, sizeof(*cpu));
	int64_t *mem = kai_xcalloc(nn, sizeof(*mem)), got = 0;
	int32_t *idle = kai_xcalloc(nn * RF_GPUS, sizeof(*idle));
	uint32_t *fit = kai_xcalloc(nn, sizeof(*fit)), d, nf, k;

	for (n = 0; n < nn; n++) {
		cpu[n] = rp->s.nodes[n].cpu_millis;
		mem[n] = rp->s.nodes[n].memory_mib;
		for (d = 0; d < rp->s.nodes[n].gpus && d < RF_GPUS; d++)
			idle[n * RF_GPUS + d] = KAI_SCHED_GPU_UNIT;
	}
	for (j = 0; j < rp->s.njobs; j++) {
		const struct kai_sched_snap_task *t = &rp->tasks[j];
		int32_t *v;

		for (n = 0, nf = 0; n < nn; n++)
			if (rf_fits(t, cpu[n], mem[n], &idle[n * RF_GPUS],
				rp->s.nodes[n].gpus))
				fit[nf++] = (uint32_t)n;
		if (!(ran[j] = nf > 0))
			continue;
		n = fit[bench_below(&rng, nf)];
		v = &idle[n * RF_GPUS];
		cpu[n] -= t->cpu_millis;
		mem[n] -= t->memory_mib;
		if (t->gpu_fraction > 0) {
			for (d = 0, k = 0; d < rp->s.nodes[n].gpus; d++)
				if (v[d] >= t->gpu_fraction)
					fit[k++] = d;
			v[fit[bench_below(&rng, k)]] -= (int32_t)t->gpu_fraction;
			got += t->gpu_fraction;
			continue;
		}
		for (d = 0, k = 0; k < t->gpus; d++)
			if (v[d] == KAI_SCHED_GPU_UNIT) {
				v[d] = 0;
				k++;
			}
		got += (int64_t)t->gpus * KAI_SCHED_GPU_UNIT;
	}
	free(cpu);
	free(mem);
	free(idle);
	free(fit);
	return got;
}

/*
 * Adds to curve[0..NPOINTS) the share of GPUs allocated once the
 * arrivals have asked for 5 %, 10 %, ... of the cluster's GPUs: one
 * queue, one priority, nothing departs, so job i's fate is decided when
 * it arrives and never changes.
 */
static void
add_curve(const struct replay *rp, const bool *ran, int64_t cluster,
    double *curve)
{
	int64_t asked = 0, got = 0;
	size_t j, pt = 0;

	for (j = 0; j < rp->s.njobs && pt < NPOINTS; j++) {
		const struct kai_sched_snap_task *t = &rp->tasks[j];
		int64_t u = t->gpu_fraction > 0
		    ? t->gpu_fraction
		    : (int64_t)t->gpus * KAI_SCHED_GPU_UNIT;

		asked += u;
		if (ran[j])
			got += u;
		while (pt < NPOINTS &&
		    asked >= cluster / 20 * (int64_t)(pt + 1)) {
			curve[pt] += (double)got / (double)cluster;
			pt++;
		}
	}
	for (; pt < NPOINTS; pt++)
		curve[pt] += (double)got / (double)cluster;
}

static void
write_curve(const char *path, double curve[NPOL][NPOINTS], unsigned seeds)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (f == NULL) {
		(void)fprintf(stderr, "sched-bench: could not write \"%s\"\n",
		    path);
		exit(1);
	}
	(void)fprintf(f, "arrived_pct,random,binpack,spread,frag\n");
	for (i = 0; i < NPOINTS; i++)
		(void)fprintf(f, "%zu,%.4f,%.4f,%.4f,%.4f\n", 5 * (i + 1),
		    100.0 * curve[0][i] / seeds, 100.0 * curve[1][i] / seeds,
		    100.0 * curve[2][i] / seeds, 100.0 * curve[3][i] / seeds);
	(void)fclose(f);
}

static void
replay_run(struct replay *rp, const struct pod *pods, size_t npods,
    int64_t cluster, unsigned seeds, const char *curve_path)
{
	static const char *const names[NPOL] = {"random", "binpack",
	    "spread", "frag"};
	static const enum kai_sched_placement pol[NPOL] = {KAI_SCHED_BINPACK,
	    KAI_SCHED_BINPACK, KAI_SCHED_SPREAD, KAI_SCHED_FRAG};
	double share[NPOL] = {0}, ms[NPOL] = {0}, cpu[NPOL] = {0};
	double placed[NPOL] = {0}, lo[NPOL], hi[NPOL];
	double curve[NPOL][NPOINTS];
	size_t cap = 4 * npods, n = 0, j;
	bool *ran = kai_xcalloc(cap, sizeof(*ran));
	unsigned s;
	int p;

	memset(curve, 0, sizeof(curve));
	for (s = 1; s <= seeds; s++) {
		n = draw(rp, pods, npods, cluster, s, cap);
		rp->s.njobs = rp->s.ntasks = n;
		for (p = 0; p < NPOL; p++) {
			struct kai_sched_result r;
			struct kai_err err;
			double t0 = bench_now_ms(), c0 = bench_cpu_ms(), x;
			int64_t got;

			if (p == 0) {
				got = random_fit(rp, s, ran);
			} else {
				rp->s.config.placement = pol[p];
				rp->s.config.gpu_placement = pol[p];
				if (kai_sched_cycle(&rp->s, &r, &err) != 0) {
					(void)fprintf(stderr,
					    "sched-bench: %s\n", err.msg);
					exit(1);
				}
				got = r.queues[0].allocated[KAI_SCHED_GPU];
				for (j = 0; j < n; j++)
					ran[j] = r.jobs[j].state ==
					    KAI_SCHED_JOB_RUNNING;
				kai_sched_result_fini(&r);
			}
			ms[p] += bench_now_ms() - t0;
			cpu[p] += bench_cpu_ms() - c0;
			x = (double)got / (double)cluster;
			share[p] += x;
			lo[p] = s == 1 || x < lo[p] ? x : lo[p];
			hi[p] = s == 1 || x > hi[p] ? x : hi[p];
			for (j = 0; j < n; j++)
				placed[p] += ran[j];
			add_curve(rp, ran, cluster, curve[p]);
		}
	}
	free(ran);
	(void)printf("trace replay: %zu GPU nodes, %.0f GPUs, %zu pods per "
		     "draw (130%% of the GPUs), mean of %u seeds\n",
	    rp->s.nnodes, (double)cluster / KAI_SCHED_GPU_UNIT, n, seeds);
	for (p = 0; p < NPOL; p++)
		(void)
		    printf("  %-8s GPUs allocated %5.2f%% (seeds %5.2f-%5.2f%%), "
			   "%6.0f pods placed, %6.1f / %6.1f ms per cycle "
			   "(wall / CPU)\n",
			names[p], 100.0 * share[p] / seeds, 100.0 * lo[p],
			100.0 * hi[p], placed[p] / seeds, ms[p] / seeds,
			cpu[p] / seeds);
	if (curve_path != NULL)
		write_curve(curve_path, curve, seeds);
}

int
bench_trace(const char *dir, unsigned seeds, const char *curve_path)
{
	struct kai_sched_snap_node *nodes = NULL;
	struct pod *pods = NULL;
	struct replay rp;
	char **names = NULL;
	size_t nn = 0, npods = 0, i;
	int64_t cluster = 0;

	if (bench_read_nodes(dir, &nodes, &nn, &names) != 0 ||
	    read_pods(dir, &pods, &npods) != 0 || nn == 0 || npods == 0) {
		(void)fprintf(stderr,
		    "sched-bench: no nodes or pods in \"%s\"\n", dir);
		free(nodes);
		free(pods);
		return -1;
	}
	for (i = 0; i < nn; i++)
		cluster += (int64_t)nodes[i].gpus * KAI_SCHED_GPU_UNIT;
	replay_init(&rp, nodes, nn, 4 * npods);
	replay_run(&rp, pods, npods, cluster, seeds, curve_path);
	free(rp.jobs);
	free(rp.tasks);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	free(nodes);
	free(pods);
	return 0;
}
