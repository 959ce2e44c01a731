/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaid.h: the controller daemon's state and its files' entry points.
 *
 * kaid is one thread around one event loop (sys/loop.h).  struct kaid is
 * the whole of its state; there are no globals besides the pointer main()
 * hands to signal callbacks.  Prototypes are grouped by the file that
 * defines them, in the manner of relayd.h.
 */
#ifndef KAID_KAID_H
#define KAID_KAID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/map.h"
#include "conf/conf.h"
#include "db/db.h"
#include "kube/kube.h"
#include "model/job.h"
#include "proto/proto.h"
#include "sched/sched_model.h"
#include "sys/loop.h"

struct conn;

/* A submission waiting for the group commit at the end of the iteration. */
struct submit {
	struct conn *conn;	/* NULL once the client went away */
	struct kai_jobspec spec;
	struct kai_db_newjob nj;
	char *user;
	char *queue;
};

/* What kaid remembers of a pod from the watch. */
struct pod_rec {
	char *node;		/* "" = unbound */
	char *uid;		/* metadata.uid */
	enum kai_pod_phase phase;
	bool managed;
	uint64_t job_id;
	uint32_t task;
	bool terminated;
	int32_t exit_code;
	char *term_reason;
	char *reason;
	char *message;
	bool waiting_error;
	char *wait_reason;
	bool deleting;
	int64_t cpu_milli;
	uint64_t mem_mb;
	uint32_t gpus;
};

struct kaid {
	const char *conf_path;
	struct kai_conf *conf;
	struct kai_loop *loop;
	struct kai_db *db;
	struct kai_kube *kube;
	int listen_fd;
	bool foreground;

	struct kai_job **jobs;	  /* active jobs, sorted by id */
	size_t njobs;
	size_t capjobs;
	struct kai_map nodes;	  /* name -> struct kai_node * */
	struct kai_map pods;	  /* name -> struct pod_rec * */
	struct kai_map inflight;  /* pod name -> (void *)1: call under way */
	bool nodes_synced;
	bool pods_synced;

	struct submit *submits;	  /* group commit batch */
	size_t nsubmits;
	size_t capsubmits;

	struct conn **conns;
	size_t nconns;
	size_t capconns;

	uint64_t tick_timer;
	bool tick_soon;		  /* a submission or an exit wants a tick */
	int64_t last_tick_ms;	  /* loop time of the last tick */
	char *tick_error;	  /* the last cycle's refusal, logged once */
	uint64_t *prio_ids;	  /* pending jobs whose stored reason is a */
	size_t nprio;		  /* "N jobs ahead" one, sorted (tick.c) */

	struct kai_queue *queues; /* the queue tree, in creation order */
	size_t nqueues;
	bool *queue_parent;	  /* queue i has children */
	struct kai_map queue_ix;  /* name -> index + 1 */
	bool queues_stale;	  /* a reload failed: retry before a tick */
};

/* kaid.c */
int64_t kaid_now(void);

/* server.c */
int server_listen(struct kaid *k, struct kai_err *err);
void server_close_all(struct kaid *k);
/* Queues a reply frame on conn; conn may be NULL (client gone). */
void server_reply(struct kaid *k, struct conn *conn, uint16_t type,
    uint32_t flags, const struct kai_buf *body);
void server_reply_error(struct kaid *k, struct conn *conn, int code,
    const char *msg, const char *hint);
/* Lets conn read its next request (after a deferred reply). */
void server_resume(struct kaid *k, struct conn *conn);

/* rpc.c */
struct rpc_req {
	struct conn *conn;
	uint16_t type;
	uint32_t uid;		/* from the MUNGE credential, never the body */
	uint32_t gid;
	const void *body;
	size_t len;
};
/* Authenticates, dispatches and replies (or defers).  Returns true when
 * the reply is deferred (the connection must wait). */
bool rpc_dispatch(struct kaid *k, struct conn *conn,
    const struct kai_frame_hdr *h, const char *cred, const void *body);
bool rpc_is_operator(const struct kaid *k, uint32_t uid);

/* rpc_submit.c */
bool rpc_submit(struct kaid *k, const struct rpc_req *req);
void submit_commit(struct kaid *k);
void submit_forget_conn(struct kaid *k, struct conn *conn);

/* rpc_query.c */
bool rpc_query(struct kaid *k, const struct rpc_req *req);

/* rpc_cancel.c */
bool rpc_cancel(struct kaid *k, const struct rpc_req *req);

/* rpc_queue.c */
bool rpc_queue_list(struct kaid *k, const struct rpc_req *req);
bool rpc_queue_apply(struct kaid *k, const struct rpc_req *req);
bool rpc_queue_delete(struct kaid *k, const struct rpc_req *req);

/* queues.c */
/*
 * Replaces the queue cache with the tree in PostgreSQL.  On failure the
 * old cache stays (and queues_stale is set, for the next tick to retry).
 */
