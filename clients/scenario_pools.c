/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_pools.c: node pools in a scenario (a kaibatch extension of
 * FORMAT.md): the top-level `pools:` (name, node_selector, tolerations),
 * a node's `taints:` and a job's `pool:`.
 *
 *	pools:
 *	  - name: gpu
 *	    node_selector: {pool: gpu}
 *	    tolerations: [{key: dedicated, operator: Equal, value: gpu,
 *	                   effect: NoSchedule}]
 *	nodes:
 *	  - {name: n1, gpus: 8, taints: [{key: dedicated, value: gpu,
 *	                                  effect: NoSchedule}]}
 *	jobs:
 *	  - {name: a, queue: q, pool: gpu, tasks: [{gpus: 1}]}
 *
 * Strings point into the parsed file, as elsewhere in the loader; the
 * arrays are the scenario's (scenario_pools_fini()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "scenario.h"

static const char *const effects[] = {"NoSchedule", "NoExecute",
    "PreferNoSchedule", NULL};

static int
load_taint(struct sload *ld, const struct ynode *m, struct kai_sched_taint *t)
{
	static const char *const keys[] = {"key", "value", "effect", NULL};
	const struct ynode *n;
	int rc, e;

	t->value = "";
	if ((rc = sload_kind(ld, m, YT_MAP, "a taint")) != 0 ||
	    (rc = sload_keys(ld, m, keys, "a taint")) != 0 ||
	    (rc = sload_get_str(ld, m, "key", true, &t->key)) != 0 ||
	    (rc = sload_get_str(ld, m, "value", false, &t->value)) != 0)
		return rc;
	if ((n = ytree_get(m, "effect")) == NULL)
		return sload_fail(ld, m, "a taint needs an effect");
	if ((rc = sload_choice(ld, n, effects, "taint effect", &e)) != 0)
		return rc;
	t->effect = effects[e];
	return 0;
}

int
scenario_load_taints(struct sload *ld, const struct ynode *ts,
    struct kai_sched_snap_node *node)
{
	struct kai_sched_taint *t;
	size_t i;
	int rc;

	if ((rc = sload_kind(ld, ts, YT_SEQ, "taints")) != 0)
		return rc;
	t = kai_xcalloc(ts->n + 1, sizeof(*t));
	ld->sc->owned = kai_xreallocarray(ld->sc->owned, ld->sc->nowned + 1,
	    sizeof(*ld->sc->owned));
	ld->sc->owned[ld->sc->nowned++] = t;
	for (i = 0; i < ts->n; i++)
		if ((rc = load_taint(ld, ts->v[i], &t[i])) != 0)
			return rc;
	node->taints = t;
	node->ntaints = ts->n;
	return 0;
}

static int
load_toleration(struct sload *ld, const struct ynode *m,
    struct kai_sched_toleration *t)
{
	static const char *const keys[] = {"key", "operator", "value",
	    "effect", NULL};
	static const char *const ops[] = {"Equal", "Exists", NULL};
	static const char *const teffects[] = {"NoSchedule", "NoExecute",
	    "PreferNoSchedule", "", NULL};
	const struct ynode *n;
	int rc, op = 0, e = 3;

	t->key = t->value = "";
	if ((rc = sload_kind(ld, m, YT_MAP, "a toleration")) != 0 ||
	    (rc = sload_keys(ld, m, keys, "a toleration")) != 0 ||
	    (rc = sload_get_str(ld, m, "key", false, &t->key)) != 0 ||
	    (rc = sload_get_str(ld, m, "value", false, &t->value)) != 0)
		return rc;
	if ((n = ytree_get(m, "operator")) != NULL &&
	    (rc = sload_choice(ld, n, ops, "toleration operator", &op)) != 0)
		return rc;
	if ((n = ytree_get(m, "effect")) != NULL &&
	    (rc = sload_choice(ld, n, teffects, "toleration effect", &e)) !=
	    0)
		return rc;
	t->exists = op == 1;
	t->effect = teffects[e];
	if (*t->key == '\0' && !t->exists)
		return sload_fail(ld, m, "a toleration without a key needs "
		    "operator Exists");
	return 0;
}

