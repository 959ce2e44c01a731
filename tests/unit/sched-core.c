/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-core: properties of the scheduler core that a scenario file
 * cannot state -- the node index finds exactly the node a full scan
 * finds, a rolled-back attempt leaves no trace, the same snapshot always
 * gives the same result, bad snapshots are refused with a reason, every
 * reason code has a name and a text, and no GPU cap (a QoS's per-user
 * limit) is ever exceeded.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"
#include "rnd.h"
#include "tap.h"

/* A small deterministic generator (xorshift), seeded per test. */
#define NN 64
#define NT 400

struct world {
	struct kai_sched_snap_node nodes[NN];
	char names[NN][16];
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job jobs[NT];
	struct kai_sched_snap_task tasks[NT];
	char jnames[NT][16];
	struct kai_sched_snapshot s;
};

static void
world_init(struct world *w, enum kai_sched_placement pl)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	w->s.config.placement = pl;
	w->s.config.gpu_placement = pl;
	for (i = 0; i < NN; i++) {
		/* Names out of index order, so rank != index. */
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02zu",
		    (i * 37) % NN);
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 1 + rnd(8);
		w->nodes[i].gpu_memory_mib = INT64_C(16384) * (1 + rnd(2));
		w->nodes[i].cpu_millis = 8000 + INT64_C(1000) * rnd(24);
		w->nodes[i].memory_mib = -1;
		w->nodes[i].unschedulable = rnd(20) == 0;
	}
	kai_sched_queue_init(&w->q);
	w->q.name = "q";
	for (i = 0; i < NT; i++) {
		struct kai_sched_snap_task *t = &w->tasks[i];
		uint32_t kind = rnd(4);

		(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%zu", i);
		kai_sched_job_init(&w->jobs[i]);
		w->jobs[i].name = w->jnames[i];
		w->jobs[i].priority = 50 + rnd(3);
		w->jobs[i].preemptible = true;
		w->jobs[i].created = (int64_t)i;
		w->jobs[i].first_task = i;
		w->jobs[i].ntasks = 1;
		/* Limits for backfill and estimates: none, or 10 to 100 min. */
		w->jobs[i].time_limit_s =
		    rnd(4) == 0 ? -1 : INT64_C(600) * (1 + rnd(10));
		kai_sched_task_init(t);
		t->cpu_millis = INT64_C(500) * rnd(8);
		if (kind == 0)
			t->gpus = 1 + rnd(4);
		else if (kind == 1)
			t->gpu_fraction = INT64_C(50000) * (1 + rnd(18));
		else if (kind == 2)
			t->gpu_memory_mib = INT64_C(1024) * (1 + rnd(20));
		/* A share over 2 or 3 devices now and then. */
		if ((kind == 1 || kind == 2) && rnd(4) == 0)
			t->gpu_devices = 2 + rnd(2);
	}
	w->s.nodes = w->nodes;
	w->s.nnodes = NN;
	w->s.queues = &w->q;
	w->s.nqueues = 1;
	w->s.jobs = w->jobs;
	w->s.njobs = NT;
	w->s.tasks = w->tasks;
	w->s.ntasks = NT;
}

/*
 * Places tasks one by one; before each, the index's choice must be the
 * node a scan of every node prefers.
 */
static void
test_index_matches_scan(enum kai_sched_placement pl, const char *what)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_result r;
	struct sess S;
	uint32_t all[NN], i, t, same = 0, tried = 0;

	world_init(w, pl);
	for (i = 0; i < NN; i++)
		all[i] = i;
	ok(kai_sched_sess_init(&S, NULL, NULL, &w->s, &r, NULL, NULL) == 0,
	    "%s: session", what);
	for (t = 0; t < NT; t++) {
		struct kai_sched_choice a, b;
		bool fa, fb;

		/* frag places CPU-only tasks by its measure too */
		if (pl != KAI_SCHED_FRAG && w->tasks[t].gpus == 0 &&
		    w->tasks[t].gpu_fraction == 0 &&
		    w->tasks[t].gpu_memory_mib == 0)
			continue;
		fa = kai_sched_choose(&S, t, NULL, 0, NULL, false, &a);
		fb = kai_sched_choose(&S, t, all, NN, NULL, false, &b);
		tried++;
		if (fa == fb && (!fa || (a.node == b.node && a.mask == b.mask)))
			same++;
		if (fa)
			kai_sched_place(&S, t, (uint32_t)a.node, a.mask, a.ugpu,
			    a.pipelined);
	}
	is_int(same, tried, "%s: the index and a scan agree on every task",
	    what);
	kai_sched_sess_fini(&S);
	kai_sched_result_fini(&r);
	free(w);
}

/* The counts, and the exclusive job while there is one. */
static bool
excl_equal(const struct excl_count *a, const struct excl_count *b)
{
	return a->tasks == b->tasks && a->excl == b->excl &&
	    (a->excl == 0 || a->job == b->job);
}

static bool
nodes_equal(const struct sess *a, const struct snode *saved,
    const int32_t *dalloc, size_t ndev)
{
	uint32_t i;

	/* in_rellist is left out: that list only grows, by design. */
	for (i = 0; i < a->nn; i++) {
		const struct snode *x = &a->nodes[i], *y = &saved[i];

		if (memcmp(x->alloc, y->alloc, sizeof(x->alloc)) != 0 ||
		    memcmp(x->rel, y->rel, sizeof(x->rel)) != 0 ||
		    x->whole_idle != y->whole_idle || x->room != y->room ||
		    x->idle_ugpu != y->idle_ugpu || x->has_rel != y->has_rel ||
		    !excl_equal(&x->ex_act, &y->ex_act) ||
		    !excl_equal(&x->ex_rel, &y->ex_rel)) {
			diag("node %u differs", i);
			return false;
		}
	}
	return memcmp(a->dalloc, dalloc, ndev * sizeof(*dalloc)) == 0;
}

