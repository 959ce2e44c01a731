/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto_report.h: kacct --report's messages (types 28-29; see proto.h for
 * the frame and doc/design/PROTOCOL.md for the order of the fields).
 *
 *	KAI_MSG_REPORT		i64 start, i64 end (the period [start, end),
 *				unix seconds), u32 list uids, str list
 *				queues (empty lists: everything).
 *	KAI_MSG_REPORT_REPLY	u32 count, then count report rows; a long
 *				answer spans frames (KAI_FRAME_MORE on all
 *				but the last), and the client appends.
 *
 * kaid adds up the rows in PostgreSQL (db_report.c): a client never sees
 * a job, only one row per (queue, user).
 */
#ifndef KAI_PROTO_PROTO_REPORT_H
#define KAI_PROTO_PROTO_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/msgtype.h"

#define KAI_REPORT_ROWS_MAX 1000000 /* (queue, user) rows in an answer */

struct kai_report_req {
	int64_t start;		/* the period: [start, end) */
	int64_t end;
	uint32_t *uids;		/* these users only; none = everybody */
	size_t nuids;
	char **queues;		/* these queues only; none = every queue */
	size_t nqueues;
};

int kai_msg_report_req_encode(struct kai_buf *b,
    const struct kai_report_req *q) KAI_MUST_CHECK;
int kai_msg_report_req_decode(const void *p, size_t len,
    struct kai_report_req *q, struct kai_err *err) KAI_MUST_CHECK;
void kai_report_req_fini(struct kai_report_req *q);

/*
 * One (queue, user) over the period.  jobs counts those that ran in it or
 * ended in it; the state counts only those that ended in it (failed:
 * FAILED, NODE_FAIL, OUT_OF_MEMORY); running, those not ended.  Usage is
 * the part of each run inside the period: core-seconds, and GPU-seconds
 * in thousandths (a fractional GPU counts its fraction).
 */
struct kai_report_row {
	char *queue;
	char *user;
	uint32_t uid;
	uint64_t jobs;
	uint64_t completed;
	uint64_t failed;
	uint64_t cancelled;
	uint64_t timeout;
	uint64_t preempted;
	uint64_t running;
	int64_t cpu_s;		/* core-seconds */
	int64_t gpu_ms;		/* GPU-seconds x 1000 */
};

/* Appends rows [*first, n) while the body fits max_body; see msg_jobs. */
int kai_msg_report_encode(struct kai_buf *b, const struct kai_report_row *v,
    size_t n, size_t *first, size_t max_body) KAI_MUST_CHECK;
/* Appends one frame's rows to *v / *n (reallocated). */
int kai_msg_report_decode(const void *p, size_t len,
    struct kai_report_row **v, size_t *n, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_report_rows_free(struct kai_report_row *v, size_t n);

#endif /* KAI_PROTO_PROTO_REPORT_H */
