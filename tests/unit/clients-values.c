/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-values: the value syntaxes ksubmit reads, one row per spelling
 * the survey of real sbatch scripts found
 * (../shared/reference/sbatch-usage.md section 4), plus the edges of
 * each syntax.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "model/job.h"
#include "submit_values.h"
#include "tap.h"

static void
test_time(void)
{
	static const struct {
		const char *s;
		int64_t want; /* seconds; -2 = invalid */
	} t[] = {
	    /* hours:minutes:seconds */
	    {"24:00:00", 86400},
	    {"00:30:00", 1800},
	    {"48:00:00", 172800},
	    {"1:00:00", 3600},
	    {"72:00:00", 259200},
	    {"23:59:59", 86400},
	    {"100:00:00", 360000},
	    {"960:00:00", 3456000},
	    {"1:0:0", 3600},
	    {"24:0:00", 86400},
	    {"00:1:00", 60},
	    {"00:00:30", 60},
	    {"00:05:30", 360},
	    /* days-hours:minutes:seconds */
	    {"7-00:00:00", 604800},
	    {"3-00:00:00", 259200},
	    {"1-00:00:00", 86400},
	    {"0-01:00:00", 3600},
	    {"4-23:00:00", 428400},
	    {"00-05:00:00", 18000},
	    /* days-hours:minutes */
	    {"0-08:00", 28800},
	    {"2-00:00", 172800},
	    {"0-1:00", 3600},
	    {"3-6:30", 282600},
	    /* minutes */
	    {"30", 1800},
	    {"90", 5400},
	    {"240", 14400},
	    {"960", 57600},
	    {"1440", 86400},
	    {"20000", 1200000},
	    /* minutes:seconds (30:00 is thirty minutes) */
	    {"30:00", 1800},
	    {"20:00", 1200},
	    {"1:30", 120},
	    /* days-hours */
	    {"2-12", 216000},
	    {"1-10", 122400},
	    {"5-0", 432000},
	    {"2-", 172800},
	    /* no limit */
	    {"0", KAI_TIME_UNLIMITED},
	    {"UNLIMITED", KAI_TIME_UNLIMITED},
	    {"INFINITE", KAI_TIME_UNLIMITED},
	    {"unlimited", KAI_TIME_UNLIMITED},
	    /* placeholders and invalid forms */
	    {"TIME", -2},
	    {"__walltime__", -2},
	    {"28:00:00:00", -2},
	    {"1-2-3", -2},
	    {"", -2},
	    {"-5", -2},
	    {"1:2:3:4", -2},
	    {"1.5", -2},
	    {"1h", -2},
	};
	struct kai_err err;
	int64_t s;
	size_t i;
	int r;

	for (i = 0; i < KAI_NELEM(t); i++) {
		s = -99;
		r = kai_time_limit_parse(t[i].s, &s, &err);
		if (t[i].want == -2)
			ok(r == KAI_EINVAL, "time \"%s\" is refused", t[i].s);
		else
			ok(r == 0 && s == t[i].want, "time \"%s\" is %lld s",
			    t[i].s, (long long)t[i].want);
	}
}

static void
test_mem(void)
{
	static const struct {
		const char *s;
		int64_t want; /* MiB; -2 = invalid */
	} t[] = {
	    {"32G", 32768},
	    {"64G", 65536},
	    {"93G", 95232},
	    {"64GB", 65536},
	    {"20000", 20000},
	    {"32000", 32000},
	    {"8000", 8000},
	    {"64gb", 65536},
	    {"32000M", 32000},
	    {"16384M", 16384},
	    {"0", 0},
	    {"64g", 65536},
	    {"64Gb", 65536},
	    {"500MB", 500},
	    {"500mb", 500},
	    {"1T", 1048576},
	    {"1tb", 1048576},
	    {"3900M", 3900},
	    {"7000M", 7000},
	    {"64000M", 64000},
	    {"2000", 2000},
	    {"4096", 4096},
	    {"8048", 8048},
	    {"1500Mb", 1500},
	    {"1024K", 1},
	    {"1025K", 2},
	    {"1k", 1},
	    {"0G", 0},
	    {"1.5G", -2},
	    {"MEM", -2},
	    {"", -2},
	    {"-1G", -2},
	    {"12Q", -2},
	    {"64 G", -2},
	    {"64B", -2},
	};
	struct kai_err err;
	uint64_t mib;
	size_t i;
	int r;

	for (i = 0; i < KAI_NELEM(t); i++) {
		mib = 99;
		r = kai_mem_parse(t[i].s, &mib, &err);
		if (t[i].want == -2)
			ok(r == KAI_EINVAL, "memory \"%s\" is refused", t[i].s);
		else
			ok(r == 0 && mib == (uint64_t)t[i].want,
			    "memory \"%s\" is %lld MiB", t[i].s,
			    (long long)t[i].want);
	}
}

