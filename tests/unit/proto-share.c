/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-share: kshare's messages (src/proto/msg_share.c).  A request and
 * a reply survive a round trip field by field; a reply too big for one
 * frame splits into frames that decode back into the whole; truncated,
 * trailing, null-named and over-long input is refused naming the field.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "proto/proto.h"
#include "tap.h"

static void
fill(struct kai_share *s, size_t nq, size_t nu)
{
	size_t i;
	int r;

	memset(s, 0, sizeof(*s));
	s->time = 1700000000;
	s->half_life_s = 86400;
	s->window_s = 604800;
	s->k_value = 1000000;
	s->queues = kai_xcalloc(nq, sizeof(*s->queues));
	s->users = kai_xcalloc(nu, sizeof(*s->users));
	for (i = 0; i < nq; i++) {
		s->queues[i].name = kai_xasprintf("q%zu", i);
		s->queues[i].parent = i > 0 ? kai_xstrdup("q0") : NULL;
		s->queues[i].priority = 100 + (int64_t)i;
		for (r = 0; r < KAI_QUEUE_NRES; r++) {
			s->queues[i].res[r].quota = -1;
			s->queues[i].res[r].fair_share = 7 * (int64_t)i + r;
			s->queues[i].res[r].usage = (int64_t)1 << 40;
			s->queues[i].res[r].usage_share = 250000;
		}
	}
	for (i = 0; i < nu; i++) {
		s->users[i].queue = kai_xasprintf("q%zu", i % (nq ? nq : 1));
		s->users[i].user = kai_xasprintf("user%zu", i);
		s->users[i].usage[KAI_QUEUE_GPU] = (int64_t)i * 1000000;
		s->users[i].allocated[KAI_QUEUE_MEM] = 2048;
	}
	s->nqueues = nq;
	s->nusers = nu;
}

static void
test_request(void)
{
	char u1[] = "alice", u2[] = "bob", q1[] = "research";
	char *users[] = {u1, u2}, *queues[] = {q1};
	struct kai_share_req q = {users, 2, queues, 1}, d;
	struct kai_err err;
	struct kai_buf b;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	ok(kai_msg_share_req_encode(&b, &q) == 0, "request encodes");
	ok(kai_msg_share_req_decode(b.data, b.len, &d, &err) == 0 &&
	    d.nusers == 2 && strcmp(d.users[1], "bob") == 0 &&
	    d.nqueues == 1 && strcmp(d.queues[0], "research") == 0,
	    "and decodes to the same filters");
	kai_share_req_fini(&d);
	ok(kai_msg_share_req_decode(b.data, b.len - 1, &d, &err) ==
	    KAI_EPROTO, "a truncated request is refused: %s", err.msg);
	kai_buf_fini(&b);
}

/* Encodes s in frames of at most max bytes, decodes them all into d. */
static int
round_trip(const struct kai_share *s, size_t max, struct kai_share *d,
    size_t *frames)
{
	size_t qf = 0, uf = 0;
	struct kai_err err;
	struct kai_buf b;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	*frames = 0;
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	do {
		b.len = 0;
		if ((rc = kai_msg_share_encode(&b, s, &qf, &uf, max)) != 0 ||
		    (rc = kai_msg_share_decode(b.data, b.len, d, &err)) != 0)
			break;
		(*frames)++;
	} while (qf < s->nqueues || uf < s->nusers);
	kai_buf_fini(&b);
	return rc;
}

static void
test_reply(void)
{
	struct kai_share s, d;
	size_t frames;

	fill(&s, 3, 5);
	ok(round_trip(&s, KAI_PROTO_BODY_MAX, &d, &frames) == 0 &&
	    frames == 1, "a small reply is one frame");
	ok(d.time == s.time && d.half_life_s == 86400 && d.window_s == 604800 &&
	    d.k_value == 1000000, "the pass's figures survive");
	ok(d.nqueues == 3 && strcmp(d.queues[2].name, "q2") == 0 &&
	    d.queues[0].parent == NULL && strcmp(d.queues[1].parent, "q0") == 0
	    && d.queues[2].priority == 102 &&
	    d.queues[2].res[KAI_QUEUE_MEM].fair_share == 16 &&
	    d.queues[1].res[KAI_QUEUE_CPU].usage == (int64_t)1 << 40 &&
	    d.queues[1].res[KAI_QUEUE_GPU].quota == -1,
	    "queue records survive");
	ok(d.nusers == 5 && strcmp(d.users[4].user, "user4") == 0 &&
	    strcmp(d.users[4].queue, "q1") == 0 &&
	    d.users[3].usage[KAI_QUEUE_GPU] == 3000000 &&
	    d.users[3].allocated[KAI_QUEUE_MEM] == 2048, "user rows survive");
	kai_share_fini(&d);
	kai_share_fini(&s);

	fill(&s, 40, 300);
	ok(round_trip(&s, 2048, &d, &frames) == 0 && frames > 5,
	    "a long reply splits into frames");
	ok(d.nqueues == 40 && d.nusers == 300 &&
	    strcmp(d.queues[39].name, "q39") == 0 &&
	    strcmp(d.users[299].user, "user299") == 0,
	    "which decode back into the whole");
	kai_share_fini(&d);
	ok(round_trip(&s, 40, &d, &frames) == KAI_EINVAL,
	    "a body too small for one record is an error, not a loop");
	kai_share_fini(&d);
	kai_share_fini(&s);
}

