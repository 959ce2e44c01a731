/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queue.c: the queue record of kctl and kaid (see proto.h): defaults,
 * copies, the checks of one queue's own values, and exact decimal
 * conversions for quotas given in GPUs ("1.5") and weights ("0.25").
 *
 * Values are integers in the scheduler core's units, so a GPU quota of
 * 0.46 is 460000 micro-GPUs from kctl's command line to the core: no
 * binary floating point on the way, and a value read back prints the way
 * it was typed.  The checks here are the ones that need nothing but the
 * queue itself; the tree (parents, cycles, jobs in parent queues) is
 * checked by the store, which sees every queue.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/proto.h"

void
kai_queue_init(struct kai_queue *q)
{
	int r;

	memset(q, 0, sizeof(*q));
	q->priority = 100;
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		q->res[r].quota = KAI_QUEUE_UNLIMITED;
		q->res[r].limit = KAI_QUEUE_UNLIMITED;
		q->res[r].weight = KAI_QUEUE_WEIGHT_UNIT;
	}
	q->preempt_min_runtime_s = -1;
	q->reclaim_min_runtime_s = -1;
}

void
kai_queue_fini(struct kai_queue *q)
{
	if (q == NULL)
		return;
	free(q->name);
	free(q->parent);
	q->name = q->parent = NULL;
	kai_queue_types_clear(q);
}

void
kai_queues_free(struct kai_queue *q, size_t n)
{
	size_t i;

	if (q == NULL)
		return;
	for (i = 0; i < n; i++)
		kai_queue_fini(&q[i]);
	free(q);
}

void
kai_queue_copy(struct kai_queue *dst, const struct kai_queue *src)
{
	size_t i;

	*dst = *src;
	dst->name = src->name != NULL ? kai_xstrdup(src->name) : NULL;
	dst->parent = src->parent != NULL ? kai_xstrdup(src->parent) : NULL;
	dst->types = NULL;
	dst->wire_types = NULL;
	dst->nwire_types = 0;
	if (src->ntypes > 0) {
		dst->types = kai_xcalloc(src->ntypes, sizeof(*dst->types));
		for (i = 0; i < src->ntypes; i++) {
			dst->types[i] = src->types[i];
			dst->types[i].type = kai_xstrdup(src->types[i].type);
		}
	}
}

const char *
kai_queue_res_name(enum kai_queue_res r)
{
	switch (r) {
	case KAI_QUEUE_GPU:
		return "gpu";
	case KAI_QUEUE_CPU:
		return "cpu";
	case KAI_QUEUE_MEM:
		return "memory";
	case KAI_QUEUE_NRES:
		break;
	}
	return "?";
}

const char *
kai_queue_result_name(enum kai_queue_result r)
{
	switch (r) {
	case KAI_QUEUE_CREATED:
		return "created";
	case KAI_QUEUE_UPDATED:
		return "updated";
	case KAI_QUEUE_UNCHANGED:
		return "unchanged";
	case KAI_QUEUE_NRESULTS:
		break;
	}
	return "?";
}

int
kai_queue_name_check(const char *name, struct kai_err *err)
{
	size_t i, n = name != NULL ? strlen(name) : 0;
	bool ok = n >= 1 && n <= KAI_QUEUE_NAME_MAX;

	for (i = 0; ok && i < n; i++)
		ok = (name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
		    name[i] == '-';
	if (ok)
		return 0;
	return kai_err_set(err, KAI_EINVAL,
	    "invalid queue name \"%.*s\": expected 1 to %d lower-case "
	    "letters, digits, '_' and '-'",
	    (int)(n > 80 ? 80 : n), name != NULL ? name : "",
	    KAI_QUEUE_NAME_MAX);
}

/* One resource's quota, limit and weight, and the two together. */
static int
check_res(const struct kai_queue *q, enum kai_queue_res r,
    struct kai_err *err)
{
	const struct kai_queue_qres *x = &q->res[r];
	int64_t unit = r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1;
	char a[32], b[32];

	if (x->quota < -1 || x->quota > KAI_QUEUE_VALUE_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": invalid %s quota: expected -1 (unlimited) "
		    "or a value of at least 0", q->name, kai_queue_res_name(r));
	if (x->limit < -1 || x->limit > KAI_QUEUE_VALUE_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": invalid %s limit: expected -1 (none) "
		    "or a value of at least 0", q->name, kai_queue_res_name(r));
	if (x->weight < 0 || x->weight > KAI_QUEUE_WEIGHT_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": invalid %s over_quota_weight: expected a "
		    "value of at least 0", q->name, kai_queue_res_name(r));
	if (x->limit >= 0 && x->quota > x->limit) {
		kai_queue_fmt_units(x->limit, unit, a, sizeof(a));
		kai_queue_fmt_units(x->quota, unit, b, sizeof(b));
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": %s limit %s is below its quota %s", q->name,
		    kai_queue_res_name(r), a, b);
	}
	return 0;
}

