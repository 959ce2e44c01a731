/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-job: the Slurm value syntaxes (time limits, memory sizes, file name
 * patterns), the spec checker and the job state table.
 *
 * The expected values are what Slurm 22.05 does with the same input (see
 * ../shared/reference/sbatch-usage.md section 4 and src/model/job.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "model/job.h"
#include "model/jobstate.h"
#include "tap.h"

static void
time_ok(const char *s, int64_t want)
{
	struct kai_err err;
	int64_t got = -99;
	int r;

	kai_err_clear(&err);
	r = kai_time_limit_parse(s, &got, &err);
	if (!is_int(r, 0, "time \"%s\" parses", s))
		diag("error: %s", kai_err_msg(&err));
	is_int(got, want, "time \"%s\" is %lld s", s, (long long)want);
}

static void
time_bad(const char *s)
{
	struct kai_err err;
	char want[128];
	int64_t got = 12345;

	kai_err_clear(&err);
	is_int(kai_time_limit_parse(s, &got, &err), KAI_EINVAL,
	    "time \"%s\" is refused", s);
	(void)snprintf(want, sizeof(want), "invalid time limit \"%s\"", s);
	ok(strncmp(err.msg, want, strlen(want)) == 0,
	    "time \"%s\" error names the value (%s)", s, err.msg);
	is_int(got, 12345, "time \"%s\" leaves the output alone", s);
}

static void
test_time_parse(void)
{
	/* the six formats */
	time_ok("30", 30 * 60);
	time_ok("90", 90 * 60);
	time_ok("30:00", 30 * 60); /* minutes:seconds, not h:m */
	time_ok("1:30", 2 * 60);   /* 90 s round up */
	time_ok("24:00:00", 86400);
	time_ok("1:0:0", 3600);
	time_ok("100:00:00", 100 * 3600);
	time_ok("23:59:59", 86400); /* rounds up to 1-00:00:00 */
	time_ok("00:00:30", 60);
	time_ok("00:05:30", 6 * 60);
	time_ok("2-12", (2 * 24 + 12) * 3600);
	time_ok("0-08:00", 8 * 3600);
	time_ok("3-6:30", (3 * 24 + 6) * 3600 + 30 * 60);
	time_ok("7-00:00:00", 7 * 86400);
	time_ok("4-23:00:00", 4 * 86400 + 23 * 3600);
	time_ok("1-2:3:4", 86400 + 2 * 3600 + 3 * 60 + 60);
	time_ok("2-", 2 * 86400); /* a trailing "-" is accepted */
	time_ok("1-", 86400);
	time_ok("1-25", 86400 + 25 * 3600); /* Slurm checks no ranges */
	time_ok("0:90:00", 90 * 60);
	/* no limit */
	time_ok("0", KAI_TIME_UNLIMITED);
	time_ok("00:00:00", KAI_TIME_UNLIMITED);
	time_ok("UNLIMITED", KAI_TIME_UNLIMITED);
	time_ok("unlimited", KAI_TIME_UNLIMITED);
	time_ok("INFINITE", KAI_TIME_UNLIMITED);
	time_ok("-1", KAI_TIME_UNLIMITED); /* Slurm's own spelling */

	time_bad("");
	time_bad("1:2:3:4");
	time_bad("28:00:00:00");
	time_bad("-5");
	time_bad("abc");
	time_bad("TIME");
	time_bad("1h");
	time_bad(" 5");
	time_bad("+5");
	time_bad("1.5");
	time_bad(":5");
	time_bad("5:");
	time_bad("1::2");
	time_bad("1-2-3");
	time_bad("1-:30");
	time_bad("1-2:");
	time_bad("1:2-3");
	time_bad("-");
	time_bad("99999999999999999999999");
	time_bad("9999999999-00");
}

static void
fmt_is(int64_t s, const char *want)
{
	char out[32];

	kai_time_format(s, out, sizeof(out));
	is_str(out, want, "format %lld", (long long)s);
}

static void
test_time_format(void)
{
	char small[4];

	fmt_is(KAI_TIME_UNLIMITED, "UNLIMITED");
	fmt_is(1, "0:01");
	fmt_is(59, "0:59");
	fmt_is(60, "1:00");
	fmt_is(3599, "59:59");
	fmt_is(3600, "1:00:00");
	fmt_is(86399, "23:59:59");
	fmt_is(86400, "1-00:00:00");
	fmt_is(10 * 86400 + 3661, "10-01:01:01");
	fmt_is(-5, "INVALID");
	kai_time_format(86400, small, sizeof(small));
	is_str(small, "1-0", "format truncates to the buffer");
}

static void
mem_ok(const char *s, uint64_t want)
{
	struct kai_err err;
	uint64_t got = 0;

	kai_err_clear(&err);
	if (!is_int(kai_mem_parse(s, &got, &err), 0, "mem \"%s\" parses", s))
		diag("error: %s", kai_err_msg(&err));
	is_int((int64_t)got, (int64_t)want, "mem \"%s\" is %llu MiB", s,
	    (unsigned long long)want);
}

static void
mem_bad(const char *s)
{
	struct kai_err err;
	char want[128];
	uint64_t got = 7;

	kai_err_clear(&err);
	is_int(kai_mem_parse(s, &got, &err), KAI_EINVAL, "mem \"%s\" refused",
	    s);
	(void)snprintf(want, sizeof(want), "invalid memory size \"%s\"", s);
	ok(strncmp(err.msg, want, strlen(want)) == 0,
	    "mem \"%s\" error names the value (%s)", s, err.msg);
	is_int((int64_t)got, 7, "mem \"%s\" leaves the output alone", s);
}

static void
test_mem(void)
{
	mem_ok("0", 0);
	mem_ok("2000", 2000);
	mem_ok("500M", 500);
	mem_ok("500mb", 500);
	mem_ok("500Mb", 500);
	mem_ok("64G", 64 * 1024);
	mem_ok("64GB", 64 * 1024);
	mem_ok("64gb", 64 * 1024);
	mem_ok("64Gb", 64 * 1024);
	mem_ok("64g", 64 * 1024);
	mem_ok("1T", 1024 * 1024);
	mem_ok("1tb", 1024 * 1024);
	mem_ok("1024K", 1);
	mem_ok("1025k", 2); /* K rounds up */
	mem_ok("1KB", 1);
	mem_ok("17179869184T", (uint64_t)17179869184 * 1024 * 1024);

	mem_bad("");
	mem_bad("G");
	mem_bad("1.5G");
	mem_bad("-5");
	mem_bad("+5");
	mem_bad(" 5");
	mem_bad("5 G");
	mem_bad("5B"); /* B only after a unit */
	mem_bad("5GiB");
	mem_bad("5P");
	mem_bad("5GBB");
	mem_bad("lots");
	mem_bad("99999999999999999999999");
	mem_bad("17592186044416T"); /* overflows 64 bits */
}

static void
pattern_is(const char *pat, uint64_t id, const char *name, const char *user,
    const char *want)
{
	char *got = kai_pattern_expand(pat, id, name, user);

	is_str(got, want, "pattern \"%s\"", pat);
	free(got);
}

static void
test_pattern(void)
{
	pattern_is("slurm-%j.out", 42, "x", "ann", "slurm-42.out");
	pattern_is("logs/%x-%j.out", 7, "train", "ann", "logs/train-7.out");
	pattern_is("%u/%x.%J", 9, "n", "bob", "bob/n.9");
	pattern_is("job%4j.out", 128, "n", "u", "job0128.out");
	pattern_is("%5j", 42, "n", "u", "00042");
	pattern_is("%2j", 12345, "n", "u", "12345");   /* never truncates */
	pattern_is("%99j", 1, "n", "u", "0000000001"); /* width capped */
	pattern_is("100%%", 1, "n", "u", "100%");
	pattern_is("%%j", 1, "n", "u", "%j");
	pattern_is("a%qb", 1, "n", "u", "a%qb");
	pattern_is("a%5qb", 1, "n", "u", "a%5qb");
	/* the batch step's: its host, node and task 0, step "batch" */
	pattern_is("%N-%n-%t.out", 12, "n", "u", "kai-12-0-0-0.out");
	pattern_is("%j.%s", 12, "n", "u", "12.4294967291");
	pattern_is("%3t", 1, "n", "u", "000");
	pattern_is("end%", 1, "n", "u", "end%");
	pattern_is("end%3", 1, "n", "u", "end%3");
	pattern_is("slurm-%A_%a.out", 77, "n", "u", "slurm-77_0.out");
	pattern_is("%3a", 77, "n", "u", "000");
	pattern_is("%x", 1, NULL, NULL, "");
	pattern_is("", 1, "n", "u", "");
	pattern_is("plain.txt", 1, "n", "u", "plain.txt");
}

static void
spec_base(struct kai_jobspec *js)
{
	memset(js, 0, sizeof(*js));
	js->script = kai_xstrdup("#!/bin/sh\ntrue\n");
	js->workdir = kai_xstrdup("/home/ann");
	js->time_limit_s = KAI_TIME_UNSET;
}

static void
spec_bad(struct kai_jobspec *js, const char *want, const char *what)
{
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_jobspec_validate(js, &err), KAI_EINVAL, "%s refused", what);
	is_str(err.msg, want, "%s message", what);
	kai_jobspec_fini(js);
	spec_base(js);
}

