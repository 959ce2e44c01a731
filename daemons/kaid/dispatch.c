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
 * container command is a fixed wrapper (pod/wrapper.sh) that writes it to a
 * private file, sets up the output files and runs it.  Nothing a user
 * wrote is ever spliced into a command line.  The environment is
 * podenv.c's.  A multi-task job also gets a headless Service, created
 * before its pods and deleted with them, so its pods resolve each other.
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
#include "dispatch.h"
#include "kaid.h"
#include "podshare.h"
#include "sys/log.h"

/*
 * inflight: a pod kaid must not ensure again yet.  CALL: a create or
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

struct dispatch {
	struct kai_map inflight;	/* pod name -> INFLIGHT_* */
};

void
dispatch_init(struct kaid *k)
{
	k->dispatch = kai_xcalloc(1, sizeof(*k->dispatch));
	kai_map_init(&k->dispatch->inflight, NULL);
}

void
dispatch_free(struct kaid *k)
{
	if (k->dispatch == NULL)
		return;
	kai_map_fini(&k->dispatch->inflight);
	KAI_FREE(k->dispatch);
}

bool
dispatch_inflight(const struct kaid *k, const char *pod)
{
	return kai_map_get(&k->dispatch->inflight, pod) != NULL;
}

struct pod_call {
	struct kaid *k;
	uint64_t job_id;
	char *pod;
	char *node;
};

static void
call_free(struct pod_call *pc)
{
	kai_map_del(&pc->k->dispatch->inflight, pc->pod);
	free(pc->pod);
	free(pc->node);
	free(pc);
}

/*
 * A call about name (a pod, or a job's Service), marked under way in
 * inflight until call_free(); takes name and node (may be NULL).
 */
static struct pod_call *
call_new(struct kaid *k, uint64_t job_id, char *name, char *node)
{
	struct pod_call *pc = kai_xcalloc(1, sizeof(*pc));

	pc->k = k;
	pc->job_id = job_id;
	pc->pod = name;
	pc->node = node;
	kai_map_put(&k->dispatch->inflight, name, INFLIGHT_CALL);
	return pc;
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
	kai_map_put(&pc->k->dispatch->inflight, pc->pod, INFLIGHT_DONE);
	free(pc->pod);
	free(pc->node);
	free(pc);
}

void
dispatch_pod_seen(struct kaid *k, const char *pod, bool bound_or_gone)
{
	if (bound_or_gone &&
	    kai_map_get(&k->dispatch->inflight, pod) == INFLIGHT_DONE)
		kai_map_del(&k->dispatch->inflight, pod);
}

void
dispatch_watch_reset(struct kaid *k)
{
	const char *key;
	void *v;
	size_t i;

	for (i = 0; kai_map_next(&k->dispatch->inflight, &i, &key, &v);)
		if (v == INFLIGHT_DONE)
			kai_map_del(&k->dispatch->inflight, key);
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

	metrics_kube_call(&pc->k->metrics, METRICS_CREATE, code);
	if (code == KAI_EAGAIN) {	/* kaid is stopping */
		call_free(pc);
		return;
	}
	if (code != 0 && code != KAI_EEXIST) {
		/* Free first: failing the job deletes its pods. */
		struct kaid *k = pc->k;
		uint64_t job_id = pc->job_id;
		char *pod = kai_xstrdup(pc->pod);

		call_free(pc);
		podfail_refused(k, job_id, pod, code, err);
		free(pod);
		return;
	}
	podfail_forget(pc->k, pc->pod);
	kai_kube_pod_bind(pc->k->kube, pc->pod, pc->node, on_bound, pc);
}

