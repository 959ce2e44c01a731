/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-output: what kqueue and kacct print (columns, truncation,
 * parsable lines, times, memory, JSON), the sacct -S/-E time syntax, and
 * the shared selection parsers.  Runs in UTC so the times are fixed.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "filters.h"
#include "jobquery.h"
#include "slurmjson.h"
#include "output.h"
#include "slurmtime.h"
#include "tap.h"

/* Runs fn(f) into a memory stream and returns what it wrote (static). */
static char outbuf[4096];

static FILE *
mem_open(void)
{
	FILE *f = fmemopen(outbuf, sizeof(outbuf), "w");

	KAI_ASSERT(f != NULL);
	return f;
}

static const char *
mem_close(FILE *f)
{
	(void)fclose(f);
	return outbuf;
}

static void
field_is(const char *text, int width, bool right, enum out_trunc t,
    const char *want)
{
	FILE *f = mem_open();

	out_field(f, text, width, right, t);
	is_str(mem_close(f), want, "field \"%s\" width %d%s%s", text, width,
	    right ? " right" : "", t == OUT_TRUNC_PLUS ? " plus" : "");
}

static void
test_fields(void)
{
	field_is("42", 6, true, OUT_TRUNC_CUT, "    42");
	field_is("gpu", 9, false, OUT_TRUNC_CUT, "gpu      ");
	field_is("sweep-long-name", 8, true, OUT_TRUNC_CUT, "sweep-lo");
	field_is("NODELIST(REASON)", 0, false, OUT_TRUNC_CUT,
	    "NODELIST(REASON)");
	field_is("CANCELLED by 1000", 10, true, OUT_TRUNC_PLUS, "CANCELLED+");
	field_is("exactly10!", 10, true, OUT_TRUNC_PLUS, "exactly10!");
	field_is(NULL, 3, false, OUT_TRUNC_CUT, "   ");
}

static void
test_table(void)
{
	static const struct out_col cols[] = {
	    {"JobID", 12, false},
	    {"JobName", 10, true},
	    {"State", 10, true},
	};
	struct out_table t;
	FILE *f;

	f = mem_open();
	out_table_init(&t, f, cols, 3, OUT_MODE_TABLE, OUT_TRUNC_PLUS);
	out_table_header(&t, true);
	out_table_cell(&t, "111139");
	out_table_cell(&t, "wrap");
	out_table_cell(&t, "FAILED");
	out_table_end_row(&t);
	out_table_cellf(&t, "%d", 7);
	out_table_cell(&t, "a-very-long-name");
	out_table_end_row(&t);
	is_str(mem_close(f),
	    "JobID           JobName      State\n"
	    "------------ ---------- ----------\n"
	    "111139             wrap     FAILED\n"
	    "7            a-very-lo+           \n",
	    "sacct-style table");

	f = mem_open();
	out_table_init(&t, f, cols, 3, OUT_MODE_PARSABLE, OUT_TRUNC_PLUS);
	out_table_header(&t, true);
	out_table_cell(&t, "1");
	out_table_cell(&t, "a-very-long-name");
	out_table_cell(&t, "COMPLETED");
	out_table_end_row(&t);
	is_str(mem_close(f),
	    "JobID|JobName|State|\n1|a-very-long-name|COMPLETED|\n",
	    "parsable: trailing |, no dashes, nothing cut");

	f = mem_open();
	out_table_init(&t, f, cols, 3, OUT_MODE_PARSABLE2, OUT_TRUNC_PLUS);
	out_table_cell(&t, "1");
	out_table_end_row(&t);
	is_str(mem_close(f), "1||\n", "parsable2: missing cells are empty");
}

