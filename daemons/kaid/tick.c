/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tick.c: the scheduler tick (the serverCron of kaid).
 *
 * Each tick: take the free capacity of every node (allocatable minus what
 * live pods hold, ours and others', minus placements whose pods do not
 * exist yet), hand it with the pending jobs to the pure core, commit the
 * placements to PostgreSQL as intent (state CONFIGURING, allocation rows,
 * pod names) in one transaction, and only then create the pods.  Nothing
 * is placed while the watches are not synced: kaid does not act on a
 * cluster it cannot see.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sched/sched.h"
#include "sys/log.h"

#define TICK_SOON_MS 20

static bool
pod_holds_capacity(const struct pod_rec *r)
{
	return r->node[0] != '\0' && r->phase != KAI_POD_SUCCEEDED &&
	    r->phase != KAI_POD_FAILED;
}

static long
node_index(const struct kai_sched_node *nodes, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

static void
take(struct kai_sched_node *n, int64_t cpu, uint64_t mem, uint32_t gpus)
{
	n->cpu_free_milli -= cpu;
	n->mem_free_mb = n->mem_free_mb > mem ? n->mem_free_mb - mem : 0;
	n->gpus_free = n->gpus_free > gpus ? n->gpus_free - gpus : 0;
}

/* Builds the nodes of the snapshot; caller frees the array. */
static struct kai_sched_node *
snapshot_nodes(struct kaid *k, size_t *nn)
{
	struct kai_sched_node *nodes;
	const char *key;
	void *v;
	size_t it = 0, n = 0, i, t;

	nodes = kai_xcalloc(k->nodes.len, sizeof(*nodes));
	while (kai_map_next(&k->nodes, &it, &key, &v)) {
		const struct kai_node *nd = v;

		nodes[n].name = nd->name;
		nodes[n].cpu_free_milli = nd->cpu_milli;
		nodes[n].mem_free_mb = nd->mem_mb;
		nodes[n].gpus_free = nd->gpus;
		nodes[n].gpus_total = nd->gpus;
		nodes[n].schedulable = nd->ready && !nd->unschedulable;
		n++;
	}
	it = 0;
	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *r = v;
		long ni;

		if (!pod_holds_capacity(r) ||
		    (ni = node_index(nodes, n, r->node)) < 0)
			continue;
		take(&nodes[ni], r->cpu_milli, r->mem_mb, r->gpus);
	}
	/* Placements whose pods are not bound yet hold their share too. */
	for (i = 0; i < k->njobs; i++) {
		const struct kai_job *j = k->jobs[i];

		for (t = 0; t < j->nallocs; t++) {
			const struct kai_alloc *a = &j->allocs[t];
			const struct pod_rec *r = kai_map_get(&k->pods, a->pod);
			long ni;

			if ((r != NULL && r->node[0] != '\0') ||
			    (ni = node_index(nodes, n, a->node)) < 0)
				continue;
			take(&nodes[ni], (int64_t)a->cpus * 1000, a->mem_mb,
			    a->gpus);
		}
	}
	*nn = n;
	return nodes;
}

static void
set_reason(struct kai_job *j, const char *reason, const uint64_t **ids,
    const char ***reasons, size_t *n)
{
	if (strcmp(j->reason, reason) == 0)
		return;
	free(j->reason);
	j->reason = kai_xstrdup(reason);
	*ids = kai_xreallocarray((void *)*ids, *n + 1, sizeof(**ids));
	*reasons = kai_xreallocarray((void *)*reasons, *n + 1,
	    sizeof(**reasons));
	((uint64_t *)*ids)[*n] = j->id;
	(*reasons)[*n] = j->reason;
	(*n)++;
}

/* The allocation rows and change of one placed job. */
static void
placement_change(const struct kai_job *j, const struct kai_sched_decision *d,
    const struct kai_sched_node *nodes, struct kai_db_change *c,
    struct kai_alloc **allocs, char **nodelist)
{
	uint32_t t;

	*allocs = kai_xcalloc(d->ntasks, sizeof(**allocs));
	for (t = 0; t < d->ntasks; t++) {
		struct kai_alloc *a = &(*allocs)[t];
		const char *node = nodes[d->task_node[t]].name;

		a->task = t;
		a->node = kai_xstrdup(node);
		a->pod = state_pod_name(j->id, t);
		a->gpus = j->gpus_per_task;
		a->cpus = j->cpus_per_task;
		a->mem_mb = j->mem_mb;
	}
	*nodelist = state_nodelist(*allocs, d->ntasks);
	memset(c, 0, sizeof(*c));
	c->id = j->id;
	c->from = KAI_JOB_PENDING;
	c->to = KAI_JOB_CONFIGURING;
	c->reason = "";
	c->time = kaid_now();
	c->actor_uid = -1;
	c->nodelist = *nodelist;
	c->allocs = *allocs;
	c->nallocs = d->ntasks;
}

