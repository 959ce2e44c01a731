/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backfill.c: reservations for the jobs at the head of the order, so that
 * a stream of small jobs cannot starve a big one (Slurm's backfill).
 *
 * When the allocate phase leaves one of its first bf_reservations waiting
 * jobs pending for lack of resources, the job's start is replayed: every
 * active job ends at its time limit (kai_sched_job_end()), in time order,
 * and at each end the job's step is tried on what is idle then, with the
 * allocate phase's own admission and placement, until it fits.  Where it
 * fits (devices, and the CPU and memory of those nodes) and from when to
 * when (its start to start + its own limit) becomes the reservation; the
 * replay itself is rolled back (stmt.c logs the ends too).
 *
 * Placement consults the reservations while S->bf_on (from the allocate
 * phase to the end of the cycle, start estimates included): a device is
 * usable by a job running over
 * [bf_t, bf_end) only if that interval misses the device's reserved one,
 * and on a node with reserved CPU or memory in that interval the job must
 * leave the reserved amounts idle.  Each device and node keeps one
 * interval, the union of its reservations' (a conservative bound, so a
 * reservation is never delayed), and the job that reserved it first,
 * which may use it at any time.  Every phase respects them: a reclaimer
 * or preemptor, or a job moved by consolidation, is placed off reserved
 * resources unless it ends in time.  A job with no time limit runs for ever,
 * so it never backfills onto reserved resources.
 *
 * The replay is bounded: BF_TRIES placement tries per reservation, and a
 * try only when enough GPU is idle in the cluster; a job whose start is
 * not found within that gets no reservation.  So is the number of
 * replays: an allocate phase replays at most bf_max_job_test waiting jobs
 * (Slurm's bf_max_job_test), found or not.  A replay walks every active
 * job and task, and one that finds no start (jobs without a time limit
 * never end) does not count against bf_reservations, so without the bound
 * every waiting job behind such heads would replay: a million waiting
 * jobs, a million walks over the cluster in one cycle.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

#define BF_TRIES 256 /* placement tries per reservation */
#define NEVER    INT64_MAX

struct kai_sched_bf {
	int64_t *ds, *de; /* per device: reserved over [ds, de) */
	uint32_t *dj;     /* ... the job of its first reservation */
	int64_t *ns, *ne; /* per node: CPU and memory reserved over */
	int64_t *ncpu, *nmem;
	uint32_t n;      /* reservations made */
	int64_t *rend;   /* per reservation: when it ends (NEVER: never) */
	int64_t *starts; /* their starts, ascending */
};

struct bfev {
	int64_t t;
	uint32_t job;
};

/*
 * What every replay of an allocate phase starts from, found at its
 * first replay instead of at each (a walk over every job and every task,
 * a million and three and a half million, up to bf_max_job_test times a
 * phase): the active jobs' ends, sorted, and the tasks releasing or
 * evicted then.  Nothing in an allocate phase evicts a task or ends a
 * job, and a replay is rolled back, so both stay true for the phase but
 * for the jobs it places: those that held nothing are listed as they
 * are placed (kai_sched_bf_placed()) and their ends merged in.  An
 * active job's end does not move while it runs (kai_sched_job_end():
 * its start, or now for a job all of whose active tasks were placed in
 * this cycle, and more tasks placed keep it so).  The places that
 * consolidation moved tasks from, releasing under no task, are not
 * listed here: the session keeps them (moved_from, stmt.c), and no
 * allocate phase moves a task.
 */
struct kai_sched_bfbase {
	struct bfev *ends;
	size_t nends;
	uint32_t *rel;
	size_t nrel;
	uint32_t *since;
	size_t nsince, capsince;
};

int64_t
kai_sched_job_end(const struct sess *S, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct sjob *sj = &S->jobs[j];
	int64_t start = J->started, now = S->s->now, end;

	if (J->time_limit_s < 0)
		return KAI_SCHED_NO_TIME;
	if (start == KAI_SCHED_NO_TIME || start > now ||
	    sj->nplaced == sj->nactive)
		start = now;
	if (J->time_limit_s > INT64_MAX - start)
		return KAI_SCHED_NO_TIME;
	end = start + J->time_limit_s;
	return end < now ? now : end;
}

/*
 * A reservation is a start the replay finds: at `now` once the
 * releasing tasks are gone, then at the end of an active job, its start
 * plus its time limit.  With no job limited (kaid's default partition
 * is UNLIMITED) nothing active ever ends, and with nothing releasing the
 * try at `now` is the one the allocate phase has just failed, against
 * the same state; an allocate phase after the first could find tasks
 * the phases before it evicted, and is not covered.  No reservation can
 * then be made, nor a job kept off one: the cycle is the one with
 * reservations off, closed leaves included (closed.c), and needs no
 * replay per waiting job.  One scan of the jobs, once per cycle.
 */
bool
kai_sched_bf_none(const struct kai_sched_snapshot *s)
{
	size_t i;

	if (s->config.bf_reservations == 0)
		return true;
	for (i = 1; i < s->config.nphases && i < KAI_SCHED_MAX_PHASES; i++)
		if (s->config.phases[i] == KAI_SCHED_ALLOCATE)
			return false;
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].time_limit_s >= 0)
			return false;
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].state == KAI_SCHED_TASK_RELEASING)
			return false;
	return true;
}

