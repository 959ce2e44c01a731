/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dispatch.c: turning a placed job into pods, and deleting pods.
 *
 * The placement is already committed when this runs, so every step here
 * may be repeated safely: pod names are derived from the job, a create
 * answered 409 means the pod exists (we adopt it), and a bind answered
 * 409 means it is already bound.  dispatch_ensure_pods() is called on
 * placement and again on every tick for jobs still CONFIGURING, which is
 * how a kaid killed between commit and create finishes the job's pods
 * after restart, exactly once.
 *
 * The batch script travels as data in the KAI_SCRIPT variable; the
 * container command is a fixed wrapper that writes it to a private file,
 * sets up the output files and runs it.  Nothing a user wrote is ever
 * spliced into a command line.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

/*
 * The wrapper: $1.. are the script's arguments.  Output files are opened
 * the way sbatch opens them (truncate; one file for both streams unless
 * -e was given).  The exit status is the script's.
 */
static const char wrapper[] =
    "umask 077\n"
    "f=$(mktemp \"${TMPDIR:-/tmp}/kai-job.XXXXXX\") || exit 1\n"
    "printf '%s' \"$KAI_SCRIPT\" >\"$f\" && chmod 700 \"$f\" || exit 1\n"
    "unset KAI_SCRIPT\n"
    "umask 022\n"
    "cd \"$KAI_WORKDIR\" || { echo \"kaibatch: cannot chdir to $KAI_WORKDIR\" >&2; exit 1; }\n"
    "if [ \"$KAI_STDOUT\" = \"$KAI_STDERR\" ]; then\n"
    "  \"$f\" \"$@\" >\"$KAI_STDOUT\" 2>&1\n"
    "else\n"
    "  \"$f\" \"$@\" >\"$KAI_STDOUT\" 2>\"$KAI_STDERR\"\n"
    "fi\n"
    "rc=$?\n"
    "rm -f \"$f\"\n"
    "exit $rc\n";

/*
 * k->inflight: a pod kaid must not ensure again yet.  CALL: a create or
 * bind is under way.  DONE: created and bound, but the pod watch has not
 * shown it bound yet.  Without DONE, a tick between the bind's answer and
 * the watch's event (seconds apart when thousands of pods are dispatched
 * at once) would see no pod, or an unbound one, and create and bind it
 * again: each answered 409, but each a round trip taken from the pods
 * still waiting.  The watch clears DONE (dispatch_pod_seen), and a relist
 * clears them all (dispatch_watch_reset), so a pod lost meanwhile is made
 * again.
 */
#define INFLIGHT_CALL ((void *)1)
#define INFLIGHT_DONE ((void *)2)

struct pod_call {
	struct kaid *k;
	uint64_t job_id;
	char *pod;
	char *node;
};

static void
call_free(struct pod_call *pc)
{
	kai_map_del(&pc->k->inflight, pc->pod);
	free(pc->pod);
	free(pc->node);
	free(pc);
}

/* Created and bound: DONE until the watch shows it (unless it has). */
static void
call_done(struct pod_call *pc)
{
	const struct pod_rec *r = kai_map_get(&pc->k->pods, pc->pod);

	if (r != NULL && r->node[0] != '\0') {
		call_free(pc);
		return;
	}
	kai_map_put(&pc->k->inflight, pc->pod, INFLIGHT_DONE);
	free(pc->pod);
	free(pc->node);
	free(pc);
}

void
dispatch_pod_seen(struct kaid *k, const char *pod, bool bound_or_gone)
{
	if (bound_or_gone && kai_map_get(&k->inflight, pod) == INFLIGHT_DONE)
		kai_map_del(&k->inflight, pod);
}

void
dispatch_watch_reset(struct kaid *k)
{
	const char *key;
	void *v;
	size_t i;

	for (i = 0; kai_map_next(&k->inflight, &i, &key, &v);)
		if (v == INFLIGHT_DONE)
			kai_map_del(&k->inflight, key);
}

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

/*
 * The kubelet expands $(VAR) in a container's command, args and env
 * values, and reads $$ as $.  Doubling every $ makes what kaid sends
 * arrive byte for byte: a script's "echo $$" stays "echo $$".
 */
static char *
kubelet_escape(const char *s)
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

struct kv {
	char **v;	/* name, value, name, value ... */
	size_t n;	/* strings */
};

static void
kv_add(struct kv *kv, const char *name, size_t nlen, const char *value)
{
	kv->v = kai_xreallocarray(kv->v, kv->n + 2, sizeof(*kv->v));
	kv->v[kv->n++] = kai_xstrndup(name, nlen);
	kv->v[kv->n++] = kubelet_escape(value);
}

static void
kv_addf(struct kv *kv, const char *name, const char *value)
{
	kv_add(kv, name, strlen(name), value);
}

static void
kv_free(struct kv *kv)
{
	size_t i;

	for (i = 0; i < kv->n; i++)
		free(kv->v[i]);
	free(kv->v);
}