static void
commit_placements(struct kaid *k, const struct kai_sched_output *out,
    const struct kai_sched_node *nodes)
{
	struct kai_db_change *c = kai_xcalloc(out->nplaced, sizeof(*c));
	struct kai_alloc **allocs = kai_xcalloc(out->nplaced, sizeof(*allocs));
	char **nl = kai_xcalloc(out->nplaced, sizeof(*nl));
	bool *applied = kai_xcalloc(out->nplaced, sizeof(*applied));
	struct kai_job **jobs = kai_xcalloc(out->nplaced, sizeof(*jobs));
	struct kai_err err;
	size_t i, n = 0;

	for (i = 0; i < out->n; i++) {
		const struct kai_sched_decision *d = &out->decisions[i];

		if (d->reason != KAI_SCHED_PLACED)
			continue;
		jobs[n] = state_job(k, d->job_id);
		placement_change(jobs[n], d, nodes, &c[n], &allocs[n], &nl[n]);
		n++;
	}
	if (kai_db_jobs_change(k->db, c, n, applied, &err) != 0) {
		kai_log_err("could not commit %zu placements: %s", n, err.msg);
		for (i = 0; i < n; i++) {
			size_t t;

			for (t = 0; t < c[i].nallocs; t++)
				kai_alloc_fini(&allocs[i][t]);
			free(allocs[i]);
		}
	} else {
		for (i = 0; i < n; i++) {
			if (!applied[i]) {
				size_t t;

				for (t = 0; t < c[i].nallocs; t++)
					kai_alloc_fini(&allocs[i][t]);
				free(allocs[i]);
				continue;
			}
			jobs[i]->state = KAI_JOB_CONFIGURING;
			jobs[i]->allocs = allocs[i];
			jobs[i]->nallocs = c[i].nallocs;
			free(jobs[i]->reason);
			jobs[i]->reason = kai_xstrdup("");
			kai_log_info("job %" PRIu64 ": placed on %s",
			    jobs[i]->id, nl[i]);
			dispatch_ensure_pods(k, jobs[i]);
		}
	}
	for (i = 0; i < n; i++)
		free(nl[i]);
	free(nl);
	free(c);
	free(allocs);
	free(applied);
	free(jobs);
}

static void
tick_run(struct kaid *k)
{
	struct kai_sched_input in;
	struct kai_sched_output out;
	struct kai_sched_node *nodes;
	struct kai_sched_job *sj;
	const uint64_t *rids = NULL;
	const char **reasons = NULL;
	struct kai_err err;
	size_t i, nn, nj = 0, nr = 0;

	if (!state_synced(k))
		return;
	nodes = snapshot_nodes(k, &nn);
	sj = kai_xcalloc(k->njobs, sizeof(*sj));
	for (i = 0; i < k->njobs; i++) {
		const struct kai_job *j = k->jobs[i];

		if (j->state == KAI_JOB_CONFIGURING)
			dispatch_ensure_pods(k, k->jobs[i]);
		if (j->state != KAI_JOB_PENDING)
			continue;
		sj[nj].id = j->id;
		sj[nj].priority = j->priority;
		sj[nj].submit_time = j->submit_time;
		sj[nj].ntasks = j->ntasks;
		sj[nj].cpu_milli = (int64_t)j->cpus_per_task * 1000;
		sj[nj].mem_mb = j->mem_mb;
		sj[nj].gpus = j->gpus_per_task;
		sj[nj].hold = j->hold;
		nj++;
	}
	in.nodes = nodes;
	in.nnodes = nn;
	in.jobs = sj;
	in.njobs = nj;
	in.now = kaid_now();
	kai_sched_plan(&in, &out);
	for (i = 0; i < out.n; i++) {
		struct kai_job *j = state_job(k, out.decisions[i].job_id);

		if (out.decisions[i].reason != KAI_SCHED_PLACED)
			set_reason(j, kai_sched_reason_name(
			    out.decisions[i].reason), &rids, &reasons, &nr);
	}
	if (out.nplaced > 0)
		commit_placements(k, &out, nodes);
	if (nr > 0 && kai_db_jobs_set_reason(k->db, rids, reasons, nr,
	    &err) != 0)
		kai_log_warn("could not store pending reasons: %s", err.msg);
	kai_sched_output_fini(&out);
	free((void *)rids);
	free(reasons);
	free(sj);
	free(nodes);
}

static void
tick_timer(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;

	(void)id;
	k->tick_soon = false;
	tick_run(k);
	k->tick_timer = kai_loop_timer_add(loop, k->conf->sched_interval_ms,
	    tick_timer, k);
}

void
tick_start(struct kaid *k)
{
	k->tick_timer = kai_loop_timer_add(k->loop, k->conf->sched_interval_ms,
	    tick_timer, k);
}

void
tick_soon(struct kaid *k)
{
	if (k->tick_soon)
		return;
	k->tick_soon = true;
	kai_loop_timer_del(k->loop, k->tick_timer);
	k->tick_timer = kai_loop_timer_add(k->loop, TICK_SOON_MS, tick_timer, k);
}
