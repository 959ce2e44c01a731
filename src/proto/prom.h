/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * prom.h: the Prometheus text exposition format, version 0.0.4, written
 * into a bounded buffer: what kaid's GET /metrics answers.
 *
 * A writer latches its first error (the buffer's limit), like a stdio
 * stream, so a page is a straight list of calls checked once at the end
 * with kai_prom_finish().  Metric and label names are the caller's
 * constants and must match [a-zA-Z_:][a-zA-Z0-9_:]*; help text and label
 * values may hold anything and are escaped as the format requires (help:
 * backslash and newline; label values: backslash, double quote and
 * newline).  Values are printed exactly for integers, in the shortest
 * form that reads back the same otherwise, and as +Inf, -Inf or NaN.
 */
#ifndef KAI_PROTO_PROM_H
#define KAI_PROTO_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"

#define KAI_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct kai_prom {
	struct kai_buf *buf;	/* borrowed */
	int error;		/* 0, or the first KAI_E* of an append */
};

/* A histogram's state: counts[i] observations <= bounds[i] and above
 * bounds[i - 1]; counts[nbounds] those above every bound. */
struct kai_prom_hist {
	const double *bounds;	/* increasing, finite */
	const uint64_t *counts;	/* nbounds + 1 of them, not cumulative */
	size_t nbounds;
	double sum;
};

/* Starts writing to buf (appends: buf need not be empty). */
void kai_prom_init(struct kai_prom *w, struct kai_buf *buf);
/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram). */
void kai_prom_family(struct kai_prom *w, const char *name, const char *type,
    const char *help);
/*
 * One sample: name{k1="v1",...} value.  labels holds nlabels key, value
 * pairs (2 * nlabels strings); no braces when nlabels is 0.
 */
void kai_prom_sample(struct kai_prom *w, const char *name,
    const char *const *labels, size_t nlabels, double value);
/* name_bucket{...,le="b"} (cumulative, then le="+Inf"), name_sum, name_count. */
void kai_prom_histogram(struct kai_prom *w, const char *name,
    const char *const *labels, size_t nlabels, const struct kai_prom_hist *h);
/* 0, or KAI_EINVAL when an append passed the buffer's limit. */
int kai_prom_finish(const struct kai_prom *w) KAI_MUST_CHECK;

/* v as the format writes it, into buf (always NUL-terminated). */
void kai_prom_value(double v, char *buf, size_t size);

#endif /* KAI_PROTO_PROM_H */