void
kai_sched_bf_job(struct sess *S, uint32_t j, int64_t t)
{
	int64_t lim = S->s->jobs[j].time_limit_s;

	S->bf_job = j;
	S->bf_t = t;
	S->bf_end = lim < 0 || lim > NEVER - t ? NEVER : t + lim;
}

void
kai_sched_bf_running(struct sess *S, uint32_t j)
{
	int64_t end = kai_sched_job_end(S, j);

	S->bf_job = j;
	S->bf_t = S->s->now;
	S->bf_end = end == KAI_SCHED_NO_TIME ? NEVER : end;
}

static bool
overlaps(const struct sess *S, int64_t from, int64_t until)
{
	return from < S->bf_end && S->bf_t < until;
}

bool
kai_sched_bf_dev_ok(const struct sess *S, uint32_t g)
{
	const struct kai_sched_bf *b = S->bf;

	return !S->bf_on || b == NULL || !overlaps(S, b->ds[g], b->de[g]) ||
	    b->dj[g] == S->bf_job;
}

bool
kai_sched_bf_node_ok(const struct sess *S, uint32_t n, int64_t cpu,
    int64_t mem)
{
	const struct kai_sched_bf *b = S->bf;
	const struct snode *nd = &S->nodes[n];

	if (!S->bf_on || b == NULL || !overlaps(S, b->ns[n], b->ne[n]))
		return true;
	return nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU] - cpu >=
	    b->ncpu[n] &&
	    nd->cap[R_MEM] - nd->alloc[R_MEM] - nd->rel[R_MEM] - mem >=
	    b->nmem[n];
}

uint32_t
kai_sched_bf_count(const struct sess *S)
{
	return S->bf != NULL ? S->bf->n : 0;
}

bool
kai_sched_bf_spent(const struct sess *S)
{
	return kai_sched_bf_count(S) >= S->cf->bf_reservations ||
	    S->bf_tested >= S->cf->bf_max_job_test;
}

uint32_t
kai_sched_bf_class(const struct sess *S, uint32_t j)
{
	const struct kai_sched_bf *b = S->bf;
	int64_t lim = S->s->jobs[j].time_limit_s, t = S->bf_clock;
	int64_t end = lim < 0 || lim > NEVER - t ? NEVER : t + lim;
	uint32_t k = 0;

	while (b != NULL && k < b->n && b->starts[k] < end)
		k++;
	return k;
}

int64_t
kai_sched_bf_end(const struct sess *S, uint32_t i)
{
	return S->bf->rend[i] == NEVER ? KAI_SCHED_NO_TIME : S->bf->rend[i];
}

