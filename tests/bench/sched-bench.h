/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bench.h: shared helpers of the scheduler benchmark
 * (sched-bench.c, synthetic clusters; sched-bench-trace.c, the Alibaba
 * trace replay).
 */
#ifndef KAI_TESTS_SCHED_BENCH_H
#define KAI_TESTS_SCHED_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "sched/sched_model.h"

/* The bench's own generator (xorshift64*): the core never sees it. */
struct bench_rng {
	uint64_t s;
};

uint64_t bench_rand(struct bench_rng *r);
/* Uniform in [0, n). */
uint32_t bench_below(struct bench_rng *r, uint32_t n);
double bench_now_ms(void);
/* CPU time of this process: steadier than wall time on a busy host. */
double bench_cpu_ms(void);
long bench_peak_rss_kib(void);

/*
 * The steady state through context c (sched-bench-steady.c): the
 * cluster settled (tasks changed), then a cycle after a cycle with no
 * change, and after 1 % of the pending jobs changed (s->jobs is jobs,
 * s->tasks tasks).  Prints the figures.
 */
void bench_steady(struct kai_sched_ctx *c, struct kai_sched_snapshot *s,
    struct kai_sched_snap_job *jobs, struct kai_sched_snap_task *tasks,
    unsigned runs);

/*
 * The trace replay: returns 0 and prints the figures, or -1 after
 * printing why the files could not be read.
 */
int bench_trace(const char *dir, unsigned seeds, const char *curve_path);

/* Trace files (sched-bench-trace.c): at most BENCH_FIELDS comma fields. */
#define BENCH_FIELDS 12
int bench_split(char *line, char **f);
FILE *bench_open_in(const char *dir, const char *file);
/* The GPU nodes of DIR/nodes.csv; names are owned by *names. */
int bench_read_nodes(const char *dir, struct kai_sched_snap_node **out,
    size_t *n, char ***names);

/* The time-running replay (sched-bench-time.c): prints; -1 on bad files. */
int bench_time(const char *dir, unsigned compress);

/* The starvation simulation, with and without backfill: prints. */
void bench_starve(void);

#endif /* KAI_TESTS_SCHED_BENCH_H */
