/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched_model.h: the scheduler core of the KAI class -- a snapshot goes
 * in, one cycle of decisions comes out.
 *
 * The core is a pure function (STYLE b1): no I/O, no clock (`now` is in
 * the snapshot), no randomness, no globals, no logging.  The same
 * snapshot always gives the same result, byte for byte.
 *
 * One cycle runs the configured phases in order (allocate, consolidation,
 * reclaim, preempt, stale-gang eviction by default), on a private copy of
 * the cluster state: an eviction in an early phase frees resources that
 * later placements may use, and such placements are reported as
 * "pipelined" (they wait for the evicted pods to go away).  The policy is
 * written up in doc/scheduler.md.
 *
 * Units, everywhere in this header:
 *	GPU	micro-GPUs (KAI_SCHED_GPU_UNIT = one whole GPU)
 *	CPU	millicores
 *	memory	MiB
 *	time	seconds (the same clock as `now`)
 *
 * Ownership: the snapshot and everything it points to are borrowed for
 * the call and never changed.  The result owns its arrays; release them
 * with kai_sched_result_fini().  Names in the result refer to the
 * snapshot by index, so the snapshot must outlive any use of the result.
 */
#ifndef KAI_SCHED_SCHED_MODEL_H
#define KAI_SCHED_SCHED_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_SCHED_GPU_UNIT        1000000 /* micro-GPUs in one GPU */
#define KAI_SCHED_UNLIMITED       (-1)    /* quota, limit, capacity */
#define KAI_SCHED_MAX_NODE_GPUS   64      /* devices are a 64-bit mask */
#define KAI_SCHED_MAX_LEVELS      INT8_MAX /* of a topology */
#define KAI_SCHED_MAX_JOBS        ((1u << 30) - 1) /* in one snapshot */
#define KAI_SCHED_MAX_POOLS       INT16_MAX  /* a job's pool is 16-bit */
#define KAI_SCHED_MAX_GPU_TYPES   (UINT16_MAX - 1) /* ... its GPU type */
#define KAI_SCHED_MAX_PHASES      8
#define KAI_SCHED_MAX_SUBGROUPS   4096    /* per job */
#define KAI_SCHED_NO_TIME         INT64_MIN /* "never" for timestamps */
#define KAI_SCHED_GRACE_DEFAULT   INT32_MIN /* use the config default */
#define KAI_SCHED_DEFAULT_GPU_MEM 100       /* MiB, when a node gives none */
#define KAI_SCHED_EST_JOBS        64        /* jobs given a start estimate */

enum kai_sched_res {
	KAI_SCHED_GPU = 0,
	KAI_SCHED_CPU,
	KAI_SCHED_MEM,
	KAI_SCHED_NRES
};

enum kai_sched_action {
	KAI_SCHED_ALLOCATE = 0,
	KAI_SCHED_CONSOLIDATE,
	KAI_SCHED_RECLAIM,
	KAI_SCHED_PREEMPT,
	KAI_SCHED_STALEGANG,
	KAI_SCHED_NACTIONS
};

enum kai_sched_placement {
	KAI_SCHED_BINPACK = 0, /* nodes: fewest free first; GPUs: pack */
	KAI_SCHED_SPREAD,      /* nodes: most free first; GPUs: spread */
	KAI_SCHED_FRAG         /* least growth of fragmentation (frag.c) */
};

struct kai_sched_config {
	enum kai_sched_placement placement;     /* node order */
	enum kai_sched_placement gpu_placement; /* device order of fractions */
	enum kai_sched_action phases[KAI_SCHED_MAX_PHASES]; /* run in order */
	size_t nphases; /* 0: fair shares only */
	double k_value; /* time-based fair share; <= 0: off */
	int64_t default_staleness_grace_s; /* < 0: stale gangs stay */
	uint32_t max_consolidation_moves;  /* tasks moved per pending job */
	uint32_t est_jobs; /* pending jobs given a start estimate; 0: none */
	uint32_t bf_reservations; /* backfill: jobs given a reservation */
	/* backfill: the most waiting jobs an allocate phase looks for a
	 * reservation for, found or not (Slurm's bf_max_job_test) */
	uint32_t bf_max_job_test;
};