static char *
path_expand(const char *pattern, const char *workdir, const struct kai_job *j)
{
	char *p = kai_pattern_expand(pattern, j->id, j->name, j->user);
	char *abs;

	if (p[0] == '/')
		return p;
	abs = kai_xasprintf("%s/%s", workdir, p);
	free(p);
	return abs;
}

/* The job's environment: what it exported, then Slurm's variables. */
static void
build_env(const struct kai_job *j, const struct kai_jobspec *js,
    uint32_t task, struct kv *env)
{
	char num[32], *out, *err;
	size_t i;

	for (i = 0; i < js->nenv; i++) {
		const char *eq = strchr(js->env[i], '=');

		if (eq == NULL || !env_name_ok(js->env[i],
		    (size_t)(eq - js->env[i])) ||
		    strncmp(js->env[i], "KAI_", 4) == 0)
			continue;
		kv_add(env, js->env[i], (size_t)(eq - js->env[i]), eq + 1);
	}
	out = path_expand(js->stdout_pattern != NULL ? js->stdout_pattern :
	    "slurm-%j.out", js->workdir, j);
	err = js->stderr_pattern != NULL ?
	    path_expand(js->stderr_pattern, js->workdir, j) : kai_xstrdup(out);
	kv_addf(env, "KAI_SCRIPT", js->script);
	kv_addf(env, "KAI_WORKDIR", js->workdir);
	kv_addf(env, "KAI_STDOUT", out);
	kv_addf(env, "KAI_STDERR", err);
	(void)snprintf(num, sizeof(num), "%" PRIu64, j->id);
	kv_addf(env, "SLURM_JOB_ID", num);
	kv_addf(env, "SLURM_JOBID", num);
	kv_addf(env, "SLURM_JOB_NAME", j->name);
	kv_addf(env, "SLURM_JOB_USER", j->user);
	kv_addf(env, "SLURM_JOB_PARTITION", j->queue);
	kv_addf(env, "SLURM_SUBMIT_DIR", js->workdir);
	(void)snprintf(num, sizeof(num), "%" PRIu32, j->ntasks);
	kv_addf(env, "SLURM_NTASKS", num);
	kv_addf(env, "SLURM_JOB_NUM_NODES", num);
	(void)snprintf(num, sizeof(num), "%" PRIu32, task);
	kv_addf(env, "SLURM_PROCID", num);
	kv_addf(env, "SLURM_NODEID", num);
	kv_addf(env, "SLURM_LOCALID", "0");
	(void)snprintf(num, sizeof(num), "%" PRIu32, j->cpus_per_task);
	kv_addf(env, "SLURM_CPUS_PER_TASK", num);
	(void)snprintf(num, sizeof(num), "%" PRIu32, j->gpus_per_task);
	kv_addf(env, "SLURM_GPUS_ON_NODE", num);
	free(out);
	free(err);
}

/* Supplementary groups of the job's user, as the controller host knows. */
static uint32_t *
user_groups(const struct kai_job *j, size_t *n)
{
	gid_t g[256];
	int ng = (int)KAI_NELEM(g);
	uint32_t *out;
	int i;

	if (getgrouplist(j->user, j->gid, g, &ng) < 0 || ng < 0)
		ng = 0;
	out = kai_xcalloc((size_t)ng + 1, sizeof(*out));
	for (i = 0; i < ng; i++)
		out[i] = g[i];
	*n = (size_t)ng;
	return out;
}

static void on_bound(int code, const struct kai_err *err, void *ctx);

static void
on_created(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;

	if (code != 0 && code != KAI_EEXIST) {
		kai_log_warn("job %" PRIu64 ": could not create pod \"%s\": %s",
		    pc->job_id, pc->pod, kai_err_msg(err));
		call_free(pc);
		return;
	}
	kai_kube_pod_bind(pc->k->kube, pc->pod, pc->node, on_bound, pc);
}

static void
on_bound(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;

	if (code != 0 && code != KAI_EEXIST)
		kai_log_warn("job %" PRIu64 ": could not bind pod \"%s\" to "
		    "node \"%s\": %s", pc->job_id, pc->pod, pc->node,
		    kai_err_msg(err));
	else
		kai_log_debug("job %" PRIu64 ": pod \"%s\" bound to \"%s\"",
		    pc->job_id, pc->pod, pc->node);
	/* 409: bound before (by a kaid since restarted), event posted then. */
	if (code == 0)
		events_scheduled(pc->k, pc->pod, pc->node);
	if (code == 0 || code == KAI_EEXIST)
		call_done(pc);
	else
		call_free(pc);
}

