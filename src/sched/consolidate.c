/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * consolidate.c: the consolidation phase -- defragmentation.  Running
 * preemptible jobs are moved so that a pending preemptible job fits, and
 * a move is made only when every moved task is placed again.
 *
 * For a pending job, each task of its step that does not fit on idle
 * resources is given a node by moving others: on every node, the devices
 * the task could have once movable tasks left them (a device held by
 * anything that cannot move is out) are costed by the jobs that would
 * move.  Nodes are tried in KAI's victim order: the node whose most
 * valuable victim has the lowest priority, then is the newest, first;
 * then the fewest tasks moved; then the name.  A try evicts the
 * victim jobs (whole jobs: a gang moves together), pipelines the pending
 * task onto the freed devices, then re-places every victim task through
 * the normal placement; if one of them finds no place the try is rolled
 * back.  At most max_consolidation_moves tasks move per pending job.
 *
 * A job that requires one topology domain is consolidated inside each
 * domain of that level in turn (place_in_domain()); the moved jobs may
 * go anywhere, and the domain whose moves are cheapest in victim order
 * wins.
 *
 * Movable: preemptible, running since before this cycle, no topology
 * constraint (a move could break it), not the pending job itself.  A
 * job with node groups (nodegroup.c) moves group by group, each group
 * onto one node (kai_sched_move_groups()), and is given room a group at
 * a time (place_groups_moving()).  Like
 * KAI, nothing is consolidated under the spread placement, whose point is
 * to leave room on every node.  Moves do not change any queue's
 * allocation, so fair share and limits are unaffected: a try whose moved
 * tasks would hold more GPUs (a GPU-memory task on a smaller GPU is a
 * larger part of it) is rolled back (victims_gpu()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct cctx {
	uint32_t *nstart; /* node -> tasks at the phase start (CSR) */
	uint32_t *ntask;
	uint32_t *vj; /* victim jobs of the current plan */
	uint32_t nvj;
	uint8_t *seen;    /* per job: in vj */
	uint8_t *gused;   /* per node: holds a group of the pending job */
	uint32_t moved;   /* tasks moved for the current job */
	uint32_t pend;    /* the pending job */
	bool tany;        /* the current try moved a job: */
	int64_t tprio;    /* ... the highest priority it moved */
	int64_t tcreated; /* ... the oldest creation it moved */
};

/*
 * A candidate node for one task: its victims' most valuable job (the
 * highest priority, then the oldest creation among them) comes first in
 * the order, then how many tasks move, then the name.  KAI's solver takes
 * victims from the front of its victim queue -- lowest priority, then
 * newest -- until the pending job fits, so the node whose victims are all
 * cheaper jobs wins even when it moves more tasks.
 */
struct nodecost {
	int64_t vprio;    /* highest priority among the victims */
	int64_t vcreated; /* oldest creation among them */
	uint32_t cost, rank, node;
};

static bool
movable(const struct sess *S, const struct cctx *c, uint32_t j)
{
	const struct sjob *sj = &S->jobs[j];

	return j != c->pend && S->s->jobs[j].preemptible &&
	    S->s->jobs[j].topology < 0 && sj->nactive > 0 && sj->nplaced == 0 &&
	    sj->nevicted == 0 && sj->nmoved == 0;
}

static void
tasks_by_node(const struct sess *S, struct cctx *c)
{
	uint32_t *fill = kai_sched_calloc(S->ctx, S->nn + 1, sizeof(*fill));
	size_t t, nt = S->s->ntasks;
	uint32_t n;

	c->nstart = kai_sched_calloc(S->ctx, S->nn + 2, sizeof(*c->nstart));
	for (t = 0; t < nt; t++)
		if (kai_sched_task_active(&S->tasks[t]))
			c->nstart[S->tasks[t].node + 1]++;
	for (n = 0; n < S->nn; n++)
		c->nstart[n + 1] += c->nstart[n];
	/* Sized by the active tasks, not all: a million pending jobs' tasks
	 * would cost 14 MiB here. */
	c->ntask = kai_sched_calloc(S->ctx, c->nstart[S->nn] + 1,
	    sizeof(*c->ntask));
	for (t = 0; t < nt; t++) {
		if (!kai_sched_task_active(&S->tasks[t]))
			continue;
		n = (uint32_t)S->tasks[t].node;
		c->ntask[c->nstart[n] + fill[n]++] = (uint32_t)t;
	}
	kai_sched_free(S->ctx, fill);
}

/*
 * What moving everything movable off a device costs: the load moved,
 * then the most valuable job among its holders (highest priority, then
 * oldest), so that ties go to moving the jobs victims are normally
 * chosen from -- lowest priority, newest.
 */
struct devcost {
	int64_t mov;     /* movable uGPU on the device */
	int64_t prio;    /* highest priority of a movable holder */
	int64_t created; /* oldest creation among them */
};

static void
loads(const struct sess *S, const struct cctx *c, uint32_t n,
    struct devcost *dc)
{
	uint32_t i;
	int d;

	for (d = 0; d < KAI_SCHED_MAX_NODE_GPUS; d++) {
		dc[d].mov = 0;
		dc[d].prio = INT64_MIN;
		dc[d].created = INT64_MAX;
	}
	for (i = c->nstart[n]; i < c->nstart[n + 1]; i++) {
		const struct stask *st = &S->tasks[c->ntask[i]];
		uint32_t j = kai_sched_task_job(S, c->ntask[i]);
		const struct kai_sched_snap_job *J = &S->s->jobs[j];
		uint64_t m = st->mask;

		if (st->node != (int32_t)n || !kai_sched_task_active(st) ||
		    !movable(S, c, j))
			continue;
		for (; m != 0; m &= m - 1) {
			struct devcost *x = &dc[__builtin_ctzll(m)];

			x->mov += st->ugpu;
			if (J->priority > x->prio)
				x->prio = J->priority;
			if (J->created < x->created)
				x->created = J->created;
		}
	}
}

static bool
cheaper(const struct devcost *a, const struct devcost *b)
{
	if (a->mov != b->mov)
		return a->mov < b->mov;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	return a->created > b->created;
}

/* The devices task t could get on node n by moving tasks, as a mask. */
static uint64_t
devices(const struct sess *S, const struct cctx *c, uint32_t t, uint32_t n)
{
	const struct snode *nd = &S->nodes[n];
	uint32_t k = S->s->tasks[t].gpus, d, got = 0;
	struct devcost dc[KAI_SCHED_MAX_NODE_GPUS];
	int32_t u = kai_sched_task_ugpu(S, t, n);
	uint64_t mask = 0;
	int best = -1;

	if (!nd->ok || u <= 0)
		return 0;
	loads(S, c, n, dc);
	/* Whole GPUs: the k cheapest devices that can be emptied. */
	while (k > 0 && got < k) {
		int pick = -1;

		for (d = 0; d < nd->ngpu; d++) {
			int64_t fixed = S->dalloc[nd->gpu0 + d] +
			    S->drel[nd->gpu0 + d] - dc[d].mov;

			if (fixed == 0 && !(mask & (UINT64_C(1) << d)) &&
			    (pick < 0 || cheaper(&dc[d], &dc[pick])))
				pick = (int)d;
		}
		if (pick < 0)
			return 0;
		mask |= UINT64_C(1) << pick;
		got++;
	}
	if (k > 0)
		return mask;
	/* A fraction: the device that needs the least moved. */
	for (d = 0; d < nd->ngpu; d++) {
		int64_t fixed =
		    S->dalloc[nd->gpu0 + d] + S->drel[nd->gpu0 + d] - dc[d].mov;

		if (fixed + u <= GPU_UNIT && dc[d].mov > 0 &&
		    (best < 0 || cheaper(&dc[d], &dc[best])))
			best = (int)d;
	}
	return best >= 0 ? UINT64_C(1) << best : 0;
}

/*
 * The victim jobs holding devs on node n; returns their task count, and
 * the victims' ordering keys into nc when it is not NULL.
 */
static uint32_t
plan(const struct sess *S, struct cctx *c, uint32_t n, uint64_t devs,
    struct nodecost *nc)
{
	uint32_t i, tasks = 0;

	for (i = 0; i < c->nvj; i++)
		c->seen[c->vj[i]] = 0;
	c->nvj = 0;
	for (i = c->nstart[n]; i < c->nstart[n + 1]; i++) {
		uint32_t x = c->ntask[i], j = kai_sched_task_job(S, x);
		const struct stask *st = &S->tasks[x];

		if (st->node != (int32_t)n || !kai_sched_task_active(st) ||
		    !(st->mask & devs) || !movable(S, c, j) || c->seen[j])
			continue;
		c->seen[j] = 1;
		c->vj[c->nvj++] = j;
		tasks += S->jobs[j].nactive;
		if (nc == NULL)
			continue;
		if (c->nvj == 1 || S->s->jobs[j].priority > nc->vprio)
			nc->vprio = S->s->jobs[j].priority;
		if (c->nvj == 1 || S->s->jobs[j].created < nc->vcreated)
			nc->vcreated = S->s->jobs[j].created;
	}
	return tasks;
}

/* Places the evicted tasks of victim job j again; false if one fails. */
static bool
replace_victim(struct sess *S, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	struct kai_sched_choice ch;
	size_t k;

	kai_sched_bf_running(S, j);
	if (J->tasks_per_node > 0)
		return kai_sched_move_groups(S, j);
	for (k = J->first_task; k < J->first_task + J->ntasks; k++) {
		if (S->tasks[k].state != KAI_SCHED_TASK_EVICTED)
			continue;
		if (!kai_sched_choose(S, (uint32_t)k, NULL, 0, NULL, true, &ch))
			return false;
		kai_sched_place(S, (uint32_t)k, (uint32_t)ch.node, ch.mask,
		    ch.ugpu, true);
	}
	return true;
}

/*
 * What the victims' active tasks hold of GPUs.  A part of a GPU asked by
 * memory is a larger part of a smaller GPU, so a move may raise it; a
 * move must not (its queue's allocation, limits and fair share would
 * change), so move() compares it before and after.
 */
static int64_t
victims_gpu(const struct sess *S, const struct cctx *c)
{
	const struct kai_sched_snapshot *s = S->s;
	int64_t sum = 0, v[NRES];
	uint32_t i;
	size_t k;

	for (i = 0; i < c->nvj; i++) {
		const struct kai_sched_snap_job *J = &s->jobs[c->vj[i]];

		for (k = J->first_task; k < J->first_task + J->ntasks; k++)
			if (kai_sched_task_active(&S->tasks[k])) {
				kai_sched_task_held(S, (uint32_t)k, v);
				sum += v[R_GPU];
			}
	}
	return sum;
}

/* Evicts the victims, places t on n, re-places every victim task. */
static bool
move(struct sess *S, struct cctx *c, uint32_t t, uint32_t n)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t mark = kai_sched_mark(S), k, nm = 0;
	struct kai_sched_choice ch;
	int64_t held = victims_gpu(S, c);
	uint32_t i;

	for (i = 0; i < c->nvj; i++) {
		const struct kai_sched_snap_job *J = &s->jobs[c->vj[i]];

		for (k = J->first_task; k < J->first_task + J->ntasks; k++)
			if (kai_sched_task_active(&S->tasks[k])) {
				kai_sched_evict(S, (uint32_t)k);
				nm++;
			}
	}
	if (!kai_sched_fit_node(S, t, n, true, &ch))
		goto fail;
	kai_sched_place(S, t, n, ch.mask, ch.ugpu, true);
	for (i = 0; i < c->nvj; i++)
		if (!replace_victim(S, c->vj[i]))
			goto fail;
	if (victims_gpu(S, c) > held)
		goto fail;
	kai_sched_bf_job(S, c->pend, S->s->now);
	c->moved += (uint32_t)nm;
	for (i = 0; i < c->nvj; i++) {
		const struct kai_sched_snap_job *J = &s->jobs[c->vj[i]];

		if (!c->tany || J->priority > c->tprio)
			c->tprio = J->priority;
		if (!c->tany || J->created < c->tcreated)
			c->tcreated = J->created;
		c->tany = true;
	}
	return true;
fail:
	kai_sched_bf_job(S, c->pend, S->s->now);
	kai_sched_rollback(S, mark);
	return false;
}

