/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_select.c: the two requests that select jobs, KAI_MSG_QUERY (kqueue,
 * kacct) and KAI_MSG_CANCEL (kcancel).  Both start with the same
 * selection: job ids, uids, queue names and a state mask, each list
 * bounded by KAI_PROTO_LIST_MAX; the query adds a time window and flags.
 * See proto.h; the field order is in doc/design/PROTOCOL.md.
 *
 * State masks and query flags with bits this version does not define are
 * refused both ways: a filter kaid cannot honour must not widen silently
 * into "everything".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"

#define QUERY_FLAGS_KNOWN                                                      \
	(KAI_QUERY_ALL_USERS | KAI_QUERY_HISTORY | KAI_QUERY_DUPLICATES)

/* The lists and mask the two requests share, borrowed from either. */
struct selection {
	uint64_t *ids;
	size_t nids;
	uint32_t *uids;
	size_t nuids;
	char **queues;
	size_t nqueues;
	uint32_t state_mask;
};

static int
put_selection(struct kai_buf *b, const struct selection *s)
{
	if ((s->nids > 0 && s->ids == NULL) ||
	    (s->nuids > 0 && s->uids == NULL) ||
	    (s->nqueues > 0 && s->queues == NULL) ||
	    (s->state_mask & ~KAI_JOB_STATES_ALL) != 0)
		return KAI_EINVAL;
	if (kai_codec_put_u64v(b, s->ids, s->nids, KAI_PROTO_LIST_MAX) != 0 ||
	    kai_codec_put_u32v(b, s->uids, s->nuids, KAI_PROTO_LIST_MAX) != 0 ||
	    kai_codec_put_strv(b, s->queues, s->nqueues, KAI_PROTO_LIST_MAX,
		KAI_JOB_NAME_MAX) != 0 ||
	    kai_codec_put_u32(b, s->state_mask) != 0)
		return KAI_EINVAL;
	return 0;
}

/* On failure the lists already decoded stay in s for the caller's _fini. */
static int
get_selection(struct kai_codec_rd *r, struct selection *s)
{
	int rc;

	if ((rc = kai_codec_get_u64v(r, "id", KAI_PROTO_LIST_MAX, &s->ids,
		 &s->nids)) != 0 ||
	    (rc = kai_codec_get_u32v(r, "uid", KAI_PROTO_LIST_MAX, &s->uids,
		 &s->nuids)) != 0 ||
	    (rc = kai_codec_get_strv(r, "queue", KAI_PROTO_LIST_MAX,
		 KAI_JOB_NAME_MAX, &s->queues, &s->nqueues)) != 0 ||
	    (rc = kai_codec_get_u32(r, "state_mask", &s->state_mask)) != 0)
		return rc;
	if ((s->state_mask & ~KAI_JOB_STATES_ALL) != 0)
		return kai_err_set(r->err, KAI_EPROTO,
		    "invalid value 0x%x for field \"state_mask\": unrecognized "
		    "state bits",
		    s->state_mask);
	return 0;
}

static void
selection_fini(struct selection *s)
{
	KAI_FREE(s->ids);
	KAI_FREE(s->uids);
	kai_codec_strv_free(s->queues, s->nqueues);
	memset(s, 0, sizeof(*s));
}

int
kai_msg_query_encode(struct kai_buf *b, const struct kai_query *q)
{
	struct selection s = {q->ids, q->nids, q->uids, q->nuids, q->queues,
	    q->nqueues, q->state_mask};
	size_t start = b->len;

	if ((q->flags & ~(uint32_t)QUERY_FLAGS_KNOWN) != 0 ||
	    put_selection(b, &s) != 0 || kai_codec_put_i64(b, q->start) != 0 ||
	    kai_codec_put_i64(b, q->end) != 0 ||
	    kai_codec_put_u32(b, q->flags) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_query_decode(const void *p, size_t n, struct kai_query *q,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	struct selection s;
	int rc;

	memset(q, 0, sizeof(*q));
	memset(&s, 0, sizeof(s));
	kai_codec_rd_init(&r, p, n, err);
	if ((rc = get_selection(&r, &s)) != 0 ||
	    (rc = kai_codec_get_i64(&r, "start", &q->start)) != 0 ||
	    (rc = kai_codec_get_i64(&r, "end", &q->end)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "flags", &q->flags)) != 0)
		goto fail;
	if ((q->flags & ~(uint32_t)QUERY_FLAGS_KNOWN) != 0) {
		rc = kai_err_set(err, KAI_EPROTO,
		    "invalid value 0x%x for field \"flags\": unrecognized "
		    "query flags",
		    q->flags);
		goto fail;
	}
	if ((rc = kai_codec_rd_end(&r)) != 0)
		goto fail;
	q->ids = s.ids, q->nids = s.nids;
	q->uids = s.uids, q->nuids = s.nuids;
	q->queues = s.queues, q->nqueues = s.nqueues;
	q->state_mask = s.state_mask;
	return 0;
fail:
	selection_fini(&s);
	memset(q, 0, sizeof(*q));
	return rc;
}

void
kai_query_fini(struct kai_query *q)
{
	if (q == NULL)
		return;
	KAI_FREE(q->ids);
	KAI_FREE(q->uids);
	kai_codec_strv_free(q->queues, q->nqueues);
	memset(q, 0, sizeof(*q));
}

int
kai_msg_cancel_encode(struct kai_buf *b, const struct kai_cancel *c)
{
	struct selection s = {c->ids, c->nids, c->uids, c->nuids, c->queues,
	    c->nqueues, c->state_mask};
	size_t start = b->len;

	if (put_selection(b, &s) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_cancel_decode(const void *p, size_t n, struct kai_cancel *c,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	struct selection s;
	int rc;

	memset(c, 0, sizeof(*c));
	memset(&s, 0, sizeof(s));
	kai_codec_rd_init(&r, p, n, err);
	if ((rc = get_selection(&r, &s)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0) {
		selection_fini(&s);
		return rc;
	}
	c->ids = s.ids, c->nids = s.nids;
	c->uids = s.uids, c->nuids = s.nuids;
	c->queues = s.queues, c->nqueues = s.nqueues;
	c->state_mask = s.state_mask;
	return 0;
}

void
kai_cancel_fini(struct kai_cancel *c)
{
	if (c == NULL)
		return;
	KAI_FREE(c->ids);
	KAI_FREE(c->uids);
	kai_codec_strv_free(c->queues, c->nqueues);
	memset(c, 0, sizeof(*c));
}
