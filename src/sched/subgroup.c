/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * subgroup.c: a job's subgroup tree (KAI's PodGroup subGroups).
 *
 * A job with subgroups is a tree: its leaves hold its tasks (in index
 * order, the leaves take the job's tasks in order), a leaf is satisfied
 * with min_member of its tasks active, a parent with min_subgroup of its
 * children satisfied (0: all), and the job, the root, likewise with its
 * own min_subgroup.  The job's gang is its root: its first step is the
 * fewest tasks that satisfy the root, placed all or none.
 *
 * The tree is evaluated afresh each time it is asked about (tasks move
 * between calls, and jobs with subgroups are few): per subgroup, its
 * active and pending tasks and its cost, the pending tasks that would
 * satisfy it (SG_NEVER when it cannot be).  A leaf costs what it misses
 * of its min_member; a parent the sum of its `need` cheapest children,
 * already satisfied ones first (cost 0), ties in index order, as KAI
 * takes the subgroups that are below their minimum and contribute to
 * their parent first, in the order the PodGroup lists them.
 *
 * Placement walks the tree from the root: a parent places its children
 * in that order until `need` are satisfied, and a child that does not fit
 * is rolled back and the next is tried, so that "any 1 of 2" starts with
 * whichever fits.  A subgroup with a required (or preferred) level puts
 * what it places into one domain of that level, within the domain its
 * ancestors and the job chose: the job's own constraint holds over all
 * its tasks.  The admission of the step is judged on the cheapest
 * choice (kai_sched_step()); a child tried instead of it is of the same
 * tree and is, for JobSets and PyTorchJobs, of the same shape.
 *
 * Once the root is satisfied the job grows as an elastic one: a leaf
 * still below its minimum gets its missing tasks as one step, then a
 * satisfied leaf one task at a time.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

#define SG_NEVER UINT32_MAX

struct kai_sched_sgs {
	uint32_t cap;     /* entries below: the most subgroups of a job + 1 */
	uint32_t *first;  /* a leaf's first task */
	uint32_t *act;    /* its active (or running) tasks */
	uint32_t *pend;   /* its pending tasks */
	uint32_t *cost;   /* pending tasks that would satisfy it */
	uint32_t *nchild; /* children */
	uint32_t *cstart; /* children: child[cstart[k], +nchild[k]) */
	uint32_t *child;
	uint8_t *path;    /* on the way from the root to the target leaf */
	uint32_t *tasks;  /* a step's tasks, for kai_sched_step() */
	uint32_t tcap;
	uint32_t *of;     /* per job: 1 + the index of its tree, 0: none */
};

/* The evaluation of one job's tree; the root is index m. */
struct tree {
	const struct kai_sched_snap_job *J;
	const struct kai_sched_job_tree *R;
	const struct kai_sched_subgroup *G;
	uint32_t m;
	struct kai_sched_sgs *w;
};

void
kai_sched_sg_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t most = 0;
	size_t i, nt = 1;

	if (s->ntrees == 0)
		return;
	S->sg = kai_xcalloc(1, sizeof(*S->sg));
	S->sg->of = kai_xcalloc(s->njobs + 1, sizeof(uint32_t));
	for (i = 0; i < s->ntrees; i++) {
		const struct kai_sched_job_tree *R = &s->trees[i];

		S->sg->of[R->job] = (uint32_t)i + 1;
		if (R->nsubgroups > most)
			most = R->nsubgroups;
		if (s->jobs[R->job].ntasks > nt)
			nt = s->jobs[R->job].ntasks;
	}
	S->sg->cap = most + 1;
	S->sg->first = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->act = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->pend = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->cost = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->nchild = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->cstart = kai_xcalloc(most + 2, sizeof(uint32_t));
	S->sg->child = kai_xcalloc(most + 1, sizeof(uint32_t));
	S->sg->path = kai_xcalloc(most + 1, 1);
	S->sg->tasks = kai_xcalloc(nt, sizeof(uint32_t));
	S->sg->tcap = (uint32_t)nt;
}