/*
 * The defaults: binpack, pack, all five phases, k 1.0, grace 60 s, 16,
 * estimates for KAI_SCHED_EST_JOBS jobs, no backfill reservations (and
 * KAI_SCHED_BF_MAX_JOB_TEST jobs looked at for one when they are on).
 */
void kai_sched_config_init(struct kai_sched_config *c);
#define KAI_SCHED_BF_MAX_JOB_TEST 16

/* A queue's settings for one resource. */
struct kai_sched_qres {
	int64_t quota; /* guaranteed; -1 unlimited, 0 none */
	int64_t limit; /* hard cap; -1 none */
	double weight; /* share of the surplus; 0 = none */
	double usage;  /* decayed usage / decayed capacity, [0, 1] */
};

/*
 * A queue's GPU quota, limit and over-quota weight for one GPU type (a
 * value of the node label kaid takes types from, nvidia.com/gpu.product
 * by default; doc/scheduler.md, "GPU types").  A type a queue does not
 * name has quota 0, no limit and the queue's GPU weight; the GPU entry
 * of res[] still holds for all types together.
 */
struct kai_sched_qtype {
	const char *type;
	int64_t quota;	/* micro-GPUs; -1 unlimited, 0 none */
	int64_t limit;	/* micro-GPUs; -1 none */
	double weight;	/* < 0: the queue's GPU weight */
};

/*
 * Queues are listed in creation order: a lower index is an older queue
 * (the last tie-break everywhere).  A parent must come before its
 * children; only leaves hold jobs.
 */
struct kai_sched_snap_queue {
	const char *name;
	int32_t parent;   /* index, or -1 for a top-level queue */
	int64_t priority; /* surplus goes to higher first (100) */
	struct kai_sched_qres res[KAI_SCHED_NRES];
	int64_t preempt_min_runtime_s; /* -1: inherit (0 at the top) */
	int64_t reclaim_min_runtime_s; /* -1: inherit (0 at the top) */
	const struct kai_sched_qtype *types; /* per GPU type, names unique */
	size_t ntypes;
};

struct kai_sched_label {
	const char *key;
	const char *value;
};

/*
 * A node taint, and a toleration of a pool (kaid.yaml's partitions as
 * node pools): "" in a toleration's key (with exists), value or effect
 * matches every one.  Only NoSchedule and NoExecute taints keep tasks
 * off a node; PreferNoSchedule is a preference the core ignores.
 */
struct kai_sched_taint {
	const char *key;
	const char *value;
	const char *effect; /* "NoSchedule", "NoExecute", "PreferNoSchedule" */
};

struct kai_sched_toleration {
	const char *key;
	bool exists; /* operator Exists: any value */
	const char *value;
	const char *effect;
};

/*
 * The nodes a job may use: those whose labels include every selector
 * label and whose NoSchedule and NoExecute taints are all tolerated.
 */
struct kai_sched_pool {
	const char *name;
	const struct kai_sched_label *selector;
	size_t nselector;
	const struct kai_sched_toleration *tolerations;
	size_t ntolerations;
};

/*
 * Where a job may run by its own choice (Slurm's --constraint, --nodelist
 * and --exclude; doc/scheduler.md, "Node constraints").  A node may take
 * the job's tasks when it has every feature of one alternative (any node
 * when there are none), is among `only` when only_set, and is not among
 * `never`.  With match (Slurm's [a|b]) every node of the job satisfies
 * the same alternative.  Feature bits are the caller's: the snapshot's
 * nodes and requirements must agree on them (kaid numbers the features
 * the jobs name, at most 64 per cycle).
 */
