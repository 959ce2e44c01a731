/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native.c: Kubernetes-native workloads (doc/k8s-native.md, issue 13).
 *
 * A pod that another controller made (a Job's, a Deployment's, a bare
 * pod) and whose spec.schedulerName is one of kaid.yaml's
 * native.schedulers becomes a job of kaid's while it is unbound: user the
 * namespace, name its owner's (a ReplicaSet's pod takes the Deployment's
 * name), queue the kai.scheduler/queue label or native.default_queue.
 * The job's one task is the pod itself, keyed "namespace/name" as kaid
 * keys every foreign pod: the tick places it like any job and dispatch.c
 * binds it (a bind answered 409 is already bound, so a kaid killed
 * between the commit and the bind binds it at most once); reconcile.c
 * follows it to its end as it does kaid's own pods.
 *
 * The job is inserted at once, in its own transaction, before anything
 * else happens in the loop; a unique index on the active jobs' workload
 * (sql/012-workload.sql) keeps one job per pod whatever a restart does.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/kaid.h"
#include "daemons/kaid/queues.h"
#include "daemons/kaid/tick.h"
#include "sys/log.h"

bool
native_job(const struct kai_job *j)
{
	return j->workload != NULL && j->workload[0] != '\0';
}

struct kai_job *
native_job_of(const struct kaid *k, const char *key)
{
	size_t i;

	/* Linear: workloads are few beside batch jobs (doc/k8s-native.md). */
	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (native_job(j) && strcmp(j->workload, key) == 0)
			return j;
	}
	return NULL;
}

/* Whether name is in the comma-separated list native.schedulers. */
static bool
ours_by_scheduler(const struct kaid *k, const char *name)
{
	const char *p = k->conf->native_schedulers;
	size_t n = strlen(name);

	while (n > 0 && p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		while (len > 0 && *p == ' ') {
			p++;
			len--;
		}
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p = end != NULL ? end + 1 : NULL;
	}
	return false;
}

/*
 * The workload's name: its owner's, and a ReplicaSet's pod the
 * Deployment's (a ReplicaSet is named "<deployment>-<pod-template-hash>";
 * KAI reads the Deployment itself, kaid the name's convention).
 */
static char *
workload_name(const struct kai_pod *pod)
{
	const char *dash;

	if (pod->owner_name == NULL || pod->owner_name[0] == '\0')
		return kai_xstrdup(pod->name);
	if (strcmp(pod->owner_kind, "ReplicaSet") == 0 &&
	    (dash = strrchr(pod->owner_name, '-')) != NULL &&
	    dash != pod->owner_name)
		return kai_xstrndup(pod->owner_name,
		    (size_t)(dash - pod->owner_name));
	return kai_xstrdup(pod->owner_name);
}

/* Why the pod cannot be a job yet, as a sentence; NULL = it can. */
static char *
queue_problem(const struct kaid *k, const char *queue)
{
	char kids[256];
	long qi;

	if (queue == NULL)
		return kai_xstrdup("no queue: the pod has no kai.scheduler/queue "
		    "label and kaid.yaml sets no native.default_queue");
	if ((qi = queues_find(k, queue)) < 0)
		return kai_xasprintf("queue \"%s\" does not exist", queue);
	if (queues_is_parent(k, qi)) {
		queues_children(k, (size_t)qi, kids, sizeof(kids));
		return kai_xasprintf("queue \"%s\" is not a leaf: label the "
		    "workload with one of its children (%s)", queue, kids);
	}
	return NULL;
}

/*
 * Why a pod's priority class or preemptibility label cannot be used, or
 * NULL: malformed values are refused as the job's reason, never guessed.
 */
static char *
class_problem(const struct kai_pod *pod, const char *cls)
{
	struct kai_err err;
	uint32_t prio;

	if (kai_prio_class(cls, &prio, &err) != 0)
		return kai_xasprintf("priorityClassName \"%s\" is not one of "
		    "%s", cls, kai_prio_class_names());
	if (pod->kai_preempt[0] != '\0' &&
	    strcmp(pod->kai_preempt, "preemptible") != 0 &&
	    strcmp(pod->kai_preempt, "non-preemptible") != 0)
		return kai_xasprintf("label kai.scheduler/preemptibility \"%s\" "
		    "is neither preemptible nor non-preemptible",
		    pod->kai_preempt);
	return NULL;
}

