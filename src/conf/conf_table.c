/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_table.c: every key of kaid.yaml and kai.yaml, in one place.
 *
 * As in tmux's options-table.c, an entry is the whole truth about a
 * setting: the loader validates against it, kai_conf_dump() prints from
 * it, kai_conf_help() and doc/man/kaid.yaml.5 describe it.  Adding a key
 * is a field in struct kai_conf plus one entry here (plus its line in the
 * man page and the example file).
 *
 * Keys are dotted paths; "kubernetes.timeout" is the key "timeout" inside
 * the mapping "kubernetes".  Entries flagged KAI_CONF_ITEM are the fields
 * of each element of the list named by their prefix ("partitions.name").
 * Entries of one section are kept together, because the dump opens a
 * section where its first entry sits.
 *
 * Defaults are YAML text parsed by the loader itself.  Bounds are in the
 * key's unit: milliseconds for durations, scale-sized units for sizes,
 * bytes for string lengths and elements for lists.
 */
#include "config.h"

#include <stddef.h>

#include "conf/conf.h"
#include "conf/conf_int.h"
#include "model/job.h"

#define MIB ((int64_t)1024 * 1024)
#define D(field) offsetof(struct kai_conf, field)
#define P(field) offsetof(struct kai_conf_partition, field)
#define C(field) offsetof(struct kai_client_conf, field)
#define F(field) offsetof(struct kai_conf_fs, field)
#define Q(field) offsetof(struct kai_conf_qos, field)
#define A(field) offsetof(struct kai_conf_account, field)

/* Index = enum kai_log_level (sys/log.h); tests/unit/conf-load checks it. */
static const char *const log_levels[] = {"err", "warn", "info", "debug", NULL};
/* Index = enum kai_sched_placement and enum kai_sched_action (sched/). */
static const char *const placements[] = {"binpack", "spread", "frag", NULL};
static const char *const gpu_placements[] = {"pack", "spread", NULL};
/* Index = enum kai_conf_helpers (conf.h). */
static const char *const helpers[] = {"configmap", "inline", NULL};
/* Index = enum kai_conf_queues_source (conf.h). */
static const char *const queue_sources[] = {"database", "kubernetes", NULL};
/* Index = enum kai_conf_preempt (conf.h). */
static const char *const preempts[] = {"auto", "true", "false", NULL};
static const char *const phases[] = {"allocate", "consolidation", "reclaim",
    "preempt", "stalegangeviction", NULL};

#define DAY_MS ((int64_t)24 * 60 * 60 * 1000)
/* A frame's header and largest credential (proto.h): 20 + 4096 bytes. */
#define FRAME_HEAD_MAX 4116

