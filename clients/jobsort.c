/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobsort.c: squeue's -S sort spec over our job record.  See jobsort.h.
 * Numbers compare as numbers (squeue's %i 9 before 10), names as bytes.
 */
#include "config.h"

#include "jobsort.h"

#include <string.h>

#include "jobquery.h"

static const struct jobsort *use;

/* The letters -S takes: kqueue's -o letters (the constant ones tie). */
static const char letters[] = "AabCcDEeFGiKjkLlMmNnOPpQqRrSTtUuVvxYyZz";

int
jobsort_parse(const char *spec, struct jobsort *s, struct kai_err *err)
{
	const char *p = spec;
	int dir;

	memset(s, 0, sizeof(*s));
	if (*p == '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --sort \"\": no field");
	for (;;) {
		dir = 1;
		if (*p == '+' || *p == '-')
			dir = *p++ == '-' ? -1 : 1;
		if (*p == '%')
			p++;
		if (*p == '\0' || *p == ',')
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --sort \"%s\": an empty field", spec);
		if (strchr(letters, *p) == NULL ||
		    (p[1] != ',' && p[1] != '\0'))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --sort \"%s\": unrecognized field \"%.*s\"",
			    spec, (int)strcspn(p, ","), p);
		if (s->n == JOBSORT_KEYS_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --sort \"%s\": more than %d fields", spec,
			    JOBSORT_KEYS_MAX);
		s->key[s->n].letter = *p++;
		s->key[s->n++].dir = dir;
		if (*p == '\0')
			return 0;
		p++; /* the comma */
	}
}

void
jobsort_use(const struct jobsort *s)
{
	use = s;
}

static int
num(int64_t x, int64_t y)
{
	return x < y ? -1 : x > y;
}

static int
str(const char *x, const char *y)
{
	int c = strcmp(x != NULL ? x : "", y != NULL ? y : "");

	return c < 0 ? -1 : c > 0;
}

static int64_t
start_of(const struct kai_jobinfo *j)
{
	return j->state == KAI_JOB_PENDING ? j->est_start : j->start_time;
}

/* Seconds left of the limit; unlimited sorts after any figure. */
static int64_t
left_of(const struct kai_jobinfo *j, int64_t now)
{
	if (j->time_limit_s <= 0)
		return INT64_MAX;
	return j->time_limit_s - jobquery_elapsed(j, now);
}

static int
key_cmp(char c, const struct kai_jobinfo *x, const struct kai_jobinfo *y,
    int64_t now)
{
	switch (c) {
	case 'A':
	case 'i':
		return num((int64_t)x->id, (int64_t)y->id);
	case 'a':
		return str(x->account, y->account);
	case 'b':
		return num((int64_t)jobquery_gpus(x), (int64_t)jobquery_gpus(y));
	case 'C':
		return num((int64_t)jobquery_cpus(x), (int64_t)jobquery_cpus(y));
	case 'c':
		return num(x->cpus_per_task, y->cpus_per_task);
	case 'D':
		return num(x->ntasks, y->ntasks);
	case 'e':
		return num(x->end_time, y->end_time);
	case 'F':
	case 'K':
		return str(x->array_id, y->array_id);
	case 'G':
		return num(x->gid, y->gid);
	case 'j':
		return str(x->name, y->name);
	case 'L':
		return num(left_of(x, now), left_of(y, now));
	case 'l':
		return num(x->time_limit_s <= 0 ? INT64_MAX : x->time_limit_s,
		    y->time_limit_s <= 0 ? INT64_MAX : y->time_limit_s);
	case 'M':
		return num(jobquery_elapsed(x, now), jobquery_elapsed(y, now));
	case 'm':
		return num((int64_t)x->mem_mb, (int64_t)y->mem_mb);
	case 'N':
	case 'Y':
		return str(x->nodelist, y->nodelist);
	case 'P':
		return str(x->queue, y->queue);
	case 'p':
	case 'Q':
		return num(x->priority, y->priority);
	case 'R':
	case 'r':
		return str(x->reason, y->reason);
	case 'S':
		return num(start_of(x), start_of(y));
	case 'T':
	case 't':
		return num(x->state, y->state);
	case 'U':
		return num(x->uid, y->uid);
	case 'u':
		return str(x->user, y->user);
	case 'V':
		return num(x->submit_time, y->submit_time);
	case 'Z':
		return str(x->workdir, y->workdir);
	default:
		return 0;
	}
}

int
jobsort_cmp(const void *a, const void *b)
{
	const struct kai_jobinfo *x = *(const struct kai_jobinfo *const *)a;
	const struct kai_jobinfo *y = *(const struct kai_jobinfo *const *)b;
	size_t i;
	int c;

	for (i = 0; use != NULL && i < use->n; i++)
		if ((c = key_cmp(use->key[i].letter, x, y, use->now)) != 0)
			return c * use->key[i].dir;
	return num((int64_t)x->id, (int64_t)y->id);
}
