/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * frag.c: the `frag` placement -- fragmentation gradient descent (Weng
 * et al., "Beware of Fragmentation", USENIX ATC '23).
 *
 * The workload M is a distribution over task classes: each class a GPU
 * request (whole GPUs, or a part of one GPU in micro-GPUs), with a
 * popularity p and the mean CPU and memory of its tasks.  It is learned
 * at the start of the cycle from the requests in the snapshot -- the
 * pending tasks and the ones running (the recent requests) -- never from
 * outside: the MAX_CLASSES most frequent classes (the classes of the
 * paper's "typical pods", which also key them by CPU; the mean of a GPU
 * request's CPU and memory judges a node's room for the next tasks as
 * well, with fewer classes: 0.1 point more of the Alibaba replay's GPUs
 * and a faster cycle).  Tasks that ask for no GPU are not in it: they
 * cannot use a GPU, so every idle GPU is lost to them wherever a task
 * goes.
 *
 * A node's fragmentation for class m, F_n(m), is the idle GPU of the
 * node that m could not use, were copies of m placed on it until its
 * GPUs, its idle CPU or its idle memory ran out (k copies fit in the
 * CPU and memory):
 *	- all of it, when k = 0 or the node has fewer wholly idle GPUs
 *	  than m asks for;
 *	- for a whole-GPU class, the idle part of partly used GPUs, and
 *	  the wholly idle GPUs beyond k copies' worth;
 *	- for a fraction d, the idle part of every GPU with less than d
 *	  idle, and of the GPUs with room beyond the k with most idle.
 * With CPU and memory to spare this is the paper's F_n(m).  The paper
 * asks only whether one copy fits; counting copies sees that a node
 * whose CPU holds three 1-GPU tasks strands the rest of its 8 idle GPUs,
 * so a CPU-only task goes where that costs least (on the Alibaba replay
 * the copies are worth 0.8 points of allocation).
 *
 * F_n(M) = sum over m of p_m F_n(m) is the idle GPU the next request
 * could not use.  But an idle device is lost only if no later request
 * fills it either, and under load it waits for many: frag counts device
 * j's idle f_j (devices sorted most idle first) with the chance that
 * none of them can use it, q_j the p of the classes whose copies would
 * reach device j, and the number of requests it waits for geometric of
 * mean W = HORIZON: f_j (1 - q_j) / (W - (W - 1)(1 - q_j)).  With W = 1
 * this is the paper's F_n(M) (sum over j of f_j (1 - q_j)); a larger W
 * cares less about a hole many requests can fill (0.53 idle beside a
 * 0.47 task) than about one few or none can (0.21 beside 0.47 and 0.32,
 * or a device whose node has no CPU left).  On the Alibaba replay W = 2,
 * 5, 10, 20, 50 give 95.84, 95.94, 96.01, 96.12, 96.33 % of the GPUs
 * against 95.78 % for W = 1, and W = 100 falls to 93.8 % (holes many
 * requests fit cost almost nothing, and fractions spread onto whole
 * GPUs): W = 20 keeps a factor of three below that edge (the figures
 * are in doc/scheduler.md).
 *
 * A task goes where it makes this fragmentation grow least: the node
 * and GPU minimising F after minus F before; ties to the node with the
 * fewest idle whole GPUs (binpack), then the name.  A whole-GPU task takes the lowest idle
 * devices (all idle GPUs are alike to F); a fraction tries each GPU with
 * room, one per distinct idle amount, ties to the fuller GPU, then the
 * lower index.  A task that asks for no GPU is placed the same way: the
 * CPU it takes can leave a node's idle GPUs with too little CPU for the
 * mix, and it goes where that costs least (on the Alibaba replay this
 * alone is worth five points of allocation: CPU-only pods stop
 * stranding GPUs).
 *
 * Cost: over the whole cluster the nodes are taken in groups of one
 * state (fraggroup.c): the growth of F for a task shape is computed once
 * per group, and a placement looks at each group with members, then at
 * the first member by name that fits (its pool may keep the task off).
 * A topology domain's nodes, a topology preference and binding backfill
 * reservations (a node's answer then depends on the job's time) take the
 * scan of every node instead: F_n(M) before is kept per node until the
 * node changes (its version, bumped by kai_sched_node_refresh()), and a
 * node's best growth for a task shape in one of NSLOTS caches keyed by
 * the shape (least recently used goes; none while backfill binds).  Both
 * ways pick the same node (sched-core checks it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/fraggroup.h"
#include "sched/sched_int.h"

#define MAX_CLASSES 64
#define NSLOTS      64
#define HORIZON     20.0 /* the requests an idle device waits for, mean */

struct fclass {
	uint32_t gpus; /* whole GPUs, or 0 */
	int32_t ugpu;  /* a fraction's micro-GPUs, or 0 */
	int64_t cpu;   /* millicores, the mean of the class's tasks */
	int64_t mem;   /* MiB, the mean */
	int64_t cpusum, memsum;
	uint32_t count;
	double p;
};

struct fslot {
	uint64_t key;  /* the task shape, 0 = empty */
	uint64_t used; /* LRU clock */
	uint32_t *ver; /* per node: version the entry was made at */
	double *delta; /* ... best growth of F */
	uint64_t *mask; /* ... and its devices */
	uint8_t *fits;  /* ... whether the task fits there at all */
};

/* A group that could take the task: its growth of F and device idle. */
struct fcand {
	uint32_t g;
	int32_t amount;
	double delta;
};

struct kai_sched_frag {
	struct fclass m[MAX_CLASSES];
	uint32_t nm;
	struct fgroups G;     /* nodes by state (fraggroup.c) */
	struct fcand *cand;   /* scratch: one per group with members */
	uint32_t *fver; /* per node: version of fbefore */
	double *fbefore;
	struct fslot slot[NSLOTS];
	uint64_t clock;
};

/*
 * Adds n tasks of one class, their CPU and memory summing to cpu and
 * mem, to the tally (a linear table: few classes); false when the table
 * is full and the class is not in it (a rare class, left out).
 */
static bool
tally(struct fclass *c, uint32_t *nc, uint32_t cap, uint32_t gpus,
    int32_t ugpu, uint32_t n, int64_t cpu, int64_t mem)
{
	uint32_t i;

	for (i = 0; i < *nc; i++)
		if (c[i].gpus == gpus && c[i].ugpu == ugpu) {
			c[i].count += n;
			c[i].cpusum += cpu;
			c[i].memsum += mem;
			return true;
		}
	if (*nc == cap)
		return false;
	c[*nc].gpus = gpus;
	c[*nc].ugpu = ugpu;
	c[*nc].cpusum = cpu;
	c[*nc].memsum = mem;
	c[(*nc)++].count = n;
	return true;
}

/*
 * The most frequent first; equal counts by their request, so that the
 * mix does not depend on the order the tasks were met in (a cycle that
 * leaves jobs out adds their tasks' share last: incr.c).
 */
static int
class_cmp(const void *a, const void *b)
{
	const struct fclass *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	return x->ugpu < y->ugpu ? -1 : x->ugpu > y->ugpu;
}

bool
kai_sched_frag_class(const struct sess *S, uint32_t t, uint32_t *gpus,
    int32_t *ugpu)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	int64_t req[NRES];

	if (S->tasks[t].state == KAI_SCHED_TASK_FAILED)
		return false;
	kai_sched_task_req(S, t, req);
	if (req[R_GPU] <= 0)
		return false;
	*gpus = in->gpus;
	*ugpu = in->gpus > 0 ? 0 : (int32_t)req[R_GPU];
	return true;
}

void
kai_sched_frag_init(struct sess *S)
{
	const uint32_t cap = 4096;
	struct fclass *all = kai_xcalloc(cap, sizeof(*all));
	struct kai_sched_frag *f = kai_xcalloc(1, sizeof(*f));
	uint32_t nall = 0, i;
	uint64_t total = 0;
	size_t t;
	bool full = false;
	uint32_t q, n, k, gpus;
	int32_t ugpu;

	for (t = 0; t < S->s->ntasks; t++) {
		const struct kai_sched_snap_task *in = &S->s->tasks[t];

		if (kai_sched_frag_class(S, (uint32_t)t, &gpus, &ugpu))
			full |= !tally(all, &nall, cap, gpus, ugpu, 1,
			    in->cpu_millis, in->memory_mib);
	}
	/* The tasks of the jobs a cycle fed by a kept state left out. */
	for (q = 0; S->inc != NULL && q < S->nq; q++) {
		const struct kai_sched_mix_row *m = kai_sched_inc_mix(S, q, &n);

		for (k = 0; k < n; k++)
			full |= !tally(all, &nall, cap, m[k].gpus, m[k].ugpu,
			    m[k].count, m[k].cpusum, m[k].memsum);
	}
	/* With a full table, which classes are in it depends on the order
	 * the tasks came in: such a cycle is run over every job. */
	if (full && S->inc != NULL)
		kai_sched_inc_all_jobs(S);
	qsort(all, nall, sizeof(*all), class_cmp);
	f->nm = nall < MAX_CLASSES ? nall : MAX_CLASSES;
	for (i = 0; i < f->nm; i++)
		total += all[i].count;
	for (i = 0; i < f->nm; i++) {
		f->m[i] = all[i];
		f->m[i].p = (double)all[i].count / (double)total;
		f->m[i].cpu = all[i].cpusum / all[i].count;
		f->m[i].mem = all[i].memsum / all[i].count;
	}
	free(all);
	f->fver = kai_xcalloc(S->nn + 1, sizeof(*f->fver));
	f->fbefore = kai_xcalloc(S->nn + 1, sizeof(*f->fbefore));
	f->cand = kai_xcalloc(S->nn + 1, sizeof(*f->cand));
	kai_sched_fgroups_init(&f->G, S);
	S->frag = f;
}

void
kai_sched_frag_touch(struct sess *S, uint32_t n)
{
	kai_sched_fgroups_touch(&S->frag->G, n);
}

void
kai_sched_frag_fini(struct sess *S)
{
	struct kai_sched_frag *f = S->frag;
	uint32_t i;

	if (f == NULL)
		return;
	for (i = 0; i < NSLOTS; i++) {
		free(f->slot[i].ver);
		free(f->slot[i].delta);
		free(f->slot[i].mask);
		free(f->slot[i].fits);
	}
	free(f->fver);
	free(f->fbefore);
	free(f->cand);
	kai_sched_fgroups_fini(&f->G);
	KAI_FREE(S->frag);
}

/* idle[0..ng) sorted, most idle first (few devices: insertion). */
static void
sort_idle(const int32_t *idle, uint32_t ng, int32_t *out)
{
	uint32_t g, k;

	for (g = 0; g < ng; g++) {
		int32_t v = idle[g];

		for (k = g; k > 0 && out[k - 1] < v; k--)
			out[k] = out[k - 1];
		out[k] = v;
	}
}

/* How many copies of m the node's idle CPU and memory can hold. */
static int64_t
copies(const struct fclass *m, int64_t cpu, int64_t mem)
{
	int64_t k = INT64_MAX;

	if (m->cpu > 0)
		k = cpu / m->cpu;
	if (m->mem > 0 && mem / m->mem < k)
		k = mem / m->mem;
	return k < 0 ? 0 : k;
}

/*
 * The chance that none of the requests a hole waits for can use it,
 * when one request cannot (x = 1 - q): the hole sees h of them with
 * chance (1/W) (1 - 1/W)^(h-1), W = HORIZON their mean, and the sum over
 * h of that times x^h is x / (W - (W - 1) x).  W = 1 gives x, FGD.
 */
static double
miss_chance(double x)
{
	return x / (HORIZON - (HORIZON - 1) * x);
}

/*
 * F_n(M) of a node whose devices have idle[0..ng) and cpu, mem idle.
 * For each class, the devices whose idle copies of it could use, copies
 * placed until the GPUs or the node's CPU or memory run out, are always
 * the n_m most idle ones (the wholly idle come first); so device j of
 * the sorted order is usable by a share q_j of the requests, those with
 * n_m > j, and its idle counts as lost with the chance that none of the
 * requests it waits for can use it (miss_chance()).
 */
static double
fragmentation(const struct kai_sched_frag *f, const int32_t *idle,
    uint32_t ng, int64_t cpu, int64_t mem)
{
	int32_t sorted[KAI_SCHED_MAX_NODE_GPUS];
	double usable_by[KAI_SCHED_MAX_NODE_GPUS + 1] = {0}, q = 0, F = 0;
	int64_t total = 0;
	uint32_t full = 0, g, i;

	sort_idle(idle, ng, sorted);
	for (g = 0; g < ng; g++) {
		total += sorted[g];
		if (sorted[g] == GPU_UNIT)
			full++;
	}
	if (total == 0)
		return 0;
	for (i = 0; i < f->nm; i++) {
		const struct fclass *m = &f->m[i];
		int64_t k = copies(m, cpu, mem);
		uint32_t n;

		if (m->gpus > 0) {
			/* whole GPUs: the wholly idle ones, gpus per copy */
			if (full < m->gpus)
				n = 0;
			else if (k >= (int64_t)((full + m->gpus - 1) / m->gpus))
				n = full; /* FGD: every wholly idle GPU */
			else
				n = (uint32_t)k * m->gpus;
		} else {
			/* a fraction: the GPUs with room, one copy each */
			for (n = 0; n < ng && sorted[n] >= m->ugpu; n++)
				;
			if ((int64_t)n > k)
				n = (uint32_t)k;
		}
		usable_by[n] += m->p; /* m uses devices 0 .. n-1 */
	}
	/* from the least idle device up, q_j = the p of classes with n > j */
	for (g = ng; g-- > 0;) {
		q += usable_by[g + 1];
		if (sorted[g] > 0)
			F += (double)sorted[g] * miss_chance(q < 1 ? 1 - q : 0);
	}
	return F;
}

/* The node's idle GPU per device, CPU and memory, into idle[]. */
static void
node_idle(const struct sess *S, uint32_t n, int32_t *idle, int64_t *cpu,
    int64_t *mem)
{
	const struct snode *nd = &S->nodes[n];
	uint32_t d;

	for (d = 0; d < nd->ngpu; d++)
		idle[d] = GPU_UNIT - S->dalloc[nd->gpu0 + d] -
		    S->drel[nd->gpu0 + d];
	*cpu = nd->cap[R_CPU] - nd->alloc[R_CPU] - nd->rel[R_CPU];
	*mem = nd->cap[R_MEM] - nd->alloc[R_MEM] - nd->rel[R_MEM];
}

static double
before(const struct sess *S, uint32_t n)
{
	struct kai_sched_frag *f = S->frag;
	int32_t idle[KAI_SCHED_MAX_NODE_GPUS];
	int64_t cpu, mem;

	if (f->fver[n] == S->nodes[n].ver + 1)
		return f->fbefore[n];
	node_idle(S, n, idle, &cpu, &mem);
	f->fbefore[n] = fragmentation(f, idle, S->nodes[n].ngpu, cpu, mem);
	f->fver[n] = S->nodes[n].ver + 1;
	return f->fbefore[n];
}

/*
 * The least growth of F from placing t on n on idle resources, and its
 * devices; false when t does not fit there now.
 */
static bool
evaluate(const struct sess *S, uint32_t t, uint32_t n, double *delta,
    uint64_t *mask)
{
	const struct kai_sched_frag *f = S->frag;
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	const struct snode *nd = &S->nodes[n];
	int32_t idle[KAI_SCHED_MAX_NODE_GPUS], seen[KAI_SCHED_MAX_NODE_GPUS], u;
	int32_t bwas = 0;
	struct kai_sched_choice c;
	int64_t cpu, mem;
	double F0, best = 0;
	uint32_t d, k, nseen = 0;
	bool found = false;

	if (!kai_sched_fit_node(S, t, n, false, &c) || c.pipelined)
		return false;
	F0 = before(S, n);
	node_idle(S, n, idle, &cpu, &mem);
	cpu -= in->cpu_millis;
	mem -= in->memory_mib;
	u = c.ugpu;
	if (u == 0) { /* CPU only: it may still strand GPUs */
		*delta = fragmentation(f, idle, nd->ngpu, cpu, mem) - F0;
		*mask = 0;
		return true;
	}
	if (in->gpus > 0 || kai_sched_task_ndev(in) > 1) {
		/* Whole GPUs, or a share over several devices: the
		 * devices the usual order picks (not searched here). */
		for (d = 0; d < nd->ngpu; d++)
			if (c.mask & (UINT64_C(1) << d))
				idle[d] = in->gpus > 0 ? 0 : idle[d] - u;
		*delta = fragmentation(f, idle, nd->ngpu, cpu, mem) - F0;
		*mask = c.mask;
		return true;
	}
	/*
	 * A fraction: each GPU with room, once per distinct idle amount;
	 * ties to the fuller GPU (best fit), then the lower index.
	 */
	for (d = 0; d < nd->ngpu; d++) {
		int32_t was = idle[d];
		double x;

		if (was < u || !kai_sched_bf_dev_ok(S, nd->gpu0 + d))
			continue;
		for (k = 0; k < nseen && seen[k] != was; k++)
			;
		if (k < nseen)
			continue; /* a GPU with as much idle came before */
		seen[nseen++] = was;
		idle[d] = was - u;
		x = fragmentation(f, idle, nd->ngpu, cpu, mem) - F0;
		idle[d] = was;
		if (!found || x < best || (x == best && was < bwas)) {
			best = x;
			bwas = was;
			*mask = UINT64_C(1) << d;
			found = true;
		}
	}
	*delta = best;
	return found;
}

static uint64_t
shape_key(const struct sess *S, uint32_t t)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	uint32_t j = kai_sched_task_job(S, t);
	uint64_t h = kai_sched_mix64((uint64_t)in->gpus + 1);

	h = kai_sched_mix64(h ^ (uint64_t)in->gpu_fraction);
	h = kai_sched_mix64(h ^ (uint64_t)in->gpu_memory_mib);
	h = kai_sched_mix64(h ^ kai_sched_task_ndev(in));
	h = kai_sched_mix64(h ^ (uint64_t)in->cpu_millis);
	h = kai_sched_mix64(h ^ (uint64_t)in->memory_mib);
	/* Which nodes may take it at all is the job's: its pool and type. */
	h = kai_sched_mix64(h ^ (uint64_t)(int64_t)S->s->jobs[j].pool);
	h = kai_sched_mix64(h ^ kai_sched_type_salt(S, j));
	return h | 1;
}