static int
cost_cmp(const void *a, const void *b)
{
	const struct nodecost *x = a, *y = b;

	if (x->vprio != y->vprio)
		return x->vprio < y->vprio ? -1 : 1;
	if (x->vcreated != y->vcreated)
		return x->vcreated > y->vcreated ? -1 : 1;
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Room for task t on one of nodes[0..nn) (every node when NULL). */
static bool
make_room(struct sess *S, struct cctx *c, uint32_t t, struct nodecost *nc,
    const uint32_t *nodes, uint32_t nn)
{
	uint32_t n, m = 0, i, k, cap = S->cf->max_consolidation_moves;

	for (k = 0; k < (nodes != NULL ? nn : S->nn); k++) {
		uint64_t devs;

		n = nodes != NULL ? nodes[k] : k;
		/* A node its pool or GPU type keeps t off: nothing to plan. */
		if (!kai_sched_pool_allows(S, t, n))
			continue;
		devs = devices(S, c, t, n);
		uint32_t cost;

		if (devs == 0 || (cost = plan(S, c, n, devs, &nc[m])) == 0 ||
		    c->moved + cost > cap)
			continue;
		nc[m].cost = cost;
		nc[m].rank = S->nodes[n].rank;
		nc[m++].node = n;
	}
	qsort(nc, m, sizeof(*nc), cost_cmp);
	for (i = 0; i < m; i++) {
		n = nc[i].node;
		(void)plan(S, c, n, devices(S, c, t, n), NULL);
		if (move(S, c, t, n))
			return true;
	}
	return false;
}

/*
 * A job whose step needs more GPU than is idle in the whole cluster
 * cannot be helped by moving things around; idle GPU only shrinks in
 * this phase, so such jobs are left out from the start (once allocate
 * has given every job its reason).
 */
static bool
want(const struct sess *S, uint32_t j)
{
	int64_t req[NRES];

	if (S->jobs[j].npending == 0 || S->jobs[j].static_fail ||
	    !S->jobs[j].preemptible)
		return false;
	/* Room is made for a whole step on any node: a subgroup's own
	 * level is kept by allocate's walk of the tree only. */
	if (kai_sched_tree(S, j) != NULL && S->s->jobs[j].topology >= 0)
		return false;
	if (!S->allocated)
		return true;
	kai_sched_step_req(S, j, req);
	return req[R_GPU] > 0 && req[R_GPU] <= S->idle_ugpu;
}

/*
 * Places j's step on nodes[0..nn) (every node when NULL), moving others
 * for the tasks that do not fit; on failure everything since mark is
 * rolled back.
 */
static bool
place_step(struct sess *S, struct cctx *c, uint32_t j, const uint32_t *nodes,
    uint32_t nn, struct nodecost *nc)
{
	struct kai_sched_choice ch;
	uint32_t *tasks = S->scratch_tasks, n, i;
	size_t mark = kai_sched_mark(S);
	bool shortg;

	c->pend = j;
	c->moved = 0;
	c->tany = false;
	n = kai_sched_step_tasks(S, j, tasks, &shortg);
	for (i = 0; i < n; i++) {
		if (kai_sched_choose(S, tasks[i], nodes, nn, NULL, false, &ch))
			kai_sched_place(S, tasks[i], (uint32_t)ch.node, ch.mask,
			    ch.ugpu, ch.pipelined);
		else if (!make_room(S, c, tasks[i], nc, nodes, nn))
			break;
	}
	if (i == n)
		return true;
	kai_sched_rollback(S, mark);
	return false;
}

/* Try a is better than b: cheaper jobs moved, then fewer tasks. */
static bool
try_better(const struct cctx *a, const struct cctx *b)
{
	if (a->tany != b->tany)
		return !a->tany;
	if (a->tany && a->tprio != b->tprio)
		return a->tprio < b->tprio;
	if (a->tany && a->tcreated != b->tcreated)
		return a->tcreated > b->tcreated;
	return a->moved < b->moved;
}

/*
 * A job that requires one domain of a level: each domain is tried on its
 * own (its nodes only; the moved jobs go anywhere), and the one whose
 * moves cost least in victim order wins -- the try whose most valuable
 * moved job has the lowest priority, then is the newest, then the one
 * that moves fewest tasks, then the first domain in label order.  The
 * winner is tried again for good: the same inputs give the same moves.
 * Only a job with nothing running yet: one that runs is bound to its
 * running domain, which allocate already tried.
 */
static bool
place_in_domain(struct sess *S, struct cctx *c, uint32_t j,
    struct nodecost *nc)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	const uint32_t *dstart, *dnodes;
	uint32_t ndom, d, best = NONE32;
	struct cctx bc;

	if (J->required_level < 0 || S->jobs[j].nactive > 0)
		return false;
	ndom = kai_sched_topo_domains(S, (uint32_t)J->topology,
	    (uint32_t)J->required_level, &dstart, &dnodes);
	memset(&bc, 0, sizeof(bc));
	for (d = 0; d < ndom; d++) {
		size_t mark = kai_sched_mark(S);

		if (!place_step(S, c, j, &dnodes[dstart[d]],
			dstart[d + 1] - dstart[d], nc))
			continue;
		if (best == NONE32 || try_better(c, &bc)) {
			best = d;
			bc = *c;
		}
		kai_sched_rollback(S, mark);
	}
	return best != NONE32 &&
	    place_step(S, c, j, &dnodes[dstart[best]],
		dstart[best + 1] - dstart[best], nc);
}