const struct kai_sched_job_tree *
kai_sched_tree(const struct sess *S, uint32_t j)
{
	if (S->sg == NULL || S->sg->of[j] == 0)
		return NULL;
	return &S->s->trees[S->sg->of[j] - 1];
}

void
kai_sched_sg_fini(struct sess *S)
{
	struct kai_sched_sgs *w = S->sg;

	if (w == NULL)
		return;
	free(w->first);
	free(w->act);
	free(w->pend);
	free(w->cost);
	free(w->nchild);
	free(w->cstart);
	free(w->child);
	free(w->path);
	free(w->tasks);
	free(w->of);
	KAI_FREE(S->sg);
}

static uint32_t
parent_of(const struct tree *T, uint32_t k)
{
	return T->G[k].parent < 0 ? T->m : (uint32_t)T->G[k].parent;
}

static uint32_t
need_of(const struct tree *T, uint32_t k)
{
	struct kai_sched_sgs *w = T->w;
	uint32_t n = k == T->m ? T->R->min_subgroup : T->G[k].min_subgroup;

	return n == 0 || n > w->nchild[k] ? w->nchild[k] : n;
}

static bool
is_leaf(const struct tree *T, uint32_t k)
{
	return k < T->m && T->w->nchild[k] == 0;
}

/* The tree's shape: children lists and the leaves' first tasks. */
static void
shape(struct tree *T)
{
	struct kai_sched_sgs *w = T->w;
	uint32_t k, t0 = (uint32_t)T->J->first_task, at;

	memset(w->nchild, 0, (T->m + 1) * sizeof(uint32_t));
	for (k = 0; k < T->m; k++)
		w->nchild[parent_of(T, k)]++;
	for (k = 0, at = 0; k <= T->m; k++) {
		w->cstart[k] = at;
		at += w->nchild[k];
	}
	memset(w->pend, 0, (T->m + 1) * sizeof(uint32_t)); /* a cursor */
	for (k = 0; k < T->m; k++) {
		uint32_t p = parent_of(T, k);

		w->child[w->cstart[p] + w->pend[p]++] = k;
	}
	for (k = 0; k < T->m; k++)
		if (is_leaf(T, k)) {
			w->first[k] = t0;
			t0 += T->G[k].ntasks;
		}
}

/* Children of k by (cost, index), those that can be satisfied only. */
static uint32_t
ordered(const struct tree *T, uint32_t k, uint32_t *out)
{
	const struct kai_sched_sgs *w = T->w;
	uint32_t i, n = 0, a;

	for (i = 0; i < w->nchild[k]; i++) {
		uint32_t c = w->child[w->cstart[k] + i];

		if (w->cost[c] == SG_NEVER)
			continue;
		/* insertion: children are few, and stay in index order */
		for (a = n; a > 0 && w->cost[out[a - 1]] > w->cost[c]; a--)
			out[a] = out[a - 1];
		out[a] = c;
		n++;
	}
	return n;
}

/*
 * Counts and costs; running_only counts the tasks that ran before this
 * cycle (stale gangs), else every active one.
 */
static void
eval(const struct sess *S, uint32_t j, bool running_only, struct tree *T)
{
	const struct kai_sched_snapshot *s = S->s;
	struct kai_sched_sgs *w = S->sg;
	uint32_t k, i, c, *ord;

	T->J = &s->jobs[j];
	T->R = kai_sched_tree(S, j);
	T->G = &s->subgroups[T->R->first_subgroup];
	T->m = T->R->nsubgroups;
	T->w = w;
	shape(T);
	ord = kai_xcalloc(T->m + 1, sizeof(*ord));
	/* Children come after their parents; the root, m, last. */
	for (i = 0; i <= T->m; i++) {
		uint32_t n, sum = 0, need;

		k = i < T->m ? T->m - 1 - i : T->m;

		w->act[k] = w->pend[k] = 0;
		if (is_leaf(T, k)) {
			uint32_t t, min = T->G[k].min_member;

			for (t = w->first[k]; t < w->first[k] + T->G[k].ntasks;
			     t++) {
				const struct stask *st = &S->tasks[t];

				if (st->state == KAI_SCHED_TASK_PENDING)
					w->pend[k]++;
				else if (running_only
					? st->state == KAI_SCHED_TASK_RUNNING &&
					    !st->fresh
					: kai_sched_task_active(st))
					w->act[k]++;
			}
			n = min > w->act[k] ? min - w->act[k] : 0;
			w->cost[k] = n <= w->pend[k] ? n : SG_NEVER;
			continue;
		}
		need = need_of(T, k);
		n = ordered(T, k, ord);
		for (c = 0; c < need && c < n; c++)
			sum += w->cost[ord[c]];
		w->cost[k] = n >= need ? sum : SG_NEVER;
	}
	free(ord);
}