/* F_n(M) of group g's state, computed once. */
static double
group_before(struct kai_sched_frag *f, struct fgroup *g)
{
	if (!g->fb_ok) {
		g->fb = fragmentation(f, &f->G.idle[g->idle0], g->ngpu, g->cpu,
		    g->mem);
		g->fb_ok = true;
	}
	return g->fb;
}

/*
 * evaluate() for a node in group g's state: the least growth of F from
 * placing t there (u per device), and for a fraction the idle amount of
 * the GPU it takes; false when t does not fit the state on idle
 * resources.  The same figures as evaluate() on any member, since F
 * sees only the state.
 */
static bool
group_eval(struct kai_sched_frag *f, const struct kai_sched_snap_task *in,
    int32_t u, struct fgroup *g, double *delta, int32_t *amount)
{
	const int32_t *v = &f->G.idle[g->idle0];
	int32_t idle[KAI_SCHED_MAX_NODE_GPUS];
	int64_t cpu = g->cpu - in->cpu_millis, mem = g->mem - in->memory_mib;
	double F0, x;
	uint32_t d;
	bool found = false;

	if (u < 0 || cpu < 0 || mem < 0)
		return false;
	F0 = group_before(f, g);
	memcpy(idle, v, g->ngpu * sizeof(*idle));
	*amount = 0;
	if (u == 0 || in->gpus > 0) {
		if (in->gpus > g->whole)
			return false;
		for (d = 0; d < in->gpus; d++)
			idle[d] = 0; /* sorted: the wholly idle come first */
		*delta = fragmentation(f, idle, g->ngpu, cpu, mem) - F0;
		return true;
	}
	/* sorted most idle first: the last of equal amounts is the fullest */
	for (d = 0; d < g->ngpu && v[d] >= u; d++) {
		if (d + 1 < g->ngpu && v[d + 1] == v[d])
			continue;
		idle[d] = v[d] - u;
		x = fragmentation(f, idle, g->ngpu, cpu, mem) - F0;
		idle[d] = v[d];
		if (!found || x <= *delta) {
			*delta = x;
			*amount = v[d];
			found = true;
		}
	}
	return found;
}

