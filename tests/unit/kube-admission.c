/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-admission: the AdmissionReview answers of kaid's mutating webhook
 * (src/kube/admission.c): the JSONPatch a sharing pod gets, decoded and
 * compared whole; the refusal of a malformed annotation; every other pod
 * and object allowed unchanged; bodies that are no AdmissionReview.
 * Also base64 encoding, which carries the patch.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/base64.h"
#include "base/xmalloc.h"
#include "kube/admission.h"
#include "tap.h"

static bool
ours(const char *scheduler, void *ctx)
{
	(void)ctx;
	return strcmp(scheduler, "kaid") == 0 ||
	    strcmp(scheduler, "kai-scheduler") == 0;
}

/* An AdmissionReview of a pod CREATE in namespace "team". */
static char *
review(const char *meta, const char *spec)
{
	return kai_xasprintf("{\"apiVersion\":\"admission.k8s.io/v1\","
	    "\"kind\":\"AdmissionReview\",\"request\":{"
	    "\"uid\":\"0a1b2c3d-4e5f-6789-abcd-ef0123456789\","
	    "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
	    "\"namespace\":\"team\",\"operation\":\"CREATE\","
	    "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
	    "\"metadata\":{%s},\"spec\":{%s}}}}",
	    meta, spec);
}

static struct json_object *
response_of(const struct kai_admission *a)
{
	struct json_object *o = json_tokener_parse(a->response), *r = NULL;

	if (o != NULL && json_object_object_get_ex(o, "response", &r))
		json_object_get(r);
	json_object_put(o);
	return r;
}

static const char *
str_at(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return "(absent)";
	return json_object_get_string(v);
}

/* Answers body; checks allowed and the decoded patch (NULL = none). */
static void
check(const char *what, char *body, bool allowed, const char *patch)
{
	struct kai_admission a;
	struct kai_err err;
	struct json_object *r;
	char *dec = NULL;
	size_t n;

	if (!is_int(kai_admission_review(body, strlen(body), ours, NULL, &a,
		&err), 0, "%s: answered", what)) {
		diag("%s", err.msg);
		free(body);
		return;
	}
	r = response_of(&a);
	is_str(str_at(r, "uid"), "0a1b2c3d-4e5f-6789-abcd-ef0123456789",
	    "%s: the request's uid", what);
	is_str(str_at(r, "allowed"), allowed ? "true" : "false",
	    "%s: allowed %d", what, allowed);
	ok(a.allowed == allowed, "%s: reported allowed %d", what, allowed);
	if (patch == NULL) {
		is_str(str_at(r, "patch"), "(absent)", "%s: no patch", what);
	} else {
		const char *b = str_at(r, "patch");

		is_str(str_at(r, "patchType"), "JSONPatch", "%s: JSONPatch",
		    what);
		if (kai_base64_decode(b, strlen(b), &dec, &n, &err) != 0)
			diag("%s", err.msg);
		is_str(dec != NULL ? dec : "", patch, "%s: the patch", what);
		ok(a.patched, "%s: reported patched", what);
	}
	free(dec);
	json_object_put(r);
	kai_admission_fini(&a);
	free(body);
}

#define REF(k)                                                                 \
	"{\"name\":\"" k "\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":"   \
	"\"" CM "\",\"key\":\"" k "\"}}}"

static void
test_patches(void)
{
#define CM "web-7d9f-gpu-share-0a1b2c3d4e5f"
	check("generateName pod, container without env",
	    review("\"generateName\":\"web-7d9f-\",\"annotations\":"
		   "{\"gpu-fraction\":\"0.5\"}",
		"\"schedulerName\":\"kai-scheduler\",\"containers\":"
		"[{\"name\":\"main\",\"image\":\"x\"}]"),
	    true,
	    "[{\"op\":\"add\",\"path\":\"/metadata/annotations/"
	    "kaibatch.io~1gpu-share-configmap\",\"value\":\"" CM "\"},"
	    "{\"op\":\"add\",\"path\":\"/spec/containers/0/env\",\"value\":["
	    REF("NVIDIA_VISIBLE_DEVICES") "," REF("GPU_PORTION") ","
	    REF("RUNAI_NUM_OF_GPUS") "]}]");
#undef CM
#define CM "gpu-pod1-gpu-share-0a1b2c3d4e5f"
	check("named init container with env",
	    review("\"name\":\"gpu-pod1\",\"annotations\":"
		   "{\"gpu-memory\":\"2000\",\"gpu-fraction-container-name\":"
		   "\"setup\"}",
		"\"schedulerName\":\"kaid\",\"containers\":[{\"name\":\"m\"}],"
		"\"initContainers\":[{\"name\":\"setup\",\"env\":[{\"name\":"
		"\"A\",\"value\":\"1\"}]}]"),
	    true,
	    "[{\"op\":\"add\",\"path\":\"/metadata/annotations/"
	    "kaibatch.io~1gpu-share-configmap\",\"value\":\"" CM "\"},"
	    "{\"op\":\"add\",\"path\":\"/spec/initContainers/0/env/-\","
	    "\"value\":" REF("NVIDIA_VISIBLE_DEVICES") "},"
	    "{\"op\":\"add\",\"path\":\"/spec/initContainers/0/env/-\","
	    "\"value\":" REF("GPU_PORTION") "},"
	    "{\"op\":\"add\",\"path\":\"/spec/initContainers/0/env/-\","
	    "\"value\":" REF("RUNAI_NUM_OF_GPUS") "}]");
#undef CM
}

