/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-directives: ksubmit's #SBATCH / #KSUB scanning, option parsing,
 * sources and their precedence, the checks across options, and the
 * per-task translation, against the rules and traps of sbatch 22.05
 * (../shared/reference/sbatch-usage.md sections 3-6).  The value
 * syntaxes themselves are in clients-values.c.
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
#define NOW ((int64_t)1700000000)

/*
 * Applies script's directives, then the SBATCH_* variables of envp, then
 * cli (NULL-terminated; NULL = none), then the checks across options.
 */
static int
parse_env(const char *script, char *const *envp, const char *const *cli,
    struct submit_opts *o, struct kai_err *err)
{
	struct directives d;
	char *argv[32];
	int r, argc = 1, first;

	submit_opts_init(o, NOW);
	kai_err_clear(err);
	directives_scan(script, "job.sh", &d);
	r = submit_opts_directives(o, &d, CWD, err);
	directives_fini(&d);
	if (r == 0)
		r = submit_opts_env(o, envp, CWD, err);
	if (r == 0 && cli != NULL) {
		argv[0] = (char *)"ksubmit";
		while (cli[argc - 1] != NULL && argc < 31) {
			argv[argc] = (char *)cli[argc - 1];
			argc++;
		}
		argv[argc] = NULL;
		r = submit_opts_parse(o, submit_table_len, argc, argv, NULL,
		    "ksubmit", CWD, SUBMIT_PASS_CLI, &first, err);
	}
	if (r == 0)
		r = submit_opts_finish(o, err);
	return r;
}