static void
test_validate(void)
{
	struct kai_jobspec js;
	struct kai_err err;
	char *big;

	spec_base(&js);
	is_int(kai_jobspec_validate(&js, &err), 0, "minimal spec is valid");
	js.ntasks = 4;
	js.cpus_per_task = 8;
	js.gpus_per_task = 1;
	js.name = kai_xstrdup("train");
	js.env = kai_xcalloc(2, sizeof(char *));
	js.env[0] = kai_xstrdup("A=1");
	js.env[1] = kai_xstrdup("EMPTY=");
	js.nenv = 2;
	js.stdout_pattern = kai_xstrdup("logs/%j.out");
	js.umask = KAI_JOB_UMASK_SET | 0777;
	is_int(kai_jobspec_validate(&js, &err), 0, "full spec is valid");
	kai_jobspec_fini(&js);
	ok(js.name == NULL && js.env == NULL && js.nenv == 0,
	    "fini clears the struct");
	kai_jobspec_fini(&js); /* a second fini is harmless */
	spec_base(&js);

	KAI_FREE(js.script);
	spec_bad(&js, "script is empty", "no script");
	js.script[0] = '\0';
	spec_bad(&js, "script is empty", "empty script");
	free(js.script);
	big = kai_xmalloc(KAI_JOB_SCRIPT_MAX + 2);
	memset(big, 'x', KAI_JOB_SCRIPT_MAX + 1);
	big[KAI_JOB_SCRIPT_MAX + 1] = '\0';
	js.script = big;
	spec_bad(&js, "script is too large: 102401 bytes (limit 102400)",
	    "large script");
	js.name = kai_xstrdup("");
	spec_bad(&js, "job name is empty", "empty name");
	js.name = kai_xstrdup("a\nb");
	spec_bad(&js, "job name \"a\\nb\" contains a control character",
	    "newline in name");
	js.name = kai_xstrdup("caf\xe9");
	spec_bad(&js, "job name is not valid UTF-8 (byte 0xe9 at offset 3)",
	    "Latin-1 name");
	js.stdout_pattern = kai_xstrdup("\xefout-%j");
	spec_bad(&js,
	    "output pattern is not valid UTF-8 (byte 0xef at offset 0)",
	    "bad UTF-8 in -o");
	free(js.script);
	js.script = kai_xstrdup("#!/bin/sh\necho \xff\n");
	spec_bad(&js, "script is not valid UTF-8 (byte 0xff at offset 15)",
	    "bad UTF-8 in the script");
	js.env = kai_xcalloc(1, sizeof(char *));
	js.env[0] = kai_xstrdup("A=\xc0\xaf");
	js.nenv = 1;
	spec_bad(&js, "environment is not valid UTF-8 (byte 0xc0 at offset 2)",
	    "overlong UTF-8 in the environment");
	js.name = kai_xstrdup("caf\xc3\xa9 \xe2\x9c\x93");
	is_int(kai_jobspec_validate(&js, &err), 0, "UTF-8 in a name is fine");
	kai_jobspec_fini(&js);
	spec_base(&js);
	js.queue = kai_xmalloc(KAI_JOB_NAME_MAX + 2);
	memset(js.queue, 'q', KAI_JOB_NAME_MAX + 1);
	js.queue[KAI_JOB_NAME_MAX + 1] = '\0';
	spec_bad(&js, "partition is too long: 256 bytes (limit 255)",
	    "long queue");
	free(js.workdir);
	js.workdir = kai_xstrdup("rel/dir");
	spec_bad(&js, "working directory \"rel/dir\" is not an absolute path",
	    "relative workdir");
	KAI_FREE(js.workdir);
	spec_bad(&js, "working directory is missing", "no workdir");
	js.ntasks = KAI_JOB_NTASKS_MAX + 1;
	spec_bad(&js, "invalid ntasks 1025: must be between 0 and 1024",
	    "too many tasks");
	js.gpus_per_task = 65;
	spec_bad(&js, "invalid gpus-per-task 65: must be between 0 and 64",
	    "too many gpus");
	js.mem_mb = KAI_JOB_MEM_MAX + UINT64_C(1);
	spec_bad(&js,
	    "invalid memory 1073741825 MiB per task: the limit is 1073741824 "
	    "MiB (1 PiB)",
	    "memory above 1 PiB");
	js.mem_mb = KAI_JOB_MEM_MAX;
	is_int(kai_jobspec_validate(&js, &err), 0, "1 PiB of memory is taken");
	js.env = kai_xcalloc(1, sizeof(char *));
	js.env[0] = kai_xstrdup("NOEQUALS");
	js.nenv = 1;
	spec_bad(&js,
	    "invalid environment entry \"NOEQUALS\": expected NAME=VALUE",
	    "env without =");
	js.env = kai_xcalloc(1, sizeof(char *));
	js.env[0] = kai_xstrdup("=x");
	js.nenv = 1;
	spec_bad(&js, "invalid environment entry \"=x\": expected NAME=VALUE",
	    "env without name");
	js.time_limit_s = -2;
	spec_bad(&js, "invalid time limit -2 s", "negative limit");
	js.signal_number = 65;
	js.signal_secs = 60;
	spec_bad(&js, "invalid signal 65@60: the number must be 1 to 64 and "
	    "the time 0 to 65535 seconds", "signal 65");
	js.signal_number = 10;
	js.signal_secs = 70000;
	spec_bad(&js, "invalid signal 10@70000: the number must be 1 to 64 "
	    "and the time 0 to 65535 seconds", "signal time 70000");
	js.open_mode = 3;
	spec_bad(&js, "invalid open mode 3", "open mode 3");
	js.umask = 022;
	spec_bad(&js, "invalid umask 022: expected 01000 plus a mode of 0 "
	    "to 0777", "a umask without KAI_JOB_UMASK_SET");
	js.umask = 02022;
	spec_bad(&js, "invalid umask 02022: expected 01000 plus a mode of 0 "
	    "to 0777", "a umask past 0777");
	kai_jobspec_fini(&js);
}

