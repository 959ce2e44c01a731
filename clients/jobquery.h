/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobquery.h: asking kaid for jobs (kqueue, kacct, kcancel --name) and
 * the views of a job those programs share.
 */
#ifndef KAI_CLIENTS_JOBQUERY_H
#define KAI_CLIENTS_JOBQUERY_H

#include <stddef.h>
#include <stdint.h>

#include "model/job.h"
#include "proto/proto.h"

struct json_object;

/*
 * Sends q as KAI_MSG_QUERY and collects every job of the (possibly
 * multi-frame) reply.  Returns a CLIENT_EXIT_* code; errors are printed
 * under prog's name.  Caller owns *jobs (jobquery_free).
 */
int jobquery_run(const char *prog, const struct kai_query *q,
    struct kai_jobinfo **jobs, size_t *n);
void jobquery_free(struct kai_jobinfo *jobs, size_t n);

/* Seconds the job has run by now: 0 before it starts. */
int64_t jobquery_elapsed(const struct kai_jobinfo *j, int64_t now);

/* The job's GPUs: ntasks x gpus_per_task, or per node group. */
uint64_t jobquery_gpus(const struct kai_jobinfo *j);

/* The job's nodes, as Slurm counts them: its node groups, else tasks. */
uint32_t jobquery_nodes(const struct kai_jobinfo *j);

/* The job's CPUs: ntasks x cpus_per_task (0 counts as 1). */
uint64_t jobquery_cpus(const struct kai_jobinfo *j);

/* Memory the way Slurm prints it: "4G", "1500M". */
const char *jobquery_mem(uint64_t mb, char *buf, size_t size);

/*
 * Adds to o the --json keys of model/jobfields.def that o lacks, with j's
 * values: the kaibatch fields after the Slurm layout's (clients/slurmjson.c).
 * Times are unix seconds, 0 when unknown.
 */
void jobquery_json_fill(struct json_object *o, const struct kai_jobinfo *j);

/*
 * The records of jobs[0..n) as pointers, ordered by cmp (a qsort
 * comparator of two `const struct kai_jobinfo *const *`); NULL when n is
 * 0.  Sorting pointers, not 200-byte records, is what keeps a 50,000-job
 * listing cheap.  Caller frees the array (not the records).
 */
const struct kai_jobinfo **jobquery_sorted(const struct kai_jobinfo *jobs,
    size_t n, int (*cmp)(const void *, const void *));

#endif /* KAI_CLIENTS_JOBQUERY_H */
