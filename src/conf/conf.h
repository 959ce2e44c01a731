/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf.h: kaid.yaml (the daemon) and kai.yaml (the clients).
 *
 * One table (conf_table.c) names every kaid.yaml key with its type,
 * default, bounds and help; the loader walks libyaml events against it.
 * An unknown key, a wrong type or a value out of bounds is an error that
 * names the place: `kaid.yaml:12:3: unrecognized key "schedular"`.  The
 * result is an immutable struct kai_conf; a reload builds a new one and
 * swaps it in only when it loaded cleanly.
 */
#ifndef KAI_CONF_CONF_H
#define KAI_CONF_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/* Most phases in scheduling.phases (the core's KAI_SCHED_MAX_PHASES). */
#define KAI_CONF_PHASES_MAX 8

/*
 * A filesystem that login nodes and jobs share (kaid.yaml filesystems:),
 * mounted into every pod at path.  Exactly one source is set.
 */
struct kai_conf_fs {
	char *path;		/* absolute, no trailing '/': where users see it */
	char *host_path;	/* hostPath source, or NULL */
	char *pvc;		/* persistentVolumeClaim name, or NULL */
	char *nfs_server;	/* nfs source (with nfs_path), or NULL */
	char *nfs_path;
	bool read_only;
};

/* A toleration a partition's pods carry, as Kubernetes spells it. */
struct kai_conf_toleration {
	char *key;		/* "" = every key (operator Exists) */
	char *op;		/* "Equal" or "Exists" */
	char *value;		/* "" with Exists */
	char *effect;		/* "" = every effect, NoSchedule, ... */
};

/* Where the queue tree comes from (queues_source). */
enum kai_conf_queues_source {
	KAI_CONF_QUEUES_DATABASE = 0,	/* kctl queue writes PostgreSQL */
	KAI_CONF_QUEUES_KUBERNETES	/* KAI Queue objects (kaiqueues.c) */
};

/* How the wrapper and shims reach a job's pod (kubernetes.pod_helpers). */
enum kai_conf_helpers {
	KAI_CONF_HELPERS_CONFIGMAP = 0,	/* one ConfigMap, mounted in every pod */
	KAI_CONF_HELPERS_INLINE		/* in every pod's command and env */
};

/* A partition (queue) as kaid.yaml declares it: its jobs and its nodes. */
struct kai_conf_partition {
	char *name;
	bool is_default;	/* the partition of jobs that name none */
	int64_t max_time_s;	/* 0 = no limit; a longer job is refused */
	int64_t default_time_s; /* time limit of a job that gives none; 0 = none */
	char *image;		/* NULL = kubernetes.image */
	char **node_selector;	/* "key", "value", ... pairs; NULL = none */
	size_t nnode_selector;	/* pairs */
	struct kai_conf_toleration *tolerations;
	size_t ntolerations;
	char **pull_secrets;	/* imagePullSecrets names */
	size_t npull_secrets;
	struct kai_conf_fs *filesystems; /* NULL = the top-level list */
	size_t nfilesystems;
};

/* How a QoS sets its jobs' preemptibility (kaid.yaml qos[].preemptible). */
enum kai_conf_preempt {
	KAI_CONF_PREEMPT_AUTO = 0,	/* the job's own, else KAI's rule */
	KAI_CONF_PREEMPT_YES,		/* always preemptible */
	KAI_CONF_PREEMPT_NO		/* not, unless the job says so */
};

/* A quality of service (kaid.yaml qos:), Slurm's QOS, as ksubmit -q names it. */
struct kai_conf_qos {
	char *name;
	bool is_default;	/* the QoS of jobs that name none */
	int64_t priority;	/* scheduler priority of its jobs that give
				 * no --priority class; -1 = the class's */
	int preemptible;	/* enum kai_conf_preempt */
	int64_t max_wall_s;	/* Slurm's MaxWall; KAI_TIME_UNLIMITED = none */
	int64_t max_gpus_user;	/* GPUs one user's running jobs of this QoS
				 * hold at most (MaxTRESPerUser=gres/gpu);
				 * -1 = no limit */
};

/* An account jobs may be charged to (kaid.yaml accounts:, ksubmit -A). */
struct kai_conf_account {
	char *name;
	uint32_t *users;	/* uids that may use it; none = every user */
	size_t nusers;
	int64_t fairshare;	/* its weight among the accounts of a queue
				 * (Slurm's association shares); 1 */
};