static void
test_rollback_is_exact(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_result r;
	struct snode *saved;
	int32_t *dalloc;
	struct sess S;
	size_t ndev = 0, mark, t;
	int64_t q0[NRES];

	static const struct kai_sched_snap_account accts[] = {{"a", 3},
	    {"b", 1}};
	int64_t slots[4] = {0};

	world_init(w, KAI_SCHED_BINPACK);
	for (t = 0; t < NN; t++)
		ndev += w->nodes[t].gpus;
	/* Exclusive jobs and accounts keep counts that must roll back too
	 * (exclusive.c, acctshare.c). */
	w->s.accounts = accts;
	w->s.naccounts = 2;
	for (t = 0; t < NT; t++) {
		w->jobs[t].exclusive = t % 5 == 0;
		w->jobs[t].account = (int32_t)(t % 3) - 1;
	}
	ok(kai_sched_sess_init(&S, NULL, NULL, &w->s, &r, NULL, NULL) == 0,
	    "rollback: session");
	ok(S.nslots >= 1 && S.nslots <= 4, "rollback: account slots");
	memcpy(slots, S.slot_gpu, S.nslots * sizeof(*slots));
	saved = calloc(S.nn, sizeof(*saved));
	dalloc = calloc(ndev, sizeof(*dalloc));
	memcpy(saved, S.nodes, S.nn * sizeof(*saved));
	memcpy(dalloc, S.dalloc, ndev * sizeof(*dalloc));
	memcpy(q0, S.q[0].alloc, sizeof(q0));
	mark = kai_sched_mark(&S);
	for (t = 0; t < NT; t++) {
		struct kai_sched_choice c;

		if (kai_sched_choose(&S, (uint32_t)t, NULL, 0, NULL, true, &c))
			kai_sched_place(&S, (uint32_t)t, (uint32_t)c.node,
			    c.mask, c.ugpu, c.pipelined);
		if (t % 3 == 0 && kai_sched_task_active(&S.tasks[t]))
			kai_sched_evict(&S, (uint32_t)t);
		if (t % 6 == 0) /* backfill's replay: logged, undone */
			kai_sched_release(&S, (uint32_t)t);
	}
	ok(S.q[0].alloc[R_GPU] > 0, "rollback: something was placed");
	kai_sched_rollback(&S, mark);
	ok(nodes_equal(&S, saved, dalloc, ndev),
	    "rollback: every node and device is as before");
	ok(memcmp(q0, S.q[0].alloc, sizeof(q0)) == 0,
	    "rollback: the queue's allocation is as before");
	ok(memcmp(slots, S.slot_gpu, S.nslots * sizeof(*slots)) == 0,
	    "rollback: the accounts' GPUs are as before");
	kai_sched_sess_fini(&S);
	kai_sched_result_fini(&r);
	free(saved);
	free(dalloc);
	free(w);
}

static bool
same_results(const struct kai_sched_result *a, const struct kai_sched_result *b)
{
	size_t i;

	for (i = 0; i < NT; i++) {
		const struct kai_sched_task_out *x = &a->tasks[i],
						*y = &b->tasks[i];
		const struct kai_sched_why_info *p = &a->jobs[i].why;
		const struct kai_sched_why_info *q = &b->jobs[i].why;

		if (x->state != y->state || x->node != y->node ||
		    x->gpu_mask != y->gpu_mask ||
		    x->gpu_fraction != y->gpu_fraction ||
		    a->jobs[i].state != b->jobs[i].state || p->why != q->why ||
		    p->a != q->a || p->b != q->b || p->queue != q->queue)
			return false;
	}
	return true;
}

static void
test_deterministic(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_result a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	world_init(w, KAI_SCHED_BINPACK);
	ok(kai_sched_cycle(&w->s, &a, NULL) == 0 &&
		kai_sched_cycle(&w->s, &b, NULL) == 0,
	    "determinism: two cycles");
	ok(a.placed > 0 && a.placed == b.placed, "determinism: same count");
	ok(a.tasks != NULL && b.tasks != NULL && same_results(&a, &b),
	    "determinism: identical decisions and reasons");
	kai_sched_result_fini(&a);
	kai_sched_result_fini(&b);
	free(w);
}

static void
test_refusals(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_snap_queue qs[2];
	struct kai_sched_result r;
	struct kai_err err;

	world_init(w, KAI_SCHED_BINPACK);
	w->tasks[3].gpus = 1;
	w->tasks[3].gpu_fraction = 500000;
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "a task with whole GPUs and a fraction is refused");
	is_str(err.msg,
	    "job \"j3\": task 0: asks for whole GPUs and part of "
	    "a GPU at once",
	    "... and the message names it");
	ok(r.tasks == NULL, "... and the result is empty");
	world_init(w, KAI_SCHED_BINPACK);
	qs[0] = qs[1] = w->q;
	qs[1].name = "child";
	qs[1].parent = 0;
	w->s.queues = qs;
	w->s.nqueues = 2;
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "a job in a parent queue is refused");
	is_str(err.msg, "job \"j0\": queue \"q\" is not a leaf queue",
	    "... and the message says why");
	w->s.nqueues = 1;
	w->s.queues = &w->q;
	w->names[1][0] = w->names[0][0];
	memcpy(w->names[1], w->names[0], sizeof(w->names[0]));
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "two nodes with one name are refused");
	/* Each task belongs to one job: the session's pass over the jobs
	 * (sess_jobs.c) checks it as it maps them. */
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[1].first_task = 0;
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "a task of two jobs is refused");
	is_str(err.msg, "job \"j1\": its tasks overlap those of job \"j0\"",
	    "... naming both jobs");
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[1].ntasks = 0;
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "a task of no job is refused");
	is_str(err.msg, "task 1 belongs to no job", "... naming the task");
	ok(r.tasks == NULL, "... and the result is empty");
	free(w);
}