struct kai_sched_nodereq {
	const char *text;      /* the constraint as written, for reasons */
	const uint64_t *alts;  /* each alternative's features */
	size_t nalts;	       /* 0: features do not matter */
	bool match;
	bool only_set;	       /* only[] restricts the nodes (-w) */
	const uint32_t *only;  /* node indices, ascending */
	size_t nonly;
	const uint32_t *never; /* node indices, ascending (-x) */
	size_t nnever;
};

struct kai_sched_snap_node {
	const char *name;       /* unique */
	uint32_t gpus;          /* whole GPUs, <= KAI_SCHED_MAX_NODE_GPUS */
	int64_t gpu_memory_mib; /* per GPU; <= 0 means 100 */
	int64_t cpu_millis;     /* -1: not tracked (unlimited) */
	int64_t memory_mib;     /* -1: not tracked (unlimited) */
	uint32_t held_gpus; /* whole GPUs held by pods not in the snapshot */
	int64_t held_cpu_millis;
	int64_t held_memory_mib;
	const struct kai_sched_label *labels;
	size_t nlabels;
	bool unschedulable; /* not Ready, or cordoned */
	const struct kai_sched_taint *taints;
	size_t ntaints;
	const char *gpu_type; /* its GPUs' type; NULL or "": none */
	uint64_t features; /* bit i: it has the cycle's feature i (the
			      bits of kai_sched_nodereq.alts) */
};

/* Topology levels are node label keys, widest first. */
struct kai_sched_topology {
	const char *name;
	const char *const *levels;
	size_t nlevels;
};

struct kai_sched_snap_user {
	const char *name;
	double usage; /* decayed GPU usage / decayed capacity */
};

/*
 * An account jobs are charged to, with its weight among the accounts
 * whose jobs share a leaf queue (Slurm's association shares: acctshare.c).
 */
struct kai_sched_snap_account {
	const char *name;
	int64_t weight; /* > 0 */
};

enum kai_sched_task_state {
	KAI_SCHED_TASK_PENDING = 0,
	KAI_SCHED_TASK_RUNNING,
	KAI_SCHED_TASK_RELEASING, /* terminating, still holds resources */
	KAI_SCHED_TASK_FAILED,    /* holds nothing, is not retried */
	KAI_SCHED_TASK_PIPELINED, /* output only: waits for releasing ones */
	KAI_SCHED_TASK_EVICTED    /* output only: evicted this cycle */
};

/*
 * One pod.  A task asks for whole GPUs, or for part of a GPU (by
 * fraction or by GPU memory), never both.  A share may span gpu_devices
 * distinct devices of one node (KAI's gpu-fraction-num-devices): the
 * fraction, or the memory, on each of them.  Running and releasing tasks
 * say where they are; gpu_mask names their devices (bit i = GPU i), and
 * 0 lets the core choose, as it would for a new placement.
 *
 * A million pending jobs hand the core some 3.5 million of these, so
 * the requests are 32-bit and the fields are ordered to leave no
 * padding: 32 bytes, one of them still free.  Builders fill the request
 * with kai_sched_task_request(), which refuses a figure above its
 * field's bound by name instead of letting it wrap, and then set
 * gpu_devices of a share (at most KAI_SCHED_MAX_NODE_GPUS, validate.c).
 */
#define KAI_SCHED_MAX_TASK_GPUS UINT8_MAX /* whole GPUs of one task */
#define KAI_SCHED_MAX_TASK_REQ  INT32_MAX /* millicores, MiB of one task */

struct kai_sched_snap_task {
	uint64_t gpu_mask;
	int32_t gpu_fraction;   /* micro-GPUs of one GPU, 0 = none */
	int32_t gpu_memory_mib; /* MiB of one GPU, 0 = none */
	int32_t cpu_millis;
	int32_t memory_mib;
	int32_t node;  /* node index when running or releasing */
	uint8_t gpus;  /* whole GPUs */
	uint8_t state; /* enum kai_sched_task_state: pending, running,
			  releasing or failed */
	uint8_t gpu_devices; /* a share's devices (<= 64); 0 or 1 = one */
};