struct kai_conf {
	char *path;			/* the file read, for messages */
	char *listen;			/* "host:port" for clients; 127.0.0.1:6820 */
	char *advertise;		/* where standbys forward to; "auto" */
	char *http_listen;		/* health and metrics; "off"; 127.0.0.1:6821 */
	char *database;			/* libpq conninfo; required */
	int64_t db_timeout_ms;		/* statement_timeout; 0 = none; 30 s */
	char *munge_socket;		/* NULL = munged's default */
	char *job_key_file;		/* job credentials' key; NULL = none */
	char *mail_prog;		/* job mail's program; "/bin/mail" */
	char *mail_domain;		/* appended to a bare user; NULL */
	int log_level;			/* enum kai_log_level; "info" */
	int queues_source;		/* enum kai_conf_queues_source;
					   database */
	/* kubernetes: */
	char *kubeconfig;		/* NULL = in-cluster service account */
	char *kube_context;		/* NULL = current-context */
	char *namespace;		/* "default" */
	char *default_image;		/* "debian:bookworm-slim" */
	int pod_helpers;		/* enum kai_conf_helpers; configmap */
	char *cluster_domain;		/* "cluster.local" */
	char *pod_controller;		/* kaid's address from pods; NULL */
	char *cluster_name;		/* SLURM_CLUSTER_NAME; "kaibatch" */
	int64_t kube_timeout_ms;	/* per API call; 10000 */
	/* scheduler: */
	int64_t sched_interval_ms;	/* tick; 1000 */
	int64_t default_mem_mb;		/* per task when --mem is not given; 1024 */
	/* scheduling: the core's struct kai_sched_config, and usage */
	int sched_placement;		/* enum kai_sched_placement; frag */
	int sched_gpu_placement;	/* the same; pack */
	int sched_phases[KAI_CONF_PHASES_MAX]; /* enum kai_sched_action */
	size_t sched_nphases;		/* 0 = kaid's own list (unset) */
	double sched_k_value;		/* time-based fair share; 1.0 */
	int64_t sched_stale_grace_ms;	/* -1 = never; 60 s */
	int64_t sched_max_moves;	/* consolidation; 16 */
	int64_t sched_bf_reservations;	/* backfill; 4 */
	int64_t sched_bf_max_job_test;	/* jobs replayed for one; 16 */
	char *sched_gpu_type_label;	/* node label of GPU types;
					   "nvidia.com/gpu.product" */
	char *sched_feature_labels;	/* node labels whose values are
					   features, comma-separated
					   (daemons/kaid/nodefeat.c) */
	int64_t usage_half_life_ms;	/* 0 = no decay; 1 day */
	int64_t usage_window_ms;	/* 7 days */
	int64_t usage_refresh_ms;	/* re-read finished jobs; 1 min */
	/* native: Kubernetes workloads kaid schedules (doc/k8s-native.md) */
	char *native_schedulers;	/* schedulerNames, comma-separated;
					   "kaid" */
	char *native_default_queue;	/* queue of a pod without the
					   kai.scheduler/queue label; NULL =
					   none (the pod waits) */
	char *native_user_label;	/* pod label naming a workload's
					   user; NULL = its namespace */
	char *webhook_listen;		/* admission webhook; "off" */
	char *webhook_cert;		/* its certificate chain; NULL = none */
	char *webhook_key;		/* its private key; NULL = none */
	/* jobs: */
	bool allow_root_jobs;		/* false: pods get runAsNonRoot */
	int64_t max_script_bytes;	/* <= KAI_JOB_SCRIPT_MAX; 102400 */
	int64_t shm_percent;		/* /dev/shm size, % of --mem; 50 */
	int64_t kill_wait_ms;		/* SIGTERM to SIGKILL (KillWait); 30 s */
	struct kai_conf_fs *filesystems; /* shared filesystems; NULL = none */
	size_t nfilesystems;
	/* limits: what one client may hold (server.c, httpd.c) */
	int64_t max_conns;		/* client connections in all; 1024 */
	int64_t max_conns_per_peer;	/* from one address; 64 */
	int64_t preauth_bytes;		/* read before a credential is verified; 64 KiB */
	int64_t header_timeout_ms;	/* first byte to verified credential; 10 s */
	int64_t idle_timeout_ms;	/* no request completed, nothing owed; 60 s */
	int64_t output_bytes;		/* queued to one client; 16 MiB */
	int64_t http_max_conns;		/* HTTP connections in all; 64 */
	int64_t http_max_conns_per_peer; /* HTTP, from one address; 8 */
	int64_t http_timeout_ms;	/* to send an HTTP request head; 2 s */
	uint32_t *operators;		/* uids that may act on any job (0 always may) */
	size_t noperators;
	struct kai_conf_partition *partitions; /* at least one */
	size_t npartitions;
	struct kai_conf_qos *qos;	/* at least one; exactly one default */
	size_t nqos;
	struct kai_conf_account *accounts; /* none = any -A is accepted */
	size_t naccounts;
};