static struct kai_sched_bf *
bf_get(struct sess *S)
{
	struct kai_sched_bf *b = S->bf;
	size_t nd = 0, i;
	uint32_t n;

	if (b != NULL)
		return b;
	for (n = 0; n < S->nn; n++)
		nd += S->nodes[n].ngpu;
	b = kai_xcalloc(1, sizeof(*b));
	b->ds = kai_xcalloc(nd + 1, sizeof(*b->ds));
	b->de = kai_xcalloc(nd + 1, sizeof(*b->de));
	b->dj = kai_xcalloc(nd + 1, sizeof(*b->dj));
	b->ns = kai_xcalloc(S->nn + 1, sizeof(*b->ns));
	b->ne = kai_xcalloc(S->nn + 1, sizeof(*b->ne));
	b->ncpu = kai_xcalloc(S->nn + 1, sizeof(*b->ncpu));
	b->nmem = kai_xcalloc(S->nn + 1, sizeof(*b->nmem));
	for (i = 0; i <= nd; i++) {
		b->ds[i] = NEVER;
		b->de[i] = INT64_MIN;
	}
	for (i = 0; i <= S->nn; i++) {
		b->ns[i] = NEVER;
		b->ne[i] = INT64_MIN;
	}
	S->bf = b;
	return b;
}

static void base_fini(struct sess *S);

void
kai_sched_bf_fini(struct sess *S)
{
	struct kai_sched_bf *b = S->bf;

	base_fini(S);
	if (b == NULL)
		return;
	free(b->ds);
	free(b->de);
	free(b->dj);
	free(b->ns);
	free(b->ne);
	free(b->ncpu);
	free(b->nmem);
	free(b->rend);
	free(b->starts);
	KAI_FREE(S->bf);
}

static void
base_fini(struct sess *S)
{
	struct kai_sched_bfbase *z = S->bfbase;

	if (z == NULL)
		return;
	free(z->ends);
	free(z->rel);
	free(z->since);
	KAI_FREE(S->bfbase);
}

void
kai_sched_bf_phase(struct sess *S)
{
	base_fini(S);
}

void
kai_sched_bf_placed(struct sess *S, uint32_t j)
{
	struct kai_sched_bfbase *z = S->bfbase;

	if (z == NULL)
		return; /* no replay yet: the first finds j active */
	if (z->nsince == z->capsince) {
		z->capsince = z->capsince ? 2 * z->capsince : 256;
		z->since = kai_xreallocarray(z->since, z->capsince,
		    sizeof(*z->since));
	}
	z->since[z->nsince++] = j;
}

static int
bfev_cmp(const void *a, const void *b)
{
	const struct bfev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static void
push(struct bfev **ev, size_t *n, size_t *cap, int64_t t, uint32_t job)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*ev = kai_xreallocarray(*ev, *cap, sizeof(**ev));
	}
	(*ev)[*n].t = t;
	(*ev)[(*n)++].job = job;
}

/* The phase's first replay: the active jobs' ends, the releasing tasks. */
static struct kai_sched_bfbase *
base(struct sess *S)
{
	struct kai_sched_bfbase *z = S->bfbase;
	size_t cap = 0, rcap = 0, j, t;
	int64_t e;

	if (z != NULL)
		return z;
	z = S->bfbase = kai_xcalloc(1, sizeof(*z));
	for (j = 0; j < S->s->njobs; j++)
		if (S->jobs[j].nactive > 0 &&
		    (e = kai_sched_job_end(S, (uint32_t)j)) != KAI_SCHED_NO_TIME)
			push(&z->ends, &z->nends, &cap, e, (uint32_t)j);
	if (z->nends > 1)
		qsort(z->ends, z->nends, sizeof(*z->ends), bfev_cmp);
	for (t = 0; t < S->s->ntasks; t++) {
		uint8_t st = S->tasks[t].state;

		if (st != KAI_SCHED_TASK_RELEASING &&
		    st != KAI_SCHED_TASK_EVICTED)
			continue;
		if (z->nrel == rcap) {
			rcap = rcap ? 2 * rcap : 64;
			z->rel = kai_xreallocarray(z->rel, rcap, sizeof(*z->rel));
		}
		z->rel[z->nrel++] = (uint32_t)t;
	}
	return z;
}

