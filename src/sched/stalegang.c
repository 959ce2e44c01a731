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

void
kai_sched_stalegang(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t j, t;

	for (j = 0; j < s->njobs; j++) {
		const struct kai_sched_snap_job *J = &s->jobs[j];
		struct sjob *sj = &S->jobs[j];
		struct kai_sched_why_info w;
		int64_t grace = J->staleness_grace_s, stale;
		uint32_t n;

		/* Read first: a job that is not stale (nearly all) costs
		 * its snapshot entry only, not a walk of its tasks. */
		if (J->stale_since == KAI_SCHED_NO_TIME)
			continue;
		n = running(S, J);
		if (n == 0 ||
		    (kai_sched_tree(S, (uint32_t)j) != NULL ? kai_sched_sg_satisfied(S,
					     (uint32_t)j, true)
				       : n >= sj->min))
			continue;
		if (grace == KAI_SCHED_GRACE_DEFAULT)
			grace = S->cf->default_staleness_grace_s;
		stale = s->now - J->stale_since;
		if (grace < 0 || stale <= grace)
			continue;
		for (t = J->first_task; t < J->first_task + J->ntasks; t++)
			if (kai_sched_task_active(&S->tasks[t]))
				kai_sched_evict(S, (uint32_t)t);
		kai_sched_why_clear(&w);
		w.why = KAI_SCHED_WHY_STALE;
		w.queue = (int32_t)J->queue;
		w.a = sj->min;
		w.b = stale;
		w.c = grace;
		kai_sched_set_why(S, (uint32_t)j, &w, true);
	}
	kai_sched_commit(S);
}