/*
 * Loads and validates path.  Caller owns *conf (kai_conf_free()).  On
 * error returns KAI_ECONFIG with err->msg "path:line:col: reason".
 */
int kai_conf_load(const char *path, struct kai_conf **conf,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_conf_free(struct kai_conf *conf);

/* The partition named name, or the default one when name is NULL. */
const struct kai_conf_partition *kai_conf_partition(
    const struct kai_conf *conf, const char *name);

/* The QoS named name, or the default one when name is NULL; else NULL. */
const struct kai_conf_qos *kai_conf_qos(const struct kai_conf *conf,
    const char *name);

/*
 * The account of a job that user uid charges to name (ksubmit -A), or to
 * no account when name is NULL: with no accounts: in kaid.yaml, name
 * itself (NULL stays NULL: every account and none are accepted); else the
 * account listed with that name if uid may use it, and for NULL the first
 * account uid may use (Slurm's default account).  NULL with *refused set
 * when uid may not charge name, or no account at all.
 */
const char *kai_conf_account(const struct kai_conf *conf, const char *name,
    uint32_t uid, bool *refused);

/*
 * The shared filesystems of partition name's jobs: the partition's own
 * list when it sets one (an empty one too), else the top-level list.
 * *n = 0 when there are none: no path is then refused, and pods mount
 * nothing.
 */
const struct kai_conf_fs *kai_conf_filesystems(const struct kai_conf *conf,
    const char *name, size_t *n);

/*
 * The filesystem of fs[0..n) that holds the absolute path (lexically:
 * "." and ".." resolved by name, links not followed), or NULL.
 */
const struct kai_conf_fs *kai_conf_fs_find(const struct kai_conf_fs *fs,
    size_t n, const char *path);
/*
 * The same for the directory of a Slurm file pattern (-o, -e), relative
 * to workdir unless absolute: the directory its fixed part, before the
 * first '%', names.
 */
const struct kai_conf_fs *kai_conf_fs_find_pattern(
    const struct kai_conf_fs *fs, size_t n, const char *workdir,
    const char *pattern);
/* "/home, /scratch" (or "none"), for messages; caller owns it. */
char *kai_conf_fs_names(const struct kai_conf_fs *fs, size_t n);

/* Whether uid is 0 or listed under operators. */
bool kai_conf_is_operator(const struct kai_conf *conf, uint32_t uid);

/*
 * Writes the effective configuration as YAML (kaid -n -v) to a buffer the
 * caller owns, with secrets (passwords in the conninfo) masked.
 */
char *kai_conf_dump(const struct kai_conf *conf);

/*
 * The clients' file, kai.yaml: `controller: host:port` and optionally
 * `munge_socket: path`.  Missing file is not an error (defaults stay).
 * Overwrites *cc; caller owns the strings it sets (kai_client_conf_fini()).
 * On error returns KAI_ECONFIG, as kai_conf_load() does, and leaves *cc
 * zeroed.
 */
struct kai_client_conf {
	char *controller;	/* "127.0.0.1:6820" */
	char *munge_socket;	/* NULL = default */
};
int kai_client_conf_load(const char *path, struct kai_client_conf *cc,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_client_conf_fini(struct kai_client_conf *cc);

/*
 * Help for every kaid.yaml key, in table order, for `kaid --help-config`
 * and the man page: each line "key  type  default  help".
 */
char *kai_conf_help(void);

#endif /* KAI_CONF_CONF_H */
