/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podenv.c: the environment of a job's pod, and the names that make the
 * pods of one job find each other.
 *
 * A pod gets what the job exported, then kaid's own variables (the
 * script, the shims, the output paths: see pod/wrapper.sh), then what Slurm
 * sets in a batch job and what PyTorch's launchers read (MASTER_ADDR,
 * RANK, WORLD_SIZE, ...), so an #SBATCH script written for a Slurm
 * cluster finds what it expects.
 *
 * Names: task T of job J runs in pod kai-J-T, whose hostname is its pod
 * name.  A multi-task job also gets the headless Service kai-J, every pod
 * has subdomain kai-J and the extra DNS search domain
 * kai-J.<namespace>.svc.<cluster domain>, so the bare hostnames in
 * SLURM_JOB_NODELIST (and MASTER_ADDR, task 0's) resolve from every pod.
 * SLURM_JOB_NODELIST therefore lists the job's pods, not the Kubernetes
 * nodes they run on (kqueue shows those).
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "model/array.h"
#include "model/hostlist.h"
#include "wholenode.h"

/* The port task 0 listens on for torch.distributed's rendezvous. */
#define PODENV_MASTER_PORT "29500"

/* Kubernetes accepts env names of [-._a-zA-Z0-9], not starting with a digit. */
static bool
env_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-._", s[i]) == NULL)
			return false;
	return true;
}

char *
podenv_kubelet_escape(const char *s)
{
	size_t n = 0;
	const char *p;
	char *out, *q;

	for (p = s; *p != '\0'; p++)
		n += *p == '$' ? 2 : 1;
	out = q = kai_xmalloc(n + 1);
	for (p = s; *p != '\0'; p++) {
		*q++ = *p;
		if (*p == '$')
			*q++ = '$';
	}
	*q = '\0';
	return out;
}

static void
kv_add(struct podenv *e, const char *name, size_t nlen, const char *value)
{
	e->v = kai_xreallocarray(e->v, e->n + 2, sizeof(*e->v));
	e->v[e->n++] = kai_xstrndup(name, nlen);
	e->v[e->n++] = podenv_kubelet_escape(value);
}

static void
kv_set(struct podenv *e, const char *name, const char *value)
{
	kv_add(e, name, strlen(name), value);
}

static void
kv_setu(struct podenv *e, const char *name, uint64_t v)
{
	char num[32];

	(void)snprintf(num, sizeof(num), "%" PRIu64, v);
	kv_set(e, name, num);
}

void
podenv_fini(struct podenv *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

char *
podenv_service_name(uint64_t job_id)
{
	return kai_xasprintf("kai-%" PRIu64, job_id);
}

char *
podenv_dns_search(const struct kaid *k, uint64_t job_id)
{
	return kai_xasprintf("kai-%" PRIu64 ".%s.svc.%s", job_id,
	    k->conf->namespace, k->conf->cluster_domain);
}

static char *
path_expand(const char *pattern, const char *workdir, const struct kai_job *j)
{
	char *p = kai_pattern_expand_array(pattern, j->id, j->name, j->user,
	    j->array_job_id, j->array_task_id);
	char *abs;

	if (p[0] == '/')
		return p;
	abs = kai_xasprintf("%s/%s", workdir, p);
	free(p);
	return abs;
}

/* What the user exported, less what is not a valid name and KAI_*. */
static void
add_exported(const struct kai_jobspec *js, struct podenv *e)
{
	size_t i;

	for (i = 0; i < js->nenv; i++) {
		const char *eq = strchr(js->env[i], '=');

		if (eq == NULL || !env_name_ok(js->env[i],
		    (size_t)(eq - js->env[i])) ||
		    strncmp(js->env[i], "KAI_", 4) == 0)
			continue;
		kv_add(e, js->env[i], (size_t)(eq - js->env[i]), eq + 1);
	}
}

/* Whether the job exported name (add_exported() passed it on). */
static bool
exported(const struct kai_jobspec *js, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < js->nenv; i++)
		if (strncmp(js->env[i], name, n) == 0 && js->env[i][n] == '=')
			return true;
	return false;
}

