/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaid.h: the controller daemon's state and its files' entry points.
 *
 * kaid is one thread around one event loop (sys/loop.h).  struct kaid
 * holds the whole of its state, most of it as one opaque struct per file;
 * there are no globals besides the pointer main() hands to signal
 * callbacks.  Prototypes are grouped by the file that defines them, in
 * the manner of relayd.h; a module with a header of its own (queues.h,
 * tick.h, deps.h, arrays.h, usage.h, share.h, metrics.h) declares its
 * interface there.
 */
#ifndef KAID_KAID_H
#define KAID_KAID_H

#include <sys/socket.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/map.h"
#include "conf/conf.h"
#include "db/db.h"
#include "db/db_array.h"
#include "kube/kube.h"
#include "metrics.h"
#include "model/job.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "sched/sched_model.h"
#include "sys/loop.h"

struct conn;
struct log_stream;
struct snap;	/* snapshot.h */
struct writeq;
struct read_call;

/* A submission waiting for the group commit at the end of the iteration. */
struct submit {
	struct conn *conn;	/* NULL once the client went away */
	struct kai_jobspec spec;
	struct kai_db_newjob nj;
	char *user;
	char *queue;
	struct kai_db_jobext ext;	/* arrays.c: --array, --dependency */
	char *ext_text[2];		/* owned texts ext points to */
	uint16_t reply_type;		/* 0 = KAI_MSG_SUBMIT_REPLY */
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
	char *term_message;	/* the container's termination message */
	int64_t finished_at;	/* when the container ended; 0 = not said */
	int64_t started_at;	/* when the container started; 0 = not said */
	char *reason;
	char *message;
	bool waiting_error;
	char *wait_reason;
	bool deleting;
	int64_t cpu_milli;
	uint64_t mem_mb;
	uint32_t gpus;
	char *queue;		/* "" when the pod has no queue label */
	char *subgroup;		/* KAI subgroup label, "" if none */
	uint64_t gpu_mask;	/* devices, from kaid's label; 0 = unknown */
	uint32_t gpu_share;	/* micro-GPUs of a fraction; 0 = whole */
	char *share_cm;		/* a native pod's GPU-share ConfigMap
				   (podshare.c); "" = none */
};

/*
 * kaid's state.  The first group is shared by every file: the settings,
 * the loop and the two connections out.  The cluster cache is written by
 * state.c from the watches and read by many.  Each pointer after it is a
 * module's own state, an opaque struct defined and used in that one file
 * (doc/architecture.md, "Who owns what"): the rest of kaid reaches it
 * through the functions declared under the file's name below.
 */
struct kaid {
	const char *conf_path;	  /* kaid.c: -f, for SIGHUP */
	struct kai_conf *conf;
	struct kai_loop *loop;
	struct kai_db *db;	  /* the writer's connection */
	struct kai_kube *kube;
	bool foreground;	  /* kaid.c: -F */
	int schema_version;	  /* kaid.c: after the migrations */
	int exit_code;		  /* of main(), once the loop stops */
	struct metrics metrics;	  /* metrics.c; counters others add to */

	/* The cluster cache: state.c writes it, from the watches. */
	struct kai_map nodes;	  /* name -> struct kai_node * */
	struct kai_map pods;	  /* name -> struct pod_rec * */
	bool nodes_synced;
	bool pods_synced;

