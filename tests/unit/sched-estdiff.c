/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-estdiff: the start estimates (estimate.c) of random worlds
 * against a replay written here, the plainest one there is: at `now`
 * and then at every running or estimated job's end, in time order, a
 * snapshot of that moment (the jobs still running, each where it was;
 * the waiting jobs without an estimate yet) goes through an allocate-only
 * cycle of its own, and every job it places gets that time as its
 * estimate and runs from there, where it was placed, until its limit.
 *
 * Worlds: up to four nodes of 2, 4 or 8 GPUs (CPU tracked in half of
 * them), one queue, one user, so that the allocation order is the jobs'
 * order at every moment, as the replay assumes; up to 12 running jobs
 * (whole GPUs or fractions, on explicit devices, limits of 1-20 minutes
 * on a minute grid so that ends coincide, some without a limit, some past
 * theirs) and up to 12 waiting gangs of 1-3 tasks.  Few enough times
 * that no candidate runs out of its tries, which the replay here does
 * not count.  Every waiting job's estimate must be the replay's.  The
 * cycle runs every phase, consolidation's moves included: the replay
 * starts from the result's tasks, each moved one where it went, so the
 * place a task moved from is free from `now` on, as the estimates must
 * make it.
 *
 * Reservations too: each world again, with consolidation before the
 * allocate phase (so that its reservation's replay starts after the
 * moves) and one reservation; the reserved job's start must be the
 * replay's for that job alone, the running jobs ending as above.  Jobs
 * backfilled behind it end by its start, so they change neither.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sched/sched_model.h"
#include "rnd.h"
#include "tap.h"

#define NOW    1000000
#define NONE   KAI_SCHED_NO_TIME
#define UNIT   KAI_SCHED_GPU_UNIT
#define MAXN   4
#define MAXJ   24
#define MAXT   (3 * MAXJ)
#define WORLDS 2000

struct world {
	struct kai_sched_snap_node nodes[MAXN];
	char nnames[MAXN][16];
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job jobs[MAXJ];
	char jnames[MAXJ][16];
	struct kai_sched_snap_task tasks[MAXT];
	struct kai_sched_snapshot s;
};

/* Where each job's tasks run in the replay, and until when. */
struct place {
	bool on;
	bool task[3]; /* the task holds its place */
	int64_t end;  /* NONE: never */
	int32_t node[3];
	uint64_t mask[3];
};

static void
world_init(struct world *w, uint32_t nn, uint32_t g, bool cpu)
{
	uint32_t i;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	for (i = 0; i < nn; i++) {
		(void)snprintf(w->nnames[i], sizeof(w->nnames[i]), "n%u", i);
		w->nodes[i].name = w->nnames[i];
		w->nodes[i].gpus = g;
		w->nodes[i].cpu_millis = cpu ? 16000 : -1;
		w->nodes[i].memory_mib = -1;
	}
	kai_sched_queue_init(&w->q);
	w->q.name = "q";
	w->s.nodes = w->nodes;
	w->s.nnodes = nn;
	w->s.queues = &w->q;
	w->s.nqueues = 1;
	w->s.jobs = w->jobs;
	w->s.tasks = w->tasks;
	w->s.now = NOW;
}

/* Job j of `from` into w (same name, order and request), no tasks yet. */
static struct kai_sched_snap_job *
copy_job(struct world *w, const struct world *from, uint32_t j)
{
	struct kai_sched_snap_job *J = &w->jobs[w->s.njobs++];

	*J = from->jobs[j];
	J->first_task = (uint32_t)w->s.ntasks;
	J->ntasks = 0;
	return J;
}

static uint64_t
free_devs(const int64_t *used, uint32_t g, uint32_t k, int64_t frac)
{
	uint64_t m = 0;
	uint32_t d, n = 0;

	for (d = 0; d < g && n < k; d++)
		if (frac > 0 ? used[d] < UNIT && used[d] + frac <= UNIT
			     : used[d] == 0) {
			m |= UINT64_C(1) << d;
			n++;
		}
	return n == k ? m : 0;
}

static int64_t
rnd_limit(void)
{
	uint32_t r = rnd(10);

	return r == 0 ? -1 : 60 * (1 + (int64_t)rnd(20));
}

