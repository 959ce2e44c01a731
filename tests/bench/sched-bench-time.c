/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench-time.c: the Alibaba trace replayed with time running: each
 * pod arrives at its submit_s and, once started, ends after its
 * duration_s; a cycle (allocate only) runs every TICK_S seconds.
 *
 * The trace is far from saturating its cluster (its GPU-seconds are 0.2 %
 * of the 1,213 nodes' over its 149 days, and all its pods at once ask for
 * less than the cluster), so arrivals are compressed, submit_s /
 * COMPRESS, and the trace is played REPEAT times, one pass after the
 * other; durations are as they are but capped at CAP_S (a few pods ran
 * for months and would hold their GPUs through the whole run).
 * Pods that were never scheduled (no duration_s) are left out.  The
 * trace has no tenants: pod i goes to queue i mod 4, of over-quota
 * weights 1, 1, 2 and 4 and no quota, so every queue has the same mix
 * and, while all four have work waiting, their GPU shares should be
 * 1/8, 1/8, 2/8 and 4/8.
 *
 * Printed per placement: GPU utilisation, the queueing delay (start -
 * arrival) p50 and p99 of the pods that started, and per queue, over the
 * saturated ticks (every queue has a GPU pod still waiting after the
 * cycle and asks for more than its weights give), its mean share of the
 * allocated GPUs against its weights' share, and of the cluster against
 * the core's fair share.
 */
#include "config.h"

#include "sched-bench.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

#define TICK_S  60
#define CAP_S   3600 /* longest run, s */
#define REPEAT  16   /* passes over the trace */
#define NQ      4

static const double WEIGHT[NQ] = {1, 1, 2, 4};
#define WSUM 8.0
#define LINE    1024

struct tpod {
	int64_t submit, dur;
	uint32_t gpus;
	int64_t frac, cpu, mem;
	uint32_t q;
	int64_t start; /* NO_TIME: not started */
	int32_t node;
	uint64_t mask;
	bool done;
};

static int
read_timed(const char *dir, unsigned compress, struct tpod **out, size_t *n)
{
	char line[LINE], *f[BENCH_FIELDS];
	FILE *in = bench_open_in(dir, "alibaba_openb_2023_pods.csv");
	size_t cap = 16384 * REPEAT, one, i, k;
	struct kai_sched_snap_task t;
	struct kai_err err;
	int64_t span = 0;

	if (in == NULL)
		return -1;
	*out = kai_xcalloc(cap, sizeof(**out));
	*n = 0;
	while (fgets(line, sizeof(line), in) != NULL && *n < cap) {
		struct tpod *p = &(*out)[*n];

		if (bench_split(line, f) < 11 || strcmp(f[0], "job_id") == 0 ||
		    f[2][0] == '\0')
			continue;
		p->submit = strtoll(f[1], NULL, 10) / (int64_t)compress;
		p->dur = strtoll(f[2], NULL, 10);
		if (p->dur > CAP_S)
			p->dur = CAP_S;
		if (p->dur < 1)
			p->dur = 1;
		p->gpus = (uint32_t)strtoul(f[6], NULL, 10);
		p->frac = f[7][0] != '\0'
		    ? (int64_t)(strtod(f[7], NULL) * KAI_SCHED_GPU_UNIT + 0.5)
		    : 0;
		if (p->frac > 0)
			p->gpus = 0;
		p->cpu = strtoll(f[9], NULL, 10);
		p->mem = strtoll(f[10], NULL, 10);
		if (kai_sched_task_request(&t, p->gpus, (uint64_t)p->frac, 0,
			(uint64_t)p->cpu, (uint64_t)p->mem, &err) != 0) {
			(void)fprintf(stderr, "sched-bench: pod %zu of the "
			    "trace: %s\n", *n + 1, err.msg);
			(void)fclose(in);
			return -1;
		}
		p->start = KAI_SCHED_NO_TIME;
		if (p->submit > span)
			span = p->submit;
		(*n)++;
	}
	(void)fclose(in);
	/* The passes, one after the other; queues round-robin. */
	one = *n;
	for (k = 1; k < REPEAT; k++)
		for (i = 0; i < one; i++) {
			(*out)[*n] = (*out)[i];
			(*out)[*n].submit += (int64_t)k * (span + 1);
			(*n)++;
		}
	for (i = 0; i < *n; i++)
		(*out)[i].q = (uint32_t)(i % NQ);
	return 0;
}

static int64_t
ugpu(const struct tpod *p)
{
	return p->frac > 0 ? p->frac : (int64_t)p->gpus * KAI_SCHED_GPU_UNIT;
}