	struct jobtab *jobs;	  /* state.c: the active jobs, by id */
	struct queues *queues;	  /* queues.c: the queue tree's cache */
	struct kaiqueues *kaiqueues; /* kaiqueues.c: KAI Queue objects, or
				     NULL (queues_source: database) */
	struct tick *tick;	  /* tick.c: its timer and memory */
	struct deps *deps;	  /* deps.c: finished targets */
	struct usage *usage;	  /* usage.c: decayed usage */
	struct kai_share *share;  /* share.c: the last pass's, for kshare */
	struct dispatch *dispatch; /* dispatch.c: pod calls under way */
	struct podfail *podfail;  /* podfail.c: delays of refused pods */
	struct helpers *helpers;  /* helpers.c: the pods' ConfigMap */
	struct writeq *writeq;	  /* writeq.c: changes not yet recorded */
	struct reads *reads;	  /* reads.c: the connection for long reads */
	struct leader *leader;	  /* leader.c: whether this kaid leads */
	struct relay *relay;	  /* relay.c: a standby's forwarded clients */
	struct server *server;	  /* server.c: the client port */
	struct submits *submits;  /* rpc_submit.c: the group commit batch */
	struct log_stream *logs;  /* rpc_log.c: klog requests answered */
	struct httpd *httpd;	  /* httpd.c: health and metrics, or NULL */
	struct jobauth *jobauth;  /* jobauth.c: job credentials, or NULL */
	struct steps *steps;	  /* steps.c: running jobs' steps, or NULL */
	struct webhook *webhook;  /* webhook.c: admission webhook, or NULL */
	struct native *native;	  /* native_owner.c: owners read, pods
				     waiting for them; NULL until used */
	struct mailer *mailer;	  /* mail.c: job mail programs running
				     and waiting; NULL until used */
	struct native_burst *nburst; /* native_burst.c: one-pod jobs of
				     this burst, not yet recorded */
	struct native_qwait *nqwait; /* native_qwait.c: pods waiting for
				     their queue; NULL until used */
	struct kai_map pgstatus;  /* native_pgstatus.c: "ns/name" of a
				     PodGroup -> what its status says */
	struct kai_map qstatus;	  /* kaiqueue_status.c: a Queue's name ->
				     what its status says */
	unsigned status_inflight; /* status writes of both under way */
	struct ptyrelay *ptyrelay; /* ptyrelay.c: interactive sessions;
				     NULL until used */
};

/* kaid.c */
/*
 * The wall clock, unix seconds.  Read once where an event enters kaid,
 * and passed down from there: a tick (tick_run, its `now`), a client
 * request (rpc_dispatch, req->now), a watch event (state.c into
 * reconcile_pod / reconcile_node_gone / reconcile_synced / native_pod),
 * an API server's or database's answer (helpers.c, podfail.c), a timer
 * (leader.c) and a metrics scrape.
 */