/*
 * The cost fields of a try, as before it; never vj and nvj, by which
 * plan() clears seen[].
 */
static void
cost_restore(struct cctx *c, const struct cctx *before)
{
	c->moved = before->moved;
	c->tany = before->tany;
	c->tprio = before->tprio;
	c->tcreated = before->tcreated;
}

/*
 * The tasks [first, first + k) of a group go on node n, others moved off
 * it for those that do not fit; false leaves the caller to roll back.
 */
static bool
group_onto(struct sess *S, struct cctx *c, size_t first, uint32_t k,
    uint32_t n, struct nodecost *nc)
{
	struct kai_sched_choice ch;
	size_t t;

	for (t = first; t < first + k; t++) {
		if (kai_sched_choose(S, (uint32_t)t, &n, 1, NULL, false, &ch))
			kai_sched_place(S, (uint32_t)t, n, ch.mask, ch.ugpu,
			    ch.pipelined);
		else if (!make_room(S, c, (uint32_t)t, nc, &n, 1))
			return false;
	}
	return true;
}

/*
 * A job whose tasks share nodes in groups (nodegroup.c) and runs nothing
 * yet: each group in turn goes whole onto one node no other group of
 * the job holds, moving others off that node as for any task.  Of the
 * nodes where that works, the one whose moves cost least in victim order
 * wins (try_better(), as between required domains), and is done again
 * for good.  All the groups or none.
 */
