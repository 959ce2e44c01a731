/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobarray.h: kqueue -r, one line per array task (jobarray.c).
 */
#ifndef KAI_CLIENTS_JOBARRAY_H
#define KAI_CLIENTS_JOBARRAY_H

#include <stddef.h>

#include "model/job.h"

/*
 * Replaces every record that stands for an array's pending tasks
 * (array_id "12_[3-9%2]") by one record per task ("12_3", "12_5", ...),
 * as squeue -r prints them.  *jobs is reallocated; returns the new count.
 */
size_t jobarray_expand(struct kai_jobinfo **jobs, size_t n);

#endif /* KAI_CLIENTS_JOBARRAY_H */
