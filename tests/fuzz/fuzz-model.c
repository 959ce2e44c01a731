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
 *	constraint: at most 64 names and alternatives, each alternative
 *		  non-empty and distinct, every name in one of them
 *	node_req: a field made from two host lists reads back as them
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/array.h"
#include "model/dep.h"
#include "model/constraint.h"
#include "model/hostlist.h"
#include "model/nodelists.h"

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

static void
check_constraint(const char *s)
{
	struct kai_constraint c;
	struct kai_err err;
	uint64_t all = 0;
	size_t a, b;

	if (kai_constraint_parse(s, &c, &err) != 0) {
		if (c.nalts != 0 || c.nnames != 0)
			fuzz_fail("a refused constraint leaves alternatives");
		kai_constraint_fini(&c);
		return;
	}
	if (c.nalts > KAI_CONSTRAINT_MAX_ALTS ||
	    c.nnames > KAI_CONSTRAINT_MAX_NAMES)
		fuzz_fail("a constraint has more than 64 names or alternatives");
	for (a = 0; a < c.nalts; a++) {
		if (c.alts[a] == 0)
			fuzz_fail("a constraint has an empty alternative");
		for (b = 0; b < a; b++)
			if (c.alts[a] == c.alts[b])
				fuzz_fail("a constraint repeats an alternative");
		all |= c.alts[a];
	}
	if (c.nnames > 0 && all != (c.nnames == 64 ? ~UINT64_C(0) :
	    (UINT64_C(1) << c.nnames) - 1))
		fuzz_fail("a constraint names a feature no alternative has");
	kai_constraint_fini(&c);
}

static void
check_node_req(const char *s)
{
	char *req, **w, **x;
	struct kai_err err;
	size_t nw, nx;

	if (kai_node_req_make(s, s, &req, &err) != 0 || req == NULL)
		return;
	if (kai_node_req_names(req, KAI_NODE_REQ_ONLY, &w, &nw, &err) != 0 ||
	    kai_node_req_names(req, KAI_NODE_REQ_NEVER, &x, &nx, &err) != 0)
		fuzz_fail("a node_req field does not read back");
	if (nw != nx)
		fuzz_fail("the two lists of a node_req field differ");
	kai_hostlist_free(w, nw);
	kai_hostlist_free(x, nx);
	free(req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);

	check_array(s);
	check_dep(s);
	check_hostlist(s);
	check_constraint(s);
	check_node_req(s);
	free(s);
	return 0;
}