static void
test_fini(void)
{
	struct kai_jobinfo ji;
	struct kai_job job;

	memset(&ji, 0, sizeof(ji));
	kai_jobinfo_fini(&ji);
	ji.name = kai_xstrdup("n");
	ji.nodelist = kai_xstrdup("a,b");
	kai_jobinfo_fini(&ji);
	ok(ji.name == NULL && ji.nodelist == NULL, "jobinfo fini clears");

	memset(&job, 0, sizeof(job));
	job.name = kai_xstrdup("n");
	job.allocs = kai_xcalloc(2, sizeof(*job.allocs));
	job.nallocs = 2;
	job.allocs[0].node = kai_xstrdup("gpu-a1");
	job.allocs[1].pod = kai_xstrdup("kai-1-1");
	kai_job_fini(&job);
	ok(job.allocs == NULL && job.nallocs == 0, "job fini frees allocs");
	kai_job_fini(NULL);
	kai_alloc_fini(NULL);
	kai_jobspec_fini(NULL);
	kai_jobinfo_fini(NULL);
	ok(1, "fini of NULL is a no-op");
}

static void
test_states(void)
{
	static const struct {
		enum kai_job_state s;
		const char *name, *code;
		bool terminal;
	} t[] = {
	    {KAI_JOB_PENDING, "PENDING", "PD", false},
	    {KAI_JOB_CONFIGURING, "CONFIGURING", "CF", false},
	    {KAI_JOB_RUNNING, "RUNNING", "R", false},
	    {KAI_JOB_COMPLETED, "COMPLETED", "CD", true},
	    {KAI_JOB_FAILED, "FAILED", "F", true},
	    {KAI_JOB_CANCELLED, "CANCELLED", "CA", true},
	    {KAI_JOB_TIMEOUT, "TIMEOUT", "TO", true},
	    {KAI_JOB_PREEMPTED, "PREEMPTED", "PR", true},
	    {KAI_JOB_NODE_FAIL, "NODE_FAIL", "NF", true},
	    {KAI_JOB_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM", true},
	    {KAI_JOB_REQUEUED, "REQUEUED", "RQ", true},
	};
	enum kai_job_state s;
	size_t i;
	int j;

	is_int(KAI_NELEM(t), KAI_JOB_NSTATES, "every state is tested");
	for (i = 0; i < KAI_NELEM(t); i++) {
		is_str(kai_jobstate_name(t[i].s), t[i].name, "name of %zu", i);
		is_str(kai_jobstate_code(t[i].s), t[i].code, "code of %zu", i);
		is_int(kai_jobstate_is_terminal(t[i].s), t[i].terminal,
		    "terminal %s", t[i].name);
		s = KAI_JOB_NSTATES;
		ok(kai_jobstate_parse(t[i].name, &s) == 0 && s == t[i].s,
		    "parse %s", t[i].name);
		s = KAI_JOB_NSTATES;
		ok(kai_jobstate_parse(t[i].code, &s) == 0 && s == t[i].s,
		    "parse %s", t[i].code);
		if (t[i].terminal)
			for (j = 0; j < KAI_JOB_NSTATES; j++)
				ok(!kai_jobstate_can_move(t[i].s, j),
				    "%s is final (-> %d)", t[i].name, j);
	}
	ok(kai_jobstate_parse("pending", &s) == 0 && s == KAI_JOB_PENDING,
	    "parse is case-insensitive");
	ok(kai_jobstate_parse("r", &s) == 0 && s == KAI_JOB_RUNNING,
	    "parse lower-case code");
	is_int(kai_jobstate_parse("RUNNIN", &s), -1, "parse a non-state");
	is_int(kai_jobstate_parse("", &s), -1, "parse empty");
	is_str(kai_jobstate_name(KAI_JOB_NSTATES), "UNKNOWN", "name range");
	is_str(kai_jobstate_code((enum kai_job_state) - 1), "??", "code range");
	ok(kai_jobstate_can_move(KAI_JOB_PENDING, KAI_JOB_CONFIGURING),
	    "PD -> CF");
	ok(kai_jobstate_can_move(KAI_JOB_PENDING, KAI_JOB_CANCELLED),
	    "PD -> CA");
	ok(!kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_REQUEUED),
	    "no job moves to REQUEUED (kacct -D's earlier runs only)");
	ok(!kai_jobstate_can_move(KAI_JOB_PENDING, KAI_JOB_RUNNING),
	    "PD -/-> R (must be placed first)");
	ok(!kai_jobstate_can_move(KAI_JOB_PENDING, KAI_JOB_COMPLETED),
	    "PD -/-> CD");
	ok(kai_jobstate_can_move(KAI_JOB_CONFIGURING, KAI_JOB_RUNNING),
	    "CF -> R");
	ok(kai_jobstate_can_move(KAI_JOB_CONFIGURING, KAI_JOB_PENDING),
	    "CF -> PD (pods could not be created)");
	ok(kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_TIMEOUT), "R -> TO");
	ok(kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_PENDING),
	    "R -> PD (requeue)");
	ok(!kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_CONFIGURING),
	    "R -/-> CF");
	ok(!kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_NSTATES),
	    "no move out of range");
	ok(!kai_jobstate_can_move(KAI_JOB_RUNNING, KAI_JOB_RUNNING),
	    "R -/-> R: growing or shrinking is a resize");
	ok(!kai_jobstate_can_move(KAI_JOB_PREEMPTED, KAI_JOB_PENDING),
	    "PR -/-> PD: a requeue does not pass through PREEMPTED");
	ok(kai_jobstate_can_resize(KAI_JOB_RUNNING) &&
	    kai_jobstate_can_resize(KAI_JOB_CONFIGURING),
	    "placed jobs may be resized");
	ok(!kai_jobstate_can_resize(KAI_JOB_PENDING) &&
	    !kai_jobstate_can_resize(KAI_JOB_COMPLETED),
	    "pending and ended ones may not");
	ok(KAI_JOB_STATES_ACTIVE ==
		(KAI_JOB_STATE_BIT(KAI_JOB_PENDING) |
		    KAI_JOB_STATE_BIT(KAI_JOB_CONFIGURING) |
		    KAI_JOB_STATE_BIT(KAI_JOB_RUNNING)),
	    "active mask");
	is_int(KAI_JOB_STATES_ALL, 0x7ff, "all-states mask");
}

