/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench-starve.c: does a big gang starve?  A time-running
 * simulation of the case backfill exists for, with and without it.
 *
 * Four nodes of 8 GPUs, full of 1-GPU jobs at time 0.  A gang of 4 x 8
 * GPUs (priority 80, the head of the order) arrives at 0; 1-GPU jobs
 * (priority 50) keep arriving, one every ARRIVE_S seconds, more than the
 * cluster can run (saturation).  Each 1-GPU job runs a random 10 to 60
 * minutes and asks for a time limit of 1.5 times that, rounded up to 10
 * minutes, so that, as on a real cluster, jobs end before their limits.
 * A cycle (allocate only) runs every TICK_S seconds; a job placed at a
 * tick starts then.  Printed: when the gang started, the cluster's GPU
 * utilisation and the 1-GPU jobs' mean wait, for 0 and for 4
 * reservations.  Without backfill every GPU that frees goes to a 1-GPU
 * job, and the gang waits until the horizon.
 */
#include "config.h"

#include "sched-bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

#define NNODES     4
#define NGPUS      8
#define TICK_S     10
#define ARRIVE_S   60
#define HORIZON_S  (48 * 3600)
#define GANG_TASKS 4
#define MAXJOBS    (HORIZON_S / ARRIVE_S + NNODES * NGPUS + 2)

struct sjob {
	int64_t submit, dur, limit;
	int64_t start; /* KAI_SCHED_NO_TIME while pending */
	uint32_t ntasks, gpus;
	int32_t node[GANG_TASKS];
	uint64_t mask[GANG_TASKS];
	bool done;
};

struct sim {
	struct sjob *jobs;
	size_t njobs;
	struct kai_sched_snap_node nodes[NNODES];
	char nnames[NNODES][8];
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job *sj;
	struct kai_sched_snap_task *st;
	uint32_t *map; /* snapshot job -> sim job */
	int64_t first_est; /* the gang's first start estimate */
	char (*names)[24];
};

static size_t
add(struct sim *m, int64_t submit, int64_t dur, int64_t limit,
    uint32_t ntasks, uint32_t gpus)
{
	struct sjob *j = &m->jobs[m->njobs];

	memset(j, 0, sizeof(*j));
	j->submit = submit;
	j->dur = dur;
	j->limit = limit;
	j->start = KAI_SCHED_NO_TIME;
	j->ntasks = ntasks;
	j->gpus = gpus;
	return m->njobs++;
}

static int64_t
small_dur(struct bench_rng *r, int64_t *limit)
{
	int64_t d = 600 + (int64_t)bench_below(r, 3001);

	*limit = (d * 3 / 2 + 599) / 600 * 600;
	return d;
}

/* One tick at now: a snapshot of every live job, one cycle, the result. */
static void
tick(struct sim *m, int64_t now, uint32_t bf)
{
	struct kai_sched_snapshot s;
	struct kai_sched_result r;
	struct kai_err err;
	size_t i, nj = 0, nt = 0, k;

	for (i = 0; i < m->njobs; i++) {
		struct sjob *j = &m->jobs[i];
		struct kai_sched_snap_job *J = &m->sj[nj];

		if (j->done || j->submit > now)
			continue;
		kai_sched_job_init(J);
		(void)snprintf(m->names[nj], sizeof(m->names[nj]), "j%zu", i);
		J->name = m->names[nj];
		J->queue = 0;
		J->priority = j->ntasks > 1 ? 80 : 50;
		J->preemptible = true;
		J->created = (int64_t)i;
		J->time_limit_s = j->limit;
		J->started = j->start;
		J->first_task = nt;
		J->ntasks = j->ntasks;
		for (k = 0; k < j->ntasks; k++) {
			struct kai_sched_snap_task *t = &m->st[nt++];

			kai_sched_task_init(t);
			t->gpus = (uint8_t)j->gpus; /* 1 or NGPUS */
			if (j->start != KAI_SCHED_NO_TIME) {
				t->state = KAI_SCHED_TASK_RUNNING;
				t->node = j->node[k];
				t->gpu_mask = j->mask[k];
			}
		}
		m->map[nj++] = (uint32_t)i;
	}
	memset(&s, 0, sizeof(s));
	kai_sched_config_init(&s.config);
	s.config.nphases = 1;
	s.config.est_jobs = 1; /* the gang, first in the order */
	s.config.bf_reservations = bf;
	s.nodes = m->nodes;
	s.nnodes = NNODES;
	s.queues = &m->q;
	s.nqueues = 1;
	s.jobs = m->sj;
	s.njobs = nj;
	s.tasks = m->st;
	s.ntasks = nt;
	s.now = now;
	if (kai_sched_cycle(&s, &r, &err) != 0) {
		(void)fprintf(stderr, "sched-bench: starve: %s\n", err.msg);
		exit(1);
	}
	for (i = 0; i < nj; i++) {
		struct sjob *j = &m->jobs[m->map[i]];

		if (j->ntasks > 1 && m->first_est == KAI_SCHED_NO_TIME)
			m->first_est = r.jobs[i].est_start;
		if (j->start != KAI_SCHED_NO_TIME ||
		    r.jobs[i].state != KAI_SCHED_JOB_RUNNING)
			continue;
		j->start = now;
		for (k = 0; k < j->ntasks; k++) {
			j->node[k] = r.tasks[m->sj[i].first_task + k].node;
			j->mask[k] = r.tasks[m->sj[i].first_task + k].gpu_mask;
		}
	}
	kai_sched_result_fini(&r);
}

