/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * prom.c: the Prometheus text exposition format 0.0.4 writer.
 *
 * Only the writer lives here; what kaid measures and when is
 * daemons/kaid/metrics.c.  The format is line-based, so the one thing a
 * writer must never do is let a caller's text break a line or a quoted
 * label value: every string from outside goes through escape().
 */
#include "config.h"

#include "proto/prom.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
kai_prom_init(struct kai_prom *w, struct kai_buf *buf)
{
	w->buf = buf;
	w->error = 0;
}

static void
add(struct kai_prom *w, const char *s, size_t n)
{
	if (w->error == 0)
		w->error = kai_buf_add(w->buf, s, n);
}

static void
adds(struct kai_prom *w, const char *s)
{
	add(w, s, strlen(s));
}

/* s with backslash, newline and (quoted: true) double quote escaped. */
static void
escape(struct kai_prom *w, const char *s, bool quoted)
{
	const char *run = s;

	for (; *s != '\0'; s++) {
		const char *rep = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" :
		    *s == '"' && quoted ? "\\\"" : NULL;

		if (rep == NULL)
			continue;
		add(w, run, (size_t)(s - run));
		adds(w, rep);
		run = s + 1;
	}
	add(w, run, (size_t)(s - run));
}

void
kai_prom_value(double v, char *buf, size_t size)
{
	if (isnan(v))
		(void)snprintf(buf, size, "NaN");
	else if (isinf(v))
		(void)snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
	else if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v)
		(void)snprintf(buf, size, "%.0f", v);
	else {
		(void)snprintf(buf, size, "%.15g", v);
		if (strtod(buf, NULL) != v)
			(void)snprintf(buf, size, "%.17g", v);
	}
}

void
kai_prom_family(struct kai_prom *w, const char *name, const char *type,
    const char *help)
{
	adds(w, "# HELP ");
	adds(w, name);
	adds(w, " ");
	escape(w, help, false);
	adds(w, "\n# TYPE ");
	adds(w, name);
	adds(w, " ");
	adds(w, type);
	adds(w, "\n");
}

/* name{labels[,extra_key="extra_val"]} value */
static void
sample(struct kai_prom *w, const char *name, const char *suffix,
    const char *const *labels, size_t nlabels, const char *le, double value)
{
	char num[64];
	size_t i;

	adds(w, name);
	adds(w, suffix);
	if (nlabels > 0 || le != NULL)
		adds(w, "{");
	for (i = 0; i < nlabels; i++) {
		if (i > 0)
			adds(w, ",");
		adds(w, labels[2 * i]);
		adds(w, "=\"");
		escape(w, labels[2 * i + 1], true);
		adds(w, "\"");
	}
	if (le != NULL) {
		adds(w, nlabels > 0 ? ",le=\"" : "le=\"");
		adds(w, le);
		adds(w, "\"");
	}
	if (nlabels > 0 || le != NULL)
		adds(w, "}");
	kai_prom_value(value, num, sizeof(num));
	adds(w, " ");
	adds(w, num);
	adds(w, "\n");
}

void
kai_prom_sample(struct kai_prom *w, const char *name,
    const char *const *labels, size_t nlabels, double value)
{
	sample(w, name, "", labels, nlabels, NULL, value);
}

void
kai_prom_histogram(struct kai_prom *w, const char *name,
    const char *const *labels, size_t nlabels, const struct kai_prom_hist *h)
{
	char le[64];
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i < h->nbounds; i++) {
		cum += h->counts[i];
		kai_prom_value(h->bounds[i], le, sizeof(le));
		sample(w, name, "_bucket", labels, nlabels, le, (double)cum);
	}
	cum += h->counts[h->nbounds];
	sample(w, name, "_bucket", labels, nlabels, "+Inf", (double)cum);
	sample(w, name, "_sum", labels, nlabels, NULL, h->sum);
	sample(w, name, "_count", labels, nlabels, NULL, (double)cum);
}

int
kai_prom_finish(const struct kai_prom *w)
{
	return w->error;
}