/* A valid spec with one scheduling field set by the caller. */
static void
sched_bad(struct kai_jobspec *js, const char *want, const char *what)
{
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_jobspec_validate(js, &err), KAI_EINVAL, "%s refused", what);
	is_str(err.msg, want, "%s: the message", what);
}

static void
test_sched(void)
{
	char script[] = "#!/bin/sh\ntrue\n", wd[] = "/tmp";
	struct kai_jobspec js;
	struct kai_err err;
	uint32_t prio = 0;

	ok(kai_prio_class("train", &prio, &err) == 0 && prio == 50,
	    "train is 50");
	ok(kai_prio_class("build-preemptible", &prio, &err) == 0 &&
	    prio == 75, "build-preemptible is 75");
	ok(kai_prio_class("build", &prio, &err) == 0 && prio == 100,
	    "build is 100");
	ok(kai_prio_class("inference", &prio, &err) == 0 && prio == 125,
	    "inference is 125");
	ok(kai_prio_class(NULL, &prio, &err) == 0 && prio == 50,
	    "no class is train");
	is_int(kai_prio_class("Train", &prio, &err), KAI_EINVAL,
	    "class names are exact");
	ok(kai_label_key_ok("kaibatch.io/rack"), "a prefixed label key");
	ok(kai_label_key_ok("topology.kubernetes.io/zone"), "a zone key");
	ok(kai_label_key_ok("rack"), "a bare label key");
	ok(!kai_label_key_ok("Kaibatch.IO/rack"), "an upper-case prefix");
	ok(!kai_label_key_ok("rack/"), "an empty name");
	ok(!kai_label_key_ok("a b"), "a space");
	ok(!kai_label_key_ok(""), "an empty key");

	memset(&js, 0, sizeof(js));
	js.script = script;
	js.workdir = wd;
	js.ntasks = 2;
	js.gpu_fraction = 500000;
	js.min_tasks = 2;
	js.topology = (char *)"kaibatch.io/rack";
	js.priority_class = (char *)"build";
	js.preempt = KAI_TRI_NO;
	js.requeue = KAI_TRI_NO;
	is_int(kai_jobspec_validate(&js, &err), 0, "every option at once");
	js.gpu_fraction = 1000000;
	sched_bad(&js, "invalid GPU fraction 1000000 micro-GPUs: must be "
	    "above 0 and below 1 GPU", "a whole fraction");
	js.gpu_fraction = 500000;
	js.gpus_per_task = 1;
	sched_bad(&js, "option \"--gpu-fraction\" asks for a part of one "
	    "GPU: it excludes whole GPUs", "a fraction with whole GPUs");
	js.gpus_per_task = 0;
	js.gpu_memory_mb = 1024;
	sched_bad(&js, "options \"--gpu-fraction\" and \"--gpu-memory\" "
	    "are mutually exclusive", "a fraction and memory");
	js.gpu_memory_mb = 0;
	js.min_tasks = 3;
	sched_bad(&js, "invalid min-tasks 3: the job has 2 tasks",
	    "min-tasks above ntasks");
	js.min_tasks = 0;
	js.priority_class = (char *)"gold";
	sched_bad(&js, "invalid priority class \"gold\": must be one of "
	    "train, build-preemptible, build, inference", "a class");
	js.priority_class = NULL;
	js.topology_preferred = (char *)"no key";
	sched_bad(&js, "invalid topology level \"no key\" of option "
	    "\"--topology-preferred\": must be a node label key",
	    "a preferred level");
	js.topology_preferred = NULL;
	js.requeue = 3;
	sched_bad(&js, "invalid preemptible or requeue value", "a tristate");
}

