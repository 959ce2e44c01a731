/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario.c: a scenario file into a core snapshot (see scenario.h).
 *
 * The YAML tree (ytree.c) is walked section by section: config, nodes,
 * queues, topologies, jobs, usage, then the expect block
 * (scenario_expect.c).  Every map is checked against the list of keys it
 * may have, so a misspelt key is an error and not a silently ignored
 * setting.  Defaults follow FORMAT.md; the few keys it does not define
 * (users, min runtimes, unschedulable nodes, held jobs) are described in
 * doc/scheduler.md.
 */
#include "config.h"

#include "scenario.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"

int
sload_fail(struct sload *ld, const struct ynode *at, const char *fmt, ...)
{
	char reason[KAI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return kai_err_set(ld->err, KAI_EINVAL, "%s:%zu:%zu: %s", ld->sc->path,
	    at->line, at->col, reason);
}

int
sload_kind(struct sload *ld, const struct ynode *n, enum ykind kind,
    const char *what)
{
	static const char *const names[] = {"a value", "a map", "a list"};

	if (n->kind != kind)
		return sload_fail(ld, n, "%s must be %s", what, names[kind]);
	return 0;
}

int
sload_keys(struct sload *ld, const struct ynode *m, const char *const *allowed,
    const char *what)
{
	size_t i, k;
	int rc;

	if ((rc = sload_kind(ld, m, YT_MAP, what)) != 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		const struct ynode *key = m->v[2 * i];

		for (k = 0; allowed[k] != NULL; k++)
			if (strcmp(key->s, allowed[k]) == 0)
				break;
		if (allowed[k] == NULL)
			return sload_fail(ld, key,
			    "unrecognized key \"%s\" in "
			    "%s",
			    key->s, what);
	}
	return 0;
}

size_t
sload_find(const struct kai_map *m, const char *name)
{
	return (size_t)(uintptr_t)kai_map_get(m, name);
}

int
sload_index(struct sload *ld, struct kai_map *m, const struct ynode *n,
    size_t i, const char *what)
{
	if (sload_find(m, n->s) != 0)
		return sload_fail(ld, n, "%s \"%s\" is listed twice", what,
		    n->s);
	kai_map_put(m, n->s, (void *)(uintptr_t)(i + 1));
	return 0;
}

int
sload_i64(struct sload *ld, const struct ynode *n, int64_t min, int64_t max,
    int64_t *out)
{
	struct kai_err e;
	int rc;

	if ((rc = sload_kind(ld, n, YT_SCALAR, "a number")) != 0)
		return rc;
	if (kai_strtoi64(n->s, min, max, out, "value", &e) != 0)
		return sload_fail(ld, n, "%s", kai_err_msg(&e));
	return 0;
}

int
sload_get_i64(struct sload *ld, const struct ynode *m, const char *key,
    int64_t min, int64_t max, int64_t *out)
{
	const struct ynode *n = ytree_get(m, key);

	return n == NULL ? 0 : sload_i64(ld, n, min, max, out);
}

int
sload_dbl(struct sload *ld, const struct ynode *n, double min, double max,
    double *out)
{
	struct kai_err e;
	int rc;

	if ((rc = sload_kind(ld, n, YT_SCALAR, "a number")) != 0)
		return rc;
	if (kai_strtod(n->s, min, max, out, "value", &e) != 0)
		return sload_fail(ld, n, "%s", kai_err_msg(&e));
	return 0;
}

/* A GPU amount ("2", "0.5") in micro-GPUs; -1 allowed for quotas. */
int
sload_gpu(struct sload *ld, const struct ynode *n, bool allow_neg, int64_t *out)
{
	double v;
	int rc;

	if ((rc = sload_dbl(ld, n, allow_neg ? -1 : 0, 1e9, &v)) != 0)
		return rc;
	if (v < 0 && v != -1)
		return sload_fail(ld, n, "only -1 may be negative");
	*out = v < 0 ? -1 : (int64_t)(v * KAI_SCHED_GPU_UNIT + 0.5);
	return 0;
}

int
sload_get_bool(struct sload *ld, const struct ynode *m, const char *key,
    bool *out)
{
	const struct ynode *n = ytree_get(m, key);
	int rc;

	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, key)) != 0)
		return rc;
	if (strcmp(n->s, "true") == 0)
		*out = true;
	else if (strcmp(n->s, "false") == 0)
		*out = false;
	else
		return sload_fail(ld, n, "%s must be true or false", key);
	return 0;
}