/*
 * A subgroup of a job: KAI's PodGroup subGroups, a tree under the job
 * (doc/scheduler.md, "Subgroups").  A leaf (a subgroup no other names as
 * parent) holds ntasks of the job's tasks: the leaves in index order take
 * the job's tasks in order, and together take them all.  A leaf is
 * satisfied with min_member of its tasks running; a parent with
 * min_subgroup of its children satisfied (0: all of them); the job, the
 * root, with its own min_subgroup of its top-level subgroups.  A job with
 * subgroups starts only with its root satisfied (min_tasks is not read),
 * and a subgroup with a required level puts the tasks it places into one
 * domain of that level of the job's topology, within the job's own.
 */
struct kai_sched_subgroup {
	const char *name;      /* unique in its job */
	int32_t parent;        /* index among the job's subgroups (before
				  this one), or -1: the job itself */
	uint32_t min_member;   /* a leaf: tasks that must run; 0: none */
	uint32_t min_subgroup; /* a parent: children that must be
				  satisfied; 0: all */
	uint32_t ntasks;       /* a leaf: its tasks; 0 for a parent */
	int32_t required_level; /* in the job's topology, or -1 */
	int32_t preferred_level;
};

/*
 * The tree of job `job`: its subgroups subgroups[first_subgroup,
 * +nsubgroups), parents before their children, and the job's own
 * min_subgroup of its top-level subgroups (0: all).  Kept beside the
 * jobs, not in them, so that the many jobs without one pay nothing;
 * the trees are in ascending job order, at most one per job.
 */
struct kai_sched_job_tree {
	uint32_t job;
	uint32_t first_subgroup;
	uint32_t nsubgroups;
	uint32_t min_subgroup;
};

/*
 * Sets t's request: gpus whole GPUs, or gpu_fraction micro-GPUs or
 * gpu_memory_mib MiB of one GPU; cpu_millis millicores and memory_mib
 * MiB.  Returns 0, or KAI_EINVAL with err naming the field, its value
 * and its bound (KAI_SCHED_MAX_TASK_GPUS, KAI_SCHED_MAX_TASK_REQ) when a
 * figure is above what the snapshot holds; t is then unchanged.  Whether
 * the request makes sense (one kind of GPU request, a fraction below one
 * GPU) is checked by the cycle.
 */
int kai_sched_task_request(struct kai_sched_snap_task *t, uint64_t gpus,
    uint64_t gpu_fraction, uint64_t gpu_memory_mib, uint64_t cpu_millis,
    uint64_t memory_mib, struct kai_err *err) KAI_MUST_CHECK;

/*
 * One per job, a million of them at a million pending jobs: 64-bit
 * fields first, then 32-bit ones, the small ones last, so that nothing
 * is padding (96 bytes; 144 before).  A snapshot holds fewer than
 * UINT32_MAX tasks and KAI_SCHED_MAX_JOBS jobs, KAI_SCHED_MAX_POOLS pools
 * and KAI_SCHED_MAX_GPU_TYPES job GPU types (validate.c).
 */
