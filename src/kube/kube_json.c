/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_json.c: Node and Pod JSON from the apiserver into struct kai_node
 * and struct kai_pod, and the Status message of an error reply.
 *
 * Every reply is untrusted input.  A field that is absent takes its
 * documented default (a pod with no status is Pending); a field that is
 * present with the wrong type, a quantity that does not parse or a
 * missing metadata.name is an error naming the object and the field:
 * `pod "kai-42-0": status.containerStatuses[0].state.terminated.exitCode:
 * expected an integer`.  On error the output struct holds no memory.
 *
 * The Pod JSON kaid sends is built in kube_podjson.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "kube/kube_int.h"

#define LABEL_MANAGED "app.kubernetes.io/managed-by"
#define LABEL_JOB     "kaibatch.io/job-id"
#define LABEL_TASK    "kaibatch.io/task-index"
#define LABEL_QUEUE   "kaibatch.io/queue"
#define LABEL_MASK    "kaibatch.io/gpu-mask"
#define LABEL_SHARE   "kaibatch.io/gpu-share"
#define LABEL_GPU     "nvidia.com/gpu.product"
#define LABEL_GPU_MEM "nvidia.com/gpu.memory"
#define RES_GPU       "nvidia.com/gpu"
#define MIB           ((uint64_t)1 << 20)

/* Which object is being read, for error messages. */
struct jctx {
	const char *kind; /* "node", "pod" */
	const char *name; /* metadata.name once known */
	struct kai_err *err;
};

static int
jfail(const struct jctx *c, const char *field, const char *why)
{
	if (c->name != NULL)
		return kai_err_set(c->err, KAI_EKUBE, "%s \"%s\": %s: %s",
		    c->kind, c->name, field, why);
	return kai_err_set(c->err, KAI_EKUBE, "%s: %s: %s", c->kind, field,
	    why);
}

/* o[key] unless o is not an object or the value is absent or null. */
static struct json_object *
jchild(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* o[key] as type t, or NULL when absent; an error for another type. */
static int
jget(const struct jctx *c, struct json_object *o, const char *key, json_type t,
    const char *field, struct json_object **out)
{
	static const char *const names[] = {
	    [json_type_object] = "an object",
	    [json_type_array] = "an array",
	    [json_type_string] = "a string",
	    [json_type_int] = "an integer",
	    [json_type_boolean] = "a boolean",
	};
	char why[32];

	*out = jchild(o, key);
	if (*out == NULL || json_object_is_type(*out, t))
		return 0;
	(void)snprintf(why, sizeof(why), "expected %s", names[t]);
	*out = NULL;
	return jfail(c, field, why);
}

/* A string field; def when absent. */
static int
jstr(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, const char *def, const char **out)
{
	struct json_object *v;
	int r;

	if ((r = jget(c, o, key, json_type_string, field, &v)) != 0)
		return r;
	*out = v != NULL ? json_object_get_string(v) : def;
	return 0;
}

/* A string field, copied over *out ("" when absent); *out kept on error. */
static int
jstrdup(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, char **out)
{
	const char *s;
	int r;

	if ((r = jstr(c, o, key, field, "", &s)) != 0)
		return r;
	free(*out);
	*out = kai_xstrdup(s);
	return 0;
}

struct json_object *
kube_json_parse(const char *s, size_t n, struct kai_err *err)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error e;
	size_t used;

	if (n > INT32_MAX) {
		kai_err_set(err, KAI_EKUBE, "invalid JSON: too large");
		return NULL;
	}
	tok = json_tokener_new_ex(KUBE_JSON_DEPTH);
	o = json_tokener_parse_ex(tok, s, (int)n);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || e != json_tokener_success) {
		json_object_put(o);
		kai_err_set(err, KAI_EKUBE, "invalid JSON: %s",
		    e == json_tokener_continue ? "unexpected end of data"
					       : json_tokener_error_desc(e));
		return NULL;
	}
	for (; used < n; used++) {
		if (s[used] != ' ' && s[used] != '\t' && s[used] != '\r' &&
		    s[used] != '\n') {
			json_object_put(o);
			kai_err_set(err, KAI_EKUBE,
			    "invalid JSON: trailing data at offset %zu", used);
			return NULL;
		}
	}
	return o;
}

