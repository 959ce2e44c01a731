/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pools.c: partitions as node pools.
 *
 * A queue belongs to the kaid.yaml partition of its own name or, for a
 * queue made with kctl under one, of its nearest ancestor that is one:
 * so a team's child queue runs on its partition's nodes, with its image
 * and filesystems.  A queue no partition covers has no pool: no
 * selector, no tolerations, the top-level filesystems.
 *
 * The snapshot gets one pool per partition (same index) and every
 * node's taints; the core decides which node takes which job
 * (src/sched/pools.c).  kinfo asks the same question of one node and
 * one partition (pools_node_serves(), the core's rules on kaid's own
 * structures), to list each partition's own nodes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "queues.h"
#include "snapshot.h"

const struct kai_conf_partition *
pools_partition(const struct kaid *k, const char *queue)
{
	const struct kai_conf_partition *p;
	const char *name = queue;
	size_t hops;
	long qi;

	/* At most one hop per queue: the tree has no cycles, but be sure. */
	for (hops = 0; name != NULL && hops <= queues_count(k); hops++) {
		if ((p = kai_conf_partition(k->conf, name)) != NULL)
			return p;
		if ((qi = queues_find(k, name)) < 0)
			return NULL;
		name = queues_at(k, qi)->parent;
	}
	return NULL;
}

const char *
pools_partition_name(const struct kaid *k, const char *queue)
{
	const struct kai_conf_partition *p = pools_partition(k, queue);

	return p != NULL ? p->name : queue;
}

/*
 * The working directory and the output files must lie on a filesystem
 * the job's pods mount (kaid.yaml filesystems:, or its partition's), or
 * the job would only fail in its pod once it started.  No filesystems
 * configured (or an empty list): nothing to check, for a cluster whose
 * images or nodes provide the paths some other way.
 */
int
pools_check_paths(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, struct kai_err *err)
{
	const char *what[3], *pat[3];
	const struct kai_conf_fs *fs;
	size_t i, n, np = 0;
	char *names;
	bool on;

	fs = kai_conf_filesystems(k->conf, pools_partition_name(k, queue),
	    &n);
	if (n == 0)
		return 0;
	what[np] = "output file";
	pat[np++] = js->stdout_pattern != NULL ? js->stdout_pattern :
	    "slurm-%j.out";
	if (js->stderr_pattern != NULL) {
		what[np] = "error file";
		pat[np++] = js->stderr_pattern;
	}
	on = kai_conf_fs_find(fs, n, js->workdir) != NULL;
	for (i = 0; on && i < np; i++) {
		/* Every container has it (ksrun's default, -o /dev/null). */
		if (strcmp(pat[i], "/dev/null") == 0)
			continue;
		if (kai_conf_fs_find_pattern(fs, n, js->workdir, pat[i]) ==
		    NULL)
			break;
	}
	if (on && i == np)
		return 0;
	names = kai_conf_fs_names(fs, n);
	if (!on)
		(void)kai_err_set(err, KAI_EINVAL, "working directory \"%s\" is not "
		    "on a shared filesystem (%s)", js->workdir, names);
	else
		(void)kai_err_set(err, KAI_EINVAL, "%s \"%s\" is not on a shared "
		    "filesystem (%s)", what[i], pat[i], names);
	free(names);
	return err->code;
}

void
pools_snap(const struct kaid *k, struct snap *sn)
{
	const struct kai_conf *c = k->conf;
	size_t i, j, nl = 0, nt = 0;

	for (i = 0; i < c->npartitions; i++) {
		nl += c->partitions[i].nnode_selector;
		nt += c->partitions[i].ntolerations;
	}
	sn->pools = kai_xcalloc(c->npartitions + 1, sizeof(*sn->pools));
	sn->pool_labels = kai_xcalloc(nl + 1, sizeof(*sn->pool_labels));
	sn->pool_tols = kai_xcalloc(nt + 1, sizeof(*sn->pool_tols));
	nl = nt = 0;
	for (i = 0; i < c->npartitions; i++) {
		const struct kai_conf_partition *p = &c->partitions[i];
		struct kai_sched_pool *sp = &sn->pools[i];

		sp->name = p->name;
		sp->selector = &sn->pool_labels[nl];
		sp->nselector = p->nnode_selector;
		for (j = 0; j < p->nnode_selector; j++, nl++) {
			sn->pool_labels[nl].key = p->node_selector[2 * j];
			sn->pool_labels[nl].value = p->node_selector[2 * j + 1];
		}
		sp->tolerations = &sn->pool_tols[nt];
		sp->ntolerations = p->ntolerations;
		for (j = 0; j < p->ntolerations; j++, nt++) {
			const struct kai_conf_toleration *t = &p->tolerations[j];

			sn->pool_tols[nt].key = t->key;
			sn->pool_tols[nt].exists = strcmp(t->op, "Exists") == 0;
			sn->pool_tols[nt].value = t->value;
			sn->pool_tols[nt].effect = t->effect;
		}
	}
	sn->s.pools = sn->pools;
	sn->s.npools = c->npartitions;
}