/*
 * HOME, USER and LOGNAME, as slurmd sets them for the job's user, also
 * with --export=NONE; what the job exported stays.  HOME is the user's
 * home on kaid's host (podspec.c writes the same into the pod's passwd).
 */
static void
add_identity(const struct kai_job *j, const struct kai_jobspec *js,
    struct podenv *e)
{
	char *home;

	if (!exported(js, "HOME")) {
		home = podspec_home(j->uid);
		kv_set(e, "HOME", home);
		free(home);
	}
	if (!exported(js, "USER"))
		kv_set(e, "USER", j->user);
	if (!exported(js, "LOGNAME"))
		kv_set(e, "LOGNAME", j->user);
}

/* The pod of task t (allocations are kept in task order, but say so). */
static const char *
pod_of(const struct kai_job *j, uint32_t t)
{
	size_t i;

	if (t < j->nallocs && j->allocs[t].task == t)
		return j->allocs[t].pod;
	for (i = 0; i < j->nallocs; i++)
		if (j->allocs[i].task == t)
			return j->allocs[i].pod;
	return "";
}

/*
 * The pod names of all the job's tasks, folded: "kai-12-[0-3]".  Every
 * task, started or not: an elastic job's pods start at different times
 * and must all see the same list, and the names are fixed by the task.
 */
static char *
nodelist(const struct kai_job *j)
{
	size_t t, n = j->ntasks > 0 ? j->ntasks : 1;
	char **names = kai_xcalloc(n + 1, sizeof(*names));
	char *out;

	for (t = 0; t < n; t++)
		names[t] = kai_job_pod_name(j->id, (uint32_t)t);
	out = kai_hostlist_compress((const char *const *)names, n);
	for (t = 0; t < n; t++)
		free(names[t]);
	free(names);
	return out;
}

/* The tasks that share a node: the job's node groups, or 1. */
static uint32_t
group_size(const struct kai_job *j, uint32_t ntasks)
{
	uint32_t k = j->ntasks_per_node;

	return k > 0 && ntasks % k == 0 ? k : 1;
}

static void
add_slurm(const struct kai_job *j, const struct kai_jobspec *js,
    uint32_t task, struct podenv *e)
{
	char *list = nodelist(j), tpn[48];
	/*
	 * Each pod (one task) is a Slurm node, but the tasks of a node group
	 * (-N, --ntasks-per-node: nodegroup.c places tasks k*i .. k*i+k-1
	 * on one node) see their node as Slurm shows it.
	 */
	uint32_t ntasks = j->ntasks > 0 ? j->ntasks : 1,
		 k = group_size(j, ntasks), nodes = ntasks / k;
	uint64_t cpus = (uint64_t)j->cpus_per_task * k, mem = j->mem_mb * k,
		 gpus = kai_job_node_gpus(j->gpus_per_task, j->gpus_per_node, k);

	kv_setu(e, "SLURM_JOB_ID", j->id);
	kv_setu(e, "SLURM_JOBID", j->id);
	kv_set(e, "SLURM_JOB_NAME", j->name);
	kv_set(e, "SLURM_JOB_USER", j->user);
	kv_setu(e, "SLURM_JOB_UID", j->uid);
	kv_setu(e, "SLURM_JOB_GID", j->gid);
	kv_set(e, "SLURM_JOB_PARTITION", j->queue);
	if (j->account != NULL && j->account[0] != '\0')
		kv_set(e, "SLURM_JOB_ACCOUNT", j->account);
	kv_set(e, "SLURM_SUBMIT_DIR", js->workdir);
	kv_setu(e, "SLURM_NTASKS", j->ntasks);
	kv_setu(e, "SLURM_NPROCS", j->ntasks);
	kv_setu(e, "SLURM_JOB_NUM_NODES", nodes);
	kv_setu(e, "SLURM_NNODES", nodes);
	kv_set(e, "SLURM_JOB_NODELIST", list);
	kv_set(e, "SLURM_NODELIST", list);
	kv_set(e, "SLURMD_NODENAME", pod_of(j, task));
	kv_setu(e, "SLURM_NODEID", task / k);
	kv_setu(e, "SLURM_PROCID", task);
	kv_setu(e, "SLURM_LOCALID", task % k);
	/* Slurm's "2(x4)": four nodes of two tasks. */
	if (nodes > 1)
		(void)snprintf(tpn, sizeof(tpn), "%" PRIu32 "(x%" PRIu32 ")",
		    k, nodes);
	else
		(void)snprintf(tpn, sizeof(tpn), "%" PRIu32, k);
	kv_set(e, "SLURM_TASKS_PER_NODE", tpn);
	kv_setu(e, "SLURM_CPUS_PER_TASK", j->cpus_per_task);
	/* A whole-node job's pods hold their node between them
	 * (wholenode.c): the node's figures, from the allocations. */
	if (j->whole_node != 0)
		(void)wholenode_on_node(j, task, &cpus, &mem, &gpus);
	kv_setu(e, "SLURM_CPUS_ON_NODE", cpus);
	kv_setu(e, "SLURM_JOB_CPUS_PER_NODE", cpus);
	kv_setu(e, "SLURM_MEM_PER_NODE", mem);
	kv_setu(e, "SLURM_GPUS_ON_NODE", gpus);
	if (j->qos != NULL && j->qos[0] != '\0')
		kv_set(e, "SLURM_JOB_QOS", j->qos);
	kv_setu(e, "SLURM_RESTART_COUNT", j->requeue_count);
	if (j->dep_text != NULL)
		kv_set(e, "SLURM_JOB_DEPENDENCY", j->dep_text);
	free(list);
}

