/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-estimate: the start estimates of the scheduler core (estimate.c)
 * on small hand-made clusters whose answers can be worked out on paper:
 * a gang waits until enough running jobs reach their limits, a job
 * without a limit never ends, an estimated job holds its slot for the
 * ones behind it, fractions share a device, a topology domain must free
 * up whole, and jobs that time will not help get no estimate.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sched/sched_model.h"
#include "tap.h"

#define NOW    100000
#define NONE   KAI_SCHED_NO_TIME
#define MAXJ   16
#define MAXT   32
#define NOLIMIT (-1)

struct world {
	struct kai_sched_snap_node nodes[4];
	char nnames[4][8];
	struct kai_sched_label labels[4];
	struct kai_sched_snap_queue q[2];
	struct kai_sched_snap_job jobs[MAXJ];
	char jnames[MAXJ][8];
	struct kai_sched_snap_task tasks[MAXT];
	struct kai_sched_topology topo;
	const char *levels[1];
	struct kai_sched_snapshot s;
	struct kai_sched_result r;
};

/* n nodes of g GPUs, one queue, nothing running. */
static void
world_init(struct world *w, size_t n, uint32_t g)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	for (i = 0; i < n; i++) {
		(void)snprintf(w->nnames[i], sizeof(w->nnames[i]), "n%zu", i);
		w->nodes[i].name = w->nnames[i];
		w->nodes[i].gpus = g;
		w->nodes[i].cpu_millis = w->nodes[i].memory_mib = -1;
		/* n0, n1 in rack a; n2, n3 in rack b */
		w->labels[i].key = "rack";
		w->labels[i].value = i < 2 ? "a" : "b";
		w->nodes[i].labels = &w->labels[i];
		w->nodes[i].nlabels = 1;
	}
	kai_sched_queue_init(&w->q[0]);
	w->q[0].name = "q";
	w->levels[0] = "rack";
	w->topo.name = "t";
	w->topo.levels = w->levels;
	w->topo.nlevels = 1;
	w->s.nodes = w->nodes;
	w->s.nnodes = n;
	w->s.queues = w->q;
	w->s.nqueues = 1;
	w->s.topologies = &w->topo;
	w->s.ntopologies = 1;
	w->s.jobs = w->jobs;
	w->s.tasks = w->tasks;
	w->s.now = NOW;
}

/* A pending job of nt tasks of g GPUs (frac: micro-GPUs instead). */
static uint32_t
job(struct world *w, uint32_t nt, uint32_t g, int64_t frac, int64_t limit)
{
	uint32_t j = (uint32_t)w->s.njobs++, i;
	struct kai_sched_snap_job *J = &w->jobs[j];

	kai_sched_job_init(J);
	(void)snprintf(w->jnames[j], sizeof(w->jnames[j]), "j%u", j);
	J->name = w->jnames[j];
	J->priority = 50;
	J->preemptible = true;
	J->created = j; /* older first */
	J->time_limit_s = limit;
	J->first_task = w->s.ntasks;
	J->ntasks = nt;
	for (i = 0; i < nt; i++) {
		struct kai_sched_snap_task *t = &w->tasks[w->s.ntasks++];

		kai_sched_task_init(t);
		t->gpus = g;
		t->gpu_fraction = frac;
	}
	return j;
}

/* A job running one task of g GPUs on node n since `started`. */
static uint32_t
running(struct world *w, uint32_t n, uint32_t g, int64_t frac,
    int64_t started, int64_t limit)
{
	uint32_t j = job(w, 1, g, frac, limit);

	w->jobs[j].started = started;
	w->tasks[w->jobs[j].first_task].state = KAI_SCHED_TASK_RUNNING;
	w->tasks[w->jobs[j].first_task].node = (int32_t)n;
	return j;
}

static int64_t
est(struct world *w, uint32_t j)
{
	return w->r.jobs[j].est_start;
}

static bool
cycle(struct world *w)
{
	struct kai_err err;

	return kai_sched_cycle(&w->s, &w->r, &err) == 0;
}

