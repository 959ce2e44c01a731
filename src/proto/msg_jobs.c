/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_jobs.c: KAI_MSG_QUERY_REPLY, a list of struct kai_jobinfo that may
 * span several frames.  See proto.h; the field order is in
 * doc/design/PROTOCOL.md.
 *
 * A frame's body holds a count and that many records.  The encoder fills
 * one body up to a caller-chosen size and tells the caller where it
 * stopped, so kaid can send 100,000 jobs as a chain of KAI_FRAME_MORE
 * frames without ever building one huge body; the decoder appends each
 * frame's jobs to the caller's array.  Strings travel as they are,
 * including NULL, so a record decodes to exactly what was encoded.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"

#define J(m) offsetof(struct kai_jobinfo, m)

_Static_assert(sizeof(enum kai_job_state) == sizeof(uint32_t),
    "the state travels as a u32");

/*
 * A jobinfo record on the wire: the jobinfo rows of model/jobfields.def,
 * each at the index its tag gives (PROTOCOL.md "jobinfo").  Strings may
 * be KAI_PROTO_STR_MAX long whatever a submission may carry.
 */
#define INFO_MAX_STR(max)  KAI_PROTO_STR_MAX
#define INFO_MAX_ENUM(max) (max)
#define INFO_MAX_BOOL(max) 0
#define INFO_MAX_U32(max)  0
#define INFO_MAX_U64(max)  0
#define INFO_MAX_I32(max)  0
#define INFO_MAX_I64(max)  0
#define KAI_JF_INFO(m, t, max, st, it, col, json, label, fl)              \
	[(it) - 1] = {#m, KAI_CODEC_##t, J(m), 0, INFO_MAX_##t(max), 0},
#define KAI_JF_BOTH KAI_JF_INFO
#define KAI_JF_HOLE_INFO(it)                                                   \
	[(it) - 1] = {"reserved", KAI_CODEC_HOLE, 0, 0, 0, 0},
static const struct kai_codec_field jobinfo_fields[] = {
#include "model/jobfields.def"
};

#define KAI_JF_INFO(m, t, max, st, it, col, json, label, fl) +1
#define KAI_JF_BOTH KAI_JF_INFO
#define KAI_JF_HOLE_INFO(it) +1
enum { INFO_ROWS = 0
#include "model/jobfields.def"
};
_Static_assert(KAI_NELEM(jobinfo_fields) == INFO_ROWS,
    "the jobinfo tags of jobfields.def are not 1..n");
#define NFIELDS KAI_NELEM(jobinfo_fields)

int
kai_msg_jobs_encode(struct kai_buf *b, const struct kai_jobinfo *jobs, size_t n,
    size_t *first, size_t max_body)
{
	size_t start = b->len, i = *first;

	/*
	 * The list stops at a record the codec refuses; a state out of range
	 * is a bug in the caller, not a full frame, and fails the whole
	 * frame.  A record bigger than max_body (a job whose paths or node
	 * list are long) goes alone in a frame of up to KAI_PROTO_BODY_MAX:
	 * one such job must not make the list unanswerable for everyone.
	 */
	if (i > n || (n > i && jobs == NULL) || max_body < 4 ||
	    kai_codec_put_records(b, jobinfo_fields, NFIELDS, jobs,
	    sizeof(*jobs), n, &i, start, KAI_PROTO_LIST_MAX, max_body) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	if (i == *first && i < n && (uint32_t)jobs[i].state < KAI_JOB_NSTATES) {
		kai_codec_rollback(b, start);
		if (kai_codec_put_records(b, jobinfo_fields, NFIELDS, jobs,
		    sizeof(*jobs), n, &i, start, 1, KAI_PROTO_BODY_MAX) != 0) {
			kai_codec_rollback(b, start);
			return KAI_EINVAL;
		}
	}
	if ((i < n && (uint32_t)jobs[i].state >= KAI_JOB_NSTATES) ||
	    (i == *first && i < n)) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	*first = i;
	return 0;
}

int
kai_msg_jobs_decode(const void *p, size_t len, struct kai_jobinfo **jobs,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_jobinfo *a;
	size_t c = 0, i;
	int rc;

	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "job", KAI_PROTO_LIST_MAX,
		 KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return kai_codec_rd_end(&r);
	a = kai_xreallocarray(*jobs, *n + c, sizeof(*a));
	*jobs = a;
	memset(a + *n, 0, c * sizeof(*a));
	for (i = 0; i < c; i++)
		if ((rc = kai_codec_get_record(&r, jobinfo_fields, NFIELDS,
			 &a[*n + i])) != 0)
			break;
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		/* A failed record is half-filled: free it too. */
		for (i = 0; i < c; i++)
			kai_jobinfo_fini(&a[*n + i]);
		return rc;
	}
	*n += c;
	return 0;
}
