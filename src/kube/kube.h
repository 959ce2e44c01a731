/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube.h: the Kubernetes API client (libcurl multi + json-c), driven by
 * kaid's event loop.
 *
 * kai_kube_config_*() read a kubeconfig (YAML) or the in-cluster
 * service-account files.  kai_kube_new() connects a client to the loop:
 * all calls are asynchronous and report through callbacks on the loop's
 * thread; TLS is verified against the cluster CA; connections are reused.
 *
 * Watches list first, then watch from the list's resourceVersion; an
 * expired watch (an ERROR event with code 410 inside a 200 stream, or an
 * HTTP 410) or a broken stream leads to a relist, reported to the caller
 * as RESET, ADDED for every object, then SYNCED, so the caller's cache is
 * rebuilt without losing a change.  Until the first SYNCED the caller must
 * not act on the absence of an object (reconcile fails closed).
 *
 * CURL handles and json_object never leave this module: objects are
 * converted to struct kai_node / struct kai_pod.
 */
#ifndef KAI_KUBE_KUBE_H
#define KAI_KUBE_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "kube/gpushare.h"
#include "proto/proto.h"
#include "sys/loop.h"

struct kai_kube_config {
	char *server;		/* "https://127.0.0.1:6443" */
	char *ca_pem;		/* CA certificate(s), PEM; NULL = system CAs */
	char *token;		/* bearer token; NULL = none */
	char *token_file;	/* where the token came from, re-read when
				   it changes; NULL = given inline */
	char *client_cert_pem;	/* client certificate auth; NULL = none */
	char *client_key_pem;
	char *namespace;	/* from the context or the SA file; may be NULL */
	bool insecure;		/* insecure-skip-tls-verify: true in kubeconfig */
};

/*
 * Reads a kubeconfig: current-context (or `context` if not NULL), its
 * cluster (server, certificate-authority-data or certificate-authority
 * file, insecure-skip-tls-verify) and user (token, tokenFile,
 * client-certificate[-data], client-key[-data]).  Relative file paths are
 * relative to the kubeconfig's directory.  KAI_ECONFIG with
 * "kubeconfig \"x\": ..." on any fault.
 */
int kai_kube_config_load(const char *path, const char *context,
    struct kai_kube_config *cfg, struct kai_err *err) KAI_MUST_CHECK;
/*
 * In-cluster: dir/token, dir/ca.crt, dir/namespace (dir is normally
 * /var/run/secrets/kubernetes.io/serviceaccount) and the server
 * https://host:port (from KUBERNETES_SERVICE_HOST/PORT in kaid).
 */
