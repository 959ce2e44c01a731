/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_share.c: kshare's messages (KAI_MSG_SHARE and its reply).  See
 * proto.h; the field order is in doc/design/PROTOCOL.md.
 *
 * The request is two string lists (users, queues).  The reply may be
 * long -- a row per queue and per (leaf queue, user) -- so it is sent as
 * frames: each repeats the pass's four figures (time, half-life, window,
 * k) and carries a chunk of queues then a chunk of users, as many as fit;
 * the decoder appends.  Records are described once by field tables, as
 * in msg_queue.c, so encoder, decoder and minimum sizes cannot drift.
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

/* clang-format off */
#define SQ(m)	   offsetof(struct kai_share_queue, m)
#define SU(m)	   offsetof(struct kai_share_user, m)
#define I64(n, o)  {n, KAI_CODEC_I64, o, 0, 0, 0}
#define RES(r, n)  I64(n "_quota", SQ(res[r].quota)), \
		   I64(n "_limit", SQ(res[r].limit)), \
		   I64(n "_weight", SQ(res[r].weight)), \
		   I64(n "_fair_share", SQ(res[r].fair_share)), \
		   I64(n "_allocated", SQ(res[r].allocated)), \
		   I64(n "_requested", SQ(res[r].requested)), \
		   I64(n "_usage", SQ(res[r].usage)), \
		   I64(n "_usage_share", SQ(res[r].usage_share))
#define URES(r, n) I64(n "_usage", SU(usage[r])), \
		   I64(n "_allocated", SU(allocated[r]))

static const struct kai_codec_field head_fields[] = {
	I64("time", offsetof(struct kai_share, time)),
	I64("half_life_s", offsetof(struct kai_share, half_life_s)),
	I64("window_s", offsetof(struct kai_share, window_s)),
	I64("k_value", offsetof(struct kai_share, k_value)),
};

static const struct kai_codec_field queue_fields[] = {
	{"name", KAI_CODEC_STR, SQ(name), 0, KAI_QUEUE_NAME_MAX, 0},
	{"parent", KAI_CODEC_STR, SQ(parent), 0, KAI_QUEUE_NAME_MAX, 0},
	I64("priority", SQ(priority)),
	RES(KAI_QUEUE_GPU, "gpu"),
	RES(KAI_QUEUE_CPU, "cpu"),
	RES(KAI_QUEUE_MEM, "memory"),
	{"gpu_types", KAI_CODEC_STRV, SQ(gpu_types), SQ(ngpu_types),
	    KAI_SHARE_TYPE_WIRE_MAX, KAI_SHARE_TYPES_MAX},
};

static const struct kai_codec_field user_fields[] = {
	{"queue", KAI_CODEC_STR, SU(queue), 0, KAI_QUEUE_NAME_MAX, 0},
	{"user", KAI_CODEC_STR, SU(user), 0, KAI_SHARE_USER_MAX, 0},
	URES(KAI_QUEUE_GPU, "gpu"),
	URES(KAI_QUEUE_CPU, "cpu"),
	URES(KAI_QUEUE_MEM, "memory"),
	{"account", KAI_CODEC_STR, SU(account), 0, KAI_QUEUE_NAME_MAX, 0},
	I64("shares", SU(shares)),
	I64("fair_share_gpu", SU(fair_share_gpu)),
};

static const struct kai_codec_field req_fields[] = {
	{"users", KAI_CODEC_STRV, offsetof(struct kai_share_req, users),
	    offsetof(struct kai_share_req, nusers), KAI_SHARE_USER_MAX,
	    KAI_PROTO_LIST_MAX},
	{"queues", KAI_CODEC_STRV, offsetof(struct kai_share_req, queues),
	    offsetof(struct kai_share_req, nqueues), KAI_QUEUE_NAME_MAX,
	    KAI_QUEUE_MAX},
};
/* clang-format on */
#define NH KAI_NELEM(head_fields)
#define NQ KAI_NELEM(queue_fields)
#define NU KAI_NELEM(user_fields)
#define NR KAI_NELEM(req_fields)

int
kai_msg_share_req_encode(struct kai_buf *b, const struct kai_share_req *q)
{
	size_t start = b->len;

	if (kai_codec_put_record(b, req_fields, NR, q) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_share_req_decode(const void *p, size_t len, struct kai_share_req *q,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(q, 0, sizeof(*q));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_record(&r, req_fields, NR, q)) == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0)
		kai_share_req_fini(q);
	return rc;
}

void
kai_share_req_fini(struct kai_share_req *q)
{
	kai_codec_strv_free(q->users, q->nusers);
	kai_codec_strv_free(q->queues, q->nqueues);
	memset(q, 0, sizeof(*q));
}