static void
admit(struct kaid *k, const char *key, const struct kai_pod *pod,
    int64_t now)
{
	const char *queue = pod->kai_queue[0] != '\0' ? pod->kai_queue :
	    k->conf->native_default_queue;
	/* KAI's per-kind default classes: a Deployment's pods inference. */
	const char *cls = pod->prio_class[0] != '\0' ? pod->prio_class :
	    strcmp(pod->owner_kind, "ReplicaSet") == 0 ? "inference" : "train";
	struct kai_db_newjob nj;
	struct kai_jobspec js;
	struct kai_job *j;
	struct kai_err err;
	uint64_t id;
	uint32_t prio = 0;
	char *why;

	if ((why = queue_problem(k, queue)) != NULL ||
	    (why = class_problem(pod, cls)) != NULL) {
		/* Said at every change the watch shows of the pod. */
		kai_log_info("pod \"%s\" waits: %s", key, why);
		events_post(k, key, KAI_EVENT_WARNING, "FailedScheduling",
		    "%s", why);
		free(why);
		return;
	}
	memset(&js, 0, sizeof(js));
	memset(&nj, 0, sizeof(nj));
	js.name = workload_name(pod);
	js.queue = kai_xstrdup(queue);
	js.workload = kai_xstrdup(key);
	js.ntasks = 1;
	js.cpus_per_task = pod->cpu_milli > 0 ?
	    (uint32_t)((pod->cpu_milli + 999) / 1000) : 1;
	js.gpus_per_task = pod->gpus;
	js.script = kai_xstrdup("");
	js.workdir = kai_xstrdup("/");
	js.priority_class = kai_xstrdup(cls);
	js.requeue = KAI_TRI_NO;	/* its controller makes a new pod */
	if (kai_prio_class(cls, &prio, &err) != 0)
		prio = 0;	/* class_problem() said no already: never */
	nj.spec = &js;
	nj.user = pod->namespace;
	nj.queue = queue;
	nj.time_limit_s = KAI_TIME_UNLIMITED;
	nj.mem_mb = pod->mem_mb > 0 ? pod->mem_mb :
	    (uint64_t)k->conf->default_mem_mb;
	nj.priority = prio;
	nj.preemptible = pod->kai_preempt[0] != '\0' ?
	    strcmp(pod->kai_preempt, "preemptible") == 0 :
	    prio < KAI_PRIO_PREEMPT_BELOW;
	nj.submit_time = now;
	if (kai_db_jobs_insert(k->db, &nj, 1, &id, &err) != 0) {
		kai_log_err("pod \"%s\": could not record its job: %s", key,
		    err.msg);
		kai_jobspec_fini(&js);
		return;
	}
	j = kai_xcalloc(1, sizeof(*j));
	j->id = id;
	j->user = kai_xstrdup(pod->namespace);
	j->name = kai_xstrdup(js.name);
	j->queue = kai_xstrdup(queue);
	j->account = kai_job_empty;
	j->qos = kai_job_empty;
	j->workdir = kai_xstrdup("/");
	j->state = KAI_JOB_PENDING;
	j->priority = prio;
	j->submit_time = nj.submit_time;
	j->ntasks = 1;
	j->cpus_per_task = js.cpus_per_task;
	j->mem_mb = nj.mem_mb;
	j->gpus_per_task = js.gpus_per_task;
	j->time_limit_s = KAI_TIME_UNLIMITED;
	j->reason = kai_xstrdup("None");
	j->why = kai_xstrdup("");
	j->preemptible = nj.preemptible;
	j->requeue = false;	/* its controller makes a new pod */
	j->topology = kai_job_empty;
	j->topology_preferred = kai_job_empty;
	j->workload = kai_xstrdup(key);
	kai_jobspec_fini(&js);
	kai_log_info("pod \"%s\" is job %" PRIu64 " (user %s, queue %s, "
	    "name %s)", key, id, j->user, j->queue, j->name);
	state_job_add(k, j);
	tick_soon(k);
}

struct kai_job *
native_pod(struct kaid *k, const char *key, const struct kai_pod *pod,
    int64_t now)
{
	struct kai_job *j = native_job_of(k, key);

	if (j != NULL || pod->managed || pod->scheduler == NULL ||
	    !ours_by_scheduler(k, pod->scheduler))
		return j;
	if (pod->node[0] != '\0' || pod->deleting ||
	    pod->phase != KAI_POD_PENDING)
		return NULL;
	admit(k, key, pod, now);
	return native_job_of(k, key);
}
