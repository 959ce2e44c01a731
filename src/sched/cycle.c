/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cycle.c: one scheduling cycle, start to end (see sched_model.h).
 *
 * Open the session (session.c), divide the fair shares once, run the
 * configured phases in order, then write the result: each task's final
 * state and place, each job's state and reason, each queue's shares.  A
 * job with any task pipelined has all its newly placed tasks reported as
 * pipelined: its pods start together once the releasing ones are gone.
 * Start estimates (estimate.c) come last, on the session as the phases
 * left it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

void
kai_sched_config_init(struct kai_sched_config *c)
{
	memset(c, 0, sizeof(*c));
	c->placement = KAI_SCHED_BINPACK;
	c->gpu_placement = KAI_SCHED_BINPACK;
	c->phases[0] = KAI_SCHED_ALLOCATE;
	c->phases[1] = KAI_SCHED_CONSOLIDATE;
	c->phases[2] = KAI_SCHED_RECLAIM;
	c->phases[3] = KAI_SCHED_PREEMPT;
	c->phases[4] = KAI_SCHED_STALEGANG;
	c->nphases = 5;
	c->k_value = 1.0;
	c->default_staleness_grace_s = 60;
	c->max_consolidation_moves = 16;
	c->est_jobs = KAI_SCHED_EST_JOBS;
	c->bf_reservations = 0;
	c->bf_max_job_test = KAI_SCHED_BF_MAX_JOB_TEST;
}

void
kai_sched_queue_init(struct kai_sched_snap_queue *q)
{
	int r;

	memset(q, 0, sizeof(*q));
	q->parent = -1;
	q->priority = 100;
	q->preempt_min_runtime_s = q->reclaim_min_runtime_s = -1;
	for (r = 0; r < KAI_SCHED_NRES; r++) {
		q->res[r].quota = q->res[r].limit = KAI_SCHED_UNLIMITED;
		q->res[r].weight = 1;
	}
}

void
kai_sched_job_init(struct kai_sched_snap_job *j)
{
	memset(j, 0, sizeof(*j));
	j->user = j->account = -1;
	j->topology = j->required_level = j->preferred_level = -1;
	j->stale_since = j->started = KAI_SCHED_NO_TIME;
	j->staleness_grace_s = KAI_SCHED_GRACE_DEFAULT;
	j->time_limit_s = -1;
	j->pool = -1;
}

void
kai_sched_task_init(struct kai_sched_snap_task *t)
{
	memset(t, 0, sizeof(*t));
	t->node = -1;
}

static void
run_phase(struct sess *S, enum kai_sched_action a)
{
	switch (a) {
	case KAI_SCHED_ALLOCATE:
		kai_sched_allocate(S);
		break;
	case KAI_SCHED_CONSOLIDATE:
		kai_sched_consolidate(S);
		break;
	case KAI_SCHED_RECLAIM:
		kai_sched_reclaim(S);
		break;
	case KAI_SCHED_PREEMPT:
		kai_sched_preempt(S);
		break;
	case KAI_SCHED_STALEGANG:
		kai_sched_stalegang(S);
		break;
	case KAI_SCHED_NACTIONS:
		break;
	}
}

/* Task t's state in the result: a fresh task of a pipelined job is. */
static enum kai_sched_task_state
task_state(const struct stask *st, bool pipe)
{
	return pipe && st->fresh ? KAI_SCHED_TASK_PIPELINED
				 : (enum kai_sched_task_state)st->state;
}

/*
 * Job j's result entry from its tasks as the phases left them, and the
 * cycle's counts; the tasks' entries are written at the very end
 * (tasks_out()), once the start estimates are undone.
 */
