/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_report.c: kacct --report's messages (KAI_MSG_REPORT and its reply;
 * proto_report.h).  The request is written field by field (it carries two
 * lists); the rows are described once by a field table, so encoder,
 * decoder and the minimum size cannot drift, and a long answer is cut
 * into frames as msg_jobs.c cuts a job list.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_report.h"

/* clang-format off */
#define R(m)	   offsetof(struct kai_report_row, m)
#define U64(n)	   {#n, KAI_CODEC_U64, R(n), 0, 0, 0}

static const struct kai_codec_field row_fields[] = {
	{"queue", KAI_CODEC_STR, R(queue), 0, KAI_QUEUE_NAME_MAX, 0},
	{"user", KAI_CODEC_STR, R(user), 0, KAI_PROTO_STR_MAX, 0},
	{"uid", KAI_CODEC_U32, R(uid), 0, 0, 0},
	U64(jobs),
	U64(completed),
	U64(failed),
	U64(cancelled),
	U64(timeout),
	U64(preempted),
	U64(running),
	{"cpu_s", KAI_CODEC_I64, R(cpu_s), 0, 0, 0},
	{"gpu_ms", KAI_CODEC_I64, R(gpu_ms), 0, 0, 0},
};
/* clang-format on */
#define NFIELDS KAI_NELEM(row_fields)

int
kai_msg_report_req_encode(struct kai_buf *b, const struct kai_report_req *q)
{
	size_t start = b->len;

	if (q->end < q->start || kai_codec_put_i64(b, q->start) != 0 ||
	    kai_codec_put_i64(b, q->end) != 0 ||
	    kai_codec_put_u32v(b, q->uids, q->nuids, KAI_PROTO_LIST_MAX) != 0 ||
	    kai_codec_put_strv(b, q->queues, q->nqueues, KAI_QUEUE_MAX,
	    KAI_QUEUE_NAME_MAX) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_report_req_decode(const void *p, size_t len, struct kai_report_req *q,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(q, 0, sizeof(*q));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_i64(&r, "start", &q->start)) != 0 ||
	    (rc = kai_codec_get_i64(&r, "end", &q->end)) != 0 ||
	    (rc = kai_codec_get_u32v(&r, "uid", KAI_PROTO_LIST_MAX, &q->uids,
	    &q->nuids)) != 0 ||
	    (rc = kai_codec_get_strv(&r, "queue", KAI_QUEUE_MAX,
	    KAI_QUEUE_NAME_MAX, &q->queues, &q->nqueues)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0) {
		kai_report_req_fini(q);
		return rc;
	}
	if (q->end < q->start) {
		kai_report_req_fini(q);
		return kai_err_set(err, KAI_EPROTO,
		    "the period ends before it starts");
	}
	return 0;
}

void
kai_report_req_fini(struct kai_report_req *q)
{
	free(q->uids);
	kai_codec_strv_free(q->queues, q->nqueues);
	memset(q, 0, sizeof(*q));
}

int
kai_msg_report_encode(struct kai_buf *b, const struct kai_report_row *v,
    size_t n, size_t *first, size_t max_body)
{
	size_t start = b->len, i = *first;

	if (i > n || (n > i && v == NULL) || max_body < 4 ||
	    kai_codec_put_records(b, row_fields, NFIELDS, v, sizeof(*v), n, &i,
	    start, KAI_PROTO_LIST_MAX, max_body) != 0 ||
	    (i == *first && i < n)) {
		/* A record bigger than a whole body could never be sent. */
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	*first = i;
	return 0;
}

int
kai_msg_report_decode(const void *p, size_t len, struct kai_report_row **v,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_report_row *a;
	size_t c = 0, i;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "row", KAI_REPORT_ROWS_MAX - *n,
	    KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return kai_codec_rd_end(&r);
	a = kai_xreallocarray(*v, *n + c, sizeof(*a));
	*v = a;
	memset(a + *n, 0, c * sizeof(*a));
	for (i = 0; i < c && rc == 0; i++)
		rc = kai_codec_get_record(&r, row_fields, NFIELDS, &a[*n + i]);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	/* The rows decoded, a failed one half-filled: all are freed. */
	*n += c;
	return rc;
}

void
kai_report_rows_free(struct kai_report_row *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].queue);
		free(v[i].user);
	}
	free(v);
}
