/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_queue.c: a KAI Queue object (scheduling.run.ai/v2, cluster-scoped)
 * as a kaid queue record.
 *
 * KAI's units and defaults (its queue_types.go and the proportion plugin)
 * are turned into the core's:
 *
 *	gpu	GPUs, fractions allowed	-> micro-GPUs
 *	cpu	millicores		-> millicores
 *	memory	MB (10^6 bytes)		-> MiB (rounded down: never more
 *					   than the manifest grants)
 *	overQuotaWeight (a float)	-> millionths
 *	-1				-> -1 (unlimited), for quota and limit
 *
 * A field left out has Go's zero value, as in KAI: quota 0, limit 0 (which
 * in KAI blocks the resource), weight 0; priority 100.  The min runtimes
 * are Go durations ("90s", "1h30m"), in whole seconds for the core
 * (rounded up: a workload is never preempted earlier than asked); absent
 * = inherit.  An object that makes no queue is not dropped: it comes
 * back with `error` naming the field and the reason, so kaid can say so
 * on the object (a Warning event) instead of ignoring it silently.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "proto/proto.h"

#define MB_BYTES  1000000.0
#define MIB_BYTES 1048576.0

static struct json_object *
get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static const char *
get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

/* Sets q->error once (the first fault is the one reported). */
static int
fault(struct kai_kube_queue *q, const char *field, const char *why)
{
	char buf[512];

	if (q->error == NULL) {
		(void)snprintf(buf, sizeof(buf), "%s: %s", field, why);
		q->error = kai_xstrdup(buf);
	}
	return -1;
}

/* A number of field into *out (scaled by mul); -1 stays -1. */
static int
number(struct kai_kube_queue *q, struct json_object *o, const char *key,
    const char *field, double mul, bool down, int64_t *out)
{
	struct json_object *v = get(o, key);
	double d, x;

	if (v == NULL) {
		*out = 0;
		return 0;
	}
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return fault(q, field, "expected a number");
	d = json_object_get_double(v);
	if (d == -1.0) {
		*out = -1;
		return 0;
	}
	if (!isfinite(d) || d < 0)
		return fault(q, field,
		    "expected -1 (unlimited) or a number of at least 0");
	x = d * mul;
	if (x > (double)KAI_QUEUE_VALUE_MAX)
		return fault(q, field, "too large");
	/* x >= 0: the casts truncate, so no libm is needed. */
	*out = down ? (int64_t)(x + 1e-9) : (int64_t)(x + 0.5);
	return 0;
}

static int
resource(struct kai_kube_queue *q, struct json_object *res,
    enum kai_queue_res r)
{
	static const char *const key[KAI_QUEUE_NRES] = {"gpu", "cpu",
	    "memory"};
	struct kai_queue_qres *x = &q->q.res[r];
	struct json_object *o = get(res, key[r]);
	double mul = r == KAI_QUEUE_GPU ? (double)KAI_QUEUE_GPU_UNIT :
	    r == KAI_QUEUE_MEM ? MB_BYTES / MIB_BYTES : 1.0;
	char f[3][64];
	int64_t w;

	(void)snprintf(f[0], sizeof(f[0]), "spec.resources.%s.quota", key[r]);
	(void)snprintf(f[1], sizeof(f[1]), "spec.resources.%s.limit", key[r]);
	(void)snprintf(f[2], sizeof(f[2]), "spec.resources.%s.overQuotaWeight",
	    key[r]);
	if (o != NULL && !json_object_is_type(o, json_type_object))
		{
		char f0[48];

		(void)snprintf(f0, sizeof(f0), "spec.resources.%s", key[r]);
		return fault(q, f0, "expected an object");
	}
	if (number(q, o, "quota", f[0], mul, r == KAI_QUEUE_MEM,
	    &x->quota) != 0 ||
	    number(q, o, "limit", f[1], mul, r == KAI_QUEUE_MEM,
	    &x->limit) != 0 ||
	    number(q, o, "overQuotaWeight", f[2],
	    (double)KAI_QUEUE_WEIGHT_UNIT, false, &w) != 0)
		return -1;
	if (w < 0)
		return fault(q, f[2], "expected a number of at "
		    "least 0");
	x->weight = w;
	if (x->quota > x->limit && x->limit >= 0)
		return fault(q, f[1], "is below the quota");
	return 0;
}