/* Job j's task asks for whole GPUs and a fraction: the validator's. */
static void
bad_request(struct world *w, size_t j)
{
	w->tasks[w->jobs[j].first_task].gpus = 1;
	w->tasks[w->jobs[j].first_task].gpu_fraction = 500000;
	w->tasks[w->jobs[j].first_task].gpu_memory_mib = 0;
}

static void
refused_with(struct world *w, const char *msg, const char *what)
{
	struct kai_sched_result r;
	struct kai_err err;

	memset(&err, 0, sizeof(err));
	ok(kai_sched_cycle(&w->s, &r, &err) == KAI_EINVAL &&
		strcmp(err.msg, msg) == 0 && r.tasks == NULL,
	    "%s", what);
	if (strcmp(err.msg, msg) != 0)
		diag("got \"%s\"", err.msg);
}

/*
 * The session validates the jobs in its own pass over them (sess_jobs.c)
 * and checks there too that each task is one job's: with two faults,
 * the one reported is the one the whole validator finds first, then a
 * node listed twice, then the tasks' owners, as when validation was a
 * pass of its own.  Jobs may list their tasks in any order.
 */
static void
test_first_fault(void)
{
	struct world *w = calloc(1, sizeof(*w));
	const char *bad3 = "job \"j3\": task 0: asks for whole GPUs and "
			   "part of a GPU at once";
	struct kai_sched_result a, b;
	struct kai_sched_snap_task t0;
	size_t i;
	bool same = true;

	world_init(w, KAI_SCHED_BINPACK);
	memcpy(w->names[1], w->names[0], sizeof(w->names[0]));
	bad_request(w, 3);
	refused_with(w, bad3, "a node listed twice, then a bad job: the job");
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[1].first_task = 0;
	bad_request(w, 3);
	refused_with(w, bad3, "a task of two jobs, then a bad job: the job");
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[1].ntasks = 0;
	bad_request(w, 3);
	refused_with(w, bad3, "a task of no job, then a bad job: the job");
	world_init(w, KAI_SCHED_BINPACK);
	memcpy(w->names[1], w->names[0], sizeof(w->names[0]));
	w->jobs[1].first_task = 0;
	refused_with(w, "node \"n00\" is listed twice",
	    "a node listed twice and a task of two jobs: the node");
	/* Out of task order: the same decisions, each job its own task. */
	world_init(w, KAI_SCHED_BINPACK);
	ok(kai_sched_cycle(&w->s, &a, NULL) == 0, "jobs in task order: a cycle");
	t0 = w->tasks[0];
	w->tasks[0] = w->tasks[1];
	w->tasks[1] = t0;
	w->jobs[0].first_task = 1;
	w->jobs[1].first_task = 0;
	ok(kai_sched_cycle(&w->s, &b, NULL) == 0,
	    "jobs out of task order: a cycle");
	for (i = 0; i < NT && a.tasks != NULL && b.tasks != NULL; i++) {
		size_t k = i < 2 ? 1 - i : i;

		same &= a.jobs[i].state == b.jobs[i].state &&
		    a.jobs[i].why.why == b.jobs[i].why.why &&
		    a.tasks[i].state == b.tasks[k].state &&
		    a.tasks[i].node == b.tasks[k].node;
	}
	ok(same && a.placed == b.placed,
	    "... and the same decisions for every job");
	kai_sched_result_fini(&a);
	kai_sched_result_fini(&b);
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[0].first_task = 1;
	w->jobs[1].first_task = 1;
	refused_with(w, "job \"j1\": its tasks overlap those of job \"j0\"",
	    "out of task order, a task of two jobs is refused");
	world_init(w, KAI_SCHED_BINPACK);
	w->jobs[0].first_task = 1;
	w->jobs[1].ntasks = 0;
	refused_with(w, "task 0 belongs to no job",
	    "out of task order, a task of no job is refused");
	free(w);
}

static void
test_reason_names(void)
{
	struct kai_sched_snapshot s;
	struct kai_sched_why_info w;
	char buf[256];
	int c, named = 0, texts = 0;

	memset(&s, 0, sizeof(s));
	for (c = 1; c < KAI_SCHED_WHY_NCODES; c++) {
		memset(&w, 0, sizeof(w));
		w.why = (enum kai_sched_why)c;
		w.queue = w.job = -1;
		if (c == KAI_SCHED_WHY_TOPOLOGY)
			continue;
		named += strcmp(kai_sched_why_name(w.why), "None") != 0;
		texts +=
		    kai_sched_why_text(&s, &w, buf, sizeof(buf))[0] != '\0';
	}
	is_int(named, KAI_SCHED_WHY_NCODES - 2, "every reason has a name");
	is_int(texts, KAI_SCHED_WHY_NCODES - 2, "every reason has a text");
	is_str(kai_sched_why_name(KAI_SCHED_WHY_PRIORITY), "Priority",
	    "Priority keeps Slurm's name");
	kai_sched_fmt_gpu(2500000, buf, sizeof(buf));
	is_str(buf, "2.5", "2.5 GPUs print as 2.5");
	kai_sched_fmt_gpu(-1, buf, sizeof(buf));
	is_str(buf, "-0.000001", "one micro-GPU below zero");
	is_str(kai_sched_action_name(KAI_SCHED_STALEGANG), "stalegangeviction",
	    "action names follow FORMAT.md");
}