/* A random world: running jobs on explicit devices, then waiting ones. */
static void
world_random(struct world *w)
{
	uint32_t nn = 1 + rnd(MAXN), g = 2u << rnd(3), i, k, nrun, npend;
	bool cpu = rnd(2) == 0;
	int64_t used[MAXN][8], cpuused[MAXN];

	world_init(w, nn, g, cpu);
	memset(used, 0, sizeof(used));
	memset(cpuused, 0, sizeof(cpuused));
	nrun = rnd(13);
	npend = 1 + rnd(12);
	for (i = 0; i < nrun + npend; i++) {
		struct kai_sched_snap_job *J = &w->jobs[w->s.njobs];
		bool run = i < nrun;
		uint32_t nt = run ? 1 + rnd(2) : 1 + rnd(3);
		uint32_t gpus = rnd(4) == 0 ? 0 : 1 + rnd(g < 4 ? g : 4);
		int64_t frac = gpus == 0 ? 250000 * (1 + (int64_t)rnd(3)) : 0;
		int32_t c = 1000 * (1 + (int32_t)rnd(6));

		kai_sched_job_init(J);
		(void)snprintf(w->jnames[w->s.njobs], sizeof(w->jnames[0]),
		    "j%zu", w->s.njobs);
		J->name = w->jnames[w->s.njobs];
		J->priority = 50;
		J->preemptible = true;
		J->created = (int64_t)w->s.njobs;
		J->time_limit_s = rnd_limit();
		J->first_task = (uint32_t)w->s.ntasks;
		if (run) {
			/* Some are past their limit: they end now. */
			J->started = NOW - (rnd(5) == 0 ? 2000 : rnd(300));
		}
		for (k = 0; k < nt; k++) {
			struct kai_sched_snap_task *t = &w->tasks[w->s.ntasks];
			uint32_t n = rnd(nn);
			uint64_t m;

			kai_sched_task_init(t);
			t->gpus = (uint8_t)gpus;
			t->gpu_fraction = (int32_t)frac;
			t->cpu_millis = cpu ? c : 0;
			if (run) {
				m = free_devs(used[n], g, gpus > 0 ? gpus : 1,
				    frac);
				if (m == 0 || cpuused[n] + c > 16000)
					continue; /* no room: one task less */
				/* Some are going: freed at once. */
				t->state = rnd(5) == 0
				    ? KAI_SCHED_TASK_RELEASING
				    : KAI_SCHED_TASK_RUNNING;
				t->node = (int32_t)n;
				t->gpu_mask = m;
				for (; m != 0; m &= m - 1)
					used[n][__builtin_ctzll(m)] +=
					    frac > 0 ? frac : UNIT;
				cpuused[n] += cpu ? c : 0;
			}
			w->s.ntasks++;
			J->ntasks++;
		}
		if (J->ntasks > 0)
			w->s.njobs++;
	}
}

/* The end of a job running from `from` for `limit` (estimate.c's). */
static int64_t
end_of(int64_t from, int64_t limit, int64_t now)
{
	if (limit < 0)
		return NONE;
	return from + limit < now ? now : from + limit;
}

/* Job j waits in the real cycle's result: pending, every task too. */
static bool
waiting(const struct world *w, const struct kai_sched_result *r, size_t j)
{
	size_t k;

	if (r->jobs[j].state != KAI_SCHED_JOB_PENDING)
		return false;
	for (k = 0; k < w->jobs[j].ntasks; k++)
		if (w->tasks[w->jobs[j].first_task + k].state !=
		    KAI_SCHED_TASK_PENDING)
			return false;
	return true;
}

/*
 * The replay: est[j] for every job of w that the real cycle r left
 * waiting (only: that job alone, when not NONE32).  at[] holds where
 * each job runs, from the real cycle's result at first.
 */
