/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodefeat.c: node features and a job's own node requirements (Slurm's
 * --constraint, --nodelist, --exclude) in kaid: which features a node
 * has, the submit-time refusals, and the snapshot's requirements.
 *
 * A node's features come from its labels (doc/scheduler.md, "Node
 * constraints"; kaid.yaml(5) scheduling.node_feature_labels):
 *  - the value of each label kaid.yaml's scheduling.node_feature_labels
 *    names (NVIDIA GPU feature discovery's nvidia.com/gpu.product and
 *    nvidia.com/gpu.family by default: -C NVIDIA-A100-SXM4-80GB, -C
 *    ampere);
 *  - NAME of each label kaibatch.io/feature.NAME whose value is not
 *    "false" (an administrator's own: kubectl label node n1
 *    kaibatch.io/feature.a100=true).
 * (A comma list in one label cannot be: a label value holds no comma.)
 *
 * The core sees features as a 64-bit set per node (struct
 * kai_sched_nodereq): each tick numbers the features the snapshot's
 * jobs name, in order of first mention, and gives each node the bits of
 * those it has.  Jobs with the same constraint and node lists share one
 * requirement.  A 64th distinct name in one tick, which no real site
 * reaches, gets the last bit, which no node is given: a job naming it
 * waits, and says which features it asked for.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "model/constraint.h"
#include "model/hostlist.h"
#include "model/nodelists.h"
#include "snapshot.h"

#define FEAT_PREFIX "kaibatch.io/feature."
#define NEVER_BIT   63 /* the bit of names past the 63rd: no node has it */

/* Whether the comma list list (len bytes) holds name. */
static bool
in_list(const char *list, size_t len, const char *name)
{
	size_t nl = strlen(name);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((c != NULL ? c : end) - p);

		if (n == nl && memcmp(p, name, n) == 0)
			return true;
		p += n + 1;
	}
	return false;
}

bool
nodefeat_has(const struct kai_conf *c, const struct kai_node *nd,
    const char *name)
{
	size_t i, pl = strlen(FEAT_PREFIX);

	for (i = 0; i < nd->nlabels; i++) {
		const char *kv = nd->labels[i], *eq = strchr(kv, '=');
		const char *val = eq != NULL ? eq + 1 : "";
		size_t kl = eq != NULL ? (size_t)(eq - kv) : strlen(kv);

		if (kl > pl && strncmp(kv, FEAT_PREFIX, pl) == 0 &&
		    kl - pl == strlen(name) &&
		    memcmp(kv + pl, name, kl - pl) == 0 &&
		    strcmp(val, "false") != 0)
			return true;
		if (*val != '\0' && strcmp(val, name) == 0) {
			char key[320];

			if (kl >= sizeof(key))
				continue;
			memcpy(key, kv, kl);
			key[kl] = '\0';
			if (in_list(c->sched_feature_labels,
				strlen(c->sched_feature_labels), key))
				return true;
		}
	}
	return false;
}

size_t
nodefeat_text(const struct kai_conf *c, const struct kai_node *nd,
    char *buf, size_t size)
{
	size_t i, len = 0, pl = strlen(FEAT_PREFIX);

	if (size > 0)
		buf[0] = '\0';
	for (i = 0; i < nd->nlabels; i++) {
		const char *kv = nd->labels[i], *eq = strchr(kv, '=');
		const char *val = eq != NULL ? eq + 1 : "";
		size_t kl = eq != NULL ? (size_t)(eq - kv) : strlen(kv);
		char key[320];
		int w = 0;

		if (kl >= sizeof(key))
			continue;
		memcpy(key, kv, kl);
		key[kl] = '\0';
		if (kl > pl && strncmp(key, FEAT_PREFIX, pl) == 0 &&
		    strcmp(val, "false") != 0)
			w = snprintf(buf + len, size - len, "%s%s",
			    len > 0 ? "," : "", key + pl);
		else if (*val != '\0' &&
		    in_list(c->sched_feature_labels,
			strlen(c->sched_feature_labels), key))
			w = snprintf(buf + len, size - len, "%s%s",
			    len > 0 ? "," : "", val);
		if (w < 0 || (size_t)w >= size - len)
			break; /* full: what fits is shown */
		len += (size_t)w;
	}
	return len;
}

/* Node nd may take the job by its lists and constraint c (NULL: none). */
static bool
node_ok(const struct kaid *k, const struct kai_node *nd,
    const struct kai_constraint *c, char **only, size_t nonly, char **never,
    size_t nnever)
{
	uint64_t got = 0;
	size_t i;
	bool listed = nonly == 0;

	for (i = 0; i < nnever; i++)
		if (strcmp(never[i], nd->name) == 0)
			return false;
	for (i = 0; i < nonly && !listed; i++)
		listed = strcmp(only[i], nd->name) == 0;
	if (!listed)
		return false;
	if (c == NULL || c->nalts == 0)
		return true;
	for (i = 0; i < c->nnames; i++)
		if (nodefeat_has(k->conf, nd, c->names[i]))
			got |= UINT64_C(1) << i;
	for (i = 0; i < c->nalts; i++)
		if ((c->alts[i] & ~got) == 0)
			return true;
	return false;
}

