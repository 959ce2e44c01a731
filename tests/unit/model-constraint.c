/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-constraint: Slurm's --constraint grammar (src/model/constraint.c):
 * the spellings of real scripts, the alternatives they expand to, which
 * nodes satisfy them, and the refusals with their messages.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "model/constraint.h"
#include "model/hostlist.h"
#include "model/nodelists.h"
#include "tap.h"

/*
 * text parses into the alternatives want (each a '&'-joined list of
 * names, in the parser's name order, alternatives separated by ' '),
 * matching or not.
 */
static void
con_ok(const char *text, const char *want, bool match)
{
	struct kai_constraint c;
	struct kai_err err;
	char got[512] = "";
	size_t a, i, len = 0;

	kai_err_clear(&err);
	if (!is_int(kai_constraint_parse(text, &c, &err), 0, "\"%s\" parses",
		text))
		diag("error: %s", kai_err_msg(&err));
	for (a = 0; a < c.nalts; a++) {
		const char *sep = "";

		if (a > 0)
			len += (size_t)snprintf(got + len, sizeof(got) - len,
			    " ");
		for (i = 0; i < c.nnames; i++)
			if (c.alts[a] & (UINT64_C(1) << i)) {
				len += (size_t)snprintf(got + len,
				    sizeof(got) - len, "%s%s", sep,
				    c.names[i]);
				sep = "&";
			}
	}
	is_str(got, want, "\"%s\" alternatives", text);
	is_int(c.match, match, "\"%s\" matching OR", text);
	kai_constraint_fini(&c);
}

static void
con_bad(const char *text, const char *msg)
{
	struct kai_constraint c;
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_constraint_parse(text, &c, &err), KAI_EINVAL,
	    "\"%s\" refused", text);
	is_str(kai_err_msg(&err), msg, "\"%s\" message", text);
	is_int((int64_t)c.nalts, 0, "\"%s\" leaves nothing", text);
	kai_constraint_fini(&c);
}

static void
test_spellings(void)
{
	/* From real scripts (sbatch-usage.md). */
	con_ok("a100", "a100", false);
	con_ok("v100-32g", "v100-32g", false);
	con_ok("amd&rome", "amd&rome", false);
	con_ok("knl,quad,cache", "knl&quad&cache", false);
	con_ok("haswell|broadwell|skylake|cascade",
	    "haswell broadwell skylake cascade", false);
	con_ok("[a100|h200|h100]", "a100 h200 h100", true);
	con_ok("gpu&hbm80g", "gpu&hbm80g", false);
	con_ok("", "", false);
	con_ok("  ", "", false);
	/* Grouping and expansion. */
	con_ok("(a|b)&ib", "a&ib b&ib", false);
	con_ok("ib&[a|b]", "ib&a ib&b", true);
	con_ok("a|a", "a", false);
	con_ok("a & b | c", "a&b c", false);
	con_ok("(a|b)&(c|d)", "a&c a&d b&c b&d", false);
}

static void
test_refusals(void)
{
	con_bad("a100*2", "invalid constraint \"a100*2\": feature counts "
	    "(NAME*N) are not supported");
	con_bad("a|", "invalid constraint \"a|\": a feature name is missing "
	    "at the end");
	con_bad("a&&b", "invalid constraint \"a&&b\": a feature name is "
	    "missing");
	con_bad("(a|b", "invalid constraint \"(a|b\": a \"(\" is not closed");
	con_bad("a]", "invalid constraint \"a]\": a closing bracket has no "
	    "opening one");
	con_bad("[a|[b]]", "invalid constraint \"[a|[b]]\": only one [...] "
	    "is allowed");
	con_bad("[a]&[b]", "invalid constraint \"[a]&[b]\": only one [...] "
	    "is allowed");
	con_bad("a b", "invalid constraint \"a b\": unexpected character");
	con_bad("(a|b)&(c|d)&(e|f)&(g|h)&(i|j)&(k|l)&(m|n)",
	    "invalid constraint \"(a|b)&(c|d)&(e|f)&(g|h)&(i|j)&(k|l)&(m|n)\": "
	    "it expands to more than 64 alternatives");
}

static void
test_satisfied(void)
{
	static const char *const a100ib[] = {"a100", "ib"};
	static const char *const v100[] = {"v100"};
	struct kai_constraint c;
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_constraint_parse("a100&ib|v100", &c, &err), 0, "parses");
	ok(kai_constraint_satisfied(&c, -1, a100ib, 2), "a100+ib satisfies");
	ok(kai_constraint_satisfied(&c, -1, v100, 1), "v100 satisfies");
	ok(!kai_constraint_satisfied(&c, -1, a100ib, 1), "a100 alone not");
	ok(kai_constraint_satisfied(&c, 0, a100ib, 2), "alternative 0");
	ok(!kai_constraint_satisfied(&c, 1, a100ib, 2), "not alternative 1");
	ok(!kai_constraint_satisfied(&c, -1, NULL, 0), "no features: not");
	kai_constraint_fini(&c);
}

static void
test_nodelists(void)
{
	struct kai_err err;
	char *req = NULL, buf[64], **names;
	size_t n;

	kai_err_clear(&err);
	is_int(kai_node_req_make("gpu-a[1-3], gpu-b7", NULL, &req, &err), 0,
	    "-w alone");
	is_str(req, "gpu-a[1-3],gpu-b7;", "-w alone: field");
	is_str(kai_node_req_text(req, KAI_NODE_REQ_ONLY, buf, sizeof(buf)),
	    "gpu-a[1-3],gpu-b7", "-w text");
	is_str(kai_node_req_text(req, KAI_NODE_REQ_NEVER, buf, sizeof(buf)),
	    "", "-x text empty");
	is_int(kai_node_req_names(req, KAI_NODE_REQ_ONLY, &names, &n, &err),
	    0, "-w names");
	is_int((int64_t)n, 4, "-w: 4 names");
	if (n == 4)
		is_str(names[3], "gpu-b7", "-w: last name");
	kai_hostlist_free(names, n);
	free(req);
	is_int(kai_node_req_make("", "n[01-02]", &req, &err), 0, "-x alone");
	is_str(req, ";n[01-02]", "-x alone: field");
	is_int(kai_node_req_names(req, KAI_NODE_REQ_NEVER, &names, &n, &err),
	    0, "-x names");
	is_int((int64_t)n, 2, "-x: 2 names");
	if (n == 2)
		is_str(names[0], "n01", "-x: width kept");
	kai_hostlist_free(names, n);
	free(req);
	req = (char *)"x";
	is_int(kai_node_req_make(NULL, "", &req, &err), 0, "neither");
	ok(req == NULL, "neither: no field");
	is_int(kai_node_req_make("n[1-", NULL, &req, &err), KAI_EINVAL,
	    "bad -w refused");
	ok(req == NULL, "bad -w: no field");
	is_int(kai_node_req_make("a;b", NULL, &req, &err), KAI_EINVAL,
	    "';' refused");
	is_str(kai_err_msg(&err), "invalid node list \"a;b\": a node name "
	    "has no ';'", "';' message");
}

int
main(void)
{
	test_spellings();
	test_refusals();
	test_satisfied();
	test_nodelists();
	return done_testing();
}