/* Appends the first n pending tasks of leaf k to out. */
static uint32_t
leaf_tasks(const struct sess *S, const struct tree *T, uint32_t k, uint32_t n,
    uint32_t *out)
{
	uint32_t t, got = 0;

	for (t = T->w->first[k];
	     got < n && t < T->w->first[k] + T->G[k].ntasks; t++)
		if (S->tasks[t].state == KAI_SCHED_TASK_PENDING)
			out[got++] = t;
	return got;
}

/* The tasks of the cheapest way to satisfy k, appended to out. */
static uint32_t
gather(const struct sess *S, const struct tree *T, uint32_t k, uint32_t *out)
{
	uint32_t *ord, n, i, got = 0, need;

	if (is_leaf(T, k))
		return leaf_tasks(S, T, k, T->w->cost[k], out);
	ord = kai_xcalloc(T->w->nchild[k] + 1, sizeof(*ord));
	n = ordered(T, k, ord);
	need = need_of(T, k);
	for (i = 0; i < need && i < n; i++)
		got += gather(S, T, ord[i], out + got);
	free(ord);
	return got;
}

/* The leaf an elastic step grows, and how many tasks; m when none. */
static uint32_t
elastic_leaf(const struct tree *T, uint32_t *n)
{
	uint32_t k;

	for (k = 0; k < T->m; k++)
		if (is_leaf(T, k) && T->w->cost[k] != SG_NEVER &&
		    T->w->cost[k] > 0) {
			*n = T->w->cost[k];
			return k;
		}
	for (k = 0; k < T->m; k++)
		if (is_leaf(T, k) && T->w->cost[k] == 0 && T->w->pend[k] > 0) {
			*n = 1;
			return k;
		}
	*n = 0;
	return T->m;
}

uint32_t
kai_sched_sg_min(const struct kai_sched_snapshot *s,
    const struct kai_sched_job_tree *R)
{
	const struct kai_sched_subgroup *G = &s->subgroups[R->first_subgroup];
	size_t ntasks = s->jobs[R->job].ntasks;
	uint32_t k, sum = 0;

	/* Leaves' minimums: the root's need at most, a bound kept for
	 * the counts that only compare (order.c, memo.c). */
	for (k = 0; k < R->nsubgroups; k++)
		sum += G[k].min_member;
	return sum > ntasks ? (uint32_t)ntasks : sum;
}

uint32_t
kai_sched_sg_step(const struct sess *S, uint32_t j, uint32_t *out,
    bool *short_gang)
{
	struct tree T;
	uint32_t n, k;

	eval(S, j, false, &T);
	*short_gang = T.w->cost[T.m] == SG_NEVER;
	if (*short_gang)
		return 0;
	if (T.w->cost[T.m] > 0)
		return gather(S, &T, T.m, out);
	k = elastic_leaf(&T, &n);
	return k == T.m ? 0 : leaf_tasks(S, &T, k, n, out);
}

uint32_t *
kai_sched_sg_buf(const struct sess *S)
{
	return S->sg->tasks;
}

bool
kai_sched_sg_satisfied(const struct sess *S, uint32_t j, bool running_only)
{
	struct tree T;

	eval(S, j, running_only, &T);
	return T.w->cost[T.m] == 0;
}