static void
test_times(void)
{
	char b[OUT_TIME_LEN];

	is_str(out_elapsed_squeue(0, b), "0:00", "squeue pending time");
	is_str(out_elapsed_squeue(61, b), "1:01", "squeue M:SS");
	is_str(out_elapsed_squeue(3733, b), "1:02:13", "squeue H:MM:SS");
	is_str(out_elapsed_squeue(90061, b), "1-01:01:01", "squeue D-HH:MM:SS");
	is_str(out_elapsed_sacct(0, b), "00:00:00", "sacct zero");
	is_str(out_elapsed_sacct(3733, b), "01:02:13", "sacct HH:MM:SS");
	is_str(out_elapsed_sacct(2 * 86400 + 5, b), "2-00:00:05",
	    "sacct D-HH:MM:SS");
	is_str(out_limit(0, false, b), "UNLIMITED", "no limit, squeue");
	is_str(out_limit(0, true, b), "UNLIMITED", "no limit, sacct");
	is_str(out_limit(3600, false, b), "1:00:00", "squeue limit");
	is_str(out_limit(1800, true, b), "00:30:00", "sacct limit");
	is_str(out_timestamp(0, b), "Unknown", "unknown time");
	is_str(out_timestamp(1700000000, b), "2023-11-14T22:13:20",
	    "timestamp in local time (UTC here)");
}

static void
test_jobviews(void)
{
	struct kai_jobinfo j;
	const struct kai_jobinfo *jp;
	struct json_object *root, *arr, *o, *v;
	char b[32], t[4];

	out_u64(b, sizeof(b), 0);
	is_str(b, "0", "out_u64 of 0");
	out_u64(b, sizeof(b), UINT64_MAX);
	is_str(b, "18446744073709551615", "out_u64 of the largest u64");
	out_u64(t, sizeof(t), 123456);
	is_str(t, "123", "out_u64 truncates to fit");
	out_copy(t, sizeof(t), "abcdef");
	is_str(t, "abc", "out_copy truncates to fit");
	out_copy(t, sizeof(t), NULL);
	is_str(t, "", "out_copy of NULL is empty");

	is_str(jobquery_mem(0, b, sizeof(b)), "0M", "mem 0");
	is_str(jobquery_mem(1500, b, sizeof(b)), "1500M", "mem in M");
	is_str(jobquery_mem(4096, b, sizeof(b)), "4G", "mem in G");
	is_str(jobquery_mem(2 * 1024 * 1024, b, sizeof(b)), "2T", "mem in T");

	memset(&j, 0, sizeof(j));
	j.id = 42;
	j.name = kai_xstrdup("train");
	j.state = KAI_JOB_RUNNING;
	j.ntasks = 4;
	j.cpus_per_task = 8;
	j.gpus_per_task = 2;
	j.start_time = 1000;
	is_int(jobquery_elapsed(&j, 1061), 61, "elapsed while running");
	j.end_time = 1030;
	is_int(jobquery_elapsed(&j, 5000), 30, "elapsed once ended");
	is_int((int64_t)jobquery_cpus(&j), 32, "cpus of the job");
	is_int((int64_t)jobquery_gpus(&j), 8, "gpus of the job");

	o = json_object_new_object();
	out_json_add_str(o, "name", "kept");
	jobquery_json_fill(o, &j);
	ok(json_object_object_get_ex(o, "job_id", &v) &&
		json_object_get_int64(v) == 42,
	    "json: job_id");
	ok(json_object_object_get_ex(o, "state_code", &v) &&
		strcmp(json_object_get_string(v), "R") == 0,
	    "json: state_code");
	ok(json_object_object_get_ex(o, "user", &v) &&
		strcmp(json_object_get_string(v), "") == 0,
	    "json: a NULL string is \"\"");
	ok(json_object_object_get_ex(o, "name", &v) &&
		strcmp(json_object_get_string(v), "kept") == 0,
	    "json: a key already there is kept");
	is_int(json_object_object_length(o), 21, "json: the 21 stable keys");
	(void)json_object_put(o);

	jp = &j;
	root = slurmjson_jobs(SLURMJSON_SQUEUE, &jp, 1, 1061);
	ok(json_object_object_get_ex(root, "jobs", &arr) &&
		json_object_array_length(arr) == 1,
	    "squeue json: one job under \"jobs\"");
	o = json_object_array_get_idx(arr, 0);
	ok(json_object_object_get_ex(o, "job_state", &v) &&
		strcmp(json_object_get_string(v), "RUNNING") == 0,
	    "squeue json: job_state");
	ok(json_object_object_get_ex(o, "state_reason", &v) &&
		strcmp(json_object_get_string(v), "None") == 0,
	    "squeue json: no reason is \"None\"");
	ok(json_object_object_get_ex(o, "time_limit", &v) &&
		json_object_get_type(v) == json_type_null,
	    "squeue json: no limit is null");
	(void)json_object_put(root);
	root = slurmjson_jobs(SLURMJSON_SACCT, &jp, 1, 1061);
	(void)json_object_object_get_ex(root, "jobs", &arr);
	o = json_object_array_get_idx(arr, 0);
	ok(json_object_object_get_ex(o, "time", &v) &&
		json_object_object_get_ex(v, "elapsed", &v) &&
		json_object_get_int64(v) == 30,
	    "sacct json: time.elapsed");
	ok(json_object_object_get_ex(o, "state", &v) &&
		json_object_get_type(v) == json_type_object,
	    "sacct json: state is sacct's object, not the kaibatch string");
	(void)json_object_put(root);
	j.state = KAI_JOB_FAILED;
	j.exit_signal = 9;
	root = slurmjson_jobs(SLURMJSON_SACCT, &jp, 1, 1061);
	(void)json_object_object_get_ex(root, "jobs", &arr);
	o = json_object_array_get_idx(arr, 0);
	(void)json_object_object_get_ex(o, "exit_code", &o);
	ok(json_object_object_get_ex(o, "status", &v) &&
		strcmp(json_object_get_string(v), "SIGNALED") == 0,
	    "sacct json: killed by a signal is SIGNALED");
	ok(json_object_object_get_ex(o, "signal", &v) &&
		json_object_object_get_ex(v, "signal_id", &v) &&
		json_object_get_int64(v) == 9,
	    "sacct json: signal.signal_id");
	(void)json_object_put(root);
	root = slurmjson_jobs(SLURMJSON_SQUEUE, &jp, 1, 1061);
	(void)json_object_object_get_ex(root, "jobs", &arr);
	o = json_object_array_get_idx(arr, 0);
	ok(json_object_object_get_ex(o, "exit_code", &v) &&
		json_object_get_int64(v) == 9,
	    "squeue json: exit_code is the wait status of a SIGKILL");
	(void)json_object_put(root);
	kai_jobinfo_fini(&j);
}

