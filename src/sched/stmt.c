/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stmt.c: the only code that changes the cycle's accounting (KAI's
 * Statement): place a task, evict a task, and undo either.
 *
 * Every change is appended to an undo log holding the task's previous
 * record, so kai_sched_rollback() can return to any mark exactly, in
 * reverse order; an all-or-nothing gang, a trial eviction or a
 * consolidation move is "mark, try, then commit or roll back".  Each
 * change keeps devices, node figures, the node index, queue sums (leaf
 * and ancestors), the owner's group and the job's counters in step, and
 * marks the leaf queue and the group dirty so that the orderings re-key
 * them before the next pop.  kai_sched_release(), for the replays of
 * the start estimates and of backfill reservations, is logged too, so a
 * reservation's replay can be undone.
 *
 * A move (consolidation: a running task evicted, then placed again)
 * leaves the old place releasing on its node under no task, the task
 * being active elsewhere.  kai_sched_commit() keeps the moves' log
 * entries, which name the old place, so that the replays can free it
 * at now like any releasing task's (kai_sched_release_moved()).
 */
#include "config.h"

#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

void
kai_sched_touch_queue(struct sess *S, uint32_t q)
{
	if (S->qdirty[q])
		return;
	S->qdirty[q] = 1;
	S->qdirty_list[S->nqdirty++] = q;
}

void
kai_sched_touch_group(struct sess *S, uint32_t g)
{
	if (S->gdirty[g])
		return;
	S->gdirty[g] = 1;
	S->gdirty_list[S->ngdirty++] = g;
}

/* Adds (sign 1) or removes (-1) what task t holds from its queues. */
static void
account(struct sess *S, uint32_t t, int64_t sign)
{
	uint32_t j = kai_sched_task_job(S, t);
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	int64_t v[NRES];
	int32_t q;
	int r;

	kai_sched_task_held(S, t, v);
	for (q = (int32_t)J->queue; q >= 0; q = S->q[q].parent) {
		S->q[q].kdirty = true;
		for (r = 0; r < NRES; r++) {
			S->q[q].alloc[r] += sign * v[r];
			if (!J->preemptible)
				S->q[q].alloc_np[r] += sign * v[r];
		}
	}
	if (S->gt != NULL)
		kai_sched_types_account(S, t, sign, v[R_GPU]);
	kai_sched_touch_queue(S, J->queue);
	S->groups[S->jobs[j].group].alloc_gpu += sign * v[R_GPU];
	kai_sched_touch_group(S, S->jobs[j].group);
	kai_sched_acct_add(S, S->jobs[j].group, sign * v[R_GPU], true);
	kai_sched_qoslimit_account(S, j, sign * v[R_GPU]);
}

/*
 * Adds (sign 1) or removes what task t holds at st (its entry, or a
 * place it moved from) on that node, to alloc or rel.
 */
static void
hold_at(struct sess *S, uint32_t t, const struct stask *st, int32_t sign,
    bool rel)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	struct snode *n = &S->nodes[st->node];
	int32_t *dev = rel ? S->drel : S->dalloc;
	int64_t *acc = rel ? n->rel : n->alloc;
	uint64_t m = st->mask;

	while (m != 0) {
		int d = __builtin_ctzll(m);

		dev[n->gpu0 + (uint32_t)d] += sign * st->ugpu;
		m &= m - 1;
	}
	acc[R_CPU] += sign * in->cpu_millis;
	acc[R_MEM] += sign * in->memory_mib;
	kai_sched_excl_hold(S, t, (uint32_t)st->node, sign, rel);
}

static void
hold(struct sess *S, uint32_t t, int32_t sign, bool rel)
{
	hold_at(S, t, &S->tasks[t], sign, rel);
}

static struct undo *
log_push(struct sess *S, uint32_t t, enum undo_kind kind)
{
	struct undo *u;

	if (S->nlog == S->caplog) {
		S->caplog = S->caplog ? 2 * S->caplog : 256;
		S->log = kai_xreallocarray(S->log, S->caplog, sizeof(*S->log));
	}
	u = &S->log[S->nlog++];
	u->task = t;
	u->kind = (uint8_t)kind;
	u->prev = S->tasks[t];
	return u;
}

