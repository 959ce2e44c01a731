/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * job.h: what a user asks for (struct kai_jobspec) and what kaid reports
 * about a job (struct kai_jobinfo).
 *
 * Both are plain data owned by whoever holds them: every pointer field is a
 * heap string owned by the struct and released by the matching _fini().
 * A zeroed struct is a valid empty value, and _fini() of one is a no-op.
 * The submitter's identity is NOT here: kaid takes uid and gid from the
 * MUNGE credential alone.
 */
#ifndef KAI_MODEL_JOB_H
#define KAI_MODEL_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "model/array.h"
#include "model/dep.h"
#include "model/jobstate.h"
#include "model/mail.h"

/* Hard limits on what a submission may carry (checked by the codec too). */
#define KAI_JOB_NAME_MAX     255	      /* bytes of a job name */
#define KAI_JOB_GPU_TYPE_MAX 63	      /* a GPU type: a label value */
#define KAI_JOB_FEATURES_MAX 1024     /* bytes of a --constraint */
#define KAI_JOB_NODE_REQ_MAX 8192     /* bytes of --nodelist;--exclude */
#define KAI_JOB_PATH_MAX     4096	      /* workdir, -o, -e */
#define KAI_JOB_SCRIPT_MAX   (100 * 1024) /* a Linux env string is < 128 KiB */
#define KAI_JOB_ARGS_MAX     256	      /* script arguments */
#define KAI_JOB_ENV_MAX	     4096	      /* exported variables */
#define KAI_JOB_ENV_BYTES    (512 * 1024) /* all exported variables together */
#define KAI_JOB_NTASKS_MAX   1024
#define KAI_JOB_CPUS_MAX     4096
#define KAI_JOB_GPUS_MAX     64
/* kai_jobspec.whole_node: what of its nodes a job takes whole. */
#define KAI_JOB_WHOLE_EXCL   1u /* --exclusive: the nodes, all of them */
#define KAI_JOB_WHOLE_MEM    2u /* --mem=0: all of each node's memory */
#define KAI_JOB_GPU_MEM_MAX  (16 * 1024 * 1024) /* MiB of one GPU: 16 TiB */
#define KAI_JOB_MEM_MAX      (1024 * 1024 * 1024) /* MiB per task: 1 PiB */

/* A yes / no option that may be left to its default. */
enum kai_tristate {
	KAI_TRI_DEFAULT = 0,
	KAI_TRI_YES = 1,
	KAI_TRI_NO = 2
};

/* --open-mode: how the output files are opened. */
enum kai_open_mode {
	KAI_OPEN_DEFAULT = 0,	/* not given: truncate, as Slurm's default */
	KAI_OPEN_TRUNCATE = 1,
	KAI_OPEN_APPEND = 2
};

#define KAI_JOB_SIGNAL_MAX	64	/* Linux's signal numbers */
#define KAI_JOB_SIGNAL_SECS_MAX 65535	/* sbatch's limit on @sig_time */

/*
 * The submitter's umask travels as KAI_JOB_UMASK_SET | umask, so that 0
 * (a zeroed spec, a client that does not send it) says "not known"
 * rather than "umask 0000".
 */
#define KAI_JOB_UMASK_SET 01000u
#define KAI_JOB_UMASK_MAX (KAI_JOB_UMASK_SET | 0777u)

#define KAI_PRIO_CLASS_DEFAULT "train"
#define KAI_PRIO_PREEMPT_BELOW 100 /* preemptible by default below this */
#define KAI_GPU_MICRO 1000000	   /* micro-GPUs in one GPU */

/* time_limit_s values with a meaning of their own */
#define KAI_TIME_UNSET	   (-1)	/* not given: kaid applies the default */
#define KAI_TIME_UNLIMITED 0	/* "0" or "UNLIMITED": no limit */