static const struct kai_conf_entry daemon_entries[] = {
	{ .key = "listen", .type = KAI_CONF_ADDRESS, .offset = D(listen),
	  .def = "127.0.0.1:6820", .max = 255,
	  .help = "address and port kaid accepts clients on" },
	{ .key = "advertise", .type = KAI_CONF_ADDRESS,
	  .offset = D(advertise), .def = "auto", .max = 255,
	  .flags = KAI_CONF_AUTO,
	  .help = "address and port a standby kaid forwards clients to "
		  "when this kaid leads; auto = listen, with this host's "
		  "name when listen is a wildcard" },
	{ .key = "http_listen", .type = KAI_CONF_ADDRESS,
	  .offset = D(http_listen), .def = "127.0.0.1:6821", .max = 255,
	  .flags = KAI_CONF_OFF,
	  .help = "address and port of the HTTP health and metrics "
		  "endpoint; off = none" },
	{ .key = "database", .type = KAI_CONF_STRING, .offset = D(database),
	  .min = 1, .max = 4096, .flags = KAI_CONF_REQUIRED | KAI_CONF_SECRET,
	  .help = "libpq connection string of the kaibatch database" },
	{ .key = "database_timeout", .type = KAI_CONF_DURATION,
	  .offset = D(db_timeout_ms), .def = "30s", .min = 0,
	  .max = 24 * 60 * 60 * 1000, .unit = "ms",
	  .help = "PostgreSQL statement_timeout of every statement kaid "
		  "runs (kacct's history, reports); 0 = none" },
	{ .key = "munge_socket", .type = KAI_CONF_PATH,
	  .offset = D(munge_socket), .max = 4095,
	  .help = "munged socket; unset = munged's default" },
	{ .key = "job_key_file", .type = KAI_CONF_PATH,
	  .offset = D(job_key_file), .max = 4095,
	  .help = "file of kaid's job-credential key (64 hex digits, mode "
		  "0600 or 0400); unset = jobs cannot talk to kaid" },
	{ .key = "cluster_name", .type = KAI_CONF_DNSLABEL,
	  .offset = D(cluster_name), .def = "kaibatch", .max = 63,
	  .help = "the cluster's name (Slurm's ClusterName): jobs see it "
		  "in SLURM_CLUSTER_NAME" },
	{ .key = "mail_prog", .type = KAI_CONF_PATH,
	  .offset = D(mail_prog), .def = "/bin/mail", .max = 4095,
	  .help = "program that sends job mail (Slurm's MailProg), run as "
		  "PROG -s SUBJECT ADDRESS; when it does not exist kaid "
		  "logs one warning and sends nothing" },
	{ .key = "mail_domain", .type = KAI_CONF_DNSNAME,
	  .offset = D(mail_domain), .max = 253,
	  .help = "domain appended as \"@DOMAIN\" to a mail user without "
		  "'@' (Slurm's MailDomain); unset = none" },
	{ .key = "log_level", .type = KAI_CONF_ENUM, .offset = D(log_level),
	  .def = "info", .choices = log_levels,
	  .help = "least severe message logged: err, warn, info, debug" },
	{ .key = "queues_source", .type = KAI_CONF_ENUM,
	  .offset = D(queues_source), .def = "database",
	  .choices = queue_sources,
	  .help = "where the queue tree comes from: database (kctl queue) "
		  "or kubernetes (KAI Queue objects, scheduling.run.ai/v2; "
		  "kctl's queue writes are then refused)" },

	{ .key = "kubernetes.kubeconfig", .type = KAI_CONF_PATH,
	  .offset = D(kubeconfig), .max = 4095,
	  .help = "kubeconfig file; unset = in-cluster service account" },
	{ .key = "kubernetes.context", .type = KAI_CONF_STRING,
	  .offset = D(kube_context), .min = 1, .max = 253,
	  .help = "kubeconfig context; unset = its current-context" },
	{ .key = "kubernetes.namespace", .type = KAI_CONF_DNSLABEL,
	  .offset = D(namespace), .max = 63,
	  .help = "namespace the job pods are created in; unset = the "
		  "service account's (in a pod) or the kubeconfig "
		  "context's, else default" },
	{ .key = "kubernetes.image", .type = KAI_CONF_STRING,
	  .offset = D(default_image), .def = "debian:bookworm-slim",
	  .min = 1, .max = 1024,
	  .help = "container image of jobs that name none" },
	{ .key = "kubernetes.pod_helpers", .type = KAI_CONF_ENUM,
	  .offset = D(pod_helpers), .def = "configmap", .choices = helpers,
	  .help = "how the job wrapper and shims reach pods: configmap (one "
		  "ConfigMap mounted in every pod) or inline (in each pod)" },
	{ .key = "kubernetes.cluster_domain", .type = KAI_CONF_DNSNAME,
	  .offset = D(cluster_domain), .def = "cluster.local", .max = 253,
	  .help = "the cluster's DNS domain, for job pods' host names" },
	{ .key = "kubernetes.pod_controller", .type = KAI_CONF_ADDRESS,
	  .offset = D(pod_controller), .max = 255,
	  .help = "address and port job pods reach kaid at (KAI_CONTROLLER "
		  "in the pods), which listen must cover; unset = jobs "
		  "cannot talk to kaid" },
	{ .key = "kubernetes.timeout", .type = KAI_CONF_DURATION,
	  .offset = D(kube_timeout_ms), .def = "10s",
	  .min = 100, .max = (int64_t)10 * 60 * 1000, .unit = "ms",
	  .help = "time limit of one Kubernetes API call" },

	{ .key = "scheduler.interval", .type = KAI_CONF_DURATION,
	  .offset = D(sched_interval_ms), .def = "1s",
	  .min = 100, .max = (int64_t)60 * 60 * 1000, .unit = "ms",
	  .help = "time between two scheduling passes" },
	{ .key = "scheduler.default_mem", .type = KAI_CONF_SIZE,
	  .offset = D(default_mem_mb), .def = "1G", .min = 1,
	  .max = 16 * MIB, .scale = MIB, .unit = "MiB",
	  .help = "memory per task of jobs that give no --mem" },

	{ .key = "scheduling.placement", .type = KAI_CONF_ENUM,
	  .offset = D(sched_placement), .def = "frag",
	  .choices = placements,
	  .help = "node order: frag (least fragmentation), binpack or spread" },
	{ .key = "scheduling.gpu_placement", .type = KAI_CONF_ENUM,
	  .offset = D(sched_gpu_placement), .def = "pack",
	  .choices = gpu_placements,
	  .help = "which GPU of a node gets a fraction: pack or spread" },
	{ .key = "scheduling.phases", .type = KAI_CONF_PHASES,
	  .offset = D(sched_phases), .count_offset = D(sched_nphases),
	  .choices = phases,
	  .help = "phases of a cycle, in order; unset = those kaid acts on" },
	{ .key = "scheduling.k_value", .type = KAI_CONF_NUMBER,
	  .offset = D(sched_k_value), .def = "1.0", .min = 0, .max = 1000,
	  .help = "weight of past usage in fair share; 0 = plain weights" },
	{ .key = "scheduling.stale_gang_grace", .type = KAI_CONF_GRACE,
	  .offset = D(sched_stale_grace_ms), .def = "60s", .min = 0,
	  .max = 365 * DAY_MS, .unit = "ms",
	  .help = "a gang below its minimum this long is evicted; never" },
	{ .key = "scheduling.max_consolidation_moves", .type = KAI_CONF_INTEGER,
	  .offset = D(sched_max_moves), .def = "16", .min = 0, .max = 4096,
	  .help = "running tasks consolidation may move for one job" },
	{ .key = "scheduling.backfill_reservations", .type = KAI_CONF_INTEGER,
	  .offset = D(sched_bf_reservations), .def = "4", .min = 0,
	  .max = 1024,
	  .help = "jobs given a backfill reservation; 0 = no backfill" },
	{ .key = "scheduling.backfill_max_job_test", .type = KAI_CONF_INTEGER,
	  .offset = D(sched_bf_max_job_test), .def = "16", .min = 1,
	  .max = 1000000,
	  .help = "waiting jobs a cycle looks for a backfill reservation for, "
		  "found or not (Slurm's bf_max_job_test)" },
	{ .key = "scheduling.gpu_type_label", .type = KAI_CONF_STRING,
	  .offset = D(sched_gpu_type_label), .def = "nvidia.com/gpu.product",
	  .min = 1, .max = 316,
	  .help = "node label whose value is a node's GPU type, for GPU type "
		  "quotas and --gres=gpu:TYPE:N" },
	{ .key = "scheduling.node_feature_labels", .type = KAI_CONF_STRING,
	  .offset = D(sched_feature_labels),
	  .def = "nvidia.com/gpu.product,nvidia.com/gpu.family",
	  .min = 1, .max = 4096,
	  .help = "node labels whose values are node features (--constraint), "
		  "comma-separated; kaibatch.io/feature.NAME labels "
		  "always count" },
	{ .key = "scheduling.usage_half_life", .type = KAI_CONF_DURATION,
	  .offset = D(usage_half_life_ms), .def = "1d", .min = 0,
	  .max = 365 * DAY_MS, .unit = "ms",
	  .help = "past usage counts half after this long; 0 = no decay" },
	{ .key = "scheduling.usage_window", .type = KAI_CONF_DURATION,
	  .offset = D(usage_window_ms), .def = "7d", .min = 60 * 1000,
	  .max = 365 * DAY_MS, .unit = "ms",
	  .help = "usage older than this is forgotten" },
	{ .key = "scheduling.usage_refresh", .type = KAI_CONF_DURATION,
	  .offset = D(usage_refresh_ms), .def = "1m", .min = 1000,
	  .max = 60 * 60 * 1000, .unit = "ms",
	  .help = "how often finished jobs' usage is read from the database" },

	{ .key = "native.schedulers", .type = KAI_CONF_STRING,
	  .offset = D(native_schedulers), .def = "kaid", .min = 1, .max = 1024,
	  .help = "schedulerNames whose pods kaid schedules, comma-separated "
		  "(a site leaving KAI adds kai-scheduler)" },
	{ .key = "native.default_queue", .type = KAI_CONF_STRING,
	  .offset = D(native_default_queue), .min = 1, .max = 255,
	  .help = "queue of a Kubernetes workload without the "
		  "kai.scheduler/queue label; unset = it waits" },
	{ .key = "native.user_label", .type = KAI_CONF_STRING,
	  .offset = D(native_user_label), .min = 1, .max = 317,
	  .help = "pod label whose value is a Kubernetes workload's user "
		  "(fair share, kqueue, kacct); unset = its namespace" },
	{ .key = "native.webhook_listen", .type = KAI_CONF_ADDRESS,
	  .offset = D(webhook_listen), .def = "off", .max = 255,
	  .flags = KAI_CONF_OFF,
	  .help = "address and port of the HTTPS admission webhook of GPU "
		  "sharing (doc/k8s-native.md); off = none" },
	{ .key = "native.webhook_cert", .type = KAI_CONF_PATH,
	  .offset = D(webhook_cert), .max = 4095,
	  .help = "the webhook's certificate chain, PEM (needed when "
		  "native.webhook_listen is set)" },
	{ .key = "native.webhook_key", .type = KAI_CONF_PATH,
	  .offset = D(webhook_key), .max = 4095,
	  .help = "the webhook certificate's private key, PEM" },

	{ .key = "jobs.allow_root", .type = KAI_CONF_BOOL,
	  .offset = D(allow_root_jobs), .def = "false",
	  .help = "let jobs run as uid 0 (else pods get runAsNonRoot)" },
	{ .key = "jobs.max_script_size", .type = KAI_CONF_SIZE,
	  .offset = D(max_script_bytes), .def = "100K", .min = 1024,
	  .max = (int64_t)KAI_JOB_SCRIPT_MAX, .scale = 1, .unit = "bytes",
	  .help = "largest batch script accepted" },
	{ .key = "jobs.kill_wait", .type = KAI_CONF_DURATION,
	  .offset = D(kill_wait_ms), .def = "30s", .min = 1000,
	  .max = 60 * 60 * 1000, .unit = "ms",
	  .help = "from SIGTERM to SIGKILL when a job is cancelled or "
		  "reaches its time limit (Slurm's KillWait)" },
	{ .key = "jobs.shm_percent", .type = KAI_CONF_INTEGER,
	  .offset = D(shm_percent), .def = "50", .min = 0, .max = 100,
	  .unit = "%",
	  .help = "size of a job's /dev/shm (memory-backed), in percent of "
		  "its memory; 0 = the runtime's own /dev/shm" },

	{ .key = "filesystems", .type = KAI_CONF_FILESYSTEMS,
	  .offset = D(filesystems), .count_offset = D(nfilesystems),
	  .max = 64,
	  .help = "filesystems that login nodes and jobs share, mounted "
		  "into every pod at path; unset = none, and no path is "
		  "checked" },
	{ .key = "filesystems.path", .type = KAI_CONF_PATH,
	  .offset = F(path), .max = 4095,
	  .flags = KAI_CONF_REQUIRED | KAI_CONF_ITEM,
	  .help = "where users see it, on login nodes and in jobs" },
	{ .key = "filesystems.hostPath", .type = KAI_CONF_PATH,
	  .offset = F(host_path), .max = 4095, .flags = KAI_CONF_ITEM,
	  .help = "source: this directory of every node" },
	{ .key = "filesystems.pvc", .type = KAI_CONF_DNSNAME,
	  .offset = F(pvc), .max = 253, .flags = KAI_CONF_ITEM,
	  .help = "source: this PersistentVolumeClaim of kaid's namespace" },
	{ .key = "filesystems.nfs.server", .type = KAI_CONF_STRING,
	  .offset = F(nfs_server), .max = 253, .flags = KAI_CONF_ITEM,
	  .help = "source: NFS server (with nfs.path)" },
	{ .key = "filesystems.nfs.path", .type = KAI_CONF_PATH,
	  .offset = F(nfs_path), .max = 4095, .flags = KAI_CONF_ITEM,
	  .help = "source: the export on the NFS server" },
	{ .key = "filesystems.readOnly", .type = KAI_CONF_BOOL,
	  .offset = F(read_only), .def = "false", .flags = KAI_CONF_ITEM,
	  .help = "mounted read-only in jobs" },

	{ .key = "limits.connections", .type = KAI_CONF_INTEGER,
	  .offset = D(max_conns), .def = "1024", .min = 1, .max = 1000000,
	  .help = "client connections kaid holds at once; more are refused" },
	{ .key = "limits.connections_per_peer", .type = KAI_CONF_INTEGER,
	  .offset = D(max_conns_per_peer), .def = "64", .min = 1,
	  .max = 1000000,
	  .help = "client connections from one address at once" },
	{ .key = "limits.unauthenticated_size", .type = KAI_CONF_SIZE,
	  .offset = D(preauth_bytes), .def = "64K",
	  .min = FRAME_HEAD_MAX, .max = FRAME_HEAD_MAX + MIB,
	  .scale = 1, .unit = "bytes",
	  .help = "bytes read from a connection before the credential of "
		  "its request is verified" },
	{ .key = "limits.header_timeout", .type = KAI_CONF_DURATION,
	  .offset = D(header_timeout_ms), .def = "10s", .min = 100,
	  .max = 60 * 60 * 1000, .unit = "ms",
	  .help = "time from a request's first byte to its verified "
		  "credential" },
	{ .key = "limits.idle_timeout", .type = KAI_CONF_DURATION,
	  .offset = D(idle_timeout_ms), .def = "60s", .min = 100,
	  .max = DAY_MS, .unit = "ms",
	  .help = "a connection that completes no request and reads no "
		  "answer this long is closed" },
	{ .key = "limits.output_size", .type = KAI_CONF_SIZE,
	  .offset = D(output_bytes), .def = "16M", .min = 1024 * 1024,
	  .max = 1024 * MIB, .scale = 1, .unit = "bytes",
	  .help = "answer bytes queued to one client; more closes it" },
	{ .key = "limits.http_connections", .type = KAI_CONF_INTEGER,
	  .offset = D(http_max_conns), .def = "64", .min = 2, .max = 100000,
	  .help = "HTTP connections at once; a new one displaces the "
		  "oldest still without a request" },
	{ .key = "limits.http_connections_per_peer", .type = KAI_CONF_INTEGER,
	  .offset = D(http_max_conns_per_peer), .def = "8", .min = 1,
	  .max = 100000,
	  .help = "HTTP connections from one address at once" },
	{ .key = "limits.http_timeout", .type = KAI_CONF_DURATION,
	  .offset = D(http_timeout_ms), .def = "2s", .min = 100,
	  .max = 60 * 1000, .unit = "ms",
	  .help = "time to send an HTTP request head" },

	{ .key = "operators", .type = KAI_CONF_UIDS, .offset = D(operators),
	  .count_offset = D(noperators), .def = "[]", .max = 1024,
	  .help = "users (names or uids) who may act on any job; root may" },

	{ .key = "partitions", .type = KAI_CONF_PARTITIONS,
	  .offset = D(partitions), .count_offset = D(npartitions),
	  .def = "[{name: batch, default: true}]", .min = 1, .max = 256,
	  .help = "the partitions (queues) jobs are submitted to" },
	{ .key = "partitions.name", .type = KAI_CONF_PARTNAME,
	  .offset = P(name), .max = 63,
	  .flags = KAI_CONF_REQUIRED | KAI_CONF_ITEM,
	  .help = "partition name, [a-z0-9_-], as given to ksubmit -p" },
	{ .key = "partitions.default", .type = KAI_CONF_BOOL,
	  .offset = P(is_default), .def = "false", .flags = KAI_CONF_ITEM,
	  .help = "jobs that name no partition go here (exactly one)" },
	{ .key = "partitions.max_time", .type = KAI_CONF_TIMELIMIT,
	  .offset = P(max_time_s), .def = "UNLIMITED", .flags = KAI_CONF_ITEM,
	  .help = "longest time limit a job may ask for" },
	{ .key = "partitions.default_time", .type = KAI_CONF_TIMELIMIT,
	  .offset = P(default_time_s), .flags = KAI_CONF_ITEM,
	  .help = "time limit of jobs that give none; unset = max_time" },
	{ .key = "partitions.image", .type = KAI_CONF_STRING,
	  .offset = P(image), .min = 1, .max = 1024, .flags = KAI_CONF_ITEM,
	  .help = "container image of its jobs that name none; unset = "
		  "kubernetes.image" },
	{ .key = "partitions.nodeSelector", .type = KAI_CONF_LABELS,
	  .offset = P(node_selector), .count_offset = P(nnode_selector),
	  .max = 64, .flags = KAI_CONF_ITEM,
	  .help = "node labels its nodes have: its jobs run there only" },
	{ .key = "partitions.tolerations", .type = KAI_CONF_TOLERATIONS,
	  .offset = P(tolerations), .count_offset = P(ntolerations),
	  .max = 64, .flags = KAI_CONF_ITEM,
	  .help = "node taints its jobs tolerate (key, operator, value, "
		  "effect)" },
	{ .key = "partitions.imagePullSecrets", .type = KAI_CONF_NAMES,
	  .offset = P(pull_secrets), .count_offset = P(npull_secrets),
	  .max = 16, .flags = KAI_CONF_ITEM,
	  .help = "Secrets of kaid's namespace its pods pull images with" },
	{ .key = "partitions.filesystems", .type = KAI_CONF_FILESYSTEMS,
	  .offset = P(filesystems), .count_offset = P(nfilesystems),
	  .max = 64, .flags = KAI_CONF_ITEM,
	  .help = "its own shared filesystems, instead of the top-level "
		  "list" },

	{ .key = "qos", .type = KAI_CONF_QOSLIST, .offset = D(qos),
	  .count_offset = D(nqos), .def = "[{name: normal}]", .min = 1,
	  .max = 256,
	  .help = "the qualities of service jobs ask for with ksubmit -q" },
	{ .key = "qos.name", .type = KAI_CONF_STRING, .offset = Q(name),
	  .min = 1, .max = 63, .flags = KAI_CONF_REQUIRED | KAI_CONF_ITEM,
	  .help = "QoS name, [A-Za-z0-9_.@-], as given to ksubmit -q" },
	{ .key = "qos.default", .type = KAI_CONF_BOOL, .offset = Q(is_default),
	  .def = "false", .flags = KAI_CONF_ITEM,
	  .help = "jobs that name no QoS get this one (unset: the one "
		  "named normal, or the only one)" },
	{ .key = "qos.priority", .type = KAI_CONF_INTEGER,
	  .offset = Q(priority), .def = "-1", .min = -1, .max = 1000000,
	  .flags = KAI_CONF_ITEM,
	  .help = "scheduler priority of its jobs that give no --priority "
		  "class (train is 50, inference 125); -1 = the class's" },
	{ .key = "qos.preemptible", .type = KAI_CONF_ENUM,
	  .offset = Q(preemptible), .def = "auto", .choices = preempts,
	  .flags = KAI_CONF_ITEM,
	  .help = "true: its jobs may always be preempted; false: only "
		  "those that ask; auto: by priority, below 100" },
	{ .key = "qos.max_wall", .type = KAI_CONF_TIMELIMIT,
	  .offset = Q(max_wall_s), .def = "UNLIMITED", .flags = KAI_CONF_ITEM,
	  .help = "longest time limit its jobs may ask for (MaxWall)" },
	{ .key = "qos.max_gpus_per_user", .type = KAI_CONF_INTEGER,
	  .offset = Q(max_gpus_user), .def = "-1", .min = -1, .max = 1000000,
	  .flags = KAI_CONF_ITEM,
	  .help = "GPUs one user's running jobs of this QoS may hold "
		  "(MaxTRESPerUser=gres/gpu); more wait; -1 = no limit" },

	{ .key = "accounts", .type = KAI_CONF_ACCOUNTS,
	  .offset = D(accounts), .count_offset = D(naccounts), .def = "[]",
	  .max = 4096,
	  .help = "the accounts ksubmit -A may name; none = any account" },
	{ .key = "accounts.name", .type = KAI_CONF_STRING, .offset = A(name),
	  .min = 1, .max = 63, .flags = KAI_CONF_REQUIRED | KAI_CONF_ITEM,
	  .help = "account name, [A-Za-z0-9_.@-]" },
	{ .key = "accounts.users", .type = KAI_CONF_UIDS, .offset = A(users),
	  .count_offset = A(nusers), .def = "[]", .max = 100000,
	  .flags = KAI_CONF_ITEM,
	  .help = "users (names or uids) who may charge it; none = anyone" },
	{ .key = "accounts.fairshare", .type = KAI_CONF_INTEGER,
	  .offset = A(fairshare), .def = "1", .min = 1, .max = 1000000,
	  .flags = KAI_CONF_ITEM,
	  .help = "its weight among the accounts whose jobs share a queue "
		  "(Slurm's Fairshare=): GPUs go to the account furthest "
		  "below its share first" },
};

const struct kai_conf_table kai_conf_daemon_table = {
	daemon_entries, KAI_NELEM(daemon_entries)
};

static const struct kai_conf_entry client_entries[] = {
	{ .key = "controller", .type = KAI_CONF_ADDRESS,
	  .offset = C(controller), .def = "127.0.0.1:6820", .max = 1023,
	  .flags = KAI_CONF_LIST,
	  .help = "address and port of kaid; several, \"a:6820,b:6820\", "
		  "are tried in turn" },
	{ .key = "munge_socket", .type = KAI_CONF_PATH,
	  .offset = C(munge_socket), .max = 4095,
	  .help = "munged socket; unset = munged's default" },
};

const struct kai_conf_table kai_conf_client_table = {
	client_entries, KAI_NELEM(client_entries)
};