/*
 * The ends of the active jobs, sorted by time and job: the phase's
 * start's merged with those of the jobs placed since; returns how many.
 */
static size_t
ends(struct sess *S, struct bfev **out)
{
	const struct kai_sched_bfbase *z = base(S);
	struct bfev *add = NULL, *ev;
	size_t na = 0, cap = 0, i, a = 0, b = 0, n = 0;
	int64_t e;

	for (i = 0; i < z->nsince; i++)
		if ((e = kai_sched_job_end(S, z->since[i])) != KAI_SCHED_NO_TIME)
			push(&add, &na, &cap, e, z->since[i]);
	if (na > 1)
		qsort(add, na, sizeof(*add), bfev_cmp);
	ev = kai_xcalloc(z->nends + na + 1, sizeof(*ev));
	while (a < z->nends || b < na)
		ev[n++] = b == na ||
			(a < z->nends && bfev_cmp(&z->ends[a], &add[b]) < 0)
		    ? z->ends[a++]
		    : add[b++];
	free(add);
	*out = ev;
	return n;
}

/* Active job k ends: its tasks' resources are idle (logged). */
static void
end_job(struct sess *S, uint32_t k)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[k];
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		if (!kai_sched_task_active(&S->tasks[t]))
			continue;
		kai_sched_evict(S, (uint32_t)t);
		kai_sched_release(S, (uint32_t)t);
	}
}

/* The step of j fits at some end time: that time, else NO_TIME. */
static int64_t
replay(struct sess *S, uint32_t j)
{
	struct kai_sched_why_info w;
	struct bfev *ev;
	size_t nev = ends(S, &ev), i = 0, t;
	const struct kai_sched_bfbase *z = S->bfbase;
	int64_t at = S->s->now, req[NRES];
	uint32_t tries = 0;

	kai_sched_step_req(S, j, req);
	for (t = 0; t < z->nrel; t++)
		kai_sched_release(S, z->rel[t]); /* releasing: gone */
	kai_sched_release_moved(S); /* the places moved from: too */
	for (;;) {
		while (i < nev && ev[i].t <= at)
			end_job(S, ev[i++].job);
		if (S->idle_ugpu >= req[R_GPU]) {
			kai_sched_why_clear(&w);
			S->bf_clock = at;
			if (kai_sched_try_step(S, j, false, &w))
				break;
			if (++tries == BF_TRIES) {
				at = KAI_SCHED_NO_TIME;
				break;
			}
		}
		if (i == nev) {
			at = KAI_SCHED_NO_TIME;
			break;
		}
		at = ev[i].t;
	}
	S->bf_clock = S->s->now;
	free(ev);
	return at;
}

struct held {
	uint32_t node;
	uint64_t mask;
	int64_t cpu, mem;
};

static void
widen(int64_t *from, int64_t *until, int64_t a, int64_t b)
{
	if (a < *from)
		*from = a;
	if (b > *until)
		*until = b;
}

