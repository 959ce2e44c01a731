/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario.h: a scheduler scenario file (doc/scheduler.md, FORMAT.md)
 * read into a core snapshot plus the outcome it expects.
 *
 * scenario_load() checks everything a scenario may get wrong and says
 * where: an unrecognized key, a value of the wrong type or out of range,
 * a reference to a node, queue, job or topology that does not exist, a
 * running task without a node.  Messages read "FILE:LINE:COL: reason".
 * The scenario owns its arrays and the parsed file, which its strings
 * point into; scenario_fini() releases both.
 *
 * Times: the file gives durations (stale_for_s, running_for_s); the
 * snapshot's `now` is SCENARIO_NOW and the timestamps are derived from
 * it, so results never depend on the clock.
 */
#ifndef KAI_CLIENTS_SCENARIO_H
#define KAI_CLIENTS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/map.h"
#include "sched/sched_model.h"
#include "ytree.h"

#define SCENARIO_NOW INT64_C(1000000000)

enum match_kind {
	MATCH_NODE = 0, /* exactly this node */
	MATCH_ANY,      /* "*": placed anywhere */
	MATCH_ANY_OF    /* {any_of: [...]} */
};

struct matcher {
	enum match_kind kind;
	uint32_t *nodes;
	size_t n;
};

struct exp_place { /* running / pipelined: one node per task */
	uint32_t job;
	struct matcher *m;
	size_t n;
};

struct exp_task {
	uint32_t task;
	int state;    /* enum kai_sched_task_state, or -1 */
	int32_t node; /* or -1: not checked */
};

struct exp_shared {
	uint32_t job, other;
	bool same; /* same_gpu_as; else different_gpu_from */
};

struct exp_fair {
	uint32_t queue;
	bool has[KAI_SCHED_NRES];
	int64_t v[KAI_SCHED_NRES]; /* core units */
};

struct exp_tfair { /* gpu_type_fair_share: {queue: {type: GPUs}} */
	uint32_t queue;
	const char *type;
	int64_t v; /* micro-GPUs */
};

struct exp_reason { /* kaibatch extension: reasons: {job: text} */
	uint32_t job;
	const char *text; /* must occur in the job's reason */
};

struct expect {
	bool present;
	struct exp_place *running, *pipelined;
	size_t nrunning, npipelined;
	uint32_t *pending, *evicted;
	size_t npending, nevicted;
	struct exp_task *tasks;
	size_t ntasks;
	struct exp_shared *shared;
	size_t nshared;
	struct exp_fair *fair;
	size_t nfair;
	struct exp_reason *reasons;
	size_t nreasons;
	struct exp_tfair *tfair;
	size_t ntfair;
};

struct scenario {
	const char *path;
	struct ynode *root;
	const char *name;
	struct kai_sched_snapshot snap;
	struct kai_sched_snap_node *nodes;
	struct kai_sched_label *labels;
	struct kai_sched_snap_queue *queues;
	struct kai_sched_topology *topos;
	const char **levels;
	struct kai_sched_snap_user *users;
	struct kai_sched_snap_job *jobs;
	struct kai_sched_snap_task *tasks;
	struct kai_map node_ix, queue_ix, job_ix, topo_ix, user_ix;
	struct expect expect;
	struct kai_sched_pool *pools;	/* scenario_pools.c */
	struct kai_map pool_ix;
	int64_t *gpu_caps;		/* scenario_caps.c: uGPU each */
	struct kai_map cap_ix;
	struct kai_sched_snap_account *accounts; /* scenario_accts.c */
	struct kai_map acct_ix;
	void **owned;			/* taint, selector, toleration arrays */
	size_t nowned;
	const char *gpu_type_label;	/* nodes' GPU type (scenario_types.c) */
	const char **jtypes;		/* the jobs' GPU types, each once */
	size_t njtypes;
	struct kai_map jtype_ix;	/* ... 1 + index by name */
	const char *features[64];	/* scenario_nodereq.c: bit i's name */
	size_t nfeatures;
	struct kai_sched_nodereq *nodereqs; /* the jobs' -C, -w, -x */
	size_t nnodereqs;
};

int scenario_load(const char *path, struct scenario *sc,
    struct kai_err *err) KAI_MUST_CHECK;
void scenario_fini(struct scenario *sc);

