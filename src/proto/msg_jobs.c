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

/* clang-format off */
#define J(m)	     offsetof(struct kai_jobinfo, m)
#define STR(name, m) {name, KAI_CODEC_STR, J(m), 0, KAI_PROTO_STR_MAX, 0}

_Static_assert(sizeof(enum kai_job_state) == sizeof(uint32_t),
    "the state travels as a u32");

/* A jobinfo record on the wire, in order (PROTOCOL.md "jobinfo"). */
static const struct kai_codec_field jobinfo_fields[] = {
	{"id", KAI_CODEC_U64, J(id), 0, 0, 0},
	STR("name", name),
	{"uid", KAI_CODEC_U32, J(uid), 0, 0, 0},
	{"gid", KAI_CODEC_U32, J(gid), 0, 0, 0},
	STR("user", user),
	STR("queue", queue),
	STR("account", account),
	{"state", KAI_CODEC_ENUM, J(state), 0, KAI_JOB_NSTATES, 0},
	STR("reason", reason),
	{"submit_time", KAI_CODEC_I64, J(submit_time), 0, 0, 0},
	{"start_time", KAI_CODEC_I64, J(start_time), 0, 0, 0},
	{"end_time", KAI_CODEC_I64, J(end_time), 0, 0, 0},
	{"time_limit_s", KAI_CODEC_I64, J(time_limit_s), 0, 0, 0},
	{"ntasks", KAI_CODEC_U32, J(ntasks), 0, 0, 0},
	{"cpus_per_task", KAI_CODEC_U32, J(cpus_per_task), 0, 0, 0},
	{"mem_mb", KAI_CODEC_U64, J(mem_mb), 0, 0, 0},
	{"gpus_per_task", KAI_CODEC_U32, J(gpus_per_task), 0, 0, 0},
	STR("nodelist", nodelist),
	{"exit_code", KAI_CODEC_I32, J(exit_code), 0, 0, 0},
	{"exit_signal", KAI_CODEC_I32, J(exit_signal), 0, 0, 0},
	STR("workdir", workdir),
	STR("stdout_path", stdout_path),
	STR("stderr_path", stderr_path),
	{"hold", KAI_CODEC_BOOL, J(hold), 0, 0, 0},
	{"priority", KAI_CODEC_U32, J(priority), 0, 0, 0},
	STR("array_id", array_id),
	{"tasks_run", KAI_CODEC_U32, J(tasks_run), 0, 0, 0},
	{"est_start", KAI_CODEC_I64, J(est_start), 0, 0, 0},
	{"gpu_micro", KAI_CODEC_U64, J(gpu_micro), 0, 0, 0},
	{"signal_number", KAI_CODEC_U32, J(signal_number), 0, 0, 0},
	{"signal_secs", KAI_CODEC_U32, J(signal_secs), 0, 0, 0},
	{"signal_batch", KAI_CODEC_BOOL, J(signal_batch), 0, 0, 0},
	{"open_mode", KAI_CODEC_U32, J(open_mode), 0, 0, 0},
};
/* clang-format on */
#define NFIELDS KAI_NELEM(jobinfo_fields)

int
kai_msg_jobs_encode(struct kai_buf *b, const struct kai_jobinfo *jobs, size_t n,
    size_t *first, size_t max_body)
{
	size_t start = b->len, i = *first;

	/*
	 * The list stops at a record the codec refuses; a state out of range
	 * is a bug in the caller, not a full frame, and fails the whole
	 * frame, as does a record bigger than a whole body.
	 */
	if (i > n || (n > i && jobs == NULL) || max_body < 4 ||
	    kai_codec_put_records(b, jobinfo_fields, NFIELDS, jobs,
	    sizeof(*jobs), n, &i, start, KAI_PROTO_LIST_MAX, max_body) != 0 ||
	    (i < n && (uint32_t)jobs[i].state >= KAI_JOB_NSTATES) ||
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
		 kai_codec_record_min_len(jobinfo_fields, NFIELDS), &c)) != 0)
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