/* Runs the simulation; returns the gang's start, or NO_TIME. */
static int64_t
run(uint32_t bf, double *util, double *small_wait, int64_t *est)
{
	struct bench_rng rng = {UINT64_C(0x5eed5eed5eed)};
	struct sim m;
	int64_t now, lim, busy = 0, waited = 0, nstarted = 0;
	size_t i, k, gang;

	memset(&m, 0, sizeof(m));
	m.first_est = KAI_SCHED_NO_TIME;
	m.jobs = kai_xcalloc(MAXJOBS, sizeof(*m.jobs));
	m.sj = kai_xcalloc(MAXJOBS, sizeof(*m.sj));
	m.st = kai_xcalloc(MAXJOBS + GANG_TASKS, sizeof(*m.st));
	m.map = kai_xcalloc(MAXJOBS, sizeof(*m.map));
	m.names = kai_xcalloc(MAXJOBS, sizeof(*m.names));
	kai_sched_queue_init(&m.q);
	m.q.name = "q";
	for (i = 0; i < NNODES; i++) {
		(void)snprintf(m.nnames[i], sizeof(m.nnames[i]), "n%zu", i);
		m.nodes[i].name = m.nnames[i];
		m.nodes[i].gpus = NGPUS;
		m.nodes[i].cpu_millis = m.nodes[i].memory_mib = -1;
	}
	/* The cluster full at 0: jobs started over the last hour. */
	for (i = 0; i < NNODES * NGPUS; i++) {
		int64_t d = small_dur(&rng, &lim);
		size_t j = add(&m, -3600, d, lim, 1, 1);

		m.jobs[j].start = -(int64_t)bench_below(&rng, (uint32_t)d);
		m.jobs[j].node[0] = (int32_t)(i / NGPUS);
		m.jobs[j].mask[0] = UINT64_C(1) << (i % NGPUS);
	}
	gang = add(&m, 0, 3600, 7200, GANG_TASKS, NGPUS);
	for (now = 0; now < HORIZON_S; now += ARRIVE_S) {
		int64_t d = small_dur(&rng, &lim);

		(void)add(&m, now, d, lim, 1, 1);
	}
	for (now = 0; now < HORIZON_S; now += TICK_S) {
		for (i = 0; i < m.njobs; i++) {
			struct sjob *j = &m.jobs[i];

			if (!j->done && j->start != KAI_SCHED_NO_TIME &&
			    j->start + j->dur <= now)
				j->done = true;
		}
		tick(&m, now, bf);
		for (i = 0; i < m.njobs; i++)
			if (!m.jobs[i].done &&
			    m.jobs[i].start != KAI_SCHED_NO_TIME)
				for (k = 0; k < m.jobs[i].ntasks; k++)
					busy += (int64_t)m.jobs[i].gpus * TICK_S;
	}
	for (i = 0; i < m.njobs; i++)
		if (i != gang && m.jobs[i].submit >= 0 &&
		    m.jobs[i].start != KAI_SCHED_NO_TIME) {
			waited += m.jobs[i].start - m.jobs[i].submit;
			nstarted++;
		}
	*util = (double)busy / ((double)HORIZON_S * NNODES * NGPUS);
	*small_wait = nstarted > 0 ? (double)waited / (double)nstarted : 0;
	now = m.jobs[gang].start;
	*est = m.first_est;
	free(m.jobs);
	free(m.sj);
	free(m.st);
	free(m.map);
	free(m.names);
	return now;
}

void
bench_starve(void)
{
	static const uint32_t bfs[] = {0, 4};
	size_t i;

	(void)printf("starvation: 4 nodes x 8 GPUs full of 1-GPU jobs, a "
		     "32-GPU gang at 0, a 1-GPU job every %d s, %d h\n",
	    ARRIVE_S, HORIZON_S / 3600);
	for (i = 0; i < sizeof(bfs) / sizeof(bfs[0]); i++) {
		double util, sw;
		int64_t est, st = run(bfs[i], &util, &sw, &est);
		char when[64], first[64] = "none";

		if (st == KAI_SCHED_NO_TIME)
			(void)snprintf(when, sizeof(when), "never (> %d h)",
			    HORIZON_S / 3600);
		else
			(void)snprintf(when, sizeof(when), "after %.2f h",
			    (double)st / 3600.0);
		if (est != KAI_SCHED_NO_TIME)
			(void)snprintf(first, sizeof(first), "%.2f h",
			    (double)est / 3600.0);
		(void)printf("  backfill_reservations %u: gang starts %s "
			     "(estimated at 0: %s); GPU utilisation %.1f%%; "
			     "1-GPU jobs wait %.1f h on average\n",
		    bfs[i], when, first, 100.0 * util, sw / 3600.0);
	}
}
