/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * admission.c: the AdmissionReview answer of kaid's mutating webhook
 * (admission.h).
 *
 * The ConfigMap's name must be known at creation, when a controller's pod
 * often has no name yet (generateName): it is the pod's name or
 * generateName, then "-gpu-share-" and twelve hex digits of the review's
 * uid, which the apiserver makes unique per request.  A pod that already
 * has the annotation (the apiserver may call a webhook again, with
 * reinvocationPolicy IfNeeded, or a user copied a pod's manifest) keeps
 * it and gets no second set of env entries: kaid fills whatever
 * ConfigMap the annotation names.
 *
 * The env entries are appended after the container's own, so that they
 * win over a same-named entry the manifest has (the kubelet takes the
 * last); "/env" is added whole when the container has none, since a
 * JSONPatch cannot append to a missing array.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/base64.h"
#include "base/xmalloc.h"
#include "kube/admission.h"
#include "kube/gpushare.h"
#include "kube/kube_int.h"

#define CM_BASE_MAX 200	/* of the pod's name in the ConfigMap's (253) */
#define CM_UID_HEX  12

static struct json_object *
member(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (o != NULL && json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, type))
		return v;
	return NULL;
}

static const char *
member_str(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key, json_type_string);

	return v != NULL ? json_object_get_string(v) : NULL;
}