static void
on_bound(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;

	metrics_kube_call(&pc->k->metrics, METRICS_BIND, code);
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

/*
 * A native pod's GPU-share ConfigMap is there (podshare.c): bind.  Not
 * made: the pod stays unbound and the next tick tries again.
 */
static void
on_share_cm(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;

	if (code != 0 && code != KAI_EEXIST) {
		if (code != KAI_EAGAIN)
			kai_log_warn("job %" PRIu64 ": %s", pc->job_id,
			    kai_err_msg(err));
		call_free(pc);
		return;
	}
	kai_kube_pod_bind(pc->k->kube, pc->pod, pc->node, on_bound, pc);
}

static void
create_pod(struct kaid *k, const struct kai_job *j,
    const struct kai_jobspec *js, const struct kai_alloc *a, int64_t now)
{
	char jobid[32], task[32], mask[32], share[32];
	const char *labels[14];
	const char *inline_cmd[] = {"/bin/sh", "-c", podshim_wrapper, "kai-job"};
	const char *mounted_cmd[] = {"/bin/sh", HELPERS_DIR "/wrapper.sh"};
	struct kai_pod_spec ps;
	struct pod_call *pc;
	struct podenv env = {NULL, 0, NULL};
	struct podextra extra;
	char **cmd, *subdomain = NULL, *search = NULL;
	const char *const *command = inline_cmd;
	size_t i, ncmd, ncommand = KAI_NELEM(inline_cmd), ngroups;
	uint32_t *groups;

	if (k->conf->pod_helpers == KAI_CONF_HELPERS_CONFIGMAP) {
		command = mounted_cmd;
		ncommand = KAI_NELEM(mounted_cmd);
		env.helpers = HELPERS_DIR;
	}

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
	/* What the pod holds, for the snapshot once no allocation does. */
	(void)snprintf(mask, sizeof(mask), "%" PRIu64, a->gpu_mask);
	(void)snprintf(share, sizeof(share), "%" PRIu32, a->gpu_fraction);
	labels[10] = "kaibatch.io/gpu-mask";
	labels[11] = mask;
	labels[12] = "kaibatch.io/gpu-share";
	labels[13] = share;
	podenv_build(j, js, a->task, &env);
	podenv_gpu(k, j, a, &env);
	podenv_limits(k, j, now, &env);
	podenv_jobauth(k, j, &env);
	ncmd = ncommand + js->argc;
	cmd = kai_xcalloc(ncmd, sizeof(*cmd));
	for (i = 0; i < ncommand; i++)
		cmd[i] = podenv_kubelet_escape(command[i]);
	for (i = 0; i < js->argc; i++)
		cmd[ncommand + i] = podenv_kubelet_escape(js->argv[i]);
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
	ps.grace_s = podenv_kill_wait(k);
	/* A backstop: the wrapper ends the job at its limit (podenv.c). */
	ps.active_deadline_s = podenv_time_left(j, now);
	if (ps.active_deadline_s > 0)
		ps.active_deadline_s += ps.grace_s + PODENV_DEADLINE_SLACK_S;
	ps.hostname = a->pod;
	if (j->ntasks > 1) {
		subdomain = podenv_service_name(j->id);
		search = podenv_dns_search(k, j->id);
		ps.subdomain = subdomain;
		ps.dns_search = search;
	}
	podspec_build(k, j, js, groups, ngroups, &ps, &extra);

	pc = call_new(k, j->id, kai_xstrdup(a->pod), kai_xstrdup(a->node));
	kai_kube_pod_create(k->kube, &ps, on_created, pc);
	podspec_fini(&extra);
	free(groups);
	for (i = 0; i < ncmd; i++)
		free(cmd[i]);
	free(cmd);
	free(subdomain);
	free(search);
	podenv_fini(&env);
}

static void
on_service(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;

	if (code != 0 && code != KAI_EEXIST && code != KAI_ENOENT &&
	    code != KAI_EAGAIN)
		kai_log_warn("job %" PRIu64 ": %s", pc->job_id,
		    kai_err_msg(err));
	call_free(pc);
}

/*
 * The headless Service of a multi-task job (create answers 409 when it
 * exists, so a retry after a restart is harmless).  Keyed in inflight by
 * its name, which no pod has.
 */
static void
ensure_service(struct kaid *k, const struct kai_job *j)
{
	char jobid[32], *name = podenv_service_name(j->id);
	struct pod_call *pc;

	if (kai_map_get(&k->dispatch->inflight, name) != NULL) {
		free(name);
		return;
	}
	(void)snprintf(jobid, sizeof(jobid), "%" PRIu64, j->id);
	pc = call_new(k, j->id, name, NULL);
	kai_kube_service_create(k->kube, pc->pod, jobid, on_service, pc);
}

void
dispatch_delete_service(struct kaid *k, uint64_t job_id)
{
	struct pod_call *pc = call_new(k, job_id, podenv_service_name(job_id),
	    NULL);

	kai_kube_service_delete(k->kube, pc->pod, on_service, pc);
}

void
dispatch_ensure_pods(struct kaid *k, struct kai_job *j, int64_t now)
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

		if (kai_map_get(&k->dispatch->inflight, a->pod) != NULL ||
		    podfail_waiting(k, a->pod))
			continue;
		if (r != NULL && r->node[0] != '\0')
			continue;	/* exists and bound */
		if (r != NULL) {
			/* Exists but unbound: only the bind is missing. */
			struct pod_call *pc = call_new(k, j->id,
			    kai_xstrdup(a->pod), kai_xstrdup(a->node));

			if (podshare_wanted(j, r))
				podshare_configmap(k, j, a, r, on_share_cm, pc);
			else
				kai_kube_pod_bind(k->kube, a->pod, a->node,
				    on_bound, pc);
			continue;
		}
		if (native_job(j))
			continue;	/* its controller makes its pods */
		if (!loaded) {
			if (j->ntasks > 1)
				ensure_service(k, j);
			if (jobauth_enabled(k))
				jobauth_secret_create(k, j);
			if (kai_db_job_spec(k->db, j->id, &js, &err) != 0) {
				kai_log_err("job %" PRIu64 ": could not load "
				    "its script: %s", j->id, err.msg);
				return;
			}
			loaded = true;
		}
		create_pod(k, j, &js, a, now);
	}
	kai_jobspec_fini(&js);
}

