/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_opts.c: ksubmit's option table, the setters behind it, and the
 * translation of Slurm's per-node requests into kaibatch's per-task ones.
 * See submit_opts.h.
 *
 * kaibatch runs one pod per task, so every request ends up per task:
 * --mem (per node) is divided among the tasks of a node, --gres=gpu:N and
 * --gpus-per-node likewise, --gpus among all tasks, and -N without -n
 * means one task per node, as in Slurm.  Divisions round up, so a job
 * never gets less than it asked for.
 */
#include "config.h"

#include "submit_opts.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strconv.h"
#include "base/xmalloc.h"

enum {
	K_MEM = CLIOPT_LONG,
	K_MEM_PER_CPU,
	K_MEM_PER_GPU,
	K_GPUS_PER_NODE,
	K_GPUS_PER_TASK,
	K_GRES,
	K_EXPORT,
	K_IMAGE,
	K_PARSABLE,
	K_WRAP,
	K_NTASKS_PER_NODE,
	K_USAGE,
	/* sbatch options we accept and ignore, with a warning */
	K_IGNORED,
	/* sbatch options we refuse */
	K_REFUSED = K_IGNORED + 200
};

/* Reasons printed after "option \"--x\" is ignored: ". */
#define R_MAIL   "kaibatch sends no mail"
#define R_NODES  "kaid's scheduler chooses the nodes"
#define R_LAYOUT "Kubernetes lays out tasks inside a node"
#define R_SHARE  "pods share nodes by the resources they request"
#define R_NOTYET "kaibatch does not support it yet"

#define IGN(name, key, arg, why)                                               \
	{                                                                      \
		name, key, arg, NULL, NULL, why                                \
	}
#define REF(name, key, arg, why)                                               \
	{                                                                      \
		name, key, arg, NULL, NULL, why                                \
	}

/*
 * The keys of ignored and refused options are K_IGNORED + n and
 * K_REFUSED + n, or a short letter; policy() below tells them apart.
 */
