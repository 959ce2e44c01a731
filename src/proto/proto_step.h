/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto_step.h: job steps, srun inside a job (types 44-51; see proto.h
 * for the frame and doc/design/PROTOCOL.md for the order of the fields).
 * Every one is sent with the job's credential (jobauth.c), never MUNGE.
 *
 *	KAI_MSG_STEP_RUN	struct kai_step_req: srun in the batch script.
 *				step 0 creates a step, and kaid answers at
 *				once with its id; srun asks again with the
 *				step's id + 1, and kaid answers when its
 *				tasks have all ended or after about
 *				KAI_STEP_POLL_S, until it is done.
 *	KAI_MSG_STEP_RUN_REPLY	struct kai_step_result.
 *	KAI_MSG_STEP_AGENT	u32 pod, u64 seq: a pod's step agent asks for
 *				what happened after event seq (kaid's epoch
 *				in the high 32 bits, the event's number in
 *				the low: another epoch reads the log from
 *				its start); kaid answers
 *				as soon as there is something (or after
 *				about KAI_STEP_POLL_S, with nothing).
 *	KAI_MSG_STEP_AGENT_REPLY u32 count, then count struct kai_step_event.
 *	KAI_MSG_STEP_DONE	u32 step, u32 task, u32 wait status, u64
 *				max_rss_kb, u64 cpu_usec: one task of a
 *				step ended, and what it used.  Reply: empty.
 *	KAI_MSG_STEP_END	i32 status: the batch script ended (task 0's
 *				wrapper); the agents are told to go.
 *				Reply: empty.
 *	KAI_MSG_STEP_LIST	u64v job ids: their recorded steps (kacct;
 *				MUNGE or a job credential, the caller's own
 *				jobs unless an operator).
 *	KAI_MSG_STEP_SIGNAL	u64v job ids, u32 signal, u32 flags
 *				(KAI_STEP_SIG_*): kcancel --signal, to the
 *				jobs' steps through their agents.  Reply
 *				(KAI_MSG_STEP_SIGNAL_REPLY): CANCEL_REPLY's
 *				body, one result per id.
 *	KAI_MSG_STEP_LIST_REPLY u32 count, then count struct kai_step_info
 *				records, one frame (at most
 *				KAI_STEP_LIST_MAX).
 *
 * kaid keeps steps in memory only, per running job: a step outlives
 * neither its job nor a restart of kaid (srun then fails, as an srun
 * whose slurmctld went away does).
 */
#ifndef KAI_PROTO_PROTO_STEP_H
#define KAI_PROTO_PROTO_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/msgtype.h"

#define KAI_STEP_POLL_S	   25	/* a long poll's most: under the clients'
				 * 60 s receive timeout */
#define KAI_STEP_TASKS_MAX 4096 /* tasks of one step */
#define KAI_STEP_ARGV_MAX  4096 /* words of its command */
#define KAI_STEP_ENV_MAX   8192 /* variables srun passes on */
#define KAI_STEP_EVENTS_MAX 256	/* events in one agent answer */

/* srun's request: the step to start (step 0) or the one to wait for. */
struct kai_step_req {
	uint32_t step;		 /* 0: a new step; else its id + 1, to wait
				  * for it again */
	uint32_t ntasks;	 /* -n; 0: the job's tasks (or -N's count) */
	uint32_t nnodes;	 /* -N; 0: the job's nodes */
	uint32_t ntasks_per_node; /* 0: spread over the nodes */
	bool label;		 /* -l: "N: " before each line */
	bool kill_on_bad_exit;	 /* -K: a failed task ends the step */
	char *cwd;
	char *out;		 /* srun's stdout when it is a file (the
				  * pods share the filesystem); NULL: the
				  * job's output file */
	char *err;		 /* the same for stderr */
	char **argv;
	size_t argc;
	char **env;		 /* srun's environment, passed on */
	size_t nenv;
};

struct kai_step_result {
	uint32_t step;		 /* its number: SLURM_STEP_ID */
	bool done;		 /* false: ask again */
	uint32_t *status;	 /* when done: each task's wait status */
	size_t ntasks;
};

enum kai_step_event_kind {
	KAI_STEP_EV_RUN = 1,	/* start this pod's tasks of a step */
	KAI_STEP_EV_SIGNAL = 2, /* send sig to a step's tasks (0: all) */
	KAI_STEP_EV_END = 3,	/* the batch script ended: exit */
	KAI_STEP_EV_MAX
};

/*
 * One event of a job's log.  RUN carries the whole step: task i runs on
 * pod[i], as node node[i], local id local[i]; each agent runs those
 * whose pod is its own.
 */
struct kai_step_event {
	uint64_t seq;
	uint32_t kind;		/* enum kai_step_event_kind */
	uint32_t step;
	uint32_t sig;		/* SIGNAL */
	bool label;		/* RUN */
	char *cwd;
	char *out;		/* as kai_step_req's */
	char *err;
	char **argv;
	size_t argc;
	char **env;
	size_t nenv;
	uint32_t *pod;
	uint32_t *node;
	uint32_t *local;
	size_t ntasks;
};

