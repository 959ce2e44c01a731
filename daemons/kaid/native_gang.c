/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_gang.c: which pods of Kubernetes-native workloads form one gang
 * (one job of N tasks), after KAI's pod grouper (doc/k8s-native.md,
 * "Owners and gangs"; ../shared/reference/kai-k8s-native.md section 2).
 *
 * A pod's group is its PodGroup when it names one (annotation
 * pod-group-name), else its top owner's: the rule of the top owner's
 * kind says how many pods must run together (minMember).  A group of
 * one (a Deployment's pods, a batch/v1 Job without
 * kai.scheduler/batch-min-member, a bare pod) is no gang: each pod is a
 * one-task job, as before gangs.  A gang with a subgroup tree (a
 * PodGroup's, or the one KAI derives for a JobSet, a PyTorchJob, a
 * RayCluster, a LeaderWorkerSet: native_sgtree.c) takes each leaf's
 * minMember of the pods (native.c's join() caps them; the gang's size
 * is their sum), and keeps the tree for the scheduler (snap_tree.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/native.h"

int64_t
native_int_or(const struct kai_kube_obj *o, const char *path, int64_t dflt)
{
	int64_t v;

	return kai_kube_obj_int(o, path, &v) == 0 ? v : dflt;
}

int64_t
native_batch_min(const struct kai_kube_obj *o)
{
	const char *s = kai_kube_obj_annotation(o,
	    "kai.scheduler/batch-min-member");
	char *end;
	long v;

	if (s == NULL)
		s = kai_kube_obj_label(o, "kai.scheduler/batch-min-member");
	if (s == NULL)
		return 0;
	v = strtol(s, &end, 10);
	return *end == '\0' && end != s && v > 0 ? v : 0;
}

/* JobSet: every replicated job's replicas times its pods' parallelism. */
static int64_t
jobset_min(const struct kai_kube_obj *o)
{
	size_t i, n = kai_kube_obj_len(o, "spec.replicatedJobs");
	int64_t sum = 0, bm = native_batch_min(o);
	char path[96];

	for (i = 0; i < n && i < 1024; i++) {
		int64_t reps, par;

		(void)snprintf(path, sizeof(path),
		    "spec.replicatedJobs.%zu.replicas", i);
		reps = native_int_or(o, path, 1);
		(void)snprintf(path, sizeof(path),
		    "spec.replicatedJobs.%zu.template.spec.parallelism", i);
		par = native_int_or(o, path, 1);
		if (reps > 0 && par > 0)
			sum += reps * par;
	}
	return bm > 0 && bm < sum ? bm : sum;
}

/* PyTorchJob: minAvailable, else the sum of its replica specs. */
static int64_t
pytorch_min(const struct kai_kube_obj *o)
{
	const char *specs = "spec.pytorchReplicaSpecs";
	size_t i, n = kai_kube_obj_len(o, specs);
	int64_t sum = 0, v;
	char path[128];

	if (kai_kube_obj_int(o, "spec.runPolicy.schedulingPolicy.minAvailable",
	    &v) == 0 && v > 0)
		return v;
	for (i = 0; i < n && i < 64; i++) {
		const char *role = kai_kube_obj_key(o, specs, i);

		(void)snprintf(path, sizeof(path), "%s.%s.replicas", specs,
		    role);
		v = native_int_or(o, path, 1);
		if (v > 0)
			sum += v;
	}
	return sum;
}

/* RayCluster: the head and each worker group's minimum (else replicas). */
static int64_t
ray_min(const struct kai_kube_obj *o)
{
	size_t i, n = kai_kube_obj_len(o, "spec.workerGroupSpecs");
	int64_t sum = 1;
	char path[96];

	for (i = 0; i < n && i < 256; i++) {
		int64_t reps, hosts;

		(void)snprintf(path, sizeof(path),
		    "spec.workerGroupSpecs.%zu.minReplicas", i);
		reps = native_int_or(o, path, 0);
		if (reps <= 0) {
			(void)snprintf(path, sizeof(path),
			    "spec.workerGroupSpecs.%zu.replicas", i);
			reps = native_int_or(o, path, 0);
		}
		(void)snprintf(path, sizeof(path),
		    "spec.workerGroupSpecs.%zu.numOfHosts", i);
		hosts = native_int_or(o, path, 1);
		if (reps > 0 && hosts > 0)
			sum += reps * hosts;
	}
	return sum;
}

/*
 * A PodGroup's size: spec.minMember, else the sum of its leaf
 * subgroups' (KAI's podgrouper writes subgroups alone for a PyTorchJob
 * since v0.13: master and workers, each with its minMember).
 */
static int64_t
pg_min(const struct kai_kube_obj *o)
{
	struct kai_sgtree *t;
	int64_t v;

	if (kai_kube_obj_int(o, "spec.minMember", &v) == 0)
		return v;
	if ((t = native_gang_tree("PodGroup", o)) == NULL)
		return 0;
	v = native_tree_size(t);
	kai_sgtree_free(t);
	return v;
}

int64_t
native_gang_min(const char *kind, const struct kai_kube_obj *o)
{
	int64_t bm;

	if (strcmp(kind, "PodGroup") == 0)
		return pg_min(o);
	if (strcmp(kind, "Job") == 0)
		return (bm = native_batch_min(o)) > 0 ? bm : 1;
	/*
	 * A StatefulSet's controller makes pod N+1 only once pod N is ready
	 * (OrderedReady, the default): a gang of its replicas would wait
	 * for pods never made.  Only with podManagementPolicy Parallel are
	 * its replicas one gang.
	 */
	if (strcmp(kind, "StatefulSet") == 0) {
		const char *pol = kai_kube_obj_str(o,
		    "spec.podManagementPolicy");

		return pol != NULL && strcmp(pol, "Parallel") == 0 ?
		    native_int_or(o, "spec.replicas", 1) : 1;
	}
	if (strcmp(kind, "ReplicaSet") == 0)
		return native_int_or(o, "spec.replicas", 1);
	if (strcmp(kind, "JobSet") == 0)
		return jobset_min(o);
	if (strcmp(kind, "PyTorchJob") == 0)
		return pytorch_min(o);
	if (strcmp(kind, "RayCluster") == 0)
		return ray_min(o);
	if (strcmp(kind, "LeaderWorkerSet") == 0)
		return native_int_or(o, "spec.leaderWorkerTemplate.size", 1);
	return 0;	/* Deployment, a bare pod, any other kind: per pod */
}

void
native_group_fini(struct native_group *g)
{
	free(g->key);
	free(g->name);
	free(g->top_kind);
	free(g->subgroup);
	free(g->queue);
	free(g->prio_class);
	free(g->preempt);
	free(g->topo_req);
	free(g->topo_pref);
	kai_sgtree_free(g->tree);
	memset(g, 0, sizeof(*g));
}

/* The first of a, b, c that is set and not "". */
static char *
first_of(const char *a, const char *b, const char *c)
{
	if (a != NULL && a[0] != '\0')
		return kai_xstrdup(a);
	if (b != NULL && b[0] != '\0')
		return kai_xstrdup(b);
	return kai_xstrdup(c != NULL ? c : "");
}

/*
 * The name of a pod whose owners could not be read: its first owner's,
 * and a ReplicaSet's pod the Deployment's (a ReplicaSet is named
 * "<deployment>-<pod-template-hash>").
 */
static char *
unread_name(const struct kai_pod *pod)
{
	const char *dash;

	if (pod->owner_name == NULL || pod->owner_name[0] == '\0')
		return kai_xstrdup(pod->name);
	if (strcmp(pod->owner_kind, "ReplicaSet") == 0 &&
	    (dash = strrchr(pod->owner_name, '-')) != NULL &&
	    dash != pod->owner_name)
		return kai_xstrndup(pod->owner_name,
		    (size_t)(dash - pod->owner_name));
	return kai_xstrdup(pod->owner_name);
}

/*
 * The gang's tree, from its PodGroup or top owner: the gang takes each
 * leaf's minMember of the pods (their sum is its size), and the pod
 * belongs to the leaf its subgroup names.
 */
static void
tree_of(const struct kai_pod *pod, const struct native_owner *o,
    struct native_group *g, int64_t *min)
{
	int32_t i;

	/* A pod in no leaf (no label, an unknown name) joins the gang as
	 * a flat one, while it has room: a tree needs every member in a
	 * leaf (snap_tree.c). */
	if (o == NULL || o->tree == NULL || native_tree_size(o->tree) < 2 ||
	    (i = kai_sgtree_find(o->tree, pod->subgroup)) < 0 ||
	    !kai_sgtree_leaf(o->tree, (size_t)i))
		return;
	g->tree = kai_sgtree_dup(o->tree);
	*min = native_tree_size(o->tree);
	g->subgroup = kai_xstrdup(pod->subgroup);
	g->sg_min = o->tree->n[i].min_member;
}

void
native_group_make(const struct kai_pod *pod,
    const struct native_owner *const *chain, size_t n,
    const struct native_owner *pg, struct native_group *g)
{
	const struct native_owner *top = n > 0 ? chain[n - 1] : NULL;
	const char *lws = NULL;
	int64_t min = 0;

	memset(g, 0, sizeof(*g));
	if (top != NULL)
		g->top_kind = kai_xstrdup(top->kind);
	else if (pod->owner_kind[0] != '\0' &&
	    strcmp(pod->owner_kind, "ReplicaSet") == 0)
		g->top_kind = kai_xstrdup("Deployment"); /* by its name */
	else
		g->top_kind = kai_xstrdup(pod->owner_kind);
	if (pg != NULL) {
		min = pg->min_member;
		g->name = kai_xstrdup(pg->name);
		g->key = kai_xasprintf("%s/PodGroup:%s", pod->namespace,
		    pg->name);
	} else if (top != NULL) {
		min = top->min_member;
		g->name = kai_xstrdup(top->name);
		if (strcmp(top->kind, "LeaderWorkerSet") == 0)
			lws = pod->lws_group;	/* a gang per LWS group */
		g->key = lws != NULL ? kai_xasprintf("%s/%s:%s-group-%s",
		    pod->namespace, top->kind, top->name, lws) :
		    kai_xasprintf("%s/%s:%s", pod->namespace, top->kind,
			top->name);
	} else {
		g->name = unread_name(pod);
	}
	tree_of(pod, pg != NULL ? pg : top, g, &min);
	if (min <= 1)
		KAI_FREE(g->key);	/* no gang: the pod is its own job */
	g->min = min <= 1 ? 1 : min > UINT32_MAX ? UINT32_MAX : (uint32_t)min;
	g->queue = first_of(pg != NULL ? pg->queue : NULL,
	    top != NULL ? top->queue : NULL, pod->kai_queue);
	g->prio_class = first_of(pg != NULL ? pg->prio_class : NULL,
	    top != NULL ? top->prio_class : NULL, pod->prio_class);
	g->preempt = first_of(pg != NULL ? pg->preempt : NULL,
	    top != NULL ? top->preempt : NULL, pod->kai_preempt);
	g->topo_req = first_of(pg != NULL ? pg->topo_req : NULL,
	    top != NULL ? top->topo_req : NULL, NULL);
	g->topo_pref = first_of(pg != NULL ? pg->topo_pref : NULL,
	    top != NULL ? top->topo_pref : NULL, NULL);
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **
native_members(const struct kaid *k, const struct kai_job *j, size_t *n)
{
	const char **keys = kai_xcalloc(k->pods.len + 1, sizeof(*keys));
	const char *key;
	void *v;
	size_t it = 0;

	*n = 0;
	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *r = v;

		if (r->managed && r->job_id == j->id && r->node[0] == '\0' &&
		    !r->deleting && r->phase == KAI_POD_PENDING)
			keys[(*n)++] = key;
	}
	qsort(keys, *n, sizeof(*keys), by_key);
	return keys;
}
