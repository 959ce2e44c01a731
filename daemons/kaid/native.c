/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native.c: Kubernetes-native workloads (doc/k8s-native.md, issue 13).
 *
 * A pod that another controller made (a Job's, a Deployment's, a
 * PyTorchJob's, a bare pod) and whose spec.schedulerName is one of
 * kaid.yaml's native.schedulers becomes a job of kaid's while it is
 * unbound: user the namespace, name its top owner's, queue, priority,
 * preemptibility and topology from its PodGroup, its top owner, then
 * itself (native_owner.c reads the owners, native_gang.c groups pods).
 *
 * A pod that is a group of its own is a one-task job keyed by the pod
 * ("namespace/name", as kaid keys every foreign pod).  A gang (minMember
 * M >= 2) is one job of M tasks keyed "namespace/Kind:name" (no pod key
 * has a colon): the first pod of the group makes it, the next ones join
 * it (their pod records carry its id and NATIVE_NO_TASK) until it has M;
 * the job waits, "waiting for N of M pods of the group", until then.
 * Once placed, tick.c gives task t the t-th member in name order
 * (native_assign) and dispatch.c binds each task's pod; a pod that comes
 * when its group's job is full or placed is a one-task job of its own,
 * as KAI schedules pods beyond minMember one by one.
 *
 * A gang's job is inserted at once; a one-pod job at the end of the
 * watch burst that showed its pod, with the burst's others in one
 * transaction (native_burst.c).  A unique index on the active jobs'
 * workload (sql/012-workload.sql) keeps one job per pod or group
 * whatever a restart does.  After a restart a placed gang's
 * pods are found by its allocations, a pending gang's members join it
 * again as the watch lists them.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/kaid.h"
#include "daemons/kaid/native.h"
#include "daemons/kaid/podshare.h"
#include "daemons/kaid/queues.h"
#include "daemons/kaid/tick.h"
#include "dispatch.h"
#include "snapshot.h"
#include "sys/log.h"

/* The largest gang kaid takes: each member is a task of one job. */
#define GANG_MAX 4096

bool
native_job(const struct kai_job *j)
{
	return j->workload != NULL && j->workload[0] != '\0';
}

bool
native_gang(const struct kai_job *j)
{
	return native_job(j) && strchr(j->workload, ':') != NULL;
}

struct kai_job *
native_job_of(const struct kaid *k, const char *key, uint32_t *task)
{
	size_t i, t;

	/* Linear: workloads are few beside batch jobs (doc/k8s-native.md). */
	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (!native_job(j))
			continue;
		if (strcmp(j->workload, key) == 0) {
			if (task != NULL)
				*task = 0;
			return j;
		}
		for (t = 0; t < j->nallocs && native_gang(j); t++)
			if (strcmp(j->allocs[t].pod, key) == 0) {
				if (task != NULL)
					*task = (uint32_t)t;
				return j;
			}
	}
	return NULL;
}