static void
time_is(const char *s, int64_t now, const char *want)
{
	struct kai_err err;
	char b[OUT_TIME_LEN];
	int64_t t = 0;

	kai_err_clear(&err);
	if (!is_int(slurmtime_parse(s, now, &t, &err), 0, "time \"%s\"", s))
		diag("%s", kai_err_msg(&err));
	is_str(out_timestamp(t, b), want, "time \"%s\" value", s);
}

static void
test_slurmtime(void)
{
	/* 2024-03-15T14:30:00Z, a Friday */
	const int64_t now = 1710513000;
	struct kai_err err;
	int64_t t;

	time_is("midnight", now, "2024-03-15T00:00:00");
	time_is("today", now, "2024-03-15T00:00:00");
	time_is("Today", now, "2024-03-15T00:00:00");
	time_is("noon", now, "2024-03-15T12:00:00");
	time_is("tomorrow", now, "2024-03-16T00:00:00");
	time_is("now", now, "2024-03-15T14:30:00");
	time_is("now-1days", now, "2024-03-14T14:30:00");
	time_is("now-2hours", now, "2024-03-15T12:30:00");
	time_is("now+30", now, "2024-03-15T14:30:30");
	time_is("now-1week", now, "2024-03-08T14:30:00");
	time_is("10:00", now, "2024-03-15T10:00:00");
	time_is("16:05:09", now, "2024-03-15T16:05:09");
	time_is("4:00pm", now, "2024-03-15T16:00:00");
	time_is("2024-01-02", now, "2024-01-02T00:00:00");
	time_is("2024-01-02T10:20", now, "2024-01-02T10:20:00");
	time_is("2024-01-02T10:20:30", now, "2024-01-02T10:20:30");
	time_is("0301", now, "2024-03-01T00:00:00");
	time_is("1225", now, "2023-12-25T00:00:00"); /* the past reading */
	time_is("122523", now, "2023-12-25T00:00:00");
	time_is("03/01", now, "2024-03-01T00:00:00");
	time_is("03.01.24", now, "2024-03-01T00:00:00");
	time_is("03/01/24-09:00", now, "2024-03-01T09:00:00");
	time_is("today 09:15", now, "2024-03-15T09:15:00");

	is_int(slurmtime_parse("yesterday", now, &t, &err), KAI_EINVAL,
	    "unknown word");
	is_str(err.msg, "invalid time \"yesterday\": unexpected \"yesterday\"",
	    "message names the value");
	is_int(slurmtime_parse("25:00", now, &t, &err), KAI_EINVAL,
	    "hour out of range");
	is_int(slurmtime_parse("10:6", now, &t, &err), KAI_EINVAL,
	    "one-digit minutes");
	is_int(slurmtime_parse("1301", now, &t, &err), KAI_EINVAL, "month 13");
	is_int(slurmtime_parse("now-", now, &t, &err), KAI_EINVAL,
	    "offset without a count");
	is_int(slurmtime_parse("", now, &t, &err), KAI_EINVAL, "empty");
}

