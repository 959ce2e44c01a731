/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-queue: the queue messages of kctl (KAI_MSG_QUEUE_*) and the queue
 * record's own checks and decimal conversions.
 *
 * Every message round-trips field by field, every proper prefix of a
 * valid body is refused (and the body plus one byte too), and the limits
 * the codec promises (names, counts, enum values, unknown bits) are
 * refused on both sides.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "proto/proto.h"
#include "tap.h"

#define BIG ((size_t)4 << 20)

typedef int decode_fn(const void *p, size_t n, struct kai_err *err);

/* Every proper prefix, and the body plus a byte, must fail to decode. */
static void
check_prefixes(const char *what, const struct kai_buf *b, decode_fn *dec)
{
	struct kai_err err;
	uint8_t *p = kai_xmalloc(b->len + 1);
	size_t n, bad = 0;

	memcpy(p, b->data, b->len);
	p[b->len] = 0;
	for (n = 0; n < b->len; n++)
		if (dec(p, n, &err) != KAI_EPROTO)
			bad++;
	if (dec(p, b->len + 1, &err) != KAI_EPROTO ||
	    strstr(err.msg, "trailing") == NULL)
		bad++;
	is_int((int64_t)bad, 0, "%s: all %zu prefixes and a trailing byte "
	    "refused", what, b->len);
	free(p);
}

static int
dec_queues(const void *p, size_t n, struct kai_err *err)
{
	struct kai_queue *q;
	size_t c;
	int r = kai_msg_queues_decode(p, n, &q, &c, err);

	kai_queues_free(q, c);
	return r;
}

static int
dec_apply(const void *p, size_t n, struct kai_err *err)
{
	struct kai_queue_change *c;
	size_t k;
	int r = kai_msg_queue_apply_decode(p, n, &c, &k, err);

	kai_queue_changes_free(c, k);
	return r;
}

static int
dec_outcomes(const void *p, size_t n, struct kai_err *err)
{
	struct kai_queue_outcome *o;
	size_t k;
	int r = kai_msg_queue_outcomes_decode(p, n, &o, &k, err);

	kai_queue_outcomes_free(o, k);
	return r;
}

static int
dec_delete(const void *p, size_t n, struct kai_err *err)
{
	char **v;
	size_t k, i;
	int r = kai_msg_queue_delete_decode(p, n, &v, &k, err);

	for (i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return r;
}

/* A queue with every field set to something distinct. */
static void
sample(struct kai_queue *q, const char *name, const char *parent)
{
	int r;

	kai_queue_init(q);
	q->name = kai_xstrdup(name);
	q->parent = parent != NULL ? kai_xstrdup(parent) : NULL;
	q->priority = -7;
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		q->res[r].quota = 1500000 + r;
		q->res[r].limit = 8000000 + r;
		q->res[r].weight = 250000 + r;
	}
	q->preempt_min_runtime_s = 30;
	q->reclaim_min_runtime_s = -1;
	q->order = 42;
	q->active_jobs = 3;
}

static bool
same(const struct kai_queue *a, const struct kai_queue *b)
{
	int r;

	if (strcmp(a->name, b->name) != 0 ||
	    (a->parent == NULL) != (b->parent == NULL) ||
	    (a->parent != NULL && strcmp(a->parent, b->parent) != 0))
		return false;
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		if (a->res[r].quota != b->res[r].quota ||
		    a->res[r].limit != b->res[r].limit ||
		    a->res[r].weight != b->res[r].weight)
			return false;
	return a->priority == b->priority &&
	    a->preempt_min_runtime_s == b->preempt_min_runtime_s &&
	    a->reclaim_min_runtime_s == b->reclaim_min_runtime_s &&
	    a->order == b->order && a->active_jobs == b->active_jobs &&
	    kai_queue_types_equal(a, b);
}

