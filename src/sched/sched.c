/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched.c: kai_sched_plan(), kaid's first scheduler API, as a thin
 * adapter over the core (sched_model.h).
 *
 * kaid gives the free capacity of each node and its pending jobs; the
 * adapter turns that into a snapshot with one unlimited default queue,
 * runs the allocate phase only (binpack, whole GPUs, CPU and memory) and
 * maps the result back.  GPUs other pods hold become the node's held
 * GPUs; the free CPU and memory become its capacity, since kaid does not
 * say which pods use them.  The jobs are handed to the core already in
 * plan order (priority, then submit time, then id), which inside one
 * queue is also the core's own job order, so the decisions come out in
 * the order kaid has always seen.
 */
#include "config.h"

#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_model.h"

static int
plan_order(const void *a, const void *b)
{
	const struct kai_sched_job *x = *(const struct kai_sched_job *const *)a;
	const struct kai_sched_job *y = *(const struct kai_sched_job *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void
snap_nodes(const struct kai_sched_input *in, struct kai_sched_snap_node *sn)
{
	size_t i;

	for (i = 0; i < in->nnodes; i++) {
		const struct kai_sched_node *n = &in->nodes[i];
		uint32_t total = n->gpus_total, free_ = n->gpus_free;

		if (total > KAI_SCHED_MAX_NODE_GPUS)
			total = KAI_SCHED_MAX_NODE_GPUS;
		if (free_ > total)
			free_ = total;
		sn[i].name = n->name;
		sn[i].gpus = total;
		sn[i].held_gpus = total - free_;
		sn[i].cpu_millis =
		    n->cpu_free_milli > 0 ? n->cpu_free_milli : 0;
		sn[i].memory_mib = n->mem_free_mb > INT64_MAX / 2
		    ? INT64_MAX / 2
		    : (int64_t)n->mem_free_mb;
		sn[i].unschedulable = !n->schedulable;
	}
}

static void
snap_job(const struct kai_sched_job *j, size_t first,
    struct kai_sched_snap_job *sj, struct kai_sched_snap_task *st)
{
	uint32_t ntasks = j->ntasks > 0 ? j->ntasks : 1, t;

	kai_sched_job_init(sj);
	sj->name = "job";
	sj->priority = j->priority;
	sj->held = j->hold;
	sj->created = j->submit_time;
	sj->first_task = first;
	sj->ntasks = ntasks;
	for (t = 0; t < ntasks; t++) {
		kai_sched_task_init(&st[t]);
		st[t].gpus = j->gpus;
		st[t].cpu_millis = j->cpu_milli > 0 ? j->cpu_milli : 0;
		st[t].memory_mib = j->mem_mb > INT64_MAX / 2
		    ? INT64_MAX / 2
		    : (int64_t)j->mem_mb;
	}
}

static enum kai_sched_reason
reason(const struct kai_sched_job_out *o)
{
	if (o->state == KAI_SCHED_JOB_RUNNING)
		return KAI_SCHED_PLACED;
	switch (o->why.why) {
	case KAI_SCHED_WHY_HELD:
		return KAI_SCHED_WAIT_HELD;
	case KAI_SCHED_WHY_NO_NODES:
		return KAI_SCHED_WAIT_NO_NODES;
	case KAI_SCHED_WHY_NEVER_FITS:
		return KAI_SCHED_WAIT_NEVER_FITS;
	case KAI_SCHED_WHY_PRIORITY:
		return KAI_SCHED_WAIT_PRIORITY;
	default:
		return KAI_SCHED_WAIT_RESOURCES;
	}
}

static void
decide(const struct kai_sched_snapshot *s, const struct kai_sched_result *r,
    const struct kai_sched_job *j, size_t k, struct kai_sched_decision *d)
{
	const struct kai_sched_snap_job *sj = &s->jobs[k];
	size_t t;

	d->job_id = j->id;
	d->reason = r != NULL ? reason(&r->jobs[k]) : KAI_SCHED_WAIT_RESOURCES;
	if (d->reason != KAI_SCHED_PLACED)
		return;
	d->ntasks = (uint32_t)sj->ntasks;
	d->task_node = kai_xcalloc(sj->ntasks, sizeof(*d->task_node));
	for (t = 0; t < sj->ntasks; t++)
		d->task_node[t] = (uint32_t)r->tasks[sj->first_task + t].node;
}

void
kai_sched_plan(const struct kai_sched_input *in, struct kai_sched_output *out)
{
	const struct kai_sched_job **order;
	struct kai_sched_snap_node *sn;
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job *sj;
	struct kai_sched_snap_task *st;
	struct kai_sched_snapshot s;
	struct kai_sched_result r;
	size_t i, nt = 0;
	int rc;

	memset(&s, 0, sizeof(s));
	kai_sched_config_init(&s.config);
	s.config.phases[0] = KAI_SCHED_ALLOCATE;
	s.config.nphases = 1;
	/* One queue for everything, guaranteeing and capping nothing. */
	kai_sched_queue_init(&q);
	q.name = "default";
	order = kai_xcalloc(in->njobs, sizeof(*order));
	for (i = 0; i < in->njobs; i++) {
		order[i] = &in->jobs[i];
		nt += in->jobs[i].ntasks > 0 ? in->jobs[i].ntasks : 1;
	}
	qsort(order, in->njobs, sizeof(*order), plan_order);
	sn = kai_xcalloc(in->nnodes, sizeof(*sn));
	sj = kai_xcalloc(in->njobs, sizeof(*sj));
	st = kai_xcalloc(nt, sizeof(*st));
	snap_nodes(in, sn);
	for (i = 0, nt = 0; i < in->njobs; i++) {
		snap_job(order[i], nt, &sj[i], &st[nt]);
		nt += sj[i].ntasks;
	}
	s.nodes = sn;
	s.nnodes = in->nnodes;
	s.queues = &q;
	s.nqueues = 1;
	s.jobs = sj;
	s.njobs = in->njobs;
	s.tasks = st;
	s.ntasks = nt;
	s.now = in->now;
	/* Only a duplicate node name can fail; then nothing is placed. */
	rc = kai_sched_cycle(&s, &r, NULL);
	out->n = in->njobs;
	out->nplaced = 0;
	out->decisions = kai_xcalloc(in->njobs, sizeof(*out->decisions));
	for (i = 0; i < in->njobs; i++) {
		decide(&s, rc == 0 ? &r : NULL, order[i], i,
		    &out->decisions[i]);
		out->nplaced += out->decisions[i].reason == KAI_SCHED_PLACED;
	}
	if (rc == 0)
		kai_sched_result_fini(&r);
	free(order);
	free(sn);
	free(sj);
	free(st);
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