struct kai_sched_snap_job {
	const char *name;
	int64_t created;      /* submission order; older first */
	int64_t stale_since;  /* below min_tasks since; KAI_SCHED_NO_TIME */
	int64_t started;      /* last start, for min runtime; NO_TIME = old */
	int64_t time_limit_s; /* runs at most this long; < 0: no limit */
	int32_t priority;     /* higher first */
	uint32_t first_task;  /* its tasks: tasks[first_task, +ntasks) */
	uint32_t ntasks;
	uint32_t queue;     /* a leaf queue */
	int32_t user;       /* index into users, -1 = none */
	int32_t account;    /* index into accounts, -1 = none */
	uint32_t min_tasks; /* gang minimum; 0 = every task */
	int32_t topology;   /* index, or -1 */
	int32_t staleness_grace_s; /* < 0 never; KAI_SCHED_GRACE_DEFAULT */
	uint32_t gpu_limit; /* 1 + index into gpu_limits: a cap on what
			       its group holds (qoslimit.c); 0: none */
	/* > 0: its tasks come in groups of this many consecutive tasks,
	 * each group on one node of its own, no two groups on one node
	 * (Slurm's --ntasks-per-node, and -N with -n); ntasks must be a
	 * multiple, the gang is every task and there is no topology.
	 * 0: each task goes anywhere. */
	uint32_t tasks_per_node;
	uint32_t nodereq; /* 1 + index into nodereqs; 0: any node */
	int16_t pool;     /* index into pools; -1: no selector, and no
			     taint tolerated */
	uint16_t gpu_type; /* 1 + index into gpu_types: GPUs of that type
			      only; 0: any */
	int8_t required_level; /* level index in the topology, or -1 */
	int8_t preferred_level;
	bool preemptible : 1;
	bool held : 1; /* never scheduled (JobHeldUser) */
	/* Slurm's --exclusive: no other job's task on a node that holds
	 * one of its tasks (exclusive.c); kaid gives it the whole node. */
	bool exclusive : 1;
};

/*
 * Defaults for building a snapshot: a top-level queue of priority 100
 * that guarantees and caps nothing (weight 1, min runtimes inherited); a
 * job with no user, topology, staleness, start time, time limit or GPU
 * cap (as a zeroed job has none), every
 * task in its gang; a pending task with no node.  Names, indices and requests are the
 * caller's to fill in.
 */
void kai_sched_queue_init(struct kai_sched_snap_queue *q);
void kai_sched_job_init(struct kai_sched_snap_job *j);
void kai_sched_task_init(struct kai_sched_snap_task *t);

struct kai_sched_snapshot {
	struct kai_sched_config config;
	const struct kai_sched_snap_node *nodes;
	size_t nnodes;
	const struct kai_sched_snap_queue *queues;
	size_t nqueues;
	const struct kai_sched_topology *topologies;
	size_t ntopologies;
	const struct kai_sched_snap_user *users;
	size_t nusers;
	const struct kai_sched_snap_account *accounts;
	size_t naccounts;
	const struct kai_sched_snap_job *jobs;
	size_t njobs;
	const struct kai_sched_snap_task *tasks;
	size_t ntasks;
	const struct kai_sched_pool *pools;
	size_t npools;
	/* Caps on the GPUs the jobs that name one hold together, in
	 * micro-GPUs (a QoS's per-user limit: qoslimit.c). */
	const int64_t *gpu_limits;
	size_t ngpu_limits;
	/* The jobs' own node requirements (Slurm's -C, -w, -x). */
	const struct kai_sched_nodereq *nodereqs;
	size_t nnodereqs;
	/* The GPU types jobs ask for (kai_sched_snap_job.gpu_type), each
	 * named (the nodes' and queues' types are names of their own). */
	const char *const *gpu_types;
	size_t ngpu_types;
	/* The jobs' subgroup trees (struct kai_sched_job_tree) and their
	 * subgroups. */
	const struct kai_sched_job_tree *trees;
	size_t ntrees;
	const struct kai_sched_subgroup *subgroups;
	size_t nsubgroups;
	int64_t now;
	/*
	 * Optional (NULL: none), one per job: a number that stands for the
	 * job as it is, for a cycle run through a context (kai_sched_cycle_ctx()
	 * keeps what a leaf queue's waiting jobs were told, and leaves them
	 * alone while nothing they depend on changed; doc/scheduler.md,
	 * "Incremental cycles: what is built").  Two jobs of two snapshots
	 * given to one context may have the same number only when their
	 * entries are the same: the job's fields, its tasks' (in order),
	 * and what they index or point to (names may be other copies of
	 * equal strings).  Indices may move between snapshots; the order of
	 * a queue's jobs must not.  A caller that cannot say leaves it NULL
	 * and gets a cycle over every job.
	 */
	const uint64_t *job_gen;
};