const struct cliopt submit_table[] = {
    CLIOPT("account", 'A', CLIOPT_ARG, "ACCOUNT", "charge the job to ACCOUNT"),
    CLIOPT("chdir", 'D', CLIOPT_ARG, "DIR",
	"run the script in DIR (default: the current directory)"),
    CLIOPT("cpus-per-task", 'c', CLIOPT_ARG, "N", "CPUs for each task"),
    CLIOPT("error", 'e', CLIOPT_ARG, "PATTERN",
	"standard error file (default: the output file)"),
    CLIOPT("export", K_EXPORT, CLIOPT_ARG, "ALL|NONE|VARS",
	"environment passed to the job (default: ALL)"),
    CLIOPT("gpus", 'G', CLIOPT_ARG, "[TYPE:]N", "GPUs for the whole job"),
    CLIOPT("gpus-per-node", K_GPUS_PER_NODE, CLIOPT_ARG, "[TYPE:]N",
	"GPUs on each node"),
    CLIOPT("gpus-per-task", K_GPUS_PER_TASK, CLIOPT_ARG, "[TYPE:]N",
	"GPUs for each task"),
    CLIOPT("gres", K_GRES, CLIOPT_ARG, "gpu[:TYPE][:N]",
	"generic resources per node; only gpu is known"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("hold", 'H', CLIOPT_NOARG, NULL, "submit the job held"),
    CLIOPT("image", K_IMAGE, CLIOPT_ARG, "IMAGE",
	"container image of the job's pods (default: kaid's)"),
    CLIOPT("job-name", 'J', CLIOPT_ARG, "NAME",
	"name of the job (default: the script's file name)"),
    CLIOPT("mem", K_MEM, CLIOPT_ARG, "SIZE",
	"memory per node, N[K|M|G|T] (default unit: M)"),
    CLIOPT("mem-per-cpu", K_MEM_PER_CPU, CLIOPT_ARG, "SIZE", "memory per CPU"),
    CLIOPT("mem-per-gpu", K_MEM_PER_GPU, CLIOPT_ARG, "SIZE", "memory per GPU"),
    CLIOPT("nodes", 'N', CLIOPT_ARG, "N[-M]",
	"nodes; without -n, one task per node"),
    CLIOPT("ntasks", 'n', CLIOPT_ARG, "N", "tasks (one pod each)"),
    CLIOPT("ntasks-per-node", K_NTASKS_PER_NODE, CLIOPT_ARG, "N",
	"tasks on each node"),
    CLIOPT("tasks-per-node", K_NTASKS_PER_NODE, CLIOPT_ARG, "N",
	"same as --ntasks-per-node"),
    CLIOPT("output", 'o', CLIOPT_ARG, "PATTERN",
	"standard output file (default: slurm-%j.out)"),
    CLIOPT("parsable", K_PARSABLE, CLIOPT_NOARG, NULL, "print only the job id"),
    CLIOPT("partition", 'p', CLIOPT_ARG, "NAME",
	"partition (queue) of the job"),
    CLIOPT("queue", 'q', CLIOPT_ARG, "NAME", "same as --partition"),
    CLIOPT("quiet", 'Q', CLIOPT_NOARG, NULL, "print no warnings"),
    CLIOPT("time", 't', CLIOPT_ARG, "TIME",
	"time limit: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED"),
    CLIOPT("usage", K_USAGE, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("verbose", 'v', CLIOPT_NOARG, NULL, "accepted; no effect"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
    CLIOPT("wrap", K_WRAP, CLIOPT_ARG, "COMMAND",
	"submit a sh script that runs COMMAND"),

    IGN("acctg-freq", K_IGNORED + 0, CLIOPT_ARG, R_NOTYET),
    IGN("bb", K_IGNORED + 1, CLIOPT_ARG, R_NOTYET),
    IGN("bbf", K_IGNORED + 2, CLIOPT_ARG, R_NOTYET),
    IGN("cluster-constraint", K_IGNORED + 3, CLIOPT_ARG, R_NODES),
    IGN("clusters", 'M', CLIOPT_ARG, "kaibatch has one cluster"),
    IGN("comment", K_IGNORED + 4, CLIOPT_ARG, R_NOTYET),
    IGN("constraint", 'C', CLIOPT_ARG, R_NODES),
    IGN("container", K_IGNORED + 5, CLIOPT_ARG, "use --image"),
    IGN("contiguous", K_IGNORED + 6, CLIOPT_NOARG, R_NODES),
    IGN("core-spec", 'S', CLIOPT_ARG, R_LAYOUT),
    IGN("cores-per-socket", K_IGNORED + 7, CLIOPT_ARG, R_LAYOUT),
    IGN("cpu-freq", K_IGNORED + 8, CLIOPT_ARG, R_LAYOUT),
    IGN("cpus-per-gpu", K_IGNORED + 9, CLIOPT_ARG, "use --cpus-per-task"),
    IGN("deadline", K_IGNORED + 10, CLIOPT_ARG, R_NOTYET),
    IGN("delay-boot", K_IGNORED + 11, CLIOPT_ARG, R_NODES),
    IGN("distribution", 'm', CLIOPT_ARG, R_LAYOUT),
    IGN("exclude", 'x', CLIOPT_ARG, R_NODES),
    IGN("exclusive", K_IGNORED + 12, CLIOPT_OPTARG, R_SHARE),
    IGN("extra-node-info", 'B', CLIOPT_ARG, R_LAYOUT),
    IGN("get-user-env", K_IGNORED + 13, CLIOPT_OPTARG,
	"the job gets the --export environment"),
    IGN("gpu-bind", K_IGNORED + 14, CLIOPT_ARG, R_LAYOUT),
    IGN("gpu-freq", K_IGNORED + 15, CLIOPT_ARG, R_LAYOUT),
    IGN("gres-flags", K_IGNORED + 16, CLIOPT_ARG, R_LAYOUT),
    IGN("hint", K_IGNORED + 17, CLIOPT_ARG, R_LAYOUT),
    IGN("ignore-pbs", K_IGNORED + 18, CLIOPT_NOARG, "no PBS directives"),
    IGN("kill-on-invalid-dep", K_IGNORED + 19, CLIOPT_ARG, R_NOTYET),
    IGN("licenses", 'L', CLIOPT_ARG, R_NOTYET),
    IGN("mail-type", K_IGNORED + 20, CLIOPT_ARG, R_MAIL),
    IGN("mail-user", K_IGNORED + 21, CLIOPT_ARG, R_MAIL),
    IGN("mcs-label", K_IGNORED + 22, CLIOPT_ARG, R_NOTYET),
    IGN("mem-bind", K_IGNORED + 23, CLIOPT_ARG, R_LAYOUT),
    IGN("mincpus", K_IGNORED + 24, CLIOPT_ARG, "use --cpus-per-task"),
    IGN("network", K_IGNORED + 25, CLIOPT_ARG, R_LAYOUT),
    IGN("nice", K_IGNORED + 26, CLIOPT_OPTARG, R_NOTYET),
    IGN("no-kill", 'k', CLIOPT_OPTARG, R_NOTYET),
    IGN("no-requeue", K_IGNORED + 27, CLIOPT_NOARG, R_NOTYET),
    IGN("nodefile", 'F', CLIOPT_ARG, R_NODES),
    IGN("nodelist", 'w', CLIOPT_ARG, R_NODES),
    IGN("ntasks-per-core", K_IGNORED + 28, CLIOPT_ARG, R_LAYOUT),
    IGN("ntasks-per-gpu", K_IGNORED + 29, CLIOPT_ARG, R_LAYOUT),
    IGN("ntasks-per-socket", K_IGNORED + 30, CLIOPT_ARG, R_LAYOUT),
    IGN("open-mode", K_IGNORED + 31, CLIOPT_ARG, R_NOTYET),
    IGN("overcommit", 'O', CLIOPT_NOARG, R_SHARE),
    IGN("oversubscribe", 's', CLIOPT_NOARG, R_SHARE),
    IGN("power", K_IGNORED + 32, CLIOPT_ARG, R_NODES),
    IGN("prefer", K_IGNORED + 33, CLIOPT_ARG, R_NODES),
    IGN("priority", K_IGNORED + 34, CLIOPT_ARG, R_NOTYET),
    IGN("profile", K_IGNORED + 35, CLIOPT_ARG, R_NOTYET),
    IGN("propagate", K_IGNORED + 36, CLIOPT_OPTARG, R_NOTYET),
    IGN("qos", K_IGNORED + 37, CLIOPT_ARG, "kaibatch has no QOS"),
    IGN("reboot", K_IGNORED + 38, CLIOPT_NOARG, R_NODES),
    IGN("requeue", K_IGNORED + 39, CLIOPT_NOARG, R_NOTYET),
    IGN("reservation", K_IGNORED + 40, CLIOPT_ARG, R_NOTYET),
    IGN("signal", K_IGNORED + 41, CLIOPT_ARG, R_NOTYET),
    IGN("sockets-per-node", K_IGNORED + 42, CLIOPT_ARG, R_LAYOUT),
    IGN("spread-job", K_IGNORED + 43, CLIOPT_NOARG, R_NODES),
    IGN("switches", K_IGNORED + 44, CLIOPT_ARG, R_NODES),
    IGN("thread-spec", K_IGNORED + 45, CLIOPT_ARG, R_LAYOUT),
    IGN("threads-per-core", K_IGNORED + 46, CLIOPT_ARG, R_LAYOUT),
    IGN("time-min", K_IGNORED + 47, CLIOPT_ARG, R_NOTYET),
    IGN("tmp", K_IGNORED + 48, CLIOPT_ARG, R_NOTYET),
    IGN("use-min-nodes", K_IGNORED + 49, CLIOPT_NOARG, R_NODES),
    IGN("wait-all-nodes", K_IGNORED + 50, CLIOPT_ARG, R_NODES),
    IGN("wckey", K_IGNORED + 51, CLIOPT_ARG, R_NOTYET),

    REF("array", 'a', CLIOPT_ARG, "kaibatch has no job arrays yet"),
    REF("batch", K_REFUSED + 0, CLIOPT_ARG, "kaibatch has no node features"),
    REF("begin", 'b', CLIOPT_ARG, "kaibatch starts jobs as soon as it can"),
    REF("dependency", 'd', CLIOPT_ARG, "kaibatch has no job dependencies yet"),
    REF("export-file", K_REFUSED + 1, CLIOPT_ARG,
	"kaibatch reads no environment files"),
    REF("gid", K_REFUSED + 2, CLIOPT_ARG, "MUNGE decides the group"),
    REF("gpus-per-socket", K_REFUSED + 3, CLIOPT_ARG,
	"kaibatch counts GPUs per task"),
    REF("input", 'i', CLIOPT_ARG, "jobs read no standard input"),
    REF("test-only", K_REFUSED + 4, CLIOPT_NOARG,
	"kaibatch has no test-only submissions"),
    REF("uid", K_REFUSED + 5, CLIOPT_ARG, "MUNGE decides the user"),
    REF("wait", 'W', CLIOPT_NOARG, "poll with kqueue instead"),
};
const size_t submit_table_len = KAI_NELEM(submit_table);

static const char *const refused_short = "abdiW";
static const char *const ignored_short = "MCSmxBLkFwOs";

enum policy {
	P_HONOUR,
	P_IGNORE,
	P_REFUSE
};

static enum policy
policy(int key)
{
	if (key >= K_REFUSED)
		return P_REFUSE;
	if (key >= K_IGNORED)
		return P_IGNORE;
	if (key < CLIOPT_LONG && strchr(refused_short, key) != NULL)
		return P_REFUSE;
	if (key < CLIOPT_LONG && strchr(ignored_short, key) != NULL)
		return P_IGNORE;
	return P_HONOUR;
}

void
submit_opts_init(struct submit_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->time_limit_s = KAI_TIME_UNSET;
	o->ntasks = o->nodes = o->ntasks_per_node = SUBMIT_UNSET;
	o->cpus_per_task = SUBMIT_UNSET;
	o->gpus_per_task = o->gpus_per_node = o->gpus = SUBMIT_UNSET;
	o->seen = kai_xcalloc(submit_table_len, 1);
}

void
submit_opts_fini(struct submit_opts *o)
{
	free(o->name);
	free(o->queue);
	free(o->account);
	free(o->output);
	free(o->error);
	free(o->chdir);
	free(o->export);
	free(o->image);
	free(o->wrap);
	free(o->seen);
	free(o->gpu_type);
	memset(o, 0, sizeof(*o));
}

static void
set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = kai_xstrdup(s);
}

static int
set_count(int64_t *dst, const char *arg, int64_t min, const char *what,
    struct kai_err *err)
{
	return kai_strtoi64(arg, min, INT32_MAX, dst, what, err);
}

/* "N" or "N-M": the minimum is what kaibatch uses. */
static int
set_nodes(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	const char *dash = strchr(arg, '-');
	char min[32];
	int64_t lo, hi;

	if (dash == NULL)
		return set_count(&o->nodes, arg, 1, "node count", err);
	if ((size_t)(dash - arg) >= sizeof(min) || dash == arg)
		return kai_err_set(err, KAI_EINVAL, "invalid node count \"%s\"",
		    arg);
	memcpy(min, arg, (size_t)(dash - arg));
	min[dash - arg] = '\0';
	if (kai_strtoi64(min, 1, INT32_MAX, &lo, "node count", NULL) != 0 ||
	    kai_strtoi64(dash + 1, 1, INT32_MAX, &hi, "node count", NULL) != 0)
		return kai_err_set(err, KAI_EINVAL, "invalid node count \"%s\"",
		    arg);
	if (hi < lo)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid node count \"%s\": maximum below minimum", arg);
	o->nodes = lo;
	return 0;
}

/* A GPU type: letters, digits and "-._" ("a100", "v100-32gb", "1g.10gb"). */
static bool
gpu_type_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) &&
		    strchr("-._", s[i]) == NULL)
			return false;
	return true;
}