/* Two nodes of 4 GPUs, both full; a gang needs both. */
static void
test_gang(void)
{
	struct world w;
	uint32_t g;

	world_init(&w, 2, 4);
	(void)running(&w, 0, 4, 0, NOW - 100, 600);  /* ends +500 */
	(void)running(&w, 1, 4, 0, NOW - 100, 1200); /* ends +1100 */
	g = job(&w, 2, 4, 0, 3600);
	ok(cycle(&w), "gang: cycle runs");
	is_int(w.r.jobs[g].state, KAI_SCHED_JOB_PENDING, "gang: pending");
	is_int(est(&w, g), NOW + 1100, "gang: starts when the second ends");
	kai_sched_result_fini(&w.r);

	/* The same with the second job unlimited: it never ends. */
	world_init(&w, 2, 4);
	(void)running(&w, 0, 4, 0, NOW - 100, 600);
	(void)running(&w, 1, 4, 0, NOW - 100, NOLIMIT);
	g = job(&w, 2, 4, 0, 3600);
	ok(cycle(&w), "no limit: cycle runs");
	is_int(est(&w, g), NONE, "no limit: no estimate");
	kai_sched_result_fini(&w.r);

	/* A job past its limit ends now (kaid is about to end it). */
	world_init(&w, 2, 4);
	(void)running(&w, 0, 4, 0, NOW - 1000, 600);
	(void)running(&w, 1, 4, 0, NOW - 100, 300);
	g = job(&w, 1, 4, 0, 60);
	ok(cycle(&w), "overdue: cycle runs");
	is_int(est(&w, g), NOW, "overdue: a job past its limit ends now");
	kai_sched_result_fini(&w.r);
}

/* Earlier jobs keep their slot; later ones get the next. */
static void
test_reservation(void)
{
	struct world w;
	uint32_t a, b, c, d;

	world_init(&w, 2, 4);
	(void)running(&w, 0, 4, 0, NOW, 500);
	(void)running(&w, 1, 4, 0, NOW, NOLIMIT);
	a = job(&w, 1, 4, 0, 300);
	b = job(&w, 1, 4, 0, 200);
	c = job(&w, 1, 4, 0, NOLIMIT);
	d = job(&w, 1, 4, 0, 100);
	ok(cycle(&w), "reservation: cycle runs");
	is_int(est(&w, a), NOW + 500, "first: when n0 frees");
	is_int(est(&w, b), NOW + 800, "second: after the first's limit");
	is_int(est(&w, c), NOW + 1000, "third: after the second's limit");
	is_int(est(&w, d), NONE, "fourth: the third never ends");
	kai_sched_result_fini(&w.r);

	/* A small job behind a blocked gang fits earlier: it goes first. */
	world_init(&w, 2, 4);
	(void)running(&w, 0, 4, 0, NOW, 100);
	(void)running(&w, 1, 4, 0, NOW, 1000);
	a = job(&w, 2, 4, 0, 600);
	b = job(&w, 1, 2, 0, 200);
	ok(cycle(&w), "backfill: cycle runs");
	is_int(est(&w, b), NOW + 100, "small job: when n0 frees");
	is_int(est(&w, a), NOW + 1000, "gang: after both free");
	kai_sched_result_fini(&w.r);
}

/* Fractions share a device; a topology domain must free up whole. */
static void
test_shapes(void)
{
	struct world w;
	uint32_t f, t;

	world_init(&w, 1, 1);
	(void)running(&w, 0, 0, 750000, NOW, 60);
	(void)running(&w, 0, 0, 250000, NOW, 600);
	f = job(&w, 1, 0, 500000, 100);
	ok(cycle(&w), "fraction: cycle runs");
	is_int(est(&w, f), NOW + 60, "fraction: shares with the 0.25 left");
	kai_sched_result_fini(&w.r);

	/* rack a frees at +300 and +400, rack b half at +100 only. */
	world_init(&w, 4, 2);
	(void)running(&w, 0, 2, 0, NOW, 300);
	(void)running(&w, 1, 2, 0, NOW, 400);
	(void)running(&w, 2, 2, 0, NOW, 100);
	(void)running(&w, 3, 2, 0, NOW, NOLIMIT);
	t = job(&w, 2, 2, 0, 100);
	w.jobs[t].topology = 0;
	w.jobs[t].required_level = 0;
	ok(cycle(&w), "topology: cycle runs");
	is_int(est(&w, t), NOW + 400, "topology: both in one rack");
	kai_sched_result_fini(&w.r);
}