static bool
place_groups_moving(struct sess *S, struct cctx *c, uint32_t j,
    struct nodecost *nc)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	uint32_t k = J->tasks_per_node, g, n, best;
	size_t mark = kai_sched_mark(S);
	struct cctx bc, before; /* only their cost fields are used */

	if (S->jobs[j].nactive > 0 || J->topology >= 0)
		return false;
	c->pend = j;
	c->moved = 0;
	c->tany = false;
	memset(c->gused, 0, S->nn);
	for (g = 0; g < J->ntasks / k; g++) {
		size_t first = J->first_task + (size_t)g * k;

		best = NONE32;
		before = *c;
		memset(&bc, 0, sizeof(bc));
		for (n = 0; n < S->nn; n++) {
			size_t m = kai_sched_mark(S);

			if (c->gused[n] || !S->nodes[n].ok)
				continue;
			if (group_onto(S, c, first, k, n, nc) &&
			    (best == NONE32 || try_better(c, &bc))) {
				best = n;
				bc = *c;
			}
			kai_sched_rollback(S, m);
			cost_restore(c, &before);
		}
		if (best == NONE32 || !group_onto(S, c, first, k, best, nc)) {
			kai_sched_rollback(S, mark);
			return false;
		}
		c->gused[best] = 1;
	}
	return true;
}

