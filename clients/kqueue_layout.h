/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kqueue_layout.h: kqueue's output line (kqueue_layout.c): squeue's
 * fields, -o and -O parsed into a layout, and a job printed by it.
 */
#ifndef KAI_CLIENTS_KQUEUE_LAYOUT_H
#define KAI_CLIENTS_KQUEUE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/job.h"

struct seg;

/* The pieces of an output line, in order. */
struct layout {
	struct seg *segs;
	size_t n;
};

/* squeue -o: "%[.][width]X" and literal text, appended to l. */
int kqueue_layout_format(const char *fmt, struct layout *l,
    struct kai_err *err);
/* squeue -O: "JobID,UserName:10,State:.8", 20 wide by default. */
int kqueue_layout_Format(const char *fmt, struct layout *l,
    struct kai_err *err);
void kqueue_layout_free(struct layout *l);
/* One line of j by l to stdout, or the header when j is NULL. */
void kqueue_layout_print(const struct layout *l, const struct kai_jobinfo *j,
    int64_t now);

#endif /* KAI_CLIENTS_KQUEUE_LAYOUT_H */
