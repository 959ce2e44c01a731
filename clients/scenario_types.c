/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_types.c: GPU types in a scenario (a kaibatch extension of
 * FORMAT.md; doc/scheduler.md, "GPU types"): a queue's `gpu_types:`, a
 * job's `gpu_type:`, the node label the types come from, and the
 * expected per type fair shares.
 *
 *	config:
 *	  gpu_type_label: nvidia.com/gpu.product   # the default
 *	nodes:
 *	  - {name: a1, gpus: 8, labels: {nvidia.com/gpu.product: A100}}
 *	queues:
 *	  - name: q
 *	    gpu: {quota: -1, limit: -1, over_quota_weight: 1}
 *	    gpu_types:
 *	      A100: {quota: 2, limit: 4, over_quota_weight: 3}
 *	jobs:
 *	  - {name: j, queue: q, gpu_type: A100, tasks: [{gpus: 1}]}
 *	expect:
 *	  gpu_type_fair_share: {q: {A100: 6}}
 *
 * In a type's block an absent quota is 0, an absent limit -1 (none) and
 * an absent over_quota_weight the queue's GPU weight.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "scenario.h"

#define DEFAULT_LABEL "nvidia.com/gpu.product"

static void
own(struct scenario *sc, void *p)
{
	sc->owned = kai_xreallocarray(sc->owned, sc->nowned + 1,
	    sizeof(*sc->owned));
	sc->owned[sc->nowned++] = p;
}

int
scenario_type_label(struct sload *ld, const struct ynode *config)
{
	ld->sc->gpu_type_label = DEFAULT_LABEL;
	if (config == NULL)
		return 0;
	return sload_get_str(ld, config, "gpu_type_label", false,
	    &ld->sc->gpu_type_label);
}

void
scenario_node_types(struct scenario *sc)
{
	size_t i, k;

	for (i = 0; i < sc->snap.nnodes; i++) {
		struct kai_sched_snap_node *n = &sc->nodes[i];

		for (k = 0; k < n->nlabels; k++)
			if (strcmp(n->labels[k].key, sc->gpu_type_label) == 0)
				n->gpu_type = n->labels[k].value;
	}
}

static int
load_type(struct sload *ld, const struct ynode *name, const struct ynode *m,
    struct kai_sched_qtype *x)
{
	static const char *const keys[] = {"quota", "limit",
	    "over_quota_weight", NULL};
	const struct ynode *n;
	int rc;

	if ((rc = sload_kind(ld, name, YT_SCALAR, "a GPU type")) != 0 ||
	    (rc = sload_kind(ld, m, YT_MAP, "a GPU type's settings")) != 0 ||
	    (rc = sload_keys(ld, m, keys, "a GPU type")) != 0)
		return rc;
	if (*name->s == '\0')
		return sload_fail(ld, name, "a GPU type needs a name");
	x->type = name->s;
	x->quota = 0;
	x->limit = -1;
	x->weight = -1;
	if ((n = ytree_get(m, "quota")) != NULL &&
	    (rc = sload_gpu(ld, n, true, &x->quota)) != 0)
		return rc;
	if ((n = ytree_get(m, "limit")) != NULL &&
	    (rc = sload_gpu(ld, n, true, &x->limit)) != 0)
		return rc;
	if ((n = ytree_get(m, "over_quota_weight")) != NULL &&
	    (rc = sload_dbl(ld, n, 0, 1e9, &x->weight)) != 0)
		return rc;
	if (x->limit >= 0 && x->quota > x->limit)
		return sload_fail(ld, m, "GPU type \"%s\": limit below quota",
		    x->type);
	return 0;
}

int
scenario_queue_types(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_queue *q)
{
	struct kai_sched_qtype *v;
	size_t i, k;
	int rc;

	if (m == NULL)
		return 0;
	if ((rc = sload_kind(ld, m, YT_MAP, "gpu_types")) != 0)
		return rc;
	v = kai_xcalloc(m->n + 1, sizeof(*v));
	own(ld->sc, v);
	for (i = 0; i < m->n; i++) {
		if ((rc = load_type(ld, m->v[2 * i], m->v[2 * i + 1],
			 &v[i])) != 0)
			return rc;
		for (k = 0; k < i; k++)
			if (strcmp(v[k].type, v[i].type) == 0)
				return sload_fail(ld, m->v[2 * i],
				    "GPU type \"%s\" is given twice",
				    v[i].type);
	}
	q->types = v;
	q->ntypes = m->n;
	return 0;
}

/* A job's type is 1 + an index into the snapshot's gpu_types, each
 * name listed once however many jobs name it. */
int
scenario_job_type(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	struct scenario *sc = ld->sc;
	const char *name = NULL;
	size_t i;
	int rc;

	if ((rc = sload_get_str(ld, m, "gpu_type", false, &name)) != 0)
		return rc;
	j->gpu_type = 0;
	if (name == NULL)
		return 0;
	if (*name == '\0')
		return sload_fail(ld, ytree_get(m, "gpu_type"),
		    "an empty gpu_type: leave it out for any type");
	if ((i = sload_find(&sc->jtype_ix, name)) == 0) {
		if (sc->njtypes == KAI_SCHED_MAX_GPU_TYPES)
			return sload_fail(ld, ytree_get(m, "gpu_type"),
			    "more than %d GPU types", KAI_SCHED_MAX_GPU_TYPES);
		sc->jtypes = kai_xreallocarray(sc->jtypes, sc->njtypes + 1,
		    sizeof(*sc->jtypes));
		sc->jtypes[sc->njtypes] = name;
		i = ++sc->njtypes;
		kai_map_put(&sc->jtype_ix, name, (void *)(uintptr_t)i);
		sc->snap.gpu_types = sc->jtypes;
		sc->snap.ngpu_types = sc->njtypes;
	}
	j->gpu_type = (uint16_t)i;
	return 0;
}

void
scenario_types_fini(struct scenario *sc)
{
	kai_map_fini(&sc->jtype_ix);
	free(sc->jtypes);
}

int
scenario_expect_types(struct sload *ld, const struct ynode *map)
{
	struct expect *e = &ld->sc->expect;
	size_t i, k, n = 0;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "gpu_type_fair_share")) != 0)
		return rc;
	for (i = 0; i < map->n; i++) {
		const struct ynode *m = map->v[2 * i + 1];

		if ((rc = sload_kind(ld, m, YT_MAP, "a queue's types")) != 0)
			return rc;
		n += m->n;
	}
	e->tfair = kai_xcalloc(n + 1, sizeof(*e->tfair));
	for (i = 0; i < map->n; i++) {
		const struct ynode *m = map->v[2 * i + 1];
		size_t q = sload_find(&ld->sc->queue_ix, map->v[2 * i]->s);

		if (q == 0)
			return sload_fail(ld, map->v[2 * i], "no queue \"%s\"",
			    map->v[2 * i]->s);
		for (k = 0; k < m->n; k++) {
			struct exp_tfair *x = &e->tfair[e->ntfair++];

			x->queue = (uint32_t)(q - 1);
			if ((rc = sload_kind(ld, m->v[2 * k], YT_SCALAR,
				 "a GPU type")) != 0 ||
			    (rc = sload_gpu(ld, m->v[2 * k + 1], false,
				 &x->v)) != 0)
				return rc;
			x->type = m->v[2 * k]->s;
		}
	}
	return 0;
}
