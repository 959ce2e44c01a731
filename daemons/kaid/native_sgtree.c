/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_sgtree.c: a gang's subgroup tree, as KAI writes it on a
 * PodGroup (spec.subGroups, v2alpha2) or as KAI's pod grouper derives it
 * from a top owner that has none (doc/k8s-native.md, "Subgroups";
 * ../shared/reference/kai-k8s-native.md section 2):
 *
 *	JobSet           the root needs every replicated job (1 with
 *	                 startupPolicyOrder InOrder, its batch-min-member
 *	                 when it has one), a parent per
 *	                 replicated job needs all its replicas, a leaf
 *	                 "<rj>-replica-<i>" takes parallelism pods
 *	PyTorchJob       "master" (its replicas) and "worker" (minAvailable
 *	                 less the master, else its replicas)
 *	RayCluster       "headgroup" (1) and one per worker group (its
 *	                 minReplicas, else replicas, times numOfHosts)
 *	LeaderWorkerSet  "leader" (1) and "workers" (size - 1), per group
 *
 * A pod finds its leaf by its subgroup (kube_podparse.c: KAI's label,
 * else its operator's labels).  NULL means no tree: the gang is flat.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/native.h"

#define TREE_MAX 4096 /* KAI_SCHED_MAX_SUBGROUPS: larger trees go flat */

static uint32_t
u32(int64_t v)
{
	return v <= 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* PodGroup: its subGroups, parents put before their children. */
static struct kai_sgtree *
pg_tree(const struct kai_kube_obj *o)
{
	size_t n = kai_kube_obj_len(o, "spec.subGroups"), i, added = 0;
	struct kai_sgtree *t;
	bool *done, more = true;
	char path[96];

	if (n == 0 || n > TREE_MAX)
		return NULL;
	t = kai_sgtree_new();
	t->min_subgroup = u32(native_int_or(o, "spec.minSubGroup", 0));
	done = kai_xcalloc(n, sizeof(*done));
	while (more && added < n) {
		more = false;
		for (i = 0; i < n; i++) {
			const char *name, *parent, *req, *pref;
			int32_t p = -1;

			if (done[i])
				continue;
#define SG(field) ((void)snprintf(path, sizeof(path), \
    "spec.subGroups.%zu." field, i), path)
			name = kai_kube_obj_str(o, SG("name"));
			parent = kai_kube_obj_str(o, SG("parent"));
			if (name == NULL || name[0] == '\0' ||
			    kai_sgtree_find(t, name) >= 0) {
				done[i] = true; /* nameless or twice: none */
				added++;
				continue;
			}
			if (parent != NULL && parent[0] != '\0' &&
			    (p = kai_sgtree_find(t, parent)) < 0)
				continue; /* its parent is not in yet */
			req = kai_kube_obj_str(o,
			    SG("topologyConstraint.requiredTopologyLevel"));
			pref = kai_kube_obj_str(o,
			    SG("topologyConstraint.preferredTopologyLevel"));
			(void)kai_sgtree_add(t, name, p,
			    u32(native_int_or(o, SG("minMember"), 0)),
			    u32(native_int_or(o, SG("minSubGroup"), 0)), req,
			    pref);
#undef SG
			done[i] = true;
			added++;
			more = true;
		}
	}
	free(done);
	if (added < n || t->len == 0) { /* an unknown parent, a cycle */
		kai_sgtree_free(t);
		return NULL;
	}
	return t;
}

static struct kai_sgtree *
jobset_tree(const struct kai_kube_obj *o)
{
	size_t n = kai_kube_obj_len(o, "spec.replicatedJobs"), i;
	const char *order = kai_kube_obj_str(o,
	    "spec.startupPolicy.startupPolicyOrder");
	struct kai_sgtree *t;
	int64_t total = 0, bm;
	char path[96];

	if (n == 0)
		return NULL;
	t = kai_sgtree_new();
	t->min_subgroup = order != NULL && strcmp(order, "InOrder") == 0
	    ? 1 : (uint32_t)n;
	/* kai.scheduler/batch-min-member on the JobSet: that many of its
	 * replicated jobs (at most all), as KAI's grouper reads it. */
	if ((bm = native_batch_min(o)) > 0)
		t->min_subgroup = bm < (int64_t)n ? (uint32_t)bm : (uint32_t)n;
	for (i = 0; i < n; i++) {
		const char *rj;
		int64_t reps, par, r;
		int32_t p;

		(void)snprintf(path, sizeof(path),
		    "spec.replicatedJobs.%zu.name", i);
		rj = kai_kube_obj_str(o, path);
		(void)snprintf(path, sizeof(path),
		    "spec.replicatedJobs.%zu.replicas", i);
		reps = native_int_or(o, path, 1);
		(void)snprintf(path, sizeof(path),
		    "spec.replicatedJobs.%zu.template.spec.parallelism", i);
		par = native_int_or(o, path, 1);
		total += 1 + (reps > 0 ? reps : 0);
		if (rj == NULL || rj[0] == '\0' || reps <= 0 || par <= 0 ||
		    total > TREE_MAX || kai_sgtree_find(t, rj) >= 0) {
			kai_sgtree_free(t);
			return NULL;
		}
		p = (int32_t)kai_sgtree_add(t, rj, -1, 0, u32(reps), NULL,
		    NULL);
		for (r = 0; r < reps; r++) {
			char *leaf = kai_xasprintf("%s-replica-%" PRId64, rj, r);

			(void)kai_sgtree_add(t, leaf, p, u32(par), 0, NULL,
			    NULL);
			free(leaf);
		}
	}
	return t;
}