const char *
kube_json_rv(struct json_object *o)
{
	struct json_object *v =
	    jchild(jchild(o, "metadata"), "resourceVersion");

	if (v == NULL || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

void
kube_status_message(const char *body, size_t n, char *out, size_t outsz)
{
	struct json_object *o, *m;
	size_t len;

	out[0] = '\0';
	if (n == 0 || outsz == 0)
		return;
	if ((o = kube_json_parse(body, n, NULL)) != NULL) {
		m = jchild(o, "message");
		if (m != NULL && json_object_is_type(m, json_type_string))
			(void)snprintf(out, outsz, "%s",
			    json_object_get_string(m));
		json_object_put(o);
		if (out[0] != '\0')
			return;
	}
	/* Not a Status (a proxy's HTML page, say): its first line. */
	len = strcspn(body, "\r\n");
	if (len > n)
		len = n;
	(void)snprintf(out, outsz, "%.*s", (int)(len < outsz ? len : outsz - 1),
	    body);
}

/* metadata and metadata.name, which every object must have. */
static int
meta_name(struct jctx *c, struct json_object *o, struct json_object **meta,
    char **name)
{
	const char *s;
	int r;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return kai_err_set(c->err, KAI_EKUBE, "%s: not a JSON object",
		    c->kind);
	r = jget(c, o, "metadata", json_type_object, "metadata", meta);
	if (r != 0)
		return r;
	if ((r = jstr(c, *meta, "name", "metadata.name", NULL, &s)) != 0)
		return r;
	if (s == NULL || *s == '\0')
		return jfail(c, "metadata.name", "missing");
	*name = kai_xstrdup(s);
	c->name = *name;
	return 0;
}

/* A label value as a string; NULL when absent. */
static int
label(const struct jctx *c, struct json_object *labels, const char *key,
    const char **out)
{
	return jstr(c, labels, key, "metadata.labels", NULL, out);
}

static int
node_labels(struct jctx *c, struct json_object *meta, struct kai_node *n)
{
	struct json_object_iterator it, end;
	struct json_object *val;
	struct json_object *labels;
	const char *s;
	size_t i = 0;
	int r;

	r = jget(c, meta, "labels", json_type_object, "metadata.labels",
	    &labels);
	if (r != 0 || labels == NULL)
		return r;
	n->labels = kai_xcalloc((size_t)json_object_object_length(labels),
	    sizeof(*n->labels));
	it = json_object_iter_begin(labels);
	end = json_object_iter_end(labels);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		val = json_object_iter_peek_value(&it);
		if (!json_object_is_type(val, json_type_string))
			return jfail(c, "metadata.labels", "expected strings");
		n->labels[i++] =
		    kai_xasprintf("%s=%s", json_object_iter_peek_name(&it),
			json_object_get_string(val));
		n->nlabels = i;
	}
	if ((r = label(c, labels, LABEL_GPU, &s)) != 0)
		return r;
	if (s != NULL) {
		free(n->gpu_product);
		n->gpu_product = kai_xstrdup(s);
	}
	if ((r = label(c, labels, LABEL_GPU_MEM, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT32_MAX, &n->gpu_mem_mb, "label", NULL) != 0)
		return jfail(c, "metadata.labels[\"" LABEL_GPU_MEM "\"]",
		    "not a number of MiB");
	return 0;
}

/* One quantity of a resource map; 0 when absent. */
static int
res_qty(const struct jctx *c, struct json_object *map, const char *key,
    const char *field, bool bytes, int64_t *out)
{
	struct kai_err e;
	const char *s;
	uint64_t b;
	int r;

	*out = 0;
	if ((r = jstr(c, map, key, field, NULL, &s)) != 0 || s == NULL)
		return r;
	if (bytes)
		r = kube_qty_bytes(s, &b, &e);
	else
		r = kube_qty_milli(s, out, &e);
	if (r != 0)
		return jfail(c, field, kai_err_msg(&e));
	if (bytes)
		*out = (int64_t)b;
	return 0;
}

static int
node_status(struct jctx *c, struct json_object *o, struct kai_node *n)
{
	struct json_object *st, *alloc, *conds, *cond;
	const char *type, *status;
	int64_t v;
	size_t i;
	int r;

	if ((r = jget(c, o, "status", json_type_object, "status", &st)) != 0)
		return r;
	r = jget(c, st, "allocatable", json_type_object, "status.allocatable",
	    &alloc);
	if (r == 0 && alloc == NULL)
		r = jget(c, st, "capacity", json_type_object, "status.capacity",
		    &alloc);
	if (r != 0)
		return r;
	if ((r = res_qty(c, alloc, "cpu", "status.allocatable.cpu", false,
		 &n->cpu_milli)) != 0)
		return r;
	if ((r = res_qty(c, alloc, "memory", "status.allocatable.memory", true,
		 &v)) != 0)
		return r;
	n->mem_mb = (uint64_t)v / MIB;
	if ((r = res_qty(c, alloc, RES_GPU,
		 "status.allocatable[\"" RES_GPU "\"]", false, &v)) != 0)
		return r;
	n->gpus = v / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(v / 1000);
	r = jget(c, st, "conditions", json_type_array, "status.conditions",
	    &conds);
	for (i = 0;
	     r == 0 && conds != NULL && i < json_object_array_length(conds);
	     i++) {
		cond = json_object_array_get_idx(conds, i);
		if ((r = jstr(c, cond, "type", "status.conditions.type", "",
			 &type)) != 0 ||
		    (r = jstr(c, cond, "status", "status.conditions.status", "",
			 &status)) != 0)
			break;
		if (strcmp(type, "Ready") == 0)
			n->ready = strcmp(status, "True") == 0;
	}
	return r;
}

/*
 * Every taint as "key=value:Effect" (the scheduler's node pools), and
 * the first that keeps new pods off the node (NoSchedule or NoExecute) as
 * "key:Effect", which kinfo shows as a drained node's reason.
 */
static int
node_taint(const struct jctx *c, struct json_object *spec, struct kai_node *n)
{
	struct json_object *taints, *t;
	const char *key, *value, *effect;
	size_t i;
	int r;

	if (spec == NULL)
		return 0;
	if ((r = jget(c, spec, "taints", json_type_array, "spec.taints",
		 &taints)) != 0 ||
	    taints == NULL)
		return r;
	n->taints = kai_xcalloc(json_object_array_length(taints) + 1,
	    sizeof(*n->taints));
	for (i = 0; i < json_object_array_length(taints); i++) {
		t = json_object_array_get_idx(taints, i);
		if ((r = jstr(c, t, "key", "spec.taints.key", "", &key)) != 0 ||
		    (r = jstr(c, t, "value", "spec.taints.value", "",
			 &value)) != 0 ||
		    (r = jstr(c, t, "effect", "spec.taints.effect", "",
			 &effect)) != 0)
			return r;
		n->taints[n->ntaints++] = kai_xasprintf("%s%s%s:%s", key,
		    *value != '\0' ? "=" : "", value, effect);
		if ((strcmp(effect, "NoSchedule") == 0 ||
		    strcmp(effect, "NoExecute") == 0) && *n->taint == '\0') {
			free(n->taint);
			n->taint = kai_xasprintf("%s:%s", key, effect);
		}
	}
	return 0;
}

int
kube_node_from_json(struct json_object *o, struct kai_node *n,
    struct kai_err *err)
{
	struct jctx c = {"node", NULL, err};
	struct json_object *meta = NULL, *spec = NULL, *v = NULL;
	int r;

	memset(n, 0, sizeof(*n));
	n->gpu_product = kai_xstrdup("");
	n->taint = kai_xstrdup("");
	if ((r = meta_name(&c, o, &meta, &n->name)) != 0 ||
	    (r = node_labels(&c, meta, n)) != 0 ||
	    (r = jget(&c, o, "spec", json_type_object, "spec", &spec)) != 0 ||
	    (r = jget(&c, spec, "unschedulable", json_type_boolean,
		 "spec.unschedulable", &v)) != 0 ||
	    (r = node_taint(&c, spec, n)) != 0 ||
	    (r = node_status(&c, o, n)) != 0) {
		kube_node_fini(n);
		return r;
	}
	n->unschedulable = v != NULL && json_object_get_boolean(v);
	return 0;
}

void
kube_node_fini(struct kai_node *n)
{
	size_t i;

	for (i = 0; i < n->nlabels; i++)
		free(n->labels[i]);
	free(n->labels);
	for (i = 0; i < n->ntaints; i++)
		free(n->taints[i]);
	free(n->taints);
	free(n->name);
	free(n->gpu_product);
	free(n->taint);
	memset(n, 0, sizeof(*n));
}

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

	if ((r = label(c, labels, LABEL_QUEUE, &s)) != 0)
		return r;
	if (s != NULL)
		p->queue = kai_xstrdup(s);
	if ((r = label(c, labels, LABEL_MASK, &s)) != 0)
		return r;
	if (s != NULL && kai_strtou64(s, UINT64_MAX, &v, "label", NULL) == 0)
		p->gpu_mask = v;
	if ((r = label(c, labels, LABEL_SHARE, &s)) != 0)
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

	r = jget(c, meta, "labels", json_type_object, "metadata.labels",
	    &labels);
	if (r != 0 || labels == NULL)
		return r;
	if ((r = label(c, labels, LABEL_MANAGED, &s)) != 0)
		return r;
	p->managed = s != NULL && strcmp(s, "kaid") == 0;
	/* Others' pods may carry anything; only ours must be well-formed. */
	if ((r = label(c, labels, LABEL_JOB, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT64_MAX, &v, "label", NULL) != 0)
		return p->managed
		    ? jfail(c, "metadata.labels[\"" LABEL_JOB "\"]",
			  "not a job id")
		    : 0;
	p->job_id = v;
	if ((r = label(c, labels, LABEL_TASK, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT32_MAX, &v, "label", NULL) != 0)
		return p->managed
		    ? jfail(c, "metadata.labels[\"" LABEL_TASK "\"]",
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
	r = jget(c, ctr, "resources", json_type_object,
	    "spec.containers.resources", &rs);
	if (r == 0)
		r = jget(c, rs, "requests", json_type_object, REQ_FIELD, &req);
	if (r == 0)
		r = jget(c, rs, "limits", json_type_object, LIM_FIELD, &lim);
	if (r != 0)
		return r;
	for (i = 0; i < KAI_NELEM(keys); i++) {
		/* The server defaults a missing request from the limit. */
		if (jchild(req, keys[i]) != NULL)
			r = res_qty(c, req, keys[i], REQ_FIELD, i == 1, dst[i]);
		else
			r = res_qty(c, lim, keys[i], LIM_FIELD, i == 1, dst[i]);
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

	if ((r = jget(c, spec, "containers", json_type_array, "spec.containers",
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
	if ((r = jget(c, spec, "initContainers", json_type_array,
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
	if ((r = jget(c, st, "containerStatuses", json_type_array,
		 "status.containerStatuses", &sts)) != 0 ||
	    sts == NULL || json_object_array_length(sts) == 0)
		return r;
	ctrs = jchild(jchild(o, "spec"), "containers");
	if (ctrs != NULL && json_object_is_type(ctrs, json_type_array))
		(void)jstr(c, json_object_array_get_idx(ctrs, 0), "name",
		    "spec.containers.name", NULL, &want);
	for (i = 0; want != NULL && i < json_object_array_length(sts); i++) {
		one = json_object_array_get_idx(sts, i);
		if (jstr(c, one, "name", "status.containerStatuses.name", "",
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

	if ((r = jstr(c, o, key, path, "", &s)) != 0)
		return r;
	if (s[0] != '\0' && kai_kube_time_parse(s, out) != 0)
		return jfail(c, path, "not an RFC 3339 time");
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
	if ((r = jget(c, cs, "state", json_type_object,
		 "status.containerStatuses.state", &state)) != 0 ||
	    (r = jget(c, state, "terminated", json_type_object,
		 "status.containerStatuses.state.terminated", &term)) != 0 ||
	    (r = jget(c, state, "waiting", json_type_object,
		 "status.containerStatuses.state.waiting", &wait)) != 0 ||
	    (r = jget(c, state, "running", json_type_object,
		 "status.containerStatuses.state.running", &run)) != 0)
		return r;
	if (run != NULL && (r = jtime(c, run, "startedAt",
	    "status.containerStatuses.state.running.startedAt",
	    &p->started_at)) != 0)
		return r;
	if (term != NULL) {
		if ((r = jget(c, term, "exitCode", json_type_int,
			 "status.containerStatuses.state.terminated.exitCode",
			 &code)) != 0)
			return r;
		if (code == NULL)
			return jfail(c,
			    "status.containerStatuses.state."
			    "terminated.exitCode",
			    "missing");
		v = json_object_get_int64(code);
		if (v < INT32_MIN || v > INT32_MAX)
			return jfail(c,
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
		if ((r = jstrdup(c, term, "reason",
			 "status.containerStatuses."
			 "state.terminated.reason",
			 &p->term_reason)) != 0 ||
		    (r = jstrdup(c, term, "message",
			 "status.containerStatuses."
			 "state.terminated.message",
			 &p->term_message)) != 0)
			return r;
	}
	if (wait != NULL) {
		if ((r = jstr(c, wait, "reason",
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

	if ((r = jget(c, o, "status", json_type_object, "status", &st)) != 0)
		return r;
	/* The apiserver writes Pending at create; absent means just that. */
	if ((r = jstr(c, st, "phase", "status.phase", "Pending", &phase)) != 0)
		return r;
	p->phase = pod_phase(phase);
	if ((r = jstrdup(c, st, "reason", "status.reason", &p->reason)) != 0 ||
	    (r = jstrdup(c, st, "message", "status.message", &p->message)) != 0)
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

	if ((r = meta_name(c, o, &meta, &p->name)) != 0 ||
	    (r = jstrdup(c, meta, "namespace", "metadata.namespace",
		 &p->namespace)) != 0 ||
	    (r = jstrdup(c, meta, "uid", "metadata.uid", &p->uid)) != 0 ||
	    (r = jget(c, meta, "deletionTimestamp", json_type_string,
		 "metadata.deletionTimestamp", &v)) != 0)
		return r;
	p->deleting = v != NULL;
	if ((r = pod_labels(c, meta, p)) != 0 ||
	    (r = jget(c, o, "spec", json_type_object, "spec", spec)) != 0)
		return r;
	pod_workload(meta, *spec, p);
	return jstrdup(c, *spec, "nodeName", "spec.nodeName", &p->node);
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
	free(p->kai_queue);
	free(p->prio_class);
	free(p->kai_preempt);
	free(p->user_label);
	kai_gpushare_ann_fini(&p->share);
	memset(p, 0, sizeof(*p));
}

int
kube_node_parse(const char *json, struct kai_node *node, struct kai_err *err)
{
	struct json_object *o;
	int r;

	memset(node, 0, sizeof(*node));
	if ((o = kube_json_parse(json, strlen(json), err)) == NULL)
		return err != NULL ? kai_err_prefix(err, "node") : KAI_EKUBE;
	r = kube_node_from_json(o, node, err);
	json_object_put(o);
	return r;
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