int
sload_get_str(struct sload *ld, const struct ynode *m, const char *key,
    bool required, const char **out)
{
	const struct ynode *n = ytree_get(m, key);
	int rc;

	if (n == NULL || ytree_is_null(n)) {
		if (required)
			return sload_fail(ld, m, "missing key \"%s\"", key);
		return 0;
	}
	if ((rc = sload_kind(ld, n, YT_SCALAR, key)) != 0)
		return rc;
	*out = n->s;
	return 0;
}

/* Which of names[] the scalar n is. */
int
sload_choice(struct sload *ld, const struct ynode *n, const char *const *names,
    const char *what, int *out)
{
	int i, rc;

	if ((rc = sload_kind(ld, n, YT_SCALAR, what)) != 0)
		return rc;
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(n->s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return sload_fail(ld, n, "unrecognized %s \"%s\"", what, n->s);
}

/* A task state up to last (FORMAT.md's names are the core's). */
int
sload_task_state(struct sload *ld, const struct ynode *n,
    enum kai_sched_task_state last, int *out)
{
	const char *names[KAI_SCHED_TASK_EVICTED + 2];
	int i;

	for (i = 0; i <= (int)last; i++)
		names[i] =
		    kai_sched_task_state_name((enum kai_sched_task_state)i);
	names[i] = NULL;
	return sload_choice(ld, n, names, "task state", out);
}

int
sload_node(struct sload *ld, const struct ynode *n, uint32_t *out)
{
	size_t i;
	int rc;

	if ((rc = sload_kind(ld, n, YT_SCALAR, "a node")) != 0)
		return rc;
	if ((i = sload_find(&ld->sc->node_ix, n->s)) == 0)
		return sload_fail(ld, n, "no node \"%s\"", n->s);
	*out = (uint32_t)(i - 1);
	return 0;
}

static int
load_actions(struct sload *ld, const struct ynode *a,
    struct kai_sched_config *c)
{
	static const char *const names[] = {"allocate", "consolidation",
	    "reclaim", "preempt", "stalegangeviction", NULL};
	size_t i, k;
	int rc, v;

	if ((rc = sload_kind(ld, a, YT_SEQ, "actions")) != 0)
		return rc;
	if (a->n > KAI_SCHED_MAX_PHASES)
		return sload_fail(ld, a, "more than %d actions",
		    KAI_SCHED_MAX_PHASES);
	c->nphases = 0;
	for (i = 0; i < a->n; i++) {
		if ((rc = sload_choice(ld, a->v[i], names, "action", &v)) != 0)
			return rc;
		for (k = 0; k < c->nphases; k++)
			if (c->phases[k] == (enum kai_sched_action)v)
				return sload_fail(ld, a->v[i],
				    "action \"%s\" is "
				    "listed twice",
				    a->v[i]->s);
		c->phases[c->nphases++] = (enum kai_sched_action)v;
	}
	return 0;
}

static int
load_config(struct sload *ld, const struct ynode *m)
{
	static const char *const keys[] = {"placement", "gpu_device_placement",
	    "actions", "k_value", "default_staleness_grace_s",
	    "max_consolidation_moves", "backfill_reservations",
	    "backfill_max_job_test",
	    "gpu_type_label", NULL};
	static const char *const node_pl[] = {"binpack", "spread", "frag", NULL};
	static const char *const dev_pl[] = {"pack", "spread", NULL};
	struct kai_sched_config *c = &ld->sc->snap.config;
	const struct ynode *n;
	int64_t v;
	int rc, k = 0;

	kai_sched_config_init(c);
	if (m == NULL)
		return 0;
	if ((rc = sload_keys(ld, m, keys, "config")) != 0)
		return rc;
	if ((n = ytree_get(m, "placement")) != NULL) {
		if ((rc = sload_choice(ld, n, node_pl, "placement", &k)) != 0)
			return rc;
		c->placement = (enum kai_sched_placement)k;
		/* KAI's gpuspread follows the node placement unless set. */
		c->gpu_placement = c->placement;
	}
	if ((n = ytree_get(m, "gpu_device_placement")) != NULL) {
		if ((rc = sload_choice(ld, n, dev_pl, "gpu_device_placement",
			 &k)) != 0)
			return rc;
		c->gpu_placement = (enum kai_sched_placement)k;
	}
	if ((n = ytree_get(m, "actions")) != NULL &&
	    (rc = load_actions(ld, n, c)) != 0)
		return rc;
	if ((n = ytree_get(m, "k_value")) != NULL &&
	    (rc = sload_dbl(ld, n, -1e6, 1e6, &c->k_value)) != 0)
		return rc;
	if ((rc = sload_get_i64(ld, m, "default_staleness_grace_s", INT32_MIN,
		 INT32_MAX, &c->default_staleness_grace_s)) != 0)
		return rc;
	v = c->max_consolidation_moves;
	if ((rc = sload_get_i64(ld, m, "max_consolidation_moves", 0, 1 << 20,
		 &v)) != 0)
		return rc;
	c->max_consolidation_moves = (uint32_t)v;
	v = c->bf_reservations;
	if ((rc = sload_get_i64(ld, m, "backfill_reservations", 0, 1 << 20,
		 &v)) != 0)
		return rc;
	c->bf_reservations = (uint32_t)v;
	v = c->bf_max_job_test;
	if ((rc = sload_get_i64(ld, m, "backfill_max_job_test", 1, 1 << 20,
		 &v)) != 0)
		return rc;
	c->bf_max_job_test = (uint32_t)v;
	return 0;
}

static size_t
count_labels(const struct ynode *nodes)
{
	size_t i, n = 0;

	for (i = 0; i < nodes->n; i++) {
		const struct ynode *l = ytree_get(nodes->v[i], "labels");

		if (l != NULL && l->kind == YT_MAP)
			n += l->n;
	}
	return n;
}

static int
load_labels(struct sload *ld, const struct ynode *l,
    struct kai_sched_snap_node *n, size_t *used)
{
	struct scenario *sc = ld->sc;
	size_t i;
	int rc;

	if ((rc = sload_kind(ld, l, YT_MAP, "labels")) != 0)
		return rc;
	n->labels = &sc->labels[*used];
	n->nlabels = l->n;
	for (i = 0; i < l->n; i++) {
		const struct ynode *v = l->v[2 * i + 1];

		if ((rc = sload_kind(ld, v, YT_SCALAR, "a label value")) != 0)
			return rc;
		sc->labels[*used].key = l->v[2 * i]->s;
		sc->labels[(*used)++].value = v->s;
	}
	return 0;
}

static int
load_node(struct sload *ld, const struct ynode *m, size_t i, size_t *used)
{
	static const char *const keys[] = {"name", "gpus", "gpu_memory_mib",
	    "cpu_millis", "memory_mib", "memory_mb", "labels", "unschedulable",
	    "taints", "features", NULL};
	struct kai_sched_snap_node *n = &ld->sc->nodes[i];
	const struct ynode *l;
	int64_t gpus = 0, mb = -1;
	int rc;

	if ((rc = sload_keys(ld, m, keys, "a node")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &n->name)) != 0 ||
	    (rc = sload_index(ld, &ld->sc->node_ix, ytree_get(m, "name"), i,
		 "node")) != 0)
		return rc;
	n->cpu_millis = n->memory_mib = -1;
	if ((rc = sload_get_i64(ld, m, "gpus", 0, KAI_SCHED_MAX_NODE_GPUS,
		 &gpus)) != 0 ||
	    (rc = sload_get_i64(ld, m, "gpu_memory_mib", 1, INT64_C(1) << 40,
		 &n->gpu_memory_mib)) != 0 ||
	    (rc = sload_get_i64(ld, m, "cpu_millis", 0, INT64_C(1) << 40,
		 &n->cpu_millis)) != 0 ||
	    (rc = sload_get_i64(ld, m, "memory_mib", 0, INT64_C(1) << 40,
		 &n->memory_mib)) != 0 ||
	    (rc = sload_get_i64(ld, m, "memory_mb", 0, INT64_C(1) << 40,
		 &mb)) != 0 ||
	    (rc = sload_get_bool(ld, m, "unschedulable", &n->unschedulable)) !=
		0)
		return rc;
	if (mb >= 0 && ytree_get(m, "memory_mib") != NULL)
		return sload_fail(ld, m,
		    "give memory_mib or memory_mb, not "
		    "both");
	if (mb >= 0)
		n->memory_mib = mb * 1000000 / 1048576;
	n->gpus = (uint32_t)gpus;
	if ((l = ytree_get(m, "taints")) != NULL &&
	    (rc = scenario_load_taints(ld, l, n)) != 0)
		return rc;
	if ((rc = scenario_node_features(ld, m, n)) != 0)
		return rc;
	if ((l = ytree_get(m, "labels")) != NULL)
		return load_labels(ld, l, n, used);
	return 0;
}