static int
parse(const char *script, const char *const *cli, struct submit_opts *o,
    struct kai_err *err)
{
	return parse_env(script, NULL, cli, o, err);
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
test_table(void)
{
	size_t i;
	bool ok_sbatch = true, ok_kai = true, ok_cli = true;

	for (i = 0; i < submit_table_len; i++) {
		unsigned f = submit_table[i].flags;

		if (i < submit_table_sbatch_len)
			ok_sbatch &= (f & (SOPT_KAI | SOPT_CLI)) == 0;
		else if (i < submit_table_script_len)
			ok_kai &= (f & SOPT_KAI) != 0;
		else
			ok_cli &= (f & SOPT_CLI) != 0;
	}
	ok(ok_sbatch, "the sbatch part holds sbatch's options only");
	ok(ok_kai, "then kaibatch's own");
	ok(ok_cli, "then the command line's own");
	is_str(submit_table[submit_table_sbatch_len].name, "image",
	    "the kaibatch part starts with --image");
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
	    {" --output='logs/####_%j.out'", "--output=logs/####_%j.out"},
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
	    {" --constraint=\"[a100|h200|h100]\"",
		"--constraint=[a100|h200|h100]"},
	    {" --export=KEY=\"<value>\"", "--export=KEY=<value>"},
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
		     "# #SBATCH -J off\n#SBATCH -t 5\n",
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

	is_int(parse("#!/bin/sh\ncat <<EOF\n#SBATCH -J heredoc\nEOF\n", NULL,
		   &o, &err),
	    0, "a here-document");
	ok(o.name == NULL, "#SBATCH in a here-document is text");
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
	ok(o.nodes_min == 2 && o.nodes_max == 2, "attached short value");
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

	is_int(parse("#SBATCH --tasks=4 --out=o.txt --err=e.txt "
		     "--constrain=a100\n",
		   NULL, &o, &err),
	    0, "prefixes that sbatch users rely on");
	is_int(o.ntasks_per_node, 4, "--tasks is --tasks-per-node");
	ok(o.ntasks == SUBMIT_UNSET, "and not --ntasks");
	is_str(o.output, "o.txt", "--out is --output");
	is_str(o.error, "e.txt", "--err is --error");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -N 1 -n 4 --gres=gpu:1 -c8 -t120 -p gpu\n", NULL,
		   &o, &err),
	    0, "several options per line");
	ok(o.nodes_min == 1 && o.ntasks == 4 && o.gpus_node.count == 1 &&
		o.cpus_per_task == 8 && o.time_limit_s == 7200 &&
		strcmp(o.partition, "gpu") == 0,
	    "all of them apply");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --time\n#SBATCH 5\n", NULL, &o, &err), 0,
	    "one getopt pass over all lines");
	is_int(o.time_limit_s, 300, "a value on the next directive line");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -t 10\n#SBATCH -t 20\n#SBATCH --gres=gpu:2\n"
		     "#SBATCH --gres=gpu:4\n#SBATCH --signal=USR1\n"
		     "#SBATCH --signal=USR2@90\n#SBATCH --requeue\n"
		     "#SBATCH --no-requeue\n",
		   NULL, &o, &err),
	    0, "repeated options");
	is_int(o.time_limit_s, 1200, "last time wins");
	is_int(o.gpus_node.count, 4, "last gres wins");
	ok(o.signal.number == 12 && o.signal.secs == 90, "last signal wins");
	is_int(o.requeue, 0, "--no-requeue after --requeue wins");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -J $1 -o ${HOME}/logs/%j.out\n", NULL, &o, &err),
	    0, "shell variables");
	ok(strcmp(o.name, "$1") == 0 &&
		strcmp(o.output, "${HOME}/logs/%j.out") == 0,
	    "no expansion inside directives");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --get-user-env --get-user-env=L --mail-type=END\n",
		   NULL, &o, &err),
	    0, "optional-argument option");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --qos high -p gpu,gpu-preempt -A six@a100\n",
		   NULL, &o, &err),
	    0, "--qos, a partition list, an account with @");
	ok(strcmp(o.qos, "high") == 0 &&
		strcmp(o.partition, "gpu,gpu-preempt") == 0 &&
		strcmp(o.account, "six@a100") == 0,
	    "--qos is kept; lists and @ are kept");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -q gpu\n", NULL, &o, &err), 0,
	    "-q in a directive");
	is_str(o.qos, "gpu", "-q is --qos");
	ok(o.partition == NULL, "-q is never the partition");
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
	refused("#SBATCH --container-image=nvcr.io/x\n",
	    "job.sh:1: unrecognized option \"--container-image\"");
	refused("#SBATCH -y\n", "job.sh:1: unrecognized option \"-y\"");
	refused("#SBATCH -n 4 (for 4 tasks)\n",
	    "job.sh:1: invalid directive \"(for\": not an option");
	refused("#SBATCH -N 1 ; one node\n",
	    "job.sh:1: invalid directive \";\": not an option");
	refused("#SBATCH --export=all module load x\n",
	    "job.sh:1: invalid directive \"module\": not an option");
	refused("#SBATCH --array=001, 002, 003\n",
	    "job.sh:1: invalid array \"001,\"");
	refused("#SBATCH --array 1 2\n",
	    "job.sh:1: invalid directive \"2\": not an option");
	refused("#SBATCH -n 2\n#SBATCH hetjob\n",
	    "job.sh:2: invalid directive \"hetjob\": heterogeneous jobs are "
	    "not supported");
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
	refused("#SBATCH --uid=0\n",
	    "job.sh:1: option \"--uid\" is not supported: MUNGE decides the "
	    "user");
	refused("#SBATCH --exclusive user\n",
	    "job.sh:1: invalid directive \"user\": not an option");
	refused("#SBATCH --wrap=true\n",
	    "job.sh:1: option \"--wrap\" is not allowed in a script");
	refused("#KSUB --json\n", "job.sh:1: unrecognized option \"--json\"");
	refused("#SBATCH --image=x\n",
	    "job.sh:1: option \"--image\" is not an sbatch option: write it in "
	    "a \"#KSUB\" line");
	refused("#SBATCH --mem=4G --mem-per-cpu=1G\n",
	    "job.sh:1: options \"--mem\", \"--mem-per-cpu\" and "
	    "\"--mem-per-gpu\" are mutually exclusive");
	refused("#SBATCH --gres=gpu:a100:4,nvme:1\n",
	    "job.sh:1: invalid gres \"gpu:a100:4,nvme:1\": kaibatch knows only "
	    "gpu, not \"nvme\"");
	refused("#SBATCH -N 4-2\n",
	    "job.sh:1: invalid node count \"4-2\": maximum below minimum");
	refused("#SBATCH --export=\n", "job.sh:1: invalid --export \"\"");
	refused("#SBATCH --export=NONE,A\n",
	    "job.sh:1: invalid --export \"NONE,A\": NONE takes no list");
	refused("#SBATCH --open-mode=x\n",
	    "job.sh:1: invalid open mode \"x\": must be append or truncate");
	refused("#SBATCH -c 4 --cpus-per-gpu=8\n",
	    "options \"--cpus-per-task\" and \"--cpus-per-gpu\" are mutually "
	    "exclusive");
	refused("#KSUB --gpu-fraction=0.5 --gpu-memory=4G\n",
	    "options \"--gpu-fraction\" and \"--gpu-memory\" are mutually "
	    "exclusive");
	refused("#SBATCH --gres=gpu:1\n#KSUB --gpu-fraction=0.5\n",
	    "option \"--gpu-fraction\" asks for a part of one GPU: it excludes "
	    "whole GPUs (--gres, --gpus, --gpus-per-node, --gpus-per-task)");
	refused("#SBATCH -n 4\n#KSUB --min-tasks=5\n",
	    "invalid min-tasks 5: the job has 4 tasks");
	refused("#KSUB --priority-class=Train\n",
	    "job.sh:1: invalid priority class \"Train\": must be one of "
	    "train, build-preemptible, build, inference");
	refused("#KSUB --priority=gold\n",
	    "job.sh:1: invalid priority class \"gold\": must be one of "
	    "train, build-preemptible, build, inference");
	refused("#KSUB --gpu-memory=0\n",
	    "job.sh:1: invalid GPU memory \"0\": must be above 0");
}

