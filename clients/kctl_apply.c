/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl_apply.c: a queue file into queue changes (see kctl.h).
 *
 * The file is read into a tree with positions (ytree.c) and walked queue
 * by queue; every map is checked against the keys it may have, so a
 * misspelt key is an error and not a silently ignored setting, and every
 * error names the file, line and column of the value at fault.  The
 * shape and the meaning of absent keys are the scenario format's
 * (../shared/scenarios/FORMAT.md), so a scenario's `queues:` can be
 * applied to a cluster as it is.  Nothing is sent unless the whole file
 * is good; kaid then applies it in one transaction.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "kctl.h"
#include "ytree.h"

struct qload {
	const char *path;
	struct kai_err *err;
};

static int
fail(struct qload *ld, const struct ynode *at, const char *fmt, ...)
    KAI_PRINTF(3, 4);

static int
fail(struct qload *ld, const struct ynode *at, const char *fmt, ...)
{
	char reason[KAI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return kai_err_set(ld->err, KAI_EINVAL, "%s:%zu:%zu: %s", ld->path,
	    at->line, at->col, reason);
}

static int
keys(struct qload *ld, const struct ynode *m, const char *const *allowed,
    const char *what)
{
	size_t i, k;

	if (m->kind != YT_MAP)
		return fail(ld, m, "%s must be a map", what);
	for (i = 0; i < m->n; i++) {
		const struct ynode *key = m->v[2 * i];

		for (k = 0; allowed[k] != NULL; k++)
			if (strcmp(key->s, allowed[k]) == 0)
				break;
		if (allowed[k] == NULL)
			return fail(ld, key, "unrecognized key \"%s\" in %s",
			    key->s, what);
	}
	return 0;
}

static int
scalar(struct qload *ld, const struct ynode *n, const char *key)
{
	if (n->kind != YT_SCALAR)
		return fail(ld, n, "%s must be a value", key);
	return 0;
}

/* A value in units of 1/unit ("1.5" GPUs), or -1 when allow_neg. */
static int
units(struct qload *ld, const struct ynode *n, const char *key, int64_t unit,
    bool allow_neg, int64_t *out)
{
	struct kai_err e;
	int64_t max = unit == KAI_QUEUE_WEIGHT_UNIT ? KAI_QUEUE_WEIGHT_MAX
						    : KAI_QUEUE_VALUE_MAX;

	if (scalar(ld, n, key) != 0)
		return KAI_EINVAL;
	if (kai_queue_parse_units(n->s, unit, max, key, out, &e) != 0)
		return fail(ld, n, "%s", kai_err_msg(&e));
	if (*out < 0 && !allow_neg)
		return fail(ld, n, "invalid %s \"%s\": expected a number of at "
		    "least 0", key, n->s);
	return 0;
}

static int
integer(struct qload *ld, const struct ynode *m, const char *key, int64_t min,
    int64_t max, int64_t *out)
{
	const struct ynode *n = ytree_get(m, key);
	struct kai_err e;

	if (n == NULL)
		return 0;
	if (scalar(ld, n, key) != 0)
		return KAI_EINVAL;
	if (kai_strtoi64(n->s, min, max, out, key, &e) != 0)
		return fail(ld, n, "%s", kai_err_msg(&e));
	return 0;
}

/* One resource block: FORMAT.md's defaults. */
static int
res_block(struct qload *ld, const struct ynode *m, enum kai_queue_res r,
    struct kai_queue_qres *x)
{
	static const char *const allowed[] = {"quota", "limit",
	    "over_quota_weight", NULL};
	int64_t unit = r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1;
	const struct ynode *n;
	char what[32];

	x->quota = x->limit = KAI_QUEUE_UNLIMITED;
	x->weight = KAI_QUEUE_WEIGHT_UNIT;
	if (m == NULL)
		return 0;
	(void)snprintf(what, sizeof(what), "a queue's %s block",
	    kai_queue_res_name(r));
	if (keys(ld, m, allowed, what) != 0)
		return KAI_EINVAL;
	x->quota = 0;
	x->weight = 0;
	if ((n = ytree_get(m, "quota")) != NULL &&
	    units(ld, n, "quota", unit, true, &x->quota) != 0)
		return KAI_EINVAL;
	if ((n = ytree_get(m, "limit")) != NULL &&
	    units(ld, n, "limit", unit, true, &x->limit) != 0)
		return KAI_EINVAL;
	if ((n = ytree_get(m, "over_quota_weight")) != NULL &&
	    units(ld, n, "over_quota_weight", KAI_QUEUE_WEIGHT_UNIT, false,
		&x->weight) != 0)
		return KAI_EINVAL;
	return 0;
}

/*
 * gpu_types: {TYPE: {quota, limit, over_quota_weight}}; in a type's
 * block an absent quota is 0, limit -1 and weight the queue's GPU weight
 * (the scenario format's gpu_types:, clients/scenario_types.c).
 */
static int
gpu_types(struct qload *ld, const struct ynode *m, struct kai_queue *q)
{
	static const char *const allowed[] = {"quota", "limit",
	    "over_quota_weight", NULL};
	const struct ynode *n;
	struct kai_err e;
	size_t i;

	if (m == NULL)
		return 0;
	if (m->kind != YT_MAP)
		return fail(ld, m, "gpu_types must be a map of GPU types");
	if (m->n > KAI_QUEUE_TYPES_MAX)
		return fail(ld, m, "more than %d GPU types",
		    KAI_QUEUE_TYPES_MAX);
	for (i = 0; i < m->n; i++) {
		const struct ynode *k = m->v[2 * i], *b = m->v[2 * i + 1];
		int64_t quota = 0, limit = -1, weight = -1;

		if (kai_queue_type_find(q, k->s) != NULL)
			return fail(ld, k, "GPU type \"%s\" is listed twice",
			    k->s);
		if (keys(ld, b, allowed, "a GPU type's block") != 0)
			return KAI_EINVAL;
		if ((n = ytree_get(b, "quota")) != NULL &&
		    units(ld, n, "quota", KAI_QUEUE_GPU_UNIT, true, &quota) !=
			0)
			return KAI_EINVAL;
		if ((n = ytree_get(b, "limit")) != NULL &&
		    units(ld, n, "limit", KAI_QUEUE_GPU_UNIT, true, &limit) !=
			0)
			return KAI_EINVAL;
		if ((n = ytree_get(b, "over_quota_weight")) != NULL &&
		    units(ld, n, "over_quota_weight", KAI_QUEUE_WEIGHT_UNIT,
			false, &weight) != 0)
			return KAI_EINVAL;
		if (kai_queue_type_set(q, k->s, quota, limit, weight, &e) != 0)
			return fail(ld, k, "%s", kai_err_msg(&e));
	}
	return 0;
}

static int
string(struct qload *ld, const struct ynode *m, const char *key, bool need,
    char **out)
{
	const struct ynode *n = ytree_get(m, key);
	struct kai_err e;

	if (n == NULL || ytree_is_null(n)) {
		if (need)
			return fail(ld, m, "a queue needs a \"%s\"", key);
		return 0;
	}
	if (scalar(ld, n, key) != 0)
		return KAI_EINVAL;
	if (kai_queue_name_check(n->s, &e) != 0)
		return fail(ld, n, "%s", kai_err_msg(&e));
	*out = kai_xstrdup(n->s);
	return 0;
}

static int
load_queue(struct qload *ld, const struct ynode *m, struct kai_queue *q)
{
	static const char *const allowed[] = {"name", "parent", "priority",
	    "gpu", "cpu", "memory", "preempt_min_runtime_s",
	    "reclaim_min_runtime_s", "gpu_types", NULL};
	static const char *const res[KAI_QUEUE_NRES] = {"gpu", "cpu",
	    "memory"};
	struct kai_err e;
	int r;

	if (keys(ld, m, allowed, "a queue") != 0 ||
	    string(ld, m, "name", true, &q->name) != 0 ||
	    string(ld, m, "parent", false, &q->parent) != 0 ||
	    integer(ld, m, "priority", KAI_QUEUE_PRIO_MIN, KAI_QUEUE_PRIO_MAX,
		&q->priority) != 0 ||
	    integer(ld, m, "preempt_min_runtime_s", -1, KAI_QUEUE_RUNTIME_MAX,
		&q->preempt_min_runtime_s) != 0 ||
	    integer(ld, m, "reclaim_min_runtime_s", -1, KAI_QUEUE_RUNTIME_MAX,
		&q->reclaim_min_runtime_s) != 0)
		return KAI_EINVAL;
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		if (res_block(ld, ytree_get(m, res[r]), (enum kai_queue_res)r,
			&q->res[r]) != 0)
			return KAI_EINVAL;
	if (gpu_types(ld, ytree_get(m, "gpu_types"), q) != 0)
		return KAI_EINVAL;
	if (kai_queue_check(q, &e) != 0)
		return fail(ld, m, "%s", kai_err_msg(&e));
	return 0;
}

/* The list of queues: the root, or the root's only key `queues:`. */
static int
queue_list(struct qload *ld, const struct ynode *root,
    const struct ynode **list)
{
	static const char *const allowed[] = {"queues", NULL};

	*list = root;
	if (root->kind == YT_MAP) {
		if (keys(ld, root, allowed, "a queue file") != 0)
			return KAI_EINVAL;
		if ((*list = ytree_get(root, "queues")) == NULL)
			return fail(ld, root, "a queue file needs \"queues\"");
	}
	if ((*list)->kind != YT_SEQ)
		return fail(ld, *list, "queues must be a list");
	if ((*list)->n == 0)
		return fail(ld, *list, "the list of queues is empty");
	if ((*list)->n > KAI_QUEUE_MAX)
		return fail(ld, *list, "too many queues: %zu, at most %d",
		    (*list)->n, KAI_QUEUE_MAX);
	return 0;
}

static int
load_all(struct qload *ld, const struct ynode *list,
    struct kai_queue_change *c)
{
	struct kai_map seen;
	size_t i;
	int rc = 0;

	kai_map_init(&seen, NULL);
	for (i = 0; i < list->n && rc == 0; i++) {
		c[i].op = KAI_QUEUE_REPLACE;
		c[i].set = KAI_QUEUE_SET_ALL;
		kai_queue_init(&c[i].q);
		if ((rc = load_queue(ld, list->v[i], &c[i].q)) != 0)
			break;
		if (kai_map_get(&seen, c[i].q.name) != NULL)
			rc = fail(ld, ytree_get(list->v[i], "name"),
			    "queue \"%s\" is listed twice", c[i].q.name);
		kai_map_put(&seen, c[i].q.name, (void *)1);
	}
	kai_map_fini(&seen);
	return rc;
}

int
kctl_queue_file(const char *path, struct kai_queue_change **out, size_t *n,
    struct kai_err *err)
{
	struct qload ld = {path, err};
	const struct ynode *list;
	struct kai_queue_change *c;
	struct ynode *root;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ytree_load(path, &root, err)) != 0)
		return rc;
	if ((rc = queue_list(&ld, root, &list)) != 0) {
		ytree_free(root);
		return rc;
	}
	c = kai_xcalloc(list->n, sizeof(*c));
	if ((rc = load_all(&ld, list, c)) != 0) {
		kai_queue_changes_free(c, list->n);
		ytree_free(root);
		return rc;
	}
	*out = c;
	*n = list->n;
	ytree_free(root);
	return 0;
}