static int
load_nodes(struct sload *ld, const struct ynode *ns)
{
	struct scenario *sc = ld->sc;
	size_t i, used = 0;
	int rc;

	if (ns == NULL)
		return 0;
	if ((rc = sload_kind(ld, ns, YT_SEQ, "nodes")) != 0)
		return rc;
	sc->nodes = kai_xcalloc(ns->n + 1, sizeof(*sc->nodes));
	sc->labels = kai_xcalloc(count_labels(ns) + 1, sizeof(*sc->labels));
	for (i = 0; i < ns->n; i++)
		if ((rc = load_node(ld, ns->v[i], i, &used)) != 0)
			return rc;
	sc->snap.nodes = sc->nodes;
	sc->snap.nnodes = ns->n;
	return 0;
}

static int
load_qres(struct sload *ld, const struct ynode *m, int r,
    struct kai_sched_qres *x)
{
	static const char *const keys[] = {"quota", "limit",
	    "over_quota_weight", NULL};
	const struct ynode *n;
	int rc;

	/* An absent block constrains nothing; absent keys in a block mean
	 * no guarantee, no cap, no surplus (FORMAT.md). */
	x->quota = x->limit = -1;
	x->weight = 1;
	if (m == NULL)
		return 0;
	if ((rc = sload_keys(ld, m, keys, "a queue resource")) != 0)
		return rc;
	x->quota = 0;
	x->weight = 0;
	if ((n = ytree_get(m, "quota")) != NULL &&
	    (rc = r == KAI_SCHED_GPU
		    ? sload_gpu(ld, n, true, &x->quota)
		    : sload_i64(ld, n, -1, INT64_C(1) << 50, &x->quota)) != 0)
		return rc;
	if ((n = ytree_get(m, "limit")) != NULL &&
	    (rc = r == KAI_SCHED_GPU
		    ? sload_gpu(ld, n, true, &x->limit)
		    : sload_i64(ld, n, -1, INT64_C(1) << 50, &x->limit)) != 0)
		return rc;
	if ((n = ytree_get(m, "over_quota_weight")) != NULL &&
	    (rc = sload_dbl(ld, n, 0, 1e9, &x->weight)) != 0)
		return rc;
	return 0;
}

