/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_opts.c: applying ksubmit's options, from the script, the
 * SBATCH_* variables and the command line.  See submit_opts.h.
 *
 * A setter only records what was asked, in Slurm's terms (per node, per
 * job, per task); submit_spec.c translates the result into kaibatch's
 * per-task request, and submit_json.c reports it.
 */
#include "config.h"

#include "submit_opts.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "directives.h"
#include "model/constraint.h"
#include "model/nodelists.h"
#include "slurmtime.h"
#include "submit_env.h"

void
submit_opts_init(struct submit_opts *o, int64_t now)
{
	memset(o, 0, sizeof(*o));
	o->time_limit_s = KAI_TIME_UNSET;
	o->nodes_min = o->nodes_max = SUBMIT_UNSET;
	o->ntasks = o->ntasks_per_node = SUBMIT_UNSET;
	o->cpus_per_task = o->cpus_per_gpu = SUBMIT_UNSET;
	o->gpus_job.count = o->gpus_node.count = o->gpus_task.count =
	    SUBMIT_UNSET;
	o->requeue = -1;
	o->min_tasks = SUBMIT_UNSET;
	o->gpu_devices = SUBMIT_UNSET;
	o->preemptible = -1;
	o->seen = kai_xcalloc(submit_table_len, 1);
	o->now = now;
}

void
submit_opts_fini(struct submit_opts *o)
{
	char **strs[] = {&o->name, &o->partition, &o->account, &o->output,
	    &o->error, &o->chdir, &o->export, &o->wrap, &o->array_spec,
	    &o->dep_spec, &o->begin, &o->input, &o->qos, &o->image,
	    &o->gpu_fraction, &o->topo_name, &o->topo_required,
	    &o->topo_preferred, &o->priority_class, &o->constraint,
	    &o->nodelist, &o->exclude, &o->mail_type, &o->mail_user};
	size_t i;

	for (i = 0; i < KAI_NELEM(strs); i++)
		free(*strs[i]);
	submit_gpu_fini(&o->gpus_job);
	submit_gpu_fini(&o->gpus_node);
	submit_gpu_fini(&o->gpus_task);
	kai_array_fini(&o->array);
	kai_dep_fini(&o->dep);
	free(o->seen);
	memset(o, 0, sizeof(*o));
}

static void
set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = kai_xstrdup(s);
}

/* Slurm's parse_int: a whole number, positive where it says so. */
static int
set_count(int64_t *dst, const char *arg, int64_t min, const char *what,
    struct kai_err *err)
{
	return kai_strtoi64(arg, min, INT32_MAX, dst, what, err);
}

static int
set_mem(struct submit_opts *o, enum submit_mem kind, const char *arg, int pass,
    struct kai_err *err)
{
	uint64_t mib;
	int k, r;

