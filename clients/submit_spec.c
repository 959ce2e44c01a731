/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_spec.c: what ksubmit makes of the options once all are applied:
 * the checks across options, the list of what kaid cannot honour yet,
 * the warnings, and the per-task request sent to kaid.  See
 * submit_opts.h.
 *
 * kaibatch runs one pod per task, so most requests end up per task:
 * --mem (per node) is divided among the tasks of a node, --gpus among all
 * tasks, and -N without -n means one task per node, as in Slurm.
 * Divisions round up, so a job never gets less than it asked for.
 * --gres=gpu:N and --gpus-per-node=N stay per node, as Slurm means them:
 * the tasks of a node form a node group (one node for all the tasks when
 * neither -N nor --ntasks-per-node says otherwise, as Slurm packs them)
 * and kaid spreads the node's N GPUs over its pods
 * (src/model/jobgpus.c); only an uneven -N 2 -n 3, which has no groups,
 * falls back to N per task, divided as --mem is.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "model/hostlist.h"
#include "model/nodelists.h"
#include "submit_opts.h"

static int64_t
div_up(int64_t a, int64_t b)
{
	return b <= 0 ? a : (a + b - 1) / b;
}

/* Tasks, and tasks sharing one node (for the per-node requests). */
static void
task_shape(const struct submit_opts *o, int64_t *ntasks, int64_t *per_node)
{
	int64_t tpn = o->ntasks_per_node, nodes = o->nodes_min;

	if (o->ntasks != SUBMIT_UNSET)
		*ntasks = o->ntasks;
	else if (nodes != SUBMIT_UNSET)
		*ntasks = nodes * (tpn != SUBMIT_UNSET ? tpn : 1);
	else if (tpn != SUBMIT_UNSET)
		*ntasks = tpn;
	else
		*ntasks = 1;
	if (tpn != SUBMIT_UNSET)
		*per_node = tpn;
	else if (nodes != SUBMIT_UNSET)
		*per_node = div_up(*ntasks, nodes);
	else
		*per_node = *ntasks;
	if (*per_node < 1)
		*per_node = 1;
}

/*
 * sbatch -w gives the job every listed node: without -N, -n or
 * --ntasks-per-node the job has as many nodes as names, a task on each
 * (Slurm's node count is raised to the list's).  kaibatch keeps a job's
 * tasks on the listed nodes, so one task per node and as many as names
 * give the job each of them.
 */
void
submit_opts_nodelist_nodes(struct submit_opts *o)
{
	struct kai_err err;
	char **names;
	size_t n;

	if (o->nodelist == NULL || o->nodes_min != SUBMIT_UNSET ||
	    o->ntasks != SUBMIT_UNSET || o->ntasks_per_node != SUBMIT_UNSET ||
	    kai_hostlist_expand(o->nodelist, &names, &n, &err) != 0)
		return;
	kai_hostlist_free(names, n);
	if (n > 1)
		o->nodes_min = o->nodes_max = (int64_t)n;
}

int
submit_opts_mem_kind(const struct submit_opts *o)
{
	int k;

	for (k = 0; k < SUBMIT_MEM_KINDS; k++)
		if (o->mem[k].pass != 0)
			return k;
	return -1;
}

/* Slurm's _validate_memory_options(), with SBATCH_* names. */
static int
finish_mem(struct submit_opts *o, struct kai_err *err)
{
	int k, keep = -1, nenv = 0;

	for (k = 0; k < SUBMIT_MEM_KINDS; k++) {
		if (o->mem[k].pass == SUBMIT_PASS_ENV)
			nenv++;
		else if (o->mem[k].pass != 0)
			keep = k; /* set_mem() allows one such at most */
	}
	if (keep < 0 && nenv > 1)
		return kai_err_set(err, KAI_EINVAL,
		    "variables \"SBATCH_MEM_PER_NODE\", \"SBATCH_MEM_PER_CPU\" "
		    "and \"SBATCH_MEM_PER_GPU\" are mutually exclusive");
	for (k = 0; k < SUBMIT_MEM_KINDS; k++)
		if (keep >= 0 && k != keep)
			o->mem[k].pass = 0;
	return 0;
}

