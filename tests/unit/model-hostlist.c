/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-hostlist: Slurm's compact host lists (src/model/hostlist.c):
 * folding names in their order, the form SLURM_JOB_NODELIST has in a job
 * (expected values are what Slurm's hostlist code prints for the same
 * names), sorting as sinfo does, and expanding, against the cases of
 * tests/lib/hostlist-cases.txt that the pod's scontrol is held to too.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "model/hostlist.h"
#include "tap.h"

static void
fold(const char *const *names, size_t n, const char *want)
{
	char *got = kai_hostlist_compress(names, n);

	is_str(got, want, "folds to \"%s\"", want);
	free(got);
}

/* The names of list joined with one space, or "!" (and the message). */
static char *
expand_str(const char *list, char *msg, size_t msize)
{
	struct kai_err err;
	char **v, *out;
	size_t n, i, len = 1;

	kai_err_clear(&err);
	msg[0] = '\0';
	if (kai_hostlist_expand(list, &v, &n, &err) != 0) {
		(void)snprintf(msg, msize, "%s", kai_err_msg(&err));
		return strdup("!");
	}
	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	out = calloc(1, len);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, v[i]);
	}
	kai_hostlist_free(v, n);
	return out;
}

/*
 * Each case of the shared file expands as written; each valid one folds
 * back (kai_hostlist_compress) to a list that expands to the same names.
 */
static void
test_shared_cases(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[1024], msg[256], *sep, *got, *again, *folded;
	char **v;
	size_t n, cases = 0;
	struct kai_err err;
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/tests/lib/hostlist-cases.txt",
	    top != NULL ? top : ".");
	if (!ok((f = fopen(path, "r")) != NULL, "read %s", path))
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((sep = strstr(line, " => ")) == NULL) {
			ok(0, "case \"%s\" has no \" => \"", line);
			continue;
		}
		*sep = '\0';
		cases++;
		got = expand_str(line, msg, sizeof(msg));
		if (!is_str(got, sep + 4, "\"%s\" expands", line) && *msg)
			diag("%s", msg);
		if (strcmp(got, "!") == 0) {
			ok(strncmp(msg, "invalid host list \"", 19) == 0,
			    "\"%s\": the message names the list", line);
		} else if (kai_hostlist_expand(line, &v, &n, &err) == 0) {
			folded = kai_hostlist_compress((const char *const *)v,
			    n);
			again = expand_str(folded, msg, sizeof(msg));
			is_str(again, got, "\"%s\" folds to \"%s\" and back",
			    line, folded);
			free(again);
			free(folded);
			kai_hostlist_free(v, n);
		}
		free(got);
	}
	(void)fclose(f);
	ok(cases >= 30, "%zu shared cases", cases);
}

static void
test_expand_messages(void)
{
	char msg[256], *got;
	static const struct {
		const char *list, *msg;
	} t[] = {
	    {"", "invalid host list \"\": empty name"},
	    {"a,,b", "invalid host list \"a,,b\": empty name"},
	    {"n]", "invalid host list \"n]\": unbalanced \"]\""},
	    {"n[1-3", "invalid host list \"n[1-3\": unclosed \"[\""},
	    {"n[3-1]", "invalid host list \"n[3-1]\": bad range \"3-1\""},
	    {"n[a]", "invalid host list \"n[a]\": bad range \"a\""},
	    {"n[0-999999]",
		"invalid host list \"n[0-999999]\": more than 100000 names"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		got = expand_str(t[i].list, msg, sizeof(msg));
		is_str(msg, t[i].msg, "\"%s\": %s", t[i].list, t[i].msg);
		free(got);
	}
	got = expand_str("n[0-99999]", msg, sizeof(msg));
	ok(strncmp(got, "n0 n1 ", 6) == 0 &&
		strcmp(got + strlen(got) - 7, " n99999") == 0,
	    "100000 names are allowed");
	free(got);
}

static void
sorts(const char **names, size_t n, const char *want)
{
	char *got;

	kai_hostlist_sort(names, n);
	got = kai_hostlist_compress(names, n);
	is_str(got, want, "sorted, folds to \"%s\"", want);
	free(got);
}

static void
test_sort(void)
{
	const char *a[] = {"n3", "n1", "n2", "n5", "n10"};
	const char *b[] = {"n007", "n008", "login", "n010"};
	const char *c[] = {"gpu-h1", "cpu-1", "gpu-a2", "gpu-a1"};
	const char *d[] = {"n10", "n9", "n", "n09", "m2"};

	sorts(a, 5, "n[1-3,5,10]");
	sorts(b, 4, "login,n[007-008,010]");
	sorts(c, 4, "cpu-1,gpu-a[1-2],gpu-h1");
	sorts(d, 5, "m2,n,n9,n[09-10]");
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
	const char *tenth[] = {"x1234567890", "x1234567891"};
	const char *ninth[] = {"x123456789", "x123456790"};

	fold(none, 0, "");
	fold(one, 1, "kai-12-0");
	fold(four, 4, "kai-12-[0-3]");
	fold(gap, 5, "kai-7-[0-1,3,5-6]");
	fold(mixed, 5, "login,gpu[1-2],cpu[9-10]");
	fold(padded, 4, "node[01-03,10]");
	fold(widths, 3, "n08,n[9-10]");
	fold(order, 3, "a[3,1-2]");
	fold(huge, 2, "x1234567890123456789,x1234567890123456790");
	fold(tenth, 2, "x1234567890,x1234567891");
	fold(ninth, 2, "x[123456789-123456790]");
	test_sort();
	test_expand_messages();
	test_shared_cases();
	return done_testing();
}