	if ((r = kai_mem_parse(arg, &mib, err)) != 0)
		return r;
	/* the script and the command line together: Slurm's fatal() */
	for (k = 0; k < SUBMIT_MEM_KINDS; k++)
		if (k != (int)kind && pass != SUBMIT_PASS_ENV &&
		    o->mem[k].pass != 0 && o->mem[k].pass != SUBMIT_PASS_ENV)
			return kai_err_set(err, KAI_EINVAL,
			    "options \"--mem\", \"--mem-per-cpu\" and "
			    "\"--mem-per-gpu\" are mutually exclusive");
	o->mem[kind].mib = mib;
	o->mem[kind].pass = pass;
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

/* The GPU options; each request remembers the option that made it. */
static int
set_gpu(struct submit_opts *o, int key, const char *arg, struct kai_err *err)
{
	struct submit_gpu *g = key == 'G' ? &o->gpus_job
	    : key == K_GPUS_PER_TASK      ? &o->gpus_task
					  : &o->gpus_node;
	int r;

	r = key == K_GRES ? submit_gres_parse(arg, g, err)
			  : submit_gpu_parse(arg, g, err);
	if (r == 0)
		g->opt = key == 'G'          ? "--gpus"
		    : key == K_GPUS_PER_TASK ? "--gpus-per-task"
		    : key == K_GRES          ? "--gres"
					     : "--gpus-per-node";
	return r;
}

static int
set_open_mode(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	/* Slurm looks at the first letter only */
	if (arg[0] == 'a' || arg[0] == 'A')
		o->open_mode = 'a';
	else if (arg[0] == 't' || arg[0] == 'T')
		o->open_mode = 't';
	else
		return kai_err_set(err, KAI_EINVAL,
		    "invalid open mode \"%s\": must be append or truncate",
		    arg);
	return 0;
}

/* sbatch takes "yes" or "no", in any case. */
static int
set_kill_invalid_dep(struct submit_opts *o, const char *arg,
    struct kai_err *err)
{
	if (strcasecmp(arg, "yes") == 0)
		o->kill_invalid_dep = true;
	else if (strcasecmp(arg, "no") == 0)
		o->kill_invalid_dep = false;
	else
		return kai_err_set(err, KAI_EINVAL,
		    "invalid kill-on-invalid-dep \"%s\": must be yes or no",
		    arg);
	return 0;
}

static int
set_array(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	int r;

	if ((r = kai_array_parse(arg, &o->array, err)) == 0)
		set_str(&o->array_spec, arg);
	return r;
}

static int
set_dependency(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	int r;

	if ((r = kai_dep_parse(arg, &o->dep, err)) == 0)
		set_str(&o->dep_spec, arg);
	return r;
}

static int
set_begin(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	int r;

	if ((r = slurmtime_parse(arg, o->now, &o->begin_t, err)) != 0)
		return kai_err_prefix(err, "option \"--begin\"");
	set_str(&o->begin, arg);
	return 0;
}

static int
set_topology(struct submit_opts *o, char **level, const char *arg,
    struct kai_err *err)
{
	char *name, *lv;
	int r;

	if ((r = submit_topology_parse(arg, &name, &lv, err)) != 0)
		return r;
	free(*level);
	*level = lv;
	if (name != NULL) {
		free(o->topo_name);
		o->topo_name = name;
	}
	return 0;
}

/* Options whose argument is kept as written. */
static const struct {
	int key;
	size_t off; /* of a char * in struct submit_opts */
} string_opts[] = {
    {'A', offsetof(struct submit_opts, account)},
    {'C', offsetof(struct submit_opts, constraint)},
    {'e', offsetof(struct submit_opts, error)},
    {'i', offsetof(struct submit_opts, input)},
    {'J', offsetof(struct submit_opts, name)},
    {'o', offsetof(struct submit_opts, output)},
    {'p', offsetof(struct submit_opts, partition)},
    {'q', offsetof(struct submit_opts, qos)},
    {'w', offsetof(struct submit_opts, nodelist)},
    {'x', offsetof(struct submit_opts, exclude)},
    {K_QUEUE, offsetof(struct submit_opts, partition)},
    {K_EXPORT, offsetof(struct submit_opts, export)},
    {K_IMAGE, offsetof(struct submit_opts, image)},
    {K_WRAP, offsetof(struct submit_opts, wrap)},
};

/* 1 when key is a string option (now set), 0 otherwise. */
static int
set_string_opt(struct submit_opts *o, int key, const char *arg)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(string_opts); i++) {
		if (string_opts[i].key == key) {
			set_str((char **)(void *)((char *)o +
				    string_opts[i].off),
			    arg);
			return 1;
		}
	}
	return 0;
}

