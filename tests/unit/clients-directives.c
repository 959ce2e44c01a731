/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-directives: ksubmit's #SBATCH / #KSUB scanning and option
 * parsing, against the rules and traps of sbatch 22.05
 * (../shared/reference/sbatch-usage.md sections 3-6).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "directives.h"
#include "model/job.h"
#include "submit_env.h"
#include "submit_opts.h"
#include "tap.h"

#define CWD "/home/ann/run"

/* Scans script and applies its directives, then cli (NULL-terminated). */
static int
parse(const char *script, const char *const *cli, struct submit_opts *o,
    struct kai_err *err)
{
	struct directives d;
	char *argv[32];
	int r, argc = 1, first;

	submit_opts_init(o);
	kai_err_clear(err);
	directives_scan(script, "job.sh", &d);
	r = submit_opts_parse(o, d.argc, d.argv, d.lines, "job.sh", CWD,
	    SUBMIT_PASS_SCRIPT, NULL, err);
	directives_fini(&d);
	if (r != 0 || cli == NULL)
		return r;
	argv[0] = (char *)"ksubmit";
	while (cli[argc - 1] != NULL && argc < 31) {
		argv[argc] = (char *)cli[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	return submit_opts_parse(o, argc, argv, NULL, "ksubmit", CWD,
	    SUBMIT_PASS_CLI, &first, err);
}

/* Expects script to be refused with exactly msg. */
static void
refused(const char *script, const char *msg)
{
	struct submit_opts o;
	struct kai_err err;

	is_int(parse(script, NULL, &o, &err), KAI_EINVAL, "refused: %s", msg);
	is_str(err.msg, msg, "message: %s", msg);
	submit_opts_fini(&o);
}

static void
test_split(void)
{
	static const struct {
		const char *text;
		const char *want; /* words joined by '|' */
	} t[] = {
	    {" -N 1 -n 4", "-N|1|-n|4"},
	    {" --job-name=\"my job\"", "--job-name=my job"},
	    {" -J 'bseds np'", "-J|bseds np"},
	    {" --comment='a # b'", "--comment=a # b"},
	    {" --job-name=exp#3", "--job-name=exp"},
	    {" --mem=32G   # per node", "--mem=32G"},
	    {" # only a comment", ""},
	    {"", ""},
	    {" --image=ghcr.io\\#org/img", "--image=ghcr.io#org/img"},
	    {" -J a\\ b", "-J|a b"},
	    {" -J $1 --output=${HOME}/x", "-J|$1|--output=${HOME}/x"},
	    {" -J \"it's\"", "-J|it's"},
	    {" -J \"open", "-J|open"},
	    {" --x=\"\"", "--x="},
	    {"\t-c8\t-t120 ", "-c8|-t120"},
	};
	char joined[256];
	char **w;
	size_t i, j, n;

	for (i = 0; i < KAI_NELEM(t); i++) {
		w = NULL;
		n = 0;
		directives_split(t[i].text, strlen(t[i].text), &w, &n);
		joined[0] = '\0';
		for (j = 0; j < n; j++) {
			if (j > 0)
				strncat(joined, "|",
				    sizeof(joined) - strlen(joined) - 1);
			strncat(joined, w[j],
			    sizeof(joined) - strlen(joined) - 1);
			free(w[j]);
		}
		free(w);
		is_str(joined, t[i].want, "split \"%s\"", t[i].text);
	}
}

static void
test_placement(void)
{
	struct submit_opts o;
	struct kai_err err;
	struct directives d;

	is_int(parse("#!/bin/bash\n#SBATCH -J a\n", NULL, &o, &err), 0,
	    "shebang is a comment");
	is_str(o.name, "a", "directive after the shebang applies");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\n##SBATCH -J off\n# SBATCH -J off\n"
		     "#sbatch -J off\n  #SBATCH -J off\n#SBACTH -J off\n"
		     "#SBATCH -t 5\n",
		   NULL, &o, &err),
	    0, "comment variants are comments");
	ok(o.name == NULL, "##SBATCH, # SBATCH, #sbatch, indented: ignored");
	is_int(o.time_limit_s, 300, "the real directive still applies");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\n#SBATCH -J a\nset -e\n#SBATCH -J late\n", NULL,
		   &o, &err),
	    0, "stop at the first command");
	is_str(o.name, "a", "directives after a command are plain text");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\nset -euo pipefail\n#SBATCH -J a\n", NULL, &o,
		   &err),
	    0, "command above the block");
	ok(o.name == NULL, "a command above the block disables it all");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\n\n#SBATCH -J a\n\n   \n## Resources\n"
		     "#\n#SBATCH -t 10\n\t\n#SBATCH -n 2\necho\n",
		   NULL, &o, &err),
	    0, "blank and comment lines between directives");
	ok(o.name != NULL && o.time_limit_s == 600 && o.ntasks == 2,
	    "scanning continues over blanks and comments");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\n#SBATCH\n#SBATCH -n 3\n", NULL, &o, &err), 0,
	    "a bare #SBATCH line is fine");
	is_int(o.ntasks, 3, "and the next line still applies");
	submit_opts_fini(&o);

	is_int(parse("#!/bin/sh\n#KSUB --image=pytorch:24.01\n#SBATCH -n 2\n",
		   NULL, &o, &err),
	    0, "#KSUB directives");
	is_str(o.image, "pytorch:24.01", "#KSUB applies");
	submit_opts_fini(&o);

	directives_scan("#!/bin/sh\n#SLURM -J old\n", "job.sh", &d);
	is_int(d.slurm_line, 2, "#SLURM is noticed for a warning");
	is_int(d.argc, 3, "#SLURM arguments are kept");
	directives_fini(&d);

	is_int(parse("#!/bin/sh\r\n#SBATCH -J a\r\n", NULL, &o, &err), 0,
	    "CR is whitespace to the scanner (ksubmit refuses CRLF first)");
	is_str(o.name, "a", "no CR in values");
	submit_opts_fini(&o);
}