/* The first name of names[0..n) that is no node kaid knows, or NULL. */
static const char *
unknown_node(const struct kaid *k, char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (kai_map_get(&k->nodes, names[i]) == NULL)
			return names[i];
	return NULL;
}

int
nodefeat_check_submit(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, struct kai_err *err)
{
	const struct kai_conf_partition *p = kai_conf_partition(k->conf, queue);
	struct kai_constraint c;
	char **only = NULL, **never = NULL;
	size_t nonly = 0, nnever = 0, it = 0;
	const char *key, *bad;
	void *v;
	int rc = 0;
	bool any = false;

	memset(&c, 0, sizeof(c));
	/* Before the node list is in, nothing is known to be missing. */
	if ((js->features == NULL && js->node_req == NULL) || !k->nodes_synced)
		return 0;
	if ((js->features != NULL &&
		(rc = kai_constraint_parse(js->features, &c, err)) != 0) ||
	    (rc = kai_node_req_names(js->node_req, KAI_NODE_REQ_ONLY, &only,
		 &nonly, err)) != 0 ||
	    (rc = kai_node_req_names(js->node_req, KAI_NODE_REQ_NEVER, &never,
		 &nnever, err)) != 0)
		goto out;
	if ((bad = unknown_node(k, only, nonly)) != NULL ||
	    (bad = unknown_node(k, never, nnever)) != NULL) {
		rc = kai_err_set(err, KAI_EINVAL, "Invalid node name specified: "
		    "no node \"%s\"", bad);
		goto out;
	}
	while (!any && kai_map_next(&k->nodes, &it, &key, &v))
		any = pools_node_member(k, p, v) &&
		    node_ok(k, v, &c, only, nonly, never, nnever);
	if (!any)
		rc = kai_err_set(err, KAI_EINVAL, "Requested node configuration "
		    "is not available: no node of partition \"%s\" %s%s%s",
		    p != NULL ? p->name : queue,
		    js->features != NULL ? "has the features \"" :
		    "is left by --nodelist and --exclude",
		    js->features != NULL ? js->features : "",
		    js->features == NULL ? "" : js->node_req != NULL
			? "\" among those --nodelist and --exclude leave"
			: "\"");
out:
	kai_constraint_fini(&c);
	kai_hostlist_free(only, nonly);
	kai_hostlist_free(never, nnever);
	return rc;
}

/*
 * The snapshot's requirements (snap_build)
 */

struct nodefeat_snap {
	struct kai_sched_nodereq *reqs;
	size_t nreqs, creqs;
	char *names[64]; /* bit i's feature, owned */
	size_t nnames;
	struct kai_map ix; /* "features\x1fnode_req" -> req index + 1 */
	char **keys;	   /* the map's keys, owned */
	void **owned;	   /* alts and node index arrays */
	size_t nowned;
};

static void *
own(struct nodefeat_snap *nf, void *p)
{
	nf->owned = kai_xreallocarray(nf->owned, nf->nowned + 1,
	    sizeof(*nf->owned));
	nf->owned[nf->nowned++] = p;
	return p;
}