static void
attempt(struct sess *S, struct cctx *c, struct kai_sched_memo *memo, uint32_t j,
    struct nodecost *nc)
{
	struct kai_sched_why_info w;
	const struct kai_sched_why_info *seen;
	int64_t req[NRES];
	bool ok;

	kai_sched_why_clear(&w);
	kai_sched_step_req(S, j, req);
	if (req[R_GPU] <= 0 || req[R_GPU] > S->idle_ugpu) {
		kai_sched_untried(S, j);
		return;
	}
	if (!kai_sched_admit(S, j, &w)) {
		kai_sched_set_why(S, j, &w, false);
		return;
	}
	if ((seen = kai_sched_memo_find(memo, S, j)) != NULL) {
		kai_sched_set_why(S, j, seen, false);
		return;
	}
	if (kai_sched_try_step(S, j, false, &w)) {
		kai_sched_commit(S);
		return;
	}
	/*
	 * The tasks are placed one at a time, so a topology is honoured by
	 * placing them inside one required domain at a time; a job with a
	 * preferred level only keeps the reason its own try gave.
	 */
	if (S->s->jobs[j].tasks_per_node > 0)
		ok = place_groups_moving(S, c, j, nc);
	else if (S->s->jobs[j].topology >= 0)
		ok = place_in_domain(S, c, j, nc);
	else
		ok = place_step(S, c, j, NULL, 0, nc);
	if (ok) {
		kai_sched_commit(S);
		return;
	}
	kai_sched_memo_store(memo, S, j, &w);
	kai_sched_set_why(S, j, &w, false);
}

