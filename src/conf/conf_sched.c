/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_sched.c: the value types of kaid.yaml's scheduling: section -- a
 * decimal number (k_value), a whole number (max_consolidation_moves), a
 * duration that may be "never" (stale_gang_grace) and a list of distinct
 * phase names (phases).
 *
 * They follow conf_types.c: the value is checked whole before the field
 * is written, bounds come from the entry, and a refusal names the key
 * and what was expected at the value's line and column.  A number's
 * bounds are whole numbers (the entry's min and max), which is all the
 * scheduling keys need.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/strconv.h"
#include "conf/conf.h"
#include "conf/conf_int.h"

/* Moves to the next event, which must be a clean scalar. */
static int
next_scalar(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const char *expect)
{
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	return kai_conf_scalar_here(rd, e, shown, expect);
}

int
kai_conf_parse_number(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	double v;
	int r;

	if ((r = next_scalar(rd, e, shown, "a number")) != 0)
		return r;
	if (kai_strtod(kai_conf_text(rd), (double)e->min, (double)e->max, &v,
	    "number", NULL) != 0)
		return kai_conf_rd_bad(rd, e, shown,
		    "expected a number between %" PRId64 " and %" PRId64,
		    e->min, e->max);
	*FIELD(base, e, double) = v;
	return 0;
}

int
kai_conf_dump_number(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	(void)indent;
	return kai_buf_addf(b, "%g", *CFIELD(base, e, double));
}

int
kai_conf_parse_integer(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	int64_t v;
	int r;

	if ((r = next_scalar(rd, e, shown, "a whole number")) != 0)
		return r;
	if (kai_strtoi64(kai_conf_text(rd), e->min, e->max, &v, "number",
	    NULL) != 0)
		return kai_conf_rd_bad(rd, e, shown,
		    "expected a whole number between %" PRId64 " and %" PRId64,
		    e->min, e->max);
	*FIELD(base, e, int64_t) = v;
	return 0;
}

int
kai_conf_dump_integer(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	(void)indent;
	return kai_buf_addf(b, "%" PRId64, *CFIELD(base, e, int64_t));
}

/* "never" is -1; anything else is a duration in the entry's bounds. */
int
kai_conf_parse_grace(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	int r;

	if ((r = next_scalar(rd, e, shown, "a duration or \"never\"")) != 0)
		return r;
	if (strcmp(kai_conf_text(rd), "never") == 0) {
		*FIELD(base, e, int64_t) = -1;
		return 0;
	}
	return kai_conf_duration_here(rd, e, shown, base);
}

int
kai_conf_dump_grace(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	if (*CFIELD(base, e, int64_t) < 0)
		return kai_buf_adds(b, "never");
	return kai_conf_types[KAI_CONF_DURATION].dump(b, e, base, indent);
}

/* The index of the current scalar among e's choices, or -1. */
static int
choice(const struct kai_conf_rd *rd, const struct kai_conf_entry *e)
{
	int i;

	for (i = 0; e->choices[i] != NULL; i++)
		if (strcmp(kai_conf_text(rd), e->choices[i]) == 0)
			return i;
	return -1;
}

int
kai_conf_parse_phases(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	int v[KAI_CONF_PHASES_MAX], c, r;
	size_t n = 0, i;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type == YAML_SCALAR_EVENT && kai_conf_is_null(&rd->ev)) {
		*COUNT(base, e) = 0;
		return 0;
	}
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown,
		    "expected a list of phase names");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			return r;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((r = kai_conf_scalar_here(rd, e, shown, "a phase name")) != 0)
			return r;
		if ((c = choice(rd, e)) < 0)
			return kai_conf_rd_bad(rd, e, shown, "expected allocate, "
			    "consolidation, reclaim, preempt or "
			    "stalegangeviction");
		for (i = 0; i < n; i++)
			if (v[i] == c)
				return kai_conf_rd_bad(rd, e, shown,
				    "phase listed twice");
		v[n++] = c; /* distinct choices: n stays below the max */
	}
	if (n == 0)
		return kai_conf_rd_fail(rd,
		    "invalid value for \"%s\": expected at least one phase",
		    shown);
	memcpy(FIELD(base, e, int), v, n * sizeof(v[0]));
	*COUNT(base, e) = n;
	return 0;
}

int
kai_conf_dump_phases(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const int *v = CFIELD(base, e, int);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r;

	(void)indent;
	if (n == 0)
		return kai_buf_adds(b, "~");
	r = kai_buf_addc(b, '[');
	for (i = 0; r == 0 && i < n; i++)
		r = kai_buf_addf(b, "%s%s", i > 0 ? ", " : "",
		    e->choices[v[i]]);
	return r != 0 ? r : kai_buf_addc(b, ']');
}

void
kai_conf_release_phases(const struct kai_conf_entry *e, void *base)
{
	*COUNT(base, e) = 0;
}