int
kai_msg_share_encode(struct kai_buf *b, const struct kai_share *s,
    size_t *qfirst, size_t *ufirst, size_t max_body)
{
	size_t start = b->len, q0 = *qfirst, u0 = *ufirst, i;
	int rc;

	for (i = q0; i < s->nqueues; i++)
		if (s->queues[i].name == NULL)
			return KAI_EINVAL;
	for (i = u0; i < s->nusers; i++)
		if (s->users[i].queue == NULL || s->users[i].user == NULL)
			return KAI_EINVAL;
	rc = kai_codec_put_record(b, head_fields, NH, s);
	if (rc == 0)
		rc = kai_codec_put_records(b, queue_fields, NQ, s->queues,
		    sizeof(*s->queues), s->nqueues, qfirst, start, SIZE_MAX,
		    max_body);
	/* Users only once every queue is out: the client sees the tree first. */
	if (rc == 0 && *qfirst == s->nqueues)
		rc = kai_codec_put_records(b, user_fields, NU, s->users,
		    sizeof(*s->users), s->nusers, ufirst, start, SIZE_MAX,
		    max_body);
	else if (rc == 0)
		rc = kai_codec_put_u32(b, 0);
	/* No progress with work left: a record larger than a body. */
	if (rc == 0 && *qfirst == q0 && *ufirst == u0 &&
	    (q0 < s->nqueues || u0 < s->nusers))
		rc = KAI_EINVAL;
	if (rc != 0) {
		kai_codec_rollback(b, start);
		*qfirst = q0;
		*ufirst = u0;
		return KAI_EINVAL;
	}
	return 0;
}

/* Reads a count and that many records, appended to *recs / *n. */
static int
get_chunk(struct kai_codec_rd *r, const char *what,
    const struct kai_codec_field *f, size_t nf, void **recs, size_t size,
    size_t *n, size_t max)
{
	size_t c = 0, i;
	char *a;
	int rc;

	if ((rc = kai_codec_get_count(r, what, max - *n,
	    KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return 0;
	a = kai_xreallocarray(*recs, *n + c, size);
	memset(a + *n * size, 0, c * size);
	*recs = a;
	for (i = 0; i < c; i++) {
		rc = kai_codec_get_record(r, f, nf, a + (*n + i) * size);
		if (rc != 0) {
			*n += i + 1; /* the partial record is freed too */
			return rc;
		}
	}
	*n += c;
	return 0;
}

static int
check_names(const struct kai_share *s, size_t q0, size_t u0,
    struct kai_err *err)
{
	struct kai_share_type x;
	size_t i, k;

	for (i = q0; i < s->nqueues; i++) {
		if (s->queues[i].name == NULL)
			return kai_err_set(err, KAI_EPROTO,
			    "field \"name\" is null");
		for (k = 0; k < s->queues[i].ngpu_types; k++)
			if (kai_share_type_parse(s->queues[i].gpu_types[k], &x,
				err) != 0)
				return KAI_EPROTO;
	}
	for (i = u0; i < s->nusers; i++)
		if (s->users[i].queue == NULL || s->users[i].user == NULL)
			return kai_err_set(err, KAI_EPROTO,
			    "field \"%s\" is null",
			    s->users[i].queue == NULL ? "queue" : "user");
	return 0;
}

int
kai_msg_share_decode(const void *p, size_t len, struct kai_share *s,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	size_t q0 = s->nqueues, u0 = s->nusers;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_record(&r, head_fields, NH, s)) != 0 ||
	    (rc = get_chunk(&r, "queue", queue_fields, NQ,
	    (void **)&s->queues, sizeof(*s->queues), &s->nqueues,
	    KAI_QUEUE_MAX)) != 0 ||
	    (rc = get_chunk(&r, "user", user_fields, NU, (void **)&s->users,
	    sizeof(*s->users), &s->nusers, KAI_SHARE_USERS_MAX)) != 0 ||
	    (rc = check_names(s, q0, u0, err)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	return 0;
}

void
kai_share_fini(struct kai_share *s)
{
	size_t i;

	for (i = 0; i < s->nqueues; i++) {
		free(s->queues[i].name);
		free(s->queues[i].parent);
		kai_codec_strv_free(s->queues[i].gpu_types,
		    s->queues[i].ngpu_types);
	}
	for (i = 0; i < s->nusers; i++) {
		free(s->users[i].queue);
		free(s->users[i].user);
		free(s->users[i].account);
	}
	free(s->queues);
	free(s->users);
	memset(s, 0, sizeof(*s));
}

char *
kai_share_type_text(const struct kai_share_type *x)
{
	return kai_xasprintf("%s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
			     " %" PRId64 " %" PRId64,
	    x->type, x->quota, x->limit, x->weight, x->fair_share,
	    x->allocated, x->requested);
}

int
kai_share_type_parse(const char *s, struct kai_share_type *x,
    struct kai_err *err)
{
	int n = 0;

	memset(x, 0, sizeof(*x));
	if (sscanf(s,
		"%63s %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
		" %" SCNd64 " %" SCNd64 "%n",
		x->type, &x->quota, &x->limit, &x->weight, &x->fair_share,
		&x->allocated, &x->requested, &n) != 7 ||
	    s[n] != '\0')
		return kai_err_set(err, KAI_EPROTO,
		    "field \"gpu_types\": invalid entry \"%.80s\"", s);
	return 0;
}