static bool
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static void
note_type(struct submit_opts *o, const char *type, size_t n)
{
	free(o->gpu_type);
	o->gpu_type = kai_xstrndup(type, n);
}

/* "[TYPE:]N" of --gpus, --gpus-per-node and --gpus-per-task. */
static int
set_gpus(struct submit_opts *o, int64_t *dst, const char *arg,
    struct kai_err *err)
{
	const char *colon = strchr(arg, ':');
	const char *num = colon != NULL ? colon + 1 : arg;

	if (colon != NULL && !gpu_type_ok(arg, (size_t)(colon - arg)))
		return kai_err_set(err, KAI_EINVAL, "invalid GPU count \"%s\"",
		    arg);
	if (!all_digits(num, strlen(num)) ||
	    kai_strtoi64(num, 0, (int64_t)KAI_JOB_GPUS_MAX * KAI_JOB_NTASKS_MAX,
		dst, "GPU count", NULL) != 0)
		return kai_err_set(err, KAI_EINVAL, "invalid GPU count \"%s\"",
		    arg);
	if (colon != NULL)
		note_type(o, arg, (size_t)(colon - arg));
	return 0;
}

/* --gres=gpu[:TYPE][:N]; any other resource is refused by name. */
static int
set_gres(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	const char *p, *c1, *c2, *type = NULL, *num = NULL;
	size_t tlen = 0;

	if (strchr(arg, ',') != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid gres \"%s\": kaibatch knows only one, gpu", arg);
	c1 = strchr(arg, ':');
	if (strncmp(arg, "gpu", 3) != 0 || (arg[3] != '\0' && arg[3] != ':'))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid gres \"%s\": kaibatch knows only gpu", arg);
	if (c1 == NULL) {
		o->gpus_per_node = 1;
		return 0;
	}
	p = c1 + 1;
	c2 = strchr(p, ':');
	if (c2 != NULL) {
		type = p, tlen = (size_t)(c2 - p), num = c2 + 1;
	} else if (all_digits(p, strlen(p))) {
		num = p;
	} else {
		type = p, tlen = strlen(p);
	}
	if ((type != NULL && !gpu_type_ok(type, tlen)) ||
	    (num != NULL && !all_digits(num, strlen(num))))
		return kai_err_set(err, KAI_EINVAL, "invalid gres \"%s\"", arg);
	if (num != NULL &&
	    kai_strtoi64(num, 0, (int64_t)KAI_JOB_GPUS_MAX * KAI_JOB_NTASKS_MAX,
		&o->gpus_per_node, "gres", NULL) != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid gres \"%s\": count too large", arg);
	if (num == NULL)
		o->gpus_per_node = 1;
	if (type != NULL)
		note_type(o, type, tlen);
	return 0;
}