struct tsim {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_queue q[NQ];
	struct kai_sched_snap_job *jobs;
	struct kai_sched_snap_task *tasks;
	size_t *map;
	/* figures */
	double busy, ticks, sat, share[NQ], ofalloc[NQ], fair[NQ];
};

static int
i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* One tick: the live pods as a snapshot, a cycle, the placements. */
static void
tick(struct tsim *m, struct tpod *p, size_t np, int64_t now,
    int64_t cluster)
{
	struct kai_sched_result r;
	struct kai_err err;
	bool waits[NQ] = {false}, sat = true;
	double alloc = 0;
	size_t i, n = 0;
	int q;

	for (i = 0; i < np; i++) {
		struct kai_sched_snap_job *j = &m->jobs[n];
		struct kai_sched_snap_task *t = &m->tasks[n];

		if (p[i].done || p[i].submit > now)
			continue;
		kai_sched_job_init(j);
		j->name = "pod";
		j->queue = p[i].q;
		j->priority = 50;
		j->preemptible = true;
		j->created = p[i].submit;
		j->first_task = n;
		j->ntasks = 1;
		j->started = p[i].start;
		kai_sched_task_init(t);
		t->gpus = (uint8_t)p[i].gpus; /* bounded by read_timed() */
		t->gpu_fraction = (int32_t)p[i].frac;
		t->cpu_millis = (int32_t)p[i].cpu;
		t->memory_mib = (int32_t)p[i].mem;
		if (p[i].start != KAI_SCHED_NO_TIME) {
			t->state = KAI_SCHED_TASK_RUNNING;
			t->node = p[i].node;
			t->gpu_mask = p[i].mask;
		}
		m->map[n++] = i;
	}
	m->s.njobs = m->s.ntasks = n;
	m->s.now = now;
	if (kai_sched_cycle(&m->s, &r, &err) != 0) {
		(void)fprintf(stderr, "sched-bench: time replay: %s\n",
		    err.msg);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		struct tpod *x = &p[m->map[i]];

		if (x->start == KAI_SCHED_NO_TIME &&
		    r.jobs[i].state == KAI_SCHED_JOB_PENDING && ugpu(x) > 0)
			waits[x->q] = true; /* still waiting after the cycle */
		if (x->start != KAI_SCHED_NO_TIME ||
		    r.jobs[i].state != KAI_SCHED_JOB_RUNNING)
			continue;
		x->start = now;
		x->node = r.tasks[i].node;
		x->mask = r.tasks[i].gpu_mask;
	}
	m->ticks++;
	m->busy += (double)r.queues[0].allocated[KAI_SCHED_GPU] +
	    (double)r.queues[1].allocated[KAI_SCHED_GPU] +
	    (double)r.queues[2].allocated[KAI_SCHED_GPU] +
	    (double)r.queues[3].allocated[KAI_SCHED_GPU];
	for (q = 0; q < NQ; q++) {
		alloc += (double)r.queues[q].allocated[KAI_SCHED_GPU];
		/* Saturated: every queue asks for more than its weights give. */
		sat &= waits[q] &&
		    (double)r.queues[q].requested[KAI_SCHED_GPU] >=
			(double)cluster * WEIGHT[q] / WSUM;
	}
	if (sat && alloc > 0) {
		m->sat++;
		for (q = 0; q < NQ; q++) {
			double a = (double)r.queues[q].allocated[KAI_SCHED_GPU];

			m->share[q] += a / (double)cluster;
			m->ofalloc[q] += a / alloc;
			m->fair[q] += (double)r.queues[q].fair_share[KAI_SCHED_GPU] /
			    (double)cluster;
		}
	}
	kai_sched_result_fini(&r);
}