/* 1 when key is a flag (now set), 0 otherwise. */
static int
set_flag(struct submit_opts *o, int key)
{
	switch (key) {
	case 'h':
	case K_USAGE:
		o->help = true;
		break;
	case 'H':
		o->hold = true;
		break;
	case 'Q':
		o->quiet = true;
		break;
	case 'v':
		break;
	case 'V':
		o->version = true;
		break;
	case 'W':
		o->wait = true;
		break;
	case K_NO_REQUEUE:
	case K_REQUEUE:
		o->requeue = key == K_REQUEUE;
		break;
	case K_PARSABLE:
		o->parsable = true;
		break;
	case K_PREEMPTIBLE:
	case K_NO_PREEMPTIBLE:
		o->preemptible = key == K_PREEMPTIBLE;
		break;
	case K_PARSE_ONLY:
		o->parse_only = true;
		break;
	case K_JSON:
		o->json = true;
		break;
	default:
		return 0;
	}
	return 1;
}

/* kaibatch's own options with a value. */
/* --priority-class NAME, and --priority NAME (sbatch takes a number) */
static int
set_priority_class(struct submit_opts *o, const char *arg,
    struct kai_err *err)
{
	uint32_t prio;
	int r;

	if ((r = kai_prio_class(arg, &prio, err)) != 0)
		return r;
	set_str(&o->priority_class, arg);
	return 0;
}

static int
set_kai(struct submit_opts *o, int key, const char *arg, struct kai_err *err)
{
	int r;

	switch (key) {
	case K_GPU_FRACTION:
		if ((r = submit_fraction_parse(arg, &o->gpu_fraction_v, err)) ==
		    0)
			set_str(&o->gpu_fraction, arg);
		return r;
	case K_GPU_MEMORY:
		if ((r = kai_mem_parse(arg, &o->gpu_memory_mib, err)) == 0 &&
		    o->gpu_memory_mib == 0)
			r = kai_err_set(err, KAI_EINVAL,
			    "invalid GPU memory \"%s\": must be above 0", arg);
		return r;
	case K_GPU_DEVICES:
		return kai_strtoi64(arg, 1, KAI_JOB_GPU_DEVICES_MAX,
		    &o->gpu_devices, "gpu-devices", err);
	case K_MIN_TASKS:
		return set_count(&o->min_tasks, arg, 1, "min-tasks", err);
	case K_TOPOLOGY:
		return set_topology(o, &o->topo_required, arg, err);
	case K_TOPOLOGY_PREFERRED:
		return set_topology(o, &o->topo_preferred, arg, err);
	case K_PRIORITY:
		if (arg[strspn(arg, "0123456789")] == '\0' && arg[0] != '\0') {
			/* sbatch's numeric priority: warned about, dropped */
			o->seen[cliopt_find(submit_table, submit_table_len,
			    key) - submit_table] = 1;
			return 0;
		}
		/* a class name: --priority-class's meaning */
		return set_priority_class(o, arg, err);
	case K_PRIORITY_CLASS:
		return set_priority_class(o, arg, err);
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", key);
	}
}

/*
 * --mail-type, kept as the canonical text kaid stores.  As sbatch, a
 * type it does not know next to known ones is dropped.
 */
static int
set_mail_type(struct submit_opts *o, const char *arg, struct kai_err *err)
{
	char buf[KAI_MAIL_TYPE_TEXT_MAX];
	uint32_t mask;

	if (kai_mail_type_parse(arg, &mask, NULL, err) != 0)
		return KAI_EINVAL;
	set_str(&o->mail_type, kai_mail_type_format(mask, buf, sizeof(buf)));
	return 0;
}

