/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched_int.h: the working state of one scheduling cycle, shared by the
 * core's files (never included outside src/sched).
 *
 * Everything is an array sized from the snapshot and indexed by the
 * snapshot's own indices (node i, queue q, job j, task t); nothing is
 * allocated per object while the phases run except the undo log, which
 * grows by doubling.  Devices of all nodes live in two flat arrays
 * (dalloc, drel) and node n owns [gpu0, gpu0 + ngpu).
 *
 * Accounting invariants, kept by stmt.c and nothing else:
 *	- dalloc[d] is what active tasks (running, pipelined, placed this
 *	  cycle) hold on device d, in micro-GPUs; drel[d] is what releasing
 *	  and evicted tasks still hold.  dalloc + drel <= GPU_UNIT.
 *	- a device held by a whole-GPU task has dalloc or drel = GPU_UNIT,
 *	  so fractions and whole GPUs never share a device.
 *	- queue alloc[] (leaf and every ancestor) sums the active tasks of
 *	  its jobs; releasing and evicted tasks no longer count.
 *	- the node index (nodeidx.c) reflects every node's idle capacity.
 * Every change goes through stmt.c, which logs it, so an attempt can be
 * rolled back exactly (KAI's Statement).
 */
#ifndef KAI_SCHED_SCHED_INT_H
#define KAI_SCHED_SCHED_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched_model.h"

#define GPU_UNIT KAI_SCHED_GPU_UNIT
#define NRES     KAI_SCHED_NRES
#define R_GPU    KAI_SCHED_GPU
#define R_CPU    KAI_SCHED_CPU
#define R_MEM    KAI_SCHED_MEM
#define BIG      (INT64_MAX / 8) /* capacity of an untracked resource */
#define NONE32   UINT32_MAX

/* heap.c: a binary heap of ids with optional positions (for re-keying). */
typedef bool kai_sched_before_fn(const void *ctx, uint32_t a, uint32_t b);

struct kai_sched_heap {
	uint32_t *a; /* items, caller's storage */
	uint32_t n;
	uint32_t *pos; /* pos[id] = index in a or NONE32; or NULL */
	kai_sched_before_fn *before;
	const void *ctx;
};

void kai_sched_heap_init(struct kai_sched_heap *h, uint32_t *a, uint32_t *pos,
    kai_sched_before_fn *before, const void *ctx);
void kai_sched_heap_build(struct kai_sched_heap *h);
void kai_sched_heap_push(struct kai_sched_heap *h, uint32_t id);
uint32_t kai_sched_heap_top(const struct kai_sched_heap *h);
void kai_sched_heap_pop(struct kai_sched_heap *h);
/* The key of id changed: restore the order (needs pos). */
void kai_sched_heap_fix(struct kai_sched_heap *h, uint32_t id);
void kai_sched_heap_remove(struct kai_sched_heap *h, uint32_t id);
bool kai_sched_heap_has(const struct kai_sched_heap *h, uint32_t id);

/* nodeidx.c: nodes bucketed by idle whole GPUs, searchable by name. */
struct kai_sched_nodeidx {
	uint32_t nb;      /* buckets: idle whole GPUs 0..nb-1 */
	uint32_t p;       /* leaves per tree, a power of two */
	int32_t *room;    /* nb trees of 2p: max idle room (uGPU) */
	int32_t *cpu;     /* ... max idle CPU (millicores, capped) */
	int32_t *mem;     /* ... max idle memory (MiB, capped) */
	uint32_t *count;  /* nodes per bucket */
	uint32_t *bucket; /* by rank: bucket, or NONE32 */
};

void kai_sched_idx_init(struct kai_sched_nodeidx *ix, uint32_t nranks,
    uint32_t max_gpus);
void kai_sched_idx_fini(struct kai_sched_nodeidx *ix);
void kai_sched_idx_set(struct kai_sched_nodeidx *ix, uint32_t rank,
    uint32_t bucket, int64_t room, int64_t cpu, int64_t mem);
/* First rank >= from in bucket whose maxima reach the needs, or -1. */
int64_t kai_sched_idx_find(const struct kai_sched_nodeidx *ix, uint32_t bucket,
    uint32_t from, int64_t room, int64_t cpu, int64_t mem);

/* Tasks held on a node, and how many of them an exclusive job's. */
struct excl_count {
	uint32_t tasks; /* tasks of any job */
	uint32_t excl;  /* of them, tasks of exclusive jobs */
	uint32_t job;   /* the exclusive job (valid while excl > 0);
			   UINT32_MAX: several (releasing) */
};

struct snode {
	uint32_t rank; /* position in name order */
	uint32_t gpu0; /* first device in dalloc/drel */
	uint32_t ngpu;
	int64_t gmem;        /* MiB per GPU */
	int64_t cap[NRES];   /* CPU, memory (GPU unused); BIG untracked */
	int64_t alloc[NRES]; /* CPU, memory held by active tasks */
	int64_t rel[NRES];   /* ... by releasing and evicted tasks */
	uint32_t whole_idle; /* devices with nothing on them */
	int32_t room;        /* largest idle room on a shared device */
	int64_t idle_ugpu;   /* free on all its devices */
	bool ok;             /* schedulable */
	bool has_rel;        /* something is releasing here */
	bool in_rellist;     /* listed in sess.relnodes */
	uint32_t ver;        /* bumped at every change (frag.c caches) */
	struct excl_count ex_act; /* active tasks (exclusive.c) */
	struct excl_count ex_rel; /* releasing and evicted ones */
};

/*
 * One per task, 3.5 million of them at a million pending jobs: packed
 * into 16 bytes (24 unpacked).  What a task holds on one device is at
 * most GPU_UNIT, which 24 bits hold; the state is below 8.
 */
struct stask {
	uint64_t mask; /* devices */
	int32_t node;
	unsigned ugpu : 24;  /* held per device (GPU_UNIT for whole) */
	unsigned state : 4;  /* enum kai_sched_task_state */
	unsigned fresh : 1;  /* placed this cycle */
	unsigned moved : 1;  /* running task re-placed by consolidation */
};
_Static_assert(GPU_UNIT < (1 << 24), "stask.ugpu holds GPU_UNIT");
_Static_assert(KAI_SCHED_TASK_EVICTED < 16, "stask.state holds a state");
/* The result's task array is the session's, written over in place at
 * the end of the cycle (cycle.c). */
_Static_assert(sizeof(struct stask) == sizeof(struct kai_sched_task_out),
    "a session task and a result task take the same room");

/* A job's reason is kept in the result, r->jobs[j].why, not here. */
struct sjob {
	uint32_t queue;
	uint32_t group;   /* (leaf, user) group */
	uint32_t min;     /* effective gang minimum */
	uint32_t nactive; /* running, pipelined, placed */
	uint32_t npending;
	uint32_t nplaced;   /* placed this cycle */
	uint32_t nevicted;  /* evicted this cycle */
	uint32_t nmoved;    /* moved by consolidation this cycle */
	bool static_fail : 1; /* never schedulable this cycle (why set) */
	bool sreq_ok : 1;     /* the step fields below are up to date */
	/* The job's own, copied here (in what was padding) so that the
	 * allocate step of a job that cannot run reads this entry only,
	 * not the snapshot's too: two cache misses a job less. */
	bool preemptible : 1;
	bool topo : 1;  /* it has a topology constraint or subgroups */
	bool holds : 1; /* a task of it was not pending at the start
			   (incr.c: read here, not from every task) */
	/* Set from the tasks as the phases left them (cycle.c), before
	 * the start estimates change the session: */
	bool pipe : 1;    /* its fresh tasks are reported pipelined */
	bool touched : 1; /* a task of it was evicted or moved */
	bool releasing : 1; /* a task of it is releasing (for the
			       estimate's replay) */
	uint32_t sn;        /* tasks in the next step (gang.c) */
	int64_t sreq[NRES]; /* ... their request */
	uint64_t sh1, sh2;  /* ... two hashes of their shape (memo.c) */
};

/* The queue comparator's inputs (order.c), cached per queue. */
struct qkey {
	bool over;        /* over fair share in all it uses */
	bool under_quota; /* alloc + job <= quota in all */
	bool zero_pen;    /* uses a resource with allocatable 0 */
	int64_t prio;
	double dsw;  /* dominant share with the job */
	double dswo; /* ... without it */
};

struct squeue {
	int32_t parent;
	uint32_t depth;  /* 0 for top-level queues */
	uint32_t child0; /* children: qchild[child0, +nchild) */
	uint32_t nchild;
	bool leaf;
	int64_t fs[NRES]; /* fair share; -1 when untracked */
	int64_t alloc[NRES];
	int64_t alloc_np[NRES]; /* non-preemptible jobs only */
	int64_t req[NRES];      /* allocated + pending at the start */
	int64_t as[NRES];       /* allocatable share */
	int64_t pmin, rmin;     /* effective min runtimes, s */
	struct qkey key;
	int64_t kreq[NRES]; /* the request the key was computed with */
	bool kdirty;        /* alloc changed since the key was made */
	int32_t rep;        /* representative pending job, or -1 */
	/* No limit, no quota, on it or above it (fairshare.c, once a
	 * cycle): admission then skips that walk up the tree. */
	bool no_limit, no_quota;
};

struct sgroup {
	uint32_t leaf;
	int32_t user;
	int32_t account;   /* the snapshot's account index, -1 = none */
	int32_t slot;      /* its (leaf, account) in acctshare.c, or -1 */
	int64_t alloc_gpu; /* uGPU the group's jobs hold */
};

enum undo_kind {
	UNDO_PLACE = 0,
	UNDO_EVICT = 1,
	UNDO_RELEASE = 2,
	UNDO_UNMOVE = 3 /* a moved task's old place freed; prev: that place */
};

struct undo {
	uint32_t task;
	uint8_t kind;
	struct stask prev;
};

/* estimate.c: a time the replay frees something: job's end, or
 * (job NONE32) a reservation's. */
struct kai_sched_est_ev {
	int64_t t;
	uint32_t job;
};

struct kai_sched_topo;
struct kai_sched_order;
struct kai_sched_bf;
struct kai_sched_frag;
struct kai_sched_gtypes;
struct kai_sched_inc_run;

struct sess {
	struct kai_sched_ctx *ctx; /* where the large arrays come from */
	const struct kai_sched_snapshot *s;
	const struct kai_sched_config *cf;
	struct kai_sched_result *r;
	/* nodes and devices */
	struct snode *nodes;
	uint32_t nn;
	uint32_t *by_rank; /* rank -> node */
	int32_t *dalloc, *drel;
	uint32_t max_gpus;
	int64_t min_gmem, max_gmem; /* over GPU nodes */
	bool any_ok;                /* a schedulable node exists */
	/* Every node that had has_rel in this cycle, once each: a node
	 * whose releasing ended (or was rolled back) stays listed, so
	 * kai_sched_releasing() asks each. */
	uint32_t *relnodes;
	uint32_t nrel;
	struct kai_sched_nodeidx idx;
	int64_t idle_ugpu;   /* idle GPU on schedulable nodes */
	int64_t total[NRES]; /* schedulable capacity, -1 untracked */
	/* queues, jobs, tasks, groups */
	struct squeue *q;
	uint32_t nq;
	uint32_t *qchild;
	uint32_t *top; /* top-level queues */
	uint32_t ntop;
	struct sjob *jobs;
	struct stask *tasks;
	uint32_t *task_job; /* task -> job */
	struct sgroup *groups;
	uint32_t ng;
	/* acctshare.c: per (leaf, account) slot, the GPUs its groups hold
	 * and its groups (slot_grp[slot_at[s] .. slot_at[s + 1])) */
	int64_t *slot_gpu;
	uint32_t *slot_at, *slot_grp;
	uint32_t nslots;
	/* change tracking for the orderings */
	uint8_t *qdirty;
	uint32_t *qdirty_list;
	uint32_t nqdirty;
	uint8_t *gdirty;
	uint32_t *gdirty_list;
	uint32_t ngdirty;
	/* the undo log */
	struct undo *log;
	size_t nlog, caplog;
	/* scratch, sized from the snapshot */
	uint32_t *scratch_tasks;     /* a step's tasks */
	uint32_t *scratch_tasks2;    /* another job's, to compare */
	uint32_t *scratch_nodes;     /* a domain's nodes */
	uint8_t *scratch_nflag;      /* per node, nodegroup.c */
	int64_t *scratch_pref;       /* per node preference */
	struct kai_sched_topo *topo; /* per topology level, lazily */
	struct kai_sched_sgs *sg;    /* subgroup.c, when a job has some */
	/* victim lists: per leaf, preemptible running jobs, victim order */
	uint32_t *vjobs;
	uint32_t *vstart;  /* per queue: vjobs[vstart[q], vstart[q+1]) */
	uint32_t *blocked; /* per leaf: jobs left waiting for resources */
	uint8_t *closed;   /* per leaf: closed in this allocate (closed.c) */
	bool closed_rel;   /* ... none, as something was releasing */
	bool keep_closed;  /* tests: with reservations, no leaf closed
			      (the rule before the switch, allocate.c) */
	bool keep_order;   /* tests: no leaf by leaf once the cluster is
			      full (allocate.c, filled()) */
	uint32_t nfilled;  /* jobs the allocate phase decided leaf by leaf
			      once the cluster was full (tests) */
	bool allocated;    /* the allocate phase has run */
	struct kai_sched_order *ordmem; /* order arrays kept between phases */
	uint32_t *est_cand; /* estimate.c: allocate's first failed jobs */
	uint32_t nest_cand;
	/* estimate.c, from kai_sched_est_held(): the running jobs' ends,
	 * and the jobs with releasing or evicted tasks */
	struct kai_sched_est_ev *est_ends;
	uint32_t *est_rel;
	uint32_t nest_ends, capest_ends, nest_rel, capest_rel;
	/* stmt.c: the committed moves (consolidation's), each its log
	 * entry: the task, and prev where it was evicted from, releasing
	 * on that node under no task until the cycle ends; the replays
	 * free them at now (kai_sched_release_moved()) */
	struct undo *moved_from;
	uint32_t nmoved_from, capmoved_from;
	struct kai_sched_frag *frag; /* frag.c, with the frag placement */
	/* backfill.c: this cycle's reservations */
	struct kai_sched_bf *bf; /* NULL until the first one */
	struct kai_sched_bfbase *bfbase; /* backfill.c: the replays' start
					    in this allocate phase */
	bool bf_on;              /* placements respect them now */
	uint32_t bf_tested;      /* jobs looked at for one this phase */
	int64_t bf_clock;        /* placements start at (now, or replayed) */
	uint32_t bf_job;         /* the job being placed ... */
	int64_t bf_t;            /* ... runs from */
	int64_t bf_end;          /* ... until (INT64_MAX: for ever) */
	/* pools.c: [(pool + 1) * nn + node] node takes the pool's tasks */
	uint8_t *pool_ok;
	uint32_t *pool_nodes; /* [pool + 1]: schedulable nodes it may use */
	uint32_t nok;	      /* schedulable nodes */
	/* qoslimit.c: what each GPU cap's jobs hold (uGPU); NULL = none */
	int64_t *lim_alloc;
	struct kai_sched_gtypes *gt; /* gputype.c; NULL: no GPU types */
	/* nodereq.c: per nodereq the schedulable nodes it allows, and
	 * the nodes (any) with its features; per job of a matching OR the
	 * alternatives its active nodes all satisfy; the alternative
	 * kai_sched_try_step() is trying for try_job (-1: none) */
	uint32_t *req_nodes, *req_feat;
	uint64_t *open;
	int64_t try_job;
	int32_t try_alt;
	int32_t *qtype;		     /* per queue: its key's type (order.c) */
	struct kai_sched_inc_run *inc; /* incr.c: a cycle fed by a kept
					  state; NULL otherwise */
	/* victims.c: vjobs was built with nothing uncommitted, so a later
	 * build only drops the jobs that are no longer victims */
	bool vkept;
	/* victims.c: the jobs with an active task that the victim lists
	 * were last built from, if with nothing uncommitted (else NULL):
	 * no other job has a task running since before the cycle, then or
	 * later (stalegang.c).  In vjobs' block, freed with it. */
	uint32_t *vact;
	uint32_t nvact;
	/* sess_jobs.c -> session.c: the tasks that hold something (running,
	 * releasing), found in the jobs' pass, laid out by layout() */
	uint32_t *held;
	size_t nheld;
	/* sess_jobs.c: the jobs whose sums, static reason and first step
	 * wait for the lay-out (all of them unless `early`), and the
	 * nodes' largest figures per pool those reasons compare with */
	bool early;
	uint32_t *late;
	size_t nlate;
	struct sess_maxima *maxima;
};

/*
 * ctx.c: zeroed arrays for the session, kept by the context between
 * cycles when large (c may be NULL: plain calloc and free).  Only
 * kai_sched_free() gives back what kai_sched_calloc() gave.
 */
void *kai_sched_calloc(struct kai_sched_ctx *c, size_t n, size_t size);
/* The same, for a caller that writes every byte: a reused block is not
 * zeroed first (a fresh one is). */
void *kai_sched_alloc_dirty(struct kai_sched_ctx *c, size_t n, size_t size);
void kai_sched_free(struct kai_sched_ctx *c, void *p);
/* The cycle is over: release blocks it did not use. */
void kai_sched_ctx_trim(struct kai_sched_ctx *c);

/*
 * cycle.c: one cycle; the result's arrays come from rctx (NULL: malloc).
 * With inc, the session carries it and incr.c sees the session before
 * it is closed (kai_sched_inc_capture()).
 */
int kai_sched_cycle_run(struct kai_sched_ctx *c, struct kai_sched_ctx *rctx,
    const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct kai_sched_inc_run *inc, struct kai_err *err) KAI_MUST_CHECK;

/*
 * ctx.c, incr.c: the kept state of the leaves left alone (struct
 * kai_sched_inc), hung on the context.
 */
struct kai_sched_inc;
struct kai_sched_inc **kai_sched_ctx_inc(struct kai_sched_ctx *c);
void kai_sched_inc_free(struct kai_sched_inc *k);
size_t kai_sched_inc_left_out(const struct kai_sched_inc *k);
/* A cycle through c for a snapshot with job_gen (kai_sched_cycle_ctx). */
int kai_sched_inc_cycle(struct kai_sched_ctx *c,
    const struct kai_sched_snapshot *s, struct kai_sched_result *r,
    struct kai_err *err) KAI_MUST_CHECK;
/* The left-out jobs' pending requests in leaf q, added to its req. */
void kai_sched_inc_extra(const struct sess *S, uint32_t q, int64_t v[NRES]);
/* Leaves left alone must stay so; called when a phase decides which
 * jobs it takes (allocate: at its end).  Marks the run to be redone
 * over every job when one would not. */
void kai_sched_inc_phase(struct sess *S, enum kai_sched_action a);
/* cycle.c: the fair shares are divided (their number for records). */
void kai_sched_inc_shares(struct sess *S);
/* allocate.c: job j is taken next in its closed leaf's order. */
void kai_sched_inc_head(struct sess *S, uint32_t j);
/* allocate.c: waiting jobs ahead of j that the cycle left out. */
uint32_t kai_sched_inc_ahead(const struct sess *S, uint32_t j);
/* estimate.c: the candidates are looked for over every job. */
void kai_sched_inc_all_jobs(struct sess *S);
/* cycle.c: the cycle is over; record what the next one may keep. */
void kai_sched_inc_capture(struct sess *S);
/* The mix rows of the tasks of leaf q left out of this cycle, *n of
 * them (frag.c adds them to the mix it learns); NULL when none. */
const struct kai_sched_mix_row *kai_sched_inc_mix(const struct sess *S,
    uint32_t q, uint32_t *n);

/* qoslimit.c: the snapshot's GPU caps (a QoS's per-user GPU limit). */
void kai_sched_qoslimit_init(struct sess *S);
void kai_sched_qoslimit_fini(struct sess *S);
/* Job j's active tasks hold ugpu more (or less, when negative). */
void kai_sched_qoslimit_account(struct sess *S, uint32_t j, int64_t ugpu);
/* Whether j's next step keeps its cap; else w says why. */
bool kai_sched_qoslimit_admit(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *w);

/* pools.c: node selectors and taints (a job's pool -1 is row 0). */
void kai_sched_pools_init(struct sess *S);
void kai_sched_pools_fini(struct sess *S);
/* Whether node n may take task t, by its job's pool. */
bool kai_sched_pool_allows(const struct sess *S, uint32_t t, uint32_t n);
/* How many schedulable nodes pool (-1 = none) may use. */
uint32_t kai_sched_pool_nodes(const struct sess *S, int32_t pool);
/* The most idle whole GPUs on a node task t's pool may use. */
uint32_t kai_sched_pool_most_idle(const struct sess *S, uint32_t t);

/* nodereq.c: the job's own node requirements (-C, -w, -x). */
void kai_sched_nodereq_init(struct sess *S);
void kai_sched_nodereq_fini(struct sess *S);
/* Whether node n may take a task of job j by j's requirements. */
bool kai_sched_nodereq_allows(const struct sess *S, uint32_t j, uint32_t n);
/* stmt.c: task t is being placed on its node (not active yet). */
void kai_sched_nodereq_placed(struct sess *S, uint32_t t);
/* stmt.c: a placement or eviction of task t was undone. */
void kai_sched_nodereq_undone(struct sess *S, uint32_t t);
/* How many alternatives j's next start should try one by one (0: no
 * need: no matching OR, one alternative, or tasks already active). */
uint32_t kai_sched_nodereq_starts(const struct sess *S, uint32_t j);
/* Placements of j start on alternative alt only; alt < 0: any again. */
void kai_sched_nodereq_try(struct sess *S, uint32_t j, int32_t alt);
/* No schedulable node meets j's requirements: true and w says so. */
bool kai_sched_nodereq_none(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *w);

/* sess_jobs.c */
void kai_sched_queues_init(struct sess *S);
int kai_sched_jobs_init(struct sess *S, struct kai_err *err) KAI_MUST_CHECK;
void kai_sched_jobs_fini(struct sess *S);
void kai_sched_accounts_init(struct sess *S);
uint32_t kai_sched_task_job(const struct sess *S, uint32_t t);
/* What active task t holds, in queue units. */
void kai_sched_task_held(const struct sess *S, uint32_t t, int64_t v[NRES]);

/* session.c */
/* The session's arrays come from c, the result's from rc (NULL: malloc). */
int kai_sched_sess_init(struct sess *S, struct kai_sched_ctx *c,
    struct kai_sched_ctx *rc, const struct kai_sched_snapshot *s,
    struct kai_sched_result *r, struct kai_sched_inc_run *inc,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_sched_sess_fini(struct sess *S);
void kai_sched_node_refresh(struct sess *S, uint32_t n);
/* Some node has releasing resources now (a step could be pipelined). */
bool kai_sched_releasing(const struct sess *S);
/* Per-device amount a task would hold on node n; 0 = cannot fit. */
int32_t kai_sched_task_ugpu(const struct sess *S, uint32_t t, uint32_t n);
bool kai_sched_task_active(const struct stask *t);

/* The devices a share spans (1 for whole GPUs and CPU-only tasks too). */
static inline uint32_t
kai_sched_task_ndev(const struct kai_sched_snap_task *in)
{
	return in->gpus == 0 && in->gpu_devices > 1 ? in->gpu_devices : 1;
}

/*
 * The task's request in queue units.  A GPU-memory request counts as
 * the fraction it would be of the smallest GPU, the most it can become
 * wherever it lands, so that no placement can take a queue past its
 * limit or quota (KAI uses the largest GPU for limits, and a queue can
 * then end up over its limit).  Inline (session.c had it): the session
 * asks for it for every pending task twice, and a caller's sum read back
 * what a call had just stored, a store-forwarding stall each time.
 */
static inline void
kai_sched_task_req(const struct sess *S, uint32_t t, int64_t req[NRES])
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	int64_t g = S->min_gmem;

	if (in->gpus > 0)
		req[R_GPU] = (int64_t)in->gpus * GPU_UNIT;
	else if (in->gpu_fraction > 0)
		req[R_GPU] =
		    (int64_t)in->gpu_fraction * kai_sched_task_ndev(in);
	else if (in->gpu_memory_mib > 0)
		req[R_GPU] =
		    ((int64_t)in->gpu_memory_mib * GPU_UNIT + g - 1) / g *
		    kai_sched_task_ndev(in);
	else
		req[R_GPU] = 0;
	if (req[R_GPU] > (int64_t)KAI_SCHED_MAX_NODE_GPUS * GPU_UNIT)
		req[R_GPU] = (int64_t)KAI_SCHED_MAX_NODE_GPUS * GPU_UNIT;
	req[R_CPU] = in->cpu_millis;
	req[R_MEM] = in->memory_mib;
}

/* validate.c */
int kai_sched_validate(const struct kai_sched_snapshot *s,
    struct kai_err *err) KAI_MUST_CHECK;
/* Its parts, for the session's own pass over the jobs (sess_jobs.c). */
int kai_sched_validate_head(const struct kai_sched_snapshot *s,
    struct kai_err *err) KAI_MUST_CHECK;
int kai_sched_validate_job(const struct kai_sched_snapshot *s,
    const uint8_t *parent, size_t i, struct kai_err *err) KAI_MUST_CHECK;
/* [q] != 0: some queue has q as its parent; free() it. */
uint8_t *kai_sched_mark_parents(const struct kai_sched_snapshot *s);

/* stmt.c */
size_t kai_sched_mark(const struct sess *S);
void kai_sched_rollback(struct sess *S, size_t mark);
void kai_sched_commit(struct sess *S);
void kai_sched_restore_tasks(struct sess *S, size_t mark);
void kai_sched_place(struct sess *S, uint32_t t, uint32_t node, uint64_t mask,
    int32_t ugpu, bool pipelined);
void kai_sched_evict(struct sess *S, uint32_t t);
void kai_sched_touch_queue(struct sess *S, uint32_t q);
void kai_sched_touch_group(struct sess *S, uint32_t g);
/*
 * Releasing or evicted task t is gone: what it held is idle (logged,
 * for the replays of the start estimates and of reservations).
 */
void kai_sched_release(struct sess *S, uint32_t t);
/*
 * The same for the old places of the committed moves (moved_from): what
 * each moved task held there is idle; the tasks are not changed.
 */
void kai_sched_release_moved(struct sess *S);
/*
 * Active tasks t[0..n) end: kai_sched_evict() and kai_sched_release()
 * of each, with one refresh per node after all of them (the start
 * estimate's replay); seen: a zeroed byte per node, left zeroed.
 */
void kai_sched_end_tasks(struct sess *S, const uint32_t *t, size_t n,
    uint8_t *seen);

/* acctshare.c: the accounts' weighted shares inside a leaf queue. */
/* Builds the (leaf, account) slots of the groups (after make_groups). */
void kai_sched_acct_init(struct sess *S);
/* Adds ugpu to the GPUs of group g's slot; touch: re-key its groups. */
void kai_sched_acct_add(struct sess *S, uint32_t g, int64_t ugpu, bool touch);
/* Group g's account key: its slot's GPUs over the account's weight. */
double kai_sched_acct_key(const struct sess *S, uint32_t g);

/* order.c: group g's GPUs as a share of the cluster's (0 without GPUs). */
double kai_sched_group_held(const struct sess *S, uint32_t g);
/*
 * The usage by which the order puts a group: its user's decayed usage
 * plus held, kai_sched_group_held().  One definition, for the order and
 * for incr.c, which checks that a kept leaf's groups still come in the
 * order they were recorded in.
 */
static inline double
kai_sched_usage_key(const struct kai_sched_snapshot *s, int32_t user,
    double held)
{
	return (user >= 0 ? s->users[user].usage : 0) + held;
}

/* exclusive.c: --exclusive, no other job on a node. */
/* Counts task t on node in or out (sign 1 or -1) of its active (rel
 * false) or releasing tasks; called by every hold(). */
void kai_sched_excl_hold(struct sess *S, uint32_t t, uint32_t node,
    int32_t sign, bool rel);
/* Whether t may go on node n as far as exclusive jobs go; *wait: only
 * once releasing tasks have left (a pipelined placement). */
bool kai_sched_excl_ok(const struct sess *S, uint32_t t, uint32_t n,
    bool allow_pipe, bool *wait);

/* place.c */
struct kai_sched_choice {
	int32_t node;
	uint64_t mask;
	int32_t ugpu;
	bool pipelined;
};

bool kai_sched_fit_node(const struct sess *S, uint32_t t, uint32_t n,
    bool allow_pipe, struct kai_sched_choice *c);
/* Devices on node n for task t needing u per device. */
bool kai_sched_pick_devices(const struct sess *S, uint32_t n, uint32_t t,
    int32_t u, bool allow_pipe, uint64_t *mask, bool *pipelined);
/*
 * The best node for task t: among nodes[0..nnodes) when nodes is not
 * NULL (with pref[node] as the first key, higher first, when not NULL),
 * else among all nodes through the index.  False when none fits.
 */
bool kai_sched_choose(const struct sess *S, uint32_t t, const uint32_t *nodes,
    uint32_t nnodes, const int64_t *pref, bool allow_pipe,
    struct kai_sched_choice *c);
/* Largest idle whole GPUs on one node, and idle room anywhere. */
uint32_t kai_sched_most_idle_gpus(const struct sess *S);

/* frag.c: the frag placement (fragmentation gradient descent) */
/*
 * A class of frag's request mix with its tasks' count and CPU and
 * memory sums; incr.c keeps the left-out tasks' share of the mix so.
 */
struct kai_sched_mix_row {
	uint32_t gpus;  /* whole GPUs, or 0 */
	int32_t ugpu;   /* a fraction's micro-GPUs, or 0 */
	uint32_t count;
	int64_t cpusum, memsum;
};
/* Whether task t counts in the mix, and in which class (gpus, ugpu). */
bool kai_sched_frag_class(const struct sess *S, uint32_t t, uint32_t *gpus,
    int32_t *ugpu);
void kai_sched_frag_init(struct sess *S);
void kai_sched_frag_fini(struct sess *S);
/* Node n changed (kai_sched_node_refresh()): its group may change. */
void kai_sched_frag_touch(struct sess *S, uint32_t n);
/*
 * The node among nodes[0..nnodes) (all when NULL), pref[] first, where
 * GPU task t on idle resources grows the fragmentation least.
 */
bool kai_sched_frag_choose(const struct sess *S, uint32_t t,
    const uint32_t *nodes, uint32_t nnodes, const int64_t *pref,
    struct kai_sched_choice *c);

/* subgroup.c: jobs with a subgroup tree (sched_model.h) */
void kai_sched_sg_init(struct sess *S);
void kai_sched_sg_fini(struct sess *S);
/* Checks the snapshot's trees (validate.c); err names job and subgroup. */
int kai_sched_sg_check(const struct kai_sched_snapshot *s,
    struct kai_err *err) KAI_MUST_CHECK;
/* Job j's subgroup tree, or NULL (most jobs: then at no cost). */
const struct kai_sched_job_tree *kai_sched_tree(const struct sess *S,
    uint32_t j);
/* A bound on the tasks that satisfy R's root, for counts that compare. */
uint32_t kai_sched_sg_min(const struct kai_sched_snapshot *s,
    const struct kai_sched_job_tree *R);
/*
 * The tasks of j's next step into out (its gang: the cheapest way to
 * satisfy the root; once satisfied, a leaf's missing tasks or one more);
 * short_gang when the root cannot be satisfied with the tasks there are.
 */
uint32_t kai_sched_sg_step(const struct sess *S, uint32_t j, uint32_t *out,
    bool *short_gang);
/* A buffer for a step's tasks, as large as the largest such job. */
uint32_t *kai_sched_sg_buf(const struct sess *S);
/* Whether j's root is satisfied (by tasks that ran before, with
 * running_only). */
bool kai_sched_sg_satisfied(const struct sess *S, uint32_t j,
    bool running_only);
/* An active task j can lose and stay satisfied, or -1. */
int64_t kai_sched_sg_spare(const struct sess *S, uint32_t j);
void kai_sched_sg_short_why(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *why);
/* Places j's next step through its tree, all or none, or says why. */
bool kai_sched_sg_place(struct sess *S, uint32_t j, bool allow_pipe,
    struct kai_sched_why_info *why);

/* topology.c */
void kai_sched_topo_fini(struct sess *S);
/*
 * The domains of level L of topology topo, in label order: domain d has
 * the nodes dnodes[dstart[d], dstart[d + 1]), in name order.  Returns
 * how many; the arrays live as long as the session.
 */
uint32_t kai_sched_topo_domains(struct sess *S, uint32_t topo, uint32_t L,
    const uint32_t **dstart, const uint32_t **dnodes);
/*
 * Places tasks[0..n) of job j under its topology constraint; returns how
 * many were placed (all or the placements are rolled back: then 0 and
 * why says which level could not be met).
 */
bool kai_sched_topo_place(struct sess *S, uint32_t j, const uint32_t *tasks,
    uint32_t n, bool allow_pipe, struct kai_sched_why_info *why);

/* gang.c */
/* The tasks of j's next step (min tasks first, then one elastic). */
uint32_t kai_sched_step_tasks(const struct sess *S, uint32_t j, uint32_t *out,
    bool *short_gang);
void kai_sched_step_req(const struct sess *S, uint32_t j, int64_t req[NRES]);
/* Places job j's pending tasks a node group at a time (nodegroup.c):
 * all of them or none, with a reason. */
bool kai_sched_place_groups(struct sess *S, uint32_t j, bool pipe,
    struct kai_sched_why_info *why);
/* Places every evicted task of the grouped job j again, pipelined, a
 * group on a node (consolidation's move): all or none. */
bool kai_sched_move_groups(struct sess *S, uint32_t j);
/*
 * Admission, then placement of j's next step, all-or-nothing.  On
 * failure nothing is changed and why explains it.
 */
bool kai_sched_try_step(struct sess *S, uint32_t j, bool allow_pipe,
    struct kai_sched_why_info *why);
uint32_t kai_sched_elastic_state(const struct sess *S, uint32_t j);
void kai_sched_untried(struct sess *S, uint32_t j);

/* admission.c */
bool kai_sched_admit(const struct sess *S, uint32_t j,
    struct kai_sched_why_info *why);
bool kai_sched_within_fair_share(const struct sess *S, uint32_t q,
    const int64_t req[NRES]);
/* The same for job j's step req: for a job of a GPU type, its GPUs
 * against q's fair share of that type instead of all GPUs. */
bool kai_sched_job_within_fair_share(const struct sess *S, uint32_t q,
    uint32_t j, const int64_t req[NRES]);
bool kai_sched_within_quota(const struct sess *S, uint32_t q,
    const int64_t req[NRES]);

/* memo.c */
struct kai_sched_memo_ent {
	uint64_t h1, h2; /* the shape's two hashes */
	uint32_t n;      /* its tasks */
	uint32_t why;    /* index into whys, NONE32 = empty slot */
};

struct kai_sched_memo {
	struct kai_sched_memo_ent *e;
	size_t cap, used;
	struct kai_sched_why_info *whys;
	size_t nwhys, capwhys;
};

void kai_sched_memo_init(struct kai_sched_memo *m);
void kai_sched_memo_fini(struct kai_sched_memo *m);
/* The stored reason for j's step shape, or NULL. */
const struct kai_sched_why_info *
kai_sched_memo_find(const struct kai_sched_memo *m, const struct sess *S,
    uint32_t j);
/* Remembers that j's step shape failed with why. */
void kai_sched_memo_store(struct kai_sched_memo *m, const struct sess *S,
    uint32_t j, const struct kai_sched_why_info *why);
/* The step of j, its cached fields up to date. */
const struct sjob *kai_sched_step(const struct sess *S, uint32_t j);
/* Step shape hashing (sjob.sh1, sh2), and a general 64-bit mixer. */
void kai_sched_shape_start(struct sjob *sj, const struct kai_sched_snap_job *J);
void kai_sched_shape_add(struct sjob *sj, const struct kai_sched_snap_task *k,
    uint32_t run);
bool kai_sched_same_request(const struct kai_sched_snap_task *a,
    const struct kai_sched_snap_task *b);
void kai_sched_shape_mix(struct sjob *sj, uint64_t v);
uint64_t kai_sched_mix64(uint64_t x);

/* fairshare.c */
void kai_sched_fairshare(struct sess *S);
/*
 * Divides total among the siblings sib[0..n) for one resource given as
 * arrays indexed by queue: quota, limit, requested (in), fair share
 * (out); weight and usage of the over-quota division.  unit is the
 * rounding unit.  gputype.c uses it for each GPU type.
 */
struct kai_sched_fsview {
	const int64_t *quota, *limit, *req;
	const double *weight, *usage;
	int64_t *fs;
	int64_t unit;
};
void kai_sched_fs_divide(struct sess *S, const struct kai_sched_fsview *v,
    const uint32_t *sib, size_t n, int64_t total);

/*
 * gputype.c: GPU types (doc/scheduler.md, "GPU types").  Everything is a
 * no-op when the snapshot names no type.
 */
void kai_sched_types_init(struct sess *S);
/* Whether no node, queue or job can name a type (sess.gt stays NULL),
 * known before the jobs are validated. */
bool kai_sched_types_none(const struct kai_sched_snapshot *s);
void kai_sched_types_fini(struct sess *S);
/* The type job j asks for, or -1 (any). */
int32_t kai_sched_job_type(const struct sess *S, uint32_t j);
/* Task t's job may use node n's GPUs (its type, the type limits). */
bool kai_sched_type_allows(const struct sess *S, uint32_t t, uint32_t n);
/* stmt.c: task t (on its node) added to (1) or taken from (-1) queues. */
void kai_sched_types_account(struct sess *S, uint32_t t, int64_t sign,
    int64_t ugpu);
/* Per type fair shares, after the resources' (fairshare.c). */
void kai_sched_types_fairshare(struct sess *S);
/* The type checks of admission for job j asking gpu micro-GPUs. */
bool kai_sched_types_admit(const struct sess *S, uint32_t j, int64_t gpu,
    struct kai_sched_why_info *w);
/*
 * The queue-order GPU share of q for a job of type t (-1: none):
 * (allocated + add) / allocatable share of that type, or -1 when t < 0.
 */
double kai_sched_type_dshare(const struct sess *S, uint32_t q, int32_t t,
    int64_t add);
/* q is over its fair share of type t (false when t < 0). */
bool kai_sched_type_over(const struct sess *S, uint32_t q, int32_t t);
/*
 * Reclaim for a job of type t (true when t < 0): q's allocation of t
 * plus gpu stays within its fair share of t, and within a quota of t it
 * names; a victim's side is above its allocatable share of t (returned)
 * or above a quota of t it names (*above_quota).
 */
bool kai_sched_type_within_fs(const struct sess *S, uint32_t q, int32_t t,
    int64_t gpu);
bool kai_sched_type_within_quota(const struct sess *S, uint32_t q, int32_t t,
    int64_t gpu);
bool kai_sched_type_victim_side(const struct sess *S, uint32_t q, int32_t t,
    bool *above_quota);
/* q's allocation and fair share of type t (>= 0), and the quota it
 * names for it (-1: none named), for reasons. */
void kai_sched_type_figures(const struct sess *S, uint32_t q, int32_t t,
    int64_t *alloc, int64_t *fs, int64_t *quota);
/* A value mixed into j's step shape: its type and type limits. */
uint64_t kai_sched_type_salt(const struct sess *S, uint32_t j);
/*
 * Whether the nodes task t may use depend on its queue's allocation (a
 * queue with a type limit), not on the nodes alone.
 */
bool kai_sched_type_dynamic(const struct sess *S, uint32_t t);
/* Writes the per type figures into the result. */
void kai_sched_types_out(struct sess *S);
/* validate.c: one queue's types; err names the type. */
int kai_sched_types_validate(const struct kai_sched_snap_queue *q,
    struct kai_err *err) KAI_MUST_CHECK;

/* order.c */
struct okey { /* what job order compares: one per pending job, small */
	int64_t created;
	int32_t prio;
	uint32_t job : 30;    /* < KAI_SCHED_MAX_JOBS */
	uint32_t elastic : 2; /* kai_sched_elastic_state() */
};
_Static_assert(sizeof(struct okey) == 16, "a million keys: 16 bytes each");
_Static_assert(KAI_SCHED_MAX_JOBS < (1u << 30), "okey.job holds a job");

struct gkey { /* what group order compares: its head job's key, and */
	struct okey k;
	double acct;       /* its account's GPUs in the leaf / weight */
	double usage;      /* the user's usage */
	int64_t req[NRES]; /* the head's next step, for queue keys */
};

struct kai_sched_order {
	struct sess *S;
	struct kai_sched_heap root;
	struct kai_sched_heap *qh; /* per queue: children or groups */
	uint32_t *qstore, *qpos;   /* queue-heap storage, positions */
	uint32_t *rstore;          /* root-heap storage */
	uint32_t *gstore, *gpos;   /* group-heap storage, positions */
	struct okey *jrun;         /* per group a run of its jobs' keys, in
				      job order: [gcur[g], gend[g]) left */
	uint32_t *gcur, *gend;
	struct gkey *gk;           /* per group: its head's key */
	bool gpu_only;             /* every job taken, as its step stands
				      now, asks for some GPU */
};

typedef bool kai_sched_want_fn(const struct sess *S, uint32_t j);

void kai_sched_order_init(struct kai_sched_order *o, struct sess *S,
    kai_sched_want_fn *want);
/* The same over the jobs jobs[0..n) (in any order) instead of want()'s. */
void kai_sched_order_init_jobs(struct kai_sched_order *o, struct sess *S,
    const uint32_t *jobs, uint32_t n);
void kai_sched_order_fini(struct kai_sched_order *o);
/*
 * closed.c: S->closed[q] = 1 for every leaf q none of whose jobs (those
 * want() takes) can be placed on the idle capacity now; *nclosed such
 * leaves, and *nopen leaves with a job that might be (0: none).
 */
void kai_sched_closed_leaves(struct sess *S, kai_sched_want_fn *want,
    uint32_t *nclosed, uint32_t *nopen);
/* Frees an order's arrays (sess_fini, for the ones kept between phases). */
void kai_sched_order_free(struct kai_sched_order *o);
/* The next job in queue order, or -1. */
int64_t kai_sched_order_top(struct kai_sched_order *o);
/* Back to the start: every group's cursor at its run's start. */
void kai_sched_order_rewind(struct kai_sched_order *o);
/*
 * The leaves' jobs src has not taken yet, in an order of their own (to
 * be finished with kai_sched_order_fini()); out of src (then rebuild).
 */
void kai_sched_order_init_rest(struct kai_sched_order *o,
    const struct kai_sched_order *src, const uint8_t *leaves);
void kai_sched_order_drop(struct kai_sched_order *o, const uint8_t *leaves);
void kai_sched_order_rebuild(struct kai_sched_order *o);
/* Done with the top job j; keep = it has more to place (elastic). */
void kai_sched_order_next(struct kai_sched_order *o, uint32_t j, bool keep);
bool kai_sched_qkey_update(struct sess *S, uint32_t q, const int64_t *req);
bool kai_sched_queue_over(const struct sess *S, uint32_t q);
double kai_sched_dshare(const struct sess *S, uint32_t q, const int64_t *add);

/*
 * leafmerge.c: one leaf's jobs that o still holds, in the leaf's own
 * order, while nothing can be placed (closed leaves, a full cluster):
 * kai_sched_lmerge_top() is the next job (-1: none left), and
 * kai_sched_lmerge_next() is done with it (o's cursor moves on; o's
 * heaps are not kept: rewind or finish o after).
 */
struct kai_sched_lent;
struct kai_sched_lgrp;
struct kai_sched_lmerge {
	struct kai_sched_order *o;
	struct kai_sched_lent *h; /* a heap of the groups' heads */
	struct kai_sched_lgrp *g; /* the groups, to rank their keys */
	uint32_t n, cap;
};
void kai_sched_lmerge_init(struct kai_sched_lmerge *m,
    struct kai_sched_order *o);
void kai_sched_lmerge_leaf(struct kai_sched_lmerge *m, uint32_t leaf);
int64_t kai_sched_lmerge_top(const struct kai_sched_lmerge *m);
void kai_sched_lmerge_next(struct kai_sched_lmerge *m);
void kai_sched_lmerge_fini(struct kai_sched_lmerge *m);

/* victims.c: the eviction solver shared by reclaim and preempt. */
struct kai_sched_unit {
	uint32_t job;
	int64_t task; /* one elastic task, or -1 for the core */
};

typedef bool
kai_sched_next_victim_fn(struct sess *S, void *ctx, struct kai_sched_unit *u);

bool kai_sched_solve(struct sess *S, uint32_t j, kai_sched_next_victim_fn *next,
    void *ctx, bool same_queue, struct kai_sched_why_info *why);
void kai_sched_evict_unit(struct sess *S, const struct kai_sched_unit *u);
bool kai_sched_victim_unit(const struct sess *S, uint32_t v, int64_t min_run,
    struct kai_sched_unit *u);
/* Whether running job v has a task on a node job j's tasks may use. */
bool kai_sched_victim_helps(const struct sess *S, uint32_t j, uint32_t v);
void kai_sched_victims_build(struct sess *S);
/* The same from act[0..n): every job with an active task, in index
 * order. */
void kai_sched_victims_build_from(struct sess *S, const uint32_t *act,
    uint32_t n);
/*
 * One pass over the jobs: those want() takes into *wanted, an array of
 * njobs + 1 from the context (kai_sched_free() it), for
 * kai_sched_order_init_jobs(); returns how many.  With victims, the
 * victim lists too (kai_sched_victims_build(), from the running jobs
 * met on the way).
 */
uint32_t kai_sched_want_pass(struct sess *S, kai_sched_want_fn *want,
    bool victims, uint32_t **wanted);

struct kai_sched_fmemo {
	bool set;
	uint32_t n;       /* tasks in the failed step */
	int64_t hi[NRES]; /* its largest task, per resource */
	int64_t prio;
};

bool kai_sched_fmemo_skip(const struct sess *S, const struct kai_sched_fmemo *m,
    uint32_t j);
void kai_sched_fmemo_note(const struct sess *S, struct kai_sched_fmemo *m,
    uint32_t j);

/* the phases */
void kai_sched_allocate(struct sess *S);
void kai_sched_consolidate(struct sess *S);
void kai_sched_reclaim(struct sess *S);
void kai_sched_preempt(struct sess *S);
void kai_sched_stalegang(struct sess *S);

/* estimate.c: start estimates into r->jobs[].est_start, after the phases. */
void kai_sched_estimate(struct sess *S);
/* The allocate phase left job j waiting (in its order) with reason w. */
void kai_sched_est_note(struct sess *S, uint32_t j,
    const struct kai_sched_why_info *w);
/*
 * The jobs the estimate's replay looks at: those running (they end),
 * and those with releasing or evicted tasks (freed at once).  The
 * cycle hands them to kai_sched_est_held() as it writes the jobs'
 * results, a walk over every job it makes anyway (cycle.c), while
 * their entries are at hand: the replay walks no job for them, and
 * reads no running job's entries again for its end.
 */
static inline bool
kai_sched_est_holds(const struct sjob *sj)
{
	return sj->nactive > 0 || sj->releasing || sj->nevicted > 0;
}
void kai_sched_est_held(struct sess *S, uint32_t j);

/* backfill.c */
/*
 * Whether no reservation can be made in a cycle over s (none asked for,
 * or no job with a time limit and nothing releasing): the cycle then
 * runs as with reservations off.
 */
bool kai_sched_bf_none(const struct kai_sched_snapshot *s);
/* When active job j ends by its limit; NO_TIME when it has none. */
int64_t kai_sched_job_end(const struct sess *S, uint32_t j);
/* The job placed next is j, running from t (sets bf_t, bf_end). */
void kai_sched_bf_job(struct sess *S, uint32_t j, int64_t t);
/* The task placed next belongs to running job j (consolidation moves). */
void kai_sched_bf_running(struct sess *S, uint32_t j);
/* Device g (flat index) is free of reservations over [bf_t, bf_end). */
bool kai_sched_bf_dev_ok(const struct sess *S, uint32_t g);
/* Taking cpu, mem on node n leaves what reservations need there. */
bool kai_sched_bf_node_ok(const struct sess *S, uint32_t n, int64_t cpu,
    int64_t mem);
uint32_t kai_sched_bf_count(const struct sess *S);
/*
 * This allocate phase can hand out no more reservations: bf_reservations
 * made, or bf_max_job_test jobs replayed (kai_sched_bf_reserve() then
 * returns false at once).
 */
bool kai_sched_bf_spent(const struct sess *S);
/*
 * How many reservations start before job j, placed now (bf_clock), would
 * end: where it may go depends on its time limit only through this.
 */
uint32_t kai_sched_bf_class(const struct sess *S, uint32_t j);
/* When reservation i (< count) ends; NO_TIME: never. */
int64_t kai_sched_bf_end(const struct sess *S, uint32_t i);
/*
 * Pending job j, which runs nothing, gets a reservation at the earliest
 * time its step fits: true and w = RESERVED, else false; the session is
 * as before either way.
 */
bool kai_sched_bf_reserve(struct sess *S, uint32_t j,
    struct kai_sched_why_info *w);
/*
 * j failed to fit: true and w = BACKFILL when it would fit but for the
 * reservations; the session is as before.
 */
bool kai_sched_bf_blocks(struct sess *S, uint32_t j,
    struct kai_sched_why_info *w);
/*
 * An allocate phase starts (the replays' start is made again at its
 * first replay), and job j, which held nothing, has just been placed in
 * it (the replays then end it too).
 */
void kai_sched_bf_phase(struct sess *S);
void kai_sched_bf_placed(struct sess *S, uint32_t j);
void kai_sched_bf_fini(struct sess *S);

/* reasons.c */
void kai_sched_set_why(struct sess *S, uint32_t j,
    const struct kai_sched_why_info *why, bool override);
void kai_sched_why_clear(struct kai_sched_why_info *w);

#endif /* KAI_SCHED_SCHED_INT_H */