int64_t
kai_sched_sg_spare(const struct sess *S, uint32_t j)
{
	struct tree T;
	uint32_t k, t;

	eval(S, j, false, &T);
	if (T.w->cost[T.m] != 0)
		return -1;
	/* The last active task of a leaf that stays satisfied without it. */
	for (k = T.m; k-- > 0;) {
		if (!is_leaf(&T, k) || T.w->act[k] <= T.G[k].min_member)
			continue;
		for (t = T.w->first[k] + T.G[k].ntasks; t-- > T.w->first[k];)
			if (kai_sched_task_active(&S->tasks[t]))
				return t;
	}
	return -1;
}

/* Why the root cannot be satisfied with the tasks there are. */
void
kai_sched_sg_short_why(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *why)
{
	struct tree T;
	uint32_t k, i;

	eval(S, j, false, &T);
	kai_sched_why_clear(why);
	for (k = T.m; !is_leaf(&T, k);) {
		uint32_t next = T.m;

		for (i = 0; i < T.w->nchild[k] && next == T.m; i++)
			if (T.w->cost[T.w->child[T.w->cstart[k] + i]] ==
			    SG_NEVER)
				next = T.w->child[T.w->cstart[k] + i];
		if (next == T.m)
			return;
		k = next;
	}
	why->why = KAI_SCHED_WHY_SUBGROUP_SHORT;
	why->c = (int64_t)(T.R->first_subgroup + k);
	why->a = T.G[k].min_member;
	why->b = T.w->act[k] + T.w->pend[k];
}

/* Placing a job's tree: the walk's state. */
struct pl {
	struct sess *S;
	struct tree T;
	bool pipe;
	uint32_t target; /* elastic: the leaf it grows; m: the gang */
	uint32_t tn;     /* elastic: how many tasks */
	struct kai_sched_why_info *why;
};

static bool place_sub(struct pl *P, uint32_t k, const uint32_t *nodes,
    uint32_t nn);

static bool
place_leaf(struct pl *P, uint32_t k, const uint32_t *nodes, uint32_t nn)
{
	struct sess *S = P->S;
	uint32_t want = P->target == P->T.m ? P->T.w->cost[k] : P->tn;
	uint32_t *tasks = kai_xcalloc(want + 1, sizeof(*tasks)), n, i;
	size_t mark = kai_sched_mark(S);
	struct kai_sched_choice c;

	n = leaf_tasks(S, &P->T, k, want, tasks);
	for (i = 0; i < n; i++) {
		if (!kai_sched_choose(S, tasks[i], nodes, nn, NULL, P->pipe,
			&c)) {
			kai_sched_rollback(S, mark);
			kai_sched_why_clear(P->why);
			P->why->why = KAI_SCHED_WHY_SUBGROUP;
			P->why->c = (int64_t)(P->T.R->first_subgroup + k);
			P->why->a = n;
			P->why->b = i;
			free(tasks);
			return false;
		}
		kai_sched_place(S, tasks[i], (uint32_t)c.node, c.mask, c.ugpu,
		    c.pipelined);
	}
	free(tasks);
	return true;
}

/* A parent: its children in order until enough are satisfied. */
static bool
place_body(struct pl *P, uint32_t k, const uint32_t *nodes, uint32_t nn)
{
	const struct kai_sched_sgs *w = P->T.w;
	uint32_t need, sat = 0, n, i, *ord;
	bool ok;

	if (is_leaf(&P->T, k))
		return place_leaf(P, k, nodes, nn);
	if (P->target != P->T.m) {
		for (i = 0; i < w->nchild[k]; i++)
			if (w->path[w->child[w->cstart[k] + i]])
				return place_sub(P, w->child[w->cstart[k] + i],
				    nodes, nn);
		return false;
	}
	need = need_of(&P->T, k);
	ord = kai_xcalloc(w->nchild[k] + 1, sizeof(*ord));
	n = ordered(&P->T, k, ord);
	for (i = 0; i < n && sat < need; i++) {
		size_t mark = kai_sched_mark(P->S);

		if (w->cost[ord[i]] == 0 || place_sub(P, ord[i], nodes, nn))
			sat++;
		else
			kai_sched_rollback(P->S, mark);
	}
	free(ord);
	ok = sat >= need;
	/* With a choice among the children, say how far it got. */
	if (!ok && need < w->nchild[k]) {
		kai_sched_why_clear(P->why);
		P->why->why = KAI_SCHED_WHY_SUBGROUPS;
		P->why->c = k == P->T.m ? -1
					: (int64_t)(P->T.R->first_subgroup + k);
		P->why->a = need;
		P->why->b = sat;
	}
	return ok;
}