void
kai_sched_consolidate(struct sess *S)
{
	struct kai_sched_order o;
	struct kai_sched_memo memo;
	struct nodecost *nc;
	struct cctx c;
	int64_t top;
	uint32_t nw, *wanted;

	if (S->cf->placement == KAI_SCHED_SPREAD)
		return;
	if (S->inc != NULL)
		kai_sched_inc_phase(S, KAI_SCHED_CONSOLIDATE);
	/*
	 * Once allocate has run, want() takes only jobs asking for some GPU
	 * and no more than is idle: with none idle, no job, and the phase
	 * has nothing to try (a full cluster, the common case).  An order
	 * built over no job would only write the queues' keys, which every
	 * order rebuilds.
	 */
	if (S->allocated && S->idle_ugpu <= 0)
		return;
	/* Which jobs to order, in one pass over the jobs (two before). */
	if ((nw = kai_sched_want_pass(S, want, false, &wanted)) == 0) {
		kai_sched_free(S->ctx, wanted);
		return;
	}
	memset(&c, 0, sizeof(c));
	tasks_by_node(S, &c);
	/* A node's movable jobs hold active tasks there: no more of them
	 * than active tasks. */
	c.vj = kai_sched_calloc(S->ctx, c.nstart[S->nn] + 1, sizeof(*c.vj));
	c.seen = kai_sched_calloc(S->ctx, S->s->njobs + 1, 1);
	c.gused = kai_sched_calloc(S->ctx, S->nn + 1, 1);
	nc = kai_sched_calloc(S->ctx, S->nn + 1, sizeof(*nc));
	kai_sched_memo_init(&memo);
	kai_sched_order_init_jobs(&o, S, wanted, nw);
	kai_sched_free(S->ctx, wanted);
	while ((top = kai_sched_order_top(&o)) >= 0) {
		attempt(S, &c, &memo, (uint32_t)top, nc);
		kai_sched_order_next(&o, (uint32_t)top, false);
	}
	kai_sched_order_fini(&o);
	kai_sched_memo_fini(&memo);
	kai_sched_free(S->ctx, nc);
	kai_sched_free(S->ctx, c.nstart);
	kai_sched_free(S->ctx, c.ntask);
	kai_sched_free(S->ctx, c.vj);
	kai_sched_free(S->ctx, c.seen);
	kai_sched_free(S->ctx, c.gused);
}
