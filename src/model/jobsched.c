/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobsched.c: the scheduling options of a job spec -- priority classes,
 * preemptibility, requeue, gang minimum, GPU fractions and topology --
 * and the checks kaid and ksubmit both apply to them.  See job.h.
 *
 * The priority classes are those KAI's chart installs (train 50,
 * build-preemptible 75, build 100, inference 125), with KAI's rule for
 * the default preemptibility: a job is preemptible when its priority is
 * below 100, unless it says otherwise.  A job that names no class is a
 * "train" job, as KAI treats everything that is neither a Deployment nor
 * a notebook.
 *
 * kaid.yaml has no list of topology levels, so a topology level is any
 * node label key ("topology.kubernetes.io/zone", "rack"): the job asks
 * for all its tasks in nodes that share that label's value.  Only the
 * syntax of a label key is checked here; a key no node carries leaves the
 * job pending with the scheduler's reason, as a level no domain can hold.
 */
#include "config.h"

#include "model/job.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "model/constraint.h"
#include "model/hostlist.h"
#include "model/nodelists.h"

static const struct {
	const char *name;
	uint32_t priority;
} classes[] = {
    {"train", 50},
    {"build-preemptible", 75},
    {"build", 100},
    {"inference", 125},
};

const char *
kai_prio_class_names(void)
{
	return "train, build-preemptible, build, inference";
}

int
kai_prio_class(const char *name, uint32_t *priority, struct kai_err *err)
{
	size_t i;

	if (name == NULL)
		name = KAI_PRIO_CLASS_DEFAULT;
	for (i = 0; i < KAI_NELEM(classes); i++) {
		if (strcmp(classes[i].name, name) == 0) {
			*priority = classes[i].priority;
			return 0;
		}
	}
	return kai_err_set(err, KAI_EINVAL,
	    "invalid priority class \"%.64s\": must be one of %s", name,
	    kai_prio_class_names());
}

/* A DNS-1123 subdomain: the prefix of a label key. */
static bool
prefix_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 253 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) ||
		    isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

/* The name part: 1-63 of [A-Za-z0-9_.-], alphanumeric at both ends. */
static bool
name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 63 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-_.", s[i]) == NULL)
			return false;
	return true;
}

bool
kai_label_key_ok(const char *s)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL)
		return name_ok(s);
	return prefix_ok(s, (size_t)(slash - s)) && name_ok(slash + 1);
}

static int
check_level(const char *opt, const char *level, struct kai_err *err)
{
	if (level == NULL || kai_label_key_ok(level))
		return 0;
	return kai_err_set(err, KAI_EINVAL,
	    "invalid topology level \"%.64s\" of option \"%s\": must be a "
	    "node label key",
	    level, opt);
}

static int
check_gpu_share(const struct kai_jobspec *js, struct kai_err *err)
{
	if (js->gpu_fraction >= KAI_GPU_MICRO)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU fraction %" PRIu32 " micro-GPUs: must be "
		    "above 0 and below 1 GPU", js->gpu_fraction);
	if (js->gpu_fraction > 0 && js->gpu_memory_mb > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--gpu-fraction\" and \"--gpu-memory\" are "
		    "mutually exclusive");
	if (js->gpu_memory_mb > KAI_JOB_GPU_MEM_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU memory %" PRIu64 " MiB: the limit is %d",
		    js->gpu_memory_mb, KAI_JOB_GPU_MEM_MAX);
	if ((js->gpu_fraction > 0 || js->gpu_memory_mb > 0) &&
	    (js->gpus_per_task > 0 || js->gpus_per_node > 0))
		return kai_err_set(err, KAI_EINVAL,
		    "option \"%s\" asks for a part of one GPU: it excludes "
		    "whole GPUs",
		    js->gpu_fraction > 0 ? "--gpu-fraction" : "--gpu-memory");
	if (js->gpu_devices > 1 && js->gpu_fraction == 0 &&
	    js->gpu_memory_mb == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "a share over %" PRIu32 " GPU devices needs a GPU "
		    "fraction or GPU memory", js->gpu_devices);
	if (js->gpu_devices > KAI_JOB_GPU_DEVICES_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid number of GPU devices %" PRIu32 ": the limit "
		    "is %d", js->gpu_devices, KAI_JOB_GPU_DEVICES_MAX);
	return 0;
}

/*
 * A GPU type is a Kubernetes label value (the node label's, e.g.
 * "NVIDIA-A100-SXM4-80GB"), and only a job that asks for GPUs has one.
 */