static bool
any_gpu_count(const struct submit_opts *o)
{
	return o->gpus_job.count > 0 || o->gpus_node.count > 0 ||
	    o->gpus_task.count > 0;
}

/*
 * The GPU type the options name (-G, --gres/--gpus-per-node,
 * --gpus-per-task with a count above 0), or NULL; two different ones
 * are refused.
 */
static int
gpu_type(const struct submit_opts *o, const char **type, struct kai_err *err)
{
	const struct submit_gpu *g[] = {&o->gpus_job, &o->gpus_node,
	    &o->gpus_task};
	const char *opt = NULL;
	size_t i;

	*type = NULL;
	for (i = 0; i < KAI_NELEM(g); i++) {
		if (g[i]->count <= 0 || g[i]->type == NULL)
			continue;
		if (*type != NULL && strcmp(*type, g[i]->type) != 0)
			return kai_err_set(err, KAI_EINVAL,
			    "options \"%s\" and \"%s\" name different GPU "
			    "types (\"%s\", \"%s\"): a job's GPUs are of one "
			    "type", opt, g[i]->opt, *type, g[i]->type);
		*type = g[i]->type;
		opt = g[i]->opt;
	}
	return 0;
}

int
submit_opts_finish(struct submit_opts *o, struct kai_err *err)
{
	int64_t ntasks, per_node;
	const char *type;
	int r;

	if ((r = finish_mem(o, err)) != 0 || (r = gpu_type(o, &type, err)) != 0)
		return r;
	if (o->cpus_per_task != SUBMIT_UNSET && o->cpus_per_gpu != SUBMIT_UNSET)
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--cpus-per-task\" and \"--cpus-per-gpu\" are "
		    "mutually exclusive");
	if (o->gpu_fraction != NULL && o->gpu_memory_mib > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--gpu-fraction\" and \"--gpu-memory\" are "
		    "mutually exclusive");
	if (o->gpu_devices != SUBMIT_UNSET && o->gpu_fraction == NULL &&
	    o->gpu_memory_mib == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"--gpu-devices\" needs \"--gpu-fraction\" or "
		    "\"--gpu-memory\"");
	if ((o->gpu_fraction != NULL || o->gpu_memory_mib > 0) &&
	    any_gpu_count(o))
		return kai_err_set(err, KAI_EINVAL,
		    "option \"%s\" asks for a part of one GPU: it excludes "
		    "whole GPUs (--gres, --gpus, --gpus-per-node, "
		    "--gpus-per-task)",
		    o->gpu_fraction != NULL ? "--gpu-fraction"
					    : "--gpu-memory");
	task_shape(o, &ntasks, &per_node);
	if (o->min_tasks != SUBMIT_UNSET && o->min_tasks > ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid min-tasks %lld: the job has %lld task%s",
		    (long long)o->min_tasks, (long long)ntasks,
		    ntasks == 1 ? "" : "s");
	return 0;
}

/*
 * Options kaid cannot honour yet
 */

/* What every job reads anyway: sbatch's default input is /dev/null. */
static bool
no_input(const char *pattern)
{
	return strcmp(pattern, "/dev/null") == 0 ||
	    strcasecmp(pattern, "none") == 0;
}

size_t
submit_opts_refusals(const struct submit_opts *o, const char **names,
    size_t max)
{
	const struct {
		bool used;
		const char *label;
	} later[] = {
	    {o->begin != NULL, "--begin"},
	    {o->input != NULL && !no_input(o->input), "--input"},
	};
	size_t i, n = 0;

	for (i = 0; i < KAI_NELEM(later); i++) {
		if (!later[i].used)
			continue;
		if (n < max)
			names[n] = later[i].label;
		n++;
	}
	return n;
}

/*
 * Warnings
 */

void
submit_opts_warnings(const struct submit_opts *o,
    void (*fn)(const char *option, const char *msg, void *ctx), void *ctx)
{
	char label[80], msg[256];
	size_t i;

	for (i = 0; i < submit_table_len; i++) {
		if (!o->seen[i])
			continue;
		(void)cliopt_label(&submit_table[i], label, sizeof(label));
		(void)snprintf(msg, sizeof(msg), "option \"%s\" is ignored: %s",
		    label, submit_table[i].note);
		fn(label, msg, ctx);
	}
}

