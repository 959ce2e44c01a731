/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * decay.c: decayed usage (see decay.h for the formula).
 *
 * Everything is computed relative to now, never from absolute times:
 * 2^(t / h) for a unix time t overflows a double for any short half-life,
 * while 0.5^((now - t) / h) stays in [0, 1].
 */
#include "config.h"

#include <math.h>

#include "sched/decay.h"

#define LN2 0.69314718055994530942

static double
factor(const struct kai_sched_decay *d, int64_t age)
{
	return exp2(-(double)age / (double)d->half_life_s);
}

double
kai_sched_decayed_seconds(const struct kai_sched_decay *d, int64_t t0,
    int64_t t1, int64_t now)
{
	int64_t from = now - d->window_s;

	if (t0 < from)
		t0 = from;
	if (t1 > now)
		t1 = now;
	if (t1 <= t0)
		return 0;
	if (d->half_life_s <= 0)
		return (double)(t1 - t0);
	return (double)d->half_life_s / LN2 *
	    (factor(d, now - t1) - factor(d, now - t0));
}

double
kai_sched_decayed_window(const struct kai_sched_decay *d)
{
	return kai_sched_decayed_seconds(d, 0, d->window_s, d->window_s);
}

double
kai_sched_decay_since(const struct kai_sched_decay *d, double v, int64_t then,
    int64_t now)
{
	if (d->half_life_s <= 0 || now <= then)
		return v;
	return v * factor(d, now - then);
}

double
kai_sched_usage_share(const struct kai_sched_decay *d, double used,
    double capacity)
{
	double full = capacity * kai_sched_decayed_window(d);

	if (!(full > 0) || !(used > 0))
		return 0;
	return used >= full ? 1 : used / full;
}