static void
test_gres(void)
{
	static const struct {
		const char *s;
		int64_t count; /* -2 = invalid */
		const char *type;
	} t[] = {
	    {"gpu:1", 1, NULL},
	    {"gpu:4", 4, NULL},
	    {"gpu:a100:4", 4, "a100"},
	    {"gpu", 1, NULL},
	    {"gpu:v100", 1, "v100"},
	    {"gpu:A100:2", 2, "A100"},
	    {"gpu:tesla-smx2:1", 1, "tesla-smx2"},
	    {"gpu:v100-32gb:1", 1, "v100-32gb"},
	    {"gpu:A100.80gb:1", 1, "A100.80gb"},
	    {"gpu:nvidia_a30:1", 1, "nvidia_a30"},
	    {"gpu:rtx_4090:2", 2, "rtx_4090"},
	    {"gpu:1g.10gb:1", 1, "1g.10gb"},
	    {"gpu:mig", 1, "mig"},
	    {"gres/gpu:2", 2, NULL},
	    {"gpu:0", 0, NULL},
	    {"none", SUBMIT_UNSET, NULL},
	    {"NONE", SUBMIT_UNSET, NULL},
	    {"dcu:4", -2, NULL},
	    {"gpumem:20g", -2, NULL},
	    {"nvme:1", -2, NULL},
	    {"shard:2", -2, NULL},
	    {"tmpspace", -2, NULL},
	    {"gpu:a100:4,nvme:1", -2, NULL},
	    {"gpu:1,gpu:2", -2, NULL},
	    {"gpu:", -2, NULL},
	    {"gpu:a100:x", -2, NULL},
	    {"gpu:a:b:1", -2, NULL},
	    {"", -2, NULL},
	    {"gpu:a100:4(S:0-1)", -2, NULL},
	};
	struct submit_gpu g = {SUBMIT_UNSET, NULL, NULL};
	struct kai_err err;
	size_t i;
	int r;

	for (i = 0; i < KAI_NELEM(t); i++) {
		g.count = 77;
		r = submit_gres_parse(t[i].s, &g, &err);
		if (t[i].count == -2)
			ok(r == KAI_EINVAL, "gres \"%s\" is refused", t[i].s);
		else
			ok(r == 0 && g.count == t[i].count &&
				(t[i].type == NULL ? g.type == NULL
						   : g.type != NULL &&
					    strcmp(g.type, t[i].type) == 0),
			    "gres \"%s\": %lld of %s", t[i].s,
			    (long long)t[i].count,
			    t[i].type != NULL ? t[i].type : "any type");
	}
	submit_gpu_fini(&g);
	ok(submit_gres_parse("shard:2", &g, &err) == KAI_EINVAL, "shard:2");
	is_str(err.msg,
	    "invalid gres \"shard:2\": kaibatch knows only gpu, not \"shard\"",
	    "a resource other than gpu is named");
}

static void
test_gpus_nodes(void)
{
	struct submit_gpu g = {SUBMIT_UNSET, NULL, NULL};
	struct kai_err err;
	int64_t lo, hi;

	ok(submit_gpu_parse("8", &g, &err) == 0 && g.count == 8 &&
		g.type == NULL,
	    "--gpus=8");
	ok(submit_gpu_parse("a100:2", &g, &err) == 0 && g.count == 2 &&
		strcmp(g.type, "a100") == 0,
	    "--gpus=a100:2");
	ok(submit_gpu_parse("l4-24g:1", &g, &err) == 0 &&
		strcmp(g.type, "l4-24g") == 0,
	    "--gpus-per-node=l4-24g:1");
	ok(submit_gpu_parse("a100", &g, &err) == KAI_EINVAL, "a type alone");
	ok(submit_gpu_parse("a:b:1", &g, &err) == KAI_EINVAL, "two types");
	ok(submit_gpu_parse("-1", &g, &err) == KAI_EINVAL, "negative");
	is_str(err.msg, "invalid GPU count \"-1\"", "message");
	submit_gpu_fini(&g);

	ok(submit_nodes_parse("1", &lo, &hi, &err) == 0 && lo == 1 && hi == 1,
	    "-N 1");
	ok(submit_nodes_parse("2-4", &lo, &hi, &err) == 0 && lo == 2 && hi == 4,
	    "-N 2-4");
	ok(submit_nodes_parse("1-1", &lo, &hi, &err) == 0 && lo == 1 && hi == 1,
	    "-N 1-1");
	ok(submit_nodes_parse("0", &lo, &hi, &err) == KAI_EINVAL, "-N 0");
	ok(submit_nodes_parse("4-2", &lo, &hi, &err) == KAI_EINVAL, "-N 4-2");
	ok(submit_nodes_parse("2-", &lo, &hi, &err) == KAI_EINVAL, "-N 2-");
	ok(submit_nodes_parse("x", &lo, &hi, &err) == KAI_EINVAL, "-N x");
}

