/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_podparse.c: Pod JSON from the apiserver into struct kai_pod: its
 * labels (kaid's own and GPU Feature Discovery's), resources, phase and
 * containers' states, and what a foreign pod says about its workload.
 * Untrusted input, read with kube_jctx.h's checked readers: a field of
 * the wrong type is an error naming the pod and the field; on error the
 * struct holds no memory.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "kube/kube_jctx.h"

static enum kai_pod_phase
pod_phase(const char *s)
{
	static const char *const names[] = {
	    [KAI_POD_PENDING] = "Pending",
	    [KAI_POD_RUNNING] = "Running",
	    [KAI_POD_SUCCEEDED] = "Succeeded",
	    [KAI_POD_FAILED] = "Failed",
	};
	size_t i;

	for (i = 0; i < KAI_NELEM(names); i++)
		if (strcmp(s, names[i]) == 0)
			return (enum kai_pod_phase)i;
	return KAI_POD_UNKNOWN;
}

/*
 * The queue and GPU devices kaid put on its pods, so that a pod whose job
 * no longer accounts for it still says what it holds.  Malformed or
 * missing values count as none: they only refine the scheduler's view.
 */
static int
pod_gpu_labels(const struct jctx *c, struct json_object *labels,
    struct kai_pod *p)
{
	const char *s;
	uint64_t v;
	int r;

	if ((r = kube_label(c, labels, LABEL_QUEUE, &s)) != 0)
		return r;
	if (s != NULL)
		p->queue = kai_xstrdup(s);
	if ((r = kube_label(c, labels, LABEL_MASK, &s)) != 0)
		return r;
	if (s != NULL && kai_strtou64(s, UINT64_MAX, &v, "label", NULL) == 0)
		p->gpu_mask = v;
	if ((r = kube_label(c, labels, LABEL_SHARE, &s)) != 0)
		return r;
	if (s != NULL && kai_strtou64(s, 999999, &v, "label", NULL) == 0)
		p->gpu_share = (uint32_t)v;
	return 0;
}

