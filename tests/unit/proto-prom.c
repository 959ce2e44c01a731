/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-prom: the Prometheus text exposition writer.
 *
 * A page of a counter, a labelled gauge and a histogram comes out byte
 * for byte as the 0.0.4 format wants it; help text and label values are
 * escaped; values print exactly; a full buffer latches an error.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "proto/prom.h"
#include "tap.h"

static const char *
val(double v)
{
	static char b[64];

	kai_prom_value(v, b, sizeof(b));
	return b;
}

static void
page(void)
{
	static const double bounds[] = {0.01, 0.5};
	static const uint64_t counts[] = {3, 1, 2};
	const struct kai_prom_hist h = {bounds, counts, 2, 7.25};
	const char *lq[] = {"queue", "a\"b\\c\nd", "state", "PENDING"};
	const char *lr[] = {"resource", "gpu"};
	struct kai_buf b;
	struct kai_prom w;

	kai_buf_init(&b, 1 << 20);
	kai_prom_init(&w, &b);
	kai_prom_family(&w, "k_ticks_total", "counter",
	    "Ticks run, with a \\ and\na newline \"quoted\".");
	kai_prom_sample(&w, "k_ticks_total", NULL, 0, 42);
	kai_prom_family(&w, "k_jobs", "gauge", "Jobs.");
	kai_prom_sample(&w, "k_jobs", lq, 2, 3);
	kai_prom_family(&w, "k_cycle_seconds", "histogram", "Cycle time.");
	kai_prom_histogram(&w, "k_cycle_seconds", lr, 1, &h);
	kai_prom_histogram(&w, "k_bare", NULL, 0, &h);
	is_int(kai_prom_finish(&w), 0, "the page fits");
	is_str(b.data,
	    "# HELP k_ticks_total Ticks run, with a \\\\ and\\na newline "
	    "\"quoted\".\n"
	    "# TYPE k_ticks_total counter\n"
	    "k_ticks_total 42\n"
	    "# HELP k_jobs Jobs.\n"
	    "# TYPE k_jobs gauge\n"
	    "k_jobs{queue=\"a\\\"b\\\\c\\nd\",state=\"PENDING\"} 3\n"
	    "# HELP k_cycle_seconds Cycle time.\n"
	    "# TYPE k_cycle_seconds histogram\n"
	    "k_cycle_seconds_bucket{resource=\"gpu\",le=\"0.01\"} 3\n"
	    "k_cycle_seconds_bucket{resource=\"gpu\",le=\"0.5\"} 4\n"
	    "k_cycle_seconds_bucket{resource=\"gpu\",le=\"+Inf\"} 6\n"
	    "k_cycle_seconds_sum{resource=\"gpu\"} 7.25\n"
	    "k_cycle_seconds_count{resource=\"gpu\"} 6\n"
	    "k_bare_bucket{le=\"0.01\"} 3\n"
	    "k_bare_bucket{le=\"0.5\"} 4\n"
	    "k_bare_bucket{le=\"+Inf\"} 6\n"
	    "k_bare_sum 7.25\n"
	    "k_bare_count 6\n",
	    "help escaped, label values escaped, buckets cumulative");
	kai_buf_fini(&b);
}

static void
values(void)
{
	is_str(val(0), "0", "zero");
	is_str(val(-3), "-3", "a negative integer");
	is_str(val(1763779200), "1763779200", "a unix time, no exponent");
	is_str(val(18446744073709551615.0), "1.8446744073709552e+19",
	    "a huge counter reads back");
	is_str(val(0.1), "0.1", "0.1 in its shortest form");
	is_str(val(1.0 / 3), "0.33333333333333331", "1/3 reads back exactly");
	is_str(val(INFINITY), "+Inf", "+Inf");
	is_str(val(-INFINITY), "-Inf", "-Inf");
	is_str(val(NAN), "NaN", "NaN");
}

static void
full(void)
{
	struct kai_buf b;
	struct kai_prom w;

	kai_buf_init(&b, 40);
	kai_prom_init(&w, &b);
	kai_prom_family(&w, "k_x", "gauge", "A help text longer than forty.");
	kai_prom_sample(&w, "k_x", NULL, 0, 1);
	is_int(kai_prom_finish(&w), KAI_EINVAL, "a full buffer latches EINVAL");
	ok(b.len <= 40, "and the buffer kept its limit");
	kai_buf_fini(&b);
}

int
main(void)
{
	plan(13);
	page();
	values();
	full();
	return done_testing();
}
