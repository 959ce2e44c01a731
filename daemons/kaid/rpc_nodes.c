/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_nodes.c: kinfo, kctl show node and kctl show partition.
 *
 * Answered from memory, like kqueue's usual question: the node cache the
 * watch keeps, kaid's active jobs and their allocations, and the pod
 * cache; no database round trip.  What a node holds is counted the way
 * the tick's snapshot counts it: the tasks of kaid's placed jobs where
 * their allocations put them, and every other pod that is bound and not
 * finished at what it requests.
 *
 * A node's state uses sinfo's words.  down: the Kubernetes node is not
 * Ready.  drain (nothing on it) or drng (draining: jobs still on it):
 * cordoned (spec.unschedulable), or tainted NoSchedule / NoExecute with
 * no partition tolerating it.
 * Otherwise alloc when every GPU (on a GPU node) or every CPU is held,
 * mix when something is held, idle when nothing is.  A GPU node whose
 * GPUs are all taken is full for the users of a GPU cluster, even with
 * CPUs left, so it is alloc where Slurm, counting CPUs, would say mix.
 *
 * The partitions are the leaves of the queue tree, each with kaid.yaml's
 * time limits when it is one of its partitions.  Partitions are node
 * pools: a node serves the partitions whose nodeSelector it matches and
 * whose tolerations cover its NoSchedule and NoExecute taints (pools.c,
 * the scheduler's own rule), and each node says which ("*": all).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "proto/msg_tools.h"
#include "queues.h"
#include "sys/log.h"

static bool
job_placed(const struct kai_job *j)
{
	return j->state == KAI_JOB_CONFIGURING || j->state == KAI_JOB_RUNNING;
}

/* What kaid's placed jobs hold on node ni (and how many jobs). */
static void
count_jobs(const struct kaid *k, struct kai_nodeinfo *ni)
{
	size_t i, t;

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);
		bool here = false;

		if (!job_placed(j))
			continue;
		for (t = 0; t < j->nallocs; t++) {
			const struct kai_alloc *a = &j->allocs[t];

			if (strcmp(a->node, ni->name) != 0)
				continue;
			ni->gpus_alloc += (int64_t)a->gpus * KAI_QUEUE_GPU_UNIT;
			ni->cpu_alloc_milli += (int64_t)a->cpus * 1000;
			ni->mem_alloc_mb += a->mem_mb;
			here = true;
		}
		ni->jobs += here;
	}
}

/* Pods on the node that no placed task of kaid stands for. */
static void
count_pods(const struct kaid *k, struct kai_nodeinfo *ni)
{
	const struct kai_job *j;
	const char *key;
	void *v;
	size_t it = 0;

	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *r = v;

		if (strcmp(r->node, ni->name) != 0 ||
		    r->phase == KAI_POD_SUCCEEDED || r->phase == KAI_POD_FAILED)
			continue;
		if (r->managed && (j = state_job(k, r->job_id)) != NULL &&
		    job_placed(j) && r->task < j->nallocs)
			continue;
		ni->gpus_alloc += (int64_t)r->gpus * KAI_QUEUE_GPU_UNIT;
		ni->cpu_alloc_milli += r->cpu_milli;
		ni->mem_alloc_mb += r->mem_mb;
	}
}

/* served: some partition's pool takes it, its taints tolerated. */
static void
node_state(const struct kai_node *nd, bool served, struct kai_nodeinfo *ni)
{
	bool used = ni->gpus_alloc > 0 || ni->cpu_alloc_milli > 0;
	const char *st, *why = "";
	char *reason = NULL;

	if (!nd->ready) {
		st = "down";
		why = "Kubernetes node is not Ready";
	} else if (nd->unschedulable ||
	    (nd->taint != NULL && *nd->taint != '\0' && !served)) {
		st = used ? "drng" : "drain";
		if (nd->unschedulable)
			why = "cordoned (spec.unschedulable)";
		else
			reason = kai_xasprintf("taint %s", nd->taint);
	} else if ((ni->gpus > 0 && ni->gpus_alloc >= ni->gpus) ||
	    (ni->cpu_milli > 0 && ni->cpu_alloc_milli >= ni->cpu_milli)) {
		st = "alloc";
	} else {
		st = used ? "mix" : "idle";
	}
	ni->state = kai_xstrdup(st);
	ni->reason = reason != NULL ? reason : kai_xstrdup(why);
}