static int
set_mem(struct submit_opts *o, enum submit_mem kind, const char *arg, int pass,
    struct kai_err *err)
{
	uint64_t mb;
	int r;

	if ((r = kai_mem_parse(arg, &mb, err)) != 0)
		return r;
	if (o->mem_kind != SUBMIT_MEM_NONE && o->mem_kind != kind &&
	    o->mem_pass == pass)
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--mem\", \"--mem-per-cpu\" and \"--mem-per-gpu\" "
		    "are mutually exclusive");
	o->mem_kind = kind;
	o->mem_mb = mb;
	o->mem_pass = pass;
	return 0;
}

static int
set_chdir(struct submit_opts *o, const char *arg, const char *cwd,
    struct kai_err *err)
{
	size_t n = strlen(cwd);

	if (*arg == '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid working directory \"\"");
	free(o->chdir);
	if (arg[0] == '/')
		o->chdir = kai_xstrdup(arg);
	else
		o->chdir = kai_xasprintf("%s%s%s", cwd,
		    n > 0 && cwd[n - 1] == '/' ? "" : "/", arg);
	return 0;
}

static int
set_policy(struct submit_opts *o, int key, struct kai_err *err)
{
	char label[80];
	size_t i;

	for (i = 0; i < submit_table_len; i++)
		if (submit_table[i].key == key)
			break;
	KAI_ASSERT(i < submit_table_len);
	if (policy(key) == P_REFUSE)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"%s\" is not supported: %s",
		    cliopt_label(&submit_table[i], label, sizeof(label)),
		    submit_table[i].note);
	o->seen[i] = 1;
	return 0;
}

