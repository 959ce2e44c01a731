/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-pattern.c: the -o / -e file name patterns (%j, %x, %u, %A, %a,
 * widths) that kaid expands for every job.  The input is the pattern,
 * then optionally a NUL and the job name, a NUL and the user name; the
 * ids are fixed, one plain job and one array task.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/job.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char empty[] = "";
	char *s = fuzz_strdup(data, size), *name = empty, *user;
	char *a, *b;

	user = name;
	if (strlen(s) < size) {
		name = s + strlen(s) + 1;
		if (name + strlen(name) < s + size)
			user = name + strlen(name) + 1;
	}
	a = kai_pattern_expand(s, 4242, name, user);
	b = kai_pattern_expand_array(s, 18446744073709551615u, name, user,
	    4241, 4294967295u);
	if (a == NULL || b == NULL)
		fuzz_fail("a pattern expands to nothing");
	free(a);
	free(b);
	free(s);
	return 0;
}