/* SLURM_ARRAY_*: the array's id, this task, and the whole array's set. */
static void
add_array(const struct kai_job *j, struct podenv *e)
{
	struct kai_array a = {NULL, 0, 0};
	struct kai_err err;

	if (j->array_job_id == 0 || j->array_spec == NULL ||
	    kai_array_parse(j->array_spec, &a, &err) != 0)
		return;
	kv_setu(e, "SLURM_ARRAY_JOB_ID", j->array_job_id);
	kv_setu(e, "SLURM_ARRAY_TASK_ID", j->array_task_id);
	kv_setu(e, "SLURM_ARRAY_TASK_COUNT", kai_array_count(&a));
	kv_setu(e, "SLURM_ARRAY_TASK_MIN", kai_array_min(&a));
	kv_setu(e, "SLURM_ARRAY_TASK_MAX", kai_array_max(&a));
	kv_setu(e, "SLURM_ARRAY_TASK_STEP", kai_array_step(&a));
	kai_array_fini(&a);
}

/* What torchrun, Lightning and DeepSpeed read to find each other. */
static void
add_torch(const struct kai_job *j, uint32_t task, struct podenv *e)
{
	kv_set(e, "MASTER_ADDR", pod_of(j, 0));
	kv_set(e, "MASTER_PORT", PODENV_MASTER_PORT);
	kv_setu(e, "RANK", task);
	kv_setu(e, "WORLD_SIZE", j->ntasks);
	kv_setu(e, "NODE_RANK", task);
	kv_setu(e, "LOCAL_RANK", 0);
	kv_setu(e, "LOCAL_WORLD_SIZE", 1);
}

/*
 * --signal: the wrapper's timer sends KAI_SIGNAL KAI_SIGNAL_AFTER seconds
 * after the script starts, which is signal_secs before the time limit
 * counted from the same moment (the pod's activeDeadlineSeconds counts
 * from a little earlier: see ksubmit(1)).  No limit, no signal.
 */
static void
add_signal(const struct kai_job *j, const struct kai_jobspec *js,
    struct podenv *e)
{
	int64_t after;

	if (js->signal_number == 0 || j->time_limit_s <= 0)
		return;
	after = j->time_limit_s - (int64_t)js->signal_secs;
	kv_setu(e, "KAI_SIGNAL", js->signal_number);
	kv_setu(e, "KAI_SIGNAL_AFTER", after > 0 ? (uint64_t)after : 0);
	if (js->signal_batch)
		kv_set(e, "KAI_SIGNAL_BATCH", "1");
}

/*
 * The submitter's umask, as sbatch passes it in SLURM_UMASK (four octal
 * digits).  The pod wrapper does not apply it yet; a job that wants it
 * can "umask $SLURM_UMASK".  Not known (an older client): neither.
 */