static int
set_value(struct submit_opts *o, int key, const char *arg, const char *cwd,
    int pass, struct kai_err *err)
{
	switch (key) {
	case 'a':
		return set_array(o, arg, err);
	case 'b':
		return set_begin(o, arg, err);
	case 'c':
		return set_count(&o->cpus_per_task, arg, 1, "cpus-per-task",
		    err);
	case 'd':
		return set_dependency(o, arg, err);
	case 'D':
		return set_chdir(o, arg, cwd, err);
	case 'n':
		return set_count(&o->ntasks, arg, 1, "ntasks", err);
	case 'N':
		return submit_nodes_parse(arg, &o->nodes_min, &o->nodes_max,
		    err);
	case 't':
		return kai_time_limit_parse(arg, &o->time_limit_s, err);
	case 'G':
	case K_GPUS_PER_NODE:
	case K_GPUS_PER_TASK:
	case K_GRES:
		return set_gpu(o, key, arg, err);
	case K_CPUS_PER_GPU:
		return set_count(&o->cpus_per_gpu, arg, 1, "cpus-per-gpu", err);
	case K_MEM:
	case K_MEM_PER_CPU:
	case K_MEM_PER_GPU:
		return set_mem(o, (enum submit_mem)(key - K_MEM), arg, pass,
		    err);
	case K_NTASKS_PER_NODE:
		return set_count(&o->ntasks_per_node, arg, 1, "ntasks-per-node",
		    err);
	case K_OPEN_MODE:
		return set_open_mode(o, arg, err);
	case K_EXCLUSIVE:
		/* Slurm's =user, =mcs and =topo share nodes among some jobs;
		 * kaid knows whole nodes only.  SBATCH_EXCLUSIVE="" is the
		 * plain option. */
		if (arg != NULL && arg[0] != '\0')
			return kai_err_set(err, KAI_EINVAL,
			    "invalid exclusive \"%s\": only whole nodes "
			    "(--exclusive without a value) are supported",
			    arg);
		o->exclusive = true;
		return 0;
	case K_KILL_ON_INVALID_DEP:
		return set_kill_invalid_dep(o, arg, err);
	case K_MAIL_TYPE:
		return set_mail_type(o, arg, err);
	case K_MAIL_USER:
		if (kai_mail_user_check(arg, err) != 0)
			return KAI_EINVAL;
		set_str(&o->mail_user, arg);
		return 0;
	case K_SIGNAL:
		if (submit_signal_parse(arg, &o->signal, err) != 0)
			return KAI_EINVAL;
		o->signal_set = true;
		return 0;
	default:
		return set_kai(o, key, arg, err);
	}
}

/* --export is kept as written; its syntax is checked now. */
static bool
export_ok(const char *arg, struct kai_err *err)
{
	struct submit_export ex;

	if (submit_export_parse(arg, &ex, err) != 0)
		return false;
	submit_export_fini(&ex);
	return true;
}

/*
 * -C in Slurm's grammar and -w/-x host lists, read by kaid's own parsers
 * where the value is met, so that a fault names its line.  A -w/-x with
 * a '/' is a file, read later (ksubmit.c).
 */
static int
check_nodes_opt(int key, const char *arg, struct kai_err *err)
{
	struct kai_constraint c;
	char *req;
	int r;

	if (key == 'C') {
		r = kai_constraint_parse(arg, &c, err);
		kai_constraint_fini(&c);
		return r;
	}
	if (strchr(arg, '/') != NULL)
		return 0;
	r = kai_node_req_make(arg, NULL, &req, err);
	free(req);
	return r;
}

int
submit_opts_set(struct submit_opts *o, int key, const char *arg,
    const char *cwd, int pass, struct kai_err *err)
{
	const struct cliopt *c =
	    cliopt_find(submit_table, submit_table_len, key);
	char label[80];

	KAI_ASSERT(c != NULL);
	if (c->flags & SOPT_REFUSE)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"%s\" is not supported: %s",
		    cliopt_label(c, label, sizeof(label)), c->note);
	if (c->flags & SOPT_IGNORE)
		o->seen[c - submit_table] = 1;
	if (key == K_EXPORT && !export_ok(arg, err))
		return KAI_EINVAL;
	if ((key == 'C' || key == 'w' || key == 'x') &&
	    check_nodes_opt(key, arg, err) != 0)
		return KAI_EINVAL;
	if (set_string_opt(o, key, arg) || set_flag(o, key))
		return 0;
	if (c->flags & SOPT_IGNORE)
		return 0;
	return set_value(o, key, arg, cwd, pass, err);
}

