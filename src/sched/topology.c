/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * topology.c: topology-aware placement over node labels.
 *
 * A topology is a list of label keys, widest first (spine, rack, ...).
 * At level L a node's domain is the tuple of its label values for levels
 * 0..L (rack "r1" under spine "s1" differs from "r1" under "s2"); a node
 * without one of those labels is in no domain at that level.  Domains are
 * computed once per (topology, level) a job asks for, by sorting the
 * nodes on that tuple, and kept for the cycle.
 *
 * A required level is hard: all the tasks of the step go into one domain
 * of that level, or none are placed.  A preferred level is tried first
 * and falls back one level wider at a time, up to the required level, or
 * the whole cluster when there is none.  At each level the domains that
 * could hold the step are tried fullest first, from the top down: the
 * fullest spine that can hold the step, then the fullest rack in it
 * (need/free ratios: KAI bin-packs its topology tree from the root),
 * ties in label order; below a preferred level, nodes of the fuller-free preferred domains come first
 * so that the tasks gather in as few of them as possible.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

struct tlevel {
	bool built;
	int32_t *dom; /* per node, or -1 */
	uint32_t ndom;
	uint32_t *dstart; /* ndom + 1 offsets into dnodes */
	uint32_t *dnodes; /* nodes by domain, in name order */
};

struct kai_sched_topo {
	struct tlevel *lv; /* all levels of all topologies */
	size_t *first;     /* per topology: its first level in lv */
};

struct tkey {
	const char *const *vals; /* label values for levels 0..L */
	uint32_t nvals;
	uint32_t rank;
	uint32_t node;
};

static int
tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->nvals; i++) {
		int c = strcmp(x->vals[i], y->vals[i]);

		if (c != 0)
			return c;
	}
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static bool
same(const struct tkey *a, const struct tkey *b)
{
	uint32_t i;

	for (i = 0; i < a->nvals; i++)
		if (strcmp(a->vals[i], b->vals[i]) != 0)
			return false;
	return true;
}

static const char *
label(const struct kai_sched_snap_node *n, const char *key)
{
	size_t i;

	for (i = 0; i < n->nlabels; i++)
		if (strcmp(n->labels[i].key, key) == 0)
			return n->labels[i].value;
	return NULL;
}

static void
build(struct sess *S, const struct kai_sched_topology *tp, uint32_t L,
    struct tlevel *lv)
{
	uint32_t nv = L + 1, i, k, n = 0;
	const char **vals = kai_xcalloc((size_t)S->nn * nv, sizeof(*vals));
	struct tkey *keys = kai_xcalloc(S->nn, sizeof(*keys));

	lv->dom = kai_xreallocarray(NULL, S->nn, sizeof(*lv->dom));
	memset(lv->dom, 0xff, S->nn * sizeof(*lv->dom));
	for (i = 0; i < S->nn; i++) {
		for (k = 0; k < nv; k++)
			if ((vals[(size_t)i * nv + k] = label(&S->s->nodes[i],
				 tp->levels[k])) == NULL)
				break;
		if (k < nv)
			continue;
		keys[n].vals = &vals[(size_t)i * nv];
		keys[n].nvals = nv;
		keys[n].rank = S->nodes[i].rank;
		keys[n].node = i;
		n++;
	}
	qsort(keys, n, sizeof(*keys), tkey_cmp);
	lv->dnodes = kai_xcalloc(n + 1, sizeof(*lv->dnodes));
	lv->dstart = kai_xcalloc(n + 2, sizeof(*lv->dstart));
	for (i = 0; i < n; i++) {
		if (i == 0 || !same(&keys[i], &keys[i - 1]))
			lv->dstart[lv->ndom++] = i;
		lv->dom[keys[i].node] = (int32_t)lv->ndom - 1;
		lv->dnodes[i] = keys[i].node;
	}
	lv->dstart[lv->ndom] = n;
	lv->built = true;
	free(keys);
	free(vals);
}