static int
load_pool(struct sload *ld, const struct ynode *m, size_t i)
{
	static const char *const keys[] = {"name", "node_selector",
	    "tolerations", NULL};
	struct scenario *sc = ld->sc;
	struct kai_sched_pool *p = &sc->pools[i];
	struct kai_sched_label *sel;
	struct kai_sched_toleration *tol;
	const struct ynode *s, *ts;
	size_t k;
	int rc;

	if ((rc = sload_kind(ld, m, YT_MAP, "a pool")) != 0 ||
	    (rc = sload_keys(ld, m, keys, "a pool")) != 0 ||
	    (rc = sload_get_str(ld, m, "name", true, &p->name)) != 0 ||
	    (rc = sload_index(ld, &sc->pool_ix, ytree_get(m, "name"), i,
		 "pool")) != 0)
		return rc;
	if ((s = ytree_get(m, "node_selector")) != NULL) {
		if ((rc = sload_kind(ld, s, YT_MAP, "node_selector")) != 0)
			return rc;
		sel = kai_xcalloc(s->n + 1, sizeof(*sel));
		sc->owned = kai_xreallocarray(sc->owned, sc->nowned + 1,
		    sizeof(*sc->owned));
		sc->owned[sc->nowned++] = sel;
		for (k = 0; k < s->n; k++) {
			if ((rc = sload_kind(ld, s->v[2 * k + 1], YT_SCALAR,
			    "a label value")) != 0)
				return rc;
			sel[k].key = s->v[2 * k]->s;
			sel[k].value = s->v[2 * k + 1]->s;
		}
		p->selector = sel;
		p->nselector = s->n;
	}
	if ((ts = ytree_get(m, "tolerations")) != NULL) {
		if ((rc = sload_kind(ld, ts, YT_SEQ, "tolerations")) != 0)
			return rc;
		tol = kai_xcalloc(ts->n + 1, sizeof(*tol));
		sc->owned = kai_xreallocarray(sc->owned, sc->nowned + 1,
		    sizeof(*sc->owned));
		sc->owned[sc->nowned++] = tol;
		for (k = 0; k < ts->n; k++)
			if ((rc = load_toleration(ld, ts->v[k], &tol[k])) != 0)
				return rc;
		p->tolerations = tol;
		p->ntolerations = ts->n;
	}
	return 0;
}

int
scenario_load_pools(struct sload *ld, const struct ynode *ps)
{
	struct scenario *sc = ld->sc;
	size_t i;
	int rc;

	if (ps == NULL)
		return 0;
	if ((rc = sload_kind(ld, ps, YT_SEQ, "pools")) != 0)
		return rc;
	sc->pools = kai_xcalloc(ps->n + 1, sizeof(*sc->pools));
	for (i = 0; i < ps->n; i++)
		if ((rc = load_pool(ld, ps->v[i], i)) != 0)
			return rc;
	sc->snap.pools = sc->pools;
	sc->snap.npools = ps->n;
	return 0;
}

int
scenario_job_pool(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	const struct ynode *n = ytree_get(m, "pool");
	size_t p;
	int rc;

	j->pool = -1;
	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, "a pool name")) != 0)
		return rc;
	if ((p = sload_find(&ld->sc->pool_ix, n->s)) == 0)
		return sload_fail(ld, n, "no pool \"%s\" (pools: must list it)",
		    n->s);
	j->pool = (int32_t)(p - 1);
	return 0;
}

void
scenario_pools_fini(struct scenario *sc)
{
	size_t i;

	for (i = 0; i < sc->nowned; i++)
		free(sc->owned[i]);
	free(sc->owned);
	free(sc->pools);
	kai_map_fini(&sc->pool_ix);
}
