/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaiqueue_status.c: a KAI Queue's status written back, as KAI's
 * queue-controller writes it (doc/k8s-native.md, "Status written
 * back"), when queues_source is kubernetes.
 *
 * KAI sums the resources of a queue's PodGroups and of its children's
 * statuses.  kaid sums its jobs, which are the queue's PodGroups and
 * batch jobs alike (one fair share): requested, what its active jobs ask
 * (pending and started: their tasks times each task's request);
 * allocated, what the started ones hold (their allocations);
 * allocatedNonPreemptible, that of the jobs that may not be preempted.
 * A parent's sums are its children's, and its childQueues their names
 * (the children in kaid's tree, by name: KAI's queue-controller lists
 * the Queues naming it as their parentQueue, and a Queue kaid refused is
 * no child in its tree).  Each tick the sums are made again
 * from the active jobs (a pass over them, with each queue's ancestors),
 * and a Queue's status is written (a PATCH of its status subresource)
 * only when they changed.  Only queues that are Queue objects are
 * written (a partition of kaid.yaml may not be one); a write that fails
 * is logged at info and waits for the next change; writes share the
 * PodGroups' bound (STATUS_INFLIGHT_MAX in flight).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/kaid.h"
#include "daemons/kaid/queues.h"
#include "sys/log.h"

#define QUEUE_API   "scheduling.run.ai/v2"
#define DEPTH_MAX   64	/* ancestors followed: a cycle cannot loop */

static void
res_add(struct kai_kube_res *to, const struct kai_kube_res *r)
{
	to->cpu_milli += r->cpu_milli;
	to->mem_mb += r->mem_mb;
	to->gpu_micro += r->gpu_micro;
}

/* What job j asks (all its tasks) and what its allocations hold. */
static void
job_res(const struct kai_job *j, struct kai_kube_res *req,
    struct kai_kube_res *alloc)
{
	size_t i;

	memset(req, 0, sizeof(*req));
	memset(alloc, 0, sizeof(*alloc));
	req->cpu_milli = (uint64_t)j->ntasks * j->cpus_per_task * 1000;
	req->mem_mb = (uint64_t)j->ntasks * j->mem_mb;
	req->gpu_micro = (uint64_t)j->ntasks * ((uint64_t)j->gpus_per_task *
	    1000000 + kai_job_share_micro(j->gpu_fraction, j->gpu_devices));
	if (j->state == KAI_JOB_PENDING)
		return;
	for (i = 0; i < j->nallocs; i++) {
		alloc->cpu_milli += (uint64_t)j->allocs[i].cpus * 1000;
		alloc->mem_mb += j->allocs[i].mem_mb;
		alloc->gpu_micro += kai_alloc_gpu_micro(&j->allocs[i]);
	}
}

/* Adds every active job to its queue and that queue's ancestors. */
static void
sum_jobs(const struct kaid *k, struct kai_kube_kai_status *st)
{
	struct kai_kube_res req, alloc;
	size_t i, d;
	long qi;

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);

		if (j->state != KAI_JOB_PENDING &&
		    j->state != KAI_JOB_CONFIGURING &&
		    j->state != KAI_JOB_RUNNING)
			continue;
		job_res(j, &req, &alloc);
		qi = queues_find(k, j->queue);
		for (d = 0; qi >= 0 && d < DEPTH_MAX; d++) {
			const struct kai_queue *q = queues_at(k, (size_t)qi);

			res_add(&st[qi].requested, &req);
			res_add(&st[qi].allocated, &alloc);
			if (!j->preemptible)
				res_add(&st[qi].allocated_np, &alloc);
			qi = q->parent != NULL ? queues_find(k, q->parent) :
			    -1;
		}
	}
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Points each st[i].children at queue i's children's names, sorted, in
 * the array returned (caller frees; the names are the tree's).
 */
static const char **
child_names(const struct kaid *k, struct kai_kube_kai_status *st, size_t n)
{
	const char **names = kai_xcalloc(n + 1, sizeof(*names));
	size_t *at = kai_xcalloc(n + 1, sizeof(*at)), i, pos = 0;
	long *pi = kai_xcalloc(n + 1, sizeof(*pi));

	for (i = 0; i < n; i++) {
		const char *parent = queues_at(k, i)->parent;

		pi[i] = parent != NULL ? queues_find(k, parent) : -1;
		if (pi[i] >= 0)
			st[pi[i]].nchildren++;
	}
	for (i = 0; i < n; i++) {
		at[i] = pos;
		pos += st[i].nchildren;
		st[i].nchildren = 0;
	}
	for (i = 0; i < n; i++)
		if (pi[i] >= 0)
			names[at[pi[i]] + st[pi[i]].nchildren++] =
			    queues_at(k, i)->name;
	for (i = 0; i < n; i++) {
		st[i].children = names + at[i];
		qsort(names + at[i], st[i].nchildren, sizeof(*names),
		    by_name);
	}
	free(at);
	free(pi);
	return names;
}

void
kaiqueues_status(struct kaid *k, int64_t now)
{
	struct kai_kube_kai_status *st;
	const char *key, **names;
	void *v;
	size_t i, n = queues_count(k), it = 0;

	if (!kaiqueues_in_charge(k) || k->kube == NULL)
		return;
	st = kai_xcalloc(n + 1, sizeof(*st));
	sum_jobs(k, st);
	names = child_names(k, st, n);
	for (i = 0; i < n; i++) {
		const char *name = queues_at(k, i)->name;
		char *sig, *was;

		if (!kaiqueues_has(k, name))
			continue;
		st[i].now = now;
		sig = kai_kube_kai_status_key(&st[i]);
		/* Unchanged, or no room now: the next tick sees it again. */
		if (((was = kai_map_get(&k->qstatus, name)) != NULL &&
		    strcmp(was, sig) == 0) ||
		    k->status_inflight >= STATUS_INFLIGHT_MAX) {
			free(sig);
			continue;
		}
		kai_map_put(&k->qstatus, name, sig);
		k->status_inflight++;
		kai_kube_object_patch_status(k->kube, QUEUE_API, "Queue", NULL,
		    name, kai_kube_kai_status_json(&st[i], false),
		    native_status_done, k);
	}
	/* Queues gone from the tree: nothing more to write for them. */
	while (kai_map_next(&k->qstatus, &it, &key, &v))
		if (queues_find(k, key) < 0)
			kai_map_del(&k->qstatus, key);
	free(names);
	free(st);
}