static void
oracle(const struct world *w, const struct kai_sched_result *r, uint32_t only,
    int64_t *est)
{
	static struct world m;
	struct place at[MAXJ];
	struct kai_sched_result mr;
	struct kai_err err;
	uint32_t map[MAXJ];
	int64_t t = NOW, next;
	size_t j, k;

	memset(at, 0, sizeof(at));
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];

		est[j] = NONE;
		if (r->jobs[j].state != KAI_SCHED_JOB_RUNNING)
			continue;
		at[j].on = true;
		at[j].end =
		    end_of(r->jobs[j].placed_tasks > 0 ? NOW : J->started,
			J->time_limit_s, NOW);
		for (k = 0; k < J->ntasks; k++) {
			const struct kai_sched_task_out *o =
			    &r->tasks[J->first_task + k];

			at[j].task[k] = o->state == KAI_SCHED_TASK_RUNNING ||
			    o->state == KAI_SCHED_TASK_PIPELINED;
			at[j].node[k] = o->node;
			at[j].mask[k] = o->gpu_mask;
		}
	}
	for (;;) {
		/* The moment t: who still runs, who still waits. */
		world_init(&m, (uint32_t)w->s.nnodes, w->nodes[0].gpus,
		    w->nodes[0].cpu_millis > 0);
		m.s.now = t;
		m.s.config.nphases = 1; /* allocate */
		m.s.config.est_jobs = 0;
		for (j = 0; j < w->s.njobs; j++) {
			const struct kai_sched_snap_job *J = &w->jobs[j];
			bool runs =
			    at[j].on && (at[j].end == NONE || at[j].end > t);
			bool waits = waiting(w, r, j) && est[j] == NONE &&
			    (only == UINT32_MAX || j == only);
			struct kai_sched_snap_job *M;

			if (!runs && !waits)
				continue;
			map[m.s.njobs] = (uint32_t)j;
			M = copy_job(&m, w, (uint32_t)j);
			for (k = 0; k < J->ntasks; k++) {
				struct kai_sched_snap_task *x;

				if (runs && !at[j].task[k])
					continue; /* releasing: gone */
				x = &m.tasks[m.s.ntasks++];
				M->ntasks++;
				*x = w->tasks[J->first_task + k];
				x->state = runs ? KAI_SCHED_TASK_RUNNING
						: KAI_SCHED_TASK_PENDING;
				x->node = runs ? at[j].node[k] : -1;
				x->gpu_mask = runs ? at[j].mask[k] : 0;
			}
		}
		if (kai_sched_cycle(&m.s, &mr, &err) != 0) {
			diag("replay at %lld: %s", (long long)t, err.msg);
			return;
		}
		for (j = 0; j < m.s.njobs; j++) {
			uint32_t o = map[j];
			const struct kai_sched_snap_job *J = &m.jobs[j];

			if (at[o].on ||
			    mr.jobs[j].state != KAI_SCHED_JOB_RUNNING)
				continue;
			est[o] = t;
			at[o].on = true;
			at[o].end = end_of(t, J->time_limit_s, t);
			for (k = 0; k < J->ntasks; k++) {
				at[o].task[k] = true;
				at[o].node[k] =
				    mr.tasks[J->first_task + k].node;
				at[o].mask[k] =
				    mr.tasks[J->first_task + k].gpu_mask;
			}
		}
		kai_sched_result_fini(&mr);
		next = NONE;
		for (j = 0; j < w->s.njobs; j++)
			if (at[j].on && at[j].end != NONE && at[j].end > t &&
			    (next == NONE || at[j].end < next))
				next = at[j].end;
		if (next == NONE)
			return;
		t = next;
	}
}

/*
 * The world again with consolidation, then allocate with one
 * reservation: 1 if a job got one, its start the replay's, 0 if none
 * did, -1 if its start is not the replay's.  *moved: the cycle moved.
 */
