/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * decay.h: the arithmetic of decayed usage (time-based fair share).
 *
 * A resource used at rate r (GPUs, cores, MiB) from t0 to t1 counts, seen
 * at time now, as
 *
 *	r * integral over [t0, t1] of 0.5^((now - t) / h) dt
 *
 * restricted to the window [now - W, now]: usage older than W is
 * forgotten, and the longer ago the rest was, the less it counts (h is
 * the half-life; h = 0 means no decay, a plain sum over the window).
 * The integral has a closed form, h / ln 2 * (0.5^((now - t1) / h) -
 * 0.5^((now - t0) / h)), so a job costs O(1) however long it ran.  The
 * normalised usage the core takes (struct kai_sched_qres.usage) is that
 * figure divided by what the whole cluster would count had it been busy
 * for the whole window: the capacity times the decayed window.
 *
 * Pure: no clock (now is an argument), no I/O.  Times are unix seconds.
 */
#ifndef KAI_SCHED_DECAY_H
#define KAI_SCHED_DECAY_H

#include <stdint.h>

struct kai_sched_decay {
	int64_t half_life_s;	/* 0: no decay */
	int64_t window_s;	/* > 0 */
};

/*
 * The decayed length of [t0, t1] seen at now, in seconds: the integral
 * above, with [t0, t1] cut to the window.  0 when nothing of it is in
 * the window (or t1 <= t0).
 */
double kai_sched_decayed_seconds(const struct kai_sched_decay *d, int64_t t0,
    int64_t t1, int64_t now);

/* The decayed length of the whole window: h / ln 2 * (1 - 0.5^(W / h)). */
double kai_sched_decayed_window(const struct kai_sched_decay *d);

/*
 * A decayed figure computed at then, seen at now >= then: v * 0.5^((now -
 * then) / h) (v itself without decay).  The window's edge is not applied:
 * this carries a figure forward between two full recomputations.
 */
double kai_sched_decay_since(const struct kai_sched_decay *d, double v,
    int64_t then, int64_t now);

/*
 * used (decayed resource-seconds) as a share of what capacity (a rate)
 * gives over the decayed window, in [0, 1]; 0 when capacity <= 0.
 */
double kai_sched_usage_share(const struct kai_sched_decay *d, double used,
    double capacity);

#endif /* KAI_SCHED_DECAY_H */