static bool
under(const struct tree *T, uint32_t leaf, uint32_t k)
{
	uint32_t x = leaf;

	while (x != k && x != T->m)
		x = parent_of(T, x);
	return x == k;
}

/*
 * The domain (of dom[]) of the active tasks under k: -1 none, -2 more
 * than one (a required level then has no room to grow).
 */
static int32_t
active_domain(const struct pl *P, uint32_t k, const int32_t *dom)
{
	const struct tree *T = &P->T;
	int32_t d = -1;
	uint32_t l, t;

	for (l = 0; l < T->m; l++) {
		if (!is_leaf(T, l) || !under(T, l, k))
			continue;
		for (t = T->w->first[l]; t < T->w->first[l] + T->G[l].ntasks;
		     t++) {
			const struct stask *st = &P->S->tasks[t];

			if (!kai_sched_task_active(st))
				continue;
			if (dom[st->node] < 0 || (d >= 0 && dom[st->node] != d))
				return -2;
			d = dom[st->node];
		}
	}
	return d;
}

struct dcand {
	uint32_t dom;
	uint32_t off, n; /* its nodes in the candidates' node list */
	int64_t free;    /* idle uGPU on them */
};

static int
dcand_cmp(const void *a, const void *b)
{
	const struct dcand *x = a, *y = b;

	if (x->free != y->free)
		return x->free < y->free ? -1 : 1;
	return x->dom < y->dom ? -1 : x->dom > y->dom;
}

/* GPU the step would place under k, to pass over domains too small. */
static int64_t
need_gpu(const struct pl *P, uint32_t k)
{
	uint32_t *tasks = kai_xcalloc(P->T.J->ntasks + 1, sizeof(*tasks));
	uint32_t n, i;
	int64_t req[NRES], g = 0;

	if (P->target != P->T.m)
		n = P->target == k || under(&P->T, P->target, k)
		    ? leaf_tasks(P->S, &P->T, P->target, P->tn, tasks)
		    : 0;
	else
		n = gather(P->S, &P->T, k, tasks);
	for (i = 0; i < n; i++) {
		kai_sched_task_req(P->S, tasks[i], req);
		g += req[R_GPU];
	}
	free(tasks);
	return g;
}

/*
 * Subgroup k in one domain of level L, among nodes[0..nn) (all when
 * NULL): the domains that could hold it, fullest first, then label
 * order; with hard, only the domain its running tasks are in.
 */
