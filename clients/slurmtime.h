/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slurmtime.h: the date and time syntax of sacct -S/-E (and sbatch
 * --begin), in local time.
 *
 * Accepted, alone or combined with blanks, '-' or 'T' between the parts
 * (as Slurm's parse_time does):
 *
 *	HH:MM[:SS] [AM|PM]
 *	MMDD[YY], MM/DD[/YY], MM.DD[.YY]
 *	YYYY-MM-DD
 *	today, tomorrow, midnight, noon, elevenses, fika, teatime
 *	now[{+|-}N[seconds|minutes|hours|days|weeks]]
 *
 * A date without a time means 00:00:00.  A time without a date means
 * today, and a date without a year the most recent such day (the "past"
 * reading sacct uses).  "2024-03-01T10:00" is a date followed by a time.
 */
#ifndef KAI_CLIENTS_SLURMTIME_H
#define KAI_CLIENTS_SLURMTIME_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/*
 * Parses s against the local clock reading now (unix seconds) into *t.
 * KAI_EINVAL with "invalid time \"%s\"" (and the reason) otherwise.
 */
int slurmtime_parse(const char *s, int64_t now, int64_t *t,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_CLIENTS_SLURMTIME_H */
