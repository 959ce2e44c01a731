/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * qoslimit.c: caps on the GPUs a group of jobs holds at once -- how kaid
 * applies a QoS's per-user GPU limit (Slurm's MaxTRESPerUser=gres/gpu,
 * kaid.yaml qos[].max_gpus_per_user).
 *
 * The snapshot names the caps (gpu_limits, in micro-GPUs) and each job
 * the cap it counts against (1 + its index), or none (0); kaid gives every (user, QoS) pair
 * whose QoS has a limit a cap of its own, so the core needs to know
 * nothing of users or QoS.  A cap holds like a queue's limit: in every
 * phase (kai_sched_admit() asks here first), against what the group's
 * active tasks hold at that moment, so a job placed earlier in the cycle
 * counts and an evicted one no longer does.  A job it stops waits with
 * KAI_SCHED_WHY_QOS_GPUS (Slurm's QOSMaxGRESPerUser) and is never
 * remembered by shape: the next job of the same shape may belong to
 * another user.  A job whose GPUs alone exceed the cap waits the same
 * way, for ever, as it does in Slurm.
 *
 * What a group holds is kept up to date by stmt.c's accounting (the one
 * place every placement and eviction passes), through
 * kai_sched_qoslimit_account().
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

void
kai_sched_qoslimit_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	int64_t v[NRES];
	size_t t;
	uint32_t c;

	if (s->ngpu_limits == 0)
		return;
	S->lim_alloc = kai_xcalloc(s->ngpu_limits, sizeof(*S->lim_alloc));
	for (t = 0; t < s->ntasks; t++) {
		c = s->jobs[S->task_job[t]].gpu_limit;
		if (c == 0 || !kai_sched_task_active(&S->tasks[t]))
			continue;
		kai_sched_task_held(S, (uint32_t)t, v);
		S->lim_alloc[c - 1] += v[R_GPU];
	}
}

void
kai_sched_qoslimit_fini(struct sess *S)
{
	free(S->lim_alloc);
	S->lim_alloc = NULL;
}

void
kai_sched_qoslimit_account(struct sess *S, uint32_t j, int64_t ugpu)
{
	uint32_t c = S->s->jobs[j].gpu_limit;

	if (c > 0)
		S->lim_alloc[c - 1] += ugpu;
}

bool
kai_sched_qoslimit_admit(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *w)
{
	uint32_t c = S->s->jobs[j].gpu_limit;
	const int64_t *req;
	int64_t limit;

	if (c == 0)
		return true;
	req = kai_sched_step(S, j)->sreq;
	limit = S->s->gpu_limits[c - 1];
	if (req[R_GPU] <= 0 || S->lim_alloc[c - 1] + req[R_GPU] <= limit)
		return true;
	kai_sched_why_clear(w);
	w->why = KAI_SCHED_WHY_QOS_GPUS;
	w->res = R_GPU;
	w->a = limit;
	w->b = S->lim_alloc[c - 1];
	w->c = req[R_GPU];
	return false;
}