/* Internal to the loader (scenario.c, scenario_expect.c). */
struct sload {
	struct scenario *sc;
	struct kai_err *err;
};

int sload_fail(struct sload *ld, const struct ynode *at, const char *fmt, ...)
    KAI_PRINTF(3, 4);
int sload_keys(struct sload *ld, const struct ynode *m,
    const char *const *allowed, const char *what) KAI_MUST_CHECK;
int sload_kind(struct sload *ld, const struct ynode *n, enum ykind kind,
    const char *what) KAI_MUST_CHECK;
/* Index+1 of name in a name map, or 0. */
size_t sload_find(const struct kai_map *m, const char *name);
int sload_node(struct sload *ld, const struct ynode *n,
    uint32_t *out) KAI_MUST_CHECK;
int sload_task_state(struct sload *ld, const struct ynode *n,
    enum kai_sched_task_state last, int *out) KAI_MUST_CHECK;
int sload_gpu(struct sload *ld, const struct ynode *n, bool allow_neg,
    int64_t *out) KAI_MUST_CHECK;
int sload_i64(struct sload *ld, const struct ynode *n, int64_t min, int64_t max,
    int64_t *out) KAI_MUST_CHECK;
int sload_get_i64(struct sload *ld, const struct ynode *m, const char *key,
    int64_t min, int64_t max, int64_t *out) KAI_MUST_CHECK;
int sload_get_bool(struct sload *ld, const struct ynode *m, const char *key,
    bool *out) KAI_MUST_CHECK;
int sload_get_str(struct sload *ld, const struct ynode *m, const char *key,
    bool required, const char **out) KAI_MUST_CHECK;
int sload_dbl(struct sload *ld, const struct ynode *n, double min, double max,
    double *out) KAI_MUST_CHECK;
int sload_choice(struct sload *ld, const struct ynode *n,
    const char *const *names, const char *what, int *out) KAI_MUST_CHECK;
int sload_index(struct sload *ld, struct kai_map *m, const struct ynode *n,
    size_t i, const char *what) KAI_MUST_CHECK;
int scenario_load_jobs(struct sload *ld, const struct ynode *js) KAI_MUST_CHECK;
int
scenario_load_usage(struct sload *ld, const struct ynode *us) KAI_MUST_CHECK;
int
scenario_load_expect(struct sload *ld, const struct ynode *e) KAI_MUST_CHECK;
void scenario_expect_fini(struct expect *e);
/* scenario_pools.c: pools:, a node's taints:, a job's pool:. */
int scenario_load_pools(struct sload *ld, const struct ynode *ps)
    KAI_MUST_CHECK;
int scenario_load_taints(struct sload *ld, const struct ynode *ts,
    struct kai_sched_snap_node *node) KAI_MUST_CHECK;
int scenario_job_pool(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j) KAI_MUST_CHECK;
void scenario_pools_fini(struct scenario *sc);
/* scenario_caps.c: gpu_caps:, a job's gpu_cap:. */
int scenario_load_caps(struct sload *ld, const struct ynode *cs)
    KAI_MUST_CHECK;
int scenario_job_cap(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j) KAI_MUST_CHECK;
void scenario_caps_fini(struct scenario *sc);
/* scenario_accts.c: accounts:, a job's account:. */
int scenario_load_accounts(struct sload *ld, const struct ynode *as)
    KAI_MUST_CHECK;
int scenario_job_account(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j) KAI_MUST_CHECK;
void scenario_accounts_fini(struct scenario *sc);
/* scenario_types.c: config's gpu_type_label, gpu_types:, gpu_type:. */
int scenario_type_label(struct sload *ld, const struct ynode *config)
    KAI_MUST_CHECK;
/* Each node's type from its labels, once nodes and config are read. */
void scenario_node_types(struct scenario *sc);
int scenario_queue_types(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_queue *q) KAI_MUST_CHECK;
int scenario_job_type(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j) KAI_MUST_CHECK;
void scenario_types_fini(struct scenario *sc);
int scenario_expect_types(struct sload *ld, const struct ynode *map)
    KAI_MUST_CHECK;
/* scenario_nodereq.c: a node's features:, a job's constraint:,
 * nodelist: and exclude:. */
int scenario_node_features(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_node *n) KAI_MUST_CHECK;
int scenario_job_nodereq(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j) KAI_MUST_CHECK;

#endif /* KAI_CLIENTS_SCENARIO_H */