/* The GPU type job j of s asks for, or NULL (any). */
const char *kai_sched_job_gpu_type(const struct kai_sched_snapshot *s,
    size_t j);

/* Why a job is left pending or was evicted. */
enum kai_sched_why {
	KAI_SCHED_WHY_NONE = 0,
	KAI_SCHED_WHY_HELD,        /* held by its user */
	KAI_SCHED_WHY_NO_NODES,    /* no schedulable node at all */
	KAI_SCHED_WHY_NEVER_FITS,  /* a task exceeds every node: a=need,
				      b=most; c=1 MiB, 2 a share's devices */
	KAI_SCHED_WHY_LIMIT,       /* queue at its limit: queue, res, a=limit */
	KAI_SCHED_WHY_NP_QUOTA,    /* non-preemptible over quota: a=quota */
	KAI_SCHED_WHY_RESOURCES,   /* res, a=need per node, b=most free;
				      a share: c=its devices, a=per device,
				      b=1 when a is MiB */
	KAI_SCHED_WHY_PRIORITY,    /* a=jobs ahead of it in its queue */
	KAI_SCHED_WHY_GANG,        /* a=min tasks, b=how many fit */
	KAI_SCHED_WHY_TOPOLOGY,    /* a=topology, b=level, c=tasks */
	KAI_SCHED_WHY_HIGHER_PRIO, /* a=running higher-priority jobs */
	KAI_SCHED_WHY_PREEMPTED,   /* evicted for job, in the same queue */
	KAI_SCHED_WHY_RECLAIMED,   /* evicted for job; queue, a=alloc, b=fs */
	KAI_SCHED_WHY_STALE,       /* a=min tasks, b=stale for, c=grace */
	KAI_SCHED_WHY_RESERVED,    /* a=reserved start, b=nodes */
	KAI_SCHED_WHY_BACKFILL,    /* would delay job's reservation at a */
	KAI_SCHED_WHY_NO_POOL_NODES, /* no schedulable node of its pool */
	KAI_SCHED_WHY_QOS_GPUS,    /* its gpu_limit: a=cap, b=held, c=need */
	KAI_SCHED_WHY_TYPE_LIMIT,  /* queue at its limit of job's GPU type:
				      queue, job, a=limit, b=alloc, c=need */
	KAI_SCHED_WHY_TYPE_NP_QUOTA, /* the same for the type's quota */
	KAI_SCHED_WHY_NO_TYPE_NODES, /* no schedulable node of job's type */
	KAI_SCHED_WHY_NODE_GROUP,  /* a=tasks per node, b=nodes that can
				      hold them, c=nodes needed */
	KAI_SCHED_WHY_NO_REQ_NODES, /* no schedulable node meets job's
				      nodereq: a=its index */
	KAI_SCHED_WHY_NO_FEATURE_NODES, /* ... no node at all has the
					  features it asks for: a=its index */
	KAI_SCHED_WHY_EXCLUSIVE,   /* --exclusive: no node free of other
				      jobs has room for a task */
	KAI_SCHED_WHY_SUBGROUP,    /* a subgroup's tasks do not fit:
				      c=subgroup, a=tasks, b=how many fit */
	KAI_SCHED_WHY_SUBGROUP_SHORT, /* a subgroup has too few tasks:
				      c=subgroup, a=min_member, b=tasks */
	KAI_SCHED_WHY_SUBGROUPS,   /* too few children can be satisfied:
				      c=subgroup (-1: the job), a=needed,
				      b=satisfied at most */
	KAI_SCHED_WHY_NCODES
};

