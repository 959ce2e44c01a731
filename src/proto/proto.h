/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto.h: the client <-> kaid wire protocol.  Pure: bytes in, structs out.
 *
 * A frame is a fixed 20-byte header, then the MUNGE credential, then the
 * body (all integers big-endian):
 *
 *	magic    u32  0x4b414962 ("KAIb": "KAI" plus b for batch)
 *	version  u16  KAI_PROTO_VERSION; bump on any change of format
 *	type     u16  enum kai_msg_type
 *	flags    u32  KAI_FRAME_MORE: more reply frames follow this one
 *	cred_len u32  bytes of credential (requests; 0 in replies)
 *	body_len u32  bytes of body
 *
 * Every length is checked against a hard limit before anything is
 * allocated.  The credential's payload is kai_frame_digest() of the frame,
 * so a credential cannot be moved onto another body.  Bodies are encoded
 * by the per-message functions below; a decoder fails with KAI_EPROTO and
 * a message naming the field on short, oversized or trailing input.
 *
 * Decoded structs own their strings and arrays; release them with the
 * matching _fini().  Type numbers and field order are documented in
 * doc/design/PROTOCOL.md and are append-only.
 */
#ifndef KAI_PROTO_PROTO_H
#define KAI_PROTO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "model/job.h"

#define KAI_PROTO_MAGIC	    UINT32_C(0x4b414962)
#define KAI_PROTO_VERSION   1
#define KAI_PROTO_HDR_LEN   20
#define KAI_PROTO_BODY_MAX  (1024 * 1024) /* any one frame's body */
#define KAI_PROTO_CRED_MAX  4096
#define KAI_PROTO_LIST_MAX  100000	  /* ids, uids, queues in a request */
#define KAI_PROTO_STR_MAX   (256 * 1024)  /* one string field, but scripts */
#define KAI_PROTO_DIGEST_LEN 32		  /* SHA-256 */

#define KAI_FRAME_MORE 0x1

enum kai_msg_type {
	KAI_MSG_ERROR = 1,	  /* reply: struct kai_msg_error */
	KAI_MSG_SUBMIT = 2,	  /* request: struct kai_jobspec */
	KAI_MSG_SUBMIT_REPLY = 3, /* reply: u64 job id */
	KAI_MSG_QUERY = 4,	  /* request: struct kai_query */
	KAI_MSG_QUERY_REPLY = 5,  /* reply: jobinfo list, may span frames */
	KAI_MSG_CANCEL = 6,	  /* request: struct kai_cancel */
	KAI_MSG_CANCEL_REPLY = 7, /* reply: cancel results */
	KAI_MSG_PING = 8,	  /* request: empty body */
	KAI_MSG_PING_REPLY = 9	  /* reply: u32 uid, u32 gid as kaid saw them */
};

struct kai_frame_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t flags;
	uint32_t cred_len;
	uint32_t body_len;
};

/*
 * Decodes and checks a header from n >= KAI_PROTO_HDR_LEN bytes: magic,
 * version ("protocol version mismatch: client speaks 2, kaid speaks 1"),
 * cred_len <= KAI_PROTO_CRED_MAX, body_len <= KAI_PROTO_BODY_MAX.  Returns
 * KAI_EPROTO on any fault.  The version is checked after the magic, so a
 * peer that is not kaibatch at all gets "bad magic".
 */