static int
check_gpu_type(const struct kai_jobspec *js, struct kai_err *err)
{
	const char *s = js->gpu_type;
	size_t i, n;

	if (s == NULL)
		return 0;
	n = strlen(s);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-._", s[i]) == NULL)
			break;
	if (n == 0 || n > KAI_JOB_GPU_TYPE_MAX || i < n)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU type \"%.70s\": expected 1 to %d letters, "
		    "digits, '-', '_' and '.'", s, KAI_JOB_GPU_TYPE_MAX);
	if (js->gpus_per_task == 0 && js->gpus_per_node == 0 &&
	    js->gpu_fraction == 0 &&
	    js->gpu_memory_mb == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "GPU type \"%s\" given for a job that asks for no GPU", s);
	return 0;
}

/* -C in Slurm's grammar, -w and -x host lists (kaid checks what ksubmit
 * sent: a client may send anything). */
static int
check_nodes(const struct kai_jobspec *js, struct kai_err *err)
{
	struct kai_constraint c;
	char **names;
	size_t n;
	int r;

	if (js->features != NULL && strlen(js->features) > KAI_JOB_FEATURES_MAX)
		return kai_err_set(err, KAI_EINVAL, "invalid constraint: longer "
		    "than %d bytes", KAI_JOB_FEATURES_MAX);
	if (js->node_req != NULL && strlen(js->node_req) > KAI_JOB_NODE_REQ_MAX)
		return kai_err_set(err, KAI_EINVAL, "invalid node lists: "
		    "--nodelist and --exclude together are longer than %d "
		    "bytes", KAI_JOB_NODE_REQ_MAX);
	if (js->features != NULL) {
		r = kai_constraint_parse(js->features, &c, err);
		kai_constraint_fini(&c);
		if (r != 0)
			return r;
	}
	if ((r = kai_node_req_names(js->node_req, KAI_NODE_REQ_ONLY, &names,
		 &n, err)) != 0)
		return r;
	kai_hostlist_free(names, n);
	if ((r = kai_node_req_names(js->node_req, KAI_NODE_REQ_NEVER, &names,
		 &n, err)) != 0)
		return r;
	kai_hostlist_free(names, n);
	return 0;
}

int
kai_jobspec_check_sched(const struct kai_jobspec *js, struct kai_err *err)
{
	uint32_t prio, ntasks = js->ntasks > 0 ? js->ntasks : 1;
	int r;

	if (js->priority_class != NULL &&
	    (r = kai_prio_class(js->priority_class, &prio, err)) != 0)
		return r;
	if (js->preempt > KAI_TRI_NO || js->requeue > KAI_TRI_NO)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid preemptible or requeue value");
	if ((r = check_gpu_share(js, err)) != 0 ||
	    (r = check_gpu_type(js, err)) != 0)
		return r;
	if (js->min_tasks > ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid min-tasks %" PRIu32 ": the job has %" PRIu32
		    " task%s",
		    js->min_tasks, ntasks, ntasks == 1 ? "" : "s");
	if (js->ntasks_per_node > 0 && ntasks % js->ntasks_per_node != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid ntasks-per-node %" PRIu32 ": it does not divide "
		    "the job's %" PRIu32 " task%s",
		    js->ntasks_per_node, ntasks, ntasks == 1 ? "" : "s");
	if (js->whole_node > (KAI_JOB_WHOLE_EXCL | KAI_JOB_WHOLE_MEM))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid whole-node request %" PRIu32 ": expected 0 to 3",
		    js->whole_node);
	if (js->gpus_per_node > 0 &&
	    (js->ntasks_per_node == 0 || js->gpus_per_task > 0))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid gpus-per-node %" PRIu32 ": it needs node groups "
		    "(ntasks-per-node) and no GPUs per task", js->gpus_per_node);
	if (js->ntasks_per_node > 0 && js->min_tasks > 0 &&
	    js->min_tasks < ntasks)
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--min-tasks\" and \"--nodes\" or "
		    "\"--ntasks-per-node\" are mutually exclusive");
	if (js->ntasks_per_node > 0 &&
	    (js->topology != NULL || js->topology_preferred != NULL))
		return kai_err_set(err, KAI_EINVAL,
		    "options \"--topology\" and \"--nodes\" or "
		    "\"--ntasks-per-node\" are mutually exclusive");
	if ((r = check_nodes(js, err)) != 0 ||
	    (r = check_level("--topology", js->topology, err)) != 0 ||
	    (r = check_level("--topology-preferred", js->topology_preferred,
		 err)) != 0)
		return r;
	return 0;
}
