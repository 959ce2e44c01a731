/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fraggroup.h: nodes grouped by state, for the frag placement (frag.c).
 *
 * Two nodes with the same idle GPU per device (as a multiset), idle CPU,
 * idle memory and GPU memory size are alike to the fragmentation measure
 * and to a task that would fit on idle resources: the growth of F for a
 * task shape is the same on both, so it is computed once per group and
 * kept (a group's state never changes; nodes move between groups).  A
 * placement then looks at each group that has members instead of each
 * node, and a busy cluster has few: the empty nodes, the full ones and
 * the few partly filled.  Members are kept in rank (name) order, so the
 * binpack tie-break's last key, the name, is the first member that fits.
 */
#ifndef KAI_SCHED_FRAGGROUP_H
#define KAI_SCHED_FRAGGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sess;

struct fgroup {
	uint64_t h;       /* hash of the state */
	uint32_t idle0;   /* its idle GPU per device: fgroups.idle[idle0..] */
	uint32_t ngpu;    /* ... sorted, most idle first */
	uint32_t idlecap; /* room at idle0 */
	uint32_t whole;   /* devices wholly idle */
	int64_t cpu, mem; /* idle */
	int64_t gmem;     /* MiB per GPU */
	uint32_t *rank;   /* members' ranks, ascending */
	uint32_t n, cap;
	int32_t live; /* position in fgroups.live, -1 without members */
	uint32_t gen; /* bumped when the group is reused for a new state */
	bool queued;  /* in fgroups.empty */
	bool fb_ok;   /* fb is computed */
	double fb;    /* F_n(M) of the state */
};

/*
 * One task shape's results per group (NGSLOTS of them, least recently
 * used goes): valid for group g while stamp[g] == its gen.
 */
#define NGSLOTS 64
struct fgslot {
	uint64_t shape; /* 0 = unused */
	uint64_t used;  /* LRU clock */
	uint32_t *stamp;
	double *delta;   /* growth of F */
	int32_t *amount; /* a fraction's device idle; -1: does not fit */
};

struct fgroups {
	struct fgroup *g;
	uint32_t ng, capg, maxg;
	int32_t *idle; /* the groups' idle vectors, ngpu each from idle0 */
	size_t nidle, capidle;
	uint32_t *table; /* open addressing: group + 1, 0 = empty */
	uint32_t tcap;
	uint32_t *live; /* groups with members */
	uint32_t nlive;
	uint32_t *empty; /* ring of emptied groups, oldest first */
	uint32_t ehead, en;
	int32_t *of;     /* per node: its group, -1 = none (not schedulable) */
	uint32_t *dirty; /* nodes changed since the last flush */
	uint32_t ndirty;
	uint8_t *isdirty;
	struct fgslot slot[NGSLOTS];
	uint64_t clock;
};

/* Groups every schedulable node of S. */
void kai_sched_fgroups_init(struct fgroups *G, const struct sess *S);
void kai_sched_fgroups_fini(struct fgroups *G);
/* Notes that node n changed (kai_sched_node_refresh()). */
void kai_sched_fgroups_touch(struct fgroups *G, uint32_t n);
/* Moves the changed nodes to the groups of their new states. */
void kai_sched_fgroups_flush(struct fgroups *G, const struct sess *S);
/* The results of a shape (a new slot, all invalid, if it has none). */
struct fgslot *kai_sched_fgroups_slot(struct fgroups *G, uint64_t shape);

#endif /* KAI_SCHED_FRAGGROUP_H */
