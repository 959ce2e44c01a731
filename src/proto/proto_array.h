/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto_array.h: the wire messages of job arrays and dependencies (types
 * 40-49, the range this family owns; see proto.h for the frame).
 *
 *	KAI_MSG_SUBMIT_EXT	a submission with --array / --dependency:
 *				str array (nullable), str dependency
 *				(nullable), bool kill_on_invalid_dep, then
 *				a KAI_MSG_SUBMIT body.  The reply,
 *				KAI_MSG_SUBMIT_EXT_REPLY, has the body of a
 *				KAI_MSG_SUBMIT_REPLY.  ksubmit sends it only
 *				when one of them is given, so a plain
 *				submission stays a KAI_MSG_SUBMIT.
 *	KAI_MSG_CANCEL_TASKS	kcancel 123_4 / 123_[1-3]: u32 n, then n of
 *				(u64 array job id, u32 task index).  The
 *				reply, KAI_MSG_CANCEL_TASKS_REPLY, has the
 *				body of a KAI_MSG_CANCEL_REPLY.
 *
 * The texts travel as the user wrote them; kaid parses them with
 * model/array.h and model/dep.h, so a client cannot smuggle in a set
 * kaid would not accept.
 */
#ifndef KAI_PROTO_PROTO_ARRAY_H
#define KAI_PROTO_PROTO_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "model/job.h"
#include "proto/msgtype.h"

#define KAI_PROTO_TASKS_MAX 100000 /* tasks in one KAI_MSG_CANCEL_TASKS */

struct kai_submit_ext {
	char *array;		/* --array text; NULL = not an array */
	char *dependency;	/* --dependency text; NULL = none */
	bool kill_on_invalid_dep;
	struct kai_jobspec spec;
};

int kai_msg_submit_ext_encode(struct kai_buf *b,
    const struct kai_submit_ext *x) KAI_MUST_CHECK;
int kai_msg_submit_ext_decode(const void *p, size_t n,
    struct kai_submit_ext *x, struct kai_err *err) KAI_MUST_CHECK;
void kai_submit_ext_fini(struct kai_submit_ext *x);

struct kai_task_ref {
	uint64_t array_id;
	uint32_t task;
};

int kai_msg_cancel_tasks_encode(struct kai_buf *b,
    const struct kai_task_ref *t, size_t n) KAI_MUST_CHECK;
/* Caller frees *t. */
int kai_msg_cancel_tasks_decode(const void *p, size_t len,
    struct kai_task_ref **t, size_t *n, struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_PROTO_PROTO_ARRAY_H */