static char *
to_text(struct json_object *o)
{
	return kai_xstrdup(json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* "<name or generateName>-gpu-share-<uid hex>". */
static char *
configmap_name(struct json_object *meta, const char *uid)
{
	const char *base = member_str(meta, "name");
	char hex[CM_UID_HEX + 1];
	size_t n, h = 0;

	if (base == NULL || base[0] == '\0')
		base = member_str(meta, "generateName");
	if (base == NULL || base[0] == '\0')
		base = "pod";
	n = strnlen(base, CM_BASE_MAX);
	while (n > 0 && (base[n - 1] == '-' || base[n - 1] == '.'))
		n--;
	for (; *uid != '\0' && h < CM_UID_HEX; uid++)
		if ((*uid >= '0' && *uid <= '9') || (*uid >= 'a' && *uid <= 'f'))
			hex[h++] = *uid;
	hex[h] = '\0';
	return kai_xasprintf("%.*s-gpu-share-%s", (int)n, base, hex);
}

static void
add_op(struct json_object *patch, const char *path, struct json_object *val)
{
	struct json_object *op = json_object_new_object();

	json_object_object_add(op, "op", json_object_new_string("add"));
	json_object_object_add(op, "path", json_object_new_string(path));
	json_object_object_add(op, "value", val);
	json_object_array_add(patch, op);
}

static struct json_object *
env_ref(const char *cm, const char *key)
{
	struct json_object *e = json_object_new_object(), *from, *ref;

	ref = json_object_new_object();
	json_object_object_add(ref, "name", json_object_new_string(cm));
	json_object_object_add(ref, "key", json_object_new_string(key));
	from = json_object_new_object();
	json_object_object_add(from, "configMapKeyRef", ref);
	json_object_object_add(e, "name", json_object_new_string(key));
	json_object_object_add(e, "valueFrom", from);
	return e;
}

/* A JSON Pointer reference token (RFC 6901): "~" as "~0", "/" as "~1". */
static char *
pointer_token(const char *key)
{
	char *out = kai_xmalloc(2 * strlen(key) + 1), *o = out;

	for (; *key != '\0'; key++) {
		if (*key == '~' || *key == '/') {
			*o++ = '~';
			*o++ = *key == '~' ? '0' : '1';
		} else {
			*o++ = *key;
		}
	}
	*o = '\0';
	return out;
}

/* The JSONPatch giving the share's container its env; caller owns. */
static char *
share_patch(struct json_object *pod, const struct kai_gpushare *g,
    const char *cm)
{
	struct json_object *patch = json_object_new_array(), *ctr;
	const char *list = g->init ? "initContainers" : "containers";
	char *base, *s;
	size_t i;

	s = pointer_token(KAI_ANN_GPU_CONFIGMAP);
	base = kai_xasprintf("/metadata/annotations/%s", s);
	add_op(patch, base, json_object_new_string(cm));
	free(base);
	free(s);
	ctr = json_object_array_get_idx(member(member(pod, "spec",
	    json_type_object), list, json_type_array), g->container);
	base = kai_xasprintf("/spec/%s/%zu/env", list, g->container);
	if (member(ctr, "env", json_type_array) != NULL) {
		char *path = kai_xasprintf("%s/-", base);

		for (i = 0; i < KAI_GPUSHARE_KEYS_N; i++)
			add_op(patch, path, env_ref(cm, kai_gpushare_keys[i]));
		free(path);
	} else {
		struct json_object *env = json_object_new_array();

		for (i = 0; i < KAI_GPUSHARE_KEYS_N; i++)
			json_object_array_add(env,
			    env_ref(cm, kai_gpushare_keys[i]));
		add_op(patch, base, env);
	}
	free(base);
	s = to_text(patch);
	json_object_put(patch);
	return s;
}

/* Judges the pod; fills resp's allowed / patch / status and out. */
static void
judge_pod(struct json_object *pod, const char *uid,
    kai_admission_ours_fn *ours, void *ctx, struct json_object *resp,
    struct kai_admission *out)
{
	struct json_object *meta = member(pod, "metadata", json_type_object);
	const char *sched = member_str(member(pod, "spec", json_type_object),
	    "schedulerName");
	struct kai_gpushare_ann ann;
	struct kai_gpushare g;
	struct kai_err err;
	char *patch, *b64, *cm;

	if (sched == NULL || !ours(sched, ctx))
		return;
	kai_gpushare_from_json(pod, &ann);
	if (kai_gpushare_parse(&ann, &g, &err) != 0) {
		struct json_object *st = json_object_new_object();

		json_object_object_add(st, "code", json_object_new_int(400));
		json_object_object_add(st, "message",
		    json_object_new_string(err.msg));
		json_object_object_add(resp, "status", st);
		out->allowed = false;
		out->message = kai_xstrdup(err.msg);
	} else if (kai_gpushare_asked(&ann) && ann.configmap == NULL) {
		cm = configmap_name(meta, uid);
		patch = share_patch(pod, &g, cm);
		b64 = kai_base64_encode(patch, strlen(patch));
		json_object_object_add(resp, "patchType",
		    json_object_new_string("JSONPatch"));
		json_object_object_add(resp, "patch",
		    json_object_new_string(b64));
		out->patched = true;
		free(b64);
		free(patch);
		free(cm);
	}
	kai_gpushare_ann_fini(&ann);
}

static char *
pod_label(struct json_object *req, struct json_object *pod)
{
	struct json_object *meta = member(pod, "metadata", json_type_object);
	const char *ns = member_str(req, "namespace");
	const char *name = member_str(meta, "name");
	const char *gen = member_str(meta, "generateName");

	if (name != NULL && name[0] != '\0')
		return kai_xasprintf("%s/%s", ns != NULL ? ns : "", name);
	return kai_xasprintf("%s/%s*", ns != NULL ? ns : "",
	    gen != NULL ? gen : "");
}

int
kai_admission_review(const char *body, size_t len,
    kai_admission_ours_fn *ours, void *ctx, struct kai_admission *out,
    struct kai_err *err)
{
	struct json_object *o, *req, *resp, *review, *kind, *pod;
	const char *uid, *op;
	struct kai_err jerr;

	memset(out, 0, sizeof(*out));
	if ((o = kube_json_parse(body, len, &jerr)) == NULL)
		return kai_err_set(err, KAI_EINVAL, "AdmissionReview: %s",
		    jerr.msg);
	req = member(o, "request", json_type_object);
	uid = member_str(req, "uid");
	if (member_str(o, "apiVersion") == NULL ||
	    strcmp(member_str(o, "apiVersion"), "admission.k8s.io/v1") != 0 ||
	    member_str(o, "kind") == NULL ||
	    strcmp(member_str(o, "kind"), "AdmissionReview") != 0 ||
	    uid == NULL) {
		json_object_put(o);
		return kai_err_set(err, KAI_EINVAL, "not an admission.k8s.io/v1 "
		    "AdmissionReview request with a uid");
	}
	resp = json_object_new_object();
	json_object_object_add(resp, "uid", json_object_new_string(uid));
	out->allowed = true;
	kind = member(req, "kind", json_type_object);
	op = member_str(req, "operation");
	pod = member(req, "object", json_type_object);
	if (kind != NULL && member_str(kind, "kind") != NULL &&
	    strcmp(member_str(kind, "kind"), "Pod") == 0 &&
	    (member_str(kind, "group") == NULL ||
	    member_str(kind, "group")[0] == '\0') && op != NULL &&
	    strcmp(op, "CREATE") == 0 && pod != NULL) {
		out->pod = pod_label(req, pod);
		judge_pod(pod, uid, ours, ctx, resp, out);
	} else {
		out->pod = kai_xstrdup("");
	}
	json_object_object_add(resp, "allowed",
	    json_object_new_boolean(out->allowed));
	review = json_object_new_object();
	json_object_object_add(review, "apiVersion",
	    json_object_new_string("admission.k8s.io/v1"));
	json_object_object_add(review, "kind",
	    json_object_new_string("AdmissionReview"));
	json_object_object_add(review, "response", resp);
	out->response = to_text(review);
	json_object_put(review);
	json_object_put(o);
	return 0;
}

void
kai_admission_fini(struct kai_admission *a)
{
	free(a->response);
	free(a->pod);
	free(a->message);
	memset(a, 0, sizeof(*a));
}
