/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobsort.h: squeue's -S/--sort for kqueue.  A spec is a comma-separated
 * list of -o letters, each "+" (ascending, the default) or "-"
 * (descending): "-t,p,i" orders by state descending, then priority, then
 * job id.  Jobs equal on every key keep job id order.
 */
#ifndef KAI_CLIENTS_JOBSORT_H
#define KAI_CLIENTS_JOBSORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/job.h"

#define JOBSORT_KEYS_MAX 32

struct jobsort {
	struct {
		char letter;
		int dir; /* 1 ascending, -1 descending */
	} key[JOBSORT_KEYS_MAX];
	size_t n;
	int64_t now; /* for %M, %L: the time the list is printed */
};

/* Parses spec into s; a one-line error naming the bad field otherwise. */
int jobsort_parse(const char *spec, struct jobsort *s, struct kai_err *err);

/*
 * A qsort comparison of two const struct kai_jobinfo * by the spec last
 * given to jobsort_use (kqueue sorts one list per run, so the spec can
 * live in the module rather than travel through qsort).
 */
void jobsort_use(const struct jobsort *s);
int jobsort_cmp(const void *a, const void *b);

#endif