/* A recorded step (sql/017-job-steps.sql), for kacct. */
#define KAI_STEP_BATCH 0xfffffffbU /* the batch script: Slurm's number */
struct kai_step_info {
	uint64_t job;
	uint32_t step;		/* or KAI_STEP_BATCH */
	char *name;		/* the command's first word */
	uint32_t state;		/* enum kai_job_state */
	uint32_t exit_status;	/* the worst task's wait status */
	uint32_t ntasks;
	char *nodelist;
	int64_t start;		/* unix s */
	int64_t end;		/* unix s; 0 = running */
	uint64_t max_rss_kb;	/* MaxRSS: the largest task's peak */
	uint64_t ave_rss_kb;	/* AveRSS: the tasks' peaks' mean */
	uint64_t cpu_usec;	/* TotalCPU: user + system, all tasks */
};
#define KAI_STEP_LIST_MAX 20000 /* steps in one answer */
#define KAI_STEP_IDS_MAX  100000 /* jobs in one request */

/* As many as fit in one frame from the first (*n says how many). */
int kai_msg_step_list_encode(struct kai_buf *b,
    const struct kai_step_info *v, size_t *n) KAI_MUST_CHECK;
int kai_msg_step_list_decode(const void *p, size_t len,
    struct kai_step_info **v, size_t *n, struct kai_err *err) KAI_MUST_CHECK;
void kai_step_info_free(struct kai_step_info *v, size_t n);
int kai_msg_step_ids_encode(struct kai_buf *b, const uint64_t *ids,
    size_t n) KAI_MUST_CHECK;
/* Caller frees *ids (NULL when there are none). */
int kai_msg_step_ids_decode(const void *p, size_t len, uint64_t **ids,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;

int kai_msg_step_req_encode(struct kai_buf *b,
    const struct kai_step_req *v) KAI_MUST_CHECK;
/* Caller frees v with kai_step_req_fini() (also after a failure). */
int kai_msg_step_req_decode(const void *p, size_t len,
    struct kai_step_req *v, struct kai_err *err) KAI_MUST_CHECK;
void kai_step_req_fini(struct kai_step_req *v);

int kai_msg_step_result_encode(struct kai_buf *b,
    const struct kai_step_result *v) KAI_MUST_CHECK;
int kai_msg_step_result_decode(const void *p, size_t len,
    struct kai_step_result *v, struct kai_err *err) KAI_MUST_CHECK;
void kai_step_result_fini(struct kai_step_result *v);

/* The events, as many as fit in one frame from the first (*n). */
int kai_msg_step_events_encode(struct kai_buf *b,
    const struct kai_step_event *const *v, size_t *n) KAI_MUST_CHECK;
/* Caller frees *v with kai_step_events_free() (NULL after a failure). */
int kai_msg_step_events_decode(const void *p, size_t len,
    struct kai_step_event **v, size_t *n, struct kai_err *err) KAI_MUST_CHECK;
void kai_step_event_fini(struct kai_step_event *v);
void kai_step_events_free(struct kai_step_event *v, size_t n);

/* kcancel --signal's targets: the steps' tasks unless one says else. */
#define KAI_STEP_SIG_BATCH 0x1 /* -b: the batch shell alone */
#define KAI_STEP_SIG_FULL  0x2 /* --full: the batch shell and the steps */
#define KAI_STEP_SIG_FLAGS 0x3
int kai_msg_step_signal_encode(struct kai_buf *b, const uint64_t *ids,
    size_t n, uint32_t sig, uint32_t flags) KAI_MUST_CHECK;
/* Caller frees *ids (NULL when none); flags outside KAI_STEP_SIG_FLAGS
 * and signals outside 1..64 are refused. */
int kai_msg_step_signal_decode(const void *p, size_t len, uint64_t **ids,
    size_t *n, uint32_t *sig, uint32_t *flags,
    struct kai_err *err) KAI_MUST_CHECK;

/* The three small requests: their fixed fields in order (u32s, or
 * AGENT's u32 + u64, END's i32 as a u32). */
int kai_msg_step_agent_encode(struct kai_buf *b, uint32_t pod,
    uint64_t seq) KAI_MUST_CHECK;
int kai_msg_step_agent_decode(const void *p, size_t len, uint32_t *pod,
    uint64_t *seq, struct kai_err *err) KAI_MUST_CHECK;
/* One task's end: its wait status and usage (wait4(2)'s rusage). */
struct kai_step_done {
	uint32_t step;
	uint32_t task;
	uint32_t status;
	uint64_t max_rss_kb;
	uint64_t cpu_usec;
};
int kai_msg_step_done_encode(struct kai_buf *b,
    const struct kai_step_done *v) KAI_MUST_CHECK;
int kai_msg_step_done_decode(const void *p, size_t len,
    struct kai_step_done *v, struct kai_err *err) KAI_MUST_CHECK;
int kai_msg_step_end_encode(struct kai_buf *b, int32_t status) KAI_MUST_CHECK;
int kai_msg_step_end_decode(const void *p, size_t len, int32_t *status,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_PROTO_PROTO_STEP_H */