static void
job_out(struct sess *S, size_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	struct kai_sched_job_out *o = &S->r->jobs[j];
	struct sjob *sj = &S->jobs[j];
	unsigned seen[KAI_SCHED_TASK_EVICTED + 1] = {0};
	bool pipe = false;
	size_t t;

	/*
	 * A job whose tasks were all pending at the start, and that the
	 * phases neither placed, evicted nor moved, has them all pending
	 * still: a pending task changes only by being placed, which stmt.c
	 * counts (and uncounts only with the undo that makes it pending
	 * again).  Its entry needs neither its tasks nor the snapshot's
	 * job: at a million pending jobs, 150 MiB not read.
	 */
	if (!sj->holds && sj->nplaced == 0 && sj->nevicted == 0 &&
	    sj->nmoved == 0) {
		sj->pipe = false;
		sj->touched = false;
		o->placed_tasks = 0;
		o->state = KAI_SCHED_JOB_PENDING;
		o->est_start = o->why.why == KAI_SCHED_WHY_RESERVED
		    ? o->why.a /* the reservation's start */
		    : KAI_SCHED_NO_TIME;
		return;
	}
	/* A job any of whose fresh tasks is pipelined has all of them
	 * pipelined: its pods start together.  Only a job placed or moved
	 * this cycle has fresh tasks (stmt.c counts both). */
	for (t = J->first_task; (sj->nplaced > 0 || sj->nmoved > 0) &&
	     t < J->first_task + J->ntasks;
	     t++)
		pipe |= S->tasks[t].fresh &&
		    S->tasks[t].state == KAI_SCHED_TASK_PIPELINED;
	sj->pipe = pipe;
	sj->touched = false;
	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		const struct stask *st = &S->tasks[t];
		enum kai_sched_task_state ts = task_state(st, pipe);

		seen[ts]++;
		if (st->fresh && !st->moved)
			S->r->placed++;
		S->r->evicted += ts == KAI_SCHED_TASK_EVICTED;
		S->r->moved += st->moved;
		sj->touched |= ts == KAI_SCHED_TASK_EVICTED || st->moved;
	}
	sj->releasing = seen[KAI_SCHED_TASK_RELEASING] > 0;
	o->placed_tasks = sj->nplaced;
	o->est_start = KAI_SCHED_NO_TIME;
	if (seen[KAI_SCHED_TASK_RUNNING] + seen[KAI_SCHED_TASK_PIPELINED] > 0)
		o->state = KAI_SCHED_JOB_RUNNING;
	else if (seen[KAI_SCHED_TASK_EVICTED] > 0)
		o->state = KAI_SCHED_JOB_EVICTED;
	else if (seen[KAI_SCHED_TASK_PENDING] == 0 && J->ntasks > 0 &&
	    seen[KAI_SCHED_TASK_FAILED] == J->ntasks)
		o->state = KAI_SCHED_JOB_FAILED;
	else
		o->state = KAI_SCHED_JOB_PENDING;
	/*
	 * The phases wrote o->why as they went; running jobs have none,
	 * except one that lost elastic tasks: why it did.
	 */
	if ((o->state == KAI_SCHED_JOB_RUNNING &&
		seen[KAI_SCHED_TASK_EVICTED] == 0) ||
	    o->state == KAI_SCHED_JOB_FAILED)
		kai_sched_why_clear(&o->why);
	if (o->state == KAI_SCHED_JOB_RUNNING && o->placed_tasks > 0)
		o->est_start = S->s->now;
	if (o->state == KAI_SCHED_JOB_PENDING &&
	    o->why.why == KAI_SCHED_WHY_RESERVED)
		o->est_start = o->why.a; /* the reservation's start */
}

/*
 * The result's tasks, written over the session's in place (two arrays
 * of 54 MiB each at a million jobs were kept before, one now): each entry
 * is read whole into a local before the same bytes are written as the
 * result's, and the session reads none of them afterwards.  memcpy(),
 * not assignment, for both: the block changes type under it.
 */