static void
test_spellings(void)
{
	struct submit_opts o;
	struct kai_err err;

	is_int(parse("#!/bin/sh\n#SBATCH -N2\n", NULL, &o, &err), 0, "-N2");
	is_int(o.nodes, 2, "attached short value");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --time 1:00\n", NULL, &o, &err), 0,
	    "--time 1:00");
	is_int(o.time_limit_s, 60, "long option, separate value (min:sec)");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --time=1:00:00 # one hour\n", NULL, &o, &err), 0,
	    "trailing comment");
	is_int(o.time_limit_s, 3600, "value before the comment");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --job-name=\"sum omp\" -J'x y' \n", NULL, &o,
		   &err),
	    0, "quoted values");
	is_str(o.name, "x y", "quotes removed, last wins");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --job-name=exp#3\n", NULL, &o, &err), 0,
	    "unquoted # in a value");
	is_str(o.name, "exp", "an unquoted # ends the line");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --job-na=x\n", NULL, &o, &err), 0,
	    "unambiguous prefix");
	is_str(o.name, "x", "--job-na is --job-name");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --tasks=4 --out=o.txt --err=e.txt\n", NULL, &o,
		   &err),
	    0, "prefixes that sbatch users rely on");
	is_int(o.ntasks_per_node, 4, "--tasks is --tasks-per-node");
	is_str(o.output, "o.txt", "--out is --output");
	is_str(o.error, "e.txt", "--err is --error");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -N 1 -n 4 --gres=gpu:1 -c8 -t120 -p gpu\n", NULL,
		   &o, &err),
	    0, "several options per line");
	ok(o.nodes == 1 && o.ntasks == 4 && o.gpus_per_node == 1 &&
		o.cpus_per_task == 8 && o.time_limit_s == 7200 &&
		strcmp(o.queue, "gpu") == 0,
	    "all of them apply");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --time\n#SBATCH 5\n", NULL, &o, &err), 0,
	    "one getopt pass over all lines");
	is_int(o.time_limit_s, 300, "a value on the next directive line");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -t 10\n#SBATCH -t 20\n#SBATCH --gres=gpu:2\n"
		     "#SBATCH --gres=gpu:4\n",
		   NULL, &o, &err),
	    0, "repeated options");
	is_int(o.time_limit_s, 1200, "last time wins");
	is_int(o.gpus_per_node, 4, "last gres wins");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -J $1 -o ${HOME}/logs/%j.out\n", NULL, &o, &err),
	    0, "shell variables");
	ok(strcmp(o.name, "$1") == 0 &&
		strcmp(o.output, "${HOME}/logs/%j.out") == 0,
	    "no expansion inside directives");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --exclusive --exclusive=user --mail-type=END\n",
		   NULL, &o, &err),
	    0, "optional-argument option");
	submit_opts_fini(&o);
}