static void
test_bad_frames(void)
{
	struct kai_share s, d;
	struct kai_err err;
	struct kai_buf b;
	size_t qf = 0, uf = 0;

	fill(&s, 2, 2);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	ok(kai_msg_share_encode(&b, &s, &qf, &uf, KAI_PROTO_BODY_MAX) == 0,
	    "encodes");
	memset(&d, 0, sizeof(d));
	ok(kai_msg_share_decode(b.data, b.len - 3, &d, &err) == KAI_EPROTO &&
	    strstr(err.msg, "truncated") != NULL,
	    "a truncated reply is refused: %s", err.msg);
	kai_share_fini(&d);
	ok(kai_buf_addc(&b, 0) == 0 && kai_msg_share_decode(b.data, b.len, &d, &err) == KAI_EPROTO,
	    "trailing bytes are refused: %s", err.msg);
	kai_share_fini(&d);
	/* A count far beyond the bytes present, right after the head. */
	b.len = 32;
	ok(kai_buf_add(&b, "\xff\xff\xff\xff", 4) == 0 &&
	    kai_msg_share_decode(b.data, b.len, &d, &err) == KAI_EPROTO,
	    "an impossible count is refused before allocating: %s", err.msg);
	kai_share_fini(&d);
	free(s.queues[1].name);
	s.queues[1].name = NULL;
	qf = uf = 0;
	b.len = 0;
	ok(kai_msg_share_encode(&b, &s, &qf, &uf, KAI_PROTO_BODY_MAX) ==
	    KAI_EINVAL && b.len == 0, "a queue without a name is not encoded");
	kai_buf_fini(&b);
	kai_share_fini(&s);
}

/* A queue's per GPU type figures travel with it, and are checked. */
static void
test_types(void)
{
	struct kai_share s, d;
	struct kai_share_type x, y;
	struct kai_err err;
	size_t frames;

	fill(&s, 2, 0);
	memset(&x, 0, sizeof(x));
	(void)snprintf(x.type, sizeof(x.type), "NVIDIA-A100-SXM4-80GB");
	x.quota = 1000000;
	x.limit = -1;
	x.weight = -1;
	x.fair_share = 6000000;
	x.allocated = 2500000;
	x.requested = 8000000;
	s.queues[1].gpu_types = kai_xcalloc(1, sizeof(char *));
	s.queues[1].gpu_types[0] = kai_share_type_text(&x);
	s.queues[1].ngpu_types = 1;
	ok(round_trip(&s, KAI_PROTO_BODY_MAX, &d, &frames) == 0 &&
		d.queues[0].ngpu_types == 0 && d.queues[1].ngpu_types == 1,
	    "a queue's GPU types travel with it");
	ok(d.nqueues == 2 && d.queues[1].ngpu_types == 1 &&
		kai_share_type_parse(d.queues[1].gpu_types[0], &y, &err) == 0 &&
		memcmp(&x, &y, sizeof(x)) == 0,
	    "and parse back to the same figures");
	kai_share_fini(&d);
	free(s.queues[1].gpu_types[0]);
	s.queues[1].gpu_types[0] = kai_xstrdup("A100 1 2 3");
	ok(round_trip(&s, KAI_PROTO_BODY_MAX, &d, &frames) == KAI_EPROTO,
	    "an entry with figures missing is refused");
	kai_share_fini(&d);
	is_int(kai_share_type_parse("A100 1 2 3 4 5 6 7", &y, &err), KAI_EPROTO,
	    "and one with too many");
	kai_share_fini(&s);
}

int
main(void)
{
	test_request();
	test_reply();
	test_bad_frames();
	test_types();
	return done_testing();
}