/*
 * Random worlds through every phase: whatever the snapshot, the result
 * never over-fills a device or a node, never mixes whole GPUs and
 * fractions on a device, never leaves a started gang below its minimum,
 * never takes a queue past its limit, and evicts a non-preemptible job
 * only as a stale gang.
 */
struct inv {
	int over_dev, mixed, broken_gang, over_limit, np_evicted, over_cpu;
	int shared_excl;
	int wrong_ndev; /* a share on other than its gpu_devices devices */
};

/* A node with an exclusive job's active task and another job's. */
static int
shared_exclusive(const struct world *w, const struct kai_sched_result *r)
{
	int32_t first[NN], bad = 0;
	bool excl[NN];
	size_t j, t, n;

	for (n = 0; n < NN; n++) {
		first[n] = -1;
		excl[n] = false;
	}
	for (j = 0; j < NT; j++) {
		for (t = w->jobs[j].first_task;
		    t < w->jobs[j].first_task + w->jobs[j].ntasks; t++) {
			const struct kai_sched_task_out *o = &r->tasks[t];

			if ((o->state != KAI_SCHED_TASK_RUNNING &&
				o->state != KAI_SCHED_TASK_PIPELINED) ||
			    o->node < 0)
				continue;
			n = (size_t)o->node;
			if (first[n] >= 0 && first[n] != (int32_t)j &&
			    (excl[n] || w->jobs[j].exclusive))
				bad++;
			if (first[n] < 0)
				first[n] = (int32_t)j;
			excl[n] |= w->jobs[j].exclusive;
		}
	}
	return bad;
}

static void
check_world(const struct world *w, const struct kai_sched_result *r,
    const bool *was_below, struct inv *bad)
{
	int64_t dev[NN][KAI_SCHED_MAX_NODE_GPUS], cpu[NN];
	uint8_t kind[NN][KAI_SCHED_MAX_NODE_GPUS];
	size_t t, j;

	memset(dev, 0, sizeof(dev));
	memset(kind, 0, sizeof(kind));
	memset(cpu, 0, sizeof(cpu));
	for (t = 0; t < NT; t++) {
		const struct kai_sched_task_out *o = &r->tasks[t];
		uint64_t m = o->gpu_mask;

		if (o->state != KAI_SCHED_TASK_RUNNING &&
		    o->state != KAI_SCHED_TASK_PIPELINED)
			continue;
		cpu[o->node] += w->tasks[t].cpu_millis;
		if (o->gpu_fraction > 0)
			bad->wrong_ndev += __builtin_popcountll(m) !=
			    (w->tasks[t].gpu_devices > 1
				    ? (int)w->tasks[t].gpu_devices
				    : 1);
		for (; m != 0; m &= m - 1) {
			int d = __builtin_ctzll(m);
			uint8_t k = o->gpu_fraction > 0 ? 2 : 1;

			dev[o->node][d] += o->gpu_fraction > 0
			    ? o->gpu_fraction
			    : KAI_SCHED_GPU_UNIT;
			bad->mixed +=
			    kind[o->node][d] != 0 && kind[o->node][d] != k;
			kind[o->node][d] = k;
		}
	}
	for (t = 0; t < NN; t++) {
		uint32_t d;

		bad->over_cpu += cpu[t] > w->nodes[t].cpu_millis;
		for (d = 0; d < w->nodes[t].gpus; d++)
			bad->over_dev += dev[t][d] > KAI_SCHED_GPU_UNIT;
	}
	for (j = 0; j < NT; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		uint32_t act = 0,
			 min =
			     J->min_tasks ? J->min_tasks : (uint32_t)J->ntasks;

		for (t = J->first_task; t < J->first_task + J->ntasks; t++)
			act += r->tasks[t].state == KAI_SCHED_TASK_RUNNING ||
			    r->tasks[t].state == KAI_SCHED_TASK_PIPELINED;
		bad->broken_gang += act > 0 && act < min && !was_below[j];
		bad->np_evicted += !J->preemptible &&
		    r->jobs[j].state == KAI_SCHED_JOB_EVICTED &&
		    r->jobs[j].why.why != KAI_SCHED_WHY_STALE;
	}
	for (j = 0; j < w->s.nqueues; j++) {
		int64_t lim = w->s.queues[j].res[KAI_SCHED_GPU].limit;

		if (lim >= 0 && r->queues[j].allocated[KAI_SCHED_GPU] > lim) {
			bad->over_limit++;
			diag("queue %zu: %lld > %lld (requested %lld)", j,
			    (long long)r->queues[j].allocated[KAI_SCHED_GPU],
			    (long long)lim,
			    (long long)r->queues[j].requested[KAI_SCHED_GPU]);
		}
	}
}

/* Runs allocate on w, then makes its placements the running state. */
static void
settle_world(struct world *w, bool *was_below)
{
	struct kai_sched_result r;
	size_t t, j;

	w->s.config.phases[0] = KAI_SCHED_ALLOCATE;
	w->s.config.nphases = 1;
	if (kai_sched_cycle(&w->s, &r, NULL) != 0)
		return;
	for (t = 0; t < NT; t++) {
		const struct kai_sched_task_out *o = &r.tasks[t];

		if (o->state != KAI_SCHED_TASK_RUNNING &&
		    o->state != KAI_SCHED_TASK_PIPELINED)
			continue;
		w->tasks[t].state = rnd(10) == 0 ? KAI_SCHED_TASK_RELEASING
						 : KAI_SCHED_TASK_RUNNING;
		w->tasks[t].node = o->node;
		/* Whole GPUs may leave the choice to the core. */
		w->tasks[t].gpu_mask =
		    o->gpu_fraction > 0 || rnd(2) ? o->gpu_mask : 0;
	}
	for (j = 0; j < NT; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		uint32_t act = 0;

		for (t = J->first_task; t < J->first_task + J->ntasks; t++)
			act += w->tasks[t].state == KAI_SCHED_TASK_RUNNING;
		was_below[j] =
		    act > 0 && act < (J->min_tasks ? J->min_tasks : J->ntasks);
		if (was_below[j] && rnd(2))
			w->jobs[j].stale_since = 1000 - (int64_t)rnd(200);
	}
	kai_sched_result_fini(&r);
}

