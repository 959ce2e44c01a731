/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-time.c: the time syntaxes: Slurm time limits (-t, partitions'
 * limits in kaid.yaml, kctl update) and the date/time forms of --begin,
 * kacct -S/-E (clients/slurmtime.c).
 *
 * A time limit that parses is formatted as kqueue prints it, and that
 * text must parse back to the same number of seconds.
 */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "model/job.h"
#include "slurmtime.h"

#define NOW 1767225600 /* 2026-01-01 00:00:00 UTC */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	int64_t secs, again, t;
	struct kai_err err;
	char out[64];

	if (kai_time_limit_parse(s, &secs, &err) == 0) {
		kai_time_format(secs, out, sizeof(out));
		if (kai_time_limit_parse(out, &again, &err) != 0)
			fuzz_fail("a formatted time limit does not parse");
		if (again != secs)
			fuzz_fail("a time limit changes when formatted");
	}
	(void)!slurmtime_parse(s, NOW, &t, &err);
	free(s);
	return 0;
}