/* Whether the ignored option name was seen. */
static bool
seen(const struct submit_opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < submit_table_len; i++)
		if (submit_table[i].name != NULL &&
		    strcmp(submit_table[i].name, name) == 0)
			return o->seen[i] != 0;
	return false;
}

static void
test_prefix_tables(void)
{
	struct submit_opts o;
	struct kai_err err;

	is_int(parse("#SBATCH --pre=x --min=2 --prio=5\n", NULL, &o, &err), 0,
	    "#SBATCH prefixes see sbatch's options only");
	ok(seen(&o, "prefer") && seen(&o, "mincpus") && seen(&o, "priority"),
	    "--pre, --min, --prio are sbatch's --prefer, --mincpus, "
	    "--priority");
	submit_opts_fini(&o);
	refused("#KSUB --prio=5\n",
	    "job.sh:1: option \"--prio\" is ambiguous (could be --priority, "
	    "--priority-class)");
	is_int(parse("#KSUB -t 5 --im=x\n", NULL, &o, &err), 0,
	    "#KSUB takes sbatch's options and kaibatch's");
	ok(o.time_limit_s == 300 && strcmp(o.image, "x") == 0, "both apply");
	submit_opts_fini(&o);
}

static void
test_sources(void)
{
	static const char *const cli1[] = {"-t", "5", "-J", "cli", NULL};
	static const char *const cli2[] = {"--mem-per-cpu=2G", "-c", "4", NULL};
	static const char *const cli3[] = {"--time=7", "script.sh", "-t", "9",
	    NULL};
	static const char *const cli4[] = {"-p", "cli", NULL};
	static char *const env1[] = {(char *)"SBATCH_PARTITION=envp",
	    (char *)"SBATCH_TIMELIMIT=30", (char *)"SBATCH_JOB_NAME=envname",
	    (char *)"PATH=/bin", NULL};
	static char *const env2[] = {(char *)"SBATCH_MEM_PER_NODE=8G",
	    (char *)"SBATCH_MEM_PER_CPU=1G", NULL};
	static char *const env3[] = {(char *)"SBATCH_TIMELIMIT=abc", NULL};
	static char *const env5[] = {(char *)"SBATCH_EXCLUSIVE=", NULL};
	static char *const env6[] = {(char *)"SBATCH_EXCLUSIVE=mcs", NULL};
	static char *const env4[] = {(char *)"SBATCH_REQUEUE=0",
	    (char *)"SBATCH_WAIT=", (char *)"SBATCH_MEM_PER_NODE=8G", NULL};
	struct submit_opts o;
	struct kai_err err;
	char *argv[8];
	int first = 0;

	is_int(parse("#SBATCH -t 10 -J dir -p gpu\n", cli1, &o, &err), 0,
	    "directives then command line");
	ok(o.time_limit_s == 300 && strcmp(o.name, "cli") == 0 &&
		strcmp(o.partition, "gpu") == 0,
	    "command line wins, directives fill the rest");
	submit_opts_fini(&o);

	is_int(parse_env("#SBATCH -t 10 -J dir -p gpu -A acct\n", env1, cli4,
		   &o, &err),
	    0, "directives, environment, command line");
	ok(strcmp(o.partition, "cli") == 0 && o.time_limit_s == 1800 &&
		strcmp(o.name, "envname") == 0 &&
		strcmp(o.account, "acct") == 0,
	    "command line > SBATCH_* > directives");
	submit_opts_fini(&o);

	is_int(parse_env("#!/bin/sh\n", env5, NULL, &o, &err), 0,
	    "SBATCH_EXCLUSIVE=");
	ok(o.exclusive, "is --exclusive");
	submit_opts_fini(&o);
	is_int(parse_env("#!/bin/sh\n", env6, NULL, &o, &err), KAI_EINVAL,
	    "SBATCH_EXCLUSIVE=mcs");
	is_str(err.msg, "SBATCH_EXCLUSIVE: invalid exclusive \"mcs\": only whole "
	    "nodes (--exclusive without a value) are supported",
	    "is refused, naming the variable");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --mem=64G\n", cli2, &o, &err), KAI_EINVAL,
	    "--mem in the script, --mem-per-cpu on the command line");
	is_str(err.msg,
	    "options \"--mem\", \"--mem-per-cpu\" and \"--mem-per-gpu\" are "
	    "mutually exclusive",
	    "is Slurm's fatal error");
	submit_opts_fini(&o);

	is_int(parse_env("#SBATCH --mem-per-gpu=2G\n", env2, NULL, &o, &err), 0,
	    "two memory variables and a directive");
	ok(submit_opts_mem_kind(&o) == SUBMIT_MEM_GPU && o.mem[2].mib == 2048,
	    "the directive beats the environment, as in Slurm");
	submit_opts_fini(&o);

	is_int(parse_env("#!/bin/sh\n", env2, NULL, &o, &err), KAI_EINVAL,
	    "two memory variables alone");
	is_str(err.msg,
	    "variables \"SBATCH_MEM_PER_NODE\", \"SBATCH_MEM_PER_CPU\" and "
	    "\"SBATCH_MEM_PER_GPU\" are mutually exclusive",
	    "are an error");
	submit_opts_fini(&o);

	is_int(parse_env("#!/bin/sh\n", env3, NULL, &o, &err), KAI_EINVAL,
	    "a bad variable");
	is_str(err.msg, "SBATCH_TIMELIMIT: invalid time limit \"abc\"",
	    "names the variable");
	submit_opts_fini(&o);

	is_int(parse_env("#SBATCH --requeue --mem=2G\n", env4, NULL, &o, &err),
	    0, "flag variables");
	ok(o.requeue == -1 && o.wait && o.mem[0].mib == 8192,
	    "\"0\" unsets a flag, \"\" sets one; the same --mem kind is "
	    "overridden");
	submit_opts_fini(&o);

	submit_opts_init(&o, NOW);
	argv[0] = (char *)"ksubmit";
	memcpy(&argv[1], cli3, sizeof(cli3));
	is_int(submit_opts_parse(&o, submit_table_len, 5, argv, NULL, "ksubmit",
		   CWD, SUBMIT_PASS_CLI, &first, &err),
	    0, "command line with a script");
	is_int(first, 2, "options stop at the script");
	is_int(o.time_limit_s, 7 * 60, "script arguments are not options");
	submit_opts_fini(&o);
}