int64_t kaid_now(void);
/* The leader's start: state, cluster, client port, ticks. */
int kaid_lead(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;

/* leader.c: one leader among several kaid (doc/architecture.md) */
/* Leads at once, or waits as a standby and leads when the lead is free. */
int leader_start(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
/* relay.c: a standby forwards its clients to the leader */
/* Listens and forwards to leader ("host:port"), or stops listening when
 * it is "" (none known). */
void relay_update(struct kaid *k, const char *leader);
/* Stops listening and closes every forwarded connection. */
void relay_stop(struct kaid *k);
size_t relay_nconns(const struct kaid *k);

/* Stops kaid when the database says another kaid took the lead. */
void leader_check(struct kaid *k);
bool leader_leading(const struct kaid *k);
void leader_free(struct kaid *k);

/*
 * kaiqueues.c: with queues_source: kubernetes, watches KAI Queue objects
 * and makes the queue tree from them (after open_kube's watches).
 */
void kaiqueues_start(struct kaid *k);
/* Whether the Queue objects are in charge (kctl's writes are refused). */
bool kaiqueues_in_charge(const struct kaid *k);
/* Whether a KAI Queue object of that name exists (the list is whole). */
bool kaiqueues_has(const struct kaid *k, const char *name);
/*
 * kaiqueue_status.c: writes each KAI Queue's status (requested,
 * allocated, allocatedNonPreemptible, its children's included) where it
 * changed, as KAI's queue-controller does (each tick).
 */
void kaiqueues_status(struct kaid *k, int64_t now);
void kaiqueues_free(struct kaid *k);

/* server.c */
void server_init(struct kaid *k);
int server_listen(struct kaid *k, struct kai_err *err);
/* Closes the port and every connection, and frees the state. */
void server_free(struct kaid *k);
/* Client connections open now (metrics). */
size_t server_nconns(const struct kaid *k);
/* Queues a reply frame on conn; conn may be NULL (client gone). */
void server_reply(struct kaid *k, struct conn *conn, uint16_t type,
    uint32_t flags, const struct kai_buf *body);
void server_reply_error(struct kaid *k, struct conn *conn, int code,
    const char *msg, const char *hint);
/* Lets conn read its next request (after a deferred reply). */
void server_resume(struct kaid *k, struct conn *conn);
/*
 * Writes what is queued on conn now, for the KAI_FRAME_MORE frames of a
 * deferred reply; the connection may be closed meanwhile (its owners
 * hear of it through submit_forget_conn() / log_forget_conn()).
 */
void server_flush(struct kaid *k, struct conn *conn);
/*
 * A reply too long to hold (kqueue, kacct of very many jobs) is made as
 * the client reads it: fn appends the next frames (KAI_FRAME_MORE, and
 * the last without) with server_reply() and returns true once it sent
 * the last; server.c calls it again whenever less than
 * SERVER_STREAM_LOW bytes wait for the client, so what kaid holds for a
 * client stays about that much, whatever the answer's size.  free_fn
 * releases ctx when the reply ends or the client goes.  Returns true
 * while the reply goes on (the request is deferred: the next one is read
 * when it ends), false when it was whole at once.
 */
typedef bool server_produce_fn(struct kaid *k, struct conn *conn, void *ctx);
#define SERVER_STREAM_LOW (256 * 1024)
bool server_stream(struct kaid *k, struct conn *conn, server_produce_fn *fn,
    void (*free_fn)(void *ctx), void *ctx);
/*
 * Hands conn's socket over to another owner once the current request is
 * done (an interactive session, ptyrelay.c): server.c stops watching it,
 * forgets the connection without closing the socket and calls fn with
 * the descriptor and the bytes read past the request (borrowed for the
 * call).  free_fn releases ctx if the connection closes first.  Returns
 * true: the handler's request is deferred until then.
 */
typedef void server_adopt_fn(struct kaid *k, int fd, const void *ahead,
    size_t nahead, uint16_t version, void *ctx);
bool server_handoff(struct kaid *k, struct conn *conn, server_adopt_fn *fn,
    void (*free_fn)(void *ctx), void *ctx);

/* httpd.c: GET /healthz, /readyz, /metrics (doc/metrics.md). */
/* Listens on http_listen unless it is "off". */
int httpd_listen(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
void httpd_close(struct kaid *k);
/* Why kaid is not ready (one line, static), or NULL when it is. */
const char *httpd_unready(const struct kaid *k);

/*
 * webhook.c: the HTTPS admission webhook of GPU sharing (doc/k8s-native.md).
 * Listens on native.webhook_listen unless it is "off"; KAI_ECONFIG when
 * the certificate or key is missing or does not load.
 */
int webhook_listen(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
/*
 * After a reload: the certificate and key again (kept when they do not
 * load, with an error logged); the address only at restart.
 */
void webhook_reload(struct kaid *k);
void webhook_close(struct kaid *k);

/* rpc.c */
struct rpc_req {
	struct conn *conn;
	uint16_t type;
	uint32_t uid;		/* from the MUNGE credential, never the body */
	uint32_t gid;
	uint64_t job_id;	/* a job credential's job; 0 = MUNGE */
	const void *body;
	size_t len;
	int64_t now;		/* unix s: the clock read once, on arrival */
};
/* Who sent a request, from its credential (rpc_authenticate()). */
struct rpc_cred {
	uint32_t uid;
	uint32_t gid;
	uint64_t job_id;	/* a job credential's job; 0 = MUNGE */
	uint8_t digest[KAI_PROTO_DIGEST_LEN]; /* the credential's payload */
};

/* jobauth.c: requests from inside jobs (auth/jobcred.h) */
/* Reads kaid.yaml job_key_file, if set.  KAI_ECONFIG naming the fault. */
int jobauth_init(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
void jobauth_free(struct kaid *k);
/* Whether job_key_file is set: pods get a key and KAI_CONTROLLER. */
bool jobauth_enabled(const struct kaid *k);
/* Job id's key (32 bytes); only when jobauth_enabled(). */
void jobauth_job_key(const struct kaid *k, uint64_t id, uint8_t key[32]);
/*
 * Checks a job credential (its MAC, window, replay, and that its job is
 * configuring or running) and fills who with the job's uid, gid and id
 * and the request digest it was made for.  KAI_EAUTH with the reason.
 */
int jobauth_verify(struct kaid *k, const char *cred, struct rpc_cred *who,
    struct kai_err *err) KAI_MUST_CHECK;
/*
 * The job key's Secret in pods: its name (caller owns it), where pods
 * mount it and the file of the key there.  The Secret is created with
 * the job's first pod (409 when it exists) and deleted with its pods.
 */
#define JOBAUTH_DIR "/var/run/kaibatch"
#define JOBAUTH_KEY "job.key"
char *jobauth_secret_name(uint64_t id);
void jobauth_secret_create(struct kaid *k, const struct kai_job *j);
void jobauth_secret_delete(struct kaid *k, uint64_t id);
/*
 * Decodes the credential of the frame h into *who, before its body is
 * read.  Returns false when it is refused (logged, error reply queued:
 * the caller closes the connection).
 */
bool rpc_authenticate(struct kaid *k, struct conn *conn,
    const struct kai_frame_hdr *h, const char *cred, struct rpc_cred *who);
/* Checks who against the body, dispatches and replies (or defers).
 * Returns true when the reply is deferred (the connection must wait). */
bool rpc_dispatch(struct kaid *k, struct conn *conn,
    const struct kai_frame_hdr *h, const struct rpc_cred *who,
    const void *body);
bool rpc_is_operator(const struct kaid *k, uint32_t uid);

/* rpc_submit.c */
bool rpc_submit(struct kaid *k, const struct rpc_req *req);
void submit_commit(struct kaid *k);
void submit_forget_conn(struct kaid *k, struct conn *conn);
void submit_free(struct kaid *k);

/* rpc_query.c */
bool rpc_query(struct kaid *k, const struct rpc_req *req);
/*
 * Whose jobs q may return to uid: everyone's for an operator; else only
 * uid's with KAI_QUERY_HISTORY (kacct), and otherwise every user's active
 * jobs but only uid's finished ones.  Every path that answers with job
 * records from the database passes it to kai_db_jobs_query().
 */
enum kai_db_scope query_scope(struct kaid *k, uint32_t uid,
    const struct kai_query *q);

/* ptyrelay.c: interactive sessions (ksrun, ksalloc, ksattach) */
bool rpc_pty_attach(struct kaid *k, const struct rpc_req *req);
bool rpc_pty_serve(struct kaid *k, const struct rpc_req *req);
/* Sessions open now (metrics, tests). */
size_t ptyrelay_count(const struct kaid *k);
/* Closes every session's sockets and frees the state. */
void ptyrelay_free(struct kaid *k);

/* rpc_cancel.c */
bool rpc_cancel(struct kaid *k, const struct rpc_req *req);
/* rpc_array.c: kcancel of array tasks */
bool rpc_cancel_tasks(struct kaid *k, const struct rpc_req *req);
/* rpc_submit.c: a submission with --array or --dependency */
bool rpc_submit_ext(struct kaid *k, const struct rpc_req *req);

/* rpc_queue.c */
bool rpc_queue_list(struct kaid *k, const struct rpc_req *req);
bool rpc_queue_apply(struct kaid *k, const struct rpc_req *req);
bool rpc_queue_delete(struct kaid *k, const struct rpc_req *req);

/* rpc_nodes.c: kinfo, kctl show node / partition */
bool rpc_nodes(struct kaid *k, const struct rpc_req *req);

/* rpc_jobctl.c: kctl hold / release / update job */
bool rpc_job_control(struct kaid *k, const struct rpc_req *req);
bool rpc_job_update(struct kaid *k, const struct rpc_req *req);

/* rpc_log.c: klog */
bool rpc_log(struct kaid *k, const struct rpc_req *req);

/* steps.c: srun's steps inside a job (proto_step.h) */
bool rpc_step_run(struct kaid *k, const struct rpc_req *req);
bool rpc_step_agent(struct kaid *k, const struct rpc_req *req);
bool rpc_step_done(struct kaid *k, const struct rpc_req *req);
bool rpc_step_end(struct kaid *k, const struct rpc_req *req);
bool rpc_step_list(struct kaid *k, const struct rpc_req *req);
bool rpc_step_signal(struct kaid *k, const struct rpc_req *req);
/* The client of a deferred step request went away. */
void steps_forget_conn(struct kaid *k, struct conn *conn);
void steps_free(struct kaid *k);
void log_forget_conn(struct kaid *k, struct conn *conn);

/* state.c */
void state_init(struct kaid *k);
void state_free(struct kaid *k);
/*
 * The active jobs in id order: job i of state_njobs().  Adding or
 * removing a job shifts the indices after it (a loop that finishes jobs
 * re-reads state_njobs() and does not advance past a removal).
 */
size_t state_njobs(const struct kaid *k);
struct kai_job *state_job_at(const struct kaid *k, size_t i);
/* The index of the first active job whose id is id or above. */
size_t state_job_from(const struct kaid *k, uint64_t id);
struct kai_job *state_job(const struct kaid *k, uint64_t id);
void state_job_add(struct kaid *k, struct kai_job *job);
void state_job_remove(struct kaid *k, uint64_t id);
/*
 * Moves j to state `to` in the cache once the database has the change
 * (kai_db_jobs_change(), which checks the same table).  A move that is
 * not in the transition table (model/jobstate.c) is a bug: it is logged
 * and refused, the state kept, and false returned.  A job's first state,
 * PENDING, is set where it is made, with the INSERT's event row.
 */
bool state_job_move(struct kai_job *j, enum kai_job_state to);
void state_on_node(enum kai_kube_event ev, const struct kai_node *node,
    void *ctx);
void state_on_pod(enum kai_kube_event ev, const struct kai_pod *pod,
    void *ctx);
void pod_rec_free(void *p);
void node_free(void *p);
bool state_synced(const struct kaid *k);
/*
 * Whether j is elastic: min_tasks below ntasks, so that kaid starts it
 * once min_tasks are placed and starts the rest as room frees.
 */
bool state_job_elastic(const struct kai_job *j);
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

/*
 * native.c: Kubernetes-native workloads (doc/k8s-native.md).
 * native_job: whether j is one (its tasks are pods kaid binds, not ones
 * it makes); native_gang: one of several pods (its workload is the
 * group's key "ns/Kind:name", not a pod's).  native_job_of: the active
 * job of the pod or group keyed key ("ns/name"), a gang's found by its
 * placed pods too (*task, if not NULL, gets the pod's task), or NULL.
 */
bool native_job(const struct kai_job *j);
bool native_gang(const struct kai_job *j);
struct kai_job *native_job_of(const struct kaid *k, const char *key,
    uint32_t *task);
/* Whether scheduler is one of kaid.yaml's native.schedulers. */
bool native_scheduler_ours(const struct kaid *k, const char *scheduler);
/*
 * A pod the watch shows that kaid did not make: the job it is or joins
 * (*task its task, NATIVE_NO_TASK for a member not yet placed), made now
 * if the pod asks for one of native.schedulers and waits unbound; NULL
 * if it is none (it only holds capacity) or must wait (for its owners
 * to be read, or with a reason logged and posted on the pod).
 */
struct kai_job *native_pod(struct kaid *k, const char *key,
    const struct kai_pod *pod, int64_t now, uint32_t *task);
/*
 * Whether gang j of a subgroup tree still has members not placed (a
 * subgroup beyond its parents' minSubGroup): it does not end while
 * they wait, as KAI's PodGroup stays (reconcile.c).
 */
bool native_tree_waits(const struct kaid *k, const struct kai_job *j);
/*
 * Whether a pod of job j with task `task` is a gang's member that waits
 * to be placed: a started subgroup tree's waiting subgroups' members
 * (after a restart too) are the job's pods, not tasks it shed.
 */
bool native_member_waits(const struct kai_job *j, uint32_t task);
/* Why pending gang j waits for its pods (caller owns), or NULL. */
char *native_gang_wait(const struct kaid *k, const struct kai_job *j);
/*
 * tick.c: j's pod (each member of a gang) tells the new reason j waits
 * for as a FailedScheduling event, as the default scheduler's pods do: a
 * new reason code at once, new words of the same code at most once a
 * minute (now: the tick's clock).
 */
void native_tell(struct kaid *k, struct kai_job *j, int64_t now);
/*
 * Whether new words of the same reason code, told (or written on a
 * PodGroup) at told_at, are told again now: a gang waiting for its pods
 * (code PodGroup) at once, others a minute after (their words change
 * every tick).
 */
bool native_words_due(const char *code, int64_t told_at, int64_t now);
/* tick.c: the member pods of gang j that the new allocations a[0..n) take. */
void native_assign(struct kaid *k, const struct kai_job *j,
    struct kai_alloc *a, size_t n);
/* tick.c: once placed, each member's record gets its task. */
void native_placed(struct kaid *k, const struct kai_job *j);
/* reconcile.c: j ended; its pods go if cancelled or a broken gang. */
void native_ended(struct kaid *k, const struct kai_job *j, bool cancelled);
/* tick.c: owner reads to retry; pending gangs whose pods all went. */
void native_sweep(struct kaid *k, int64_t now);
/* native.c: the CPUs and memory of a task of a pod asking cpu_milli and
 * mem_mb (0: kaid.yaml's default): whole CPUs, at least 1. */
void native_task_size(const struct kaid *k, int64_t cpu_milli,
    uint64_t mem_mb, uint32_t *cpus, uint64_t *mem);
/* native.c: the pod keyed key is gone, bound or a job's: it waits for
 * nothing (owners' reads, its queue) any more. */
void native_forget(struct kaid *k, const char *key);
/* native_owner.c: frees the owner cache (kaid's end). */
void native_owner_fini(struct kaid *k);
/*
 * native_pgstatus.c: writes the status of the PodGroups of active gangs
 * (requests, allocations, why they wait) where it changed (each tick).
 */
void native_pg_status(struct kaid *k, int64_t now);
/*
 * Status writes (PodGroups', Queues') in flight at most: the others of a
 * tick wait for the next one, behind the binds and deletes that matter.
 */
#define STATUS_INFLIGHT_MAX 32
/* The callback of a status write; ctx is the kaid. */
void native_status_done(int code, const struct kai_err *err, void *ctx);
/* native_owner.c: starts the list and watch of KAI PodGroups. */
void native_watch_podgroups(struct kaid *k);
/* native_burst.c: records the burst's jobs (before the loop sleeps). */
void native_burst_commit(struct kaid *k);
void native_burst_free(struct kaid *k);
/*
 * native_qwait.c: native_queues_changed, called when kaid's queue tree
 * was loaded anew, has the pods that wait for their queue looked at again
 * by native_qwait_retry (each tick, native_sweep); native_qwait_free at
 * kaid's end.
 */
void native_queues_changed(struct kaid *k);
void native_qwait_retry(struct kaid *k, int64_t now);
void native_qwait_free(struct kaid *k);


/* rpc_qos.c */
bool rpc_qos_list(struct kaid *k, const struct rpc_req *req);
/* rpc_report.c */
bool rpc_report(struct kaid *k, const struct rpc_req *req);
/* rpc_share.c */
bool rpc_share(struct kaid *k, const struct rpc_req *req);

/*
 * pools.c: the kaid.yaml partition of a queue: its own, or its nearest
 * ancestor's (a queue made with kctl under a partition); NULL = none.
 */
const struct kai_conf_partition *pools_partition(const struct kaid *k,
    const char *queue);
/* That partition's name, or queue itself when there is none. */
const char *pools_partition_name(const struct kaid *k, const char *queue);
/*
 * Refuses (KAI_EINVAL, err naming the path and the filesystems) a job of
 * queue whose working directory or -o/-e file is not on a filesystem its
 * pods mount; 0 when they all are, or when none is configured.
 */
int pools_check_paths(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, struct kai_err *err) KAI_MUST_CHECK;
/*
 * Refuses (KAI_EINVAL, Slurm's "Requested node configuration is not
 * available" and what the largest nodes have) a job of queue whose one
 * task no node of its partition could ever hold: CPUs, mem_mb, GPUs,
 * GPU memory, by the nodes' allocatable; 0 when one could, or when the
 * partition has no node known yet (nodes may be added).
 */
int pools_check_fits(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, uint64_t mem_mb, struct kai_err *err) KAI_MUST_CHECK;
/* nodefeat.c: node features and a job's -C, -w, -x. */
/* Whether node nd has feature name, by its labels and kaid.yaml. */
bool nodefeat_has(const struct kai_conf *c, const struct kai_node *nd,
    const char *name);
/* Node nd's features, comma-separated, into buf; returns the length. */
size_t nodefeat_text(const struct kai_conf *c, const struct kai_node *nd,
    char *buf, size_t size);
/*
 * At submission: a -w or -x name no node has is refused ("Invalid node
 * name specified"), and so is a job no node of partition queue could
 * ever take by its constraint and lists ("Requested node configuration
 * is not available"); 0 before the node list is in.
 */
int nodefeat_check_submit(const struct kaid *k, const struct kai_jobspec *js,
    const char *queue, struct kai_err *err) KAI_MUST_CHECK;
/* The snapshot's requirements and node feature bits (snap_build). */
void nodefeat_snap(const struct kaid *k, struct snap *sn);
void nodefeat_snap_fini(struct snap *sn);
/* The snapshot's pools: one per kaid.yaml partition (snap_build). */
void pools_snap(const struct kaid *k, struct snap *sn);
/* Room for every node's taints, then each node's into the node s. */
void pools_snap_taints_alloc(const struct kaid *k, struct snap *sn);
void pools_snap_taints(struct snap *sn, const struct kai_node *nd,
    struct kai_sched_snap_node *s);
/* The pool of a job of queue (its partition's index), or -1. */
int32_t pools_snap_index(const struct kaid *k, const char *queue);
void pools_snap_fini(struct snap *sn);
/*
 * Whether node nd may take the pods of partition p (NULL: a queue no
 * partition covers): its labels hold p's nodeSelector and p tolerates
 * its NoSchedule and NoExecute taints, as the core decides.
 */
bool pools_node_serves(const struct kaid *k,
    const struct kai_conf_partition *p, const struct kai_node *nd);
/*
 * Whether nd is one of p's nodes, as kinfo lists them: the same, except
 * that a taint no partition tolerates (a drain) keeps it in p.
 */
bool pools_node_member(const struct kaid *k,
    const struct kai_conf_partition *p, const struct kai_node *nd);

/* writeq.c: state changes the database did not take, retried in order */
/* Queues a copy of c (one job's change, no allocation rows). */
void writeq_add(struct kaid *k, const struct kai_db_change *c);
/* Whether job id has a change queued (final_only: one that ends it). */
bool writeq_has(const struct kaid *k, uint64_t id, bool final_only);
size_t writeq_len(const struct kaid *k);
/* Records what it can, in order; a job whose end is recorded finishes. */
void writeq_retry(struct kaid *k);
void writeq_free(struct kaid *k);

/* reads.c: long reads on their own connection, replies deferred */
void reads_init(struct kaid *k);
int reads_open(struct kaid *k, struct kai_err *err) KAI_MUST_CHECK;
/* Closes the connection (waiting calls answered) and frees the state. */
void reads_close(struct kaid *k);
/* The connection for reads; NULL before reads_open(). */
struct kai_db *reads_db(const struct kaid *k);
/*
 * A read for req's client: call before kai_db_*_send(reads_db(k), ...) with the
 * result as the callback's ctx, then reads_sent() whatever the send gave.
 */
struct read_call *reads_call_new(struct kaid *k, const struct rpc_req *req);
void reads_sent(struct kaid *k);
/* Before a send on reads_db(k) with no client (usage.c); then
 * reads_sent(). */
void reads_begin(struct kaid *k);
/* The client to answer, or NULL when it went away. */
struct conn *reads_call_conn(const struct read_call *c);
struct kaid *reads_call_kaid(const struct read_call *c);
/* Frees c; resume: the reply was deferred, let the client go on. */
void reads_call_done(struct read_call *c, bool resume);
void reads_forget_conn(struct kaid *k, struct conn *conn);

/* podfail.c: the API server refused a pod create */
void podfail_init(struct kaid *k);
void podfail_free(struct kaid *k);
/*
 * The pod's own fault (400, 413, 422, an admission 403) fails its
 * CONFIGURING job with the server's message as the reason; any other
 * refusal delays the next create of that pod, doubling each time.
 */
void podfail_refused(struct kaid *k, uint64_t job_id, const char *pod,
    int code, const struct kai_err *err);
/* Whether pod must not be created yet (its delay runs). */
bool podfail_waiting(const struct kaid *k, const char *pod);
/* Created or deleted: its delay is forgotten. */
void podfail_forget(struct kaid *k, const char *pod);

/* evict.c */
/*
 * Commits the evictions of a cycle (victims requeued or PREEMPTED, or an
 * elastic job shrunk, in one transaction), then deletes their pods.
 * Returns the jobs evicted or shrunk.  Must
 * run before the snapshot's jobs change state.
 */
size_t evict_commit(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r);
/*
 * Deletes again kaid's pods whose job is not active and whose delete was
 * refused (a victim's, a cancelled job's): what they hold would
 * otherwise never come back.
 */
void evict_retry_deletes(struct kaid *k);
/* Deletes the pod of a task its running job shed, with a grace period. */
void evict_delete_shed(struct kaid *k, const char *pod);
/*
 * Whether a pod with the name of one of j's tasks that have no allocation
 * (every task of a pending job) still exists or is being created.
 */
bool evict_pods_linger(const struct kaid *k, const struct kai_job *j);
/* A Warning event with reason and message why on each of j's pods. */
void evict_post_events(struct kaid *k, const struct kai_job *j,
    const char *reason, const char *why);
/* Whether the core evicted or moved any task of snapshot job i. */
bool evict_victim(const struct snap *sn, const struct kai_sched_result *r,
    size_t i);
/*
 * The cache's side of a requeue that is committed (the job's pods are
 * the caller's to delete): allocations dropped, PENDING, count raised,
 * and held back until now + EVICT_REQUEUE_HOLD_S (snapshot.c), as Slurm
 * does not restart a requeued job within a second.
 */
#define EVICT_REQUEUE_HOLD_S 2	/* whole seconds: at least one */
void evict_requeued(struct kai_job *j, const char *why, int64_t now);

/* reconcile.c */
void reconcile_pod(struct kaid *k, const char *name, struct pod_rec *pr,
    bool deleted, int64_t now);
/*
 * A job's final state is recorded (c): the log, the metrics, its pods
 * deleted, the job out of the cache.
 */
void reconcile_recorded(struct kaid *k, struct kai_job *job,
    const struct kai_db_change *c);
void reconcile_node_gone(struct kaid *k, const char *node, int64_t now);
void reconcile_synced(struct kaid *k, int64_t now);
/*
 * Moves an active job to a terminal state in the database and forgets it;
 * deletes its pods.  Returns 0 when the job left the cache, or a KAI_E
 * code (logged) when the change waits in writeq.c for the database (the
 * job stays, and finishes when the change is recorded).
 */
int reconcile_finish(struct kaid *k, struct kai_job *job,
    enum kai_job_state to, const char *reason, int32_t exit_code,
    int32_t exit_signal, int64_t actor_uid, int64_t now);
/*
 * Cancels jobs[0..n) (active jobs the actor may cancel) in one
 * transaction, then deletes their pods and forgets them; sorts jobs.
 * Returns 0, or a KAI_E code (logged) when nothing was recorded.
 */
int reconcile_cancel_many(struct kaid *k, struct kai_job **jobs, size_t n,
    int64_t actor_uid, int64_t now);

#endif /* KAID_KAID_H */
