/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_tools.h: the messages of the Slurm user's tools around the jobs:
 * kinfo and kctl show node/partition (the node list), kctl hold/release
 * (job control), kctl update job, and klog (a pod's log).  Pure, like the
 * rest of proto; the field order is in doc/design/PROTOCOL.md.
 *
 * GPU amounts are in micro-GPUs (KAI_QUEUE_GPU_UNIT is one GPU), so that
 * a fractional share (half a GPU: 500000) needs no format change; CPU is
 * in millicores and memory in MiB, as the scheduler core counts them.
 */
#ifndef KAI_PROTO_MSG_TOOLS_H
#define KAI_PROTO_MSG_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"

#define KAI_NODEINFO_MAX  10000 /* nodes in one reply */
#define KAI_PARTINFO_MAX  4096  /* partitions in one reply (queues' limit) */
#define KAI_LOG_CHUNK_MAX (64 * 1024) /* log bytes in one reply frame */

/* A partition: a leaf of the queue tree, with kaid.yaml's time limits. */
struct kai_partinfo {
	char *name;
	bool is_default;        /* jobs naming no partition go here */
	int64_t max_time_s;     /* 0 = no limit */
	int64_t default_time_s; /* 0 = none */
	uint32_t pending_jobs;  /* active jobs of the partition */
	uint32_t running_jobs;  /* CONFIGURING or RUNNING */
};

/* A node from kaid's node cache and what kaid's allocations hold on it. */
struct kai_nodeinfo {
	char *name;
	char *state;       /* sinfo's word: idle mix alloc down drain drng */
	char *reason;      /* why down or drained; "" = none */
	int64_t cpu_milli; /* allocatable */
	int64_t cpu_alloc_milli;
	uint64_t mem_mb; /* allocatable */
	uint64_t mem_alloc_mb;
	int64_t gpus;        /* micro-GPUs allocatable */
	int64_t gpus_alloc;  /* micro-GPUs held by pods on it */
	char *gpu_product;   /* nvidia.com/gpu.product; "" = none */
	uint64_t gpu_mem_mb; /* per GPU; 0 = unknown */
	uint32_t jobs;       /* kaid's jobs with a task on it */
	char *partitions;    /* the partitions it serves (its node pools),
				"a,b"; "*" = every one; "" = none */
	char *features;      /* its features (--constraint; kaid's
				nodefeat.c), "a100,ib"; "" = none */
};

/* Whether node n serves partition part (its "partitions" list). */
bool kai_nodeinfo_serves(const struct kai_nodeinfo *n, const char *part);

void kai_partinfo_fini(struct kai_partinfo *p);
void kai_nodeinfo_fini(struct kai_nodeinfo *n);
void kai_partinfos_free(struct kai_partinfo *p, size_t n);
void kai_nodeinfos_free(struct kai_nodeinfo *n, size_t count);

/* KAI_MSG_NODE_LIST_REPLY: the partitions then the nodes, one frame. */
int kai_msg_nodes_encode(struct kai_buf *b, const struct kai_partinfo *p,
    size_t np, const struct kai_nodeinfo *n, size_t nn) KAI_MUST_CHECK;
/* Caller owns *p and *n (kai_partinfos_free(), kai_nodeinfos_free()). */
int kai_msg_nodes_decode(const void *buf, size_t len, struct kai_partinfo **p,
    size_t *np, struct kai_nodeinfo **n, size_t *nn,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * KAI_MSG_JOB_CONTROL: hold, release or requeue 1 <= n <=
 * KAI_PROTO_LIST_MAX jobs.
 */
enum kai_job_op {
	KAI_JOB_OP_HOLD = 0,
	KAI_JOB_OP_RELEASE,
	KAI_JOB_OP_REQUEUE,	/* a running job back to PENDING */
	KAI_JOB_NOPS
};
struct kai_job_control {
	enum kai_job_op op;
	uint64_t *ids;
	size_t nids;
};
int kai_msg_job_control_encode(struct kai_buf *b,
    const struct kai_job_control *c) KAI_MUST_CHECK;
int kai_msg_job_control_decode(const void *p, size_t len,
    struct kai_job_control *c, struct kai_err *err) KAI_MUST_CHECK;
void kai_job_control_fini(struct kai_job_control *c);
/* "hold", "release", "requeue". */
const char *kai_job_op_name(enum kai_job_op op);

/* KAI_MSG_JOB_UPDATE: scontrol update job N Key=Value... */
#define KAI_JOB_UPD_TIME_LIMIT 0x1
#define KAI_JOB_UPD_PARTITION  0x2
#define KAI_JOB_UPD_MAIL_TYPE  0x4
#define KAI_JOB_UPD_MAIL_USER  0x8
#define KAI_JOB_UPD_ALL        0xf
struct kai_job_update {
	uint64_t id;
	uint32_t set;         /* KAI_JOB_UPD_* */
	int64_t time_limit_s; /* KAI_TIME_UNLIMITED or seconds */
	char *partition;      /* NULL unless set */
	char *mail_type;      /* canonical (model/mail.h); NULL unless set */
	char *mail_user;      /* NULL unless set */
};
int kai_msg_job_update_encode(struct kai_buf *b,
    const struct kai_job_update *u) KAI_MUST_CHECK;
int kai_msg_job_update_decode(const void *p, size_t len,
    struct kai_job_update *u, struct kai_err *err) KAI_MUST_CHECK;
void kai_job_update_fini(struct kai_job_update *u);

/*
 * KAI_MSG_LOG: the log of one task's pod.  The reply is a chain of
 * KAI_MSG_LOG_REPLY frames whose bodies are the log's bytes as they are
 * (at most KAI_LOG_CHUNK_MAX each); the last frame has no
 * KAI_FRAME_MORE.
 */
struct kai_log_req {
	uint64_t id;
	uint32_t task;
	bool follow;
};
int kai_msg_log_encode(struct kai_buf *b,
    const struct kai_log_req *l) KAI_MUST_CHECK;
int kai_msg_log_decode(const void *p, size_t len, struct kai_log_req *l,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_PROTO_MSG_TOOLS_H */
