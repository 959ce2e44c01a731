/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-array: job array index sets (src/model/array.c) and dependencies
 * (src/model/dep.c): parsing, the compact text kaid stores and kqueue
 * shows, taking tasks off the set, and Slurm's rules for satisfying a
 * dependency.  ksubmit reads --array and --dependency with the same
 * parsers, so the spellings of real scripts are tested here once.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "model/array.h"
#include "model/dep.h"
#include "tap.h"

/* s parses; its text is want, with count tasks. */
static void
arr_ok(const char *s, const char *want, uint64_t count, uint32_t thr)
{
	struct kai_array a = {NULL, 0, 0};
	struct kai_err err;
	char buf[256];

	kai_err_clear(&err);
	if (!is_int(kai_array_parse(s, &a, &err), 0, "array \"%s\"", s))
		diag("error: %s", kai_err_msg(&err));
	ok(kai_array_format(&a, buf, sizeof(buf)), "\"%s\" formats", s);
	is_str(buf, want, "\"%s\" reads as \"%s\"", s, want);
	is_int((int64_t)kai_array_count(&a), (int64_t)count, "\"%s\" count", s);
	is_int(a.throttle, thr, "\"%s\" throttle", s);
	kai_array_fini(&a);
}

static void
arr_bad(const char *s, const char *msg)
{
	struct kai_array a = {NULL, 0, 0};
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_array_parse(s, &a, &err), KAI_EINVAL, "\"%s\" refused", s);
	is_str(kai_err_msg(&err), msg, "\"%s\" message", s);
}

static void
test_parse(void)
{
	arr_ok("0-9999", "0-9999", 10000, 0);
	arr_ok("1-9:2", "1-9:2", 5, 0);
	arr_ok("1-10:2", "1-9:2", 5, 0);
	arr_ok("1,3,5-7", "1,3,5-7", 5, 0);
	arr_ok("7,1-3%2", "1-3,7", 4, 2);
	arr_ok("0-4,2-8", "0-8", 9, 0);
	arr_ok("5,1,3", "1,3,5", 3, 0);
	arr_ok("0-99%10", "0-99", 100, 10);
	arr_ok("4", "4", 1, 0);
	arr_bad("", "invalid array \"\"");
	arr_bad("5-1", "invalid array \"5-1\": maximum below minimum");
	arr_bad("1-5:0", "invalid array \"1-5:0\": step must be at least 1");
	arr_bad("0-100000", "invalid array \"0-100000\": index 100000 is "
	    "over the maximum 99999");
	arr_bad("1-5%x", "invalid array \"1-5%x\": bad task limit after "
	    "\"%\"");
	arr_bad("1,,2", "invalid array \"1,,2\"");
}

/*
 * The spellings the survey of real sbatch scripts found
 * (../shared/reference/sbatch-usage.md section 4), as ksubmit and kaid
 * both read them (one parser): the indices of s joined with ',', then
 * "%throttle" when a "%" was given, or "error: MESSAGE".
 */
static const char *
array_str(const char *s, char *buf, size_t size)
{
	struct kai_array a = {NULL, 0, 0};
	struct kai_err err;
	size_t i, n = 0;
	uint32_t x;

	buf[0] = '\0';
	kai_err_clear(&err);
	if (kai_array_parse(s, &a, &err) != 0) {
		(void)snprintf(buf, size, "error: %s", kai_err_msg(&err));
		return buf;
	}
	for (i = 0; i < a.n; i++)
		for (x = a.r[i].lo; x <= a.r[i].hi && n + 12 < size;
		    x += a.r[i].step)
			n += (size_t)snprintf(buf + n, size - n, "%s%u",
			    n ? "," : "", x);
	if (strchr(s, '%') != NULL)
		(void)snprintf(buf + n, size - n, "%%%u", a.throttle);
	kai_array_fini(&a);
	return buf;
}