struct kai_jobspec {
	char *name;		/* -J; NULL = script file name */
	char *queue;		/* -p/-q; NULL = the default partition */
	char *account;		/* -A; NULL = none */
	char *script;		/* the batch script, NUL-terminated */
	char **argv;		/* script arguments */
	size_t argc;
	char **env;		/* "KEY=VALUE" exported to the job */
	size_t nenv;
	char *workdir;		/* -D; absolute */
	char *stdout_pattern;	/* -o; NULL = "slurm-%j.out" */
	char *stderr_pattern;	/* -e; NULL = same file as stdout */
	char *image;		/* --image; NULL = kaid's default */
	uint32_t ntasks;	/* -n: pods; 0 = 1 */
	uint32_t cpus_per_task; /* -c; 0 = 1 */
	uint64_t mem_mb;	/* --mem per task in MiB; 0 = kaid's default */
	uint32_t gpus_per_task; /* --gpus-per-task / --gres=gpu:N */
	int64_t time_limit_s;	/* KAI_TIME_UNSET, KAI_TIME_UNLIMITED or s */
	bool hold;		/* -H: submit held */
	/* scheduling options (jobsched.c); zero = the defaults */
	char *priority_class;	/* --priority; NULL = KAI_PRIO_CLASS_DEFAULT */
	uint32_t preempt;	/* enum kai_tristate: --[no-]preemptible */
	uint32_t requeue;	/* enum kai_tristate: --[no-]requeue */
	uint32_t min_tasks;	/* --min-tasks; 0 = every task */
	uint32_t ntasks_per_node; /* tasks that share one node, each group
				 * on a node of its own (-N, --ntasks-per-node);
				 * divides ntasks; 0 = tasks go anywhere */
	uint32_t gpus_per_node; /* --gres=gpu:N / --gpus-per-node: whole GPUs
				 * of each node group, spread over its tasks
				 * (kai_job_task_gpus); needs ntasks_per_node
				 * and gpus_per_task 0; 0 = none */
	uint32_t whole_node;	/* KAI_JOB_WHOLE_* bits: --exclusive, and
				 * --mem=0 (all of a node's memory); 0 = the
				 * job shares its nodes by its requests */
	uint32_t gpu_fraction;	/* --gpu-fraction in micro-GPUs; 0 = none */
	uint64_t gpu_memory_mb; /* --gpu-memory in MiB; 0 = none */
	char *topology;		/* --topology: a node label key; NULL = none */
	char *topology_preferred; /* --topology-preferred */
	/* --signal and --open-mode (daemons/kaid/podshim.c acts on them) */
	uint32_t signal_number;	/* 1..KAI_JOB_SIGNAL_MAX; 0 = no --signal */
	uint32_t signal_secs;	/* seconds before the time limit */
	bool signal_batch;	/* "B:": the batch shell only */
	uint32_t open_mode;	/* enum kai_open_mode */
	uint32_t umask;		/* KAI_JOB_UMASK_SET | the submitter's
				 * umask; 0 = not known */
	char *workload;		/* a Kubernetes-native workload's pod,
				 * "namespace/name" (doc/k8s-native.md):
				 * kaid binds it instead of making one;
				 * NULL = a batch job */
	char *qos;		/* -q/--qos, the job's quality of service;
				 * NULL = the site's default (kaid fills it) */
	char *gpu_type;		/* --gres=gpu:TYPE:N: its GPUs' type (the
				 * value of the node label kaid takes types
				 * from, doc/scheduler.md "GPU types");
				 * NULL = any */
	char *mail_type;	/* --mail-type as kai_mail_type_format()
				 * writes it; NULL = none (kaid stores
				 * "NONE") */
	char *mail_user;	/* --mail-user; NULL = the submitter's
				 * name (kaid fills it) */
	char *features;		/* -C/--constraint as written (Slurm's
				 * grammar, model/constraint.h); NULL = any
				 * node */
	char *node_req;		/* -w and -x: "NODELIST;EXCLUDE", host
				 * lists, either part empty
				 * (model/nodelists.h); NULL = none */
};

