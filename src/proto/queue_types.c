/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queue_types.c: a queue's settings per GPU type (see proto.h and
 * doc/scheduler.md, "GPU types"): the sorted list of struct
 * kai_queue_gtype in the queue record, its checks, kctl's
 * "TYPE:QUOTA[:LIMIT[:WEIGHT]]" and the form the list travels in.
 *
 * The list stays sorted by name, so two queues that name the same types
 * compare equal element by element and every client prints them in the
 * same order.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/proto.h"

static bool
type_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > KAI_QUEUE_TYPE_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
			s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

void
kai_queue_types_clear(struct kai_queue *q)
{
	size_t i;

	for (i = 0; i < q->ntypes; i++)
		free(q->types[i].type);
	KAI_FREE(q->types);
	q->ntypes = 0;
	for (i = 0; i < q->nwire_types; i++)
		free(q->wire_types[i]);
	KAI_FREE(q->wire_types);
	q->nwire_types = 0;
}

const struct kai_queue_gtype *
kai_queue_type_find(const struct kai_queue *q, const char *type)
{
	size_t i;

	for (i = 0; i < q->ntypes; i++)
		if (strcmp(q->types[i].type, type) == 0)
			return &q->types[i];
	return NULL;
}

int
kai_queue_type_set(struct kai_queue *q, const char *type, int64_t quota,
    int64_t limit, int64_t weight, struct kai_err *err)
{
	struct kai_queue_gtype *x;
	size_t i;

	if (!type_name_ok(type) && (q->name == NULL || *q->name == '\0'))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU type \"%.70s\": expected 1 to %d letters, "
		    "digits, '-', '_' and '.'", type, KAI_QUEUE_TYPE_NAME_MAX);
	if (!type_name_ok(type))
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": invalid GPU type \"%.70s\": expected 1 to "
		    "%d letters, digits, '-', '_' and '.'", q->name, type,
		    KAI_QUEUE_TYPE_NAME_MAX);
	x = (struct kai_queue_gtype *)kai_queue_type_find(q, type);
	if (x == NULL) {
		if (q->ntypes >= KAI_QUEUE_TYPES_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": more than %d GPU types",
			    q->name != NULL ? q->name : "",
			    KAI_QUEUE_TYPES_MAX);
		q->types = kai_xreallocarray(q->types, q->ntypes + 1,
		    sizeof(*q->types));
		for (i = q->ntypes; i > 0 &&
		     strcmp(q->types[i - 1].type, type) > 0;
		     i--)
			q->types[i] = q->types[i - 1];
		x = &q->types[i];
		x->type = kai_xstrdup(type);
		q->ntypes++;
	}
	x->quota = quota;
	x->limit = limit;
	x->weight = weight;
	return 0;
}

int
kai_queue_types_check(const struct kai_queue *q, struct kai_err *err)
{
	char a[32], b[32];
	size_t i;

	if (q->ntypes > KAI_QUEUE_TYPES_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\": more than %d GPU types", q->name,
		    KAI_QUEUE_TYPES_MAX);
	for (i = 0; i < q->ntypes; i++) {
		const struct kai_queue_gtype *x = &q->types[i];

		if (x->type == NULL || !type_name_ok(x->type))
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": invalid GPU type \"%.70s\"",
			    q->name, x->type != NULL ? x->type : "");
		if (i > 0 && strcmp(q->types[i - 1].type, x->type) >= 0)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": GPU type \"%s\" is given twice or "
			    "out of order", q->name, x->type);
		if (x->quota < -1 || x->quota > KAI_QUEUE_VALUE_MAX ||
		    x->limit < -1 || x->limit > KAI_QUEUE_VALUE_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": GPU type \"%s\": a quota or limit "
			    "must be -1 or a value of at least 0", q->name,
			    x->type);
		if (x->weight < -1 || x->weight > KAI_QUEUE_WEIGHT_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": GPU type \"%s\": invalid "
			    "over_quota_weight", q->name, x->type);
		if (x->limit >= 0 && x->quota > x->limit) {
			kai_queue_fmt_units(x->limit, KAI_QUEUE_GPU_UNIT, a,
			    sizeof(a));
			kai_queue_fmt_units(x->quota, KAI_QUEUE_GPU_UNIT, b,
			    sizeof(b));
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\": %s limit %s is below its quota %s",
			    q->name, x->type, a, b);
		}
	}
	return 0;
}

bool
kai_queue_types_equal(const struct kai_queue *a, const struct kai_queue *b)
{
	size_t i;

	if (a->ntypes != b->ntypes)
		return false;
	for (i = 0; i < a->ntypes; i++)
		if (strcmp(a->types[i].type, b->types[i].type) != 0 ||
		    a->types[i].quota != b->types[i].quota ||
		    a->types[i].limit != b->types[i].limit ||
		    a->types[i].weight != b->types[i].weight)
			return false;
	return true;
}

/* The next ':'-separated part of *p into buf; false when too long. */
static bool
part(const char **p, char *buf, size_t size)
{
	const char *e = strchr(*p, ':');
	size_t n = e != NULL ? (size_t)(e - *p) : strlen(*p);

	if (n >= size)
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p = e != NULL ? e + 1 : NULL;
	return true;
}

int
kai_queue_type_parse(struct kai_queue *q, const char *s, struct kai_err *err)
{
	char type[KAI_QUEUE_TYPE_NAME_MAX + 2], v[3][40];
	int64_t x[3] = {0, -1, -1};
	const char *p = s;
	int i, rc;

	if (!part(&p, type, sizeof(type)) || p == NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU type \"%.70s\": expected "
		    "TYPE:QUOTA[:LIMIT[:WEIGHT]]", s);
	for (i = 0; i < 3 && p != NULL; i++) {
		if (!part(&p, v[i], sizeof(v[i])))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid GPU type \"%.70s\": a value is too long",
			    s);
		rc = kai_queue_parse_units(v[i],
		    i < 2 ? KAI_QUEUE_GPU_UNIT : KAI_QUEUE_WEIGHT_UNIT,
		    i < 2 ? KAI_QUEUE_VALUE_MAX : KAI_QUEUE_WEIGHT_MAX,
		    i == 0 ? "GPU type quota"
			   : i == 1 ? "GPU type limit" : "GPU type weight",
		    &x[i], err);
		if (rc != 0)
			return rc;
	}
	if (p != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU type \"%.70s\": expected "
		    "TYPE:QUOTA[:LIMIT[:WEIGHT]]", s);
	return kai_queue_type_set(q, type, x[0], x[1], x[2], err);
}

char *
kai_queue_type_wire(const struct kai_queue_gtype *x)
{
	return kai_xasprintf("%s %" PRId64 " %" PRId64 " %" PRId64, x->type,
	    x->quota, x->limit, x->weight);
}

int
kai_queue_type_wire_parse(struct kai_queue *q, const char *s,
    struct kai_err *err)
{
	char name[KAI_QUEUE_TYPE_WIRE_MAX + 1];
	int64_t v[3];
	int n = 0;

	if (strlen(s) > KAI_QUEUE_TYPE_WIRE_MAX ||
	    sscanf(s, "%127s %" SCNd64 " %" SCNd64 " %" SCNd64 "%n", name,
		&v[0], &v[1], &v[2], &n) != 4 ||
	    s[n] != '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU type entry \"%.80s\"", s);
	return kai_queue_type_set(q, name, v[0], v[1], v[2], err);
}
