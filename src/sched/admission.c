/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * admission.c: the hard checks every placement passes, in every phase.
 *
 * Beside the GPU caps of qoslimit.c (a QoS's per-user limit, checked
 * first), only two things ever block a job by themselves (FORMAT.md, KAI's
 * capacity policy): a queue's limit, at the job's leaf and at every
 * ancestor, and, for a non-preemptible job, the queue's quota at every
 * level (non-preemptible work may only use guaranteed resources, since
 * nothing could take them back).  Fair share only orders queues.  A
 * resource the step does not ask for is never checked: a queue already
 * over its CPU limit may still start a job that needs no CPU.
 *
 * A GPU memory request counts as memory / smallest GPU memory (the
 * largest fraction it could become) everywhere, so that neither check
 * can be passed by a task that then lands on a smaller GPU.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

static void
set(struct kai_sched_why_info *w, enum kai_sched_why why, uint32_t q, int r,
    int64_t a, int64_t b, int64_t c)
{
	kai_sched_why_clear(w);
	w->why = why;
	w->queue = (int32_t)q;
	w->res = (enum kai_sched_res)r;
	w->a = a;
	w->b = b;
	w->c = c;
}

bool
kai_sched_admit(const struct sess *S, uint32_t j, struct kai_sched_why_info *w)
{
	const struct sjob *J = kai_sched_step(S, j);
	const int64_t *lim = J->sreq, *fs = lim;
	int32_t q;
	int r;

	if (!kai_sched_qoslimit_admit(S, j, w))
		return false;
	for (q = (int32_t)J->queue; q >= 0 && !S->q[J->queue].no_limit;
	     q = S->q[q].parent) {
		const struct kai_sched_snap_queue *in = &S->s->queues[q];

		for (r = 0; r < NRES; r++) {
			int64_t limit = in->res[r].limit;

			if (lim[r] > 0 && limit >= 0 &&
			    S->q[q].alloc[r] + lim[r] > limit) {
				set(w, KAI_SCHED_WHY_LIMIT, (uint32_t)q, r,
				    limit, S->q[q].alloc[r], lim[r]);
				return false;
			}
		}
	}
	if (S->gt != NULL && !kai_sched_types_admit(S, j, lim[R_GPU], w))
		return false;
	if (J->preemptible || S->q[J->queue].no_quota)
		return true;
	for (q = (int32_t)J->queue; q >= 0; q = S->q[q].parent) {
		const struct kai_sched_snap_queue *in = &S->s->queues[q];

		for (r = 0; r < NRES; r++) {
			int64_t quota = in->res[r].quota;

			if (fs[r] > 0 && quota >= 0 &&
			    S->q[q].alloc_np[r] + fs[r] > quota) {
				set(w, KAI_SCHED_WHY_NP_QUOTA, (uint32_t)q, r,
				    quota, S->q[q].alloc_np[r], fs[r]);
				return false;
			}
		}
	}
	return true;
}

/* alloc + req <= fair share in every tracked resource req asks for. */
bool
kai_sched_within_fair_share(const struct sess *S, uint32_t q,
    const int64_t req[NRES])
{
	int r;

	for (r = 0; r < NRES; r++)
		if (req[r] > 0 && S->q[q].fs[r] >= 0 &&
		    S->q[q].alloc[r] + req[r] > S->q[q].fs[r])
			return false;
	return true;
}

bool
kai_sched_job_within_fair_share(const struct sess *S, uint32_t q, uint32_t j,
    const int64_t req[NRES])
{
	int32_t t = kai_sched_job_type(S, j);
	int64_t rest[NRES];

	if (t < 0)
		return kai_sched_within_fair_share(S, q, req);
	memcpy(rest, req, sizeof(rest));
	rest[R_GPU] = 0;
	return kai_sched_within_fair_share(S, q, rest) &&
	    kai_sched_type_within_fs(S, q, t, req[R_GPU]);
}

/* alloc + req <= quota in every resource req asks for. */
bool
kai_sched_within_quota(const struct sess *S, uint32_t q,
    const int64_t req[NRES])
{
	int r;

	for (r = 0; r < NRES; r++) {
		int64_t quota = S->s->queues[q].res[r].quota;

		if (req[r] > 0 && quota >= 0 &&
		    S->q[q].alloc[r] + req[r] > quota)
			return false;
	}
	return true;
}