struct kai_jobinfo {
	uint64_t id;
	char *name;
	uint32_t uid;
	uint32_t gid;
	char *user;		/* user name (kaid resolves uid) */
	char *queue;		/* partition */
	char *account;		/* "" when none */
	enum kai_job_state state;
	char *reason;		/* pending reason as Slurm's code ("Resources"),
				 * or final reason; "" = none */
	char *why;		/* a pending reason as the scheduler's
				 * sentence; "" or NULL = none */
	int64_t submit_time;	/* unix seconds */
	int64_t start_time;	/* 0 = not started */
	int64_t end_time;	/* 0 = not ended */
	int64_t time_limit_s;	/* KAI_TIME_UNLIMITED or seconds */
	uint32_t ntasks;
	uint32_t cpus_per_task;
	uint64_t mem_mb;	/* per task */
	uint32_t gpus_per_task;
	uint32_t gpus_per_node;	/* as in struct kai_jobspec */
	uint32_t ntasks_per_node; /* as in struct kai_jobspec (node groups) */
	char *nodelist;		/* "gpu-a1,gpu-a2"; "" = none */
	int32_t exit_code;	/* exit status of the script, 0-255 */
	int32_t exit_signal;	/* signal that ended it, 0 = none */
	char *workdir;
	char *stdout_path;	/* patterns expanded */
	char *stderr_path;
	bool hold;
	uint32_t priority;
	char *array_id;		/* "123_4", "123_[5-99%10]"; NULL = no array */
	uint32_t tasks_run;	/* tasks started in its (last) run: ntasks,
				 * or fewer for an elastic job; 0 = none */
	int64_t est_start;	/* pending: estimated start; 0 = unknown */
	uint64_t gpu_micro;	/* GPUs allocated, started tasks, in
				 * micro-GPUs (fractions count as such);
				 * 0 = none */
	/* As in struct kai_jobspec; read from PostgreSQL only (kqueue's
	 * answers from kaid's memory leave them 0). */
	uint32_t signal_number;
	uint32_t signal_secs;
	bool signal_batch;
	uint32_t open_mode;	/* enum kai_open_mode */
	uint32_t umask;		/* as in struct kai_jobspec */
	char *workload;		/* as in struct kai_jobspec; "" = none */
	char *qos;		/* the job's QoS; "" = not known (a job
				 * recorded before there were QoS) */
	char *dependency;	/* pending: its dependency's items not met
				 * yet, each with its state, as squeue's %E
				 * shows them ("afterok:12(unfulfilled)");
				 * NULL or "" = none, or not known (kacct) */
	char *gpu_type;		/* as in struct kai_jobspec; "" = any */
	char *mail_type;	/* as stored: "NONE", "BEGIN,END"; "" = not
				 * known (a job recorded before mail) */
	char *mail_user;	/* as stored; "" = not known */
	char *features;		/* as in struct kai_jobspec; "" = none */
	char *node_req;		/* as in struct kai_jobspec; "" = none */
	char *exit_reason;	/* why its container ended, as the node said:
				 * "OOMKilled", "Error: <its termination
				 * message>"; read from PostgreSQL only;
				 * NULL or "" = none */
};

/*
 * A task's placement: which node and pod run task `task` of a job, and
 * what the pod last reported.  Owned by its struct kai_job.
 */
struct kai_alloc {
	uint32_t task;		/* 0 .. ntasks-1 */
	char *node;		/* node name */
	char *pod;		/* "kai-<jobid>-<task>" */
	uint32_t gpus;
	uint32_t cpus;
	uint64_t mem_mb;
	uint64_t gpu_mask;	/* devices the core chose (bit i = GPU i) */
	uint32_t gpu_fraction;	/* micro-GPUs on that device; 0 = whole */
};

/*
 * kaid's in-memory view of an active job: the scheduling fields only.  The
 * script and environment stay in PostgreSQL until the pods are built, so
 * that 10,000 pending jobs cost kilobytes, not megabytes.
 */
