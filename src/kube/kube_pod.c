/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_pod.c: the writes kaid makes: create a pod, bind it to a node,
 * delete it; and the headless Service of a multi-task job.
 *
 * Each is one request whose outcome is mapped at this edge: the success
 * status the apiserver gives (201 for create and bind, 200 or 202 for
 * delete), 409 as KAI_EEXIST (the pod exists, or is already bound: pod
 * names are deterministic, so kaid adopts rather than retries), 404 as
 * KAI_ENOENT, 403 as KAI_EPERM, 400, 413 and 422 (the request itself is
 * wrong) as KAI_EINVAL, and the rest as KAI_EKUBE, each with the
 * server's Status message: `could not create pod "kai-42-0": HTTP 422:
 * ...`.  kai_kube_pending() counts these calls (not the watches, which
 * never end), sent or waiting for one of the KUBE_CALLS_MAX slots.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

struct kube_call {
	struct kai_kube *kube;
	char *what; /* "could not create pod \"x\"" */
	const char *method;
	char *path; /* until sent */
	char *body;
	kai_kube_done_fn *fn;
	void *ctx;
	enum kai_kube_verb verb;
	bool done;  /* fn has run */
	struct kube_call *next;
};

/*
 * Every call's callback runs exactly once (libuv's rule): a call still in
 * flight or waiting when the client is freed is answered here, with
 * KAI_EAGAIN, so that the caller can release its ctx.
 */
static void
call_free(void *p)
{
	struct kube_call *c = p;
	struct kai_err err;

	if (!c->done) {
		kai_err_set(&err, KAI_EAGAIN, "%s: cancelled", c->what);
		c->fn(KAI_EAGAIN, &err, c->ctx);
	}
	free(c->what);
	free(c->path);
	free(c->body);
	free(c);
}

static void call_pump(struct kai_kube *kube);

static void
call_done(struct kube_req *req, void *ctx)
{
	struct kube_call *c = ctx;
	struct kai_kube *kube = c->kube;
	struct kai_err err;
	int code;

	kai_err_clear(&err);
	code = kube_req_check(req, &err, "%s", c->what);
	/*
	 * The answers kaid adopts (409 on writes, 404 on delete, either for
	 * a Service) are no error.
	 */
	if (code != 0 && code != (c->verb == KAI_KUBE_DELETE ? KAI_ENOENT :
	    KAI_EEXIST) && !(c->verb == KAI_KUBE_SERVICE && code == KAI_ENOENT))
		kube->nerrors[c->verb]++;
	kube->ncalls--;
	kube->nactive--;
	c->done = true;
	c->fn(code, &err, c->ctx);
	call_pump(kube);
	kube_event_pump(kube);	/* events may have waited for the calls */
}

static void
call_send(struct kube_call *c)
{
	struct kai_kube *kube = c->kube;
	struct kube_req *req;

	req = kube_req_new(kube, c->method, c->path, c->body, KUBE_REPLY_MAX,
	    call_done, c);
	c->body = NULL;	/* the request owns it now */
	free(c->path);
	c->path = NULL;
	req->ctx_free = call_free;
	kube->nactive++;
	kube_req_start(req, kube->timeout_ms);
}

static void
queue_init(struct kai_kube *kube)
{
	if (kube->callq_tail[0] == NULL) {
		kube->callq_tail[0] = &kube->callq[0];
		kube->callq_tail[1] = &kube->callq[1];
	}
}

/*
 * Sends waiting calls while fewer than KUBE_CALLS_MAX are out: binds and
 * deletes before creates, so that a pod created is bound before the next
 * thousand creates, and a cancel is not stuck behind a burst of them.
 */
static void
call_pump(struct kai_kube *kube)
{
	struct kube_call *c;
	int q;

	queue_init(kube);
	while (kube->nactive < KUBE_CALLS_MAX) {
		q = kube->callq[0] != NULL ? 0 : 1;
		if ((c = kube->callq[q]) == NULL)
			return;
		kube->callq[q] = c->next;
		if (kube->callq[q] == NULL)
			kube->callq_tail[q] = &kube->callq[q];
		c->next = NULL;
		call_send(c);
	}
}

/*
 * Takes ownership of what, path and body.  A real kube-apiserver answers
 * 429 beyond --max-mutating-requests-inflight (200 by default): the
 * calls are sent KUBE_CALLS_MAX at a time, the rest wait here in order.
 */
static void
call_start(struct kai_kube *kube, enum kai_kube_verb verb, char *what,
    const char *method, char *path, char *body, kai_kube_done_fn *fn,
    void *ctx)
{
	struct kube_call *c = kai_xcalloc(1, sizeof(*c));
	int q = strcmp(method, "POST") == 0 && strstr(path, "/binding") ==
	    NULL ? 1 : 0;

	c->kube = kube;
	c->verb = verb;
	c->what = what;
	c->method = method;
	c->path = path;
	c->body = body;
	c->fn = fn;
	c->ctx = ctx;
	kube->ncalls++;
	queue_init(kube);
	*kube->callq_tail[q] = c;
	kube->callq_tail[q] = &c->next;
	call_pump(kube);
}

void
kube_calls_fini(struct kai_kube *kube)
{
	struct kube_call *c;
	int q;

	queue_init(kube);
	for (q = 0; q < 2; q++) {
		while ((c = kube->callq[q]) != NULL) {
			kube->callq[q] = c->next;
			kube->ncalls--;
			call_free(c);
		}
		kube->callq_tail[q] = &kube->callq[q];
	}
}

/*
 * "/api/v1/namespaces/NS/KIND[/NAME]" with NS and NAME escaped; caller
 * owns.
 */
/*
 * A name "ns/name" (a pod of another namespace, as kaid keys the
 * Kubernetes-native workloads it schedules) is looked up in ns: a
 * Kubernetes name never holds a '/'.
 */
static char *
ns_path(const struct kai_kube *kube, const char *kind, const char *name)
{
	const char *slash = name != NULL ? strchr(name, '/') : NULL;
	char *ns, *n, *p;

	if (slash != NULL) {
		char *own = kai_xstrndup(name, (size_t)(slash - name));

		ns = kube_escape(own);
		free(own);
		name = slash + 1;
	} else {
		ns = kube_escape(kube->ns);
	}
	if (name == NULL) {
		p = kai_xasprintf("/api/v1/namespaces/%s/%s", ns, kind);
	} else {
		n = kube_escape(name);
		p = kai_xasprintf("/api/v1/namespaces/%s/%s/%s", ns, kind, n);
		free(n);
	}
	free(ns);
	return p;
}

static char *
pods_path(const struct kai_kube *kube, const char *name)
{
	return ns_path(kube, "pods", name);
}

void
kai_kube_pod_create(struct kai_kube *kube, const struct kai_pod_spec *spec,
    kai_kube_done_fn *fn, void *ctx)
{
	call_start(kube, KAI_KUBE_CREATE,
	    kai_xasprintf("could not create pod \"%s\"", spec->name), "POST",
	    pods_path(kube, NULL), kai_kube_pod_json(spec, kube->ns), fn, ctx);
}

void
kai_kube_pod_bind(struct kai_kube *kube, const char *pod, const char *node,
    kai_kube_done_fn *fn, void *ctx)
{
	struct json_object *b = json_object_new_object(), *m, *t;
	char *base = pods_path(kube, pod), *body, *what;

	json_object_object_add(b, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(b, "kind", json_object_new_string("Binding"));
	m = json_object_new_object();
	json_object_object_add(m, "name", json_object_new_string(
	    strchr(pod, '/') != NULL ? strchr(pod, '/') + 1 : pod));
	json_object_object_add(b, "metadata", m);
	t = json_object_new_object();
	json_object_object_add(t, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(t, "kind", json_object_new_string("Node"));
	json_object_object_add(t, "name", json_object_new_string(node));
	json_object_object_add(b, "target", t);
	body = kai_xstrdup(json_object_to_json_string_ext(b,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(b);
	what = kai_xasprintf("could not bind pod \"%s\" to node \"%s\"", pod,
	    node);
	call_start(kube, KAI_KUBE_BIND, what, "POST",
	    kai_xasprintf("%s/binding", base), body, fn, ctx);
	free(base);
}

void
kai_kube_pod_disrupt(struct kai_kube *kube, const char *pod,
    const char *reason, const char *message, int64_t now,
    kai_kube_done_fn *fn, void *ctx)
{
	struct json_object *b = json_object_new_object(), *st, *conds, *c;
	char *base = pods_path(kube, pod), *body, when[32];
	struct tm tm;
	time_t t = (time_t)now;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		when[0] = '\0';
	c = json_object_new_object();
	json_object_object_add(c, "type",
	    json_object_new_string("DisruptionTarget"));
	json_object_object_add(c, "status", json_object_new_string("True"));
	json_object_object_add(c, "reason", json_object_new_string(reason));
	json_object_object_add(c, "message", json_object_new_string(message));
	if (when[0] != '\0')
		json_object_object_add(c, "lastTransitionTime",
		    json_object_new_string(when));
	conds = json_object_new_array();
	json_object_array_add(conds, c);
	st = json_object_new_object();
	json_object_object_add(st, "conditions", conds);
	json_object_object_add(b, "status", st);
	body = kai_xstrdup(json_object_to_json_string_ext(b,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(b);
	call_start(kube, KAI_KUBE_STATUS,
	    kai_xasprintf("could not mark pod \"%s\" for eviction", pod),
	    "PATCH", kai_xasprintf("%s/status", base), body, fn, ctx);
	free(base);
}

void
kai_kube_pod_delete(struct kai_kube *kube, const char *pod, int64_t grace_s,
    kai_kube_done_fn *fn, void *ctx)
{
	char *base = pods_path(kube, pod), *path;

	if (grace_s >= 0)
		path = kai_xasprintf("%s?gracePeriodSeconds=%" PRId64, base,
		    grace_s);
	else
		path = kai_xstrdup(base);
	free(base);
	call_start(kube, KAI_KUBE_DELETE,
	    kai_xasprintf("could not delete pod \"%s\"", pod), "DELETE", path,
	    NULL, fn, ctx);
}

void
kai_kube_service_create(struct kai_kube *kube, const char *name,
    const char *job_id, kai_kube_done_fn *fn, void *ctx)
{
	call_start(kube, KAI_KUBE_SERVICE,
	    kai_xasprintf("could not create service \"%s\"", name), "POST",
	    ns_path(kube, "services", NULL),
	    kai_kube_service_json(name, job_id, kube->ns), fn, ctx);
}

void
kai_kube_configmap_create(struct kai_kube *kube, const char *name,
    const char *const *kv, size_t n, kai_kube_done_fn *fn, void *ctx)
{
	call_start(kube, KAI_KUBE_CONFIGMAP,
	    kai_xasprintf("could not create configmap \"%s\"", name), "POST",
	    ns_path(kube, "configmaps", NULL),
	    kai_kube_configmap_json(name, kv, n, kube->ns), fn, ctx);
}

void
kai_kube_service_delete(struct kai_kube *kube, const char *name,
    kai_kube_done_fn *fn, void *ctx)
{
	call_start(kube, KAI_KUBE_SERVICE,
	    kai_xasprintf("could not delete service \"%s\"", name), "DELETE",
	    ns_path(kube, "services", name), NULL, fn, ctx);
}
