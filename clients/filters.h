/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * filters.h: the selection options kqueue, kcancel and kacct share, as
 * Slurm spells them: comma lists of job ids, users (names or uids),
 * partitions, names and job states.
 *
 * Each parser appends to what is already there, so an option given twice
 * adds up, and fails with KAI_EINVAL naming the bad item:
 * "invalid job id \"12x\"", "invalid user \"bob\": no such user",
 * "invalid job state \"XX\"".  User names are resolved with getpwnam(3):
 * that is the only I/O here.
 */
#ifndef KAI_CLIENTS_FILTERS_H
#define KAI_CLIENTS_FILTERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "proto/proto_array.h"

/* "42,43": ids > 0.  Caller owns *ids. */
int filter_parse_ids(const char *list, uint64_t **ids, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * One array task reference, "123_4" or "123_[1-3,7]" (kcancel, kqueue
 * -j), appended to *tasks as (array id, task) pairs.  Caller owns *tasks.
 */
int filter_parse_task(const char *s, struct kai_task_ref **tasks, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * squeue -j: "42,43_7,44_[1-3,9]": plain ids into *ids, array tasks into
 * *tasks (a comma inside brackets belongs to the task set).
 */
int filter_parse_jobrefs(const char *list, uint64_t **ids, size_t *nids,
    struct kai_task_ref **tasks, size_t *ntasks, struct kai_err *err)
    KAI_MUST_CHECK;

/* "ann,1001": user names or numeric uids.  Caller owns *uids. */
int filter_parse_users(const char *list, uint32_t **uids, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/* "gpu,cpu": non-empty names.  Caller owns *names (filter_free_names). */
int filter_parse_names(const char *what, const char *list, char ***names,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;
void filter_free_names(char **names, size_t n);

/*
 * "PD,running,all": codes or long names in any case, or "all".  ORs the
 * states' bits into *mask.
 */
int filter_parse_states(const char *list, uint32_t *mask,
    struct kai_err *err) KAI_MUST_CHECK;

/* Whether s is one of names[0..n); n == 0 matches everything. */
int filter_match_name(char *const *names, size_t n, const char *s);

#endif /* KAI_CLIENTS_FILTERS_H */