/* Records where j's step went in the replay as reserved from at. */
static uint32_t
record(struct sess *S, uint32_t j, int64_t at, const struct held *h,
    uint32_t nh)
{
	struct kai_sched_bf *b = bf_get(S);
	int64_t lim = S->s->jobs[j].time_limit_s;
	int64_t until = lim < 0 || lim > NEVER - at ? NEVER : at + lim;
	uint32_t i, nodes = 0;

	for (i = 0; i < nh; i++) {
		const struct snode *nd = &S->nodes[h[i].node];
		uint64_t m = h[i].mask;
		uint32_t k;

		for (k = 0; k < i && h[k].node != h[i].node; k++)
			;
		nodes += k == i;
		for (; m != 0; m &= m - 1) {
			uint32_t g = nd->gpu0 + (uint32_t)__builtin_ctzll(m);

			if (b->ds[g] == NEVER)
				b->dj[g] = j;
			widen(&b->ds[g], &b->de[g], at, until);
		}
		widen(&b->ns[h[i].node], &b->ne[h[i].node], at, until);
		if (S->nodes[h[i].node].cap[R_CPU] < BIG)
			b->ncpu[h[i].node] += h[i].cpu;
		if (S->nodes[h[i].node].cap[R_MEM] < BIG)
			b->nmem[h[i].node] += h[i].mem;
	}
	b->rend = kai_xreallocarray(b->rend, b->n + 1, sizeof(*b->rend));
	b->starts = kai_xreallocarray(b->starts, b->n + 1, sizeof(*b->starts));
	for (i = b->n; i > 0 && b->starts[i - 1] > at; i--)
		b->starts[i] = b->starts[i - 1];
	b->starts[i] = at;
	b->rend[b->n++] = until;
	return nodes;
}

bool
kai_sched_bf_reserve(struct sess *S, uint32_t j, struct kai_sched_why_info *w)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	size_t mark = kai_sched_mark(S), t;
	struct held *h = NULL;
	uint32_t nh = 0, nodes;
	int64_t at;

	if (S->jobs[j].nactive > 0 || J->ntasks == 0 || kai_sched_bf_spent(S))
		return false;
	S->bf_tested++;
	if ((at = replay(S, j)) != KAI_SCHED_NO_TIME) {
		h = kai_xcalloc(J->ntasks, sizeof(*h));
		for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
			const struct stask *st = &S->tasks[t];

			if (!kai_sched_task_active(st))
				continue;
			h[nh].node = (uint32_t)st->node;
			h[nh].mask = st->mask;
			h[nh].cpu = S->s->tasks[t].cpu_millis;
			h[nh++].mem = S->s->tasks[t].memory_mib;
		}
	}
	kai_sched_rollback(S, mark);
	kai_sched_bf_job(S, j, S->s->now);
	if (at == KAI_SCHED_NO_TIME)
		return false;
	nodes = record(S, j, at, h, nh);
	free(h);
	kai_sched_why_clear(w);
	w->why = KAI_SCHED_WHY_RESERVED;
	w->a = at;
	w->b = nodes;
	return true;
}

bool
kai_sched_bf_blocks(struct sess *S, uint32_t j, struct kai_sched_why_info *w)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const struct kai_sched_bf *b = S->bf;
	size_t mark = kai_sched_mark(S), t;
	struct kai_sched_why_info x;
	int32_t by = -1;

	if (b == NULL || b->n == 0 || S->jobs[j].nactive > 0)
		return false;
	kai_sched_why_clear(&x);
	S->bf_on = false;
	if (kai_sched_try_step(S, j, true, &x)) {
		/* Which reservation was in the way: one it would have used. */
		S->bf_on = true;
		for (t = J->first_task; t < J->first_task + J->ntasks && by < 0;
		     t++) {
			const struct stask *st = &S->tasks[t];
			uint64_t m = st->mask;

			if (!kai_sched_task_active(st))
				continue;
			for (; m != 0 && by < 0; m &= m - 1) {
				uint32_t g = S->nodes[st->node].gpu0 +
				    (uint32_t)__builtin_ctzll(m);

				if (!kai_sched_bf_dev_ok(S, g))
					by = (int32_t)b->dj[g];
			}
		}
		kai_sched_rollback(S, mark);
		if (by < 0)
			by = -2; /* CPU or memory a reservation holds */
	}
	S->bf_on = true;
	if (by == -1)
		return false;
	kai_sched_why_clear(w);
	w->why = KAI_SCHED_WHY_BACKFILL;
	w->job = by >= 0 ? by : -1;
	w->a = by >= 0 ? S->r->jobs[by].why.a : 0;
	return true;
}