struct kai_job {
	uint64_t id;
	uint32_t uid;
	uint32_t gid;
	char *user;
	char *name;
	char *queue;
	char *account;		/* "" = none */
	char *workdir;		/* for kqueue %Z */
	enum kai_job_state state;
	uint32_t priority;	/* higher runs first */
	int64_t submit_time;	/* unix s */
	int64_t start_time;	/* unix s, 0 = not started */
	uint32_t ntasks;
	uint32_t cpus_per_task;
	uint64_t mem_mb;	/* per task */
	uint32_t gpus_per_task;
	int64_t time_limit_s;	/* KAI_TIME_UNLIMITED or s */
	bool hold;
	char *reason;		/* why pending, Slurm's code; "" = none yet */
	char *why;		/* the same as a sentence; "" = none */
	struct kai_alloc *allocs; /* nallocs == ntasks once placed */
	size_t nallocs;
	bool preemptible;
	bool requeue;		/* back to PENDING when preempted */
	uint32_t requeue_count;
	uint32_t min_tasks;	/* 0 = every task */
	uint32_t ntasks_per_node; /* node groups (kai_jobspec); 0 = none */
	uint32_t gpus_per_node;	/* GPUs of each node group (kai_jobspec) */
	uint32_t whole_node;	/* KAI_JOB_WHOLE_* (kai_jobspec) */
	uint32_t gpu_fraction;	/* micro-GPUs per task; 0 = none */
	uint64_t gpu_memory_mb; /* MiB of one GPU per task; 0 = none */
	char *topology;		/* required level; "" = none */
	char *topology_preferred; /* "" = none */
	char *workload;		/* "namespace/name" of a Kubernetes-native
				 * workload's pod (native.c); "" = none */
	char *qos;		/* its QoS; "" = none recorded */
	char *gpu_type;		/* its GPUs' type; "" or NULL = any */
	uint32_t mail_mask;	/* its KAI_MAIL_* types; 0 = none */
	uint32_t mail_sent;	/* notices claimed (jobs.mail_sent) */
	char *mail_user;	/* where its mail goes, as stored; "" or
				 * NULL = its user */
	char *features;		/* -C as written; "" or NULL = none */
	char *node_req;		/* -w;-x (model/nodelists.h); "" or NULL */
	/* Job arrays (daemons/kaid/arrays.c) and dependencies (deps.c). */
	uint64_t array_job_id;	/* the array's first id; 0 = no array */
	uint32_t array_task_id;	/* this record's task (not the remainder) */
	struct kai_array *array_pending; /* tasks not split off; NULL = one */
	char *array_spec;	/* all the array's tasks, as stored */
	char *dep_text;		/* canonical dependency; NULL = none */
	struct kai_dep *dep;	/* parsed dep_text; NULL = none or met */
	char *dep_left;		/* deps.c: the items not met, each with its
				 * state (squeue's %E); NULL = none */
	char *told_why;		/* native.c: the reason a Kubernetes-native
				 * job's pods were last told, and its code;
				 * NULL = none yet */
	char *told_code;
	int64_t told_at;	/* when (unix s) */
	bool kill_on_invalid_dep;
	const char *gate;	/* kaid's deps.c: why the scheduler may not
				 * see it this tick (static); NULL = may */
	int64_t est_start;	/* pending: the last tick's start estimate,
				 * unix s; 0 = none (kqueue --start) */
	int64_t not_before;	/* kaid: a requeued job waits until then,
				 * unix s, as Slurm holds one back (kept in
				 * memory only: a second); 0 = none */
};

void kai_job_fini(struct kai_job *job);

/*
 * The one empty string of kai_job's optional text fields (account,
 * topology, topology_preferred): most jobs leave them empty, and a heap
 * copy of "" each cost kaid about a megabyte at 10,000 pending jobs.
 * kai_job_fini() never frees it; nobody may write to it.
 */
extern char kai_job_empty[];
/* s for an optional text field: kai_job_empty for NULL or "", else a copy. */
char *kai_job_optstr(const char *s);

/*
 * Scheduling options (jobsched.c)
 */

/*
 * The priority of class name (KAI's classes: train 50, build-preemptible
 * 75, build 100, inference 125); KAI_EINVAL naming the classes otherwise.
 */
int kai_prio_class(const char *name, uint32_t *priority,
    struct kai_err *err) KAI_MUST_CHECK;
/* "train, build-preemptible, build, inference", static. */
const char *kai_prio_class_names(void);
/* Whether s is a Kubernetes label key ("[prefix/]name"). */
bool kai_label_key_ok(const char *s);
/*
 * Checks the scheduling options of js (the class, the tristates, the
 * fraction in (0, 1), fraction or memory without whole GPUs, min-tasks
 * within ntasks, topology levels that are label keys).  KAI_EINVAL with
 * one line naming the option otherwise.  Part of kai_jobspec_validate().
 */