/* Four queues (a dept with a quota and a limit child), some gangs. */
static void
world_queues_gangs(struct world *w, struct kai_sched_snap_queue *qs)
{
	size_t j;

	qs[0] = qs[1] = qs[2] = qs[3] = w->q;
	qs[0].name = "dept";
	qs[1].name = "a";
	qs[2].name = "b";
	qs[3].name = "c";
	qs[1].parent = qs[2].parent = 0;
	qs[3].parent = -1;
	qs[1].res[KAI_SCHED_GPU].quota = INT64_C(40) * KAI_SCHED_GPU_UNIT;
	qs[2].res[KAI_SCHED_GPU].limit = INT64_C(60) * KAI_SCHED_GPU_UNIT;
	qs[3].priority = 120;
	qs[3].preempt_min_runtime_s = 100;
	w->s.queues = qs;
	w->s.nqueues = 4;
	w->s.now = 1000;
	for (j = 0; j < NT; j++) {
		w->jobs[j].queue = 1 + rnd(3);
		w->jobs[j].preemptible = rnd(4) != 0;
		w->jobs[j].started = 1000 - (int64_t)rnd(300);
	}
	/* Turn some neighbours into gangs of 2-3 tasks. */
	for (j = 0; j + 3 < NT; j += 7) {
		w->jobs[j].ntasks = 2 + rnd(2);
		w->jobs[j].min_tasks = rnd(2) ? 0 : 1;
		w->jobs[j + 1].ntasks = 0;
		if (w->jobs[j].ntasks == 3)
			w->jobs[j + 2].ntasks = 0;
	}
}

static void
test_invariants(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_snap_queue qs[4];
	bool was_below[NT];
	struct kai_err err;
	struct inv bad;
	int seed, runs = 0;

	memset(&bad, 0, sizeof(bad));
	for (seed = 0; seed < 60; seed++) {
		struct kai_sched_result r;

		world_init(w,
		    seed % 3 == 0 ? KAI_SCHED_SPREAD : KAI_SCHED_BINPACK);
		world_queues_gangs(w, qs);
		settle_world(w, was_below);
		kai_sched_config_init(&w->s.config);
		w->s.config.placement = seed % 3 == 0 ? KAI_SCHED_SPREAD
		    : seed % 6 == 1		      ? KAI_SCHED_FRAG
						      : KAI_SCHED_BINPACK;
		/* Backfill in half the worlds: its replays are undone. */
		w->s.config.bf_reservations = seed % 2 ? 4 : 0;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		check_world(w, &r, was_below, &bad);
		kai_sched_result_fini(&r);
	}
	is_int(runs, 60, "invariants: every random world is a valid snapshot");
	is_int(bad.over_dev, 0,
	    "invariants: no device holds more than one GPU");
	is_int(bad.mixed, 0,
	    "invariants: no device mixes whole GPUs and "
	    "fractions");
	is_int(bad.wrong_ndev, 0,
	    "invariants: a share is on as many distinct devices as it "
	    "asks");
	is_int(bad.over_cpu, 0,
	    "invariants: no node gives more CPU than it has");
	is_int(bad.broken_gang, 0,
	    "invariants: no gang left below its minimum");
	is_int(bad.over_limit, 0, "invariants: no queue past its limit");
	is_int(bad.np_evicted, 0,
	    "invariants: non-preemptible jobs are evicted "
	    "only as stale gangs");
	free(w);
}

/*
 * Exclusive jobs (exclusive.c) in random worlds: after allocate,
 * consolidation, reclaim and preempt, no node holds an exclusive job's
 * task and another job's, and the other invariants hold.  (These worlds
 * found consolidation moving a GPU-memory task onto a smaller GPU, which
 * raised its queue's allocation past its limit: consolidate.c's
 * victims_gpu().)
 */
static void
test_exclusive_invariants(void)
{
	static const enum kai_sched_action ph[] = {KAI_SCHED_ALLOCATE,
	    KAI_SCHED_CONSOLIDATE, KAI_SCHED_RECLAIM, KAI_SCHED_PREEMPT};
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_snap_queue qs[4];
	bool was_below[NT];
	struct inv bad;
	int seed, runs = 0;
	size_t j, k;

	memset(&bad, 0, sizeof(bad));
	for (seed = 0; seed < 40; seed++) {
		struct kai_sched_result r;

		world_init(w, seed % 2 ? KAI_SCHED_BINPACK : KAI_SCHED_SPREAD);
		world_queues_gangs(w, qs);
		for (j = 0; j < NT; j++)
			w->jobs[j].exclusive = rnd(6) == 0;
		settle_world(w, was_below);
		kai_sched_config_init(&w->s.config);
		for (k = 0; k < KAI_NELEM(ph); k++)
			w->s.config.phases[k] = ph[k];
		w->s.config.nphases = KAI_NELEM(ph);
		if (kai_sched_cycle(&w->s, &r, NULL) != 0)
			continue;
		runs++;
		check_world(w, &r, was_below, &bad);
		bad.shared_excl += shared_exclusive(w, &r);
		kai_sched_result_fini(&r);
	}
	is_int(runs, 40, "exclusive: every random world is a valid snapshot");
	is_int(bad.shared_excl, 0,
	    "exclusive: no node holds an exclusive job and another job");
	is_int(bad.over_dev + bad.mixed + bad.over_cpu + bad.broken_gang +
		bad.over_limit,
	    0, "exclusive: the other invariants hold");
	free(w);
}