static struct tlevel *
level(struct sess *S, uint32_t topo, uint32_t L)
{
	const struct kai_sched_snapshot *s = S->s;
	struct tlevel *lv;

	if (S->topo == NULL) {
		size_t i, total = 0;

		S->topo = kai_xcalloc(1, sizeof(*S->topo));
		S->topo->first =
		    kai_xcalloc(s->ntopologies + 1, sizeof(*S->topo->first));
		for (i = 0; i < s->ntopologies; i++) {
			S->topo->first[i] = total;
			total += s->topologies[i].nlevels;
		}
		S->topo->lv = kai_xcalloc(total + 1, sizeof(*S->topo->lv));
	}
	lv = &S->topo->lv[S->topo->first[topo] + L];
	if (!lv->built)
		build(S, &s->topologies[topo], L, lv);
	return lv;
}

uint32_t
kai_sched_topo_domains(struct sess *S, uint32_t topo, uint32_t L,
    const uint32_t **dstart, const uint32_t **dnodes)
{
	const struct tlevel *lv = level(S, topo, L);

	*dstart = lv->dstart;
	*dnodes = lv->dnodes;
	return lv->ndom;
}

void
kai_sched_topo_fini(struct sess *S)
{
	size_t i, total = 0;

	if (S->topo == NULL)
		return;
	for (i = 0; i < S->s->ntopologies; i++)
		total += S->s->topologies[i].nlevels;
	for (i = 0; i < total; i++) {
		free(S->topo->lv[i].dom);
		free(S->topo->lv[i].dstart);
		free(S->topo->lv[i].dnodes);
	}
	free(S->topo->lv);
	free(S->topo->first);
	KAI_FREE(S->topo);
}

/* Idle GPU of node n in uGPU (plus what is releasing, with pipe). */
static int64_t
node_free(const struct sess *S, uint32_t n, bool pipe)
{
	const struct snode *nd = &S->nodes[n];
	int64_t f = 0;
	uint32_t d;

	if (!nd->ok)
		return 0;
	if (!pipe)
		return nd->idle_ugpu;
	for (d = nd->gpu0; d < nd->gpu0 + nd->ngpu; d++)
		f += GPU_UNIT - S->dalloc[d];
	return f;
}

/*
 * Domain order, top-down: a domain of level L is keyed by its ancestors
 * from the widest level down to L itself, each compared by whether it
 * could hold the step, then how full the step would leave it (need /
 * free, fuller first), then its label order.  So the fullest spine that
 * can hold the step comes first, then the fullest rack in it (KAI sorts
 * its topology tree from the root this way, then takes the domains of a
 * level in tree order).
 */
struct dkey {
	bool fits;
	double fill;
	uint32_t dom;
};

struct cand {
	uint32_t dom;
	const struct dkey *key; /* L + 1 keys, widest level first */
	uint32_t nkey;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	uint32_t k;

	for (k = 0; k < x->nkey; k++) {
		const struct dkey *p = &x->key[k], *q = &y->key[k];

		if (p->fits != q->fits)
			return p->fits ? -1 : 1;
		if (p->fill != q->fill)
			return p->fill > q->fill ? -1 : 1;
		if (p->dom != q->dom)
			return p->dom < q->dom ? -1 : 1;
	}
	return 0;
}

/* Places the tasks on nodes[0..nn), all or none. */
static bool
place_all(struct sess *S, const uint32_t *tasks, uint32_t n,
    const uint32_t *nodes, uint32_t nn, const int64_t *pref, bool pipe)
{
	size_t mark = kai_sched_mark(S);
	struct kai_sched_choice c;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!kai_sched_choose(S, tasks[i], nodes, nn, pref, pipe, &c)) {
			kai_sched_rollback(S, mark);
			return false;
		}
		kai_sched_place(S, tasks[i], (uint32_t)c.node, c.mask, c.ugpu,
		    c.pipelined);
	}
	return true;
}

/* The one domain at level lv that holds the job's active tasks, or -2. */
static int32_t
active_domain(const struct sess *S, uint32_t j, const struct tlevel *lv)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	int32_t d = -1;
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		const struct stask *st = &S->tasks[t];

		if (!kai_sched_task_active(st))
			continue;
		if (d >= 0 && lv->dom[st->node] != d)
			return -2;
		d = lv->dom[st->node];
		if (d < 0)
			return -2;
	}
	return d;
}

/* Idle GPU of every domain of level lv, into a new array. */
static int64_t *
dom_free(const struct sess *S, const struct tlevel *lv, bool pipe)
{
	int64_t *f = kai_xcalloc(lv->ndom + 1, sizeof(*f));
	uint32_t d, i;

	for (d = 0; d < lv->ndom; d++)
		for (i = lv->dstart[d]; i < lv->dstart[d + 1]; i++)
			f[d] += node_free(S, lv->dnodes[i], pipe);
	return f;
}

