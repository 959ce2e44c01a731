/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * snapshot.h: the scheduler's view of one tick, as kaid builds it from
 * its caches (snapshot.c, snap_tree.c, snapgen.c), and what the tick,
 * the evictions, the arrays, usage and the share figures read of it.
 */
#ifndef KAID_SNAPSHOT_H
#define KAID_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "kaid.h"
#include "model/job.h"
#include "sched/sched_model.h"

struct nodefeat_snap;

/* The snapshot and what kaid keeps beside it to read the result back. */
struct snap {
	struct kai_sched_snapshot s;
	struct kai_sched_snap_node *nodes;
	struct kai_sched_label *labels;
	char **label_text;	  /* owned "key\0value" copies */
	size_t nlabels;
	struct kai_sched_snap_queue *queues;
	struct kai_sched_qtype *qtypes; /* the queues' GPU types */
	size_t nqtypes;
	struct kai_sched_snap_user *users;
	struct kai_sched_snap_job *jobs;
	struct kai_job **kjobs;	  /* kaid's job of each snapshot job; NULL
				   * for the releasing pods of a preempted
				   * run (snapshot.c) */
	char (*jnames)[32];	  /* job names: their ids */
	struct kai_sched_snap_task *tasks;
	struct kai_sched_topology *topos; /* one per job with a topology */
	const char *(*topo_levels)[2];	  /* their levels */
	struct kai_job **lost;	  /* pending jobs whose queue is no leaf */
	const char **lost_code;	  /* and why: Slurm's code (static) */
	char **lost_why;	  /* and as a sentence, owned */
	size_t nlost;
	struct kai_map node_ix;	  /* name -> index + 1 */
	struct kai_map queue_ix;  /* name -> index + 1 */
	struct kai_map user_ix;	  /* name -> index + 1 */
	const char **jtypes;	  /* the GPU types jobs ask for, once each */
	struct kai_map jtype_ix;  /* name -> index + 1 */
	struct kai_sched_snap_account *accounts; /* kaid.yaml's accounts */
	struct kai_map acct_ix;	  /* name -> index + 1 */
	/* pools.c: the nodes' taints and kaid.yaml's partitions as pools */
	struct kai_sched_taint *taints;
	char **taint_text;	  /* owned copies the taints point into */
	size_t ntaints, ctaints;  /* used, allocated */
	struct kai_sched_pool *pools; /* one per partition, same index */
	struct kai_sched_label *pool_labels;
	struct kai_sched_toleration *pool_tols;
	/* policy.c: the per-user GPU caps of QoS (kai_sched's gpu_limits) */
	int64_t *gpu_limits;
	/* nodefeat.c: the jobs' -C, -w, -x as the core's requirements */
	struct nodefeat_snap *nf;
	/* snap_tree.c: native gangs' subgroup trees */
	struct kai_sched_subgroup *sgs;
	size_t nsgs, csgs;
	struct kai_sched_job_tree *trees; /* one per tree job, in job order */
	size_t ntrees, ctrees;
	const char ***tree_lv;	  /* their topologies' levels, owned */
	size_t ntree_lv;
	char **task_pod;	  /* per task: a tree job's member, owned;
				   * NULL for the others' tasks */
	uint64_t *job_gen;	  /* snapgen.c: per job, its number */
};
/*
 * snap_tree.c: a native gang's tasks leaf by leaf (doc/k8s-native.md,
 * "Subgroups"): its placed members first (alloc), then its unbound ones,
 * each with its pod's key (borrowed from k->pods or the job).
 */
struct snap_tree_task {
	uint32_t leaf;			/* index in j->sgtree */
	const struct kai_alloc *alloc;	/* NULL: not placed */
	const char *pod;
};
/*
 * Tree job j's tasks in leaf order into *out (caller frees); 0 when it
 * has no tree or a member fits no leaf (the flat gang then).
 */
size_t snap_tree_order(const struct kaid *k, const struct kai_job *j,
    struct snap_tree_task **out);
/*
 * Each pending task of native gang j, the snapshot's tasks from first
 * on, asks what its member pod asks (a tree's task its task_pod, a flat
 * gang's task i its i-th member in name order, as native_assign gives
 * them), not the job's per-task figures, its largest member's.
 */
void snap_native_sizes(const struct kaid *k, struct snap *sn,
    const struct kai_job *j, size_t first);
/* The subgroup rows and topology of snapshot job s, j's, from v[0..n). */
void snap_tree_rows(struct snap *sn, const struct kai_job *j,
    struct kai_sched_snap_job *s, const struct snap_tree_task *v, size_t n);
/*
 * Builds the snapshot of this tick from kaid's caches: nodes, queues,
 * active jobs (running tasks where their allocations put them), kaid's
 * pods no allocation accounts for as releasing tasks, pods of others as
 * held capacity; `now`, the tick's one clock reading, which the tick's
 * decisions (placements, evictions, array splits) are stamped with too;
 * all five phases.  The strings it points to are borrowed from the
 * caches, which must not change before snap_fini().
 */
void snap_build(struct kaid *k, struct snap *sn, int64_t now);
void snap_fini(struct snap *sn);
/*
 * snapgen.c: numbers the snapshot's jobs (s.job_gen) once it is whole,
 * config and usage included: a hash of each job's entry, so that the
 * core leaves alone the waiting jobs whose entries did not change.
 */
void snap_number(struct snap *sn);
/*
 * A started job's allocations plus, when it is elastic (min_tasks below
 * ntasks), its tasks not started yet: one past the last task index the
 * snapshot gives it.  nallocs for a job that started whole.
 */
size_t snap_unstarted_end(const struct kai_job *j);

#endif /* KAID_SNAPSHOT_H */