static int
set_string_opt(struct submit_opts *o, int key, const char *arg)
{
	switch (key) {
	case 'A':
		set_str(&o->account, arg);
		return 1;
	case 'e':
		set_str(&o->error, arg);
		return 1;
	case 'J':
		set_str(&o->name, arg);
		return 1;
	case 'o':
		set_str(&o->output, arg);
		return 1;
	case 'p':
	case 'q':
		set_str(&o->queue, arg);
		return 1;
	case K_EXPORT:
		set_str(&o->export, arg);
		return 1;
	case K_IMAGE:
		set_str(&o->image, arg);
		return 1;
	case K_WRAP:
		set_str(&o->wrap, arg);
		return 1;
	default:
		return 0;
	}
}

int
submit_opts_set(struct submit_opts *o, int key, const char *arg,
    const char *cwd, int pass, struct kai_err *err)
{
	if (policy(key) != P_HONOUR)
		return set_policy(o, key, err);
	if (key == K_EXPORT && *arg == '\0')
		return kai_err_set(err, KAI_EINVAL, "invalid --export \"\"");
	if (set_string_opt(o, key, arg))
		return 0;
	switch (key) {
	case 'c':
		return set_count(&o->cpus_per_task, arg, 1, "cpus-per-task",
		    err);
	case 'D':
		return set_chdir(o, arg, cwd, err);
	case 'G':
		return set_gpus(o, &o->gpus, arg, err);
	case 'h':
	case K_USAGE:
		o->help = true;
		return 0;
	case 'H':
		o->hold = true;
		return 0;
	case 'n':
		return set_count(&o->ntasks, arg, 1, "ntasks", err);
	case 'N':
		return set_nodes(o, arg, err);
	case 'Q':
		o->quiet = true;
		return 0;
	case 't':
		return kai_time_limit_parse(arg, &o->time_limit_s, err);
	case 'v':
		return 0;
	case 'V':
		o->version = true;
		return 0;
	case K_GPUS_PER_NODE:
		return set_gpus(o, &o->gpus_per_node, arg, err);
	case K_GPUS_PER_TASK:
		return set_gpus(o, &o->gpus_per_task, arg, err);
	case K_GRES:
		return set_gres(o, arg, err);
	case K_MEM:
		return set_mem(o, SUBMIT_MEM_NODE, arg, pass, err);
	case K_MEM_PER_CPU:
		return set_mem(o, SUBMIT_MEM_CPU, arg, pass, err);
	case K_MEM_PER_GPU:
		return set_mem(o, SUBMIT_MEM_GPU, arg, pass, err);
	case K_NTASKS_PER_NODE:
		return set_count(&o->ntasks_per_node, arg, 1, "ntasks-per-node",
		    err);
	case K_PARSABLE:
		o->parsable = true;
		return 0;
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", key);
	}
}