static int
load_queue(struct sload *ld, const struct ynode *m, size_t i)
{
	static const char *const keys[] = {"name", "parent", "priority", "gpu",
	    "cpu", "memory", "preempt_min_runtime_s", "reclaim_min_runtime_s",
	    "gpu_types", NULL};
	static const char *const res[] = {"gpu", "cpu", "memory"};
	struct kai_sched_snap_queue *q = &ld->sc->queues[i];
	const char *parent = NULL;
	int rc, r;

	if ((rc = sload_keys(ld, m, keys, "a queue")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &q->name)) != 0 ||
	    (rc = sload_get_str(ld, m, "parent", false, &parent)) != 0)
		return rc;
	q->parent = -1;
	q->priority = 100;
	q->preempt_min_runtime_s = q->reclaim_min_runtime_s = -1;
	if (parent != NULL) {
		size_t p = sload_find(&ld->sc->queue_ix, parent);

		if (p == 0)
			return sload_fail(ld, ytree_get(m, "parent"),
			    "parent "
			    "queue \"%s\" must be listed before it",
			    parent);
		q->parent = (int32_t)(p - 1);
	}
	if ((rc = sload_index(ld, &ld->sc->queue_ix, ytree_get(m, "name"), i,
		 "queue")) != 0 ||
	    (rc = sload_get_i64(ld, m, "priority", INT32_MIN, INT32_MAX,
		 &q->priority)) != 0 ||
	    (rc = sload_get_i64(ld, m, "preempt_min_runtime_s", -1, INT32_MAX,
		 &q->preempt_min_runtime_s)) != 0 ||
	    (rc = sload_get_i64(ld, m, "reclaim_min_runtime_s", -1, INT32_MAX,
		 &q->reclaim_min_runtime_s)) != 0)
		return rc;
	for (r = 0; r < KAI_SCHED_NRES; r++)
		if ((rc = load_qres(ld, ytree_get(m, res[r]), r, &q->res[r])) !=
		    0)
			return rc;
	return scenario_queue_types(ld, ytree_get(m, "gpu_types"), q);
}