static int
reserved(struct world *w, int i, bool *moved)
{
	struct kai_sched_result r;
	struct kai_err err;
	int64_t est[MAXJ];
	int rc = 0;
	size_t j;

	w->s.config.phases[0] = KAI_SCHED_CONSOLIDATE;
	w->s.config.phases[1] = KAI_SCHED_ALLOCATE;
	w->s.config.nphases = 2;
	w->s.config.bf_reservations = 1;
	w->s.config.est_jobs = 0;
	if (kai_sched_cycle(&w->s, &r, &err) != 0) {
		diag("world %d with a reservation: %s", i, err.msg);
		return -1;
	}
	*moved = r.moved > 0;
	for (j = 0; j < w->s.njobs && rc == 0; j++) {
		if (r.jobs[j].why.why != KAI_SCHED_WHY_RESERVED)
			continue;
		oracle(w, &r, (uint32_t)j, est);
		rc = r.jobs[j].why.a == est[j] ? 1 : -1;
		if (rc < 0)
			diag("world %d, job %s: reserved at %lld, the replay's "
			     "%lld",
			    i, w->jobs[j].name, (long long)r.jobs[j].why.a,
			    (long long)est[j]);
	}
	kai_sched_result_fini(&r);
	return rc;
}

/* A world, its result and the replay's estimates, for the log. */
static void
dump(const struct world *w, const struct kai_sched_result *r,
    const int64_t *est)
{
	size_t j, k;

	diag("%zu nodes of %u GPUs, CPU %lld", w->s.nnodes,
	    (unsigned)w->nodes[0].gpus, (long long)w->nodes[0].cpu_millis);
	for (j = 0; j < w->s.njobs; j++) {
		const struct kai_sched_snap_job *J = &w->jobs[j];

		diag("%s: limit %lld started %lld; state %d why %d estimate "
		     "%lld, the replay's %lld",
		    J->name, (long long)J->time_limit_s, (long long)J->started,
		    (int)r->jobs[j].state, (int)r->jobs[j].why.why,
		    (long long)r->jobs[j].est_start, (long long)est[j]);
		for (k = J->first_task; k < J->first_task + J->ntasks; k++)
			diag("  task: gpus %u fraction %d cpu %d state %d on "
			     "%d/%llx -> state %d on %d/%llx",
			    (unsigned)w->tasks[k].gpus,
			    w->tasks[k].gpu_fraction, w->tasks[k].cpu_millis,
			    (int)w->tasks[k].state, w->tasks[k].node,
			    (unsigned long long)w->tasks[k].gpu_mask,
			    (int)r->tasks[k].state, r->tasks[k].node,
			    (unsigned long long)r->tasks[k].gpu_mask);
	}
}

int
main(void)
{
	static struct world w;
	struct kai_sched_result r;
	struct kai_err err;
	int64_t est[MAXJ];
	unsigned worlds = 0, same = 0, nwait = 0, later = 0;
	unsigned nres = 0, rsame = 0, rmoved = 0, moved = 0;
	size_t j;
	int i;

	for (i = 0; i < WORLDS; i++) {
		bool eq = true, mv = false;
		int rc;

		world_random(&w);
		if (kai_sched_cycle(&w.s, &r, &err) != 0) {
			diag("world %d: %s", i, err.msg);
			continue;
		}
		worlds++;
		oracle(&w, &r, UINT32_MAX, est);
		moved += r.moved > 0;
		for (j = 0; j < w.s.njobs; j++) {
			if (!waiting(&w, &r, j))
				continue;
			nwait++;
			later += est[j] != NONE && est[j] > NOW;
			if (r.jobs[j].est_start != est[j]) {
				if (eq)
					diag("world %d, job %s: estimate %lld, "
					     "the replay's %lld",
					    i, w.jobs[j].name,
					    (long long)r.jobs[j].est_start,
					    (long long)est[j]);
				eq = false;
			}
		}
		same += eq;
		if (!eq && same == (unsigned)i)
			dump(&w, &r, est); /* the first such world */
		kai_sched_result_fini(&r);
		if ((rc = reserved(&w, i, &mv)) != 0) {
			nres++;
			rsame += rc > 0;
			rmoved += mv;
		}
	}
	is_int(worlds, WORLDS, "every random world is a valid snapshot");
	is_int(same, worlds, "every waiting job's estimate is the replay's");
	ok(later > nwait / 4,
	    "the worlds are busy: %u of %u waiting jobs start later", later,
	    nwait);
	ok(moved > 0, "consolidation moves tasks in %u worlds", moved);
	is_int(rsame, nres, "every reservation's start is the replay's");
	ok(rmoved > 0, "%u of the %u reservations come after moves", rmoved,
	    nres);
	return done_testing();
}
