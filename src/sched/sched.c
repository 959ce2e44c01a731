/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched.c: the first placement policy (priority, then age; all-or-nothing
 * per job; bin-packing).  See sched.h.
 *
 * The plan works on a private copy of the node capacities, so placing a
 * job reduces what later jobs in the same tick see, exactly as the pods
 * will once they exist.
 */
#include "config.h"

#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

struct cap {
	int64_t cpu;
	uint64_t mem;
	uint32_t gpus;
	bool ok;
};

static int
job_order(const void *a, const void *b)
{
	const struct kai_sched_job *x = *(const struct kai_sched_job *const *)a;
	const struct kai_sched_job *y = *(const struct kai_sched_job *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static bool
fits(const struct cap *c, const struct kai_sched_job *j)
{
	return c->ok && c->cpu >= j->cpu_milli && c->mem >= j->mem_mb &&
	    c->gpus >= j->gpus;
}

/*
 * Bin-packing: among the nodes a task fits on, the one that leaves the
 * fewest free GPUs, then the least CPU; ties to the lower index so that
 * the plan is deterministic.  Returns -1 when none fits.
 */
static long
best_node(const struct cap *caps, size_t n, const struct kai_sched_job *j)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!fits(&caps[i], j))
			continue;
		if (best < 0 || caps[i].gpus < caps[best].gpus ||
		    (caps[i].gpus == caps[best].gpus &&
			caps[i].cpu < caps[best].cpu))
			best = (long)i;
	}
	return best;
}

/* Whether one task could fit on some schedulable node when it is empty. */
static bool
ever_fits(const struct kai_sched_input *in, const struct kai_sched_job *j)
{
	size_t i;

	for (i = 0; i < in->nnodes; i++) {
		const struct kai_sched_node *nd = &in->nodes[i];

		if (nd->schedulable && nd->gpus_total >= j->gpus)
			return true;
	}
	return false;
}

static bool
place(struct cap *caps, size_t n, const struct kai_sched_job *j,
    uint32_t *task_node)
{
	struct cap *trial = kai_xreallocarray(NULL, n, sizeof(*trial));
	uint32_t t;
	bool all = true;

	memcpy(trial, caps, n * sizeof(*trial));
	for (t = 0; t < j->ntasks; t++) {
		long b = best_node(trial, n, j);

		if (b < 0) {
			all = false;
			break;
		}
		trial[b].cpu -= j->cpu_milli;
		trial[b].mem -= j->mem_mb;
		trial[b].gpus -= j->gpus;
		task_node[t] = (uint32_t)b;
	}
	if (all)
		memcpy(caps, trial, n * sizeof(*trial));
	free(trial);
	return all;
}

void
kai_sched_plan(const struct kai_sched_input *in, struct kai_sched_output *out)
{
	const struct kai_sched_job **order;
	struct cap *caps;
	bool any_node = false, blocked = false;
	size_t i;

	out->n = in->njobs;
	out->nplaced = 0;
	out->decisions = kai_xcalloc(in->njobs, sizeof(*out->decisions));
	caps = kai_xcalloc(in->nnodes, sizeof(*caps));
	for (i = 0; i < in->nnodes; i++) {
		caps[i].cpu = in->nodes[i].cpu_free_milli;
		caps[i].mem = in->nodes[i].mem_free_mb;
		caps[i].gpus = in->nodes[i].gpus_free;
		caps[i].ok = in->nodes[i].schedulable;
		any_node |= caps[i].ok;
	}
	order = kai_xcalloc(in->njobs, sizeof(*order));
	for (i = 0; i < in->njobs; i++)
		order[i] = &in->jobs[i];
	qsort(order, in->njobs, sizeof(*order), job_order);

	for (i = 0; i < in->njobs; i++) {
		const struct kai_sched_job *j = order[i];
		struct kai_sched_decision *d = &out->decisions[i];
		uint32_t ntasks = j->ntasks > 0 ? j->ntasks : 1;

		d->job_id = j->id;
		if (j->hold) {
			d->reason = KAI_SCHED_WAIT_HELD;
			continue;
		}
		if (!any_node) {
			d->reason = KAI_SCHED_WAIT_NO_NODES;
			continue;
		}
		if (!ever_fits(in, j)) {
			d->reason = KAI_SCHED_WAIT_NEVER_FITS;
			continue;
		}
		d->task_node = kai_xcalloc(ntasks, sizeof(*d->task_node));
		d->ntasks = ntasks;
		if (place(caps, in->nnodes, j, d->task_node)) {
			d->reason = KAI_SCHED_PLACED;
			out->nplaced++;
			continue;
		}
		KAI_FREE(d->task_node);
		d->ntasks = 0;
		d->reason = blocked ? KAI_SCHED_WAIT_PRIORITY :
		    KAI_SCHED_WAIT_RESOURCES;
		blocked = true;
	}
	free(order);
	free(caps);
}

void
kai_sched_output_fini(struct kai_sched_output *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		free(out->decisions[i].task_node);
	KAI_FREE(out->decisions);
	out->n = out->nplaced = 0;
}

const char *
kai_sched_reason_name(enum kai_sched_reason r)
{
	switch (r) {
	case KAI_SCHED_PLACED:
		return "None";
	case KAI_SCHED_WAIT_HELD:
		return "JobHeldUser";
	case KAI_SCHED_WAIT_RESOURCES:
		return "Resources";
	case KAI_SCHED_WAIT_PRIORITY:
		return "Priority";
	case KAI_SCHED_WAIT_NEVER_FITS:
		return "ReqNodeNotAvail";
	case KAI_SCHED_WAIT_NO_NODES:
		return "Nodes_not_ready";
	}
	return "None";
}
