/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-hostlist: folding host names into Slurm's compact list, the form
 * SLURM_JOB_NODELIST has in a job (expected values are what Slurm's
 * hostlist code prints for the same names).
 */
#include "config.h"

#include <stdlib.h>

#include "model/hostlist.h"
#include "tap.h"

static void
fold(const char *const *names, size_t n, const char *want)
{
	char *got = kai_hostlist_compress(names, n);

	is_str(got, want, "folds to \"%s\"", want);
	free(got);
}

int
main(void)
{
	const char *none[] = {NULL};
	const char *one[] = {"kai-12-0"};
	const char *four[] = {"kai-12-0", "kai-12-1", "kai-12-2", "kai-12-3"};
	const char *gap[] = {"kai-7-0", "kai-7-1", "kai-7-3", "kai-7-5",
	    "kai-7-6"};
	const char *mixed[] = {"login", "gpu1", "gpu2", "cpu9", "cpu10"};
	const char *padded[] = {"node01", "node02", "node03", "node10"};
	const char *widths[] = {"n08", "n9", "n10"};
	const char *order[] = {"a3", "a1", "a2"};
	const char *huge[] = {"x1234567890123456789", "x1234567890123456790"};

	fold(none, 0, "");
	fold(one, 1, "kai-12-0");
	fold(four, 4, "kai-12-[0-3]");
	fold(gap, 5, "kai-7-[0-1,3,5-6]");
	fold(mixed, 5, "login,gpu[1-2],cpu[9-10]");
	fold(padded, 4, "node[01-03,10]");
	fold(widths, 3, "n08,n[9-10]");
	fold(order, 3, "a[3,1-2]");
	fold(huge, 2, "x1234567890123456789,x1234567890123456790");
	return done_testing();
}
