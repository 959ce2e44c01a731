/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_queue.c: the queue messages of kctl (KAI_MSG_QUEUE_*).  See
 * proto.h; the field order is in doc/design/PROTOCOL.md.
 *
 * A queue travels as one record, described once by queue_fields[] so the
 * encoder, the decoder and the minimum record size cannot drift apart.
 * A change is {op, set} followed by a queue record.  Every list is one
 * frame: KAI_QUEUE_MAX records of the largest size (two 63-byte names)
 * stay well under the body limit.  A queue name may never be NULL on the
 * wire; a parent may (a top-level queue).
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"

_Static_assert(sizeof(enum kai_queue_op) == sizeof(uint32_t),
    "the op travels as a u32");
_Static_assert(sizeof(enum kai_queue_result) == sizeof(uint32_t),
    "the result travels as a u32");
/*
 * A record: its length, two names, 13 i64, a u32 and the count of its GPU
 * types; a list: a count and records, and at most
 * KAI_QUEUE_TYPE_SETTINGS_MAX GPU types in all.
 */
_Static_assert(4 + (size_t)KAI_QUEUE_MAX * (4 + 2 * (4 + KAI_QUEUE_NAME_MAX) +
    13 * 8 + 4 + 4) + (size_t)KAI_QUEUE_TYPE_SETTINGS_MAX *
    (4 + KAI_QUEUE_TYPE_WIRE_MAX) <= KAI_PROTO_BODY_MAX,
    "a full queue list fits one frame");

/* clang-format off */
#define Q(m)	    offsetof(struct kai_queue, m)
#define NAME(n, m)  {n, KAI_CODEC_STR, Q(m), 0, KAI_QUEUE_NAME_MAX, 0}
#define I64(n, m)   {n, KAI_CODEC_I64, Q(m), 0, 0, 0}
#define RES(r, n)   I64(n "_quota", res[r].quota), \
		    I64(n "_limit", res[r].limit), \
		    I64(n "_weight", res[r].weight)

/* A queue record on the wire, in order (PROTOCOL.md "queue"). */
static const struct kai_codec_field queue_fields[] = {
	NAME("name", name),
	NAME("parent", parent),
	I64("priority", priority),
	RES(KAI_QUEUE_GPU, "gpu"),
	RES(KAI_QUEUE_CPU, "cpu"),
	RES(KAI_QUEUE_MEM, "memory"),
	I64("preempt_min_runtime_s", preempt_min_runtime_s),
	I64("reclaim_min_runtime_s", reclaim_min_runtime_s),
	I64("order", order),
	{"active_jobs", KAI_CODEC_U32, Q(active_jobs), 0, 0, 0},
	{"gpu_types", KAI_CODEC_STRV, Q(wire_types), Q(nwire_types),
	    KAI_QUEUE_TYPE_WIRE_MAX, KAI_QUEUE_TYPES_MAX},
};

/* The head of a change, before its queue record. */
static const struct kai_codec_field change_fields[] = {
	{"op", KAI_CODEC_ENUM, offsetof(struct kai_queue_change, op), 0,
	    KAI_QUEUE_NOPS, 0},
	{"set", KAI_CODEC_U32, offsetof(struct kai_queue_change, set), 0, 0, 0},
};

static const struct kai_codec_field outcome_fields[] = {
	{"name", KAI_CODEC_STR, offsetof(struct kai_queue_outcome, name), 0,
	    KAI_QUEUE_NAME_MAX, 0},
	{"result", KAI_CODEC_ENUM, offsetof(struct kai_queue_outcome, result),
	    0, KAI_QUEUE_NRESULTS, 0},
};
/* clang-format on */
#define NQ KAI_NELEM(queue_fields)
#define NC KAI_NELEM(change_fields)
#define NO KAI_NELEM(outcome_fields)

/*
 * A GPU type travels as one string, "TYPE QUOTA LIMIT WEIGHT" in core
 * units (the codec has no nested records); the struct keeps them parsed.
 */
static int
put_queue(struct kai_buf *b, const struct kai_queue *q)
{
	char *w[KAI_QUEUE_TYPES_MAX];
	struct kai_queue tmp;
	size_t i;
	int rc;

	if (q->name == NULL || q->ntypes > KAI_QUEUE_TYPES_MAX)
		return KAI_EINVAL;
	tmp = *q;
	for (i = 0; i < q->ntypes; i++)
		w[i] = kai_queue_type_wire(&q->types[i]);
	tmp.wire_types = w;
	tmp.nwire_types = q->ntypes;
	rc = kai_codec_put_record(b, queue_fields, NQ, &tmp);
	for (i = 0; i < q->ntypes; i++)
		free(w[i]);
	return rc;
}

static int
get_queue(struct kai_codec_rd *r, struct kai_queue *q)
{
	size_t i;
	int rc;

	if ((rc = kai_codec_get_record(r, queue_fields, NQ, q)) != 0)
		return rc;
	if (q->name == NULL)
		return kai_err_set(r->err, KAI_EPROTO,
		    "field \"name\" is null");
	for (i = 0; i < q->nwire_types; i++)
		if (kai_queue_type_wire_parse(q, q->wire_types[i], r->err) !=
		    0) {
			(void)kai_err_prefix(r->err, "field \"gpu_types\"");
			return KAI_EPROTO;
		}
	for (i = 0; i < q->nwire_types; i++)
		free(q->wire_types[i]);
	KAI_FREE(q->wire_types);
	q->nwire_types = 0;
	return 0;
}

/* At most KAI_QUEUE_TYPE_SETTINGS_MAX GPU types in a list. */
static int
types_total(const struct kai_queue *q, size_t n, size_t stride,
    struct kai_err *err)
{
	size_t i, t = 0;