/*
 * A pod kaid asked to delete is marked deleting until the watch says
 * otherwise; a refused delete clears the mark, so that the tick asks
 * again (evict_retry_deletes()) instead of leaving the pod, and what it
 * holds, behind.
 */
static void
on_deleted(int code, const struct kai_err *err, void *ctx)
{
	struct pod_call *pc = ctx;
	struct pod_rec *r;

	if (code != 0 && code != KAI_ENOENT) {
		kai_log_warn("could not delete pod \"%s\": %s", pc->pod,
		    kai_err_msg(err));
		if ((r = kai_map_get(&pc->k->pods, pc->pod)) != NULL)
			r->deleting = false;
	}
	free(pc->pod);
	free(pc);
}

void
dispatch_delete_pod(struct kaid *k, const char *pod, int64_t grace_s)
{
	struct pod_call *pc = kai_xcalloc(1, sizeof(*pc));
	struct pod_rec *r;

	if ((r = kai_map_get(&k->pods, pod)) != NULL)
		r->deleting = true;
	podfail_forget(k, pod);
	pc->k = k;
	pc->pod = kai_xstrdup(pod);
	kai_kube_pod_delete(k->kube, pod, grace_s, on_deleted, pc);
}

/* An eviction's pod: the condition first, then the delete. */
struct evict_call {
	struct kaid *k;
	char *pod;
	int64_t grace_s;
};

/*
 * The condition is a courtesy, the delete is the decision: it follows
 * whatever the patch got, but for KAI_EAGAIN (a timeout, or kaid
 * stopping, when no new call may start), after which the pod is left to
 * evict_retry_deletes() and, after a restart, to reconcile.c.
 */
static void
on_disrupted(int code, const struct kai_err *err, void *ctx)
{
	struct evict_call *ec = ctx;
	struct pod_rec *r;

	if (code == KAI_EAGAIN) {
		kai_log_warn("%s; deleting it later", kai_err_msg(err));
		if ((r = kai_map_get(&ec->k->pods, ec->pod)) != NULL)
			r->deleting = false;
	} else {
		if (code != 0 && code != KAI_ENOENT)
			kai_log_warn("%s", kai_err_msg(err));
		dispatch_delete_pod(ec->k, ec->pod, ec->grace_s);
	}
	free(ec->pod);
	free(ec);
}

void
dispatch_evict_pod(struct kaid *k, const char *pod, int64_t grace_s,
    const char *why, int64_t now)
{
	struct evict_call *ec = kai_xcalloc(1, sizeof(*ec));
	struct pod_rec *r;

	if ((r = kai_map_get(&k->pods, pod)) != NULL)
		r->deleting = true;
	ec->k = k;
	ec->pod = kai_xstrdup(pod);
	ec->grace_s = grace_s;
	kai_kube_pod_disrupt(k->kube, pod, "PreemptionByScheduler", why, now,
	    on_disrupted, ec);
}

void
dispatch_delete_pods(struct kaid *k, const struct kai_job *j, int64_t grace_s)
{
	size_t t;

	for (t = 0; t < j->nallocs; t++)
		dispatch_delete_pod(k, j->allocs[t].pod, grace_s);
	if (j->ntasks > 1)
		dispatch_delete_service(k, j->id);
	if (jobauth_enabled(k))
		jobauth_secret_delete(k, j->id);
}