static void
create_pod(struct kaid *k, const struct kai_job *j,
    const struct kai_jobspec *js, const struct kai_alloc *a)
{
	char jobid[32], task[32];
	const char *labels[10];
	const char *command[] = {"/bin/sh", "-c", wrapper, "kai-job"};
	struct kai_pod_spec ps;
	struct pod_call *pc;
	struct kv env = {NULL, 0};
	char **cmd;
	size_t i, ncmd, ngroups;
	uint32_t *groups;

	(void)snprintf(jobid, sizeof(jobid), "%" PRIu64, j->id);
	(void)snprintf(task, sizeof(task), "%" PRIu32, a->task);
	labels[0] = "app.kubernetes.io/managed-by";
	labels[1] = "kaid";
	labels[2] = "kaibatch.io/job-id";
	labels[3] = jobid;
	labels[4] = "kaibatch.io/queue";
	labels[5] = j->queue;
	labels[6] = "kaibatch.io/user";
	labels[7] = j->user;
	labels[8] = "kaibatch.io/task-index";
	labels[9] = task;
	build_env(j, js, a->task, &env);
	ncmd = KAI_NELEM(command) + js->argc;
	cmd = kai_xcalloc(ncmd, sizeof(*cmd));
	for (i = 0; i < KAI_NELEM(command); i++)
		cmd[i] = kubelet_escape(command[i]);
	for (i = 0; i < js->argc; i++)
		cmd[KAI_NELEM(command) + i] = kubelet_escape(js->argv[i]);
	groups = user_groups(j, &ngroups);

	memset(&ps, 0, sizeof(ps));
	ps.name = a->pod;
	ps.label_kv = labels;
	ps.nlabels = KAI_NELEM(labels) / 2;
	ps.image = js->image != NULL ? js->image : k->conf->default_image;
	ps.command = (const char *const *)cmd;
	ps.ncommand = ncmd;
	ps.env_kv = (const char *const *)env.v;
	ps.nenv = env.n / 2;
	ps.run_as_uid = j->uid;
	ps.run_as_gid = j->gid;
	ps.groups = groups;
	ps.ngroups = ngroups;
	ps.run_as_non_root = !k->conf->allow_root_jobs;
	ps.cpu_milli = (int64_t)a->cpus * 1000;
	ps.mem_mb = a->mem_mb;
	ps.gpus = a->gpus;
	ps.active_deadline_s = j->time_limit_s;

	pc = kai_xcalloc(1, sizeof(*pc));
	pc->k = k;
	pc->job_id = j->id;
	pc->pod = kai_xstrdup(a->pod);
	pc->node = kai_xstrdup(a->node);
	kai_map_put(&k->inflight, a->pod, INFLIGHT_CALL);
	kai_kube_pod_create(k->kube, &ps, on_created, pc);
	free(groups);
	for (i = 0; i < ncmd; i++)
		free(cmd[i]);
	free(cmd);
	kv_free(&env);
}

void
dispatch_ensure_pods(struct kaid *k, struct kai_job *j)
{
	struct kai_jobspec js;
	struct kai_err err;
	bool loaded = false;
	size_t t;

	if (!state_synced(k))
		return;
	memset(&js, 0, sizeof(js));
	for (t = 0; t < j->nallocs; t++) {
		const struct kai_alloc *a = &j->allocs[t];
		const struct pod_rec *r = kai_map_get(&k->pods, a->pod);

		if (kai_map_get(&k->inflight, a->pod) != NULL)
			continue;
		if (r != NULL && r->node[0] != '\0')
			continue;	/* exists and bound */
		if (r != NULL) {
			/* Exists but unbound: only the bind is missing. */
			struct pod_call *pc = kai_xcalloc(1, sizeof(*pc));

			pc->k = k;
			pc->job_id = j->id;
			pc->pod = kai_xstrdup(a->pod);
			pc->node = kai_xstrdup(a->node);
			kai_map_put(&k->inflight, a->pod, INFLIGHT_CALL);
			kai_kube_pod_bind(k->kube, a->pod, a->node, on_bound, pc);
			continue;
		}
		if (!loaded) {
			if (kai_db_job_spec(k->db, j->id, &js, &err) != 0) {
				kai_log_err("job %" PRIu64 ": could not load "
				    "its script: %s", j->id, err.msg);
				return;
			}
			loaded = true;
		}
		create_pod(k, j, &js, a);
	}
	kai_jobspec_fini(&js);
}

static void
on_deleted(int code, const struct kai_err *err, void *ctx)
{
	char *pod = ctx;

	if (code != 0 && code != KAI_ENOENT)
		kai_log_warn("could not delete pod \"%s\": %s", pod,
		    kai_err_msg(err));
	free(pod);
}

void
dispatch_delete_pod(struct kaid *k, const char *pod, int64_t grace_s)
{
	kai_kube_pod_delete(k->kube, pod, grace_s, on_deleted,
	    kai_xstrdup(pod));
}

void
dispatch_delete_pods(struct kaid *k, const struct kai_job *j, int64_t grace_s)
{
	size_t t;

	for (t = 0; t < j->nallocs; t++)
		dispatch_delete_pod(k, j->allocs[t].pod, grace_s);
}
