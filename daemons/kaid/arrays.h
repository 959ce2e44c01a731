/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * arrays.h: job arrays, arrays.c (doc/architecture.md, "Job arrays").
 *
 * arrays.c keeps no state of its own between events: an array is its job
 * record in the jobs table (state.c) and its rows in PostgreSQL.
 */
#ifndef KAID_ARRAYS_H
#define KAID_ARRAYS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
struct kaid;
struct kai_err;
struct kai_job;
struct kai_cancel;
struct kai_submit_ext;
struct submit;
struct snap;

/*
 * Checks a submission's --array and --dependency and fills s->ext;
 * refuses a dependency on a job that does not exist.
 */
int arrays_submit_check(struct kaid *k, struct submit *s,
    struct kai_submit_ext *x, struct kai_err *err) KAI_MUST_CHECK;
void arrays_submit_fini(struct submit *s);
/* Sets a freshly inserted job's array and dependency fields from s. */
void arrays_job_init(struct kai_job *j, const struct submit *s);
/*
 * Splits a task off every array among the placed snapshot jobs
 * which[0..n) (one transaction) and points the snapshot at the task.
 * Returns how many of which[] remain to place: an array that could not
 * be split is dropped from this tick.
 */
size_t arrays_split_placed(struct kaid *k, struct snap *sn, size_t *which,
    size_t n);
/* A pending task record for task of array a, with job id id. */
struct kai_job *arrays_task_new(const struct kai_job *a, uint64_t id,
    uint32_t task);
/* "123_4", "123_[5-99%10]", or NULL outside arrays; caller frees. */
char *arrays_display(const struct kai_job *j);
/* Adds to c's ids the active tasks of every array it names. */
void arrays_expand_ids(const struct kaid *k, struct kai_cancel *c);

#endif /* KAID_ARRAYS_H */