/* "key=value:Effect" into t, in the copy s (which it points into). */
static void
taint_split(char *s, struct kai_sched_taint *t)
{
	char *colon = strrchr(s, ':'), *eq;

	t->effect = "";
	if (colon != NULL) {
		*colon = '\0';
		t->effect = colon + 1;
	}
	t->value = "";
	if ((eq = strchr(s, '=')) != NULL) {
		*eq = '\0';
		t->value = eq + 1;
	}
	t->key = s;
}

void
pools_snap_taints(struct snap *sn, const struct kai_node *nd,
    struct kai_sched_snap_node *s)
{
	size_t i;

	/* Allocated once for every node (pools_snap_taints_alloc()). */
	KAI_ASSERT(sn->ntaints + nd->ntaints <= sn->ctaints);
	s->taints = &sn->taints[sn->ntaints];
	s->ntaints = nd->ntaints;
	for (i = 0; i < nd->ntaints; i++) {
		sn->taint_text[sn->ntaints] = kai_xstrdup(nd->taints[i]);
		taint_split(sn->taint_text[sn->ntaints],
		    &sn->taints[sn->ntaints]);
		sn->ntaints++;
	}
}

void
pools_snap_taints_alloc(const struct kaid *k, struct snap *sn)
{
	const char *key;
	void *v;
	size_t it = 0, n = 0;

	while (kai_map_next(&k->nodes, &it, &key, &v))
		n += ((const struct kai_node *)v)->ntaints;
	sn->taints = kai_xcalloc(n + 1, sizeof(*sn->taints));
	sn->taint_text = kai_xcalloc(n + 1, sizeof(*sn->taint_text));
	sn->ctaints = n;
}

int32_t
pools_snap_index(const struct kaid *k, const char *queue)
{
	const struct kai_conf_partition *p = pools_partition(k, queue);

	return p != NULL ? (int32_t)(p - k->conf->partitions) : -1;
}

void
pools_snap_fini(struct snap *sn)
{
	size_t i;

	for (i = 0; i < sn->ntaints; i++)
		free(sn->taint_text[i]);
	free(sn->taint_text);
	free(sn->taints);
	free(sn->pools);
	free(sn->pool_labels);
	free(sn->pool_tols);
}

static bool
has_label(const struct kai_node *nd, const char *key, const char *value)
{
	size_t i, kl = strlen(key);

	for (i = 0; i < nd->nlabels; i++)
		if (strncmp(nd->labels[i], key, kl) == 0 &&
		    nd->labels[i][kl] == '=' &&
		    strcmp(nd->labels[i] + kl + 1, value) == 0)
			return true;
	return false;
}

static bool
tolerated(const struct kai_conf_partition *p, const struct kai_sched_taint *t)
{
	size_t i;

	for (i = 0; p != NULL && i < p->ntolerations; i++) {
		const struct kai_conf_toleration *o = &p->tolerations[i];
		bool exists = strcmp(o->op, "Exists") == 0;

		if (*o->key == '\0' ? !exists : strcmp(o->key, t->key) != 0)
			continue;
		if (!exists && strcmp(o->value, t->value) != 0)
			continue;
		if (*o->effect == '\0' || strcmp(o->effect, t->effect) == 0)
			return true;
	}
	return false;
}

static bool
hard(const struct kai_sched_taint *t)
{
	return strcmp(t->effect, "NoSchedule") == 0 ||
	    strcmp(t->effect, "NoExecute") == 0;
}

/* Whether some partition of kaid.yaml tolerates t. */
static bool
anyone_tolerates(const struct kaid *k, const struct kai_sched_taint *t)
{
	size_t i;

	for (i = 0; i < k->conf->npartitions; i++)
		if (tolerated(&k->conf->partitions[i], t))
			return true;
	return false;
}

