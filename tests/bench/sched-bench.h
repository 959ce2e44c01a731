/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench.h: shared helpers of the scheduler benchmark
 * (sched-bench.c, synthetic clusters; sched-bench-trace.c, the Alibaba
 * trace replay).
 */
#ifndef KAI_TESTS_SCHED_BENCH_H
#define KAI_TESTS_SCHED_BENCH_H

#include <stdint.h>

#include "sched/sched_model.h"

/* The bench's own generator (xorshift64*): the core never sees it. */
struct bench_rng {
	uint64_t s;
};

uint64_t bench_rand(struct bench_rng *r);
/* Uniform in [0, n). */
uint32_t bench_below(struct bench_rng *r, uint32_t n);
double bench_now_ms(void);
long bench_peak_rss_kib(void);

/*
 * The trace replay: returns 0 and prints the figures, or -1 after
 * printing why the files could not be read.
 */
int bench_trace(const char *dir, unsigned seeds, const char *curve_path);

/* The starvation simulation, with and without backfill: prints. */
void bench_starve(void);

#endif /* KAI_TESTS_SCHED_BENCH_H */
