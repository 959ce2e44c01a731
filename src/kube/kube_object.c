/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_object.c: GET of any namespaced object by apiVersion, kind,
 * namespace and name (a pod's owners: ReplicaSet, Deployment, Job,
 * StatefulSet, JobSet, PyTorchJob, ...; KAI's PodGroups), for
 * doc/k8s-native.md.
 *
 * The object reaches the caller as an opaque struct kai_kube_obj read
 * through a few path accessors, so that json_object stays in src/kube
 * while native.c reads whatever field a kind's gang rule needs.  A path
 * is dot-separated keys, with a decimal index for an array element
 * ("spec.replicatedJobs.0.replicas"); keys with dots (labels,
 * annotations) have their own accessors.  The object is the caller's
 * only for the callback: it is freed when the callback returns.
 *
 * The resource is the kind lower-cased plus "s" (deployments,
 * statefulsets, jobsets, pytorchjobs, podgroups, leaderworkersets,
 * rayclusters): true of every kind native.c reads; the API server
 * answers 404 for a kind that does not follow it, which the caller
 * treats as an owner it cannot read.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

struct obj_call {
	char *what; /* "could not read Deployment \"ns/x\"" */
	kai_kube_obj_fn *fn;
	void *ctx;
	bool finished;
};

static void
call_free(void *p)
{
	struct obj_call *c = p;
	struct kai_err err;

	if (!c->finished) {
		kai_err_set(&err, KAI_EAGAIN, "%s: cancelled", c->what);
		c->finished = true;
		c->fn(KAI_EAGAIN, &err, NULL, c->ctx);
	}
	free(c->what);
	free(c);
}

static void
call_done(struct kube_req *req, void *ctx)
{
	struct obj_call *c = ctx;
	struct kai_kube_obj obj = {NULL};
	struct kai_err err;
	int code;

	kai_err_clear(&err);
	code = kube_req_check(req, &err, "%s", c->what);
	if (code == 0 && (obj.root = kube_json_parse(req->body.data,
	    req->body.len, &err)) == NULL)
		code = kai_err_prefix(&err, "%s", c->what);
	c->finished = true;
	c->fn(code, &err, code == 0 ? &obj : NULL, c->ctx);
	json_object_put(obj.root);
}

char *
kai_kube_object_path(const char *api_version, const char *kind,
    const char *ns, const char *name)
{
	char *res = kai_xasprintf("%ss", kind), *p, *path;
	char *e_ns = ns != NULL ? kube_escape(ns) : NULL;
	char *e_name = kube_escape(name);

	for (p = res; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	/* The core group ("v1") lives under /api, every other under /apis;
	 * a cluster-scoped object (ns NULL) under no namespace. */
	path = kai_xasprintf("/%s/%s%s%s/%s/%s",
	    strchr(api_version, '/') != NULL ? "apis" : "api", api_version,
	    e_ns != NULL ? "/namespaces/" : "", e_ns != NULL ? e_ns : "",
	    res, e_name);
	free(res);
	free(e_ns);
	free(e_name);
	return path;
}

void
kai_kube_object_get(struct kai_kube *kube, const char *api_version,
    const char *kind, const char *ns, const char *name, kai_kube_obj_fn *fn,
    void *ctx)
{
	struct obj_call *c = kai_xcalloc(1, sizeof(*c));
	struct kube_req *req;
	char *path;

	c->what = kai_xasprintf("could not read %s \"%s/%s\"", kind, ns, name);
	c->fn = fn;
	c->ctx = ctx;
	path = kai_kube_object_path(api_version, kind, ns, name);
	req = kube_req_new(kube, "GET", path, NULL, KUBE_REPLY_MAX, call_done,
	    c);
	free(path);
	req->ctx_free = call_free;
	kube_req_start(req, kube->timeout_ms);
}

/* The value at path, or NULL. */
static struct json_object *
at(const struct kai_kube_obj *o, const char *path)
{
	struct json_object *v = o != NULL ? o->root : NULL;
	char seg[128];

	while (v != NULL && path != NULL && *path != '\0') {
		const char *dot = strchr(path, '.');
		size_t len = dot != NULL ? (size_t)(dot - path) : strlen(path);
		char *end;
		unsigned long idx;

		if (len == 0 || len >= sizeof(seg))
			return NULL;
		memcpy(seg, path, len);
		seg[len] = '\0';
		path = dot != NULL ? dot + 1 : NULL;
		if (json_object_is_type(v, json_type_array)) {
			idx = strtoul(seg, &end, 10);
			if (*end != '\0' ||
			    idx >= json_object_array_length(v))
				return NULL;
			v = json_object_array_get_idx(v, idx);
		} else if (!json_object_is_type(v, json_type_object) ||
		    !json_object_object_get_ex(v, seg, &v)) {
			return NULL;
		}
	}
	return v;
}

const char *
kai_kube_obj_str(const struct kai_kube_obj *o, const char *path)
{
	struct json_object *v = at(o, path);

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

int
kai_kube_obj_int(const struct kai_kube_obj *o, const char *path,
    int64_t *out)
{
	struct json_object *v = at(o, path);

	if (v == NULL || !json_object_is_type(v, json_type_int))
		return KAI_ENOENT;
	*out = json_object_get_int64(v);
	return 0;
}

size_t
kai_kube_obj_len(const struct kai_kube_obj *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (v != NULL && json_object_is_type(v, json_type_array))
		return json_object_array_length(v);
	if (v != NULL && json_object_is_type(v, json_type_object))
		return (size_t)json_object_object_length(v);
	return 0;
}

const char *
kai_kube_obj_key(const struct kai_kube_obj *o, const char *path, size_t i)
{
	struct json_object *v = at(o, path);
	struct json_object_iterator it, end;

	if (v == NULL || !json_object_is_type(v, json_type_object))
		return NULL;
	it = json_object_iter_begin(v);
	end = json_object_iter_end(v);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
		if (i-- == 0)
			return json_object_iter_peek_name(&it);
	return NULL;
}

/* metadata.<map>[key] as a string, or NULL. */
static const char *
meta_map(const struct kai_kube_obj *o, const char *map, const char *key)
{
	struct json_object *m = at(o, map), *v;

	if (m == NULL || !json_object_is_type(m, json_type_object) ||
	    !json_object_object_get_ex(m, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

const char *
kai_kube_obj_label(const struct kai_kube_obj *o, const char *key)
{
	return meta_map(o, "metadata.labels", key);
}

const char *
kai_kube_obj_annotation(const struct kai_kube_obj *o, const char *key)
{
	return meta_map(o, "metadata.annotations", key);
}

struct kai_kube_obj *
kube_obj_parse(const char *json, struct kai_err *err)
{
	struct kai_kube_obj *o;
	struct json_object *root;

	if ((root = kube_json_parse(json, strlen(json), err)) == NULL)
		return NULL;
	o = kai_xcalloc(1, sizeof(*o));
	o->root = root;
	return o;
}

void
kube_obj_free(struct kai_kube_obj *o)
{
	if (o == NULL)
		return;
	json_object_put(o->root);
	free(o);
}
