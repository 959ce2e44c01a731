/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * incr.h: the kept state of cycles fed by it (incr.c, incr_world.c);
 * private to those two files.
 */
#ifndef KAI_SCHED_INCR_H
#define KAI_SCHED_INCR_H

#include "sched/sched_int.h"

/* A growable run of bytes. */
struct inc_bytes {
	unsigned char *p;
	size_t n, cap;
};

/* Writes everything of s but its jobs and tasks into b (from empty). */
void kai_sched_inc_world(struct inc_bytes *b,
    const struct kai_sched_snapshot *s);

enum {
	TAG_HOLD = 1, /* the job has a task that is not pending */
	TAG_OUT = 2   /* the job is left out while the leaf is kept */
};

/*
 * What a closed leaf queue left for the next cycle: its jobs in
 * snapshot order, by number (kai_sched_snapshot.job_gen), which of
 * them may be left out with the reason they were given, and what the
 * phases would need to know of the left-out ones to take any of them.
 */
struct inc_leaf {
	uint32_t n;     /* jobs; 0: no record */
	uint32_t nout;  /* of them left out */
	size_t nout_tasks; /* their tasks */
	uint64_t *gen;  /* [n] */
	uint8_t *tag;   /* [n] TAG_* */
	/* For TAG_OUT, its reason: whys[wix[i]].  The left-out jobs of a
	 * leaf mostly wait for the same reason with the same figures, so
	 * each distinct one is kept once (40 bytes a job were 38 MiB at a
	 * million jobs, where these records are the peak's last part). */
	uint32_t *wix; /* [n] */
	struct kai_sched_why_info *whys;
	uint32_t nwhys, capwhys;
	uint32_t *off; /* [n]: left-out jobs ahead of it that wait (the
			  "N jobs ahead" its reason counts), for the others */
	int64_t extra[NRES];  /* their pending tasks' requests */
	bool wants;           /* one of them wants placing (not held...) */
	int64_t minreq[NRES]; /* ... the least next step, per resource */
	int64_t maxprio;      /* ... the highest priority */
	int64_t mingpu;       /* ... the least GPU of a preemptible one's
				 step that asks for GPU; INT64_MAX: none */
	bool quiet;           /* recorded by a cycle that changed nothing:
				 jobs a later phase takes (and fails to
				 place) may be left out */
	uint64_t fs_gen;      /* the fair shares it was recorded under */
	/* The order of its users, which decay moves (the world holds no
	 * user's usage): its groups that had jobs in the order, sorted by
	 * the usage the order read (the user's, plus held[] -- the
	 * group's GPUs as a share of the cluster's, fixed by the world
	 * and the holding jobs); tie[i]: equal to the one before. */
	uint32_t ngrp;
	int32_t *guser; /* [ngrp] the user, -1 none */
	double *gheld;  /* [ngrp] */
	uint8_t *gtie;  /* [ngrp] */
	/* With the frag placement: the left-out jobs' tasks' share of the
	 * request mix frag learns from every task (frag.c). */
	struct kai_sched_mix_row *mix;
	uint32_t nmix;
};

struct kai_sched_inc {
	bool have;             /* the records below are of the last cycle */
	struct inc_bytes world; /* kai_sched_inc_world() of that cycle */
	uint64_t *hold;        /* numbers of its jobs with TAG_HOLD, in order */
	size_t nhold;
	uint32_t nq;
	struct inc_leaf *leaf; /* per queue */
	int64_t *fs;           /* [nfs * NRES]: the last cycle's fair shares */
	uint32_t nfs;
	uint64_t fs_gen;       /* bumped when they change */
	size_t left_out;       /* by the last cycle */
};

/* One cycle's view of it (sess.inc). */
struct kai_sched_inc_run {
	struct kai_sched_inc *k;
	const uint64_t *gen;     /* per session job: its number */
	const uint8_t *dormant;  /* per queue: its record is used; NULL */
	uint8_t *head;           /* per session job: first waiting ones */
	uint32_t *nhead;         /* per queue: how many marked */
	const uint32_t *off;     /* per session job: inc_leaf.off; NULL */
	uint32_t *seq;           /* closed leaves' jobs in their order */
	uint32_t *ahead;         /* per session job: the leaf's waiting
				    jobs before it, when it was taken */
	uint32_t nseq;
	double *gheld;           /* per group: its held share, as the
				    closed leaves' order read it ... */
	uint8_t *gseen;          /* ... when set */
	uint8_t *wanted;         /* per queue: a job of it in the session
				    wants placing (after allocate) */
	bool abort;              /* redo the cycle over every job */
	bool need_quiet;         /* ... unless it changes nothing */
	uint64_t fs_gen;         /* this cycle's fair shares' number */
	int64_t *fs;             /* ... and they, when new */
	/* what kai_sched_inc_capture() found */
	bool captured;
	struct inc_leaf *fresh;  /* per queue: new records */
	uint64_t *hold;
	size_t nhold, caphold;
};

/* incr.c: a record's arrays freed, the record emptied. */
void kai_sched_inc_leaf_free(struct inc_leaf *L);
/* incr.c: no queue has a min runtime for phase a (reclaim, preempt). */
bool kai_sched_inc_no_min_runtime(const struct sess *S,
    enum kai_sched_action a);

#endif /* KAI_SCHED_INCR_H */