static void
add_umask(const struct kai_jobspec *js, struct podenv *e)
{
	char mode[8];

	if (js->umask == 0)
		return;
	(void)snprintf(mode, sizeof(mode), "%04" PRIo32, js->umask & 0777u);
	kv_set(e, "SLURM_UMASK", mode);
	kv_set(e, "KAI_UMASK", mode);
}

void
podenv_build(const struct kai_job *j, const struct kai_jobspec *js,
    uint32_t task, struct podenv *e)
{
	char *out, *err;

	KAI_ASSERT(task < j->nallocs);
	add_exported(js, e);
	add_identity(j, js, e);
	out = path_expand(js->stdout_pattern != NULL ? js->stdout_pattern :
	    j->array_job_id != 0 ? "slurm-%A_%a.out" : "slurm-%j.out",
	    js->workdir, j);
	err = js->stderr_pattern != NULL ?
	    path_expand(js->stderr_pattern, js->workdir, j) : kai_xstrdup(out);
	kv_set(e, "KAI_SCRIPT", js->script);
	if (e->helpers != NULL) {
		kv_set(e, "KAI_HELPERS", e->helpers);
	} else {
		kv_set(e, "KAI_SHIM_SCONTROL", podshim_scontrol);
		kv_set(e, "KAI_SHIM_SRUN", podshim_srun);
		kv_set(e, "KAI_SHIM_SIGNAL", podshim_signal);
	}
	kv_set(e, "KAI_WORKDIR", js->workdir);
	kv_set(e, "KAI_STDOUT", out);
	kv_set(e, "KAI_STDERR", err);
	/* "tasks": appended to because several pods may write, which the
	 * wrapper need not do when task 0's pod alone runs the script. */
	if (js->open_mode == KAI_OPEN_APPEND)
		kv_set(e, "KAI_APPEND", "1");
	else if (j->ntasks > 1)
		kv_set(e, "KAI_APPEND", "tasks");
	add_signal(j, js, e);
	add_slurm(j, js, task, e);
	add_umask(js, e);
	add_array(j, e);
	add_torch(j, task, e);
	free(out);
	free(err);
}

void
podenv_jobauth(const struct kaid *k, const struct kai_job *j,
    struct podenv *e)
{
	if (!jobauth_enabled(k))
		return;
	kv_setu(e, "KAI_JOB_ID", j->id);
	kv_set(e, "KAI_JOB_KEY", JOBAUTH_DIR "/" JOBAUTH_KEY);
	if (k->conf->pod_controller != NULL)
		kv_set(e, "KAI_CONTROLLER", k->conf->pod_controller);
}

/*
 * The time limit, counted from the start of the job's run (a RUNNING
 * job's start_time), so that an elastic job's late task ends with the
 * others when the limit is reached (at least a second: 0 means none).
 */
int64_t
podenv_time_left(const struct kai_job *j, int64_t now)
{
	int64_t left;

	if (j->time_limit_s <= 0 || j->state != KAI_JOB_RUNNING ||
	    j->start_time == 0)
		return j->time_limit_s > 0 ? j->time_limit_s : 0;
	left = j->time_limit_s - (now - j->start_time);
	return left > 0 ? left : 1;
}

int64_t
podenv_kill_wait(const struct kaid *k)
{
	int64_t s = (k->conf->kill_wait_ms + 999) / 1000;

	return s > 0 ? s : 1;
}

/*
 * What the wrapper needs to end the job as Slurm does (pod/wrapper.sh):
 * its own alarm at the time limit, counted from the script's start (the
 * pod's activeDeadlineSeconds, which kills at once, is set later than
 * that), and the KillWait between SIGTERM and SIGKILL, which is also the
 * pod's terminationGracePeriodSeconds, the kubelet's own wait after the
 * SIGTERM of a deleted pod.
 */
void
podenv_limits(const struct kaid *k, const struct kai_job *j, int64_t now,
    struct podenv *e)
{
	int64_t left = podenv_time_left(j, now);

	if (left > 0)
		kv_setu(e, "KAI_TIME_LIMIT", (uint64_t)left);
	kv_setu(e, "KAI_KILL_WAIT", (uint64_t)podenv_kill_wait(k));
	kv_set(e, "SLURM_CLUSTER_NAME", k->conf->cluster_name);
}