static void
test_array_spellings(void)
{
	static const struct {
		const char *s, *want;
	} t[] = {
	    {"1-10", "1,2,3,4,5,6,7,8,9,10"},
	    {"0-3", "0,1,2,3"},
	    {"1-10%10", "1,2,3,4,5,6,7,8,9,10%10"},
	    {"1-5%1", "1,2,3,4,5%1"},
	    {"0", "0"},
	    {"1", "1"},
	    {"1,3,5,7", "1,3,5,7"},
	    {"28,30,31,32,34,36", "28,30,31,32,34,36"},
	    {"0-15:4", "0,4,8,12"},
	    {"1-10:3", "1,4,7,10"},
	    {"1,3,5-7", "1,3,5,6,7"},
	    {"0,6,16-18", "0,6,16,17,18"},
	    {"5,1,3-4,1", "1,3,4,5"},
	    {"001,002", "1,2"},
	    {"1000", "1000"},
	    {"1-3%0", "1,2,3%0"},
	    {"1001", "1001"},
	    {"100000",
		"error: invalid array \"100000\": index 100000 is over the "
		"maximum 99999"},
	    {"12100-104499",
		"error: invalid array \"12100-104499\": index 104499 "
		"is over the maximum 99999"},
	    {"5-1", "error: invalid array \"5-1\": maximum below minimum"},
	    {"0-15:0",
		"error: invalid array \"0-15:0\": step must be at "
		"least 1"},
	    {"1-10%",
		"error: invalid array \"1-10%\": bad task limit after "
		"\"%\""},
	    {"SRR8652107", "error: invalid array \"SRR8652107\""},
	    {"001,", "error: invalid array \"001,\""},
	    {"", "error: invalid array \"\""},
	    {"-1", "error: invalid array \"-1\""},
	    {"1-2-3", "error: invalid array \"1-2-3\""},
	};
	char buf[512];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_str(array_str(t[i].s, buf, sizeof(buf)), t[i].want,
		    "array \"%s\"", t[i].s);
	is_str(strchr(array_str("1-100:2%10", buf, sizeof(buf)), '%'), "%10",
	    "1-100:2%%10 is throttled to 10");
	ok(strncmp(buf, "1,3,5,", 6) == 0 && strstr(buf, ",97,99%") != NULL,
	    "and runs 1,3,...,99");
}

/*
 * "combine|type:job,job+delay|type:..." with one "|" per group as
 * written (ksubmit --parse-only shows them), split where after's delay
 * changes; or "error: MESSAGE".
 */
static const char *
dep_str(const char *s, char *buf, size_t size)
{
	struct kai_dep d = {false, NULL, 0};
	struct kai_err err;
	const struct kai_dep_item *it;
	size_t i, j, n;

	kai_err_clear(&err);
	if (kai_dep_parse(s, &d, &err) != 0) {
		(void)snprintf(buf, size, "error: %s", kai_err_msg(&err));
		return buf;
	}
	n = (size_t)snprintf(buf, size, "%s", d.any ? "any" : "all");
	for (i = 0; i < d.n && n + 40 < size; i = j) {
		it = &d.items[i];
		n += (size_t)snprintf(buf + n, size - n, "|%s",
		    kai_dep_type_name(it->type));
		for (j = i; j < d.n && d.items[j].group == it->group &&
		    d.items[j].delay_min == it->delay_min && n + 40 < size;
		    j++) {
			if (it->type == KAI_DEP_SINGLETON)
				continue;
			n += (size_t)snprintf(buf + n, size - n, "%c%llu",
			    j > i ? ',' : ':',
			    (unsigned long long)d.items[j].job);
			if (d.items[j].task != KAI_DEP_TASK_ALL)
				n += (size_t)snprintf(buf + n, size - n,
				    "_%u", d.items[j].task);
		}
		if (it->delay_min != 0)
			n += (size_t)snprintf(buf + n, size - n, "+%u",
			    it->delay_min);
	}
	kai_dep_fini(&d);
	return buf;
}