/* Output paths are bounded once expanded (issue 15, finding 4). */
/* --gres=gpu:N per node, spread over the tasks of each node group. */
static void
test_gpus(void)
{
	struct kai_jobspec js;
	struct kai_err err;

	is_int(kai_job_task_gpus(1, 1, 2, 0), 1, "1 GPU, 2 tasks: task 0 has it");
	is_int(kai_job_task_gpus(0, 1, 2, 1), 0, "and task 1 none");
	is_int(kai_job_task_gpus(0, 8, 8, 7), 1, "8 over 8: one each");
	is_int(kai_job_task_gpus(0, 3, 2, 2), 2, "3 over 2: the first has 2");
	is_int(kai_job_task_gpus(0, 3, 2, 3), 1, "and the second 1");
	is_int(kai_job_task_gpus(2, 0, 4, 3), 2, "no per-node count: per task");
	is_int((int64_t)kai_job_gpus(0, 1, 2, 2), 1, "the job has 1");
	is_int((int64_t)kai_job_gpus(0, 4, 4, 8), 8, "2 nodes of 4: 8");
	is_int((int64_t)kai_job_gpus(2, 0, 0, 3), 6, "per task: 3 x 2");
	is_int((int64_t)kai_job_gpus(2, 0, 0, 0), 2, "0 tasks count as 1");
	is_int(kai_job_node_gpus(0, 4, 4), 4, "a node's GPUs");
	is_int(kai_job_node_gpus(2, 0, 4), 8, "per task, 4 tasks a node");
	is_int(kai_job_node_gpus(2, 0, 0), 2, "no groups: one task");

	memset(&js, 0, sizeof(js));
	js.ntasks = 2;
	js.gpus_per_node = 1;
	is_int(kai_jobspec_check_sched(&js, &err), KAI_EINVAL,
	    "GPUs per node without node groups refused");
	is_str(err.msg, "invalid gpus-per-node 1: it needs node groups "
	    "(ntasks-per-node) and no GPUs per task", "message");
	js.ntasks_per_node = 2;
	is_int(kai_jobspec_check_sched(&js, &err), 0, "with groups accepted");
	js.gpus_per_task = 1;
	is_int(kai_jobspec_check_sched(&js, &err), KAI_EINVAL,
	    "and with GPUs per task refused");
}