static uint64_t
bit_of(struct nodefeat_snap *nf, const char *name)
{
	size_t i;

	for (i = 0; i < nf->nnames; i++)
		if (strcmp(nf->names[i], name) == 0)
			return UINT64_C(1) << i;
	if (nf->nnames == NEVER_BIT)
		return UINT64_C(1) << NEVER_BIT;
	nf->names[nf->nnames] = kai_xstrdup(name);
	return UINT64_C(1) << nf->nnames++;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One part of req as ascending snapshot node indices; unknown names
 * (a node gone since) are left out. */
static const uint32_t *
node_set(struct nodefeat_snap *nf, const struct snap *sn, const char *req,
    enum kai_node_req_part part, size_t *n)
{
	char **names;
	size_t cnt, i, k = 0;
	uint32_t *v;
	struct kai_err err;

	*n = 0;
	if (kai_node_req_names(req, part, &names, &cnt, &err) != 0)
		return own(nf, kai_xcalloc(1, sizeof(uint32_t)));
	v = own(nf, kai_xcalloc(cnt + 1, sizeof(*v)));
	for (i = 0; i < cnt; i++) {
		uintptr_t x = (uintptr_t)kai_map_get(&sn->node_ix, names[i]);

		if (x != 0)
			v[k++] = (uint32_t)(x - 1);
	}
	kai_hostlist_free(names, cnt);
	qsort(v, k, sizeof(*v), cmp_u32);
	for (i = 0, cnt = k, k = 0; i < cnt; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
	return v;
}

static void
build_req(struct nodefeat_snap *nf, const struct snap *sn,
    const struct kai_job *j, struct kai_sched_nodereq *R)
{
	struct kai_constraint c;
	struct kai_err err;
	uint64_t *alts;
	size_t a, i;

	memset(R, 0, sizeof(*R));
	R->text = j->features != NULL ? j->features : "";
	if (j->features != NULL && *j->features != '\0') {
		/* Checked at submission; a row edited by hand since asks
		 * for what no node has, rather than for nothing. */
		if (kai_constraint_parse(j->features, &c, &err) != 0) {
			alts = own(nf, kai_xcalloc(1, sizeof(*alts)));
			alts[0] = UINT64_C(1) << NEVER_BIT;
			R->alts = alts;
			R->nalts = 1;
		} else {
			alts = own(nf, kai_xcalloc(c.nalts + 1, sizeof(*alts)));
			for (a = 0; a < c.nalts; a++)
				for (i = 0; i < c.nnames; i++)
					if (c.alts[a] & (UINT64_C(1) << i))
						alts[a] |= bit_of(nf,
						    c.names[i]);
			R->alts = alts;
			R->nalts = c.nalts;
			R->match = c.match;
		}
		kai_constraint_fini(&c);
	}
	if (j->node_req != NULL && *j->node_req != '\0') {
		char buf[8];

		R->only = node_set(nf, sn, j->node_req, KAI_NODE_REQ_ONLY,
		    &R->nonly);
		R->only_set = *kai_node_req_text(j->node_req,
		    KAI_NODE_REQ_ONLY, buf, sizeof(buf)) != '\0';
		R->never = node_set(nf, sn, j->node_req, KAI_NODE_REQ_NEVER,
		    &R->nnever);
	}
}

/* The requirement index + 1 of job j, made on first use. */
static uint32_t
job_req(struct nodefeat_snap *nf, const struct snap *sn,
    const struct kai_job *j)
{
	char *key;
	uintptr_t x;

	if ((j->features == NULL || *j->features == '\0') &&
	    (j->node_req == NULL || *j->node_req == '\0'))
		return 0;
	key = kai_xasprintf("%s\x1f%s", j->features != NULL ? j->features : "",
	    j->node_req != NULL ? j->node_req : "");
	if ((x = (uintptr_t)kai_map_get(&nf->ix, key)) != 0) {
		free(key);
		return (uint32_t)x;
	}
	if (nf->nreqs == nf->creqs) {
		nf->creqs = nf->creqs * 2 + 8;
		nf->reqs = kai_xreallocarray(nf->reqs, nf->creqs,
		    sizeof(*nf->reqs));
		nf->keys = kai_xreallocarray(nf->keys, nf->creqs,
		    sizeof(*nf->keys));
	}
	build_req(nf, sn, j, &nf->reqs[nf->nreqs]);
	nf->keys[nf->nreqs++] = key;
	kai_map_put(&nf->ix, key, (void *)(uintptr_t)nf->nreqs);
	return (uint32_t)nf->nreqs;
}

void
nodefeat_snap(const struct kaid *k, struct snap *sn)
{
	struct nodefeat_snap *nf = kai_xcalloc(1, sizeof(*nf));
	size_t i, b;

	kai_map_init(&nf->ix, NULL);
	sn->nf = nf;
	for (i = 0; i < sn->s.njobs; i++)
		if (sn->kjobs[i] != NULL)
			sn->jobs[i].nodereq = job_req(nf, sn, sn->kjobs[i]);
	if (nf->nreqs == 0)
		return;
	sn->s.nodereqs = nf->reqs;
	sn->s.nnodereqs = nf->nreqs;
	for (i = 0; i < sn->s.nnodes && nf->nnames > 0; i++) {
		const struct kai_node *nd =
		    kai_map_get(&k->nodes, sn->nodes[i].name);

		for (b = 0; nd != NULL && b < nf->nnames; b++)
			if (nodefeat_has(k->conf, nd, nf->names[b]))
				sn->nodes[i].features |= UINT64_C(1) << b;
	}
}

void
nodefeat_snap_fini(struct snap *sn)
{
	struct nodefeat_snap *nf = sn->nf;
	size_t i;

	if (nf == NULL)
		return;
	for (i = 0; i < nf->nnames; i++)
		free(nf->names[i]);
	for (i = 0; i < nf->nreqs; i++)
		free(nf->keys[i]);
	for (i = 0; i < nf->nowned; i++)
		free(nf->owned[i]);
	free(nf->owned);
	free(nf->keys);
	free(nf->reqs);
	kai_map_fini(&nf->ix);
	free(nf);
	sn->nf = NULL;
}
