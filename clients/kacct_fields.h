/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_fields.h: kacct's columns (kacct_fields.c): sacct's fields by
 * name, a -o list parsed into columns, and the accounting keys of
 * --json.
 */
#ifndef KAI_CLIENTS_KACCT_FIELDS_H
#define KAI_CLIENTS_KACCT_FIELDS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "jobfields.h"
#include "model/job.h"
#include "output.h"

#define MAX_FIELDS 64

/*
 * What a row's tasks used, as kaid recorded it for steps
 * (kacct_steps.c): MaxRSS, AveRSS and TotalCPU print it for the row
 * being printed, set by kacct_fields_usage() before its cells; with none
 * set, they print sacct's values for a job that ran no step.
 */
struct kacct_usage {
	bool rss;		/* max_rss_kb, ave_rss_kb are known */
	bool cpu;		/* cpu_usec is known */
	bool derived;		/* derived_code/_signal are known (a job's) */
	int derived_code;	/* DerivedExitCode: its steps' highest */
	int derived_signal;
	uint64_t max_rss_kb;
	uint64_t ave_rss_kb;
	uint64_t cpu_usec;
};
void kacct_fields_usage(const struct kacct_usage *u);
/* sacct's TotalCPU text: "MM:SS.mmm" under an hour, else [D-]HH:MM:SS. */
void kacct_cpu_text(uint64_t usec, char *b, size_t n);

/* A sacct field: its name (-o, --helpformat), width and writer. */
struct afield {
	const char *name;
	int width;
	bool right;
	jobfield_fn *fn;
};

/* The columns a -o list (or the default) asks for. */
struct columns {
	struct out_col cols[MAX_FIELDS];
	const struct afield *f[MAX_FIELDS];
	size_t n;
};

/* "JobID,JobName%30,state": names in any case, %N sets the width. */
int kacct_fields_parse(const char *list, struct columns *c,
    struct kai_err *err);
/* sacct --helpformat: every field's name, five a line. */
void kacct_fields_help(void);
/* The accounting keys added to each job of root's "jobs" (--json). */
void kacct_fields_json(struct json_object *root,
    const struct kai_jobinfo *const *v, size_t n, int64_t now);

#endif /* KAI_CLIENTS_KACCT_FIELDS_H */