static void
test_dep_spellings(void)
{
	static const struct {
		const char *s, *want;
	} t[] = {
	    {"singleton", "all|singleton"},
	    {"afterany:12", "all|afterany:12"},
	    {"afterok:176233:176234:176235",
		"all|afterok:176233,176234,176235"},
	    {"afterok:20:21,afterany:23", "all|afterok:20,21|afterany:23"},
	    {"afterok:20:21?afterany:23", "any|afterok:20,21|afterany:23"},
	    {"afterok:1,afterok:2", "all|afterok:1|afterok:2"},
	    {"afternotok:5", "all|afternotok:5"},
	    {"aftercorr:7", "error: invalid dependency \"aftercorr:7\": "
		"aftercorr is not supported"},
	    {"afterburstbuffer:8", "all|afterany:8"},
	    {"after:12+30", "all|after:12+30"},
	    {"after:1+5:2+5:3", "all|after:1,2+5|after:3"},
	    {"42", "all|afterany:42"},
	    {"afterok:123_4", "all|afterok:123_4"},
	    {"AfterOK:9", "all|afterok:9"},
	    {"afterok:1,afterany:2?after:3",
		"error: invalid dependency \"afterok:1,afterany:2?after:3\": "
		"both \",\" and \"?\" are used"},
	    {"afterok:$upstreamJobId",
		"error: invalid dependency \"afterok:$upstreamJobId\""},
	    {"afterok", "error: invalid dependency \"afterok\": afterok "
		"needs a job id"},
	    {"afterok:", "error: invalid dependency \"afterok:\""},
	    {"afterok:12+5", "error: invalid dependency \"afterok:12+5\""},
	    {"singleton:3", "error: invalid dependency \"singleton:3\""},
	    {"expand:3", "error: invalid dependency \"expand:3\""},
	    {"afterok:0", "error: invalid dependency \"afterok:0\""},
	    {"afterok:1,", "error: invalid dependency \"afterok:1,\""},
	    {"", "error: invalid dependency \"\""},
	};
	char buf[512];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_str(dep_str(t[i].s, buf, sizeof(buf)), t[i].want,
		    "dependency \"%s\"", t[i].s);
}

static void
test_take(void)
{
	struct kai_array a = {NULL, 0, 0};
	struct kai_err err;
	char buf[64];
	uint32_t idx = 99;

	ok(kai_array_parse("0-9:3", &a, &err) == 0, "0-9:3");
	is_int(kai_array_min(&a), 0, "min");
	is_int(kai_array_max(&a), 9, "max");
	is_int(kai_array_step(&a), 3, "step");
	ok(kai_array_take_first(&a, &idx) && idx == 0, "takes 0");
	ok(kai_array_contains(&a, 6) && !kai_array_contains(&a, 5),
	    "contains 6 not 5");
	ok(kai_array_remove(&a, 6), "removes 6");
	ok(!kai_array_remove(&a, 6), "6 is gone");
	(void)kai_array_format(&a, buf, sizeof(buf));
	is_str(buf, "3,9", "3,9 left");
	ok(kai_array_take_first(&a, &idx) && idx == 3, "takes 3");
	ok(kai_array_take_first(&a, &idx) && idx == 9, "takes 9");
	ok(!kai_array_take_first(&a, &idx), "empty");
	is_int((int64_t)kai_array_count(&a), 0, "count 0");
	kai_array_fini(&a);

	ok(kai_array_parse("0-9999", &a, &err) == 0, "0-9999");
	ok(kai_array_remove(&a, 5000), "removes 5000");
	(void)kai_array_format(&a, buf, sizeof(buf));
	is_str(buf, "0-4999,5001-9999", "split in two");
	ok(!kai_array_format(&a, buf, 8), "a short buffer is reported");
	kai_array_fini(&a);
}

static void
dep_ok(const char *s, const char *want)
{
	struct kai_dep d = {false, NULL, 0};
	struct kai_err err;
	char buf[256];

	kai_err_clear(&err);
	if (!is_int(kai_dep_parse(s, &d, &err), 0, "dependency \"%s\"", s))
		diag("error: %s", kai_err_msg(&err));
	ok(kai_dep_format(&d, buf, sizeof(buf)), "\"%s\" formats", s);
	is_str(buf, want, "\"%s\" reads as \"%s\"", s, want);
	kai_dep_fini(&d);
}