static void
test_signal(void)
{
	static const struct {
		const char *s;
		int number; /* 0 = invalid */
		int secs;
		bool batch;
	} t[] = {
	    {"SIGUSR1@90", SIGUSR1, 90, false},
	    {"USR1@600", SIGUSR1, 600, false},
	    {"USR1@300", SIGUSR1, 300, false},
	    {"2@60", 2, 60, false},
	    {"B:USR1@300", SIGUSR1, 300, true},
	    {"B:TERM@120", SIGTERM, 120, true},
	    {"USR2", SIGUSR2, 60, false},
	    {"SIGTERM@30", SIGTERM, 30, false},
	    {"usr1", SIGUSR1, 60, false},
	    {"b:sigusr2@0", SIGUSR2, 0, true},
	    {"R:USR1", SIGUSR1, 60, false},
	    {"RB:10@5", 10, 5, true},
	    {"10", 10, 60, false},
	    {"FOO", 0, 0, false},
	    {"0", 0, 0, false},
	    {"65", 0, 0, false},
	    {"USR1@", 0, 0, false},
	    {"USR1@x", 0, 0, false},
	    {"USR1@65536", 0, 0, false},
	    {"", 0, 0, false},
	    {"X:USR1", 0, 0, false},
	};
	struct submit_signal sg;
	struct kai_err err;
	size_t i;
	int r;

	for (i = 0; i < KAI_NELEM(t); i++) {
		memset(&sg, 0, sizeof(sg));
		r = submit_signal_parse(t[i].s, &sg, &err);
		if (t[i].number == 0)
			ok(r == KAI_EINVAL, "signal \"%s\" is refused", t[i].s);
		else
			ok(r == 0 && sg.number == t[i].number &&
				sg.secs == t[i].secs &&
				sg.batch_only == t[i].batch,
			    "signal \"%s\"", t[i].s);
	}
	is_str(submit_signal_name(SIGUSR1), "USR1", "names of numbers");
	ok(submit_signal_name(40) == NULL, "a real-time signal has no name");
}

static void
test_kai_values(void)
{
	struct kai_err err;
	char *name = NULL, *level = NULL;
	double f;

	ok(submit_fraction_parse("0.5", &f, &err) == 0 && f == 0.5, "0.5");
	ok(submit_fraction_parse(".25", &f, &err) == 0 && f == 0.25, ".25");
	ok(submit_fraction_parse("1", &f, &err) == KAI_EINVAL, "1 is whole");
	ok(submit_fraction_parse("0", &f, &err) == KAI_EINVAL, "0 is none");
	ok(submit_fraction_parse("1e-1", &f, &err) == KAI_EINVAL,
	    "no exponent");
	ok(submit_fraction_parse("0.5x", &f, &err) == KAI_EINVAL, "no junk");
	is_str(err.msg,
	    "invalid GPU fraction \"0.5x\": must be a decimal above 0 and "
	    "below 1",
	    "message");

	ok(submit_topology_parse("k8s.io/rack", &name, &level, &err) == 0 &&
		name == NULL && strcmp(level, "k8s.io/rack") == 0,
	    "a level");
	free(level);
	ok(submit_topology_parse("cluster-topology:k8s.io/rack", &name, &level,
	       &err) == 0 &&
		strcmp(name, "cluster-topology") == 0 &&
		strcmp(level, "k8s.io/rack") == 0,
	    "a topology and a level");
	free(name);
	free(level);
	ok(submit_topology_parse("Bad Name:x", &name, &level, &err) ==
		KAI_EINVAL,
	    "a bad name");
	ok(submit_topology_parse("", &name, &level, &err) == KAI_EINVAL,
	    "nothing");

	ok(submit_k8s_name_ok("train") &&
		submit_k8s_name_ok("build-preemptible"),
	    "priority class names");
	ok(!submit_k8s_name_ok("Train") && !submit_k8s_name_ok("-x") &&
		!submit_k8s_name_ok(""),
	    "not names");
}

int
main(void)
{
	test_time();
	test_mem();
	test_gres();
	test_gpus_nodes();
	test_signal();
	test_kai_values();
	return done_testing();
}
