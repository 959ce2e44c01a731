/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * state.c: kaid's caches: the active jobs (from PostgreSQL), and the nodes
 * and pods (from the Kubernetes watches).
 *
 * Jobs are kept in an array sorted by id: ids only grow, so an insertion
 * is an append, and a lookup is a binary search.  Nodes and pods are hash
 * maps by name, rebuilt from scratch whenever a watch relists (RESET ...
 * SYNCED); until both watches have synced, kaid places nothing and
 * concludes nothing from a pod's absence (reconcile fails closed).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "daemons/kaid/native.h"
#include "sys/log.h"
#include "tick.h"

/* The active jobs, sorted by id: kaid's cache of them. */
struct jobtab {
	struct kai_job **v;
	size_t n;
	size_t cap;
};

void
state_init(struct kaid *k)
{
	k->jobs = kai_xcalloc(1, sizeof(*k->jobs));
}

void
state_free(struct kaid *k)
{
	size_t i;

	if (k->jobs == NULL)
		return;
	for (i = 0; i < k->jobs->n; i++) {
		kai_job_fini(k->jobs->v[i]);
		free(k->jobs->v[i]);
	}
	free(k->jobs->v);
	KAI_FREE(k->jobs);
}

size_t
state_njobs(const struct kaid *k)
{
	return k->jobs->n;
}

struct kai_job *
state_job_at(const struct kaid *k, size_t i)
{
	KAI_ASSERT(i < k->jobs->n);
	return k->jobs->v[i];
}