/*
 * A context keeps the arrays of one cycle for the next (ctx.c): cycles
 * run one after the other through one context, over worlds of every
 * kind, decide and explain exactly what cycles without one do, start
 * estimates included.
 */
static void
test_context(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_ctx *c = kai_sched_ctx_new();
	struct kai_sched_snap_queue qs[4];
	bool was_below[NT];
	int seed, same = 0, est = 0, runs = 0;

	for (seed = 0; seed < 40; seed++) {
		struct kai_sched_result a, b;
		struct kai_err err;
		size_t j;
		bool eq;

		world_init(w, seed % 2 ? KAI_SCHED_SPREAD : KAI_SCHED_BINPACK);
		if (seed % 4 >= 2) {
			world_queues_gangs(w, qs);
			settle_world(w, was_below);
		}
		kai_sched_config_init(&w->s.config);
		w->s.config.bf_reservations = seed % 3 == 0 ? 4 : 0;
		if (kai_sched_cycle_ctx(c, &w->s, &a, &err) != 0 ||
		    kai_sched_cycle(&w->s, &b, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		eq = a.placed == b.placed && a.evicted == b.evicted &&
		    same_results(&a, &b);
		same += eq;
		for (j = 0, eq = true; j < a.njobs; j++)
			eq &= a.jobs[j].est_start == b.jobs[j].est_start;
		est += eq;
		kai_sched_result_fini(&a);
		kai_sched_result_fini(&b);
	}
	is_int(runs, 40, "context: every world is scheduled both ways");
	is_int(same, runs,
	    "context: decisions and reasons as without a context");
	is_int(est, runs, "context: start estimates as without a context");
	ok(kai_sched_ctx_kept(c) > 0, "context: keeps arrays between cycles");
	kai_sched_ctx_free(c);
	free(w);
}

/* GPUs a task of the result holds, by its request (whole or fraction). */
static int64_t
held_ugpu(const struct kai_sched_snap_task *in,
    const struct kai_sched_task_out *out)
{
	if (out->state != KAI_SCHED_TASK_RUNNING &&
	    out->state != KAI_SCHED_TASK_PIPELINED)
		return 0;
	return in->gpu_fraction > 0
	    ? in->gpu_fraction * (in->gpu_devices > 1 ? in->gpu_devices : 1)
	    : (int64_t)in->gpus * GPU_UNIT;
}

/*
 * GPU caps: three jobs of one GPU under a cap of two, beside a job under
 * none; then random worlds where every capped job's group stays within
 * its cap through every phase, and jobs are refused only for it.
 */
static void
test_gpu_caps(void)
{
	struct world *w = calloc(1, sizeof(*w));
	int64_t caps[3] = {2 * GPU_UNIT, 2500000, 6 * GPU_UNIT};
	int64_t sum[3];
	struct kai_sched_result r;
	struct kai_err err;
	size_t i, n, wj, round, over = 0, waiting = 0;

	world_init(w, KAI_SCHED_BINPACK);
	for (i = 0; i < NN; i++)
		w->nodes[i].unschedulable = false;
	for (i = 0; i < 4; i++) {
		kai_sched_task_init(&w->tasks[i]);
		w->tasks[i].gpus = 1;
		w->jobs[i].gpu_limit = i < 3 ? 1 : 0;
	}
	w->s.njobs = w->s.ntasks = 4;
	w->s.gpu_limits = caps;
	w->s.ngpu_limits = 1;
	is_int(kai_sched_cycle(&w->s, &r, &err), 0, "caps: a cycle runs");
	for (i = 0, n = 0, wj = 3; i < 3; i++) {
		n += r.jobs[i].state == KAI_SCHED_JOB_RUNNING;
		if (r.jobs[i].state == KAI_SCHED_JOB_PENDING)
			wj = i;
	}
	is_int((int64_t)n, 2, "caps: two jobs of one GPU fit a cap of two");
	is_int(r.jobs[wj].why.why, KAI_SCHED_WHY_QOS_GPUS,
	    "caps: the third waits for the cap");
	ok(r.jobs[wj].why.a == 2 * GPU_UNIT &&
		r.jobs[wj].why.b == 2 * GPU_UNIT && r.jobs[wj].why.c == GPU_UNIT,
	    "caps: with the cap, what is held and what it needs");
	is_str(kai_sched_why_name(r.jobs[wj].why.why), "QOSMaxGRESPerUser",
	    "caps: Slurm's reason");
	is_int(r.jobs[3].state, KAI_SCHED_JOB_RUNNING,
	    "caps: a job under no cap is not held back");
	kai_sched_result_fini(&r);
	w->jobs[1].gpu_limit = 2;
	is_int(kai_sched_cycle(&w->s, &r, &err), KAI_EINVAL,
	    "caps: a job naming a cap that does not exist is refused");
	for (round = 0; round < 20; round++) {
		world_init(w, round % 2 ? KAI_SCHED_SPREAD : KAI_SCHED_BINPACK);
		for (i = 0; i < NT; i++)
			if (w->tasks[i].gpu_memory_mib == 0)
				w->jobs[i].gpu_limit = rnd(4);
		w->s.gpu_limits = caps;
		w->s.ngpu_limits = 3;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("cycle failed: %s", err.msg);
			over++;
			continue;
		}
		memset(sum, 0, sizeof(sum));
		for (i = 0; i < NT; i++) {
			if (w->jobs[i].gpu_limit > 0)
				sum[w->jobs[i].gpu_limit - 1] +=
				    held_ugpu(&w->tasks[i], &r.tasks[i]);
			waiting += r.jobs[i].why.why == KAI_SCHED_WHY_QOS_GPUS;
			if (r.jobs[i].why.why == KAI_SCHED_WHY_QOS_GPUS &&
			    w->jobs[i].gpu_limit == 0)
				over++;
		}
		for (i = 0; i < 3; i++)
			over += sum[i] > caps[i];
		kai_sched_result_fini(&r);
	}
	is_int((int64_t)over, 0,
	    "caps: random worlds never pass a cap, nor blame one wrongly");
	ok(waiting > 0, "caps: ... and jobs did wait for their caps (%zu)",
	    waiting);
	free(w);
}

/*
 * Random worlds with GPU types (doc/scheduler.md, "GPU types"): nodes of
 * type A, B or none; a parent with an A limit, a child with a B limit and
 * an A quota; jobs naming A, B or no type.  Through every phase: a job
 * that names a type holds GPUs only on nodes of that type, no queue holds
 * more of a type than its limit (counting every job, named type or not),
 * and the core's per type allocation is what the tasks hold.
 */
static int64_t
type_held_ugpu(const struct kai_sched_task_out *o)
{
	int64_t n = __builtin_popcountll(o->gpu_mask);

	return o->gpu_fraction > 0 ? n * o->gpu_fraction
				   : n * KAI_SCHED_GPU_UNIT;
}

static void
check_types(const struct world *w, const struct kai_sched_result *r,
    int *wrong_node, int *over, int *mismatch)
{
	int64_t held[4][2];
	size_t t, q, k;

	memset(held, 0, sizeof(held));
	for (t = 0; t < NT; t++) {
		const struct kai_sched_task_out *o = &r->tasks[t];
		const char *nt, *jt;
		size_t j;
		int32_t qq;

		if (o->state != KAI_SCHED_TASK_RUNNING &&
		    o->state != KAI_SCHED_TASK_PIPELINED)
			continue;
		for (j = 0; j < NT && !(t >= w->jobs[j].first_task &&
		     t < w->jobs[j].first_task + w->jobs[j].ntasks); j++)
			;
		nt = w->nodes[o->node].gpu_type;
		jt = kai_sched_job_gpu_type(&w->s, j);
		*wrong_node += jt != NULL && type_held_ugpu(o) > 0 &&
		    (nt == NULL || strcmp(nt, jt) != 0);
		if (nt == NULL)
			continue;
		for (qq = (int32_t)w->jobs[j].queue; qq >= 0;
		     qq = w->s.queues[qq].parent)
			held[qq][nt[0] - 'A'] += type_held_ugpu(o);
	}
	for (q = 0; q < w->s.nqueues; q++) {
		const struct kai_sched_snap_queue *Q = &w->s.queues[q];

		for (k = 0; k < Q->ntypes; k++) {
			int64_t lim = Q->types[k].limit;
			int64_t h = held[q][Q->types[k].type[0] - 'A'];

			if (lim >= 0 && h > lim) {
				(*over)++;
				diag("queue %s: %lld of %s > %lld", Q->name,
				    (long long)h, Q->types[k].type,
				    (long long)lim);
			}
		}
		for (k = 0; k < r->ntypes; k++)
			*mismatch += r->qtypes[q * r->ntypes + k].allocated !=
			    held[q][r->types[k][0] - 'A'];
	}
}

static void
test_type_invariants(void)
{
	static const char *const names[] = {"A", "B", NULL};
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_snap_queue qs[4];
	struct kai_sched_qtype dept[1], b[2];
	bool was_below[NT];
	struct kai_err err;
	int seed, runs = 0, wrong_node = 0, over = 0, mismatch = 0;
	size_t i;

	dept[0] = (struct kai_sched_qtype){"A", 0, INT64_C(30) *
	    KAI_SCHED_GPU_UNIT, -1};
	b[0] = (struct kai_sched_qtype){"A", INT64_C(5) * KAI_SCHED_GPU_UNIT,
	    -1, 2};
	b[1] = (struct kai_sched_qtype){"B", 0, INT64_C(10) *
	    KAI_SCHED_GPU_UNIT, -1};
	for (seed = 0; seed < 40; seed++) {
		struct kai_sched_result r;

		world_init(w,
		    seed % 3 == 0 ? KAI_SCHED_SPREAD : KAI_SCHED_BINPACK);
		for (i = 0; i < NN; i++)
			w->nodes[i].gpu_type = names[rnd(3)];
		world_queues_gangs(w, qs);
		qs[0].types = dept;
		qs[0].ntypes = 1;
		qs[2].types = b;
		qs[2].ntypes = 2;
		/* names[k] as a job's type: 1 + k, NULL (k = 2) any. */
		for (i = 0; i < NT; i++)
			if (w->tasks[i].gpus > 0 ||
			    w->tasks[i].gpu_fraction > 0) {
				uint32_t k = rnd(3);

				w->jobs[i].gpu_type = (uint16_t)(k < 2 ? k + 1
									: 0);
			}
		w->s.gpu_types = names;
		w->s.ngpu_types = 2;
		settle_world(w, was_below);
		kai_sched_config_init(&w->s.config);
		w->s.config.placement = seed % 3 == 0 ? KAI_SCHED_SPREAD
		    : seed % 6 == 1		      ? KAI_SCHED_FRAG
						      : KAI_SCHED_BINPACK;
		w->s.config.bf_reservations = seed % 2 ? 4 : 0;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		check_types(w, &r, &wrong_node, &over, &mismatch);
		kai_sched_result_fini(&r);
	}
	is_int(runs, 40, "types: every random world is a valid snapshot");
	is_int(wrong_node, 0,
	    "types: a job naming a type holds GPUs of that type only");
	is_int(over, 0, "types: no queue holds more of a type than its limit");
	is_int(mismatch, 0,
	    "types: the per type allocation is what the tasks hold");
	free(w);
}

/*
 * Random worlds with node features and job requirements (Slurm's -C, -w,
 * -x; nodereq.c), all phases: no active task is on a node its job's
 * requirement refuses, and the tasks of a matching OR share one
 * alternative.
 */
#define NREQ 16

static bool
req_sat(const struct kai_sched_nodereq *R, uint64_t f, size_t a)
{
	return (R->alts[a] & ~f) == 0;
}

static bool
req_lists(const struct kai_sched_nodereq *R, uint32_t n)
{
	size_t i;
	bool in = !R->only_set;

	for (i = 0; i < R->nnever; i++)
		if (R->never[i] == n)
			return false;
	for (i = 0; i < R->nonly; i++)
		in |= R->only[i] == n;
	return in;
}

static void
make_reqs(struct world *w, struct kai_sched_nodereq *reqs,
    uint64_t alts[NREQ][3], uint32_t sets[NREQ][2][8])
{
	size_t i, k;

	for (i = 0; i < NN; i++)
		w->nodes[i].features = rnd(16);
	for (i = 0; i < NREQ; i++) {
		struct kai_sched_nodereq *R = &reqs[i];

		memset(R, 0, sizeof(*R));
		R->text = "x";
		R->nalts = rnd(4);
		for (k = 0; k < R->nalts; k++)
			alts[i][k] = 1 + rnd(15);
		R->alts = alts[i];
		R->match = R->nalts > 1 && rnd(2);
		/* Ascending node sets: every k-th node from a start. */
		if (rnd(3) == 0) {
			uint32_t step = 1 + rnd(12), n = rnd(step);

			for (k = 0; k < 8 && n < NN; k++, n += step)
				sets[i][0][k] = n;
			R->only = sets[i][0];
			R->nonly = k;
			R->only_set = true;
		}
		if (rnd(3) == 0) {
			uint32_t step = 1 + rnd(12), n = rnd(step);

			for (k = 0; k < 8 && n < NN; k++, n += step)
				sets[i][1][k] = n;
			R->never = sets[i][1];
			R->nnever = k;
		}
	}
	w->s.nodereqs = reqs;
	w->s.nnodereqs = NREQ;
	for (i = 0; i < NT; i++)
		w->jobs[i].nodereq = rnd(3) == 0 ? 0 : 1 + rnd(NREQ);
}

static void
check_reqs(const struct world *w, const struct kai_sched_result *r,
    int *refused, int *mixed)
{
	size_t j, t, a;

	for (j = 0; j < NT; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];
		const struct kai_sched_nodereq *R;
		uint64_t open = ~UINT64_C(0);

		if (J->nodereq == 0)
			continue;
		R = &w->s.nodereqs[J->nodereq - 1];
		for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
			const struct kai_sched_task_out *o = &r->tasks[t];
			uint64_t f, sat = 0;

			if (o->state != KAI_SCHED_TASK_RUNNING &&
			    o->state != KAI_SCHED_TASK_PIPELINED)
				continue;
			f = w->nodes[o->node].features;
			for (a = 0; a < R->nalts; a++)
				sat |= (uint64_t)req_sat(R, f, a) << a;
			*refused += !req_lists(R, (uint32_t)o->node) ||
			    (R->nalts > 0 && sat == 0);
			open &= sat;
		}
		*mixed += R->match && open == 0;
	}
}