static void
test_errors(void)
{
	refused("#!/bin/sh\n#SBATCH --cpus=4\n",
	    "job.sh:2: option \"--cpus\" is ambiguous (could be "
	    "--cpus-per-task, --cpus-per-gpu)");
	refused("#!/bin/sh\n#SBATCH --mail=a@b\n",
	    "job.sh:2: option \"--mail\" is ambiguous (could be "
	    "--mail-type, --mail-user)");
	refused("#SBATCH --tim=5\n",
	    "job.sh:1: option \"--tim\" is ambiguous (could be --time, "
	    "--time-min)");
	refused("#!/bin/sh\n\n#SBATCH --foo=1\n",
	    "job.sh:3: unrecognized option \"--foo\"");
	refused("#SBATCH --workdir=/tmp\n",
	    "job.sh:1: unrecognized option \"--workdir\"");
	refused("#SBATCH -y\n", "job.sh:1: unrecognized option \"-y\"");
	refused("#SBATCH -n 4 (for 4 tasks)\n",
	    "job.sh:1: invalid directive \"(for\": not an option");
	refused("#SBATCH --export=all module load x\n",
	    "job.sh:1: invalid directive \"module\": not an option");
	refused("#!/bin/sh\n#SBATCH -J a\n#SBATCH --time=abc\n",
	    "job.sh:3: invalid time limit \"abc\"");
	refused("#SBATCH -t\n#SBATCH 1:2:3:4\n",
	    "job.sh:2: invalid time limit \"1:2:3:4\"");
	refused("#SBATCH --mem=1.5G\n",
	    "job.sh:1: invalid memory size \"1.5G\"");
	refused("#SBATCH -n x\n",
	    "job.sh:1: invalid ntasks \"x\": not a number");
	refused("#SBATCH -n 0\n",
	    "job.sh:1: invalid ntasks \"0\": must be between 1 and 2147483647");
	refused("#SBATCH --hold=yes\n",
	    "job.sh:1: option \"--hold\" does not take an argument");
	refused("#SBATCH -J x --time\n",
	    "job.sh:1: option \"--time\" requires an argument");
	refused("#SBATCH -J x -t\n",
	    "job.sh:1: option \"-t\" requires an argument");
	refused("#SBATCH --array=0-9\n",
	    "job.sh:1: option \"--array\" is not supported: kaibatch has no "
	    "job arrays yet");
	refused("#SBATCH -d afterok:1\n",
	    "job.sh:1: option \"--dependency\" is not supported: kaibatch has "
	    "no job dependencies yet");
	refused("#SBATCH --exclusive user\n",
	    "job.sh:1: invalid directive \"user\": not an option");
	refused("#SBATCH --wrap=true\n",
	    "job.sh:1: option \"--wrap\" is not allowed in a script");
	refused("#SBATCH --mem=4G --mem-per-cpu=1G\n",
	    "job.sh:1: options \"--mem\", \"--mem-per-cpu\" and "
	    "\"--mem-per-gpu\" are mutually exclusive");
	refused("#SBATCH --gres=gpu:a100:4,nvme:1\n",
	    "job.sh:1: invalid gres \"gpu:a100:4,nvme:1\": kaibatch knows only "
	    "one, gpu");
	refused("#SBATCH --gres=shard:2\n",
	    "job.sh:1: invalid gres \"shard:2\": kaibatch knows only gpu");
	refused("#SBATCH --gres=gpu:a100:x\n",
	    "job.sh:1: invalid gres \"gpu:a100:x\"");
	refused("#SBATCH --gpus=a:b:1\n",
	    "job.sh:1: invalid GPU count \"a:b:1\"");
	refused("#SBATCH -N 4-2\n",
	    "job.sh:1: invalid node count \"4-2\": maximum below minimum");
	refused("#SBATCH --export=\n", "job.sh:1: invalid --export \"\"");
}