int queues_reload(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
void queues_free(struct kaid *k);
/* The cache index of name, or -1. */
long queues_find(const struct kaid *k, const char *name);
/* The children of queue i, "a, b, c, ..." (a few), into buf. */
void queues_children(const struct kaid *k, size_t i, char *buf, size_t size);

/* state.c */
struct kai_job *state_job(const struct kaid *k, uint64_t id);
void state_job_add(struct kaid *k, struct kai_job *job);
void state_job_remove(struct kaid *k, uint64_t id);
void state_on_node(enum kai_kube_event ev, const struct kai_node *node,
    void *ctx);
void state_on_pod(enum kai_kube_event ev, const struct kai_pod *pod,
    void *ctx);
void pod_rec_free(void *p);
void node_free(void *p);
bool state_synced(const struct kaid *k);
/* "kai-<jobid>-<task>"; caller owns the result. */
char *state_pod_name(uint64_t job_id, uint32_t task);
/*
 * Whether an active job passes the filters kqueue and kcancel share: each
 * list, when not empty, must hold the job's id / uid / queue, and a
 * non-zero state_mask its state.
 */
bool state_job_matches(const struct kai_job *j, const uint64_t *ids,
    size_t nids, const uint32_t *uids, size_t nuids, char *const *queues,
    size_t nqueues, uint32_t state_mask);
/*
 * The distinct nodes of n allocations in task order, comma-separated
 * ("" for none); bounded, a longer list is cut.  Caller owns the result.
 */
char *state_nodelist(const struct kai_alloc *allocs, size_t n);

/* events.c */
/*
 * Posts a Kubernetes Event on pod (best-effort, never fails): type,
 * reason ("Preempted", "Evicted", ...) and a printf message, e.g.
 * events_post(k, pod, KAI_EVENT_WARNING, "Preempted", "%s", why).
 */
void events_post(struct kaid *k, const char *pod, enum kai_event_type type,
    const char *reason, const char *fmt, ...) KAI_PRINTF(5, 6);
/* "Scheduled": "Successfully assigned NS/POD to NODE". */
void events_scheduled(struct kaid *k, const char *pod, const char *node);

/* snapshot.c: the scheduler's view of one tick (kai_sched_snapshot). */
struct snap {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_node *nodes;
	struct kai_sched_label *labels;
	char **label_text;	  /* owned "key\0value" copies */
	size_t nlabels;
	struct kai_sched_snap_queue *queues;
	struct kai_sched_snap_user *users;
	struct kai_sched_snap_job *jobs;
	struct kai_job **kjobs;	  /* kaid's job of each snapshot job */
	char (*jnames)[24];	  /* job names: their ids */
	struct kai_sched_snap_task *tasks;
	struct kai_job **lost;	  /* pending jobs whose queue is no leaf */
	char **lost_why;	  /* and why, owned */
	size_t nlost;
	struct kai_map node_ix;	  /* name -> index + 1 */
	struct kai_map queue_ix;  /* name -> index + 1 */
	struct kai_map user_ix;	  /* name -> index + 1 */
};
/*
 * Builds the snapshot of this tick from kaid's caches: nodes, queues,
 * active jobs (running tasks where their allocations put them), pods of
 * others as held capacity; `now`; the allocate phase only.  The strings
 * it points to are borrowed from the caches, which must not change
 * before snap_fini().
 */
void snap_build(struct kaid *k, struct snap *sn);
void snap_fini(struct snap *sn);

/* tick.c */
void tick_start(struct kaid *k);
void tick_soon(struct kaid *k);

/* dispatch.c */
void dispatch_ensure_pods(struct kaid *k, struct kai_job *job);
void dispatch_delete_pods(struct kaid *k, const struct kai_job *job,
    int64_t grace_s);
void dispatch_delete_pod(struct kaid *k, const char *pod, int64_t grace_s);
/* The pod watch saw pod bound (or deleted): it may be ensured again. */
void dispatch_pod_seen(struct kaid *k, const char *pod, bool bound_or_gone);
/* A relist began: forget which pods were made and not yet seen. */
void dispatch_watch_reset(struct kaid *k);

/* reconcile.c */
void reconcile_pod(struct kaid *k, const char *name, struct pod_rec *pr,
    bool deleted);
void reconcile_node_gone(struct kaid *k, const char *node);
void reconcile_synced(struct kaid *k);
/*
 * Moves an active job to a terminal state in the database and forgets it;
 * deletes its pods.  Returns 0 or a KAI_E code (logged).
 */
int reconcile_finish(struct kaid *k, struct kai_job *job,
    enum kai_job_state to, const char *reason, int32_t exit_code,
    int32_t exit_signal, int64_t actor_uid);

#endif /* KAID_KAID_H */