int kai_frame_hdr_decode(const void *p, size_t n, struct kai_frame_hdr *h,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_frame_hdr_encode(const struct kai_frame_hdr *h,
    uint8_t out[KAI_PROTO_HDR_LEN]);

/*
 * Appends a whole frame (header with this version, cred, body) to out.
 * cred may be NULL (replies).  KAI_EINVAL if a limit would be passed.
 */
int kai_frame_build(struct kai_buf *out, uint16_t type, uint32_t flags,
    const char *cred, const void *body, size_t body_len) KAI_MUST_CHECK;

/*
 * The digest a request's credential must carry: SHA-256 over the version
 * and type (big-endian u16 each) followed by the body.
 */
void kai_frame_digest(uint16_t type, const void *body, size_t body_len,
    uint8_t out[KAI_PROTO_DIGEST_LEN]);

/* KAI_MSG_ERROR */
struct kai_msg_error {
	int32_t code;	/* KAI_E* */
	char *msg;	/* one line */
	char *hint;	/* NULL or one line */
};
int kai_msg_error_encode(struct kai_buf *b, int32_t code, const char *msg,
    const char *hint) KAI_MUST_CHECK;
int kai_msg_error_decode(const void *p, size_t n, struct kai_msg_error *m,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_msg_error_fini(struct kai_msg_error *m);

/* KAI_MSG_SUBMIT and its reply */
int kai_msg_submit_encode(struct kai_buf *b, const struct kai_jobspec *js)
    KAI_MUST_CHECK;
int kai_msg_submit_decode(const void *p, size_t n, struct kai_jobspec *js,
    struct kai_err *err) KAI_MUST_CHECK;
int kai_msg_u64_encode(struct kai_buf *b, uint64_t v) KAI_MUST_CHECK;
int kai_msg_u64_decode(const void *p, size_t n, uint64_t *v,
    struct kai_err *err) KAI_MUST_CHECK;

/* KAI_MSG_QUERY: which jobs kqueue / kacct want. */
#define KAI_QUERY_ALL_USERS 0x1 /* kacct -a; kqueue shows all by default */
#define KAI_QUERY_HISTORY   0x2 /* include finished jobs (kacct) */
struct kai_query {
	uint64_t *ids;		/* NULL/0 = any job */
	size_t nids;
	uint32_t *uids;		/* NULL/0 = any user */
	size_t nuids;
	char **queues;		/* NULL/0 = any queue */
	size_t nqueues;
	uint32_t state_mask;	/* KAI_JOB_STATE_BIT()s; 0 = default */
	int64_t start;		/* jobs active at or after (unix s); 0 = any */
	int64_t end;		/* jobs submitted at or before (unix s); 0 = any */
	uint32_t flags;		/* KAI_QUERY_* */
};
int kai_msg_query_encode(struct kai_buf *b, const struct kai_query *q)
    KAI_MUST_CHECK;
int kai_msg_query_decode(const void *p, size_t n, struct kai_query *q,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_query_fini(struct kai_query *q);

/*
 * KAI_MSG_QUERY_REPLY: a count then that many jobinfo records.  A long list
 * is sent as several frames with KAI_FRAME_MORE; the encoder appends jobs
 * [*first, n) until the body would pass max_body and advances *first, so
 * the caller loops until *first == n.
 */
int kai_msg_jobs_encode(struct kai_buf *b, const struct kai_jobinfo *jobs,
    size_t n, size_t *first, size_t max_body) KAI_MUST_CHECK;
/* Appends the decoded jobs to *jobs / *n (realloc'ed). */
int kai_msg_jobs_decode(const void *p, size_t len, struct kai_jobinfo **jobs,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;

/* KAI_MSG_CANCEL: kcancel's selection; ids and filters combine with AND. */
struct kai_cancel {
	uint64_t *ids;
	size_t nids;
	uint32_t *uids;
	size_t nuids;
	char **queues;
	size_t nqueues;
	uint32_t state_mask;	/* 0 = any non-terminal state */
};
int kai_msg_cancel_encode(struct kai_buf *b, const struct kai_cancel *c)
    KAI_MUST_CHECK;
int kai_msg_cancel_decode(const void *p, size_t n, struct kai_cancel *c,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_cancel_fini(struct kai_cancel *c);

/* KAI_MSG_CANCEL_REPLY: one result per job the selection named or matched. */
struct kai_cancel_result {
	uint64_t id;
	int32_t code;	/* KAI_OK, KAI_ENOENT, KAI_EPERM, ... */
	char *msg;	/* "" on success */
};
int kai_msg_cancel_reply_encode(struct kai_buf *b,
    const struct kai_cancel_result *r, size_t n) KAI_MUST_CHECK;
int kai_msg_cancel_reply_decode(const void *p, size_t len,
    struct kai_cancel_result **r, size_t *n, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_cancel_results_free(struct kai_cancel_result *r, size_t n);

/* KAI_MSG_PING_REPLY */
int kai_msg_ping_reply_encode(struct kai_buf *b, uint32_t uid, uint32_t gid)
    KAI_MUST_CHECK;
int kai_msg_ping_reply_decode(const void *p, size_t n, uint32_t *uid,
    uint32_t *gid, struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_PROTO_PROTO_H */