int kai_kube_config_incluster(const char *dir, const char *host,
    const char *port, struct kai_kube_config *cfg, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_kube_config_fini(struct kai_kube_config *cfg);

/* A node as the scheduler sees it. */
struct kai_node {
	char *name;
	int64_t cpu_milli;	/* allocatable */
	uint64_t mem_mb;	/* allocatable, MiB */
	uint32_t gpus;		/* allocatable nvidia.com/gpu */
	char *gpu_product;	/* label nvidia.com/gpu.product; "" = none */
	uint64_t gpu_mem_mb;	/* label nvidia.com/gpu.memory (MiB per GPU) */
	bool ready;		/* condition Ready=True */
	bool unschedulable;	/* spec.unschedulable */
	char *taint;		/* first NoSchedule/NoExecute taint, "key:Effect";
				   "" = none (kinfo's drain reason) */
	char **labels;		/* "key=value" */
	size_t nlabels;
	char **taints;		/* every taint, "key=value:Effect" ("key:Effect"
				   when it has no value) */
	size_t ntaints;
};

enum kai_pod_phase {
	KAI_POD_PENDING,
	KAI_POD_RUNNING,
	KAI_POD_SUCCEEDED,
	KAI_POD_FAILED,
	KAI_POD_UNKNOWN
};

/* A pod as kaid sees it (its own or anyone's, for capacity). */
struct kai_pod {
	char *name;
	char *namespace;
	char *uid;
	char *node;		/* spec.nodeName; "" = unbound */
	enum kai_pod_phase phase;
	char *reason;		/* status.reason ("DeadlineExceeded", ...) or "" */
	char *message;		/* status.message or "" */
	bool terminated;	/* first container has a terminated state */
	int32_t exit_code;	/* of the first container, if terminated */
	char *term_reason;	/* terminated.reason ("OOMKilled", ...) or "" */
	int64_t finished_at;	/* terminated.finishedAt, unix s; 0 = none */
	int64_t started_at;	/* running. or terminated.startedAt; 0 none */
	char *term_message;	/* terminated.message (the termination
				   message: with FallbackToLogsOnError the
				   log's last lines of a failed container)
				   or "" */
	bool waiting_error;	/* container stuck waiting with an error reason */
	char *wait_reason;	/* e.g. CreateContainerConfigError, or "" */
	bool deleting;		/* deletionTimestamp set */
	bool managed;		/* label app.kubernetes.io/managed-by=kaid */
	uint64_t job_id;	/* label kaibatch.io/job-id, 0 if none */
	uint32_t task;		/* label kaibatch.io/task-index */
	char *queue;		/* label kaibatch.io/queue, or NULL */
	uint64_t gpu_mask;	/* label kaibatch.io/gpu-mask, 0 if none */
	uint32_t gpu_share;	/* label kaibatch.io/gpu-share, 0 if none */
	int64_t cpu_milli;	/* requests summed over containers */
	uint64_t mem_mb;
	uint32_t gpus;
	/* What kaid needs of a Kubernetes-native workload's pod
	 * (doc/k8s-native.md); "" when absent. */
	char *scheduler;	/* spec.schedulerName */
	char *owner_kind;	/* ownerReferences[0].kind */
	char *owner_name;	/* ownerReferences[0].name */
	char *owner_api;	/* ownerReferences[0].apiVersion */
	char *owner_uid;	/* ownerReferences[0].uid */
	char *pod_group;	/* annotation pod-group-name (KAI's PodGroup) */
	char *lws_group;	/* label leaderworkerset.sigs.k8s.io/group-index */
	char *subgroup;		/* label kai.scheduler/subgroup-name, else
				 * the subgroup its operator's labels route
				 * it to (a JobSet's, a PyTorchJob's...) */
	char *kai_queue;	/* label kai.scheduler/queue */
	char *prio_class;	/* spec.priorityClassName */
	char *kai_preempt;	/* label kai.scheduler/preemptibility */
	char *user_label;	/* the label kai_kube_set_user_label() names,
				 * "" = none or not asked for */
	struct kai_gpushare_ann share;	/* KAI's GPU-sharing annotations */
};

enum kai_kube_event {
	KAI_KUBE_RESET,		/* a (re)list begins: forget the cache */
	KAI_KUBE_ADDED,
	KAI_KUBE_MODIFIED,
	KAI_KUBE_DELETED,
	KAI_KUBE_SYNCED		/* the list is complete; cache is whole */
};

typedef void kai_kube_node_fn(enum kai_kube_event ev,
    const struct kai_node *node, void *ctx);	/* node NULL for RESET/SYNCED */
/*
 * A KAI Queue object (scheduling.run.ai/v2, cluster-scoped) as kaid's
 * queue record (kube_queue.c: KAI's units and defaults, doc/k8s-native.md).
 * error is NULL when q is a queue kai_queue_check() accepts; else it
 * names the field and the reason ("spec.resources.gpu.limit: is below
 * the quota") and q is not to be used.
 */
struct kai_kube_queue {
	char *name;		/* metadata.name */
	char *uid;		/* metadata.uid, "" if none */
	struct kai_queue q;
	char *error;
};
typedef void kai_kube_queue_fn(enum kai_kube_event ev,
    const struct kai_kube_queue *q, void *ctx);	/* q NULL: RESET/SYNCED */
/* Converts one Queue's JSON; KAI_EKUBE only when it is no object with a
 * name (a bad field is q->error).  kai_kube_queue_fini() after. */
int kai_kube_queue_parse(const char *json, struct kai_kube_queue *q,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_kube_queue_fini(struct kai_kube_queue *q);
/* A Go duration ("90s", "1h30m", "1.5h") in whole seconds, rounded up;
 * KAI_EINVAL when malformed or past KAI_QUEUE_RUNTIME_MAX. */
int kai_kube_duration_s(const char *s, int64_t *out) KAI_MUST_CHECK;

typedef void kai_kube_pod_fn(enum kai_kube_event ev, const struct kai_pod *pod,
    void *ctx);					/* pod NULL for RESET/SYNCED */
/* Completion of a create, bind or delete: code 0 or KAI_E*. */
typedef void kai_kube_done_fn(int code, const struct kai_err *err, void *ctx);

struct kai_kube;

/*
 * A client for cfg (deep-copied) on loop.  namespace is where kaid's pods
 * live; timeout_ms bounds each non-watch call.
 */
int kai_kube_new(struct kai_loop *loop, const struct kai_kube_config *cfg,
    const char *namespace, int64_t timeout_ms, struct kai_kube **kube,
    struct kai_err *err) KAI_MUST_CHECK;
/*
 * Stops the watches (their callbacks are not called again) and cancels the
 * create/bind/delete calls in flight: each one's callback runs once, here,
 * with KAI_EAGAIN ("...: cancelled"), so that callers can release their
 * ctx.  Not to be called from inside a kube callback.
 */
void kai_kube_free(struct kai_kube *kube);
/*
 * The pod label whose value the watches give as kai_pod.user_label
 * (kaid.yaml native.user_label); NULL or "" = none.  Set before the pod
 * watch starts.
 */
void kai_kube_set_user_label(struct kai_kube *kube, const char *label);

struct kai_kube_obj;

/* Starts the node watch (all nodes). */
void kai_kube_watch_nodes(struct kai_kube *kube, kai_kube_node_fn *fn,
    void *ctx);
/* Starts the pod watch (all namespaces: others' pods use capacity too). */
void kai_kube_watch_pods(struct kai_kube *kube, kai_kube_pod_fn *fn,
    void *ctx);

/* Starts the watch of KAI Queues (queues.scheduling.run.ai, v2). */
void kai_kube_watch_queues(struct kai_kube *kube, kai_kube_queue_fn *fn,
    void *ctx);

/*
 * Starts the watch of KAI PodGroups (podgroups.scheduling.run.ai,
 * v2alpha2, every namespace).  Each object reaches fn as a struct
 * kai_kube_obj (below), borrowed for the call; RESET and SYNCED come
 * with NULL, as for the other watches.
 */
typedef void kai_kube_objev_fn(enum kai_kube_event ev,
    const struct kai_kube_obj *obj, void *ctx);
void kai_kube_watch_podgroups(struct kai_kube *kube, kai_kube_objev_fn *fn,
    void *ctx);

/* What kaid wants a pod to be; kube turns it into the Pod JSON. */
/* A volume of a job pod (kube_podjson.c writes each kind). */
enum kai_pod_vol_kind {
	KAI_VOL_HOSTPATH,	/* path: a directory of the node */
	KAI_VOL_PVC,		/* source: the claim's name */
	KAI_VOL_NFS,		/* server, path */
	KAI_VOL_MEMORY,		/* emptyDir medium Memory of size_mb (0 = no
				   limit of its own) */
	KAI_VOL_ANNOTATIONS,	/* downwardAPI: items are "file", "annotation
				   key" pairs of the pod's own annotations */
	KAI_VOL_CONFIGMAP,	/* source: the ConfigMap's name; mode; items
				   are "key", "file" pairs (none: every key) */
	KAI_VOL_SECRET		/* source: the Secret's name; mode */
};

struct kai_pod_volume {
	const char *name;
	enum kai_pod_vol_kind kind;
	const char *source;
	const char *server;
	const char *path;
	uint64_t size_mb;
	const char *const *items;
	size_t nitems;		/* pairs */
	int mode;		/* files' mode (configMap, secret); 0 = the
				   default */
	bool read_only;
};

struct kai_pod_mount {
	const char *volume;
	const char *mount_path;
	const char *sub_path;	/* NULL = the whole volume */
	bool read_only;
};

struct kai_pod_toleration {
	const char *key, *op, *value, *effect; /* "" = unset */
};

struct kai_pod_spec {
	const char *name;
	const char *const *label_kv;	/* "key", "value", ... pairs */
	size_t nlabels;
	const char *const *annot_kv;	/* "key", "value", ... pairs */
	size_t nannots;
	const char *image;
	const char *const *command;	/* argv of the container */
	size_t ncommand;
	const char *const *env_kv;	/* "NAME", "value", ... pairs */
	size_t nenv;
	uint32_t run_as_uid;
	uint32_t run_as_gid;
	const uint32_t *groups;		/* supplementalGroups */
	size_t ngroups;
	bool fs_group;			/* fsGroup run_as_gid: the group of a
					   secret volume's files */
	bool run_as_non_root;
	int64_t cpu_milli;		/* requests = limits */
	uint64_t mem_mb;
	uint32_t gpus;			/* limits nvidia.com/gpu; 0 = none */
	int64_t active_deadline_s;	/* 0 = none */
	int64_t grace_s;		/* terminationGracePeriodSeconds;
					   0 = 30, Kubernetes' default */
	const char *hostname;		/* NULL = none (gangs: stable names) */
	const char *subdomain;		/* NULL = none */
	const char *dns_search;		/* NULL = none: one more DNS search
					   domain, so that bare hostnames of
					   the job's other pods resolve */
	const struct kai_pod_volume *volumes;
	size_t nvolumes;
	const struct kai_pod_mount *mounts;	/* of the container */
	size_t nmounts;
	const char *const *selector_kv;	/* nodeSelector pairs */
	size_t nselector;
	const struct kai_pod_toleration *tolerations;
	size_t ntolerations;
	const char *const *pull_secrets; /* imagePullSecrets names */
	size_t npull_secrets;
};

/*
 * Builds the Pod JSON kaid sends (schedulerName kaid, restartPolicy Never,
 * securityContext, resources, ...).  Caller owns the result.  Exposed for
 * the schema test.
 */
char *kai_kube_pod_json(const struct kai_pod_spec *spec, const char *ns);

/* POST the pod; 409 AlreadyExists gives KAI_EEXIST (the caller adopts it). */
void kai_kube_pod_create(struct kai_kube *kube, const struct kai_pod_spec *spec,
    kai_kube_done_fn *fn, void *ctx);
/* POST pods/NAME/binding; 409 (already bound) gives KAI_EEXIST. */
void kai_kube_pod_bind(struct kai_kube *kube, const char *pod,
    const char *node, kai_kube_done_fn *fn, void *ctx);
/*
 * PATCH pods/NAME/status: the condition DisruptionTarget (status True,
 * reason, message, lastTransitionTime now), which says why the pod is
 * about to go before it is deleted, as kube-scheduler says it when it
 * preempts (a Job's podFailurePolicy can then ignore the failure).
 */
void kai_kube_pod_disrupt(struct kai_kube *kube, const char *pod,
    const char *reason, const char *message, int64_t now,
    kai_kube_done_fn *fn, void *ctx);
/* DELETE with gracePeriodSeconds (-1 = server default); 404 -> KAI_ENOENT. */
void kai_kube_pod_delete(struct kai_kube *kube, const char *pod,
    int64_t grace_s, kai_kube_done_fn *fn, void *ctx);

/*
 * The headless Service NAME (clusterIP None) selecting the pods labelled
 * kaibatch.io/job-id=JOB_ID: with the pods' hostname and subdomain it
 * gives every pod of a multi-task job a DNS name.  Create answers 409 as
 * KAI_EEXIST, delete answers 404 as KAI_ENOENT.
 */
char *kai_kube_service_json(const char *name, const char *job_id,
    const char *ns);
void kai_kube_service_create(struct kai_kube *kube, const char *name,
    const char *job_id, kai_kube_done_fn *fn, void *ctx);
void kai_kube_service_delete(struct kai_kube *kube, const char *name,
    kai_kube_done_fn *fn, void *ctx);

/*
 * The ConfigMap NAME whose data are the key, value pairs kv[0..2n) and
 * whose binaryData the key, base64 value pairs bin_kv[0..2nbin),
 * labelled app.kubernetes.io/managed-by=kaid.  Create answers 409 as
 * KAI_EEXIST: kaid names the ConfigMap after its content, so one that
 * exists holds what kaid would write.
 */
char *kai_kube_configmap_json(const char *name, const char *const *kv,
    size_t n, const char *const *bin_kv, size_t nbin, const char *ns);
void kai_kube_configmap_create(struct kai_kube *kube, const char *name,
    const char *const *kv, size_t n, const char *const *bin_kv, size_t nbin,
    kai_kube_done_fn *fn, void *ctx);

/*
 * The Secret NAME of job JOB_ID (labelled managed-by kaid and with the
 * job's id) whose data are the key, base64 value pairs kv[0..2n).
 * Create answers 409 as KAI_EEXIST, delete answers 404 as KAI_ENOENT.
 */
char *kai_kube_secret_json(const char *name, const char *job_id,
    const char *const *kv, size_t n, const char *ns);
void kai_kube_secret_create(struct kai_kube *kube, const char *name,
    const char *job_id, const char *const *kv, size_t n,
    kai_kube_done_fn *fn, void *ctx);
void kai_kube_secret_delete(struct kai_kube *kube, const char *name,
    kai_kube_done_fn *fn, void *ctx);

/*
 * The ConfigMap NAME of a pod's GPU share (doc/k8s-native.md), in the
 * namespace of pod ("ns/name" or a name of kaid's namespace), owned by
 * the pod (uid pod_uid) so that it goes with the pod.  409 gives
 * KAI_EEXIST: a kaid restarted after creating it binds the pod the same
 * way, and the pod's ConfigMap never changes once made.
 */
char *kai_kube_configmap_owned_json(const char *name, const char *const *kv,
    size_t n, const char *const *bin_kv, size_t nbin, const char *ns,
    const char *owner_pod, const char *owner_uid);
void kai_kube_pod_configmap_create(struct kai_kube *kube, const char *pod,
    const char *pod_uid, const char *name, const char *const *kv, size_t n,
    kai_kube_done_fn *fn, void *ctx);

/*
 * GET pods/NAME/log of kaid's namespace: data gets each piece of the log
 * as it arrives (return 0 to go on, -1 to stop: done then sees
 * KAI_EAGAIN); done runs once at the end: 0 when the server ended the log
 * (with follow, when the container ended), else the KAI_E* code and the
 * server's message (HTTP 400 for a container not started, 404 for no
 * such pod).  Without follow, at most limit_bytes (> 0) are asked for
 * and the call has the client's time limit.  Neither callback may
 * cancel.
 */
struct kai_kube_log;
typedef int kai_kube_log_fn(const char *p, size_t n, void *ctx);
struct kai_kube_log *kai_kube_pod_log(struct kai_kube *kube, const char *pod,
    bool follow, int64_t limit_bytes, kai_kube_log_fn *data,
    kai_kube_done_fn *done, void *ctx);
/* Stops a log call; done is not called.  Not from inside its callbacks. */
void kai_kube_log_cancel(struct kai_kube_log *l);

/*
 * Events (core/v1 Event) about kaid's pods, so that `kubectl describe pod`
 * tells the story kqueue tells: Scheduled (Normal) once a binding
 * succeeded, Preempted / Evicted (Warning) with the scheduler's reason.
 */
enum kai_event_type {
	KAI_EVENT_NORMAL,
	KAI_EVENT_WARNING
};

struct kai_pod_event {
	const char *pod;	/* involvedObject.name, in the client's namespace */
	const char *uid;	/* involvedObject.uid; NULL or "" = unknown */
	enum kai_event_type type;
	const char *reason;	/* "Scheduled", "Preempted", "Evicted", ... */
	const char *message;	/* cut to 1024 bytes */
	/* NULL: a v1 Pod.  Else the involved object's kind and apiVersion,
	 * a cluster-scoped object (a KAI Queue): the Event then lives in
	 * namespace "default", as kubectl describe looks for it there. */
	const char *kind;
	const char *api_version;
};

/*
 * Builds the Event JSON: metadata.name "POD.<hex nanoseconds>",
 * involvedObject (v1 Pod in ns), source.component and reportingComponent
 * "kaid", reportingInstance instance, first/lastTimestamp from now_ns
 * (Unix nanoseconds; also the name's suffix), count 1.  Caller owns the
 * result.  Exposed for the schema test.
 */
char *kai_kube_pod_event_json(const struct kai_pod_event *ev, const char *ns,
    const char *instance, int64_t now_ns);
/*
 * Posts ev, best-effort and without a callback: at most a few events are
 * in flight (the rest wait, up to a bound, then are dropped) so that they
 * never crowd out pod calls; a failure or a drop is logged as a warning
 * at most once every five minutes (at debug level in between, the warning
 * counting the ones it stood for).  Never fails, never blocks.
 */
void kai_kube_pod_event(struct kai_kube *kube, const struct kai_pod_event *ev);
/*
 * An event on the cluster-scoped KAI Queue name (uid may be NULL), as
 * kai_kube_pod_event() posts one.
 */
void kai_kube_queue_event(struct kai_kube *kube, const char *name,
    const char *uid, enum kai_event_type type, const char *reason,
    const char *message);
/*
 * kube_object.c: GET of one namespaced object (a pod's owner, a PodGroup)
 * by apiVersion ("apps/v1", "v1"), kind ("Deployment": the resource is
 * the kind lower-cased plus "s"), namespace and name.  fn runs once:
 * code 0 with obj, borrowed for the callback only; else the KAI_E* code
 * (404 -> KAI_ENOENT, 403 -> KAI_EPERM) and NULL; KAI_EAGAIN when the
 * client is freed first.
 */
struct kai_kube_obj;
typedef void kai_kube_obj_fn(int code, const struct kai_err *err,
    const struct kai_kube_obj *obj, void *ctx);
void kai_kube_object_get(struct kai_kube *kube, const char *api_version,
    const char *kind, const char *ns, const char *name, kai_kube_obj_fn *fn,
    void *ctx);
/*
 * The URL path of that object (ns NULL: a cluster-scoped one); caller
 * owns.  Exposed for the unit test.
 */
char *kai_kube_object_path(const char *api_version, const char *kind,
    const char *ns, const char *name);
/*
 * Reading obj: path is dot-separated keys, a decimal index for an array
 * element ("spec.replicatedJobs.0.replicas").  _str: a string, or NULL
 * when absent or not a string (borrowed from obj).  _int: an integer
 * into *out, else KAI_ENOENT.  _len: elements of an array or keys of an
 * object, else 0.  _key: the i-th key of the object at path, or NULL.
 * _label/_annotation: metadata.labels/annotations[key], or NULL.
 */
const char *kai_kube_obj_str(const struct kai_kube_obj *o, const char *path);
int kai_kube_obj_int(const struct kai_kube_obj *o, const char *path,
    int64_t *out) KAI_MUST_CHECK;
size_t kai_kube_obj_len(const struct kai_kube_obj *o, const char *path);
const char *kai_kube_obj_key(const struct kai_kube_obj *o, const char *path,
    size_t i);
const char *kai_kube_obj_label(const struct kai_kube_obj *o, const char *key);
const char *kai_kube_obj_annotation(const struct kai_kube_obj *o,
    const char *key);

/*
 * kube_kaistatus.c: the status kaid writes on KAI's PodGroups and Queues.
 * Resources in kaid's units; reason NULL or "": a PodGroup placed (its
 * schedulingConditions removed).  _json: the merge patch's body, caller
 * owns; podgroup false gives a Queue's.  _patch_status: PATCH of the
 * object's status subresource (ns NULL: cluster-scoped), taking body;
 * fn gets 0 or the KAI_E code (404: KAI_ENOENT) and the reason.
 */
struct kai_kube_res {
	uint64_t cpu_milli;
	uint64_t mem_mb;	/* MiB */
	uint64_t gpu_micro;	/* GPUs x 10^6: whole ones and shares */
};
struct kai_kube_kai_status {
	struct kai_kube_res requested, allocated, allocated_np;
	const char *reason;	/* PodGroup: kaid's reason code, or NULL */
	const char *message;	/* its words */
	int64_t now;		/* unix s: the time of the write */
	int64_t since;		/* unix s: the condition's
				   lastTransitionTime; 0 = now */
	uint32_t transition;	/* the condition's transitionID: KAI counts
				   its changes, 1, 2, ... */
	const char *const *children; /* Queue: status.childQueues, in
				   order (borrowed); none: null */
	size_t nchildren;
};
char *kai_kube_kai_status_json(const struct kai_kube_kai_status *st,
    bool podgroup);
/*
 * What decides whether a status is written again: its sums and reason
 * code, not the reason's words nor the time.  Caller owns the string.
 */
char *kai_kube_kai_status_key(const struct kai_kube_kai_status *st);
/*
 * A PodGroup's scheduling condition as its object shows it: the one of
 * the highest transitionID (KAI's "last" condition), so that a kaid
 * restarted counts on from it as KAI's scheduler does.  id 0: none (or
 * no number).  reason is reasons[0].reason (kaid writes its code there;
 * KAI's own may write only the deprecated top-level reason, taken then),
 * message the condition's; both borrowed from o, "" when absent.  since
 * is its lastTransitionTime (unix s), 0 when absent or not RFC 3339.
 */
struct kai_kube_pg_cond {
	uint32_t id;
	const char *reason;
	const char *message;
	int64_t since;
};
void kai_kube_pg_cond_read(const struct kai_kube_obj *o,
    struct kai_kube_pg_cond *c);
void kai_kube_object_patch_status(struct kai_kube *kube,
    const char *api_version, const char *kind, const char *ns,
    const char *name, char *body, kai_kube_done_fn *fn, void *ctx);

const char *kai_kube_namespace(const struct kai_kube *kube);
/* Events posted (2xx), failed, dropped: for tests and debugging. */
void kai_kube_event_counts(const struct kai_kube *kube, uint64_t *posted,
    uint64_t *failed, uint64_t *dropped);

/* Calls in flight (for clean shutdown and tests). */
size_t kai_kube_pending(const struct kai_kube *kube);
/* Requests completed, whatever their outcome (for kaid's metrics). */
uint64_t kai_kube_requests(const struct kai_kube *kube);
/* The API calls kube makes, for counting their failures. */
enum kai_kube_verb {
	KAI_KUBE_CREATE,	/* POST a pod */
	KAI_KUBE_BIND,		/* POST pods/NAME/binding */
	KAI_KUBE_DELETE,	/* DELETE a pod */
	KAI_KUBE_WATCH,		/* list or watch nodes or pods */
	KAI_KUBE_SERVICE,	/* create or delete a job's Service */
	KAI_KUBE_CONFIGMAP,	/* create a ConfigMap (pod helpers, GPU share) */
	KAI_KUBE_STATUS,	/* PATCH pods/NAME/status (an eviction) */
	KAI_KUBE_SECRET,	/* create or delete a job's key Secret */
	KAI_KUBE_NVERBS
};
/*
 * Calls of verb that failed: transport errors, timeouts and error
 * statuses, except the answers kaid adopts (409 on create and bind, 404
 * on delete); a list or watch counts each failure before its retry.
 */
uint64_t kai_kube_errors(const struct kai_kube *kube, enum kai_kube_verb verb);

/*
 * kube_time.c: an RFC 3339 time of the API ("2026-11-28T08:09:10Z",
 * fraction and offset allowed) as unix seconds into *out; -1 when s is
 * none.
 */
int kai_kube_time_parse(const char *s, int64_t *out) KAI_MUST_CHECK;

#endif /* KAI_KUBE_KUBE_H */