int
kai_kube_duration_s(const char *s, int64_t *out)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6},
	    {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
	enum { NUNITS = sizeof(units) / sizeof(units[0]) };
	double total = 0, v;
	const char *p = s;
	char *end;
	size_t i, n, best;

	if (s == NULL || *s == '\0')
		return KAI_EINVAL;
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	while (*p != '\0') {
		if (!(*p >= '0' && *p <= '9') && *p != '.')
			return KAI_EINVAL;
		v = strtod(p, &end);
		if (end == p)
			return KAI_EINVAL;
		p = end;
		/* The longest unit that matches: "ms" before "m". */
		for (i = 0, n = 0, best = 0; i < NUNITS; i++) {
			size_t l = strlen(units[i].unit);

			if (strncmp(p, units[i].unit, l) == 0 && l > n) {
				n = l;
				best = i;
			}
		}
		if (n == 0)
			return KAI_EINVAL;
		i = best;
		total += v * units[i].s;
		p += n;
	}
	if (!isfinite(total) || total > (double)KAI_QUEUE_RUNTIME_MAX)
		return KAI_EINVAL;
	*out = (int64_t)total;
	if ((double)*out < total - 1e-9)
		(*out)++;
	return 0;
}

static int
runtime(struct kai_kube_queue *q, struct json_object *spec, const char *key,
    int64_t *out)
{
	struct json_object *v = get(spec, key);
	char field[64];

	(void)snprintf(field, sizeof(field), "spec.%s", key);
	if (v == NULL) {
		*out = -1;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string) ||
	    kai_kube_duration_s(json_object_get_string(v), out) != 0)
		return fault(q, field, "expected a duration such as "
		    "\"90s\" or \"1h30m\", at most 68 years");
	return 0;
}

/* The fields of q's spec; -1 with q->error set at the first bad one. */
static int
read_spec(struct kai_kube_queue *q, struct json_object *spec)
{
	struct json_object *res, *prio;
	const char *parent;
	struct kai_err e;
	int r;

	if (kai_queue_name_check(q->name, &e) != 0)
		return fault(q, "metadata.name", "kaid's queue "
		    "names are 1 to 63 lower-case letters, digits, '_' and "
		    "'-'");
	if (spec == NULL || !json_object_is_type(spec, json_type_object))
		return fault(q, "spec", "missing");
	parent = get_str(spec, "parentQueue");
	if (get(spec, "parentQueue") != NULL && parent == NULL)
		return fault(q, "spec.parentQueue", "expected a string");
	if (parent != NULL && *parent != '\0') {
		if (kai_queue_name_check(parent, &e) != 0)
			return fault(q, "spec.parentQueue",
			    "not a valid queue name");
		q->q.parent = kai_xstrdup(parent);
	}
	if ((prio = get(spec, "priority")) != NULL) {
		if (!json_object_is_type(prio, json_type_int))
			return fault(q, "spec.priority", "expected an integer");
		q->q.priority = json_object_get_int64(prio);
		if (q->q.priority < KAI_QUEUE_PRIO_MIN ||
		    q->q.priority > KAI_QUEUE_PRIO_MAX)
			return fault(q, "spec.priority", "out of range");
	}
	/* KAI's admission webhook refuses a Queue without resources. */
	res = get(spec, "resources");
	if (res == NULL || !json_object_is_type(res, json_type_object))
		return fault(q, "spec.resources", "missing");
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		if (resource(q, res, (enum kai_queue_res)r) != 0)
			return -1;
	if (runtime(q, spec, "preemptMinRuntime",
	    &q->q.preempt_min_runtime_s) != 0 ||
	    runtime(q, spec, "reclaimMinRuntime",
	    &q->q.reclaim_min_runtime_s) != 0)
		return -1;
	/* Whatever else the record refuses, in its words. */
	if (kai_queue_check(&q->q, &e) != 0)
		return fault(q, "spec", e.msg);
	return 0;
}

static int
from_json(struct json_object *o, struct kai_kube_queue *q,
    struct kai_err *err)
{
	struct json_object *meta = get(o, "metadata");
	const char *name = get_str(meta, "name");

	memset(q, 0, sizeof(*q));
	kai_queue_init(&q->q);
	if (name == NULL)
		return kai_err_set(err, KAI_EKUBE,
		    "Queue without metadata.name");
	q->name = kai_xstrdup(name);
	q->uid = kai_xstrdup(get_str(meta, "uid") != NULL ?
	    get_str(meta, "uid") : "");
	q->q.name = kai_xstrdup(name);
	/* A bad field is q->error, for kaid to say on the object. */
	(void)read_spec(q, get(o, "spec"));
	return 0;
}

int
kube_queue_from_json(struct json_object *o, struct kai_kube_queue *q,
    struct kai_err *err)
{
	int r = from_json(o, q, err);

	if (r != 0)
		kai_kube_queue_fini(q);
	return r;
}

int
kai_kube_queue_parse(const char *json, struct kai_kube_queue *q,
    struct kai_err *err)
{
	struct json_object *o;
	int r;

	memset(q, 0, sizeof(*q));
	if ((o = kube_json_parse(json, strlen(json), err)) == NULL)
		return KAI_EKUBE;
	r = kube_queue_from_json(o, q, err);
	json_object_put(o);
	return r;
}

void
kai_kube_queue_fini(struct kai_kube_queue *q)
{
	if (q == NULL)
		return;
	free(q->name);
	free(q->uid);
	free(q->error);
	kai_queue_fini(&q->q);
	memset(q, 0, sizeof(*q));
}
