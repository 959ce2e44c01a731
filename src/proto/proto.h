/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto.h: the client <-> kaid wire protocol.  Pure: bytes in, structs out.
 *
 * A frame is a fixed 20-byte header, then the MUNGE credential, then the
 * body (all integers big-endian):
 *
 *	magic    u32  0x4b414962 ("KAIb": "KAI" plus b for batch)
 *	version  u16  KAI_PROTO_VERSION_MIN..KAI_PROTO_VERSION
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
 *
 * Evolution (PROTOCOL.md): every record is length-prefixed, so a field
 * appended to a record needs no new version (a reader skips what it does
 * not know, and an older peer's record leaves the new field zero).  Any
 * other change of format bumps KAI_PROTO_VERSION; a peer speaks the
 * versions KAI_PROTO_VERSION_MIN..KAI_PROTO_VERSION.  The header and the
 * KAI_MSG_ERROR body are the same in every version, so a peer outside
 * that range still gets a readable "protocol version mismatch" line
 * naming both versions.
 */
#ifndef KAI_PROTO_PROTO_H
#define KAI_PROTO_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "model/job.h"
#include "proto/msgtype.h"

#define KAI_PROTO_MAGIC	    UINT32_C(0x4b414962)
#define KAI_PROTO_VERSION   3	/* 3: length-prefixed records */
#define KAI_PROTO_VERSION_MIN 3	/* the oldest version still spoken */
#define KAI_PROTO_HDR_LEN   20
#define KAI_PROTO_BODY_MAX  (1024 * 1024) /* any one frame's body */
#define KAI_PROTO_CRED_MAX  4096
#define KAI_PROTO_LIST_MAX  100000	  /* ids, uids, queues in a request */
#define KAI_PROTO_STR_MAX   (256 * 1024)  /* one string field, but scripts */
#define KAI_PROTO_DIGEST_LEN 32		  /* SHA-256 */

#define KAI_FRAME_MORE 0x1


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
 * version within KAI_PROTO_VERSION_MIN..KAI_PROTO_VERSION ("protocol
 * version mismatch: client speaks 3, kaid speaks 2"), cred_len <=
 * KAI_PROTO_CRED_MAX, body_len <= KAI_PROTO_BODY_MAX.  Returns KAI_EPROTO
 * on any fault, with every field of *h filled in.  The version is checked
 * after the magic, so a peer that is not kaibatch at all gets "bad
 * magic".  A KAI_MSG_ERROR frame of any version from 1 on is accepted:
 * its body has one layout in every version, so that a client hears the
 * mismatch an older or newer kaid reports.
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
 * The same with the header's version given: kaid answers a request in
 * the version it was sent in (an ERROR only, when that is not one kaid
 * speaks).
 */
int kai_frame_build_version(struct kai_buf *out, uint16_t version,
    uint16_t type, uint32_t flags, const char *cred, const void *body,
    size_t body_len) KAI_MUST_CHECK;

/*
 * The digest a request's credential must carry: SHA-256 over the version
 * the frame is sent in and its type (big-endian u16 each) followed by
 * the body.
 */
void kai_frame_digest(uint16_t version, uint16_t type, const void *body,
    size_t body_len, uint8_t out[KAI_PROTO_DIGEST_LEN]);

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
#define KAI_QUERY_DUPLICATES 0x4 /* and each earlier run of a requeued job,
				  * as a REQUEUED record (kacct -D) */
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
 * the caller loops until *first == n.  A job whose record alone passes
 * max_body gets a frame of its own of up to KAI_PROTO_BODY_MAX; KAI_EINVAL
 * only for a record larger than that, or a state out of range.
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

/*
 * Queues (kctl queue).  The units are the scheduler core's, so that no
 * value is rounded on its way from kctl to kai_sched_cycle():
 *
 *	GPU	micro-GPUs (KAI_QUEUE_GPU_UNIT = one GPU; 1.5 GPUs = 1500000)
 *	CPU	millicores
 *	memory	MiB
 *	weight	millionths (KAI_QUEUE_WEIGHT_UNIT = a weight of 1)
 *
 * quota: -1 unlimited, 0 none; limit: -1 none.  Names follow the rule of
 * kaid.yaml's partitions: 1 to 63 lower-case letters, digits, '_', '-'.
 */
#define KAI_QUEUE_NAME_MAX    63
#define KAI_QUEUE_MAX	      4096    /* queues in a list or a request */
#define KAI_QUEUE_UNLIMITED   (-1)
#define KAI_QUEUE_GPU_UNIT    INT64_C(1000000)
#define KAI_QUEUE_WEIGHT_UNIT INT64_C(1000000)
#define KAI_QUEUE_VALUE_MAX   (INT64_C(1) << 50) /* any quota or limit */
#define KAI_QUEUE_WEIGHT_MAX  (INT64_C(1000000000) * KAI_QUEUE_WEIGHT_UNIT)
#define KAI_QUEUE_PRIO_MIN    INT64_C(-2147483648)
#define KAI_QUEUE_PRIO_MAX    INT64_C(2147483647)
#define KAI_QUEUE_RUNTIME_MAX INT64_C(2147483647) /* seconds */

enum kai_queue_res {
	KAI_QUEUE_GPU = 0,
	KAI_QUEUE_CPU,
	KAI_QUEUE_MEM,
	KAI_QUEUE_NRES
};

struct kai_queue_qres {
	int64_t quota;	/* guaranteed; -1 unlimited, 0 none */
	int64_t limit;	/* hard cap; -1 none */
	int64_t weight;	/* over_quota_weight, in millionths */
};

/*
 * A queue's GPU quota, limit and over-quota weight for one GPU type (the
 * value of the node label kaid.yaml's scheduler.gpu_type_label names,
 * nvidia.com/gpu.product by default): doc/scheduler.md, "GPU types".
 */
#define KAI_QUEUE_TYPES_MAX	8   /* GPU types per queue */
#define KAI_QUEUE_TYPE_NAME_MAX 63  /* a Kubernetes label value */
#define KAI_QUEUE_TYPE_SETTINGS_MAX 128 /* GPU types of all queues together */
#define KAI_QUEUE_TYPE_WIRE_MAX 127 /* "TYPE QUOTA LIMIT WEIGHT" */

struct kai_queue_gtype {
	char *type;
	int64_t quota;	/* micro-GPUs; -1 unlimited; 0 by default */
	int64_t limit;	/* micro-GPUs; -1 none (the default) */
	int64_t weight;	/* millionths; -1: the queue's GPU weight */
};

struct kai_queue {
	char *name;
	char *parent;		/* NULL = a top-level queue */
	int64_t priority;	/* 100 by default; higher gets surplus first */
	struct kai_queue_qres res[KAI_QUEUE_NRES];
	int64_t preempt_min_runtime_s; /* -1: inherit from the parent */
	int64_t reclaim_min_runtime_s; /* -1: inherit from the parent */
	int64_t order;		/* replies: creation order, older is smaller */
	uint32_t active_jobs;	/* replies: PENDING/CONFIGURING/RUNNING jobs */
	struct kai_queue_gtype *types;	/* by name; NULL when ntypes is 0 */
	size_t ntypes;			/* <= KAI_QUEUE_TYPES_MAX */
	/* msg_queue.c only: types as they travel, "TYPE QUOTA LIMIT WEIGHT" */
	char **wire_types;
	size_t nwire_types;
};

/*
 * The defaults of a new queue: top level, priority 100, and per resource
 * quota -1, limit -1, weight 1 (guarantees and caps nothing, shares the
 * surplus equally), min runtimes -1.  Strings are left NULL.
 */
void kai_queue_init(struct kai_queue *q);
void kai_queue_fini(struct kai_queue *q);
/* Frees n queues (kai_queue_fini() each) and the array; q may be NULL. */
void kai_queues_free(struct kai_queue *q, size_t n);
/* A deep copy of src into dst (dst's old contents are not freed). */
void kai_queue_copy(struct kai_queue *dst, const struct kai_queue *src);

/* "gpu", "cpu", "memory". */
const char *kai_queue_res_name(enum kai_queue_res r);

/*
 * Adds (or, when q already names it, replaces) GPU type type with its
 * quota, limit and weight, keeping the types sorted by name.  KAI_EINVAL
 * for a name that is not a label value (1 to 63 letters, digits, '-',
 * '_', '.') or past KAI_QUEUE_TYPES_MAX types; err names the queue.
 */
int kai_queue_type_set(struct kai_queue *q, const char *type, int64_t quota,
    int64_t limit, int64_t weight, struct kai_err *err) KAI_MUST_CHECK;
/* Frees q's types (the queue then names none). */
void kai_queue_types_clear(struct kai_queue *q);
/* q's settings for type, or NULL. */
const struct kai_queue_gtype *kai_queue_type_find(const struct kai_queue *q,
    const char *type);
/*
 * Parses one GPU type as kctl takes it, "TYPE:QUOTA[:LIMIT[:WEIGHT]]"
 * with GPUs as decimals ("A100:2:4", "H100:0:-1:3"), into q.
 */
int kai_queue_type_parse(struct kai_queue *q, const char *s,
    struct kai_err *err) KAI_MUST_CHECK;
/*
 * One type as it travels and is stored, "TYPE QUOTA LIMIT WEIGHT" in
 * core units (micro-GPUs, millionths): caller owns the result.
 */
char *kai_queue_type_wire(const struct kai_queue_gtype *x);
/* Adds the type of one such string to q; KAI_EINVAL when malformed. */
int kai_queue_type_wire_parse(struct kai_queue *q, const char *s,
    struct kai_err *err) KAI_MUST_CHECK;
/* Checks q's types (names, values, a limit below a quota). */
int kai_queue_types_check(const struct kai_queue *q, struct kai_err *err)
    KAI_MUST_CHECK;
/* Whether a and b name the same types with the same values. */
bool kai_queue_types_equal(const struct kai_queue *a,
    const struct kai_queue *b);

/*
 * Checks a name: KAI_EINVAL "invalid queue name \"X\": expected 1 to 63
 * lower-case letters, digits, '_' and '-'".
 */
int kai_queue_name_check(const char *name, struct kai_err *err)
    KAI_MUST_CHECK;
/*
 * Checks one queue's own values (name, parent name, priority, each
 * quota, limit and weight, the min runtimes, a limit below a quota, a
 * queue that is its own parent).  The tree is kaid's to check.  Messages
 * name the queue: "queue \"a\": gpu limit 1 is below its quota 2".
 */
int kai_queue_check(const struct kai_queue *q, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * A value in units of 1/unit as a decimal with no trailing zeros:
 * (1500000, 1000000) -> "1.5", (-1, any) -> "-1", (7, 1) -> "7".
 */
void kai_queue_fmt_units(int64_t v, int64_t unit, char *buf, size_t size);
/*
 * Parses "-1" or a non-negative decimal with at most as many fraction
 * digits as unit has zeros ("1.5" -> 1500000 for KAI_QUEUE_GPU_UNIT),
 * up to max (in units).  KAI_EINVAL naming what on failure.
 */
int kai_queue_parse_units(const char *s, int64_t unit, int64_t max,
    const char *what, int64_t *v, struct kai_err *err) KAI_MUST_CHECK;

/* KAI_MSG_QUEUE_APPLY: a batch of changes, applied all or nothing. */
enum kai_queue_op {
	KAI_QUEUE_CREATE = 0,	/* refused if it exists; unset fields default */
	KAI_QUEUE_UPDATE,	/* refused if missing; unset fields unchanged */
	KAI_QUEUE_REPLACE,	/* create or update; unset fields default */
	KAI_QUEUE_NOPS
};

/* Which fields a change sets (struct kai_queue_change.set). */
#define KAI_QUEUE_SET_PARENT	  (1u << 0)
#define KAI_QUEUE_SET_PRIORITY	  (1u << 1)
#define KAI_QUEUE_SET_QUOTA(r)	  (1u << (2 + 3 * (r)))
#define KAI_QUEUE_SET_LIMIT(r)	  (1u << (3 + 3 * (r)))
#define KAI_QUEUE_SET_WEIGHT(r)	  (1u << (4 + 3 * (r)))
#define KAI_QUEUE_SET_PREEMPT_MIN (1u << 11)
#define KAI_QUEUE_SET_RECLAIM_MIN (1u << 12)
#define KAI_QUEUE_SET_GPU_TYPES	  (1u << 13) /* the list replaces the queue's */
#define KAI_QUEUE_SET_GPU_TYPE_EACH (1u << 14) /* each type listed is set */
#define KAI_QUEUE_SET_ALL	  ((1u << 14) - 1) /* all but ..._EACH */
#define KAI_QUEUE_SET_VALID	  ((1u << 15) - 1)

struct kai_queue_change {
	enum kai_queue_op op;
	uint32_t set;		/* KAI_QUEUE_SET_* */
	struct kai_queue q;	/* order and active_jobs are ignored */
};

/* What a change did (KAI_MSG_QUEUE_APPLY_REPLY). */
enum kai_queue_result {
	KAI_QUEUE_CREATED = 0,
	KAI_QUEUE_UPDATED,
	KAI_QUEUE_UNCHANGED,
	KAI_QUEUE_NRESULTS
};

/* "created", "updated", "unchanged". */
const char *kai_queue_result_name(enum kai_queue_result r);

/* KAI_MSG_QUEUE_LIST_REPLY: n <= KAI_QUEUE_MAX queues, one frame. */
int kai_msg_queues_encode(struct kai_buf *b, const struct kai_queue *q,
    size_t n) KAI_MUST_CHECK;
/* Caller owns *q (kai_queues_free()). */
int kai_msg_queues_decode(const void *p, size_t len, struct kai_queue **q,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;

/* KAI_MSG_QUEUE_APPLY: 1 <= n <= KAI_QUEUE_MAX changes. */
int kai_msg_queue_apply_encode(struct kai_buf *b,
    const struct kai_queue_change *c, size_t n) KAI_MUST_CHECK;
/* Caller owns *c (kai_queue_changes_free()). */
int kai_msg_queue_apply_decode(const void *p, size_t len,
    struct kai_queue_change **c, size_t *n, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_queue_changes_free(struct kai_queue_change *c, size_t n);

/* KAI_MSG_QUEUE_APPLY_REPLY: the name and result of each change, in order. */
struct kai_queue_outcome {
	char *name;
	enum kai_queue_result result;
};
int kai_msg_queue_outcomes_encode(struct kai_buf *b,
    const struct kai_queue_outcome *o, size_t n) KAI_MUST_CHECK;
int kai_msg_queue_outcomes_decode(const void *p, size_t len,
    struct kai_queue_outcome **o, size_t *n, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_queue_outcomes_free(struct kai_queue_outcome *o, size_t n);

/*
 * KAI_MSG_QUEUE_DELETE: 1 <= n <= KAI_QUEUE_MAX names, deleted all or
 * nothing.  The reply is a u32 (the number deleted).
 */
int kai_msg_queue_delete_encode(struct kai_buf *b, char *const *names,
    size_t n) KAI_MUST_CHECK;
int kai_msg_queue_delete_decode(const void *p, size_t len, char ***names,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;
int kai_msg_u32_encode(struct kai_buf *b, uint32_t v) KAI_MUST_CHECK;
int kai_msg_u32_decode(const void *p, size_t len, uint32_t *v,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Fair share (kshare, msg_share.c).  kaid answers from its last
 * scheduling pass.  Units as for queues: micro-GPUs, millicores, MiB;
 * decayed usage in micro-GPU-seconds, millicore-seconds and MiB-seconds;
 * a normalised usage in millionths of the cluster's decayed capacity.
 */
#define KAI_SHARE_USER_MAX    255	/* bytes of a user name */
#define KAI_SHARE_USERS_MAX   1000000	/* (queue, user) rows in a reply */

/* KAI_MSG_SHARE: filters; empty lists select everything. */
struct kai_share_req {
	char **users;		/* user rows of these users only */
	size_t nusers;
	char **queues;		/* these queues and the queues below them */
	size_t nqueues;
};
int kai_msg_share_req_encode(struct kai_buf *b, const struct kai_share_req *q)
    KAI_MUST_CHECK;
int kai_msg_share_req_decode(const void *p, size_t len,
    struct kai_share_req *q, struct kai_err *err) KAI_MUST_CHECK;
void kai_share_req_fini(struct kai_share_req *q);

struct kai_share_res {
	int64_t quota;		/* as struct kai_queue_qres */
	int64_t limit;
	int64_t weight;		/* millionths */
	int64_t fair_share;	/* -1: the cluster does not track it */
	int64_t allocated;	/* at the end of the pass */
	int64_t requested;	/* allocated + pending, at its start */
	int64_t usage;		/* decayed, resource-seconds */
	int64_t usage_share;	/* usage / decayed capacity, millionths */
};

/*
 * A queue's figures for one GPU type of the pass (doc/scheduler.md, "GPU
 * types"), in micro-GPUs (weight in millionths, -1: the GPU weight).
 */
struct kai_share_type {
	char type[KAI_QUEUE_TYPE_NAME_MAX + 1];
	int64_t quota, limit, weight;
	int64_t fair_share, allocated, requested;
};

#define KAI_SHARE_TYPES_MAX	64	/* GPU types of a pass */
#define KAI_SHARE_TYPE_WIRE_MAX 255	/* one of them on the wire */

struct kai_share_queue {
	char *name;
	char *parent;		/* NULL = top level */
	int64_t priority;
	struct kai_share_res res[KAI_QUEUE_NRES];
	/* Per GPU type of the pass, in name order, as they travel:
	 * "TYPE QUOTA LIMIT WEIGHT FAIR_SHARE ALLOCATED REQUESTED"
	 * (kai_share_type_text(), kai_share_type_parse()). */
	char **gpu_types;
	size_t ngpu_types;
};

/* x as it travels; caller owns the result. */
char *kai_share_type_text(const struct kai_share_type *x);
/* One gpu_types entry into x; KAI_EPROTO when malformed. */
int kai_share_type_parse(const char *s, struct kai_share_type *x,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * A user's part of a leaf queue; or, with account set (and user ""), an
 * account's part: kaid.yaml's accounts.fairshare weight and its share of
 * the queue's GPU fair share by weight among the queue's accounts.
 */
struct kai_share_user {
	char *queue;
	char *user;
	int64_t usage[KAI_QUEUE_NRES];	   /* decayed, resource-seconds */
	int64_t allocated[KAI_QUEUE_NRES]; /* held by the user's jobs now */
	char *account;		/* NULL or "" = a user's row */
	int64_t shares;		/* the account's weight */
	int64_t fair_share_gpu; /* its part of the queue's, micro-GPUs */
};

struct kai_share {
	int64_t time;		/* unix s of the pass */
	int64_t half_life_s;	/* 0: no decay */
	int64_t window_s;
	int64_t k_value;	/* millionths */
	struct kai_share_queue *queues; /* parents before children */
	size_t nqueues;
	struct kai_share_user *users;	/* by queue, then user */
	size_t nusers;
};

/*
 * KAI_MSG_SHARE_REPLY: each frame repeats the four figures, then holds as
 * many queues, then users, as fit in max_body, from *qfirst and *ufirst
 * on; both advance.  The caller sends frames (KAI_FRAME_MORE) until both
 * lists are done.
 */
int kai_msg_share_encode(struct kai_buf *b, const struct kai_share *s,
    size_t *qfirst, size_t *ufirst, size_t max_body) KAI_MUST_CHECK;
/* Appends one frame's records to *s (zeroed before the first frame). */
int kai_msg_share_decode(const void *p, size_t len, struct kai_share *s,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_share_fini(struct kai_share *s);

#endif /* KAI_PROTO_PROTO_H */