/* Placed now: now.  Held, over a limit, never fitting: none. */
static void
test_none(void)
{
	struct world w;
	uint32_t placed, held, big, lim;

	world_init(&w, 2, 4);
	w.q[0].res[KAI_SCHED_GPU].limit = 6 * KAI_SCHED_GPU_UNIT;
	(void)running(&w, 0, 4, 0, NOW, 100);
	placed = job(&w, 1, 2, 0, 100);
	held = job(&w, 1, 1, 0, 100);
	w.jobs[held].held = true;
	big = job(&w, 1, 8, 0, 100);
	lim = job(&w, 1, 2, 0, 100);
	ok(cycle(&w), "none: cycle runs");
	is_int(est(&w, placed), NOW, "placed this cycle: now");
	is_int(est(&w, held), NONE, "held: none");
	is_int(est(&w, big), NONE, "never fits: none");
	is_int(w.r.jobs[lim].why.why, KAI_SCHED_WHY_LIMIT, "limit: blocked");
	is_int(est(&w, lim), NONE, "queue limit: none");
	kai_sched_result_fini(&w.r);

	/* est_jobs 0 turns the estimate off; 1 estimates the first only. */
	world_init(&w, 1, 4);
	(void)running(&w, 0, 4, 0, NOW, 100);
	placed = job(&w, 1, 4, 0, 100);
	held = job(&w, 1, 4, 0, 100);
	w.s.config.est_jobs = 0;
	ok(cycle(&w), "off: cycle runs");
	is_int(est(&w, placed), NONE, "off: none");
	kai_sched_result_fini(&w.r);
	w.s.config.est_jobs = 1;
	ok(cycle(&w), "one: cycle runs");
	is_int(est(&w, placed), NOW + 100, "one: the first has one");
	is_int(est(&w, held), NONE, "one: the second has none");
	kai_sched_result_fini(&w.r);
}

/*
 * Backfill: two nodes of 4 GPUs.  n0 runs 3 GPUs until +1000, n1 runs
 * 1 GPU until +500.  The 8-GPU gang is reserved at +1000.  A 1-GPU job
 * of 2000 s would take a reserved GPU past +1000: it waits, and its
 * estimate is after the gang's (+1000 + 3600).  A 1-GPU job of 400 s
 * ends before +1000 and starts now.
 */
static void
test_backfill(void)
{
	struct world w;
	uint32_t g, lng, sht;

	world_init(&w, 2, 4);
	w.s.config.bf_reservations = 1;
	(void)running(&w, 0, 3, 0, NOW, 1000);
	(void)running(&w, 1, 1, 0, NOW, 500);
	g = job(&w, 2, 4, 0, 3600);
	lng = job(&w, 1, 1, 0, 2000);
	sht = job(&w, 1, 1, 0, 400);
	ok(cycle(&w), "backfill: cycle runs");
	is_int(w.r.jobs[g].why.why, KAI_SCHED_WHY_RESERVED,
	    "backfill: the gang holds a reservation");
	is_int(est(&w, g), NOW + 1000, "backfill: ... from when n0 frees");
	is_int(w.r.jobs[lng].why.why, KAI_SCHED_WHY_BACKFILL,
	    "backfill: the long job would delay it");
	is_int(w.r.jobs[lng].why.job, (int64_t)g, "backfill: ... and names it");
	is_int(est(&w, lng), NOW + 1000 + 3600,
	    "backfill: the long job's estimate comes after the gang");
	is_int(w.r.jobs[sht].state, KAI_SCHED_JOB_RUNNING,
	    "backfill: the short job starts now");
	kai_sched_result_fini(&w.r);

	/* Without backfill the long job takes the idle GPU. */
	world_init(&w, 2, 4);
	(void)running(&w, 0, 3, 0, NOW, 1000);
	(void)running(&w, 1, 1, 0, NOW, 500);
	g = job(&w, 2, 4, 0, 3600);
	lng = job(&w, 1, 1, 0, 2000);
	ok(cycle(&w), "no backfill: cycle runs");
	is_int(w.r.jobs[lng].state, KAI_SCHED_JOB_RUNNING,
	    "no backfill: the long job starts");
	is_int(est(&w, g), NOW + 2000,
	    "no backfill: the gang's estimate waits for it");
	kai_sched_result_fini(&w.r);
}

int
main(void)
{
	test_gang();
	test_backfill();
	test_reservation();
	test_shapes();
	test_none();
	return done_testing();
}