int kai_jobspec_check_sched(const struct kai_jobspec *js,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Whole GPUs (jobgpus.c).  per_task and per_node are a job's
 * gpus_per_task and gpus_per_node, k its ntasks_per_node (0 = no node
 * groups).  A per-node count is spread over the k tasks of each group:
 * N / k each, and one more for the first N % k.
 */
/* The GPUs of task `task` (0-based) of the job. */
uint32_t kai_job_task_gpus(uint32_t per_task, uint32_t per_node, uint32_t k,
    uint32_t task);
/* The GPUs of all its ntasks tasks together (0 tasks count as 1). */
uint64_t kai_job_gpus(uint32_t per_task, uint32_t per_node, uint32_t k,
    uint32_t ntasks);
/* The GPUs of one node group (of one task when k is 0). */
uint32_t kai_job_node_gpus(uint32_t per_task, uint32_t per_node, uint32_t k);

void kai_alloc_fini(struct kai_alloc *a);

void kai_jobspec_fini(struct kai_jobspec *js);
void kai_jobinfo_fini(struct kai_jobinfo *ji);

/*
 * Checks a spec for what any kaid would refuse whatever its config: empty
 * script, lengths over the limits above, relative paths, zero-length names,
 * "=" missing in an env entry, counts over the maxima.  On failure returns
 * KAI_EINVAL with err naming the field: "script is empty",
 * "invalid ntasks 0: must be between 1 and 1024".
 */
int kai_jobspec_validate(const struct kai_jobspec *js, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * Checks that the output files of js (-o, -e, or Slurm's default) name
 * paths of at most KAI_JOB_PATH_MAX bytes once expanded for user, with
 * the job and array ids at their widest and made absolute against the
 * working directory: "%x" repeated in a 4 KiB pattern would otherwise
 * store a path of half a megabyte.  KAI_EINVAL: "invalid --output: the
 * path it names may be 70000 bytes long, over the limit of 4096".
 */
int kai_jobspec_check_output(const struct kai_jobspec *js, const char *user,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Parses a Slurm time limit in any of its six formats ("minutes",
 * "minutes:seconds", "hours:minutes:seconds", "days-hours",
 * "days-hours:minutes", "days-hours:minutes:seconds") or "UNLIMITED" /
 * "INFINITE" / "0" into seconds.  Seconds round up to whole minutes, as
 * Slurm does.  KAI_EINVAL with "invalid time limit \"%s\"" otherwise.
 */
int kai_time_limit_parse(const char *s, int64_t *seconds, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * Formats seconds the way squeue prints TIME and TIME_LIMIT:
 * "M:SS", "H:MM:SS", "D-HH:MM:SS"; "UNLIMITED" for KAI_TIME_UNLIMITED.
 * Writes at most size bytes including the NUL.
 */
void kai_time_format(int64_t seconds, char *out, size_t size);

/*
 * Parses a Slurm memory size: a bare number is MiB; K, M, G, T suffixes
 * with optional B, any case ("64G", "500mb", "1T").  Result in MiB, sizes
 * under 1 MiB round up.  KAI_EINVAL with "invalid memory size \"%s\"".
 */
int kai_mem_parse(const char *s, uint64_t *mib, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * Expands a Slurm file name pattern: %j job id, %x job name, %u user,
 * %% a percent, %J job id (the batch step's %J has no step part),
 * %A/%a array (job id / "0" outside an array), and what the batch step
 * gives the rest: %N the batch host (task 0's pod, whose name is its
 * hostname), %n and %t 0, %s the batch step's id (4294967291, as Slurm
 * prints SLURM_BATCH_SCRIPT).  A width after % zero-pads numbers ("%4j",
 * capped at 10 as Slurm does).  Other %-sequences (%q, ...) are kept as
 * they are.  Caller owns the result.
 */
char *kai_pattern_expand(const char *pattern, uint64_t jobid,
    const char *jobname, const char *user);
/*
 * The same for an array task: %A is array_id, %a is task (%j stays the
 * task's own job id, as in Slurm).  array_id 0 = not an array.
 */
char *kai_pattern_expand_array(const char *pattern, uint64_t jobid,
    const char *jobname, const char *user, uint64_t array_id, uint32_t task);

/*
 * The name of the pod that runs task `task` of job `job_id`, which is also
 * that task's hostname and its entry in SLURM_JOB_NODELIST:
 * "kai-JOBID-TASK".  Caller owns the result.
 */
char *kai_job_pod_name(uint64_t job_id, uint32_t task);

#endif /* KAI_MODEL_JOB_H */
