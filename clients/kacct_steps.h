/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_steps.h: the N.batch and N.0, N.1... rows under each job, as
 * sacct shows them by default (kacct -X leaves them out).
 */
#ifndef KAI_CLIENTS_KACCT_STEPS_H
#define KAI_CLIENTS_KACCT_STEPS_H

#include <stddef.h>

#include "kacct_fields.h"
#include "model/job.h"
#include "proto/proto_step.h"

/* The steps kaid recorded for the jobs of v that started. */
struct kacct_steps {
	struct kai_step_info *v;
	size_t n;
};
int kacct_steps_fetch(const char *prog, const struct kai_jobinfo *const *v,
    size_t n, struct kacct_steps *s);
void kacct_steps_fini(struct kacct_steps *s);

/*
 * The rows under job j: its recorded steps (in s), the batch step first,
 * as struct kai_jobinfo that borrow from j and s, each with the suffix
 * its JobID takes (".batch", ".0").  Caller frees *rows and *suffixes
 * (the suffix strings with it: kacct_rows_free()).
 */
size_t kacct_step_rows(const struct kai_jobinfo *j,
    const struct kacct_steps *s, struct kai_jobinfo **rows,
    char ***suffixes, struct kacct_usage **usage);
void kacct_rows_free(struct kai_jobinfo *rows, char **suffixes,
    struct kacct_usage *usage, size_t n);
/*
 * The job's own row: TotalCPU is its steps' sum, as sacct's; MaxRSS
 * and AveRSS its largest step's (sacct leaves them empty there; seff
 * reads them so).  Nothing known when it has no step.
 */
void kacct_job_usage(const struct kai_jobinfo *j,
    const struct kacct_steps *s, struct kacct_usage *u);

/*
 * kacct --json (kacct_stepjson.c): each job of root's "jobs" (v[0..n),
 * in that order) gets its "steps" as sacct --json lists them, and its
 * "derived_exit_code" from them.
 */
struct json_object;
void kacct_steps_json(struct json_object *root,
    const struct kai_jobinfo *const *v, size_t n,
    const struct kacct_steps *s, int64_t now);

#endif /* KAI_CLIENTS_KACCT_STEPS_H */