/* The lowest device of n with exactly amount idle. */
static uint64_t
device_with(const struct sess *S, uint32_t n, int32_t amount)
{
	const struct snode *nd = &S->nodes[n];
	uint32_t d;

	for (d = 0; d < nd->ngpu; d++)
		if (GPU_UNIT - S->dalloc[nd->gpu0 + d] -
			S->drel[nd->gpu0 + d] ==
		    amount)
			return UINT64_C(1) << d;
	return 0;
}

/*
 * The first member of group g, in rank order and before rank `below`,
 * where t fits on idle resources (the pool and node flags are the
 * member's own); its rank, or UINT32_MAX.
 */
static uint32_t
first_fit(const struct sess *S, uint32_t t, const struct fgroup *g,
    uint32_t below, struct kai_sched_choice *c)
{
	uint32_t i;

	for (i = 0; i < g->n && g->rank[i] < below; i++)
		if (kai_sched_fit_node(S, t, S->by_rank[g->rank[i]], false, c) &&
		    !c->pipelined)
			return g->rank[i];
	return UINT32_MAX;
}

/*
 * frag over the whole cluster: each group with members is one
 * candidate, then the best ones (least growth, fewest idle whole GPUs)
 * give the member of lowest rank that fits -- the node the scan of
 * every node would pick.
 */