static void
test_check_output(void)
{
	struct kai_jobspec js;
	struct kai_err err;
	char *p = kai_xcalloc(1, 2 * 20 + 1);
	int i;

	spec_base(&js);
	is_int(kai_jobspec_check_output(&js, "ann", &err), 0,
	    "the default output file is short enough");
	js.name = kai_xcalloc(1, KAI_JOB_NAME_MAX + 1);
	memset(js.name, 'n', KAI_JOB_NAME_MAX);
	for (i = 0; i < 16; i++)
		memcpy(p + 2 * i, "%x", 2);
	js.stdout_pattern = kai_xstrdup(p);
	is_int(kai_jobspec_check_output(&js, "ann", &err), 0,
	    "16 names of 255 bytes: 4090 bytes with the workdir");
	memcpy(p + 32, "%x", 2);
	free(js.stdout_pattern);
	js.stdout_pattern = kai_xstrdup(p);
	is_int(kai_jobspec_check_output(&js, "ann", &err), KAI_EINVAL,
	    "17 of them are refused");
	is_str(err.msg, "invalid --output: the path it names may be 4345 "
	    "bytes long, over the limit of 4096", "the message says why");
	free(js.stdout_pattern);
	js.stdout_pattern = kai_xstrdup("/out/%j.%A.%a.log");
	js.stderr_pattern = kai_xstrdup(p);
	is_int(kai_jobspec_check_output(&js, "ann", &err), KAI_EINVAL,
	    "an --error pattern is checked too");
	is_str(err.msg, "invalid --error: the path it names may be 4345 "
	    "bytes long, over the limit of 4096", "and named");
	kai_jobspec_fini(&js);
	spec_base(&js);
	free(js.workdir);
	js.workdir = kai_xcalloc(1, KAI_JOB_PATH_MAX + 1);
	memset(js.workdir, 'w', KAI_JOB_PATH_MAX);
	js.workdir[0] = '/';
	is_int(kai_jobspec_check_output(&js, "ann", &err), KAI_EINVAL,
	    "the default file in a 4096-byte workdir is refused");
	kai_jobspec_fini(&js);
	free(p);
}

int
main(void)
{
	test_sched();
	test_check_output();
	test_time_parse();
	test_time_format();
	test_mem();
	test_pattern();
	test_validate();
	test_fini();
	test_states();
	test_gpus();
	return done_testing();
}