int
submit_opts_parse(struct submit_opts *o, int argc, char **argv,
    const int *lines, const char *source, const char *cwd, int pass,
    int *first_operand, struct kai_err *err)
{
	struct cliopt_parser p;
	const char *arg;
	int c, r = 0, at;

	cliopt_begin(&p, submit_table, submit_table_len, true);
	while ((c = cliopt_next(&p, argc, argv, &arg, err)) != CLIOPT_DONE) {
		at = c < 0 ? p.prev_optind : cliopt_last_index(&p, argv, arg);
		if (c >= 0) {
			if (pass == SUBMIT_PASS_SCRIPT && c == K_WRAP)
				r = kai_err_set(err, KAI_EINVAL,
				    "option \"--wrap\" is not allowed in a "
				    "script");
			else
				r = submit_opts_set(o, c, arg, cwd, pass, err);
		} else {
			r = c;
		}
		if (r != 0) {
			if (lines != NULL)
				(void)kai_err_prefix(err, "%s:%d", source,
				    lines[at < argc ? at : argc - 1]);
			goto out;
		}
	}
	if (first_operand != NULL) {
		*first_operand = optind;
	} else if (optind < argc) {
		r = kai_err_set(err, KAI_EINVAL,
		    "invalid directive \"%s\": not an option", argv[optind]);
		if (lines != NULL)
			(void)kai_err_prefix(err, "%s:%d", source,
			    lines[optind]);
	}
out:
	cliopt_end(&p);
	return r;
}

/*
 * Per-task translation
 */

static int64_t
div_up(int64_t a, int64_t b)
{
	return b <= 0 ? a : (a + b - 1) / b;
}