static bool
choose_grouped(const struct sess *S, uint32_t t, struct kai_sched_choice *c)
{
	struct kai_sched_frag *f = S->frag;
	struct fgroups *G = &f->G;
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	struct fgslot *sl;
	uint32_t i, k, nc = 0;

	kai_sched_fgroups_flush(G, S);
	sl = kai_sched_fgroups_slot(G, shape_key(S, t));
	for (i = 0; i < G->nlive; i++) {
		uint32_t gi = G->live[i];
		struct fgroup *g = &G->g[gi];

		if (sl->stamp[gi] != g->gen) {
			int32_t u = kai_sched_task_ugpu(S, t,
			    S->by_rank[g->rank[0]]);

			if (!group_eval(f, in, u, g, &sl->delta[gi],
				&sl->amount[gi]))
				sl->amount[gi] = -1;
			sl->stamp[gi] = g->gen;
		}
		if (sl->amount[gi] < 0)
			continue;
		f->cand[nc].g = gi;
		f->cand[nc].delta = sl->delta[gi];
		f->cand[nc++].amount = sl->amount[gi];
	}
	while (nc > 0) {
		struct kai_sched_choice cc, bc;
		uint32_t bw = 0, brank = UINT32_MAX, left = 0;
		int32_t bamount = 0;
		double bd = 0;

		for (k = 0; k < nc; k++) {
			const struct fgroup *g = &G->g[f->cand[k].g];

			if (k == 0 || f->cand[k].delta < bd ||
			    (f->cand[k].delta == bd && g->whole < bw)) {
				bd = f->cand[k].delta;
				bw = g->whole;
			}
		}
		for (k = 0; k < nc; k++) {
			const struct fgroup *g = &G->g[f->cand[k].g];
			uint32_t r;

			if (f->cand[k].delta != bd || g->whole != bw) {
				f->cand[left++] = f->cand[k];
				continue;
			}
			if ((r = first_fit(S, t, g, brank, &cc)) < brank) {
				brank = r;
				bc = cc;
				bamount = f->cand[k].amount;
			}
		}
		if (brank == UINT32_MAX) {
			nc = left; /* the pool keeps t off all of them */
			continue;
		}
		*c = bc;
		if (in->gpus == 0 && c->ugpu > 0)
			c->mask = device_with(S, (uint32_t)c->node, bamount);
		c->pipelined = false;
		return true;
	}
	return false;
}