/*
 * Parsing argument vectors
 */

/*
 * --wrap names the script, so it cannot be in one.  (The command line's
 * own options are not in the tables the directives are parsed with.)
 */
static int
misplaced(int key, int pass, struct kai_err *err)
{
	if (pass == SUBMIT_PASS_CLI || key != K_WRAP)
		return 0;
	return kai_err_set(err, KAI_EINVAL,
	    "option \"--wrap\" is not allowed in a script");
}

/*
 * An unrecognized option in an #SBATCH line that is one of kaibatch's
 * own gets a message that says where it belongs.
 */
static void
explain_fault(const char *elem, size_t tlen, struct kai_err *err)
{
	size_t i, len;

	if (elem == NULL || strncmp(elem, "--", 2) != 0 ||
	    tlen != submit_table_sbatch_len)
		return;
	len = strcspn(elem + 2, "=");
	for (i = submit_table_sbatch_len; i < submit_table_script_len; i++)
		if (strlen(submit_table[i].name) == len &&
		    strncmp(submit_table[i].name, elem + 2, len) == 0)
			(void)kai_err_set(err, KAI_EINVAL,
			    "option \"--%s\" is not an sbatch option: write it "
			    "in a \"#KSUB\" line",
			    submit_table[i].name);
}

/* A word that is not an option, as sbatch's "Invalid directive". */
static int
stray(const char *word, struct kai_err *err)
{
	if (strcmp(word, "hetjob") == 0 || strcmp(word, "packjob") == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid directive \"%s\": heterogeneous jobs are not "
		    "supported",
		    word);
	return kai_err_set(err, KAI_EINVAL,
	    "invalid directive \"%s\": not an option", word);
}

int
submit_opts_parse(struct submit_opts *o, size_t tlen, int argc, char **argv,
    const int *lines, const char *source, const char *cwd, int pass,
    int *first_operand, struct kai_err *err)
{
	struct cliopt_parser p;
	const char *arg;
	int c, r = 0, at = 0;

	cliopt_begin(&p, submit_table, tlen, true);
	while ((c = cliopt_next(&p, argc, argv, &arg, err)) != CLIOPT_DONE) {
		at = c < 0 ? p.prev_optind : cliopt_last_index(&p, argv, arg);
		if (c < 0) {
			explain_fault(argv[p.prev_optind], tlen, err);
			r = c;
		} else if ((r = misplaced(c, pass, err)) == 0) {
			r = submit_opts_set(o, c, arg, cwd, pass, err);
		}
		if (r != 0)
			goto out;
	}
	if (first_operand != NULL) {
		*first_operand = optind;
	} else if (optind < argc) {
		at = optind;
		r = stray(argv[optind], err);
	}
out:
	if (r != 0 && lines != NULL)
		(void)kai_err_prefix(err, "%s:%d", source,
		    lines[at < argc ? at : argc - 1]);
	cliopt_end(&p);
	return r;
}

/* One run of arguments from lines of one kind, d->argv[from..to). */
static int
directive_run(struct submit_opts *o, const struct directives *d, int from,
    int to, const char *cwd, struct kai_err *err)
{
	int n = to - from + 1, r;
	char **argv = kai_xcalloc((size_t)n + 1, sizeof(*argv));
	int *lines = kai_xcalloc((size_t)n, sizeof(*lines));

	argv[0] = d->argv[0];
	lines[0] = d->lines[from];
	memcpy(&argv[1], &d->argv[from], (size_t)(n - 1) * sizeof(*argv));
	memcpy(&lines[1], &d->lines[from], (size_t)(n - 1) * sizeof(*lines));
	r = submit_opts_parse(o,
	    d->ksub[from] ? submit_table_script_len : submit_table_sbatch_len,
	    n, argv, lines, d->argv[0], cwd, SUBMIT_PASS_SCRIPT, NULL, err);
	free(argv);
	free(lines);
	return r;
}