struct kai_sched_why_info {
	enum kai_sched_why why;
	enum kai_sched_res res; /* the resource concerned */
	int32_t queue;          /* the queue concerned, or -1 */
	int32_t job;            /* the other job (preemptor...), or -1 */
	int64_t a, b, c;        /* numbers for the text, see the codes */
};

enum kai_sched_job_state {
	KAI_SCHED_JOB_PENDING = 0,
	KAI_SCHED_JOB_RUNNING, /* a task running or pipelined */
	KAI_SCHED_JOB_EVICTED, /* its tasks were evicted this cycle */
	KAI_SCHED_JOB_FAILED
};

/*
 * One per task and one per job, so a million pending jobs make millions
 * of these: a task's in 16 bytes (what it holds on one device is at most
 * one GPU, 20 bits; its state is below 8), a job's fields ordered so
 * that no padding grows it, 56 bytes.
 */
struct kai_sched_task_out {
	uint64_t gpu_mask;          /* devices used */
	int32_t node;               /* -1 when not placed */
	unsigned gpu_fraction : 24; /* micro-GPUs on its device; 0 = whole
				       GPUs */
	unsigned state : 7;         /* enum kai_sched_task_state */
	bool moved : 1;             /* a running task moved by
				       consolidation */
};

struct kai_sched_job_out {
	enum kai_sched_job_state state;
	uint32_t placed_tasks; /* tasks placed this cycle */
	/* NONE for running jobs, but for one that lost elastic tasks */
	struct kai_sched_why_info why;
	int64_t est_start; /* estimated start (estimate.c); NO_TIME: none */
};

struct kai_sched_queue_out {
	int64_t fair_share[KAI_SCHED_NRES]; /* -1: resource not tracked */
	int64_t allocated[KAI_SCHED_NRES];  /* at the end of the cycle */
	int64_t requested[KAI_SCHED_NRES];  /* at the start */
};

/* One queue's figures for one GPU type, in micro-GPUs. */
struct kai_sched_type_out {
	int64_t fair_share;
	int64_t allocated; /* at the end of the cycle */
	int64_t requested; /* at the start: allocated + jobs naming it */
};

struct kai_sched_result {
	struct kai_sched_task_out *tasks;   /* one per snapshot task */
	struct kai_sched_job_out *jobs;     /* one per snapshot job */
	struct kai_sched_queue_out *queues; /* one per snapshot queue */
	size_t ntasks, njobs, nqueues;
	/*
	 * The GPU types of the cycle, in name order: those of the nodes,
	 * the queues and the jobs (names borrowed from the snapshot), and
	 * per queue and type [q * ntypes + t] its figures.
	 */
	const char **types;
	size_t ntypes;
	struct kai_sched_type_out *qtypes;
	size_t placed;  /* tasks placed (running or pipelined) */
	size_t evicted; /* tasks evicted */
	size_t moved;   /* tasks moved by consolidation */
	struct kai_sched_ctx *ctx; /* where fini hands the arrays back */
};

/*
 * Runs one cycle.  Returns 0 and fills r, or KAI_EINVAL when the
 * snapshot is inconsistent (err names the job, task, node or queue and
 * the reason: a running task on a node without room, a job in a parent
 * queue, a cycle of parents, ...); r is then empty.
 */
int kai_sched_cycle(const struct kai_sched_snapshot *s,
    struct kai_sched_result *r, struct kai_err *err) KAI_MUST_CHECK;
void kai_sched_result_fini(struct kai_sched_result *r);