static struct kai_sgtree *
pytorch_tree(const struct kai_kube_obj *o)
{
	int64_t master = native_int_or(o,
		    "spec.pytorchReplicaSpecs.Master.replicas", 0),
		worker = native_int_or(o,
		    "spec.pytorchReplicaSpecs.Worker.replicas", 0),
		min;
	struct kai_sgtree *t;

	if (kai_kube_obj_int(o, "spec.runPolicy.schedulingPolicy.minAvailable",
		&min) == 0 &&
	    min > master)
		worker = min - master;
	if (master <= 0 || worker <= 0)
		return NULL; /* one kind of replica: the flat gang is it */
	t = kai_sgtree_new();
	(void)kai_sgtree_add(t, "master", -1, u32(master), 0, NULL, NULL);
	(void)kai_sgtree_add(t, "worker", -1, u32(worker), 0, NULL, NULL);
	return t;
}

static struct kai_sgtree *
ray_tree(const struct kai_kube_obj *o)
{
	size_t n = kai_kube_obj_len(o, "spec.workerGroupSpecs"), i;
	struct kai_sgtree *t = kai_sgtree_new();
	char path[96];

	(void)kai_sgtree_add(t, "headgroup", -1, 1, 0, NULL, NULL);
	for (i = 0; i < n && i < 256; i++) {
		const char *g;
		int64_t reps, hosts;

		(void)snprintf(path, sizeof(path),
		    "spec.workerGroupSpecs.%zu.groupName", i);
		g = kai_kube_obj_str(o, path);
		(void)snprintf(path, sizeof(path),
		    "spec.workerGroupSpecs.%zu.minReplicas", i);
		if ((reps = native_int_or(o, path, 0)) <= 0) {
			(void)snprintf(path, sizeof(path),
			    "spec.workerGroupSpecs.%zu.replicas", i);
			reps = native_int_or(o, path, 0);
		}
		(void)snprintf(path, sizeof(path),
		    "spec.workerGroupSpecs.%zu.numOfHosts", i);
		hosts = native_int_or(o, path, 1);
		if (g == NULL || g[0] == '\0' || kai_sgtree_find(t, g) >= 0) {
			kai_sgtree_free(t);
			return NULL;
		}
		(void)kai_sgtree_add(t, g, -1,
		    u32(reps > 0 && hosts > 0 ? reps * hosts : 0), 0, NULL,
		    NULL);
	}
	return t;
}

static struct kai_sgtree *
lws_tree(const struct kai_kube_obj *o)
{
	int64_t size = native_int_or(o, "spec.leaderWorkerTemplate.size", 1);
	struct kai_sgtree *t;

	if (size <= 1)
		return NULL;
	t = kai_sgtree_new();
	(void)kai_sgtree_add(t, "leader", -1, 1, 0, NULL, NULL);
	(void)kai_sgtree_add(t, "workers", -1, u32(size - 1), 0, NULL, NULL);
	return t;
}

struct kai_sgtree *
native_gang_tree(const char *kind, const struct kai_kube_obj *o)
{
	if (o == NULL)
		return NULL;
	if (strcmp(kind, "PodGroup") == 0)
		return pg_tree(o);
	if (strcmp(kind, "JobSet") == 0)
		return jobset_tree(o);
	if (strcmp(kind, "PyTorchJob") == 0)
		return pytorch_tree(o);
	if (strcmp(kind, "RayCluster") == 0)
		return ray_tree(o);
	if (strcmp(kind, "LeaderWorkerSet") == 0)
		return lws_tree(o);
	return NULL;
}

uint32_t
native_tree_size(const struct kai_sgtree *t)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < t->len; i++)
		if (kai_sgtree_leaf(t, i))
			sum += t->n[i].min_member;
	return sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}