static void
test_list(void)
{
	struct kai_queue q[2], *got = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t n = 9;

	sample(&q[0], "research", NULL);
	sample(&q[1], "vision", "research");
	kai_buf_init(&b, BIG);
	is_int(kai_msg_queues_encode(&b, q, 2), 0, "queue list encodes");
	is_int(kai_msg_queues_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decodes");
	ok(n == 2 && same(&got[0], &q[0]) && same(&got[1], &q[1]),
	    "every field round-trips, a NULL parent included");
	kai_queues_free(got, n);
	check_prefixes("queue list", &b, dec_queues);
	kai_buf_reset(&b);
	is_int(kai_msg_queues_encode(&b, NULL, 0), 0, "an empty list encodes");
	is_int(kai_msg_queues_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decodes");
	ok(n == 0 && got == NULL, "to nothing");
	kai_buf_reset(&b);
	free(q[0].name);
	q[0].name = NULL;
	is_int(kai_msg_queues_encode(&b, q, 2), KAI_EINVAL,
	    "a queue without a name is not encoded");
	is_int((int64_t)b.len, 0, "and leaves the buffer empty");
	kai_queue_fini(&q[0]);
	kai_queue_fini(&q[1]);
	kai_buf_fini(&b);
}

static void
test_list_limits(void)
{
	struct kai_queue *q = kai_xcalloc(KAI_QUEUE_MAX + 1, sizeof(*q));
	struct kai_queue *got = NULL;
	char name[KAI_QUEUE_NAME_MAX + 2];
	struct kai_buf b;
	struct kai_err err;
	size_t i, n = 0;

	memset(name, 'q', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i <= KAI_QUEUE_MAX; i++)
		sample(&q[i], name + 1, name + 1);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	is_int(kai_msg_queues_encode(&b, q, KAI_QUEUE_MAX), 0,
	    "%d queues with the longest names fit one frame", KAI_QUEUE_MAX);
	is_int(kai_msg_queues_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decode");
	is_int((int64_t)n, KAI_QUEUE_MAX, "all of them");
	kai_queues_free(got, n);
	kai_buf_reset(&b);
	is_int(kai_msg_queues_encode(&b, q, KAI_QUEUE_MAX + 1), KAI_EINVAL,
	    "one more is refused");
	free(q[0].name);
	q[0].name = kai_xstrdup(name);
	is_int(kai_msg_queues_encode(&b, q, 1), KAI_EINVAL,
	    "a name over %d bytes is refused", KAI_QUEUE_NAME_MAX);
	kai_queues_free(q, KAI_QUEUE_MAX + 1);
	kai_buf_fini(&b);
}

static void
test_apply(void)
{
	struct kai_queue_change c[2], *got = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t n = 0, at;

	memset(c, 0, sizeof(c));
	c[0].op = KAI_QUEUE_CREATE;
	c[0].set = KAI_QUEUE_SET_PARENT | KAI_QUEUE_SET_LIMIT(KAI_QUEUE_GPU);
	sample(&c[0].q, "vision", "research");
	c[1].op = KAI_QUEUE_REPLACE;
	c[1].set = KAI_QUEUE_SET_ALL;
	sample(&c[1].q, "research", NULL);
	kai_buf_init(&b, BIG);
	is_int(kai_msg_queue_apply_encode(&b, c, 2), 0, "apply encodes");
	is_int(kai_msg_queue_apply_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decodes");
	ok(n == 2 && got[0].op == KAI_QUEUE_CREATE &&
		got[0].set == c[0].set && same(&got[0].q, &c[0].q) &&
		got[1].op == KAI_QUEUE_REPLACE &&
		got[1].set == KAI_QUEUE_SET_ALL && same(&got[1].q, &c[1].q),
	    "op, set and the queue round-trip");
	kai_queue_changes_free(got, n);
	check_prefixes("apply", &b, dec_apply);

	/* The first change starts after the count: op at 4, set at 8. */
	at = 4 + 4;
	((uint8_t *)b.data)[at] = 0x80;
	is_int(kai_msg_queue_apply_decode(b.data, b.len, &got, &n, &err),
	    KAI_EPROTO, "unknown bits in \"set\" are refused");
	diag("%s", err.msg);
	((uint8_t *)b.data)[at] = 0;
	((uint8_t *)b.data)[4 + 3] = KAI_QUEUE_NOPS;
	is_int(kai_msg_queue_apply_decode(b.data, b.len, &got, &n, &err),
	    KAI_EPROTO, "an unknown op is refused");
	kai_buf_reset(&b);
	is_int(kai_msg_queue_apply_encode(&b, c, 0), KAI_EINVAL,
	    "an empty batch is not encoded");
	if (kai_msg_u32_encode(&b, 0) == 0)
		is_int(kai_msg_queue_apply_decode(b.data, b.len, &got, &n,
			   &err), KAI_EPROTO, "nor decoded");
	kai_queue_fini(&c[0].q);
	kai_queue_fini(&c[1].q);
	kai_buf_fini(&b);
}

static void
test_outcomes_delete(void)
{
	struct kai_queue_outcome o[2] = {{(char *)"a", KAI_QUEUE_CREATED},
	    {(char *)"b", KAI_QUEUE_UNCHANGED}}, *got = NULL;
	char *names[2] = {(char *)"a", (char *)"b"}, **gn = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t n = 0;
	uint32_t v = 0;

	kai_buf_init(&b, BIG);
	is_int(kai_msg_queue_outcomes_encode(&b, o, 2), 0, "outcomes encode");
	is_int(kai_msg_queue_outcomes_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decode");
	ok(n == 2 && strcmp(got[0].name, "a") == 0 &&
		got[0].result == KAI_QUEUE_CREATED &&
		strcmp(got[1].name, "b") == 0 &&
		got[1].result == KAI_QUEUE_UNCHANGED,
	    "names and results round-trip");
	kai_queue_outcomes_free(got, n);
	check_prefixes("outcomes", &b, dec_outcomes);
	((uint8_t *)b.data)[b.len - 1] = KAI_QUEUE_NRESULTS;
	is_int(kai_msg_queue_outcomes_decode(b.data, b.len, &got, &n, &err),
	    KAI_EPROTO, "an unknown result is refused");

	kai_buf_reset(&b);
	is_int(kai_msg_queue_delete_encode(&b, names, 2), 0, "delete encodes");
	is_int(kai_msg_queue_delete_decode(b.data, b.len, &gn, &n, &err), 0,
	    "and decodes");
	ok(n == 2 && strcmp(gn[0], "a") == 0 && strcmp(gn[1], "b") == 0,
	    "the names round-trip");
	free(gn[0]);
	free(gn[1]);
	free(gn);
	check_prefixes("delete", &b, dec_delete);
	kai_buf_reset(&b);
	is_int(kai_msg_queue_delete_encode(&b, names, 0), KAI_EINVAL,
	    "deleting nothing is not encoded");
	if (kai_msg_u32_encode(&b, 0) == 0)
		is_int(kai_msg_queue_delete_decode(b.data, b.len, &gn, &n,
			   &err), KAI_EPROTO, "nor decoded");
	kai_buf_reset(&b);
	is_int(kai_msg_u32_encode(&b, 7), 0, "u32 encodes");
	is_int(kai_msg_u32_decode(b.data, b.len, &v, &err), 0, "and decodes");
	is_int(v, 7, "to the same value");
	kai_buf_fini(&b);
}

static void
units(const char *s, int64_t unit, int64_t want, const char *back)
{
	struct kai_err err;
	int64_t v = -99;
	char buf[32];

	kai_err_clear(&err);
	if (kai_queue_parse_units(s, unit, KAI_QUEUE_VALUE_MAX, "quota", &v,
		&err) != 0)
		diag("%s", err.msg);
	is_int(v, want, "\"%s\" is %" PRId64 " units of 1/%" PRId64, s, want,
	    unit);
	kai_queue_fmt_units(v, unit, buf, sizeof(buf));
	is_str(buf, back, "and prints as \"%s\"", back);
}

static void
units_bad(const char *s, int64_t unit, const char *msg)
{
	struct kai_err err;
	int64_t v = 5;

	kai_err_clear(&err);
	is_int(kai_queue_parse_units(s, unit, KAI_QUEUE_VALUE_MAX, "gpu quota",
		   &v, &err), KAI_EINVAL, "\"%s\" is refused", s);
	is_str(err.msg, msg, "with a clear message");
	is_int(v, 5, "and the output is untouched");
}

static void
test_units(void)
{
	units("1.5", KAI_QUEUE_GPU_UNIT, 1500000, "1.5");
	units("0.46", KAI_QUEUE_GPU_UNIT, 460000, "0.46");
	units("2", KAI_QUEUE_GPU_UNIT, 2000000, "2");
	units("2.000000", KAI_QUEUE_GPU_UNIT, 2000000, "2");
	units("0.000001", KAI_QUEUE_GPU_UNIT, 1, "0.000001");
	units("-1", KAI_QUEUE_GPU_UNIT, -1, "-1");
	units("0", KAI_QUEUE_GPU_UNIT, 0, "0");
	units("4000", 1, 4000, "4000");
	units("-1", 1, -1, "-1");
	units_bad("1.2345678", KAI_QUEUE_GPU_UNIT,
	    "invalid gpu quota \"1.2345678\": at most 6 decimal places");
	units_bad("-2", KAI_QUEUE_GPU_UNIT,
	    "invalid gpu quota \"-2\": expected -1 or a number of at least 0");
	units_bad("1.", KAI_QUEUE_GPU_UNIT,
	    "invalid gpu quota \"1.\": expected -1 or a number of at least 0");
	units_bad("abc", 1,
	    "invalid gpu quota \"abc\": expected -1 or a number of at least 0");
	units_bad("1.5", 1,
	    "invalid gpu quota \"1.5\": expected a whole number");
	units_bad("99999999999999999999", 1,
	    "invalid gpu quota \"99999999999999999999\": too large");
}

static void
check_msg(const struct kai_queue *q, const char *want, const char *what)
{
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_queue_check(q, &err), want != NULL ? KAI_EINVAL : 0, "%s",
	    what);
	if (want != NULL)
		is_str(err.msg, want, "%s: message", what);
}

static void
test_check(void)
{
	struct kai_queue q;
	struct kai_err err;

	sample(&q, "research", "org");
	check_msg(&q, NULL, "a sample queue is valid");
	q.res[KAI_QUEUE_GPU].quota = 9000000;
	check_msg(&q, "queue \"research\": gpu limit 8 is below its quota 9",
	    "a limit below the quota");
	q.res[KAI_QUEUE_GPU].quota = -1;
	check_msg(&q, NULL, "an unlimited quota with a limit is valid");
	q.res[KAI_QUEUE_CPU].limit = -2;
	check_msg(&q, "queue \"research\": invalid cpu limit: expected -1 "
	    "(none) or a value of at least 0", "a limit below -1");
	q.res[KAI_QUEUE_CPU].limit = -1;
	q.res[KAI_QUEUE_MEM].weight = -1;
	check_msg(&q, "queue \"research\": invalid memory over_quota_weight: "
	    "expected a value of at least 0", "a negative weight");
	q.res[KAI_QUEUE_MEM].weight = 0;
	free(q.parent);
	q.parent = kai_xstrdup("research");
	check_msg(&q, "queue \"research\" cannot be its own parent",
	    "its own parent");
	free(q.parent);
	q.parent = kai_xstrdup("Org");
	check_msg(&q, "queue \"research\": parent: invalid queue name "
	    "\"Org\": expected 1 to 63 lower-case letters, digits, '_' and '-'",
	    "a parent with a bad name");
	free(q.parent);
	q.parent = NULL;
	q.reclaim_min_runtime_s = -5;
	ok(kai_queue_check(&q, &err) == KAI_EINVAL &&
		strstr(err.msg, "minimum runtime") != NULL,
	    "a min runtime below -1: %s", err.msg);
	q.reclaim_min_runtime_s = 0;
	q.priority = INT64_C(1) << 40;
	ok(kai_queue_check(&q, &err) == KAI_EINVAL &&
		strstr(err.msg, "priority") != NULL,
	    "a priority out of range: %s", err.msg);
	kai_queue_fini(&q);
	is_int(kai_queue_name_check("a-b_9", &err), 0, "a good name");
	is_int(kai_queue_name_check("", &err), KAI_EINVAL, "an empty name");
	is_int(kai_queue_name_check("a b", &err), KAI_EINVAL,
	    "a name with a space");
	is_int(kai_queue_name_check(NULL, &err), KAI_EINVAL, "no name");
	kai_queue_init(&q);
	ok(q.priority == 100 && q.parent == NULL &&
		q.res[KAI_QUEUE_GPU].quota == -1 &&
		q.res[KAI_QUEUE_MEM].limit == -1 &&
		q.res[KAI_QUEUE_CPU].weight == KAI_QUEUE_WEIGHT_UNIT &&
		q.preempt_min_runtime_s == -1,
	    "a new queue guarantees and caps nothing, weight 1, priority 100");
}

/* GPU types: kctl's spelling, the sorted list, the wire, the checks. */
static void
test_types(void)
{
	struct kai_queue q, *got = NULL, *many;
	struct kai_queue_change c, *gc = NULL;
	struct kai_err err;
	struct kai_buf b;
	char name[16];
	size_t n = 0, i;

	sample(&q, "vision", NULL);
	is_int(kai_queue_type_parse(&q, "H100:0:-1:3", &err), 0,
	    "TYPE:QUOTA:LIMIT:WEIGHT");
	is_int(kai_queue_type_parse(&q, "A100:1.5:4", &err), 0,
	    "TYPE:QUOTA:LIMIT");
	ok(q.ntypes == 2 && strcmp(q.types[0].type, "A100") == 0 &&
		q.types[0].quota == 1500000 && q.types[0].limit == 4000000 &&
		q.types[0].weight == -1 && strcmp(q.types[1].type, "H100") == 0 &&
		q.types[1].quota == 0 && q.types[1].limit == -1 &&
		q.types[1].weight == 3000000,
	    "kept sorted by name, GPUs exact, weight -1 when not given");
	is_int(kai_queue_type_parse(&q, "A100:2", &err), 0,
	    "a type given again ...");
	ok(q.ntypes == 2 && q.types[0].quota == 2000000 &&
		q.types[0].limit == -1,
	    "... replaces its settings");
	is_int(kai_queue_type_parse(&q, "A100", &err), KAI_EINVAL,
	    "a type without a quota is refused");
	is_str(err.msg, "invalid GPU type \"A100\": expected "
	    "TYPE:QUOTA[:LIMIT[:WEIGHT]]", "saying the form");
	is_int(kai_queue_type_parse(&q, "A100:1:2:3:4", &err), KAI_EINVAL,
	    "five parts are refused");
	is_int(kai_queue_type_parse(&q, "A100:x", &err), KAI_EINVAL,
	    "a quota that is not a number is refused");
	is_int(kai_queue_type_parse(&q, "A 100:1", &err), KAI_EINVAL,
	    "a type that is not a label value is refused");
	is_str(err.msg, "queue \"vision\": invalid GPU type \"A 100\": "
	    "expected 1 to 63 letters, digits, '-', '_' and '.'",
	    "naming the queue and the rule");
	is_int(kai_queue_check(&q, &err), 0, "the queue passes its checks");
	q.types[0].limit = 1000000;
	is_int(kai_queue_check(&q, &err), KAI_EINVAL,
	    "a type's limit below its quota is refused");
	is_str(err.msg, "queue \"vision\": A100 limit 1 is below its quota 2",
	    "saying so");
	q.types[0].limit = -1;

	/* The list and a change carry them. */
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	is_int(kai_msg_queues_encode(&b, &q, 1), 0, "a queue with types encodes");
	is_int(kai_msg_queues_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decodes");
	ok(n == 1 && same(&got[0], &q), "with its types");
	kai_queues_free(got, n);
	memset(&c, 0, sizeof(c));
	c.op = KAI_QUEUE_UPDATE;
	c.set = KAI_QUEUE_SET_GPU_TYPE_EACH;
	kai_queue_copy(&c.q, &q);
	kai_buf_reset(&b);
	is_int(kai_msg_queue_apply_encode(&b, &c, 1), 0,
	    "a change of types encodes");
	is_int(kai_msg_queue_apply_decode(b.data, b.len, &gc, &n, &err), 0,
	    "and decodes");
	ok(n == 1 && gc[0].set == KAI_QUEUE_SET_GPU_TYPE_EACH &&
		same(&gc[0].q, &q), "set bit and types round-trip");
	kai_queue_changes_free(gc, n);
	kai_queue_fini(&c.q);

	/* The bounds. */
	for (i = q.ntypes; i < KAI_QUEUE_TYPES_MAX; i++) {
		(void)snprintf(name, sizeof(name), "T%zu", i);
		is_int(kai_queue_type_set(&q, name, 0, -1, -1, &err), 0,
		    "type %zu of %d", i + 1, KAI_QUEUE_TYPES_MAX);
	}
	is_int(kai_queue_type_set(&q, "one-more", 0, -1, -1, &err), KAI_EINVAL,
	    "one type more is refused");
	is_int(kai_queue_type_wire_parse(&q, "A100 1 2", &err), KAI_EINVAL,
	    "a wire entry with a value missing is refused");
	is_int(kai_queue_type_wire_parse(&q, "A100 1 2 3 x", &err), KAI_EINVAL,
	    "and one with trailing bytes");
	many = kai_xcalloc(KAI_QUEUE_TYPE_SETTINGS_MAX / KAI_QUEUE_TYPES_MAX + 1,
	    sizeof(*many));
	for (i = 0; i <= KAI_QUEUE_TYPE_SETTINGS_MAX / KAI_QUEUE_TYPES_MAX; i++) {
		(void)snprintf(name, sizeof(name), "q%zu", i);
		kai_queue_copy(&many[i], &q);
		free(many[i].name);
		many[i].name = kai_xstrdup(name);
	}
	kai_buf_reset(&b);
	is_int(kai_msg_queues_encode(&b, many,
	    KAI_QUEUE_TYPE_SETTINGS_MAX / KAI_QUEUE_TYPES_MAX), 0,
	    "%d type settings in a list fit", KAI_QUEUE_TYPE_SETTINGS_MAX);
	kai_buf_reset(&b);
	is_int(kai_msg_queues_encode(&b, many,
	    KAI_QUEUE_TYPE_SETTINGS_MAX / KAI_QUEUE_TYPES_MAX + 1), KAI_EINVAL,
	    "more are refused");
	kai_queues_free(many, KAI_QUEUE_TYPE_SETTINGS_MAX / KAI_QUEUE_TYPES_MAX +
	    1);
	kai_queue_types_clear(&q);
	ok(q.ntypes == 0 && q.types == NULL, "clearing leaves no type");
	kai_buf_fini(&b);
	kai_queue_fini(&q);
}

int
main(void)
{
	test_list();
	test_list_limits();
	test_apply();
	test_outcomes_delete();
	test_units();
	test_check();
	test_types();
	return done_testing();
}