static void
test_filters(void)
{
	struct kai_err err;
	uint64_t *ids = NULL;
	uint32_t *uids = NULL, mask = 0;
	char **names = NULL;
	size_t n = 0, nu = 0, nn = 0;

	is_int(filter_parse_ids("42,43", &ids, &n, &err), 0, "ids");
	is_int(filter_parse_ids("7", &ids, &n, &err), 0, "ids add up");
	ok(n == 3 && ids[0] == 42 && ids[2] == 7, "three ids");
	is_int(filter_parse_ids("4,x", &ids, &n, &err), KAI_EINVAL, "bad id");
	is_str(err.msg, "invalid job id \"x\"", "bad id message");
	is_int(filter_parse_ids("0", &ids, &n, &err), KAI_EINVAL, "id 0");
	is_int(filter_parse_ids("1,,2", &ids, &n, &err), KAI_EINVAL,
	    "empty item");
	is_str(err.msg, "invalid job id list \"1,,2\": empty item",
	    "empty item message");
	free(ids);

	is_int(filter_parse_users("root,1001", &uids, &nu, &err), 0, "users");
	ok(nu == 2 && uids[0] == 0 && uids[1] == 1001, "names and uids");
	is_int(filter_parse_users("no-such-user-kai", &uids, &nu, &err),
	    KAI_EINVAL, "unknown user");
	is_str(err.msg, "invalid user \"no-such-user-kai\": no such user",
	    "unknown user message");
	free(uids);

	is_int(filter_parse_states("PD,running", &mask, &err), 0, "states");
	is_int(mask,
	    KAI_JOB_STATES_ACTIVE & ~KAI_JOB_STATE_BIT(KAI_JOB_CONFIGURING),
	    "PD and R");
	is_int(filter_parse_states("all", &mask, &err), 0, "all");
	is_int(mask, KAI_JOB_STATES_ALL, "all states");
	is_int(filter_parse_states("CG", &mask, &err), KAI_EINVAL,
	    "a Slurm state kaibatch lacks");

	is_int(filter_parse_names("partition", "gpu,cpu", &names, &nn, &err), 0,
	    "names");
	ok(filter_match_name(names, nn, "cpu") &&
		!filter_match_name(names, nn, "gp"),
	    "names match whole");
	ok(filter_match_name(NULL, 0, "x"), "no names match everything");
	filter_free_names(names, nn);
}

int
main(void)
{
	(void)setenv("TZ", "UTC", 1);
	tzset();
	test_fields();
	test_table();
	test_times();
	test_jobviews();
	test_slurmtime();
	test_filters();
	return done_testing();
}