	for (i = 0; i < n; i++)
		t += ((const struct kai_queue *)(const void *)((const char *)q +
			  i * stride))->ntypes;
	if (t > KAI_QUEUE_TYPE_SETTINGS_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "more than %d GPU type settings in all queues",
		    KAI_QUEUE_TYPE_SETTINGS_MAX);
	return 0;
}

int
kai_msg_queues_encode(struct kai_buf *b, const struct kai_queue *q, size_t n)
{
	size_t start = b->len, i;
	int rc;

	if ((n > 0 && q == NULL) || types_total(q, n, sizeof(*q), NULL) != 0)
		return KAI_EINVAL;
	rc = kai_codec_put_count(b, n, KAI_QUEUE_MAX);
	for (i = 0; i < n && rc == 0; i++)
		rc = put_queue(b, &q[i]);
	if (rc != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_queues_decode(const void *p, size_t len, struct kai_queue **out,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_queue *a = NULL;
	size_t c = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "queue", KAI_QUEUE_MAX,
		 KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c && rc == 0; i++)
		rc = get_queue(&r, &a[i]);
	if (rc == 0 && types_total(a, c, sizeof(*a), err) != 0)
		rc = KAI_EPROTO;
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_queues_free(a, c);
		return rc;
	}
	*out = a;
	*n = c;
	return 0;
}

int
kai_msg_queue_apply_encode(struct kai_buf *b, const struct kai_queue_change *c,
    size_t n)
{
	size_t start = b->len, i;
	int rc;

	if (n == 0 || c == NULL ||
	    types_total(&c->q, n, sizeof(*c), NULL) != 0)
		return KAI_EINVAL;
	rc = kai_codec_put_count(b, n, KAI_QUEUE_MAX);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = kai_codec_put_record(b, change_fields, NC, &c[i])) ==
		    0)
			rc = put_queue(b, &c[i].q);
	if (rc != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_queue_apply_decode(const void *p, size_t len,
    struct kai_queue_change **out, size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_queue_change *a = NULL;
	size_t c = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "change", KAI_QUEUE_MAX,
		 2 * KAI_CODEC_RECORD_MIN /* a change, then its queue */,
		 &c)) != 0)
		return rc;
	if (c == 0)
		return kai_err_set(err, KAI_EPROTO, "no queue to change");
	a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c && rc == 0; i++) {
		if ((rc = kai_codec_get_record(&r, change_fields, NC,
			 &a[i])) != 0 ||
		    (rc = get_queue(&r, &a[i].q)) != 0)
			break;
		if ((a[i].set & ~KAI_QUEUE_SET_VALID) != 0)
			rc = kai_err_set(err, KAI_EPROTO,
			    "unrecognized bits in field \"set\": 0x%x",
			    (unsigned)(a[i].set & ~KAI_QUEUE_SET_VALID));
	}
	if (rc == 0 && types_total(&a->q, c, sizeof(*a), err) != 0)
		rc = KAI_EPROTO;
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_queue_changes_free(a, c);
		return rc;
	}
	*out = a;
	*n = c;
	return 0;
}

void
kai_queue_changes_free(struct kai_queue_change *c, size_t n)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < n; i++)
		kai_queue_fini(&c[i].q);
	free(c);
}

int
kai_msg_queue_outcomes_encode(struct kai_buf *b,
    const struct kai_queue_outcome *o, size_t n)
{
	size_t start = b->len, i;
	int rc;

	if (n > 0 && o == NULL)
		return KAI_EINVAL;
	rc = kai_codec_put_count(b, n, KAI_QUEUE_MAX);
	for (i = 0; i < n && rc == 0; i++)
		rc = o[i].name == NULL ? KAI_EINVAL :
		    kai_codec_put_record(b, outcome_fields, NO, &o[i]);
	if (rc != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_queue_outcomes_decode(const void *p, size_t len,
    struct kai_queue_outcome **out, size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_queue_outcome *a = NULL;
	size_t c = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "result", KAI_QUEUE_MAX,
		 KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c && rc == 0; i++)
		if ((rc = kai_codec_get_record(&r, outcome_fields, NO,
			 &a[i])) == 0 && a[i].name == NULL)
			rc = kai_err_set(err, KAI_EPROTO,
			    "field \"name\" is null");
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_queue_outcomes_free(a, c);
		return rc;
	}
	*out = a;
	*n = c;
	return 0;
}

void
kai_queue_outcomes_free(struct kai_queue_outcome *o, size_t n)
{
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < n; i++)
		free(o[i].name);
	free(o);
}

int
kai_msg_queue_delete_encode(struct kai_buf *b, char *const *names, size_t n)
{
	if (n == 0)
		return KAI_EINVAL;
	return kai_codec_put_strv(b, names, n, KAI_QUEUE_MAX,
	    KAI_QUEUE_NAME_MAX);
}

int
kai_msg_queue_delete_decode(const void *p, size_t len, char ***names,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	*names = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_strv(&r, "name", KAI_QUEUE_MAX,
		 KAI_QUEUE_NAME_MAX, names, n)) != 0)
		return rc;
	if (*n == 0)
		rc = kai_err_set(err, KAI_EPROTO, "no queue to delete");
	else
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_codec_strv_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return rc;
}

int
kai_msg_u32_encode(struct kai_buf *b, uint32_t v)
{
	return kai_codec_put_u32(b, v);
}

int
kai_msg_u32_decode(const void *p, size_t len, uint32_t *v,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	uint32_t x;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "value", &x)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	*v = x;
	return 0;
}