static void
test_cli(void)
{
	static const char *const cli1[] = {"-t", "5", "-J", "cli", NULL};
	static const char *const cli2[] = {"--mem-per-cpu=2G", "-c", "4", NULL};
	static const char *const cli3[] = {"--time=7", "script.sh", "-t", "9",
	    NULL};
	struct submit_opts o;
	struct kai_err err;
	char *argv[8];
	int first = 0;

	is_int(parse("#SBATCH -t 10 -J dir -p gpu\n", cli1, &o, &err), 0,
	    "directives then command line");
	ok(o.time_limit_s == 300 && strcmp(o.name, "cli") == 0 &&
		strcmp(o.queue, "gpu") == 0,
	    "command line wins, directives fill the rest");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --mem=64G\n", cli2, &o, &err), 0,
	    "another --mem* kind on the command line");
	ok(o.mem_kind == SUBMIT_MEM_CPU && o.mem_mb == 2048,
	    "the command line's memory option replaces the script's");
	submit_opts_fini(&o);

	submit_opts_init(&o);
	argv[0] = (char *)"ksubmit";
	memcpy(&argv[1], cli3, sizeof(cli3));
	is_int(submit_opts_parse(&o, 5, argv, NULL, "ksubmit", CWD,
		   SUBMIT_PASS_CLI, &first, &err),
	    0, "command line with a script");
	is_int(first, 2, "options stop at the script");
	is_int(o.time_limit_s, 7 * 60, "script arguments are not options");
	submit_opts_fini(&o);
}

static void
test_spec(void)
{
	static const char *const none[] = {NULL};
	struct kai_jobspec js;
	struct submit_opts o;
	struct kai_err err;

	memset(&js, 0, sizeof(js));
	is_int(parse("#SBATCH -N 2 --ntasks-per-node=4 --gres=gpu:4 "
		     "--mem=64G -c 8\n",
		   none, &o, &err),
	    0, "a two-node GPU job");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks == 8 && js.gpus_per_task == 1 && js.mem_mb == 16384 &&
		js.cpus_per_task == 8,
	    "8 tasks with 1 GPU and 16 GiB each (%u, %u, %llu)", js.ntasks,
	    js.gpus_per_task, (unsigned long long)js.mem_mb);
	is_str(js.workdir, CWD, "workdir defaults to the submit directory");
	ok(js.time_limit_s == KAI_TIME_UNSET, "no -t leaves the limit unset");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -N 2 --gres=gpu:a100:8 -D out --mem-per-cpu=1G "
		     "-c 4 -t 2-\n",
		   none, &o, &err),
	    0, "one task per node");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks == 2 && js.gpus_per_task == 8 && js.mem_mb == 4096 &&
		js.time_limit_s == 2 * 86400,
	    "2 tasks with 8 GPUs and 4 GiB each");
	is_str(js.workdir, CWD "/out", "relative -D is made absolute");
	is_str(o.gpu_type, "a100", "the GPU type is noted for a warning");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -n 4 --gpus=6 --mem-per-gpu=10G -H -D /abs\n",
		   none, &o, &err),
	    0, "job-wide GPUs");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks == 4 && js.gpus_per_task == 2 && js.mem_mb == 20480 &&
		js.hold,
	    "6 GPUs over 4 tasks round up to 2 each");
	is_str(js.workdir, "/abs", "absolute -D is kept");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --mem-per-gpu=10G\n", none, &o, &err), 0,
	    "--mem-per-gpu alone parses");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), KAI_EINVAL,
	    "but needs GPUs");
	is_str(err.msg, "option \"--mem-per-gpu\" needs a GPU request",
	    "message");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);
}