/*
 * Per-task translation
 */

static uint32_t
clamp32(int64_t v)
{
	return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * Whether the GPUs are asked per node (--gres, --gpus-per-node) alone, by
 * a job that may have node groups (--topology and --min-tasks exclude
 * them: such a job keeps N per task, divided among a node's tasks).
 */
static bool
gpus_by_node(const struct submit_opts *o)
{
	return o->gpus_task.count == SUBMIT_UNSET && o->gpus_node.count > 0 &&
	    o->topo_required == NULL && o->topo_preferred == NULL &&
	    o->min_tasks == SUBMIT_UNSET;
}

static int64_t
gpus_per_task(const struct submit_opts *o, int64_t ntasks, int64_t per_node)
{
	if (o->gpus_task.count != SUBMIT_UNSET)
		return o->gpus_task.count;
	if (o->gpus_node.count != SUBMIT_UNSET)
		return div_up(o->gpus_node.count, per_node);
	if (o->gpus_job.count != SUBMIT_UNSET)
		return div_up(o->gpus_job.count, ntasks);
	return 0;
}

static int
mem_per_task(const struct submit_opts *o, int64_t per_node, uint32_t cpus,
    uint32_t gpus, uint64_t *mb, struct kai_err *err)
{
	int k = submit_opts_mem_kind(o);
	uint64_t v, mult;

	*mb = 0;
	if (k < 0 || o->mem[k].mib == 0) /* kaid's default */
		return 0;
	v = o->mem[k].mib;
	if (k == SUBMIT_MEM_NODE) {
		*mb = v / (uint64_t)per_node + (v % (uint64_t)per_node != 0);
		return 0;
	}
	if (k == SUBMIT_MEM_GPU && gpus == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"--mem-per-gpu\" needs a GPU request");
	mult = k == SUBMIT_MEM_CPU ? (cpus > 0 ? cpus : 1) : gpus;
	if (v > UINT64_MAX / mult)
		return kai_err_set(err, KAI_EINVAL,
		    "memory request is too large");
	*mb = v * mult;
	return 0;
}

static void
dup_opt(char **dst, const char *s)
{
	free(*dst);
	*dst = s != NULL ? kai_xstrdup(s) : NULL;
}

static uint32_t
tristate(int v)
{
	return v < 0 ? KAI_TRI_DEFAULT : v > 0 ? KAI_TRI_YES : KAI_TRI_NO;
}

/*
 * The scheduling options.  kaid.yaml names no topologies, so a level is
 * a node label key and a "NAME:" before it has nothing to name.
 */
/*
 * The caller's umask, which sbatch records as SLURM_UMASK.  umask(2) can
 * only be read by setting it: set it back at once (ksubmit is single-
 * threaded and creates no file meanwhile).
 */
static uint32_t
submit_umask(void)
{
	mode_t m = umask(022);

	(void)umask(m);
	return (uint32_t)m & 0777u;
}

static int
sched_to_spec(const struct submit_opts *o, struct kai_jobspec *js,
    struct kai_err *err)
{
	double f = o->gpu_fraction_v * KAI_GPU_MICRO + 0.5;
	const char *type;

	if (o->topo_name != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid topology \"%s\": kaid has no named topologies; "
		    "give a node label key as the level",
		    o->topo_name);
	dup_opt(&js->priority_class, o->priority_class);
	dup_opt(&js->topology, o->topo_required);
	dup_opt(&js->topology_preferred, o->topo_preferred);
	js->preempt = tristate(o->preemptible);
	js->requeue = tristate(o->requeue);
	js->min_tasks = o->min_tasks != SUBMIT_UNSET ? clamp32(o->min_tasks)
						     : 0;
	if (o->gpu_fraction != NULL) {
		js->gpu_fraction = f < 1 ? 1 : f >= KAI_GPU_MICRO
		    ? KAI_GPU_MICRO - 1 : (uint32_t)f;
	}
	js->gpu_memory_mb = o->gpu_memory_mib;
	/* One device is the default: 0 keeps older kaids' records alike. */
	js->gpu_devices = o->gpu_devices > 1 ? (uint32_t)o->gpu_devices : 0;
	if (gpu_type(o, &type, err) != 0)
		return KAI_EINVAL;
	dup_opt(&js->gpu_type, type);
	if (o->constraint != NULL &&
	    o->constraint[strspn(o->constraint, " \t")] != '\0')
		dup_opt(&js->features, o->constraint);
	if (kai_node_req_make(o->nodelist, o->exclude, &js->node_req, err) !=
	    0)
		return KAI_EINVAL;
	return kai_jobspec_check_sched(js, err);
}

int
submit_opts_to_spec(const struct submit_opts *o, const char *cwd,
    struct kai_jobspec *js, struct kai_err *err)
{
	int64_t ntasks, per_node, gpus;

	task_shape(o, &ntasks, &per_node);
	gpus = gpus_per_task(o, ntasks, per_node);
	js->ntasks = clamp32(ntasks);
	/* -N or --ntasks-per-node, or GPUs per node: the tasks of a node
	 * share it (Slurm's meaning), when they fill their nodes evenly; an
	 * uneven -N 2 -n 3 places its tasks anywhere, as before. */
	if ((o->ntasks_per_node != SUBMIT_UNSET ||
		o->nodes_min != SUBMIT_UNSET || gpus_by_node(o)) &&
	    per_node <= ntasks && ntasks % per_node == 0)
		js->ntasks_per_node = clamp32(per_node);
	/* gpus stays the share of one task, for --cpus-per-gpu and
	 * --mem-per-gpu. */
	if (gpus_by_node(o) && js->ntasks_per_node > 0)
		js->gpus_per_node = clamp32(o->gpus_node.count);
	else
		js->gpus_per_task = clamp32(gpus);
	js->cpus_per_task =
	    o->cpus_per_task != SUBMIT_UNSET ? clamp32(o->cpus_per_task) : 0;
	if (o->cpus_per_gpu != SUBMIT_UNSET) {
		if (gpus == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "option \"--cpus-per-gpu\" needs a GPU request");
		js->cpus_per_task = clamp32(o->cpus_per_gpu * gpus);
	}
	if (mem_per_task(o, per_node, js->cpus_per_task, clamp32(gpus),
		&js->mem_mb, err) != 0)
		return KAI_EINVAL;
	/* --mem=0 (or --mem-per-cpu=0): all the memory of each node, as in
	 * Slurm; kaid sizes the pods when it knows the nodes. */
	js->whole_node = (o->exclusive ? KAI_JOB_WHOLE_EXCL : 0) |
	    (submit_opts_mem_kind(o) >= 0 &&
			o->mem[submit_opts_mem_kind(o)].mib == 0
		    ? KAI_JOB_WHOLE_MEM
		    : 0);
	js->time_limit_s = o->time_limit_s;
	js->hold = o->hold;
	dup_opt(&js->name, o->name);
	dup_opt(&js->queue, o->partition);
	dup_opt(&js->account, o->account);
	dup_opt(&js->qos, o->qos);
	dup_opt(&js->mail_type, o->mail_type);
	dup_opt(&js->mail_user, o->mail_user);
	dup_opt(&js->stdout_pattern, o->output);
	dup_opt(&js->stderr_pattern, o->error);
	dup_opt(&js->image, o->image);
	dup_opt(&js->workdir, o->chdir != NULL ? o->chdir : cwd);
	if (o->signal_set) {
		js->signal_number = (uint32_t)o->signal.number;
		js->signal_secs = (uint32_t)o->signal.secs;
		js->signal_batch = o->signal.batch_only;
	}
	js->open_mode = o->open_mode == 'a' ? KAI_OPEN_APPEND
	    : o->open_mode == 't' ? KAI_OPEN_TRUNCATE : KAI_OPEN_DEFAULT;
	js->umask = KAI_JOB_UMASK_SET | submit_umask();
	return sched_to_spec(o, js, err);
}
