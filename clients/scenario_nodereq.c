/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_nodereq.c: node features and a job's own node requirements
 * in a scenario (a kaibatch extension of FORMAT.md; doc/scheduler.md,
 * "Node constraints"): a node's `features:`, a job's `constraint:`
 * (Slurm's --constraint, read by src/model/constraint.c as ksubmit and
 * kaid read it), `nodelist:` and `exclude:` (lists of node names).
 *
 *	nodes:
 *	  - {name: n1, gpus: 8, features: [a100, ib]}
 *	jobs:
 *	  - {name: a, queue: q, constraint: "[a100|h100]&ib",
 *	     exclude: [n3], tasks: [{gpus: 1}]}
 *
 * Feature bits are given in order of first mention, nodes first; more
 * than 64 distinct features in one scenario are refused, as kaid refuses
 * them in one cycle.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/constraint.h"
#include "scenario.h"

static void *
own(struct scenario *sc, void *p)
{
	sc->owned = kai_xreallocarray(sc->owned, sc->nowned + 1,
	    sizeof(*sc->owned));
	sc->owned[sc->nowned++] = p;
	return p;
}

static int
feature_bit(struct sload *ld, const struct ynode *at, const char *name,
    uint64_t *bit)
{
	struct scenario *sc = ld->sc;
	size_t i;

	for (i = 0; i < sc->nfeatures; i++)
		if (strcmp(sc->features[i], name) == 0)
			break;
	if (i == sc->nfeatures) {
		if (i == 64)
			return sload_fail(ld, at, "more than 64 node features");
		sc->features[sc->nfeatures++] = own(sc, kai_xstrdup(name));
	}
	*bit = UINT64_C(1) << i;
	return 0;
}

int
scenario_node_features(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_node *n)
{
	const struct ynode *fs = ytree_get(m, "features");
	uint64_t bit;
	size_t i;
	int rc;

	if (fs == NULL)
		return 0;
	if ((rc = sload_kind(ld, fs, YT_SEQ, "features")) != 0)
		return rc;
	for (i = 0; i < fs->n; i++) {
		if ((rc = sload_kind(ld, fs->v[i], YT_SCALAR, "a feature")) !=
			0 ||
		    (rc = feature_bit(ld, fs->v[i], fs->v[i]->s, &bit)) != 0)
			return rc;
		n->features |= bit;
	}
	return 0;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A list of node names into ascending node indices. */
static int
node_set(struct sload *ld, const struct ynode *l, const uint32_t **out,
    size_t *n)
{
	uint32_t *v;
	size_t i, k = 0;
	int rc;

	if ((rc = sload_kind(ld, l, YT_SEQ, "a list of nodes")) != 0)
		return rc;
	v = own(ld->sc, kai_xcalloc(l->n + 1, sizeof(*v)));
	for (i = 0; i < l->n; i++)
		if ((rc = sload_node(ld, l->v[i], &v[i])) != 0)
			return rc;
	qsort(v, l->n, sizeof(*v), cmp_u32);
	for (i = 0; i < l->n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*n = k;
	return 0;
}

static int
load_constraint(struct sload *ld, const struct ynode *c,
    struct kai_sched_nodereq *R)
{
	struct kai_constraint k;
	struct kai_err e;
	uint64_t *alts, bit;
	size_t a, i;
	int rc;

	if ((rc = sload_kind(ld, c, YT_SCALAR, "a constraint")) != 0)
		return rc;
	kai_err_clear(&e);
	if (kai_constraint_parse(c->s, &k, &e) != 0) {
		kai_constraint_fini(&k);
		return sload_fail(ld, c, "%s", kai_err_msg(&e));
	}
	R->text = c->s;
	R->match = k.match;
	alts = own(ld->sc, kai_xcalloc(k.nalts + 1, sizeof(*alts)));
	for (a = 0; a < k.nalts; a++)
		for (i = 0; i < k.nnames; i++) {
			if ((k.alts[a] & (UINT64_C(1) << i)) == 0)
				continue;
			if ((rc = feature_bit(ld, c, k.names[i], &bit)) != 0) {
				kai_constraint_fini(&k);
				return rc;
			}
			alts[a] |= bit;
		}
	R->alts = alts;
	R->nalts = k.nalts;
	kai_constraint_fini(&k);
	return 0;
}

int
scenario_job_nodereq(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	struct scenario *sc = ld->sc;
	const struct ynode *c = ytree_get(m, "constraint"),
			   *w = ytree_get(m, "nodelist"),
			   *x = ytree_get(m, "exclude");
	struct kai_sched_nodereq *R;
	int rc;

	if (c == NULL && w == NULL && x == NULL)
		return 0;
	sc->nodereqs = kai_xreallocarray(sc->nodereqs, sc->nnodereqs + 1,
	    sizeof(*sc->nodereqs));
	R = &sc->nodereqs[sc->nnodereqs++];
	memset(R, 0, sizeof(*R));
	j->nodereq = (uint32_t)sc->nnodereqs;
	if (c != NULL && (rc = load_constraint(ld, c, R)) != 0)
		return rc;
	if (w != NULL && (rc = node_set(ld, w, &R->only, &R->nonly)) != 0)
		return rc;
	R->only_set = w != NULL;
	if (x != NULL && (rc = node_set(ld, x, &R->never, &R->nnever)) != 0)
		return rc;
	sc->snap.nodereqs = sc->nodereqs;
	sc->snap.nnodereqs = sc->nnodereqs;
	return 0;
}