static void
run(const struct kai_sched_snap_node *nodes, size_t nn, const struct tpod *in,
    size_t np, enum kai_sched_placement pl, int64_t cluster)
{
	struct tpod *p = kai_xcalloc(np, sizeof(*p));
	int64_t *delay = kai_xcalloc(np + 1, sizeof(*delay));
	int64_t now, last = 0;
	struct tsim m;
	size_t i, nd = 0, left = np;
	double t0 = bench_now_ms();
	int q;

	memcpy(p, in, np * sizeof(*p));
	memset(&m, 0, sizeof(m));
	kai_sched_config_init(&m.s.config);
	m.s.config.phases[0] = KAI_SCHED_ALLOCATE;
	m.s.config.nphases = 1;
	m.s.config.est_jobs = 0;
	m.s.config.placement = m.s.config.gpu_placement = pl;
	for (q = 0; q < NQ; q++) {
		kai_sched_queue_init(&m.q[q]);
		m.q[q].name = "q";
		m.q[q].res[KAI_SCHED_GPU].quota = 0;
		m.q[q].res[KAI_SCHED_GPU].weight = WEIGHT[q];
	}
	m.jobs = kai_xcalloc(np, sizeof(*m.jobs));
	m.tasks = kai_xcalloc(np, sizeof(*m.tasks));
	m.map = kai_xcalloc(np, sizeof(*m.map));
	m.s.nodes = nodes;
	m.s.nnodes = nn;
	m.s.queues = m.q;
	m.s.nqueues = NQ;
	m.s.jobs = m.jobs;
	m.s.tasks = m.tasks;
	for (i = 0; i < np; i++)
		if (p[i].submit > last)
			last = p[i].submit;
	for (now = 0; left > 0 && now <= last + 7 * 24 * 3600; now += TICK_S) {
		for (i = 0; i < np; i++)
			if (!p[i].done && p[i].start != KAI_SCHED_NO_TIME &&
			    p[i].start + p[i].dur <= now) {
				p[i].done = true;
				left--;
			}
		tick(&m, p, np, now, cluster);
	}
	for (i = 0; i < np; i++)
		if (p[i].start != KAI_SCHED_NO_TIME && ugpu(&p[i]) > 0)
			delay[nd++] = p[i].start - p[i].submit;
	qsort(delay, nd, sizeof(*delay), i64_cmp);
	(void)printf("  %-8s utilisation %5.1f%%, delay p50 %6.0f s, p99 %7.0f "
		     "s, %zu of %zu pods run, %.0f ms per cycle\n",
	    pl == KAI_SCHED_FRAG	 ? "frag"
		: pl == KAI_SCHED_SPREAD ? "spread"
					 : "binpack",
	    100.0 * m.busy / (m.ticks * (double)cluster),
	    nd ? (double)delay[nd / 2] : 0, nd ? (double)delay[nd * 99 / 100] : 0,
	    np - left, np, (bench_now_ms() - t0) / m.ticks);
	if (m.sat > 0)
		(void)printf("    %.0f saturated ticks (every queue asks for more "
			     "than its weights give):\n",
		    m.sat);
	for (q = 0; q < NQ && m.sat > 0; q++)
		(void)printf("    queue %d (weight %.0f): %5.2f%% of the allocated "
			     "GPUs, weights give %5.2f%% (%+.2f); %5.2f%% of the "
			     "cluster, fair share %5.2f%%\n",
		    q, WEIGHT[q], 100.0 * m.ofalloc[q] / m.sat,
		    100.0 * WEIGHT[q] / WSUM,
		    100.0 * (m.ofalloc[q] / m.sat - WEIGHT[q] / WSUM),
		    100.0 * m.share[q] / m.sat, 100.0 * m.fair[q] / m.sat);
	free(p);
	free(delay);
	free(m.jobs);
	free(m.tasks);
	free(m.map);
}

int
bench_time(const char *dir, unsigned compress)
{
	static const enum kai_sched_placement pl[] = {KAI_SCHED_BINPACK,
	    KAI_SCHED_FRAG};
	struct kai_sched_snap_node *nodes = NULL;
	struct tpod *pods = NULL;
	char **names = NULL;
	size_t nn = 0, np = 0, i;
	int64_t cluster = 0;
	double load = 0, span = 0;

	if (bench_read_nodes(dir, &nodes, &nn, &names) != 0 ||
	    read_timed(dir, compress, &pods, &np) != 0 || nn == 0 || np == 0) {
		(void)fprintf(stderr,
		    "sched-bench: no nodes or pods in \"%s\"\n", dir);
		free(nodes);
		free(pods);
		return -1;
	}
	for (i = 0; i < nn; i++)
		cluster += (int64_t)nodes[i].gpus * KAI_SCHED_GPU_UNIT;
	for (i = 0; i < np; i++) {
		load += (double)ugpu(&pods[i]) * (double)pods[i].dur;
		if ((double)pods[i].submit > span)
			span = (double)pods[i].submit;
	}
	(void)printf("time replay: %zu pods (%d passes over the pods with a "
		     "duration), arrivals compressed %ux (%.1f h), durations "
		     "capped at %d h, offered load %.0f%% of the GPUs, 4 queues "
		     "of weights 1:1:2:4, a cycle every %d s\n",
	    np, REPEAT, compress, span / 3600.0, CAP_S / 3600,
	    100.0 * load / (span * (double)cluster), TICK_S);
	for (i = 0; i < sizeof(pl) / sizeof(pl[0]); i++)
		run(nodes, nn, pods, np, pl[i], cluster);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	free(nodes);
	free(pods);
	return 0;
}