static void
collect(const char *msg, void *ctx)
{
	char *buf = ctx;

	strncat(buf, msg, 1023 - strlen(buf));
	strncat(buf, "\n", 1023 - strlen(buf));
}

static void
test_warnings(void)
{
	struct submit_opts o;
	struct kai_err err;
	char buf[1024] = "";

	is_int(parse("#SBATCH --mail-type=END --mail-type=FAIL -C a100 "
		     "--gpus-per-task=v100:1 --qos=high\n",
		   NULL, &o, &err),
	    0, "ignored options parse");
	submit_opts_warnings(&o, collect, buf);
	is_str(buf,
	    "option \"--constraint\" is ignored: kaid's scheduler chooses "
	    "the nodes\n"
	    "option \"--mail-type\" is ignored: kaibatch sends no mail\n"
	    "option \"--qos\" is ignored: kaibatch has no QOS\n"
	    "GPU type \"v100\" is not matched yet: the job may get any GPU\n",
	    "one warning per ignored option");
	submit_opts_fini(&o);
}

static int
count_env(char **env, size_t n, const char *kv)
{
	size_t i;
	int c = 0;

	for (i = 0; i < n; i++)
		c += strcmp(env[i], kv) == 0;
	return c;
}

static void
free_env(char **env, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(env[i]);
	free(env);
}

static void
test_export(void)
{
	static char *const envp[] = {(char *)"HOME=/home/ann",
	    (char *)"PATH=/bin", (char *)"SLURM_CONF=/x", (char *)"A=1", NULL};
	struct kai_err err;
	char **env;
	size_t n;

	is_int(submit_env_build(NULL, envp, &env, &n, &err), 0, "default");
	ok(n == 4 && count_env(env, n, "PATH=/bin"), "default is ALL");
	free_env(env, n);
	is_int(submit_env_build("none", envp, &env, &n, &err), 0, "NONE");
	ok(n == 1 && count_env(env, n, "SLURM_CONF=/x"),
	    "NONE keeps only SLURM_*");
	free_env(env, n);
	is_int(submit_env_build("A,B=2,MISSING", envp, &env, &n, &err), 0,
	    "list");
	ok(n == 3 && count_env(env, n, "A=1") && count_env(env, n, "B=2") &&
		count_env(env, n, "SLURM_CONF=/x"),
	    "list: only those plus SLURM_*");
	free_env(env, n);
	is_int(submit_env_build("ALL,A=9,WANDB_MODE=offline", envp, &env, &n,
		   &err),
	    0, "ALL plus a list");
	ok(n == 5 && count_env(env, n, "A=9") &&
		count_env(env, n, "WANDB_MODE=offline") &&
		count_env(env, n, "HOME=/home/ann"),
	    "ALL,VAR=val: everything, the list overriding");
	free_env(env, n);
	is_int(submit_env_build("NONE,A", envp, &env, &n, &err), KAI_EINVAL,
	    "NONE with a list");
	is_int(submit_env_build("A,,B", envp, &env, &n, &err), KAI_EINVAL,
	    "empty name");
	is_str(err.msg,
	    "invalid --export \"A,,B\": \"\" is not a variable name",
	    "message names the value");
}

int
main(void)
{
	test_split();
	test_placement();
	test_spellings();
	test_errors();
	test_cli();
	test_spec();
	test_warnings();
	test_export();
	return done_testing();
}