static int
pod_labels(const struct jctx *c, struct json_object *meta, struct kai_pod *p)
{
	struct json_object *labels;
	uint64_t v;
	const char *s;
	int r;

	r = kube_jget(c, meta, "labels", json_type_object, "metadata.labels",
	    &labels);
	if (r != 0 || labels == NULL)
		return r;
	if ((r = kube_label(c, labels, LABEL_MANAGED, &s)) != 0)
		return r;
	p->managed = s != NULL && strcmp(s, "kaid") == 0;
	/* Others' pods may carry anything; only ours must be well-formed. */
	if ((r = kube_label(c, labels, LABEL_JOB, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT64_MAX, &v, "label", NULL) != 0)
		return p->managed
		    ? kube_jfail(c, "metadata.labels[\"" LABEL_JOB "\"]",
			  "not a job id")
		    : 0;
	p->job_id = v;
	if ((r = kube_label(c, labels, LABEL_TASK, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT32_MAX, &v, "label", NULL) != 0)
		return p->managed
		    ? kube_jfail(c, "metadata.labels[\"" LABEL_TASK "\"]",
			  "not a task index")
		    : 0;
	p->task = (uint32_t)v;
	return pod_gpu_labels(c, labels, p);
}

#define REQ_FIELD "spec.containers.resources.requests"
#define LIM_FIELD "spec.containers.resources.limits"

/* Requests of one container: requests, falling back to limits. */
struct pod_res {
	int64_t cpu; /* milli */
	int64_t mem; /* bytes */
	int64_t gpu; /* milli */
};

static int
container_res(const struct jctx *c, struct json_object *ctr,
    struct pod_res *res)
{
	static const char *const keys[] = {"cpu", "memory", RES_GPU};
	struct json_object *rs, *req, *lim;
	int64_t *dst[3] = {&res->cpu, &res->mem, &res->gpu};
	size_t i;
	int r;

	memset(res, 0, sizeof(*res));
	r = kube_jget(c, ctr, "resources", json_type_object,
	    "spec.containers.resources", &rs);
	if (r == 0)
		r = kube_jget(c, rs, "requests", json_type_object, REQ_FIELD, &req);
	if (r == 0)
		r = kube_jget(c, rs, "limits", json_type_object, LIM_FIELD, &lim);
	if (r != 0)
		return r;
	for (i = 0; i < KAI_NELEM(keys); i++) {
		/* The server defaults a missing request from the limit. */
		if (kube_jchild(req, keys[i]) != NULL)
			r = kube_res_qty(c, req, keys[i], REQ_FIELD, i == 1, dst[i]);
		else
			r = kube_res_qty(c, lim, keys[i], LIM_FIELD, i == 1, dst[i]);
		if (r != 0)
			return r;
	}
	return 0;
}

static int64_t
sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/*
 * What the pod takes from its node: the containers' sum, or the largest
 * init container when that is larger (init containers run one by one).
 */
static int
pod_resources(const struct jctx *c, struct json_object *spec, struct kai_pod *p)
{
	struct json_object *arr;
	struct pod_res sum = {0, 0, 0}, init = {0, 0, 0}, one;
	size_t i;
	int r;

	if ((r = kube_jget(c, spec, "containers", json_type_array, "spec.containers",
		 &arr)) != 0)
		return r;
	for (i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		if ((r = container_res(c, json_object_array_get_idx(arr, i),
			 &one)) != 0)
			return r;
		sum.cpu = sat_add(sum.cpu, one.cpu);
		sum.mem = sat_add(sum.mem, one.mem);
		sum.gpu = sat_add(sum.gpu, one.gpu);
	}
	if ((r = kube_jget(c, spec, "initContainers", json_type_array,
		 "spec.initContainers", &arr)) != 0)
		return r;
	for (i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		if ((r = container_res(c, json_object_array_get_idx(arr, i),
			 &one)) != 0)
			return r;
		init.cpu = one.cpu > init.cpu ? one.cpu : init.cpu;
		init.mem = one.mem > init.mem ? one.mem : init.mem;
		init.gpu = one.gpu > init.gpu ? one.gpu : init.gpu;
	}
	p->cpu_milli = sum.cpu > init.cpu ? sum.cpu : init.cpu;
	sum.mem = sum.mem > init.mem ? sum.mem : init.mem;
	p->mem_mb = ((uint64_t)sum.mem + MIB - 1) / MIB;
	sum.gpu = sum.gpu > init.gpu ? sum.gpu : init.gpu;
	p->gpus = sum.gpu / 1000 > UINT32_MAX
	    ? UINT32_MAX
	    : (uint32_t)((sum.gpu + 999) / 1000);
	return 0;
}

/* Waiting reasons that mean the container will not start by itself. */
static bool
wait_is_error(const char *reason)
{
	static const char *const errors[] = {
	    "CreateContainerConfigError",
	    "CreateContainerError",
	    "ErrImagePull",
	    "ImagePullBackOff",
	    "InvalidImageName",
	    "ErrImageNeverPull",
	    "RunContainerError",
	    "CrashLoopBackOff",
	};
	size_t i;

	for (i = 0; i < KAI_NELEM(errors); i++)
		if (strcmp(reason, errors[i]) == 0)
			return true;
	return false;
}

/* The status of the first container of spec (by name), else the first. */
static int
first_status(const struct jctx *c, struct json_object *o,
    struct json_object *st, struct json_object **out)
{
	struct json_object *ctrs, *sts, *one;
	const char *want = NULL, *name;
	size_t i;
	int r;

	*out = NULL;
	if ((r = kube_jget(c, st, "containerStatuses", json_type_array,
		 "status.containerStatuses", &sts)) != 0 ||
	    sts == NULL || json_object_array_length(sts) == 0)
		return r;
	ctrs = kube_jchild(kube_jchild(o, "spec"), "containers");
	if (ctrs != NULL && json_object_is_type(ctrs, json_type_array))
		(void)kube_jstr(c, json_object_array_get_idx(ctrs, 0), "name",
		    "spec.containers.name", NULL, &want);
	for (i = 0; want != NULL && i < json_object_array_length(sts); i++) {
		one = json_object_array_get_idx(sts, i);
		if (kube_jstr(c, one, "name", "status.containerStatuses.name", "",
			&name) == 0 &&
		    strcmp(name, want) == 0) {
			*out = one;
			return 0;
		}
	}
	*out = json_object_array_get_idx(sts, 0);
	return 0;
}

/* An RFC 3339 time member of o ("" or absent: 0) into *out. */
static int
jtime(const struct jctx *c, struct json_object *o, const char *key,
    const char *path, int64_t *out)
{
	const char *s;
	int r;

	if ((r = kube_jstr(c, o, key, path, "", &s)) != 0)
		return r;
	if (s[0] != '\0' && kai_kube_time_parse(s, out) != 0)
		return kube_jfail(c, path, "not an RFC 3339 time");
	return 0;
}

static int
pod_container(const struct jctx *c, struct json_object *o,
    struct json_object *st, struct kai_pod *p)
{
	struct json_object *cs, *state, *term, *wait, *run, *code;
	const char *s;
	int64_t v;
	int r;

	if ((r = first_status(c, o, st, &cs)) != 0 || cs == NULL)
		return r;
	if ((r = kube_jget(c, cs, "state", json_type_object,
		 "status.containerStatuses.state", &state)) != 0 ||
	    (r = kube_jget(c, state, "terminated", json_type_object,
		 "status.containerStatuses.state.terminated", &term)) != 0 ||
	    (r = kube_jget(c, state, "waiting", json_type_object,
		 "status.containerStatuses.state.waiting", &wait)) != 0 ||
	    (r = kube_jget(c, state, "running", json_type_object,
		 "status.containerStatuses.state.running", &run)) != 0)
		return r;
	if (run != NULL && (r = jtime(c, run, "startedAt",
	    "status.containerStatuses.state.running.startedAt",
	    &p->started_at)) != 0)
		return r;
	if (term != NULL) {
		if ((r = kube_jget(c, term, "exitCode", json_type_int,
			 "status.containerStatuses.state.terminated.exitCode",
			 &code)) != 0)
			return r;
		if (code == NULL)
			return kube_jfail(c,
			    "status.containerStatuses.state."
			    "terminated.exitCode",
			    "missing");
		v = json_object_get_int64(code);
		if (v < INT32_MIN || v > INT32_MAX)
			return kube_jfail(c,
			    "status.containerStatuses.state."
			    "terminated.exitCode",
			    "out of range");
		p->terminated = true;
		p->exit_code = (int32_t)v;
		if ((r = jtime(c, term, "finishedAt",
			 "status.containerStatuses.state.terminated."
			 "finishedAt", &p->finished_at)) != 0 ||
		    (r = jtime(c, term, "startedAt",
			 "status.containerStatuses.state.terminated."
			 "startedAt", &p->started_at)) != 0)
			return r;
		if ((r = kube_jstrdup(c, term, "reason",
			 "status.containerStatuses."
			 "state.terminated.reason",
			 &p->term_reason)) != 0 ||
		    (r = kube_jstrdup(c, term, "message",
			 "status.containerStatuses."
			 "state.terminated.message",
			 &p->term_message)) != 0)
			return r;
	}
	if (wait != NULL) {
		if ((r = kube_jstr(c, wait, "reason",
			 "status.containerStatuses."
			 "state.waiting.reason",
			 "", &s)) != 0)
			return r;
		free(p->wait_reason);
		p->wait_reason = kai_xstrdup(s);
		p->waiting_error = wait_is_error(s);
	}
	return 0;
}

static int
pod_status(const struct jctx *c, struct json_object *o, struct kai_pod *p)
{
	struct json_object *st;
	const char *phase;
	int r;

	if ((r = kube_jget(c, o, "status", json_type_object, "status", &st)) != 0)
		return r;
	/* The apiserver writes Pending at create; absent means just that. */
	if ((r = kube_jstr(c, st, "phase", "status.phase", "Pending", &phase)) != 0)
		return r;
	p->phase = pod_phase(phase);
	if ((r = kube_jstrdup(c, st, "reason", "status.reason", &p->reason)) != 0 ||
	    (r = kube_jstrdup(c, st, "message", "status.message", &p->message)) != 0)
		return r;
	return pod_container(c, o, st, p);
}

/* A string member of o, or "" when it is missing or not a string. */
static char *
lenient_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o != NULL && json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return kai_xstrdup(json_object_get_string(v));
	return kai_xstrdup("");
}

/* The label key's value, or NULL. */
static const char *
label_of(struct json_object *labels, const char *key)
{
	struct json_object *v;

	if (labels != NULL && json_object_object_get_ex(labels, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

/*
 * The pod's subgroup: KAI's label, else the one KAI's pod grouper
 * would route it to by its operator's labels (doc/k8s-native.md,
 * "Subgroups"): a JobSet's "<replicatedJob>-replica-<job-index>", a
 * PyTorchJob's replica type ("master", "worker"), a Ray pod's group
 * ("headgroup" or its worker group), a LeaderWorkerSet's "leader" or
 * "workers"; "" for none.
 */
static char *
pod_subgroup(struct json_object *labels)
{
	const char *v = label_of(labels, "kai.scheduler/subgroup-name"), *x;
	char *s;
	size_t i;

	if (v != NULL)
		return kai_xstrdup(v);
	if ((v = label_of(labels, "jobset.sigs.k8s.io/replicatedjob-name")) !=
		NULL &&
	    (x = label_of(labels, "jobset.sigs.k8s.io/job-index")) != NULL)
		return kai_xasprintf("%s-replica-%s", v, x);
	if ((v = label_of(labels, "training.kubeflow.org/replica-type")) !=
	    NULL) {
		s = kai_xstrdup(v);
		for (i = 0; s[i] != '\0'; i++)
			if (s[i] >= 'A' && s[i] <= 'Z')
				s[i] = (char)(s[i] - 'A' + 'a');
		return s;
	}
	if ((v = label_of(labels, "ray.io/group")) != NULL)
		return kai_xstrdup(v);
	if ((v = label_of(labels, "leaderworkerset.sigs.k8s.io/worker-index")) !=
	    NULL)
		return kai_xstrdup(strcmp(v, "0") == 0 ? "leader" : "workers");
	return kai_xstrdup("");
}

/*
 * What a foreign pod tells about its workload: scheduler, first owner,
 * KAI's queue label, priority class and preemptibility label.  Others'
 * pods may carry anything, so nothing here can refuse a pod.
 */
static void
pod_workload(struct json_object *meta, struct json_object *spec,
    struct kai_pod *p)
{
	struct json_object *refs = NULL, *labels = NULL, *first = NULL;
	struct json_object *notes = NULL;

	p->scheduler = lenient_str(spec, "schedulerName");
	if (json_object_object_get_ex(meta, "ownerReferences", &refs) &&
	    json_object_is_type(refs, json_type_array) &&
	    json_object_array_length(refs) > 0)
		first = json_object_array_get_idx(refs, 0);
	p->owner_kind = lenient_str(first, "kind");
	p->owner_name = lenient_str(first, "name");
	p->owner_api = lenient_str(first, "apiVersion");
	p->owner_uid = lenient_str(first, "uid");
	if (!json_object_object_get_ex(meta, "labels", &labels))
		labels = NULL;
	if (!json_object_object_get_ex(meta, "annotations", &notes))
		notes = NULL;
	p->pod_group = lenient_str(notes, "pod-group-name");
	p->lws_group = lenient_str(labels,
	    "leaderworkerset.sigs.k8s.io/group-index");
	p->subgroup = pod_subgroup(labels);
	p->kai_queue = lenient_str(labels, "kai.scheduler/queue");
	p->prio_class = lenient_str(spec, "priorityClassName");
	p->kai_preempt = lenient_str(labels, "kai.scheduler/preemptibility");
	p->user_label = kai_xstrdup("");
}

void
kube_pod_user_label(struct json_object *o, const char *label,
    struct kai_pod *p)
{
	struct json_object *meta = NULL, *labels = NULL;

	if (o == NULL || !json_object_object_get_ex(o, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "labels", &labels))
		labels = NULL;
	free(p->user_label);
	p->user_label = lenient_str(labels, label);
}

static int
pod_meta(struct jctx *c, struct json_object *o, struct kai_pod *p,
    struct json_object **spec)
{
	struct json_object *meta = NULL, *v = NULL;
	int r;

	if ((r = kube_meta_name(c, o, &meta, &p->name)) != 0 ||
	    (r = kube_jstrdup(c, meta, "namespace", "metadata.namespace",
		 &p->namespace)) != 0 ||
	    (r = kube_jstrdup(c, meta, "uid", "metadata.uid", &p->uid)) != 0 ||
	    (r = kube_jget(c, meta, "deletionTimestamp", json_type_string,
		 "metadata.deletionTimestamp", &v)) != 0)
		return r;
	p->deleting = v != NULL;
	if ((r = pod_labels(c, meta, p)) != 0 ||
	    (r = kube_jget(c, o, "spec", json_type_object, "spec", spec)) != 0)
		return r;
	pod_workload(meta, *spec, p);
	return kube_jstrdup(c, *spec, "nodeName", "spec.nodeName", &p->node);
}

int
kube_pod_from_json(struct json_object *o, struct kai_pod *p,
    struct kai_err *err)
{
	struct jctx c = {"pod", NULL, err};
	struct json_object *spec;
	int r;

	memset(p, 0, sizeof(*p));
	p->term_reason = kai_xstrdup("");
	p->term_message = kai_xstrdup("");
	p->wait_reason = kai_xstrdup("");
	if ((r = pod_meta(&c, o, p, &spec)) != 0 ||
	    (r = pod_resources(&c, spec, p)) != 0 ||
	    (r = pod_status(&c, o, p)) != 0) {
		kube_pod_fini(p);
		return r;
	}
	kai_gpushare_from_json(o, &p->share);
	return 0;
}

void
kube_pod_fini(struct kai_pod *p)
{
	free(p->name);
	free(p->namespace);
	free(p->uid);
	free(p->node);
	free(p->reason);
	free(p->message);
	free(p->term_reason);
	free(p->term_message);
	free(p->wait_reason);
	free(p->queue);
	free(p->scheduler);
	free(p->owner_kind);
	free(p->owner_name);
	free(p->owner_api);
	free(p->owner_uid);
	free(p->pod_group);
	free(p->lws_group);
	free(p->subgroup);
	free(p->kai_queue);
	free(p->prio_class);
	free(p->kai_preempt);
	free(p->user_label);
	kai_gpushare_ann_fini(&p->share);
	memset(p, 0, sizeof(*p));
}

int
kube_pod_parse(const char *json, struct kai_pod *pod, struct kai_err *err)
{
	struct json_object *o;
	int r;

	memset(pod, 0, sizeof(*pod));
	if ((o = kube_json_parse(json, strlen(json), err)) == NULL)
		return err != NULL ? kai_err_prefix(err, "pod") : KAI_EKUBE;
	r = kube_pod_from_json(o, pod, err);
	json_object_put(o);
	return r;
}