/*
 * The leaf queues (kinfo's partitions) nd is a node of, "a,b", or "*"
 * when it is one of every one's; *any: some partition's pods may go
 * there (else a NoSchedule or NoExecute taint drains it).
 */
static char *
node_partitions(const struct kaid *k, const struct kai_node *nd, bool *any)
{
	struct kai_buf b;
	size_t i, n = 0, leaves = 0;

	kai_buf_init(&b, (size_t)64 * 1024 - 1);
	*any = false;
	for (i = 0; i < queues_count(k); i++) {
		const struct kai_conf_partition *p;
		const char *name = queues_at(k, i)->name;

		if (queues_is_parent(k, i))
			continue;
		leaves++;
		p = pools_partition(k, name);
		*any = *any || pools_node_serves(k, p, nd);
		if (!pools_node_member(k, p, nd))
			continue;
		if (kai_buf_addf(&b, "%s%s", n > 0 ? "," : "", name) != 0)
			break;	/* too many to list: kinfo then shows all */
		n++;
	}
	if (n == leaves || i < queues_count(k)) {
		kai_buf_fini(&b);
		return kai_xstrdup("*");
	}
	return kai_buf_detach(&b, NULL);
}

static void
node_info(const struct kaid *k, const struct kai_node *nd,
    struct kai_nodeinfo *ni)
{
	bool served;

	memset(ni, 0, sizeof(*ni));
	ni->name = kai_xstrdup(nd->name);
	ni->cpu_milli = nd->cpu_milli;
	ni->mem_mb = nd->mem_mb;
	ni->gpus = (int64_t)nd->gpus * KAI_QUEUE_GPU_UNIT;
	ni->gpu_product = kai_xstrdup(nd->gpu_product ? nd->gpu_product : "");
	ni->gpu_mem_mb = nd->gpu_mem_mb;
	count_jobs(k, ni);
	count_pods(k, ni);
	ni->partitions = node_partitions(k, nd, &served);
	ni->features = kai_xmalloc(4096);
	(void)nodefeat_text(k->conf, nd, ni->features, 4096);
	node_state(nd, served, ni);
}

static int
cmp_nodes(const void *a, const void *b)
{
	return strcmp(((const struct kai_nodeinfo *)a)->name,
	    ((const struct kai_nodeinfo *)b)->name);
}

static size_t
part_infos(const struct kaid *k, struct kai_partinfo *out)
{
	size_t i, j, n = 0;

	for (i = 0; i < queues_count(k); i++) {
		const struct kai_conf_partition *cp;
		struct kai_partinfo *p = &out[n];

		if (queues_is_parent(k, i))
			continue;
		p->name = kai_xstrdup(queues_at(k, i)->name);
		if ((cp = kai_conf_partition(k->conf, p->name)) != NULL) {
			p->is_default = cp->is_default;
			p->max_time_s = cp->max_time_s;
			p->default_time_s = cp->default_time_s;
		}
		for (j = 0; j < state_njobs(k); j++) {
			if (strcmp(state_job_at(k, j)->queue, p->name) != 0)
				continue;
			if (state_job_at(k, j)->state == KAI_JOB_PENDING)
				p->pending_jobs++;
			else
				p->running_jobs++;
		}
		n++;
	}
	return n;
}

bool
rpc_nodes(struct kaid *k, const struct rpc_req *req)
{
	struct kai_partinfo *parts;
	struct kai_nodeinfo *nodes;
	size_t np, nn = 0, it = 0;
	const char *key;
	struct kai_buf b;
	void *v;

	if (req->len != 0) {
		server_reply_error(k, req->conn, KAI_EPROTO,
		    "node list request: trailing bytes", NULL);
		return false;
	}
	parts = kai_xcalloc(queues_count(k) + 1, sizeof(*parts));
	np = part_infos(k, parts);
	nodes = kai_xcalloc(k->nodes.len + 1, sizeof(*nodes));
	while (kai_map_next(&k->nodes, &it, &key, &v) && nn < KAI_NODEINFO_MAX)
		node_info(k, v, &nodes[nn++]);
	if (nn > 1)
		qsort(nodes, nn, sizeof(*nodes), cmp_nodes);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_nodes_encode(&b, parts, np, nodes, nn) == 0)
		server_reply(k, req->conn, KAI_MSG_NODE_LIST_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the node list", NULL);
	kai_buf_fini(&b);
	kai_partinfos_free(parts, np);
	kai_nodeinfos_free(nodes, nn);
	return false;
}