/*
 * member: a taint no partition tolerates (an administrator's drain) does
 * not take the node out of the partition, only keeps its pods off.
 */
static bool
serves(const struct kaid *k, const struct kai_conf_partition *p,
    const struct kai_node *nd, bool member)
{
	struct kai_sched_taint t;
	bool ok = true;
	size_t i;
	char *s;

	for (i = 0; p != NULL && i < p->nnode_selector; i++)
		if (!has_label(nd, p->node_selector[2 * i],
		    p->node_selector[2 * i + 1]))
			return false;
	for (i = 0; ok && i < nd->ntaints; i++) {
		s = kai_xstrdup(nd->taints[i]);
		taint_split(s, &t);
		if (hard(&t) && !tolerated(p, &t) &&
		    (!member || anyone_tolerates(k, &t)))
			ok = false;
		free(s);
	}
	return ok;
}

bool
pools_node_serves(const struct kaid *k, const struct kai_conf_partition *p,
    const struct kai_node *nd)
{
	return serves(k, p, nd, false);
}

bool
pools_node_member(const struct kaid *k, const struct kai_conf_partition *p,
    const struct kai_node *nd)
{
	return serves(k, p, nd, true);
}

/*
 * What one task asks of one node: CPUs (milli), memory, GPUs (a
 * fraction or a GPU memory size needs one GPU, or its devices), and GPU
 * memory.
 */
static bool
node_fits(const struct kai_node *nd, int64_t cpu_milli, uint64_t mem_mb,
    uint32_t gpus, uint64_t gpu_mem_mb)
{
	return nd->cpu_milli >= cpu_milli && nd->mem_mb >= mem_mb &&
	    nd->gpus >= gpus &&
	    (gpu_mem_mb == 0 || nd->gpu_mem_mb == 0 ||
		nd->gpu_mem_mb >= gpu_mem_mb);
}

int
pools_check_fits(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, uint64_t mem_mb, struct kai_err *err)
{
	const struct kai_conf_partition *p = pools_partition(k, queue);
	/* A node group (-N, --ntasks-per-node) needs one node for all of
	 * its tasks; fractions of a GPU may share one, so they count once. */
	uint32_t group = js->ntasks_per_node > 0 ? js->ntasks_per_node : 1;
	int64_t cpu = (int64_t)(js->cpus_per_task > 0 ? js->cpus_per_task : 1) *
	    1000 * group, max_cpu = 0;
	uint64_t g64 = kai_job_node_gpus(js->gpus_per_task, js->gpus_per_node,
		      js->ntasks_per_node), max_mem = 0;
	uint32_t gpus = g64 > UINT32_MAX ? UINT32_MAX : (uint32_t)g64,
		 max_gpus = 0;
	const char *key;
	size_t it = 0, n = 0;
	void *v;

	mem_mb *= group;
	/* A share needs one GPU, or its devices (--gpu-devices). */
	if (gpus == 0 && (js->gpu_fraction > 0 || js->gpu_memory_mb > 0))
		gpus = js->gpu_devices > 1 ? js->gpu_devices : 1;
	/* Before the node list is in, or with no node (yet: an autoscaler
	 * may add them), nothing is known to be impossible. */
	if (!k->nodes_synced)
		return 0;
	while (kai_map_next(&k->nodes, &it, &key, &v)) {
		const struct kai_node *nd = v;

		if (!pools_node_member(k, p, nd))
			continue;
		n++;
		if (node_fits(nd, cpu, mem_mb, gpus, js->gpu_memory_mb))
			return 0;
		if (nd->cpu_milli > max_cpu)
			max_cpu = nd->cpu_milli;
		if (nd->mem_mb > max_mem)
			max_mem = nd->mem_mb;
		if (nd->gpus > max_gpus)
			max_gpus = nd->gpus;
	}
	if (n == 0)
		return 0;
	return kai_err_set(err, KAI_EINVAL,
	    "Requested node configuration is not available: no node of "
	    "partition \"%s\" has %" PRId64 " CPUs, %" PRIu64 " MiB and %"
	    PRIu32 " GPUs for %s (the largest have %" PRId64 " CPUs, %"
	    PRIu64 " MiB, %" PRIu32 " GPUs)", p != NULL ? p->name : queue,
	    cpu / 1000, mem_mb, gpus,
	    group > 1 ? "the tasks of one node (--ntasks-per-node)"
		      : "one task",
	    max_cpu / 1000, max_mem, max_gpus);
}