static void
tasks_out(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	unsigned char *block = (unsigned char *)S->tasks;
	struct kai_sched_task_out pend;
	size_t t;

	/* The entry of a task left pending: it holds nothing. */
	memset(&pend, 0, sizeof(pend));
	pend.state = KAI_SCHED_TASK_PENDING;
	pend.node = -1;

	/* One pass over the tasks alone: the job's entry is read only for
	 * a fresh task (is it pipelined?), the snapshot's task only for one
	 * that holds devices (its whole GPUs). */
	for (t = 0; t < s->ntasks; t++) {
		struct stask st;
		struct kai_sched_task_out o;
		bool holds, pipe;

		memcpy(&st, block + t * sizeof(st), sizeof(st));
		/* Most tasks, at a million pending jobs: what the general
		 * case below makes of them, without the work. */
		if (st.state == KAI_SCHED_TASK_PENDING && !st.fresh &&
		    !st.moved) {
			if (memcmp(&st, &pend, sizeof(pend)) != 0)
				memcpy(block + t * sizeof(pend), &pend,
				    sizeof(pend));
			continue;
		}
		holds = st.state != KAI_SCHED_TASK_PENDING &&
		    st.state != KAI_SCHED_TASK_FAILED;
		pipe = st.fresh && S->jobs[S->task_job[t]].pipe;
		memset(&o, 0, sizeof(o));
		o.state = task_state(&st, pipe);
		/* Pending and failed tasks hold nothing: no node, no
		 * devices. */
		o.node = holds ? st.node : -1;
		o.gpu_mask = holds ? st.mask : 0;
		o.gpu_fraction =
		    o.gpu_mask != 0 && s->tasks[t].gpus == 0 ? st.ugpu : 0;
		o.moved = st.moved;
		/* A pending task's entry is mostly the same bytes either way:
		 * a line of them left unwritten is not written back. */
		if (memcmp(&st, &o, sizeof(o)) != 0)
			memcpy(block + t * sizeof(o), &o, sizeof(o));
	}
	S->r->tasks = (struct kai_sched_task_out *)(void *)block;
	S->tasks = NULL; /* the result's now: sess_fini() leaves it */
}

int
kai_sched_cycle_run(struct kai_sched_ctx *c, struct kai_sched_ctx *rctx,
    const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct kai_sched_inc_run *inc, struct kai_err *err)
{
	struct sess S;
	size_t i, mark;
	int rc;

	if ((rc = kai_sched_sess_init(&S, c, rctx, s, r, inc, err)) != 0) {
		kai_sched_sess_fini(&S);
		kai_sched_result_fini(r);
		return rc;
	}
	kai_sched_fairshare(&S);
	if (inc != NULL)
		kai_sched_inc_shares(&S);
	for (i = 0; i < s->config.nphases && i < KAI_SCHED_MAX_PHASES; i++) {
		run_phase(&S, s->config.phases[i]);
		if (inc != NULL && s->config.phases[i] == KAI_SCHED_ALLOCATE)
			kai_sched_inc_phase(&S, KAI_SCHED_ALLOCATE);
	}
	for (i = 0; i < s->njobs; i++) {
		job_out(&S, i);
		if (s->config.est_jobs > 0 && kai_sched_est_holds(&S.jobs[i]))
			kai_sched_est_held(&S, (uint32_t)i);
	}
	for (i = 0; i < s->nqueues; i++)
		memcpy(r->queues[i].allocated, S.q[i].alloc,
		    sizeof(r->queues[i].allocated));
	kai_sched_types_out(&S);
	mark = kai_sched_mark(&S);
	/* Last: it changes the session, and the jobs' results are
	 * written. */
	if (s->config.est_jobs > 0)
		kai_sched_estimate(&S);
	if (inc != NULL)
		kai_sched_inc_capture(&S);
	/* The tasks as the phases left them again, then the result's. */
	kai_sched_restore_tasks(&S, mark);
	tasks_out(&S);
	kai_sched_sess_fini(&S);
	return 0;
}

int
kai_sched_cycle_ctx(struct kai_sched_ctx *c, const struct kai_sched_snapshot *s,
    struct kai_sched_result *r, struct kai_err *err)
{
	int rc = s->job_gen != NULL ? kai_sched_inc_cycle(c, s, r, err)
				    : kai_sched_cycle_run(c, c, s, r, NULL, err);

	kai_sched_ctx_trim(c);
	return rc;
}

int
kai_sched_cycle(const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct kai_err *err)
{
	/* The session's arrays go back to a context of the call's own;
	 * the result's to malloc, since it outlives the call. */
	struct kai_sched_ctx *c = kai_sched_ctx_new();
	int rc = kai_sched_cycle_run(c, NULL, s, r, NULL, err);

	kai_sched_ctx_free(c);
	return rc;
}

void
kai_sched_result_fini(struct kai_sched_result *r)
{
	kai_sched_free(r->ctx, r->tasks);
	kai_sched_free(r->ctx, r->jobs);
	kai_sched_free(r->ctx, r->queues);
	free(r->types);
	KAI_FREE(r->qtypes);
	memset(r, 0, sizeof(*r));
}