static void
dep_bad(const char *s, const char *msg)
{
	struct kai_dep d = {false, NULL, 0};
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_dep_parse(s, &d, &err), KAI_EINVAL, "\"%s\" refused", s);
	is_str(kai_err_msg(&err), msg, "\"%s\" message", s);
}

static void
test_dep_parse(void)
{
	dep_ok("afterok:12:13", "afterok:12,afterok:13");
	dep_ok("afterok:12_4,singleton", "afterok:12_4,singleton");
	dep_ok("after:5+10?afternotok:6", "after:5+10?afternotok:6");
	dep_ok("77", "afterany:77");
	dep_ok("AfterAny:3", "afterany:3");
	dep_ok("afterburstbuffer:3", "afterany:3");
	dep_bad("afterok", "invalid dependency \"afterok\": afterok needs a "
	    "job id");
	dep_bad("afterok:1,after:2?after:3", "invalid dependency "
	    "\"afterok:1,after:2?after:3\": both \",\" and \"?\" are used");
	dep_bad("aftercorr:4", "invalid dependency \"aftercorr:4\": "
	    "aftercorr is not supported");
	dep_bad("afterok:0", "invalid dependency \"afterok:0\"");
	dep_bad("later:4", "invalid dependency \"later:4\"");
	dep_bad("afterok:4+5", "invalid dependency \"afterok:4+5\"");
}

static void
test_dep_eval(void)
{
	const struct kai_dep_target pend = {false, false, false, 0};
	const struct kai_dep_target run = {true, false, false, 1000};
	const struct kai_dep_target done = {true, true, false, 1000};
	const struct kai_dep_target bad = {true, true, true, 1000};
	struct kai_dep_item it = {KAI_DEP_AFTEROK, 1, KAI_DEP_TASK_ALL, 0, 0};
	struct kai_dep_target t[2];
	struct kai_dep d = {false, NULL, 0};
	struct kai_err err;

	is_int(kai_dep_item_status(&it, &run, 0), KAI_DEP_WAIT, "afterok run");
	is_int(kai_dep_item_status(&it, &done, 0), KAI_DEP_OK, "afterok ok");
	is_int(kai_dep_item_status(&it, &bad, 0), KAI_DEP_NEVER,
	    "afterok on a failure: never");
	it.type = KAI_DEP_AFTERNOTOK;
	is_int(kai_dep_item_status(&it, &done, 0), KAI_DEP_NEVER,
	    "afternotok on a success: never");
	is_int(kai_dep_item_status(&it, &bad, 0), KAI_DEP_OK, "afternotok");
	it.type = KAI_DEP_AFTER;
	is_int(kai_dep_item_status(&it, &pend, 0), KAI_DEP_WAIT, "after pend");
	is_int(kai_dep_item_status(&it, &run, 0), KAI_DEP_OK, "after run");
	it.delay_min = 2;
	is_int(kai_dep_item_status(&it, &run, 1119), KAI_DEP_WAIT,
	    "after+2 at 119 s");
	is_int(kai_dep_item_status(&it, &run, 1120), KAI_DEP_OK,
	    "after+2 at 120 s");
	it.type = KAI_DEP_AFTERANY;
	is_int(kai_dep_item_status(&it, &bad, 0), KAI_DEP_OK, "afterany");

	ok(kai_dep_parse("afterok:1,afterok:2", &d, &err) == 0, "all");
	t[0] = done;
	t[1] = run;
	is_int(kai_dep_eval(&d, t, 0), KAI_DEP_WAIT, "all: one waits");
	t[1] = bad;
	is_int(kai_dep_eval(&d, t, 0), KAI_DEP_NEVER, "all: one never");
	ok(kai_dep_parse("afterok:1?afterok:2", &d, &err) == 0, "any");
	is_int(kai_dep_eval(&d, t, 0), KAI_DEP_OK, "any: one ok");
	t[0] = bad;
	is_int(kai_dep_eval(&d, t, 0), KAI_DEP_NEVER, "any: all never");
	kai_dep_fini(&d);
}

int
main(void)
{
	test_parse();
	test_array_spellings();
	test_take();
	test_dep_parse();
	test_dep_spellings();
	test_dep_eval();
	return done_testing();
}