void
native_task_size(const struct kaid *k, int64_t cpu_milli, uint64_t mem_mb,
    uint32_t *cpus, uint64_t *mem)
{
	/* kaid's tasks have whole CPUs: a pod's millicores rounded up. */
	*cpus = cpu_milli > 0 ? (uint32_t)((cpu_milli + 999) / 1000) : 1;
	*mem = mem_mb > 0 ? mem_mb : (uint64_t)k->conf->default_mem_mb;
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
class_problem(const char *preempt, const char *cls)
{
	struct kai_err err;
	uint32_t prio;

	if (kai_prio_class(cls, &prio, &err) != 0)
		return kai_xasprintf("priorityClassName \"%s\" is not one of "
		    "%s", cls, kai_prio_class_names());
	if (preempt[0] != '\0' && strcmp(preempt, "preemptible") != 0 &&
	    strcmp(preempt, "non-preemptible") != 0)
		return kai_xasprintf("label kai.scheduler/preemptibility \"%s\" "
		    "is neither preemptible nor non-preemptible", preempt);
	return NULL;
}

/* Why the group cannot be a job, as a sentence; NULL = it can. */
static char *
problem(const struct kaid *k, const struct native_group *g,
    const char *queue, const char *cls)
{
	char *why;

	if ((why = queue_problem(k, queue)) != NULL ||
	    (why = class_problem(g->preempt, cls)) != NULL)
		return why;
	if (g->min > GANG_MAX)
		return kai_xasprintf("gang of %" PRIu32 " pods is more than "
		    "kaid takes in one job (%d)", g->min, GANG_MAX);
	return NULL;
}

/*
 * The job of the pod keyed key, or of its group (g->key) with g->min
 * tasks, built but not recorded: queue, class and share already judged.
 */
static struct native_new *
build(struct kaid *k, const char *key, const struct kai_pod *pod,
    const struct native_group *g, const char *queue, const char *cls,
    const struct kai_gpushare *sh, int64_t now)
{
	const char *wl = g->key != NULL ? g->key : key;
	/* kaid.yaml native.user_label's value, else the namespace. */
	const char *user = pod->user_label != NULL &&
	    pod->user_label[0] != '\0' ? pod->user_label : pod->namespace;
	struct native_new *nn = kai_xcalloc(1, sizeof(*nn));
	struct kai_jobspec *js = &nn->js;
	struct kai_job *j;
	struct kai_err err;
	uint32_t prio = 0;
	uint64_t mem;

	nn->key = kai_xstrdup(key);
	js->name = kai_xstrdup(g->name);
	js->queue = kai_xstrdup(queue);
	js->workload = kai_xstrdup(wl);
	js->ntasks = g->min;
	/* The first member's size; larger members grow it (grow()). */
	native_task_size(k, pod->cpu_milli, pod->mem_mb, &js->cpus_per_task,
	    &mem);
	js->gpus_per_task = pod->gpus;
	js->gpu_fraction = sh->fraction;
	js->gpu_memory_mb = sh->memory_mib;
	js->gpu_devices = sh->num_devices > 1 ? sh->num_devices : 0;
	js->script = kai_xstrdup("");
	js->workdir = kai_xstrdup("/");
	js->priority_class = kai_xstrdup(cls);
	js->topology = g->topo_req[0] != '\0' ? kai_xstrdup(g->topo_req) :
	    NULL;
	js->topology_preferred = g->topo_pref[0] != '\0' ?
	    kai_xstrdup(g->topo_pref) : NULL;
	js->requeue = KAI_TRI_NO;	/* its controller makes a new pod */
	if (kai_prio_class(cls, &prio, &err) != 0)
		prio = 0;	/* problem() said no already: never */
	nn->j = j = kai_xcalloc(1, sizeof(*j));
	j->user = kai_xstrdup(user);
	j->name = kai_xstrdup(js->name);
	j->queue = kai_xstrdup(queue);
	j->account = kai_job_empty;
	j->qos = kai_job_empty;
	j->workdir = kai_xstrdup("/");
	j->state = KAI_JOB_PENDING;
	j->priority = prio;
	j->submit_time = now;
	j->ntasks = js->ntasks;
	j->cpus_per_task = js->cpus_per_task;
	j->mem_mb = mem;
	j->gpus_per_task = js->gpus_per_task;
	j->gpu_fraction = js->gpu_fraction;
	j->gpu_memory_mb = js->gpu_memory_mb;
	j->gpu_devices = js->gpu_devices;
	j->time_limit_s = KAI_TIME_UNLIMITED;
	j->reason = kai_xstrdup("None");
	j->why = kai_xstrdup("");
	j->preemptible = g->preempt[0] != '\0' ?
	    strcmp(g->preempt, "preemptible") == 0 :
	    prio < KAI_PRIO_PREEMPT_BELOW;
	j->requeue = false;	/* its controller makes a new pod */
	j->topology = kai_job_optstr(js->topology);
	j->topology_preferred = kai_job_optstr(js->topology_preferred);
	j->workload = kai_xstrdup(wl);
	if (g->key != NULL && g->tree != NULL)
		j->sgtree = kai_sgtree_dup(g->tree);
	/* The row's strings are the job's: both live as long as nn. */
	nn->nj.spec = js;
	nn->nj.user = j->user;
	nn->nj.queue = j->queue;
	nn->nj.time_limit_s = KAI_TIME_UNLIMITED;
	nn->nj.mem_mb = j->mem_mb;
	nn->nj.priority = prio;
	nn->nj.preemptible = j->preemptible;
	nn->nj.submit_time = now;
	return nn;
}

/*
 * The job of the pod keyed key, or of its group (g->key) with g->min
 * tasks.  A gang's is recorded now and returned: the next members join
 * it, maybe in this same burst.  A pod that is a group of its own waits
 * for the end of the watch burst, recorded with the others of the burst
 * in one transaction (native_burst.c): NULL then, as when it cannot be
 * a job (the reason logged and posted on the pod).
 */
/* The group's queue: its owners', else kaid.yaml's default (maybe NULL). */
static const char *
group_queue(const struct kaid *k, const struct native_group *g)
{
	return g->queue[0] != '\0' ? g->queue :
	    k->conf->native_default_queue;
}

/*
 * Whether the pod keyed key waits for its queue: one that does not exist
 * or is not a leaf may be made so later (an operator applies its Queue
 * after the workload), and the pod is then looked at again at once
 * (native_qwait.c).  Its reason is logged and posted once per sentence.
 */
static bool
queue_waits(struct kaid *k, const char *key, const struct kai_pod *pod,
    const struct native_group *g)
{
	const char *queue = group_queue(k, g);
	char *why;

	/* No queue at all is kaid.yaml's to fix: admit() says so. */
	if (queue == NULL || (why = queue_problem(k, queue)) == NULL) {
		native_qwait_del(k, key);
		return false;
	}
	if (native_qwait_put(k, key, pod, why)) {
		kai_log_info("pod \"%s\" waits: %s", key, why);
		events_post(k, key, KAI_EVENT_WARNING, "FailedScheduling",
		    "%s", why);
	}
	free(why);
	return true;
}

static struct kai_job *
admit(struct kaid *k, const char *key, const struct kai_pod *pod,
    const struct native_group *g, int64_t now)
{
	const char *queue = group_queue(k, g);
	/* KAI's per-kind default classes: a Deployment's pods inference. */
	const char *cls = g->prio_class[0] != '\0' ? g->prio_class :
	    strcmp(g->top_kind, "Deployment") == 0 ? "inference" : "train";
	struct kai_gpushare sh;
	struct native_new *nn;
	char *why;

	if ((why = problem(k, g, queue, cls)) != NULL ||
	    (why = podshare_problem(pod, &sh)) != NULL) {
		/* Said at every change the watch shows of the pod. */
		kai_log_info("pod \"%s\" waits: %s", key, why);
		events_post(k, key, KAI_EVENT_WARNING, "FailedScheduling",
		    "%s", why);
		free(why);
		return NULL;
	}
	nn = build(k, key, pod, g, queue, cls, &sh, now);
	if (g->key == NULL) {
		native_burst_add(k, nn);
		return NULL;
	}
	return native_new_record(k, nn);
}

/* Members of gang job j now: unbound pods that joined it. */
static size_t
nmembers(const struct kaid *k, const struct kai_job *j)
{
	size_t n;

	free(native_members(k, j, &n));
	return n;
}

bool
native_member_waits(const struct kai_job *j, uint32_t task)
{
	return native_gang(j) && task == NATIVE_NO_TASK;
}

bool
native_tree_waits(const struct kaid *k, const struct kai_job *j)
{
	if (j->sgtree == NULL || !native_gang(j))
		return false;
	return nmembers(k, j) > 0;
}

/* Members of gang job j now in KAI subgroup sg. */
static size_t
nmembers_in(const struct kaid *k, const struct kai_job *j, const char *sg)
{
	const char **keys = native_members(k, j, &(size_t){0});
	const struct pod_rec *r;
	size_t i, n = 0;

	for (i = 0; keys[i] != NULL; i++)
		if ((r = kai_map_get(&k->pods, keys[i])) != NULL &&
		    strcmp(r->subgroup, sg) == 0)
			n++;
	free(keys);
	return n;
}

/*
 * A gang's job says per task what its largest member asks (kqueue's
 * figures, the request bounds): a member that asks for more than the
 * job's tasks so far grows them.  The scheduler and the allocations size
 * each task as its own member asks (snap_native_sizes, native_assign).
 * Returns false when the database could not say so (the pod then does
 * not join: it is tried again at its next change).
 */
static bool
grow(struct kaid *k, struct kai_job *j, const struct kai_pod *pod)
{
	uint32_t cpus;
	uint64_t mem;
	struct kai_err err;
	bool applied = false;

	native_task_size(k, pod->cpu_milli, pod->mem_mb, &cpus, &mem);

	if (cpus <= j->cpus_per_task && mem <= j->mem_mb &&
	    pod->gpus <= j->gpus_per_task)
		return true;
	if (kai_db_job_grow(k->db, j->id, cpus, mem, pod->gpus, &applied,
	    &err) != 0) {
		kai_log_warn("job %" PRIu64 ": could not grow its tasks for "
		    "a larger member: %s", j->id, err.msg);
		return false;
	}
	if (!applied)
		return false;	/* not pending in the database: never here */
	if (cpus > j->cpus_per_task)
		j->cpus_per_task = cpus;
	if (mem > j->mem_mb)
		j->mem_mb = mem;
	if (pod->gpus > j->gpus_per_task)
		j->gpus_per_task = pod->gpus;
	kai_log_info("job %" PRIu64 ": its largest member asks %" PRIu32
	    " CPUs, %" PRIu64 " MB, %" PRIu32 " GPUs", j->id,
	    j->cpus_per_task, j->mem_mb, j->gpus_per_task);
	return true;
}

/* Members of tree job j placed in its subgroup sg (its allocations). */
static size_t
placed_in(const struct kaid *k, const struct kai_job *j, const char *sg)
{
	const struct pod_rec *r;
	size_t t, n = 0;

	for (t = 0; t < j->nallocs; t++)
		if ((r = kai_map_get(&k->pods, j->allocs[t].pod)) != NULL &&
		    strcmp(r->subgroup, sg) == 0)
			n++;
	return n;
}

/*
 * Whether a pod of group g joins the group's job j (*n: its unbound
 * members now).  A pending gang takes pods while it has fewer members
 * than its minMember, and than its subgroup's for a pod of a tree.  A
 * started tree takes a pod while the pod's leaf has fewer members,
 * placed or waiting, than its minMember: the members of its waiting
 * subgroups, after a kaid restart, join it again so (as does a pod made
 * again for one of them that was deleted).  Any other pod is alone.
 */
static bool
has_room(const struct kaid *k, const struct kai_job *j,
    const struct native_group *g, size_t *n)
{
	*n = nmembers(k, j);
	if (j->state == KAI_JOB_PENDING)
		return *n < j->ntasks && (g->subgroup == NULL ||
		    nmembers_in(k, j, g->subgroup) < g->sg_min);
	return j->sgtree != NULL && g->subgroup != NULL &&
	    placed_in(k, j, g->subgroup) + nmembers_in(k, j, g->subgroup) <
	    g->sg_min;
}

/*
 * A pod of group g: it joins the group's job while that has room
 * (has_room), else (full, or placed) it is a job of its own.
 */
static struct kai_job *
join(struct kaid *k, const char *key, const struct kai_pod *pod,
    struct native_group *g, int64_t now, uint32_t *task)
{
	struct kai_job *j = native_job_of(k, g->key, NULL);
	size_t n;

	if (g->tree != NULL && (g->subgroup == NULL || g->sg_min == 0)) {
		/* In no leaf of its gang's tree, or in one that needs no
		 * pods: an elastic extra, alone (KAI's too). */
		KAI_FREE(g->key);
		g->min = 1;
		return admit(k, key, pod, g, now);
	}
	/* The tree lives in kaid's memory: after a restart the group's
	 * owners give it again, derived as the first time, to the job
	 * pending or started. */
	if (j != NULL && j->sgtree == NULL && g->tree != NULL) {
		j->sgtree = kai_sgtree_dup(g->tree);
		kai_log_info("job %" PRIu64 ": its subgroup tree read again "
		    "from its group", j->id);
	}
	if (j == NULL)
		j = admit(k, key, pod, g, now);
	else if (!has_room(k, j, g, &n)) {
		/* Beyond minMember, or its subgroup's: alone. */
		KAI_FREE(g->key);
		g->min = 1;
		return admit(k, key, pod, g, now);
	} else if (j->state == KAI_JOB_PENDING && !grow(k, j, pod)) {
		return NULL;
	} else if (j->state == KAI_JOB_PENDING) {
		kai_log_info("pod \"%s\" joins job %" PRIu64 " (%zu of %"
		    PRIu32 " pods of the group)", key, j->id, n + 1,
		    j->ntasks);
		tick_soon(k);
	} else {
		kai_log_info("pod \"%s\" joins started job %" PRIu64 " in "
		    "its waiting subgroup %s", key, j->id, g->subgroup);
		tick_soon(k);
	}
	*task = NATIVE_NO_TASK;
	return j;
}

struct kai_job *
native_pod(struct kaid *k, const char *key, const struct kai_pod *pod,
    int64_t now, uint32_t *task)
{
	struct kai_job *j = native_job_of(k, key, task);
	const struct pod_rec *old;
	struct native_group g;
	char *why = NULL;

	if (j != NULL || pod->managed || pod->scheduler == NULL ||
	    !ours_by_scheduler(k, pod->scheduler))
		return j;
	/* Its job is built and waits for the burst's end (native_burst.c),
	 * which looks at the pod again before recording it. */
	if (native_burst_has(k, key))
		return NULL;
	/* A member that joined its group's pending job stays in it. */
	if ((old = kai_map_get(&k->pods, key)) != NULL && old->managed &&
	    (j = state_job(k, old->job_id)) != NULL && native_gang(j) &&
	    (j->state == KAI_JOB_PENDING || j->sgtree != NULL)) {
		*task = old->task;
		return j;
	}
	if (pod->node[0] != '\0' || pod->deleting ||
	    pod->phase != KAI_POD_PENDING) {
		native_forget(k, key);
		return NULL;
	}
	switch (native_resolve(k, key, pod, now, &g, &why)) {
	case NATIVE_WAIT:
		return NULL;
	case NATIVE_REFUSED:
		native_qwait_del(k, key);
		if (!native_told(k, key, why)) {
			kai_log_info("pod \"%s\" waits: %s", key, why);
			events_post(k, key, KAI_EVENT_WARNING,
			    "FailedScheduling", "%s", why);
		}
		free(why);
		return NULL;
	case NATIVE_READY:
		break;
	}
	if (queue_waits(k, key, pod, &g)) {
		native_group_fini(&g);
		return NULL;
	}
	*task = 0;
	j = g.key != NULL ? join(k, key, pod, &g, now, task) :
	    admit(k, key, pod, &g, now);
	native_group_fini(&g);
	return j;
}

char *
native_gang_wait(const struct kaid *k, const struct kai_job *j)
{
	size_t n;

	if (!native_gang(j) || j->state != KAI_JOB_PENDING ||
	    (n = nmembers(k, j)) >= j->ntasks)
		return NULL;
	return kai_xasprintf("waiting for %zu of %" PRIu32 " pods of the "
	    "group", (size_t)j->ntasks - n, j->ntasks);
}

/*
 * Some reasons change their words every tick ("12 jobs ahead of it",
 * then 11): told each time, a thousand waiting pods would get an Event
 * each a tick.  A new reason code (Resources, Priority, QueueLimit...) is
 * told at once; new words of the same code at most once a minute, the
 * latest words then.  A gang waiting for its pods (PodGroup) is told
 * each new count: those change only as its pods arrive, at most once per
 * member, and say what the user is waiting for.
 */
#define TELL_AGAIN_S 60

bool
native_words_due(const char *code, int64_t told_at, int64_t now)
{
	return strcmp(code, "PodGroup") == 0 || now - told_at >= TELL_AGAIN_S;
}

void
native_tell(struct kaid *k, struct kai_job *j, int64_t now)
{
	const char **keys, *code = j->reason != NULL ? j->reason : "";
	size_t i, n;

	if (!native_job(j) || j->why == NULL || j->why[0] == '\0' ||
	    (j->told_why != NULL && strcmp(j->told_why, j->why) == 0))
		return;
	if (j->told_code != NULL && strcmp(j->told_code, code) == 0 &&
	    !native_words_due(code, j->told_at, now))
		return;
	free(j->told_why);
	free(j->told_code);
	j->told_why = kai_xstrdup(j->why);
	j->told_code = kai_xstrdup(code);
	j->told_at = now;
	if (!native_gang(j)) {
		events_post(k, j->workload, KAI_EVENT_WARNING,
		    "FailedScheduling", "%s", j->why);
		return;
	}
	keys = native_members(k, j, &n);
	for (i = 0; i < n; i++)
		events_post(k, keys[i], KAI_EVENT_WARNING, "FailedScheduling",
		    "%s", j->why);
	free(keys);
}

/*
 * Allocation a asks what its member pod asks, as the scheduler placed it
 * (snap_native_sizes): a PyTorchJob's master of 1 GPU beside workers of
 * 4 holds 1.  A share's devices are the job's, the same for each.
 */
static void
member_size(const struct kaid *k, const struct kai_job *j,
    struct kai_alloc *a)
{
	const struct pod_rec *r = kai_map_get(&k->pods, a->pod);

	if (r == NULL)
		return;	/* never: the snapshot took it from k->pods */
	native_task_size(k, r->cpu_milli, r->mem_mb, &a->cpus, &a->mem_mb);
	if (j->gpu_fraction == 0 && j->gpu_memory_mb == 0)
		a->gpus = r->gpus;
}

void
native_assign(struct kaid *k, const struct kai_job *j, struct kai_alloc *a,
    size_t n)
{
	const char **keys;
	size_t i, nm;

	if (!native_gang(j))
		return;
	/* A tree's tasks are its members already (snapshot.c); a flat
	 * gang's task i is its i-th member, as snap_native_sizes sized
	 * it, all placed at once. */
	if (j->sgtree == NULL) {
		keys = native_members(k, j, &nm);
		/* The snapshot took the job only with all its members. */
		KAI_ASSERT(nm >= n);
		for (i = 0; i < n; i++) {
			free(a[i].pod);
			a[i].pod = kai_xstrdup(keys[i]);
		}
		free(keys);
	}
	for (i = 0; i < n; i++)
		member_size(k, j, &a[i]);
}

void
native_placed(struct kaid *k, const struct kai_job *j)
{
	size_t t;

	for (t = 0; t < j->nallocs && native_gang(j); t++) {
		struct pod_rec *r = kai_map_get(&k->pods, j->allocs[t].pod);

		if (r != NULL && r->job_id == j->id)
			r->task = (uint32_t)t;
	}
}

void
native_ended(struct kaid *k, const struct kai_job *j, bool cancelled)
{
	const char *key;
	void *v;
	size_t it = 0;

	/*
	 * A cancelled workload loses its pods, as KAI evicts; a gang that
	 * ended any other way than all its pods succeeding is below its
	 * minMember and goes whole (KAI's stale gang), so that its
	 * controller makes it again.  Its other pods are only capacity.
	 */
	while (kai_map_next(&k->pods, &it, &key, &v)) {
		struct pod_rec *r = v;

		if (!r->managed || r->job_id != j->id)
			continue;
		r->managed = false;
		if (r->deleting || r->phase == KAI_POD_SUCCEEDED ||
		    r->phase == KAI_POD_FAILED)
			continue;
		if (cancelled) {
			r->deleting = true;
			dispatch_delete_pod(k, key, -1);
		} else if (native_gang(j)) {
			r->deleting = true;
			evict_delete_shed(k, key);	/* with its grace */
		}
	}
}

void
native_forget(struct kaid *k, const char *key)
{
	native_unpark(k, key);
	native_qwait_del(k, key);
}

void
native_sweep(struct kaid *k, int64_t now)
{
	size_t i;

	native_retry_parked(k, now);
	native_qwait_retry(k, now);
	/* Not while pods wait for their owners: they may be members. */
	if (!state_synced(k) || native_busy(k))
		return;
	/* A pending gang whose pods are all gone has nothing to run. */
	for (i = 0; i < state_njobs(k);) {
		struct kai_job *j = state_job_at(k, i);

		if (native_gang(j) && j->state == KAI_JOB_PENDING &&
		    nmembers(k, j) == 0 &&
		    reconcile_finish(k, j, KAI_JOB_CANCELLED,
		    "every pod of the group was deleted", 0, 0, -1, now) == 0)
			continue;	/* removed: same index, next job */
		i++;
	}
}

bool
native_scheduler_ours(const struct kaid *k, const char *scheduler)
{
	return ours_by_scheduler(k, scheduler);
}