size_t
kai_sched_mark(const struct sess *S)
{
	return S->nlog;
}

/*
 * Places task t (pending, or evicted and now being moved) on node with
 * the given devices.  pipelined: it waits for releasing resources.
 */
void
kai_sched_place(struct sess *S, uint32_t t, uint32_t node, uint64_t mask,
    int32_t ugpu, bool pipelined)
{
	struct stask *st = &S->tasks[t];
	struct sjob *sj = &S->jobs[kai_sched_task_job(S, t)];
	bool moving = st->state == KAI_SCHED_TASK_EVICTED;

	(void)log_push(S, t, UNDO_PLACE);
	sj->sreq_ok = false;
	if (!moving) {
		sj->npending--;
		sj->nplaced++;
	} else {
		sj->nevicted--;
		sj->nmoved++;
		st->moved = true;
	}
	st->node = (int32_t)node;
	st->mask = mask;
	st->ugpu = ugpu;
	st->state = (uint8_t)(pipelined || moving ? KAI_SCHED_TASK_PIPELINED
						  : KAI_SCHED_TASK_RUNNING);
	st->fresh = true;
	kai_sched_nodereq_placed(S, t);
	sj->nactive++;
	hold(S, t, 1, false);
	kai_sched_node_refresh(S, node);
	account(S, t, 1);
}

/* Evicts active task t: its resources become releasing on its node. */
void
kai_sched_evict(struct sess *S, uint32_t t)
{
	struct stask *st = &S->tasks[t];
	struct sjob *sj = &S->jobs[kai_sched_task_job(S, t)];

	(void)log_push(S, t, UNDO_EVICT);
	sj->sreq_ok = false;
	account(S, t, -1);
	hold(S, t, -1, false);
	hold(S, t, 1, true);
	kai_sched_node_refresh(S, (uint32_t)st->node);
	st->state = KAI_SCHED_TASK_EVICTED;
	sj->nactive--;
	sj->nevicted++;
}

/*
 * Active tasks t[0..n) end together in the start estimate's replay:
 * each is kai_sched_evict() then kai_sched_release(), the same two
 * undo-log entries (a rollback undoes them as it would those), but each
 * node's figures (and its index) are recomputed once, after all of
 * them, not twice per task, and its releasing sums are not raised and
 * lowered again.  Nothing between reads a node's figures (account()
 * reads none).  The nodes are not listed in relnodes, which only a
 * pipelined placement reads; the replay places nothing pipelined.
 * seen: a zeroed byte per node, zeroed again on return.
 */
void
kai_sched_end_tasks(struct sess *S, const uint32_t *t, size_t n, uint8_t *seen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct stask *st = &S->tasks[t[i]];
		struct sjob *sj = &S->jobs[kai_sched_task_job(S, t[i])];

		(void)log_push(S, t[i], UNDO_EVICT);
		sj->sreq_ok = false;
		account(S, t[i], -1);
		hold(S, t[i], -1, false);
		st->state = KAI_SCHED_TASK_EVICTED;
		sj->nactive--;
		sj->nevicted++;
		(void)log_push(S, t[i], UNDO_RELEASE);
		st->state = KAI_SCHED_TASK_FAILED; /* as kai_sched_release() */
		seen[st->node] = 1;
	}
	for (i = 0; i < n; i++) {
		uint32_t node = (uint32_t)S->tasks[t[i]].node;

		if (seen[node]) {
			seen[node] = 0;
			kai_sched_node_refresh(S, node);
		}
	}
}