/*
 * A scheduler context: what one cycle keeps for the next, for a caller
 * that runs cycle after cycle (kaid).  It keeps the cycle's large
 * working arrays and the result's, so that a cycle over a million jobs
 * does not fault in and zero hundreds of MiB afresh (ctx.c); and, when
 * the snapshots carry job numbers (job_gen), what closed leaf queues'
 * waiting jobs were told, so that the next cycle leaves alone the ones
 * nothing changed for (incr.c).  Either way a cycle's result depends on
 * its snapshot only, with a context or without, byte for byte.
 *
 * kai_sched_cycle_ctx() is kai_sched_cycle() with the context c; a
 * result it gives must be finished (kai_sched_result_fini()) before c is
 * freed.  One context serves one cycle at a time.
 */
struct kai_sched_ctx;

struct kai_sched_ctx *kai_sched_ctx_new(void);
void kai_sched_ctx_free(struct kai_sched_ctx *c);
int kai_sched_cycle_ctx(struct kai_sched_ctx *c,
    const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct kai_err *err) KAI_MUST_CHECK;
/* Bytes the context keeps between cycles (for the benchmark). */
size_t kai_sched_ctx_kept(const struct kai_sched_ctx *c);
/*
 * Jobs the last cycle through c left alone (their results the kept
 * ones; 0 after a cycle over every job), for the benchmark and tests.
 */
size_t kai_sched_ctx_left_out(const struct kai_sched_ctx *c);

/*
 * After the phases, a cycle estimates when pending jobs will start
 * (est_start in the result; doc/scheduler.md, "Start estimates"): the
 * first config.est_jobs pending jobs in allocation order are placed
 * again, in order, as running jobs end at started + time_limit_s (and
 * the estimated ones at their estimate + theirs).  A job placed this
 * cycle has est_start = now; a held job, one at a queue limit or quota,
 * one that never fits, and one whose turn never comes within the
 * replay's bounds has none.
 */

/*
 * Backfill (config.bf_reservations > 0; doc/scheduler.md, "Backfill"):
 * in the allocate phase, the first bf_reservations jobs in allocation
 * order that cannot start for lack of resources (and run nothing) each
 * get a reservation: the devices, CPU and memory they would be given at
 * the earliest time they fit, as running jobs end by their time limits
 * (started + time_limit_s; a job placed this cycle at now + its limit)
 * and earlier reservations hold theirs.  Such a job is pending with
 * KAI_SCHED_WHY_RESERVED and est_start = that time.  A later job may take
 * a reserved device, or CPU or memory a reservation needs on its node,
 * only if its own time limit ends it by the reservation's start (a job
 * without a limit never does); one that could start but for that is
 * pending with KAI_SCHED_WHY_BACKFILL.  Reservations bind the allocate
 * phase and the start estimates only: consolidation, reclaim and
 * preempt follow their own rules.  Nothing is kept between cycles.
 */

/*
 * The user-facing explanation of w, e.g. `queue "research" is at its GPU
 * limit (8)`, written into buf (always NUL-terminated); returns buf.
 */
const char *kai_sched_why_text(const struct kai_sched_snapshot *s,
    const struct kai_sched_why_info *w, char *buf, size_t size);

/* A Slurm-style short name for w ("Resources", "Priority", ...), static. */
const char *kai_sched_why_name(enum kai_sched_why w);

/* Whether a and b are one reason: the same code, queue, job and figures. */
bool kai_sched_why_equal(const struct kai_sched_why_info *a,
    const struct kai_sched_why_info *b);

/* "pending", "running", ... as FORMAT.md spells them; static. */
const char *kai_sched_task_state_name(enum kai_sched_task_state s);
const char *kai_sched_job_state_name(enum kai_sched_job_state s);

/*
 * Micro-GPUs as a decimal number of GPUs with no trailing zeros
 * (2000000 -> "2", 500000 -> "0.5", -1000000 -> "-1") into buf.
 */
void kai_sched_fmt_gpu(int64_t ugpu, char *buf, size_t size);

/* "allocate", "consolidation", ...; NULL when out of range. */
const char *kai_sched_action_name(enum kai_sched_action a);

#endif /* KAI_SCHED_SCHED_MODEL_H */