static int
load_queues(struct sload *ld, const struct ynode *qs)
{
	struct scenario *sc = ld->sc;
	size_t i;
	int rc;

	if (qs == NULL)
		return 0;
	if ((rc = sload_kind(ld, qs, YT_SEQ, "queues")) != 0)
		return rc;
	sc->queues = kai_xcalloc(qs->n + 1, sizeof(*sc->queues));
	for (i = 0; i < qs->n; i++)
		if ((rc = load_queue(ld, qs->v[i], i)) != 0)
			return rc;
	sc->snap.queues = sc->queues;
	sc->snap.nqueues = qs->n;
	return 0;
}

static int
load_topologies(struct sload *ld, const struct ynode *ts)
{
	static const char *const keys[] = {"name", "levels", NULL};
	struct scenario *sc = ld->sc;
	size_t i, k, nl = 0;
	int rc;

	if (ts == NULL)
		return 0;
	if ((rc = sload_kind(ld, ts, YT_SEQ, "topologies")) != 0)
		return rc;
	for (i = 0; i < ts->n; i++) {
		const struct ynode *l = ytree_get(ts->v[i], "levels");

		nl += l != NULL ? l->n : 0;
	}
	sc->topos = kai_xcalloc(ts->n + 1, sizeof(*sc->topos));
	sc->levels = kai_xcalloc(nl + 1, sizeof(*sc->levels));
	for (i = 0, nl = 0; i < ts->n; i++) {
		const struct ynode *m = ts->v[i], *l;

		if ((rc = sload_keys(ld, m, keys, "a topology")) != 0 ||
		    (rc = sload_get_str(ld, m, "name", true,
			 &sc->topos[i].name)) != 0 ||
		    (rc = sload_index(ld, &sc->topo_ix, ytree_get(m, "name"), i,
			 "topology")) != 0)
			return rc;
		if ((l = ytree_get(m, "levels")) == NULL || l->kind != YT_SEQ ||
		    l->n == 0)
			return sload_fail(ld, m,
			    "a topology needs a list of "
			    "levels");
		sc->topos[i].levels = &sc->levels[nl];
		sc->topos[i].nlevels = l->n;
		for (k = 0; k < l->n; k++) {
			if ((rc = sload_kind(ld, l->v[k], YT_SCALAR,
				 "a level")) != 0)
				return rc;
			sc->levels[nl++] = l->v[k]->s;
		}
	}
	sc->snap.topologies = sc->topos;
	sc->snap.ntopologies = ts->n;
	return 0;
}

static size_t
seq_len(const struct ynode *n)
{
	return n != NULL && n->kind == YT_SEQ ? n->n : 0;
}