static void
test_unchanged(void)
{
	check("another scheduler's pod",
	    review("\"name\":\"p\",\"annotations\":{\"gpu-fraction\":\"2\"}",
		"\"schedulerName\":\"default-scheduler\",\"containers\":"
		"[{\"name\":\"m\"}]"),
	    true, NULL);
	check("no schedulerName: the default scheduler's",
	    review("\"name\":\"p\",\"annotations\":{\"gpu-fraction\":\"0.5\"}",
		"\"containers\":[{\"name\":\"m\"}]"),
	    true, NULL);
	check("kaid's pod without a share",
	    review("\"name\":\"p\"", "\"schedulerName\":\"kaid\","
				     "\"containers\":[{\"name\":\"m\"}]"),
	    true, NULL);
	check("already annotated",
	    review("\"name\":\"p\",\"annotations\":{\"gpu-fraction\":\"0.5\","
		   "\"kaibatch.io/gpu-share-configmap\":\"mine\"}",
		"\"schedulerName\":\"kaid\",\"containers\":[{\"name\":\"m\"}]"),
	    true, NULL);
}

static void
test_refused(void)
{
	struct kai_admission a;
	struct kai_err err;
	struct json_object *r, *st = NULL;
	char *body = review("\"name\":\"p\",\"annotations\":"
			    "{\"gpu-fraction\":\"1.5\"}",
	    "\"schedulerName\":\"kaid\",\"containers\":[{\"name\":\"m\"}]");

	check("fraction 1.5", kai_xstrdup(body), false, NULL);
	if (kai_admission_review(body, strlen(body), ours, NULL, &a, &err) !=
	    0) {
		diag("%s", err.msg);
		free(body);
		return;
	}
	r = response_of(&a);
	if (r != NULL)
		(void)json_object_object_get_ex(r, "status", &st);
	is_str(str_at(st, "message"),
	    "annotation \"gpu-fraction\" \"1.5\": must be above 0 and below 1",
	    "the refusal names the annotation and why");
	is_str(str_at(st, "code"), "400", "with code 400");
	is_str(a.message != NULL ? a.message : "",
	    "annotation \"gpu-fraction\" \"1.5\": must be above 0 and below 1",
	    "reported for the log");
	is_str(a.pod, "team/p", "the pod, for the log");
	json_object_put(r);
	kai_admission_fini(&a);
	free(body);
}

static void
test_not_reviews(void)
{
	static const char *const bad[] = {
	    "", "{", "[]", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
	    "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":"
	    "\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}",
	    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
	    "\"AdmissionReview\",\"request\":{}}",
	};
	struct kai_admission a;
	struct kai_err err;
	size_t i;
	char *body;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(kai_admission_review(bad[i], strlen(bad[i]), ours, NULL,
			   &a, &err),
		    KAI_EINVAL, "refused body %zu: %s", i, err.msg);
	body = kai_xstrdup("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
	    "\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"kind\":{"
	    "\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
	    "\"operation\":\"CREATE\",\"object\":{}}}");
	is_int(kai_admission_review(body, strlen(body), ours, NULL, &a, &err),
	    0, "another kind: answered");
	ok(a.allowed && !a.patched, "another kind: allowed unchanged");
	kai_admission_fini(&a);
	free(body);
}

static void
test_base64(void)
{
	static const char *const v[][2] = {{"", ""}, {"f", "Zg=="},
	    {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
	    {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *s = kai_base64_encode(v[i][0], strlen(v[i][0]));

		is_str(s, v[i][1], "base64 of \"%s\" (RFC 4648)", v[i][0]);
		free(s);
	}
}

int
main(void)
{
	test_patches();
	test_unchanged();
	test_refused();
	test_not_reviews();
	test_base64();
	return done_testing();
}
