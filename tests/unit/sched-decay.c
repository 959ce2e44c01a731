/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-decay: the arithmetic of decayed usage (src/sched/decay.c).
 *
 * The closed form is checked against a plain numeric sum of the decay
 * factor second by second, so a wrong sign or a wrong base shows; then
 * the properties an admin relies on: one half-life ago counts half, the
 * window forgets, no decay is a plain sum, carrying a figure forward
 * agrees with recomputing it, and the share is clamped to [0, 1].
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "sched/decay.h"
#include "tap.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol) * fmax(1.0, fabs(b)))

/* Sum of 0.5^((now - t - 0.5) / h) over the seconds of [t0, t1) in the window. */
static double
numeric(const struct kai_sched_decay *d, int64_t t0, int64_t t1, int64_t now)
{
	double s = 0;
	int64_t t;

	for (t = t0; t < t1; t++) {
		if (t < now - d->window_s || t >= now)
			continue;
		s += d->half_life_s > 0 ? exp2(-((double)(now - t) - 0.5) /
		    (double)d->half_life_s) : 1.0;
	}
	return s;
}

static void
test_closed_form(void)
{
	struct kai_sched_decay d = {3600, 86400};
	int64_t now = 1700000000;
	double a, b;

	a = kai_sched_decayed_seconds(&d, now - 7200, now - 600, now);
	b = numeric(&d, now - 7200, now - 600, now);
	ok(NEAR(a, b, 1e-6), "closed form = numeric sum (%.3f vs %.3f)", a, b);
	a = kai_sched_decayed_seconds(&d, now - 100000, now + 500, now);
	b = numeric(&d, now - 100000, now + 500, now);
	ok(NEAR(a, b, 1e-6), "cut to the window and to now (%.3f vs %.3f)", a,
	    b);
	/* A second that ended one half-life ago counts about half. */
	a = kai_sched_decayed_seconds(&d, now - 3601, now - 3600, now);
	ok(NEAR(a, 0.5, 1e-3), "one half-life ago counts half (%.5f)", a);
	a = kai_sched_decayed_seconds(&d, now - 1, now, now);
	ok(NEAR(a, 1.0, 1e-3), "the last second counts whole (%.5f)", a);
	ok(kai_sched_decayed_seconds(&d, now - 200000, now - 90000, now) == 0,
	    "usage before the window counts nothing");
	ok(kai_sched_decayed_seconds(&d, now, now - 5, now) == 0,
	    "an empty interval counts nothing");
}

static void
test_no_decay(void)
{
	struct kai_sched_decay d = {0, 600};
	int64_t now = 1000000;

	ok(kai_sched_decayed_seconds(&d, now - 300, now - 100, now) == 200,
	    "half-life 0: a plain sum");
	ok(kai_sched_decayed_seconds(&d, now - 900, now, now) == 600,
	    "still cut to the window");
	ok(kai_sched_decayed_window(&d) == 600, "the window is its length");
	ok(kai_sched_decay_since(&d, 42, now - 500, now) == 42,
	    "nothing fades without decay");
}

static void
test_window_and_carry(void)
{
	struct kai_sched_decay d = {86400, 7 * 86400};
	int64_t now = 1700000000, later = now + 5000;
	double w = kai_sched_decayed_window(&d), a, b;

	ok(NEAR(w, 86400 / log(2) * (1 - 1.0 / 128), 1e-9),
	    "the decayed window of 7 half-lives (%.1f s)", w);
	/* A figure carried forward = the same interval recomputed later. */
	a = kai_sched_decay_since(&d,
	    kai_sched_decayed_seconds(&d, now - 4000, now - 1000, now), now,
	    later);
	b = kai_sched_decayed_seconds(&d, now - 4000, now - 1000, later);
	ok(NEAR(a, b, 1e-9), "carrying forward = recomputing (%.4f vs %.4f)",
	    a, b);
	ok(kai_sched_usage_share(&d, 0, 8) == 0, "no usage, share 0");
	ok(NEAR(kai_sched_usage_share(&d, 8 * w / 4, 8), 0.25, 1e-12),
	    "a quarter of the capacity over the window is 0.25");
	ok(kai_sched_usage_share(&d, 100 * w, 8) == 1, "clamped to 1");
	ok(kai_sched_usage_share(&d, 5, 0) == 0, "no capacity, share 0");
}

int
main(void)
{
	test_closed_form();
	test_no_decay();
	test_window_and_carry();
	return done_testing();
}