static int
load_root(struct sload *ld, const struct ynode *root)
{
	static const char *const keys[] = {"name", "source", "description",
	    "config", "nodes", "queues", "topologies", "usage", "jobs",
	    "expect", "pools", "gpu_caps", "accounts", NULL};
	struct scenario *sc = ld->sc;
	const char *dummy = NULL;
	int rc;

	if ((rc = sload_keys(ld, root, keys, "a scenario")) != 0 ||
	    (rc = sload_get_str(ld, root, "name", true, &sc->name)) != 0 ||
	    (rc = sload_get_str(ld, root, "source", false, &dummy)) != 0 ||
	    (rc = sload_get_str(ld, root, "description", false, &dummy)) != 0)
		return rc;
	sc->users = kai_xcalloc(seq_len(ytree_get(root, "jobs")) +
		seq_len(ytree_get(root, "usage")) + 1,
	    sizeof(*sc->users));
	sc->snap.users = sc->users;
	sc->snap.now = SCENARIO_NOW;
	if ((rc = load_config(ld, ytree_get(root, "config"))) != 0 ||
	    (rc = scenario_type_label(ld, ytree_get(root, "config"))) != 0 ||
	    (rc = load_nodes(ld, ytree_get(root, "nodes"))) != 0 ||
	    (rc = load_queues(ld, ytree_get(root, "queues"))) != 0 ||
	    (rc = load_topologies(ld, ytree_get(root, "topologies"))) != 0 ||
	    (rc = scenario_load_pools(ld, ytree_get(root, "pools"))) != 0 ||
	    (rc = scenario_load_caps(ld, ytree_get(root, "gpu_caps"))) != 0 ||
	    (rc = scenario_load_accounts(ld, ytree_get(root, "accounts"))) !=
		0 ||
	    (rc = scenario_load_jobs(ld, ytree_get(root, "jobs"))) != 0 ||
	    (rc = scenario_load_usage(ld, ytree_get(root, "usage"))) != 0)
		return rc;
	scenario_node_types(sc);
	if (ytree_get(root, "expect") != NULL)
		return scenario_load_expect(ld, ytree_get(root, "expect"));
	return 0;
}

int
scenario_load(const char *path, struct scenario *sc, struct kai_err *err)
{
	struct sload ld;
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->path = path;
	kai_map_init(&sc->node_ix, NULL);
	kai_map_init(&sc->queue_ix, NULL);
	kai_map_init(&sc->job_ix, NULL);
	kai_map_init(&sc->topo_ix, NULL);
	kai_map_init(&sc->user_ix, NULL);
	kai_map_init(&sc->pool_ix, NULL);
	kai_map_init(&sc->cap_ix, NULL);
	kai_map_init(&sc->acct_ix, NULL);
	kai_map_init(&sc->jtype_ix, NULL);
	kai_sched_config_init(&sc->snap.config);
	ld.sc = sc;
	ld.err = err;
	if ((rc = ytree_load(path, &sc->root, err)) != 0 ||
	    (rc = load_root(&ld, sc->root)) != 0) {
		scenario_fini(sc);
		return rc;
	}
	return 0;
}

void
scenario_fini(struct scenario *sc)
{
	scenario_expect_fini(&sc->expect);
	scenario_pools_fini(sc);
	scenario_caps_fini(sc);
	free(sc->nodereqs);
	free(sc->subgroups);
	free(sc->trees);
	scenario_accounts_fini(sc);
	scenario_types_fini(sc);
	kai_map_fini(&sc->node_ix);
	kai_map_fini(&sc->queue_ix);
	kai_map_fini(&sc->job_ix);
	kai_map_fini(&sc->topo_ix);
	kai_map_fini(&sc->user_ix);
	free(sc->nodes);
	free(sc->labels);
	free(sc->queues);
	free(sc->topos);
	free(sc->levels);
	free(sc->users);
	free(sc->jobs);
	free(sc->tasks);
	ytree_free(sc->root);
	memset(sc, 0, sizeof(*sc));
}
