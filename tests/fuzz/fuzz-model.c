/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-model.c: the job-reference syntaxes of src/model that kaid itself
 * parses from what a client sent (--array and --dependency travel as
 * text in KAI_MSG_SUBMIT_EXT), and the host lists of kinfo, kqueue and
 * kctl show.  Each must read back what it writes:
 *
 *	array:    parse, format, parse gives the same set and count; taking
 *		  indices off the front yields them in ascending order
 *	dep:      parse, format, parse, format gives the same text
 *	hostlist: expand, compress, expand gives the same names in order
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/array.h"
#include "model/dep.h"
#include "model/hostlist.h"

static void
check_array(const char *s)
{
	struct kai_array a = {NULL, 0, 0}, b = {NULL, 0, 0};
	struct kai_err err;
	char text[KAI_ARRAY_TEXT_MAX * 4];
	uint32_t idx, prev = 0;
	int i;

	if (kai_array_parse(s, &a, &err) != 0)
		return;
	if (kai_array_format(&a, text, sizeof(text))) {
		if (kai_array_parse(text, &b, &err) != 0)
			fuzz_fail("a formatted array does not parse");
		if (kai_array_count(&a) != kai_array_count(&b))
			fuzz_fail("an array changes its count when formatted");
		for (i = 0; i < 200 && kai_array_take_first(&b, &idx); i++) {
			if (!kai_array_contains(&a, idx))
				fuzz_fail("a formatted array holds another index");
			if (i > 0 && idx <= prev)
				fuzz_fail("array indices are taken out of order");
			prev = idx;
		}
		kai_array_fini(&b);
	}
	kai_array_fini(&a);
}

static void
check_dep(const char *s)
{
	char once[8192], twice[sizeof(once)];
	struct kai_dep d = {false, NULL, 0}, e = {false, NULL, 0};
	struct kai_err err;

	if (kai_dep_parse(s, &d, &err) != 0)
		return;
	if (kai_dep_format(&d, once, sizeof(once))) {
		if (kai_dep_parse(once, &e, &err) != 0)
			fuzz_fail("a formatted dependency does not parse");
		if (!kai_dep_format(&e, twice, sizeof(twice)) ||
		    strcmp(once, twice) != 0)
			fuzz_fail("a dependency changes when formatted");
		kai_dep_fini(&e);
	}
	kai_dep_fini(&d);
}

static void
check_hostlist(const char *s)
{
	char **names, **again;
	struct kai_err err;
	size_t n, m, i;
	char *list;

	if (kai_hostlist_expand(s, &names, &n, &err) != 0)
		return;
	list = kai_hostlist_compress((const char *const *)names, n);
	if (kai_hostlist_expand(list, &again, &m, &err) != 0)
		fuzz_fail("a compressed host list does not expand");
	if (m != n)
		fuzz_fail("a host list changes its length when compressed");
	for (i = 0; i < n; i++)
		if (strcmp(names[i], again[i]) != 0)
			fuzz_fail("a host list changes a name when compressed");
	kai_hostlist_free(again, m);
	kai_hostlist_free(names, n);
	free(list);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);

	check_array(s);
	check_dep(s);
	check_hostlist(s);
	free(s);
	return 0;
}
