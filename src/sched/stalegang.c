/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stalegang.c: the stale-gang eviction phase.
 *
 * A running gang that has fallen below its min_tasks (a pod failed or
 * was lost) holds resources it cannot use.  Once it has stayed below for
 * longer than its grace -- the job's staleness_grace_s, else the config's
 * default; negative means never -- all its remaining active tasks are
 * evicted, so the job can start over and others can use the resources.
 * The comparison is strict: a gang stale for exactly its grace stays.
 * Tasks placed in this cycle do not count toward the minimum: the phase
 * judges the job as it was found.
 */
#include "config.h"

#include "sched/sched_int.h"

static uint32_t
running(const struct sess *S, const struct kai_sched_snap_job *J)
{
	uint32_t n = 0;
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		n += S->tasks[t].state == KAI_SCHED_TASK_RUNNING &&
		    !S->tasks[t].fresh;
	return n;
}

/* Evicts job j's active tasks if it is a gang stale beyond its grace. */
static void
judge(struct sess *S, uint32_t j)
{
	const struct kai_sched_snapshot *s = S->s;
	const struct kai_sched_snap_job *J = &s->jobs[j];
	struct sjob *sj = &S->jobs[j];
	struct kai_sched_why_info w;
	int64_t grace = J->staleness_grace_s, stale;
	uint32_t n;
	size_t t;

	/* Read first: a job that is not stale (nearly all) costs its
	 * snapshot entry only, not a walk of its tasks. */
	if (J->stale_since == KAI_SCHED_NO_TIME)
		return;
	n = running(S, J);
	if (n == 0 ||
	    (kai_sched_tree(S, j) != NULL ? kai_sched_sg_satisfied(S, j, true)
					  : n >= sj->min))
		return;
	if (grace == KAI_SCHED_GRACE_DEFAULT)
		grace = S->cf->default_staleness_grace_s;
	stale = s->now - J->stale_since;
	if (grace < 0 || stale <= grace)
		return;
	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (kai_sched_task_active(&S->tasks[t]))
			kai_sched_evict(S, (uint32_t)t);
	kai_sched_why_clear(&w);
	w.why = KAI_SCHED_WHY_STALE;
	w.queue = (int32_t)J->queue;
	w.a = sj->min;
	w.b = stale;
	w.c = grace;
	kai_sched_set_why(S, j, &w, true);
}

/*
 * Only a job with a task running since before the cycle can be judged
 * (running() > 0).  Such a task was running, and not placed in this
 * cycle, when victims.c listed the running jobs with nothing uncommitted
 * (S->vact): nothing makes a task running and not fresh (a placement
 * marks it fresh, an eviction committed then cannot be undone), so that
 * list holds every job this phase can evict, in index order, and the
 * million pending jobs are not read.  A job's judgement reads and
 * evicts its own tasks only, so the jobs are judged in the same order
 * either way, with the same outcome.
 */
void
kai_sched_stalegang(struct sess *S)
{
	uint32_t i, nj = (uint32_t)S->s->njobs;

	if (S->vact != NULL)
		for (i = 0; i < S->nvact; i++)
			judge(S, S->vact[i]);
	else
		for (i = 0; i < nj; i++)
			judge(S, i);
	kai_sched_commit(S);
}