#define KAI_GPUS_LIST_MAX 256

/*
 * SLURM_JOB_GPUS: the indices of the pod's GPUs.  Whole GPUs are the
 * device plugin's choice and the container numbers them from 0; a share
 * is on the devices the scheduler chose, by their indices on the node
 * (devs, as in NVIDIA_VISIBLE_DEVICES).
 */
static void
add_job_gpus(const struct kai_job *j, const struct kai_alloc *a,
    const char *devs, struct podenv *e)
{
	char list[KAI_GPUS_LIST_MAX];
	size_t n = 0;
	uint32_t i;

	if (a->gpus == 0 && j->gpu_fraction == 0 && j->gpu_memory_mb == 0)
		return;
	list[0] = '\0';
	if (a->gpus == 0)
		(void)snprintf(list, sizeof(list), "%s", devs);
	/* A node has at most 64 GPUs (gpu_mask): 64 * 3 bytes fit. */
	for (i = 0; i < a->gpus && i < 64 && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%" PRIu32,
		    i > 0 ? "," : "", i);
	kv_set(e, "SLURM_JOB_GPUS", list);
}

void
podenv_devices(uint64_t mask, char *buf, size_t size)
{
	size_t n = 0;

	/* No mask (a row from before masks were kept): device 0. */
	if (mask == 0)
		mask = 1;
	buf[0] = '\0';
	for (; mask != 0 && n < size; mask &= mask - 1)
		n += (size_t)snprintf(buf + n, size - n, "%s%d",
		    n > 0 ? "," : "", __builtin_ctzll(mask));
}

/*
 * A part of a GPU, as KAI hands it to a pod: no nvidia.com/gpu request
 * (the device plugin would give the pod a GPU of its own), the devices
 * the scheduler chose in NVIDIA_VISIBLE_DEVICES (their indices, "0,3":
 * kaid has no reservation pod to learn UUIDs from), the share of each in
 * GPU_PORTION and RUNAI_NUM_OF_GPUS (KAI's binder writes the per-device
 * portion to both, also for a share over several devices), and the
 * memory share of each in CUDA_DEVICE_MEMORY_LIMIT for HAMi-core (a
 * per-device limit) when the node says how much memory its GPUs have.  A pod
 * without GPUs gets NVIDIA_VISIBLE_DEVICES=void, so that a node whose
 * default runtime is NVIDIA's exposes no GPU to it.  doc/admin-guide.md
 * says what the nodes need for this to hold.
 */
void
podenv_gpu(const struct kaid *k, const struct kai_job *j,
    const struct kai_alloc *a, struct podenv *env)
{
	const struct kai_node *nd = kai_map_get(&k->nodes, a->node);
	char num[64], devs[KAI_GPUS_LIST_MAX];
	uint64_t mib;

	if (a->gpus > 0) {
		add_job_gpus(j, a, "", env);
		return;	/* whole GPUs: the device plugin chooses */
	}
	if (j->gpu_fraction == 0 && j->gpu_memory_mb == 0) {
		kv_set(env, "NVIDIA_VISIBLE_DEVICES", "void");
		return;
	}
	podenv_devices(a->gpu_mask, devs, sizeof(devs));
	kv_set(env, "NVIDIA_VISIBLE_DEVICES", devs);
	add_job_gpus(j, a, devs, env);
	(void)snprintf(num, sizeof(num), "%.2f",
	    (double)a->gpu_fraction / KAI_GPU_MICRO);
	kv_set(env, "GPU_PORTION", num);
	kv_set(env, "RUNAI_NUM_OF_GPUS", num);
	mib = j->gpu_memory_mb;
	if (mib == 0 && nd != NULL && nd->gpu_mem_mb > 0)
		mib = nd->gpu_mem_mb * a->gpu_fraction / KAI_GPU_MICRO;
	if (mib > 0) {
		(void)snprintf(num, sizeof(num), "%" PRIu64 "m", mib);
		kv_set(env, "CUDA_DEVICE_MEMORY_LIMIT", num);
	}
}