static bool
try_level(struct sess *S, uint32_t j, uint32_t L, bool hard,
    const uint32_t *tasks, uint32_t n, const int64_t *pref, bool pipe)
{
	uint32_t topo = (uint32_t)S->s->jobs[j].topology;
	const struct tlevel *lv = level(S, topo, L);
	struct cand *cv = kai_xcalloc(lv->ndom + 1, sizeof(*cv));
	struct dkey *keys =
	    kai_xcalloc((size_t)(lv->ndom + 1) * (L + 1), sizeof(*keys));
	int64_t need = 0, req[NRES], *f = NULL;
	int32_t only = hard ? active_domain(S, j, lv) : -1;
	uint32_t d, nc = 0, i, k;
	bool ok = false;

	for (i = 0; i < n; i++) {
		kai_sched_task_req(S, tasks[i], req);
		need += req[R_GPU];
	}
	for (k = 0; k <= L && only != -2; k++) {
		const struct tlevel *ak = level(S, topo, k);

		f = dom_free(S, ak, pipe);
		for (d = 0; d < lv->ndom; d++) {
			uint32_t a = (uint32_t)ak->dom[lv->dnodes[lv->dstart[d]]];
			struct dkey *x = &keys[(size_t)d * (L + 1) + k];

			x->fits = f[a] >= need;
			x->fill = f[a] > 0 ? (double)need / (double)f[a] : 0;
			x->dom = a;
		}
		free(f);
	}
	for (d = 0; d < lv->ndom && only != -2; d++) {
		if ((only >= 0 && (int32_t)d != only) ||
		    !keys[(size_t)d * (L + 1) + L].fits)
			continue;
		cv[nc].dom = d;
		cv[nc].key = &keys[(size_t)d * (L + 1)];
		cv[nc].nkey = L + 1;
		nc++;
	}
	qsort(cv, nc, sizeof(*cv), cand_cmp);
	for (i = 0; i < nc && !ok; i++) {
		d = cv[i].dom;
		ok = place_all(S, tasks, n, &lv->dnodes[lv->dstart[d]],
		    lv->dstart[d + 1] - lv->dstart[d], pref, pipe);
	}
	free(keys);
	free(cv);
	return ok;
}

/* pref[node] = idle GPU of its preferred-level domain, -1 outside any. */
static int64_t *
preference(struct sess *S, const struct tlevel *pl, bool pipe)
{
	int64_t *pref = S->scratch_pref, *dfree = dom_free(S, pl, pipe);
	uint32_t i;

	for (i = 0; i < S->nn; i++)
		pref[i] = pl->dom[i] >= 0 ? dfree[pl->dom[i]] : -1;
	free(dfree);
	return pref;
}

bool
kai_sched_topo_place(struct sess *S, uint32_t j, const uint32_t *tasks,
    uint32_t n, bool allow_pipe, struct kai_sched_why_info *why)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	int32_t R = J->required_level, P = J->preferred_level, L;
	int32_t stop = R >= 0 ? R : 0;
	const int64_t *pref = NULL;
	uint32_t i;

	if (P < 0)
		P = R;
	for (L = P; L >= stop; L--) {
		if (L < P && pref == NULL)
			pref = preference(S,
			    level(S, (uint32_t)J->topology, (uint32_t)P),
			    allow_pipe);
		if (try_level(S, j, (uint32_t)L, L == R, tasks, n, pref,
			allow_pipe))
			return true;
	}
	if (R >= 0) {
		kai_sched_why_clear(why);
		why->why = KAI_SCHED_WHY_TOPOLOGY;
		why->a = J->topology;
		why->b = R;
		why->c = n;
		return false;
	}
	/* Preferred only: the whole cluster, preferred domains first. */
	if (pref == NULL)
		pref = preference(S,
		    level(S, (uint32_t)J->topology, (uint32_t)P), allow_pipe);
	for (i = 0; i < S->nn; i++)
		S->scratch_nodes[i] = i;
	return place_all(S, tasks, n, S->scratch_nodes, S->nn, pref,
	    allow_pipe);
}