void
kai_sched_release(struct sess *S, uint32_t t)
{
	struct stask *st = &S->tasks[t];

	if (st->state != KAI_SCHED_TASK_RELEASING &&
	    st->state != KAI_SCHED_TASK_EVICTED)
		return;
	(void)log_push(S, t, UNDO_RELEASE);
	hold(S, t, -1, true);
	st->state = KAI_SCHED_TASK_FAILED; /* holds nothing, not retried */
	kai_sched_node_refresh(S, (uint32_t)st->node);
}

void
kai_sched_release_moved(struct sess *S)
{
	uint32_t i;

	for (i = 0; i < S->nmoved_from; i++) {
		const struct undo *m = &S->moved_from[i];
		struct undo *u = log_push(S, m->task, UNDO_UNMOVE);

		u->prev = m->prev;
		hold_at(S, m->task, &m->prev, -1, true);
		kai_sched_node_refresh(S, (uint32_t)m->prev.node);
	}
}

static void
undo_one(struct sess *S, const struct undo *u)
{
	uint32_t t = u->task;
	struct stask *st = &S->tasks[t];
	struct sjob *sj = &S->jobs[kai_sched_task_job(S, t)];
	uint32_t node = (uint32_t)st->node;

	if (u->kind == UNDO_UNMOVE) {
		hold_at(S, t, &u->prev, 1, true);
		kai_sched_node_refresh(S, (uint32_t)u->prev.node);
		return;
	}
	if (u->kind == UNDO_RELEASE) {
		*st = u->prev;
		hold(S, t, 1, true);
		kai_sched_node_refresh(S, node);
		return;
	}
	sj->sreq_ok = false;
	if (u->kind == UNDO_PLACE) {
		account(S, t, -1);
		hold(S, t, -1, false);
		sj->nactive--;
		if (u->prev.state == KAI_SCHED_TASK_EVICTED) {
			sj->nevicted++;
			sj->nmoved--;
		} else {
			sj->npending++;
			sj->nplaced--;
		}
		*st = u->prev;
		kai_sched_node_refresh(S, node);
		kai_sched_nodereq_undone(S, t);
		return;
	}
	hold(S, t, -1, true);
	*st = u->prev;
	hold(S, t, 1, false);
	account(S, t, 1);
	sj->nactive++;
	sj->nevicted--;
	kai_sched_node_refresh(S, node);
	kai_sched_nodereq_undone(S, t);
}

void
kai_sched_rollback(struct sess *S, size_t mark)
{
	while (S->nlog > mark)
		undo_one(S, &S->log[--S->nlog]);
}

/*
 * The tasks' entries as they were at mark, and nothing else: the end of
 * the cycle (cycle.c), when the start estimates are done and only the
 * tasks are read again.  Unlike kai_sched_rollback(), no node, queue or
 * job figure is put back: they are not read any more, and the undoing
 * would cost as much as the estimates' replay did.  An old place freed
 * changed no task entry (its prev is the place, not the task).
 */
void
kai_sched_restore_tasks(struct sess *S, size_t mark)
{
	while (S->nlog > mark) {
		const struct undo *u = &S->log[--S->nlog];

		if (u->kind != UNDO_UNMOVE)
			S->tasks[u->task] = u->prev;
	}
}

/*
 * Keeps every change so far; only at the top level of an action.  The
 * moves among them are kept on (moved_from): a placement of an evicted
 * task, whose entry's prev is the place it left.  Only consolidation
 * moves, but any commit may keep them; the log walked is the one just
 * written, a few entries an action.
 */
void
kai_sched_commit(struct sess *S)
{
	size_t i;

	for (i = 0; i < S->nlog; i++) {
		const struct undo *u = &S->log[i];

		if (u->kind != UNDO_PLACE ||
		    u->prev.state != KAI_SCHED_TASK_EVICTED)
			continue;
		if (S->nmoved_from == S->capmoved_from) {
			S->capmoved_from =
			    S->capmoved_from ? 2 * S->capmoved_from : 64;
			S->moved_from = kai_xreallocarray(S->moved_from,
			    S->capmoved_from, sizeof(*S->moved_from));
		}
		S->moved_from[S->nmoved_from++] = *u;
	}
	S->nlog = 0;
}