int
submit_opts_directives(struct submit_opts *o, const struct directives *d,
    const char *cwd, struct kai_err *err)
{
	int i = 1, j, r;

	while (i < d->argc) {
		for (j = i + 1; j < d->argc && d->ksub[j] == d->ksub[i]; j++)
			;
		if ((r = directive_run(o, d, i, j, cwd, err)) != 0)
			return r;
		i = j;
	}
	return 0;
}

/*
 * SBATCH_* variables (sbatch(1), INPUT ENVIRONMENT VARIABLES), for the
 * options ksubmit reads
 */
static const struct {
	const char *var;
	int key;
} env_opts[] = {
    {"SBATCH_ACCOUNT", 'A'},
    {"SBATCH_ARRAY_INX", 'a'},
    {"SBATCH_CONSTRAINT", 'C'},
    {"SBATCH_CPUS_PER_GPU", K_CPUS_PER_GPU},
    {"SBATCH_EXCLUSIVE", K_EXCLUSIVE},
    {"SBATCH_EXPORT", K_EXPORT},
    {"SBATCH_GPUS", 'G'},
    {"SBATCH_GPUS_PER_NODE", K_GPUS_PER_NODE},
    {"SBATCH_GPUS_PER_TASK", K_GPUS_PER_TASK},
    {"SBATCH_GRES", K_GRES},
    {"SBATCH_JOB_NAME", 'J'},
    {"SBATCH_MEM_PER_CPU", K_MEM_PER_CPU},
    {"SBATCH_MEM_PER_GPU", K_MEM_PER_GPU},
    {"SBATCH_MEM_PER_NODE", K_MEM},
    {"SBATCH_NO_REQUEUE", K_NO_REQUEUE},
    {"SBATCH_OPEN_MODE", K_OPEN_MODE},
    {"SBATCH_PARTITION", 'p'},
    {"SBATCH_QOS", 'q'},
    {"SBATCH_REQUEUE", K_REQUEUE},
    {"SBATCH_SIGNAL", K_SIGNAL},
    {"SBATCH_TIMELIMIT", 't'},
    {"SBATCH_WAIT", 'W'},
};

static const char *
env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/*
 * A flag from the environment is set by "", "yes" or a non-zero number,
 * and anything else leaves it unset (slurm_process_option()).
 */
static bool
env_flag_on(const char *v)
{
	int64_t n;

	return *v == '\0' || strcasecmp(v, "yes") == 0 ||
	    (kai_strtoi64(v, INT64_MIN, INT64_MAX, &n, "", NULL) == 0 &&
		n != 0);
}

/* What slurm_process_option() does with a flag variable that is off. */
static void
env_flag_reset(struct submit_opts *o, int key)
{
	if (key == 'W')
		o->wait = false;
	else
		o->requeue = -1; /* --requeue and --no-requeue share it */
}

int
submit_opts_env(struct submit_opts *o, char *const *envp, const char *cwd,
    struct kai_err *err)
{
	const struct cliopt *c;
	const char *v;
	size_t i;

	for (i = 0; i < KAI_NELEM(env_opts); i++) {
		if ((v = env_get(envp, env_opts[i].var)) == NULL)
			continue;
		c = cliopt_find(submit_table, submit_table_len,
		    env_opts[i].key);
		KAI_ASSERT(c != NULL);
		if (c->arg == CLIOPT_NOARG && !env_flag_on(v)) {
			env_flag_reset(o, env_opts[i].key);
			continue;
		}
		/* a flag's setter ignores its argument */
		if (submit_opts_set(o, env_opts[i].key, v, cwd, SUBMIT_PASS_ENV,
			err) != 0)
			return kai_err_prefix(err, "%s", env_opts[i].var);
	}
	return 0;
}