int
kai_queue_check(const struct kai_queue *q, struct kai_err *err)
{
	int r, rc;

	if ((rc = kai_queue_name_check(q->name, err)) != 0)
		return rc;
	if (q->parent != NULL) {
		if ((rc = kai_queue_name_check(q->parent, err)) != 0)
			return kai_err_prefix(err, "queue \"%s\": parent",
			    q->name);
		if (strcmp(q->parent, q->name) == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\" cannot be its own parent", q->name);
	}
	if (q->priority < KAI_QUEUE_PRIO_MIN || q->priority > KAI_QUEUE_PRIO_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": priority %" PRId64 " is out of range",
		    q->name, q->priority);
	if (q->preempt_min_runtime_s < -1 ||
	    q->preempt_min_runtime_s > KAI_QUEUE_RUNTIME_MAX ||
	    q->reclaim_min_runtime_s < -1 ||
	    q->reclaim_min_runtime_s > KAI_QUEUE_RUNTIME_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": a minimum runtime must be -1 (inherit) or "
		    "0 to %" PRId64 " seconds", q->name, KAI_QUEUE_RUNTIME_MAX);
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		if ((rc = check_res(q, (enum kai_queue_res)r, err)) != 0)
			return rc;
	return kai_queue_types_check(q, err);
}

/* Fraction digits of unit (a power of ten), or -1 when it is not one. */
static int
unit_digits(int64_t unit)
{
	int d = 0;

	while (unit > 1 && unit % 10 == 0) {
		unit /= 10;
		d++;
	}
	return unit == 1 ? d : -1;
}

void
kai_queue_fmt_units(int64_t v, int64_t unit, char *buf, size_t size)
{
	int d = unit_digits(unit), w;
	int64_t f;
	char frac[24];

	if (v < 0 || d <= 0 || d >= (int)sizeof(frac)) {
		(void)snprintf(buf, size, "%" PRId64, v < 0 && d > 0 ? -1 : v);
		return;
	}
	/* The fraction's digits, leading zeros included, then cut the
	 * trailing ones. */
	for (w = d, f = v % unit; w > 0; w--, f /= 10)
		frac[w - 1] = (char)('0' + f % 10);
	frac[d] = '\0';
	for (w = d; w > 0 && frac[w - 1] == '0'; w--)
		frac[w - 1] = '\0';
	if (w == 0)
		(void)snprintf(buf, size, "%" PRId64, v / unit);
	else
		(void)snprintf(buf, size, "%" PRId64 ".%s", v / unit, frac);
}

static int
parse_fail(const char *s, const char *what, struct kai_err *err)
{
	return kai_err_set(err, KAI_EINVAL,
	    "invalid %s \"%.40s\": expected -1 or a number of at least 0",
	    what, s);
}

int
kai_queue_parse_units(const char *s, int64_t unit, int64_t max,
    const char *what, int64_t *v, struct kai_err *err)
{
	int d = unit_digits(unit), nf = 0;
	int64_t whole = 0, frac = 0;
	const char *p = s;

	if (strcmp(s, "-1") == 0) {
		*v = -1;
		return 0;
	}
	if (d < 0 || *p < '0' || *p > '9')
		return parse_fail(s, what, err);
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > max / unit)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid %s \"%.40s\": too large", what, s);
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, nf++)
			if (nf < d)
				frac = frac * 10 + (*p - '0');
			else if (*p != '0' && d == 0)
				return kai_err_set(err, KAI_EINVAL,
				    "invalid %s \"%.40s\": expected a whole "
				    "number", what, s);
			else if (*p != '0')
				return kai_err_set(err, KAI_EINVAL,
				    "invalid %s \"%.40s\": at most %d decimal "
				    "places", what, s, d);
		if (nf == 0)
			return parse_fail(s, what, err);
	}
	if (*p != '\0')
		return parse_fail(s, what, err);
	for (; nf < d; nf++)
		frac *= 10;
	if (whole * unit + frac > max)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%.40s\": too large", what, s);
	*v = whole * unit + frac;
	return 0;
}