static size_t
job_index(const struct kaid *k, uint64_t id, bool *found)
{
	size_t lo = 0, hi = k->jobs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->jobs->v[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < k->jobs->n && k->jobs->v[lo]->id == id;
	return lo;
}

size_t
state_job_from(const struct kaid *k, uint64_t id)
{
	bool found;

	return job_index(k, id, &found);
}

struct kai_job *
state_job(const struct kaid *k, uint64_t id)
{
	bool found;
	size_t i = job_index(k, id, &found);

	return found ? k->jobs->v[i] : NULL;
}

void
state_job_add(struct kaid *k, struct kai_job *job)
{
	bool found;
	size_t i = job_index(k, job->id, &found);

	KAI_ASSERT(!found);
	if (k->jobs->n == k->jobs->cap) {
		k->jobs->cap = k->jobs->cap ? k->jobs->cap * 2 : 1024;
		k->jobs->v = kai_xreallocarray(k->jobs->v, k->jobs->cap,
		    sizeof(*k->jobs->v));
	}
	memmove(&k->jobs->v[i + 1], &k->jobs->v[i],
	    (k->jobs->n - i) * sizeof(*k->jobs->v));
	k->jobs->v[i] = job;
	k->jobs->n++;
}

bool
state_job_move(struct kai_job *j, enum kai_job_state to)
{
	if (!kai_jobstate_can_move(j->state, to)) {
		kai_log_err("job %" PRIu64 ": %s -> %s is not in the transition "
		    "table, refused (a bug)", j->id,
		    kai_jobstate_name(j->state), kai_jobstate_name(to));
		return false;
	}
	j->state = to;
	return true;
}

void
state_job_remove(struct kaid *k, uint64_t id)
{
	bool found;
	size_t i = job_index(k, id, &found);

	if (!found)
		return;
	kai_job_fini(k->jobs->v[i]);
	free(k->jobs->v[i]);
	memmove(&k->jobs->v[i], &k->jobs->v[i + 1],
	    (k->jobs->n - i - 1) * sizeof(*k->jobs->v));
	k->jobs->n--;
}

bool
state_job_elastic(const struct kai_job *j)
{
	return j->min_tasks > 0 && j->min_tasks < j->ntasks;
}

bool
state_job_matches(const struct kai_job *j, const uint64_t *ids, size_t nids,
    const uint32_t *uids, size_t nuids, char *const *queues, size_t nqueues,
    uint32_t state_mask)
{
	size_t i;

	if (state_mask != 0 &&
	    (state_mask & KAI_JOB_STATE_BIT(j->state)) == 0)
		return false;
	for (i = 0; i < nids && ids[i] != j->id &&
	    ids[i] != j->array_job_id; i++) /* "123" names its tasks too */
		;
	if (nids > 0 && i == nids)
		return false;
	for (i = 0; i < nuids && uids[i] != j->uid; i++)
		;
	if (nuids > 0 && i == nuids)
		return false;
	for (i = 0; i < nqueues && strcmp(queues[i], j->queue) != 0; i++)
		;
	return nqueues == 0 || i < nqueues;
}

char *
state_nodelist(const struct kai_alloc *allocs, size_t n)
{
	struct kai_buf b;
	size_t t, u;

	kai_buf_init(&b, 1 << 20);
	for (t = 0; t < n; t++) {
		for (u = 0; u < t; u++)
			if (strcmp(allocs[u].node, allocs[t].node) == 0)
				break;
		if (u == t && kai_buf_addf(&b, "%s%s", b.len ? "," : "",
		    allocs[t].node) != 0)
			break;
	}
	return kai_buf_detach(&b, NULL);
}

bool
state_synced(const struct kaid *k)
{
	return k->nodes_synced && k->pods_synced;
}

void
node_free(void *p)
{
	struct kai_node *n = p;
	size_t i;

	if (n == NULL)
		return;
	free(n->name);
	free(n->gpu_product);
	free(n->taint);
	for (i = 0; i < n->nlabels; i++)
		free(n->labels[i]);
	free(n->labels);
	for (i = 0; i < n->ntaints; i++)
		free(n->taints[i]);
	free(n->taints);
	free(n);
}

static struct kai_node *
node_dup(const struct kai_node *src)
{
	struct kai_node *n = kai_xcalloc(1, sizeof(*n));
	size_t i;

	*n = *src;
	n->name = kai_xstrdup(src->name);
	n->gpu_product = kai_xstrdup(src->gpu_product != NULL ?
	    src->gpu_product : "");
	n->taint = kai_xstrdup(src->taint != NULL ? src->taint : "");
	n->labels = kai_xcalloc(src->nlabels, sizeof(*n->labels));
	for (i = 0; i < src->nlabels; i++)
		n->labels[i] = kai_xstrdup(src->labels[i]);
	n->taints = kai_xcalloc(src->ntaints + 1, sizeof(*n->taints));
	for (i = 0; i < src->ntaints; i++)
		n->taints[i] = kai_xstrdup(src->taints[i]);
	return n;
}

void
state_on_node(enum kai_kube_event ev, const struct kai_node *node, void *ctx)
{
	struct kaid *k = ctx;
	int64_t now = kaid_now();	/* the event's arrival */

	switch (ev) {
	case KAI_KUBE_RESET:
		kai_map_fini(&k->nodes);
		kai_map_init(&k->nodes, node_free);
		k->nodes_synced = false;
		break;
	case KAI_KUBE_ADDED:
	case KAI_KUBE_MODIFIED:
		kai_map_put(&k->nodes, node->name, node_dup(node));
		break;
	case KAI_KUBE_DELETED:
		kai_map_del(&k->nodes, node->name);
		if (k->nodes_synced)
			reconcile_node_gone(k, node->name, now);
		break;
	case KAI_KUBE_SYNCED:
		if (!k->nodes_synced)
			kai_log_info("node list synced: %zu nodes", k->nodes.len);
		k->nodes_synced = true;
		reconcile_synced(k, now);
		tick_soon(k);
		break;
	}
}

void
pod_rec_free(void *p)
{
	struct pod_rec *r = p;

	if (r == NULL)
		return;
	free(r->node);
	free(r->uid);
	free(r->term_reason);
	free(r->term_message);
	free(r->reason);
	free(r->message);
	free(r->wait_reason);
	free(r->queue);
	free(r->subgroup);
	free(r->share_cm);
	free(r);
}

static char *
dup_or_empty(const char *s)
{
	return kai_xstrdup(s != NULL ? s : "");
}

static struct pod_rec *
pod_rec_new(const struct kai_pod *p)
{
	struct pod_rec *r = kai_xcalloc(1, sizeof(*r));

	r->node = dup_or_empty(p->node);
	r->uid = dup_or_empty(p->uid);
	r->phase = p->phase;
	r->managed = p->managed;
	r->job_id = p->job_id;
	r->task = p->task;
	r->terminated = p->terminated;
	r->exit_code = p->exit_code;
	r->term_reason = dup_or_empty(p->term_reason);
	r->finished_at = p->finished_at;
	r->started_at = p->started_at;
	r->term_message = dup_or_empty(p->term_message);
	r->reason = dup_or_empty(p->reason);
	r->message = dup_or_empty(p->message);
	r->waiting_error = p->waiting_error;
	r->wait_reason = dup_or_empty(p->wait_reason);
	r->deleting = p->deleting;
	r->cpu_milli = p->cpu_milli;
	r->mem_mb = p->mem_mb;
	r->gpus = p->gpus;
	r->queue = dup_or_empty(p->queue);
	r->subgroup = dup_or_empty(p->subgroup);
	r->gpu_mask = p->gpu_mask;
	r->gpu_share = p->gpu_share;
	r->share_cm = dup_or_empty(p->share.configmap);
	return r;
}

/*
 * kaid's own pods are known by name (the name is derived from the job);
 * pods of other namespaces only hold capacity and are keyed "ns/name" so
 * that they can never be taken for one of ours.
 */
static char *
pod_key(const struct kaid *k, const struct kai_pod *pod, bool *ours)
{
	*ours = pod->namespace != NULL &&
	    strcmp(pod->namespace, kai_kube_namespace(k->kube)) == 0;
	if (*ours)
		return kai_xstrdup(pod->name);
	return kai_xasprintf("%s/%s", pod->namespace != NULL ?
	    pod->namespace : "", pod->name);
}

/*
 * A foreign pod that is a workload's (native.c) is followed as kaid's
 * own: its record carries the job's id and its task (NATIVE_NO_TASK for
 * a gang member not yet placed).
 */
static void
native_follow(struct kaid *k, const char *key, const struct kai_pod *pod,
    struct pod_rec *r, int64_t now)
{
	uint32_t task = 0;
	struct kai_job *j = native_pod(k, key, pod, now, &task);

	if (j == NULL)
		return;
	r->managed = true;
	r->job_id = j->id;
	r->task = task;
}

void
state_native_retry(struct kaid *k, const char *key, const struct kai_pod *pod,
    int64_t now)
{
	struct pod_rec *r = kai_map_get(&k->pods, key);

	/* Gone, or a job's already, since it began to wait: nothing to do. */
	if (r == NULL || r->managed) {
		native_forget(k, key);
		return;
	}
	native_follow(k, key, pod, r, now);
}

void
state_on_pod(enum kai_kube_event ev, const struct kai_pod *pod, void *ctx)
{
	struct kaid *k = ctx;
	int64_t now = kaid_now();	/* the event's arrival */
	struct pod_rec *r, *old;
	char *key = NULL;
	bool ours = false;

	if (pod != NULL)
		key = pod_key(k, pod, &ours);

	switch (ev) {
	case KAI_KUBE_RESET:
		kai_map_fini(&k->pods);
		kai_map_init(&k->pods, pod_rec_free);
		k->pods_synced = false;
		dispatch_watch_reset(k);
		break;
	case KAI_KUBE_ADDED:
	case KAI_KUBE_MODIFIED:
		r = pod_rec_new(pod);
		/* A delete kaid sent may not show yet (an eviction marks the
		 * pod first, and that change comes back before the delete):
		 * the pod stays deleting, or it would be deleted twice. */
		old = kai_map_get(&k->pods, key);
		if (old != NULL && old->deleting)
			r->deleting = true;
		r->managed &= ours;
		if (!r->managed)
			native_follow(k, key, pod, r, now);
		kai_map_put(&k->pods, key, r);
		/* A workload's pod is bound by kaid too (native.c): its
		 * name may come again (a StatefulSet's), bound anew. */
		if (ours || r->managed)
			dispatch_pod_seen(k, key, r->node[0] != '\0');
		if (r->managed)
			reconcile_pod(k, key, r, false, now);
		break;
	case KAI_KUBE_DELETED:
		dispatch_pod_seen(k, key, true);
		r = pod_rec_new(pod);
		r->managed &= ours;
		if (!r->managed)
			native_follow(k, key, pod, r, now);
		if (r->managed)
			reconcile_pod(k, key, r, true, now);
		pod_rec_free(r);
		kai_map_del(&k->pods, key);
		native_forget(k, key);	/* nothing to wait for now */
		break;
	case KAI_KUBE_SYNCED:
		if (!k->pods_synced)
			kai_log_info("pod list synced: %zu pods", k->pods.len);
		k->pods_synced = true;
		reconcile_synced(k, now);
		tick_soon(k);
		break;
	}
	free(key);
}