static bool
in_domains(struct pl *P, uint32_t k, uint32_t L, bool hard,
    const uint32_t *nodes, uint32_t nn)
{
	struct sess *S = P->S;
	const uint32_t *ds, *dn;
	uint32_t nd = kai_sched_topo_domains(S, (uint32_t)P->T.J->topology, L,
		     &ds, &dn),
		 d, i, nc = 0, at = 0;
	uint8_t *in = kai_xcalloc(S->nn + 1, 1);
	int32_t *dom = kai_xcalloc(S->nn + 1, sizeof(*dom)), only;
	uint32_t *list = kai_xcalloc(S->nn + 1, sizeof(*list));
	struct dcand *cv = kai_xcalloc(nd + 1, sizeof(*cv));
	int64_t g = need_gpu(P, k);
	bool ok = false;

	for (i = 0; i < S->nn; i++) {
		in[i] = nodes == NULL;
		dom[i] = -1;
	}
	for (i = 0; nodes != NULL && i < nn; i++)
		in[nodes[i]] = 1;
	for (d = 0; d < nd; d++)
		for (i = ds[d]; i < ds[d + 1]; i++)
			dom[dn[i]] = (int32_t)d;
	only = hard ? active_domain(P, k, dom) : -1;
	for (d = 0; d < nd && only != -2; d++) {
		if (only >= 0 && (int32_t)d != only)
			continue;
		cv[nc].dom = d;
		cv[nc].off = at;
		for (i = ds[d]; i < ds[d + 1]; i++)
			if (in[dn[i]]) {
				list[at++] = dn[i];
				if (S->nodes[dn[i]].ok)
					cv[nc].free += S->nodes[dn[i]].idle_ugpu;
			}
		cv[nc].n = at - cv[nc].off;
		if (cv[nc].n > 0 && (P->pipe || cv[nc].free >= g))
			nc++;
		else
			at = cv[nc].off;
	}
	qsort(cv, nc, sizeof(*cv), dcand_cmp);
	for (i = 0; i < nc && !ok; i++) {
		size_t mark = kai_sched_mark(S);

		ok = place_body(P, k, &list[cv[i].off], cv[i].n);
		if (!ok)
			kai_sched_rollback(S, mark);
	}
	free(cv);
	free(list);
	free(dom);
	free(in);
	return ok;
}

static bool
place_sub(struct pl *P, uint32_t k, const uint32_t *nodes, uint32_t nn)
{
	const struct kai_sched_snap_job *J = P->T.J;
	int32_t R = k == P->T.m ? J->required_level : P->T.G[k].required_level;
	int32_t Pf =
	    k == P->T.m ? J->preferred_level : P->T.G[k].preferred_level;
	int32_t L, stop = R >= 0 ? R : 0;

	if (J->topology < 0 || (R < 0 && Pf < 0))
		return place_body(P, k, nodes, nn);
	for (L = Pf >= 0 ? Pf : R; L >= stop; L--)
		if (in_domains(P, k, (uint32_t)L, L == R, nodes, nn))
			return true;
	if (R < 0) /* preferred only: anywhere it may go */
		return place_body(P, k, nodes, nn);
	if (k == P->T.m) {
		kai_sched_why_clear(P->why);
		P->why->why = KAI_SCHED_WHY_TOPOLOGY;
		P->why->a = J->topology;
		P->why->b = R;
		P->why->c = P->T.w->cost[k];
	} else if (P->why->why == KAI_SCHED_WHY_NONE) {
		P->why->why = KAI_SCHED_WHY_SUBGROUP;
		P->why->c = (int64_t)(P->T.R->first_subgroup + k);
		P->why->a = P->T.w->cost[k];
		P->why->b = 0;
	}
	return false;
}

bool
kai_sched_sg_place(struct sess *S, uint32_t j, bool allow_pipe,
    struct kai_sched_why_info *why)
{
	struct pl P;
	size_t mark = kai_sched_mark(S);
	uint32_t k;
	bool ok;

	memset(&P, 0, sizeof(P));
	P.S = S;
	P.pipe = allow_pipe;
	P.why = why;
	kai_sched_why_clear(why);
	eval(S, j, false, &P.T);
	if (P.T.w->cost[P.T.m] == SG_NEVER) {
		kai_sched_sg_short_why(S, j, why);
		return false;
	}
	P.target = P.T.m;
	memset(P.T.w->path, 0, P.T.m + 1);
	if (P.T.w->cost[P.T.m] == 0) {
		P.target = elastic_leaf(&P.T, &P.tn);
		if (P.target == P.T.m)
			return false;
		for (k = P.target; k != P.T.m; k = parent_of(&P.T, k))
			P.T.w->path[k] = 1;
	}
	ok = place_sub(&P, P.T.m, NULL, 0);
	if (!ok) {
		kai_sched_rollback(S, mark);
		if (why->why == KAI_SCHED_WHY_NONE) {
			why->why = KAI_SCHED_WHY_SUBGROUPS;
			why->c = -1;
			why->a = need_of(&P.T, P.T.m);
		}
	}
	return ok;
}