static void
collect(const char *option, const char *msg, void *ctx)
{
	char *buf = ctx;

	(void)option;
	strncat(buf, msg, 1023 - strlen(buf));
	strncat(buf, "\n", 1023 - strlen(buf));
}

static void
test_warnings_refusals(void)
{
	const char *names[8];
	struct submit_opts o;
	struct kai_err err;
	char buf[1024] = "";

	is_int(parse("#SBATCH --mail-type=END --mail-type=FAIL -C a100 "
		     "--hint=nomultithread "
		     "--gpus-per-task=v100:1 --mem=0\n",
		   NULL, &o, &err),
	    0, "ignored options parse");
	submit_opts_warnings(&o, collect, buf);
	is_str(buf,
	    "option \"--hint\" is ignored: Kubernetes lays out tasks inside "
	    "a node\n",
	    "one warning per ignored option (a GPU type is kaid's to match)");
	is_int((int)submit_opts_refusals(&o, names, 8), 0, "nothing refused");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --array=0-9 -d singleton --open-mode=a "
		     "--signal=USR1 -W --requeue -b now+1hour -i in.txt\n"
		     "#KSUB --preemptible --topology-preferred=k8s.io/rack\n",
		   NULL, &o, &err),
	    0, "options kaid cannot honour yet parse");
	/* The scheduling options, --requeue, --array, --dependency,
	 * --open-mode, --signal and --wait are kaid's now: not refused. */
	is_int((int)submit_opts_refusals(&o, names, 8), 2, "two of them");
	ok(strcmp(names[0], "--begin") == 0 &&
		strcmp(names[1], "--input") == 0,
	    "named in table order");
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --open-mode=truncate --no-requeue\n", NULL, &o,
		   &err),
	    0, "what kaid does anyway");
	is_int((int)submit_opts_refusals(&o, names, 8), 0,
	    "truncate and --no-requeue are honoured");
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
	ok(js.ntasks == 8 && js.gpus_per_task == 0 && js.gpus_per_node == 4 &&
		js.ntasks_per_node == 4 && js.mem_mb == 16384 &&
		js.cpus_per_task == 8,
	    "8 tasks, 4 GPUs on each node of 4 tasks, 16 GiB each "
	    "(%u, %u, %u, %llu)", js.ntasks, js.gpus_per_task,
	    js.gpus_per_node, (unsigned long long)js.mem_mb);
	is_str(js.workdir, CWD, "workdir defaults to the submit directory");
	ok(js.time_limit_s == KAI_TIME_UNSET, "no -t leaves the limit unset");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -N 2-4 --gres=gpu:a100:8 -D out "
		     "--mem-per-cpu=1G -c 4 -t 2-\n",
		   none, &o, &err),
	    0, "one task per node");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks == 2 && js.gpus_per_node == 8 && js.ntasks_per_node == 1 &&
		js.mem_mb == 4096 && js.time_limit_s == 2 * 86400,
	    "2 tasks (the minimum of 2-4) with 8 GPUs and 4 GiB each");
	is_str(js.workdir, CWD "/out", "relative -D is made absolute");
	is_str(o.gpus_node.type, "a100", "the GPU type is kept");
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

	is_int(parse("#SBATCH --gpus-per-task=2 --cpus-per-gpu=6 --mem=0\n",
		   none, &o, &err),
	    0, "CPUs per GPU");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.cpus_per_task == 12 && js.mem_mb == 0 &&
		js.whole_node == KAI_JOB_WHOLE_MEM,
	    "12 CPUs for 2 GPUs; --mem=0 asks for each node's memory");
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

	/* Slurm: --gres is per node; -n 2 --gres=gpu:1 whose tasks fit one
	 * node is NNodes=1 with one GPU, not a GPU per task. */
	is_int(parse("#SBATCH -n 2 --gres=gpu:1 --mem-per-gpu=8G\n", none, &o,
		   &err),
	    0, "GPUs per node without -N");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks == 2 && js.ntasks_per_node == 2 &&
		js.gpus_per_node == 1 && js.gpus_per_task == 0,
	    "both tasks on one node, which has one GPU (%u, %u, %u)",
	    js.ntasks_per_node, js.gpus_per_node, js.gpus_per_task);
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -N 2 -n 3 --gpus-per-node=2\n", none, &o, &err),
	    0, "uneven tasks over the nodes");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks_per_node == 0 && js.gpus_per_node == 0 &&
		js.gpus_per_task == 1,
	    "no node groups: the GPUs of a node divided per task");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH -n 4 --gres=gpu:4 --gpus-per-task=1\n", none, &o,
		   &err),
	    0, "GPUs per task and per node");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), 0, "to spec");
	ok(js.ntasks_per_node == 0 && js.gpus_per_task == 1,
	    "--gpus-per-task wins, tasks go anywhere");
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);

	is_int(parse("#SBATCH --cpus-per-gpu=4 --gres=none\n", none, &o, &err),
	    0, "--cpus-per-gpu without GPUs parses");
	is_int(submit_opts_to_spec(&o, CWD, &js, &err), KAI_EINVAL,
	    "but cannot be translated");
	is_str(err.msg, "option \"--cpus-per-gpu\" needs a GPU request",
	    "message");
	kai_jobspec_fini(&js);
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
	struct submit_export ex;
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

	is_int(submit_export_parse("all,NCCL_SOCKET_IFNAME=eth0,X", &ex, &err),
	    0, "parse ALL,list");
	ok(ex.mode == SUBMIT_EXPORT_ALL && ex.npass == 1 && ex.nset == 1 &&
		strcmp(ex.set[0], "NCCL_SOCKET_IFNAME=eth0") == 0 &&
		strcmp(ex.pass[0], "X") == 0,
	    "mode, names to pass, values to set");
	submit_export_fini(&ex);
	is_int(submit_export_parse("A,B", &ex, &err), 0, "parse a list");
	ok(ex.mode == SUBMIT_EXPORT_LIST && ex.npass == 2, "mode LIST");
	submit_export_fini(&ex);
}

int
main(void)
{
	test_table();
	test_split();
	test_placement();
	test_spellings();
	test_errors();
	test_prefix_tables();
	test_sources();
	test_warnings_refusals();
	test_spec();
	test_export();
	return done_testing();
}