static struct fslot *
slot_for(struct kai_sched_frag *f, uint64_t key, uint32_t nn)
{
	struct fslot *s = &f->slot[0];
	uint32_t i;

	for (i = 0; i < NSLOTS; i++)
		if (f->slot[i].key == key) {
			f->slot[i].used = ++f->clock;
			return &f->slot[i];
		}
	for (i = 1; i < NSLOTS; i++)
		if (f->slot[i].used < s->used)
			s = &f->slot[i];
	s->key = key;
	s->used = ++f->clock;
	if (s->ver == NULL) { /* made when first needed: most cycles never */
		s->ver = kai_xcalloc(nn + 1, sizeof(*s->ver));
		s->delta = kai_xcalloc(nn + 1, sizeof(*s->delta));
		s->mask = kai_xcalloc(nn + 1, sizeof(*s->mask));
		s->fits = kai_xcalloc(nn + 1, sizeof(*s->fits));
	} else
		memset(s->ver, 0, (nn + 1) * sizeof(*s->ver));
	return s;
}

/* Candidate a (pref pa, growth da) beats the best so far, b? */
static bool
better(const struct sess *S, uint32_t a, int64_t pa, double da, int32_t b,
    int64_t pb, double db)
{
	const struct snode *x = &S->nodes[a], *y;

	if (b < 0)
		return true;
	y = &S->nodes[b];
	if (pa != pb)
		return pa > pb;
	if (da != db)
		return da < db;
	if (x->whole_idle != y->whole_idle)
		return x->whole_idle < y->whole_idle;
	return x->rank < y->rank;
}