/* Tasks, and tasks sharing one node (for the per-node requests). */
static void
task_shape(const struct submit_opts *o, int64_t *ntasks, int64_t *per_node)
{
	int64_t tpn = o->ntasks_per_node;

	if (o->ntasks != SUBMIT_UNSET)
		*ntasks = o->ntasks;
	else if (o->nodes != SUBMIT_UNSET)
		*ntasks = o->nodes * (tpn != SUBMIT_UNSET ? tpn : 1);
	else if (tpn != SUBMIT_UNSET)
		*ntasks = tpn;
	else
		*ntasks = 1;
	if (tpn != SUBMIT_UNSET)
		*per_node = tpn;
	else if (o->nodes != SUBMIT_UNSET)
		*per_node = div_up(*ntasks, o->nodes);
	else
		*per_node = *ntasks;
	if (*per_node < 1)
		*per_node = 1;
}

static uint32_t
clamp32(int64_t v)
{
	return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int
mem_per_task(const struct submit_opts *o, int64_t per_node, uint32_t cpus,
    uint32_t gpus, uint64_t *mb, struct kai_err *err)
{
	uint64_t mult;

	switch (o->mem_kind) {
	case SUBMIT_MEM_NONE:
		*mb = 0;
		return 0;
	case SUBMIT_MEM_NODE:
		*mb = o->mem_mb / (uint64_t)per_node +
		    (o->mem_mb % (uint64_t)per_node != 0);
		return 0;
	case SUBMIT_MEM_CPU:
		mult = cpus > 0 ? cpus : 1;
		break;
	case SUBMIT_MEM_GPU:
	default:
		if (gpus == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "option \"--mem-per-gpu\" needs a GPU request");
		mult = gpus;
		break;
	}
	if (o->mem_mb > UINT64_MAX / mult)
		return kai_err_set(err, KAI_EINVAL,
		    "memory request is too large");
	*mb = o->mem_mb * mult;
	return 0;
}

static int64_t
gpus_per_task(const struct submit_opts *o, int64_t ntasks, int64_t per_node)
{
	if (o->gpus_per_task != SUBMIT_UNSET)
		return o->gpus_per_task;
	if (o->gpus_per_node != SUBMIT_UNSET)
		return div_up(o->gpus_per_node, per_node);
	if (o->gpus != SUBMIT_UNSET)
		return div_up(o->gpus, ntasks);
	return 0;
}

static void
dup_opt(char **dst, const char *s)
{
	free(*dst);
	*dst = s != NULL ? kai_xstrdup(s) : NULL;
}

int
submit_opts_to_spec(const struct submit_opts *o, const char *cwd,
    struct kai_jobspec *js, struct kai_err *err)
{
	int64_t ntasks, per_node;

	task_shape(o, &ntasks, &per_node);
	js->ntasks = clamp32(ntasks);
	js->cpus_per_task =
	    o->cpus_per_task != SUBMIT_UNSET ? clamp32(o->cpus_per_task) : 0;
	js->gpus_per_task = clamp32(gpus_per_task(o, ntasks, per_node));
	if (mem_per_task(o, per_node, js->cpus_per_task, js->gpus_per_task,
		&js->mem_mb, err) != 0)
		return KAI_EINVAL;
	js->time_limit_s = o->time_limit_s;
	js->hold = o->hold;
	dup_opt(&js->name, o->name);
	dup_opt(&js->queue, o->queue);
	dup_opt(&js->account, o->account);
	dup_opt(&js->stdout_pattern, o->output);
	dup_opt(&js->stderr_pattern, o->error);
	dup_opt(&js->image, o->image);
	dup_opt(&js->workdir, o->chdir != NULL ? o->chdir : cwd);
	return 0;
}

void
submit_opts_warnings(const struct submit_opts *o,
    void (*fn)(const char *msg, void *ctx), void *ctx)
{
	char label[80], msg[256];
	size_t i;

	for (i = 0; i < submit_table_len; i++) {
		if (!o->seen[i])
			continue;
		(void)snprintf(msg, sizeof(msg), "option \"%s\" is ignored: %s",
		    cliopt_label(&submit_table[i], label, sizeof(label)),
		    submit_table[i].note);
		fn(msg, ctx);
	}
	if (o->gpu_type != NULL) {
		(void)snprintf(msg, sizeof(msg),
		    "GPU type \"%s\" is not matched yet: the job may get any "
		    "GPU",
		    o->gpu_type);
		fn(msg, ctx);
	}
}
