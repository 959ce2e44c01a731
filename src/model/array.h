/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * array.h: job array index sets ("0-99", "1,3,5-7", "1-9:2", "%10").
 *
 * A set is kept as ranges lo-hi:step, sorted and disjoint, so that an
 * array of 10,000 tasks is one range and costs a few bytes, in memory and
 * in its database row alike.  kaid takes tasks off the front of the set
 * as the scheduler starts them (kai_array_take_first) and out of the
 * middle when one is cancelled (kai_array_remove); what is left is
 * written back with kai_array_format, the text squeue shows between the
 * brackets of "123_[5-99%10]".
 *
 * Pure: no I/O.  The struct owns its ranges; kai_array_fini() releases
 * them, and a zeroed struct is an empty set.
 */
#ifndef KAI_MODEL_ARRAY_H
#define KAI_MODEL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/* The largest task index (Slurm's MaxArraySize is a site setting too). */
#define KAI_ARRAY_INDEX_MAX 99999
/* The longest index text kaid stores or accepts. */
#define KAI_ARRAY_TEXT_MAX 4096

struct kai_array_range {
	uint32_t lo;
	uint32_t hi;		/* lo + k * step for some k >= 0 */
	uint32_t step;		/* >= 1 */
};

struct kai_array {
	struct kai_array_range *r; /* sorted by lo, disjoint */
	size_t n;
	uint32_t throttle;	/* "%N": tasks at once; 0 = no limit */
};

/*
 * Parses sbatch's --array value: comma-separated "A", "A-B", "A-B:S",
 * then an optional "%N".  Overlaps and any order are allowed and merged.
 * KAI_EINVAL with "invalid array \"%s\"..." naming the fault.  *a must be
 * initialised (empty or parsed before): on success its old ranges are
 * freed and replaced; on failure it is left as it was.
 */
int kai_array_parse(const char *s, struct kai_array *a, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_array_fini(struct kai_array *a);

uint64_t kai_array_count(const struct kai_array *a);
/* First and last index; 0 for an empty set. */
uint32_t kai_array_min(const struct kai_array *a);
uint32_t kai_array_max(const struct kai_array *a);
/*
 * SLURM_ARRAY_TASK_STEP: the step of a set that is one range, else 1
 * (Slurm's value for a list that is no single progression).
 */
uint32_t kai_array_step(const struct kai_array *a);
bool kai_array_contains(const struct kai_array *a, uint32_t idx);
/* Removes idx if present; returns whether it was. */
bool kai_array_remove(struct kai_array *a, uint32_t idx);
/* Removes the first index into *idx; false when the set is empty. */
bool kai_array_take_first(struct kai_array *a, uint32_t *idx);

/*
 * The set as text without the throttle ("5-99", "1,3,5-7", "1-9:2"),
 * which kai_array_parse() reads back to the same set.  Writes at most
 * size bytes with the NUL; returns false when the text was cut.
 */
bool kai_array_format(const struct kai_array *a, char *buf, size_t size);

#endif /* KAI_MODEL_ARRAY_H */