bool
kai_sched_frag_choose(const struct sess *S, uint32_t t, const uint32_t *nodes,
    uint32_t nnodes, const int64_t *pref, struct kai_sched_choice *c)
{
	struct kai_sched_frag *f = S->frag;
	struct fslot *sl;
	uint32_t i, nn = nodes != NULL ? nnodes : S->nn;

	/* The groups know one device per share: a share over several
	 * devices is scored node by node. */
	if (nodes == NULL && pref == NULL && !(S->bf_on && S->bf != NULL) &&
	    kai_sched_task_ndev(&S->s->tasks[t]) == 1)
		return choose_grouped(S, t, c);
	int64_t bpref = 0;
	double bd = 0;
	int32_t best = -1;

	/*
	 * Backfill makes a node's answer depend on the job's time, not
	 * only on the node, and a GPU type's limit on the queue's
	 * allocation (a job that names no type): no caching then.
	 */
	sl = (S->bf_on && S->bf != NULL) || kai_sched_type_dynamic(S, t)
	    ? NULL
	    : slot_for(f, shape_key(S, t), S->nn);
	for (i = 0; i < nn; i++) {
		uint32_t n = nodes != NULL ? nodes[i] : i;
		double dlt = 0;
		uint64_t m = 0;
		int64_t p = pref != NULL ? pref[n] : 0;
		bool fits;

		if (sl != NULL && sl->ver[n] == S->nodes[n].ver + 1) {
			fits = sl->fits[n];
			dlt = sl->delta[n];
			m = sl->mask[n];
		} else {
			fits = evaluate(S, t, n, &dlt, &m);
			if (sl != NULL) {
				sl->ver[n] = S->nodes[n].ver + 1;
				sl->delta[n] = dlt;
				sl->mask[n] = m;
				sl->fits[n] = fits;
			}
		}
		if (!fits)
			continue;
		if (!better(S, n, p, dlt, best, bpref, bd))
			continue;
		best = (int32_t)n;
		bd = dlt;
		bpref = p;
		c->mask = m;
	}
	if (best < 0)
		return false;
	c->node = best;
	c->ugpu = kai_sched_task_ugpu(S, t, (uint32_t)best);
	c->pipelined = false;
	return true;
}