static void
test_nodereq_invariants(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kai_sched_snap_queue qs[4];
	struct kai_sched_nodereq reqs[NREQ];
	uint64_t alts[NREQ][3];
	uint32_t sets[NREQ][2][8];
	bool was_below[NT];
	struct kai_err err;
	int seed, runs = 0, refused = 0, mixed = 0, placed = 0;
	size_t t;

	for (seed = 0; seed < 40; seed++) {
		struct kai_sched_result r;

		world_init(w,
		    seed % 3 == 0 ? KAI_SCHED_SPREAD : KAI_SCHED_BINPACK);
		world_queues_gangs(w, qs);
		make_reqs(w, reqs, alts, sets);
		settle_world(w, was_below);
		kai_sched_config_init(&w->s.config);
		w->s.config.placement = seed % 3 == 0 ? KAI_SCHED_SPREAD
		    : seed % 6 == 1		      ? KAI_SCHED_FRAG
						      : KAI_SCHED_BINPACK;
		w->s.config.bf_reservations = seed % 2 ? 4 : 0;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		for (t = 0; t < NT; t++)
			placed += r.tasks[t].state == KAI_SCHED_TASK_RUNNING;
		check_reqs(w, &r, &refused, &mixed);
		kai_sched_result_fini(&r);
	}
	is_int(runs, 40, "nodereq: every random world is a valid snapshot");
	ok(placed > 40 * NT / 4, "nodereq: the worlds run tasks (%d)", placed);
	is_int(refused, 0,
	    "nodereq: no task runs on a node its requirement refuses");
	is_int(mixed, 0,
	    "nodereq: a matching OR's tasks share one alternative");
	free(w);
}

int
main(void)
{
	rng = 88172645463325252ULL; /* this program's worlds */
	test_index_matches_scan(KAI_SCHED_BINPACK, "binpack");
	test_index_matches_scan(KAI_SCHED_SPREAD, "spread");
	/* frag: its node-state groups against its scan of every node */
	test_index_matches_scan(KAI_SCHED_FRAG, "frag");
	test_rollback_is_exact();
	test_exclusive_invariants();
	test_deterministic();
	test_refusals();
	test_first_fault();
	test_reason_names();
	test_invariants();
	test_context();
	test_gpu_caps();
	test_type_invariants();
	test_nodereq_invariants();
	return done_testing();
}
