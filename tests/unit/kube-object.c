/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-object: the parts of the GET of any object (kube_object.c) that
 * need no server: the URL path of each kind native.c reads, and the path
 * accessors over owners as the API server sends them (a JobSet, a
 * PyTorchJob, a PodGroup), present, absent and of the wrong type.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "tap.h"

static void
path_is(const char *api, const char *kind, const char *want)
{
	char *p = kai_kube_object_path(api, kind, "team a", "x");

	is_str(p, want, "%s %s is read at %s", api, kind, want);
	free(p);
}

static void
test_paths(void)
{
	path_is("apps/v1", "Deployment",
	    "/apis/apps/v1/namespaces/team%20a/deployments/x");
	path_is("batch/v1", "Job", "/apis/batch/v1/namespaces/team%20a/jobs/x");
	path_is("v1", "Pod", "/api/v1/namespaces/team%20a/pods/x");
	path_is("scheduling.run.ai/v2alpha2", "PodGroup",
	    "/apis/scheduling.run.ai/v2alpha2/namespaces/team%20a/podgroups/x");
	path_is("kubeflow.org/v1", "PyTorchJob",
	    "/apis/kubeflow.org/v1/namespaces/team%20a/pytorchjobs/x");
}

static const char jobset[] =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","
    "\"metadata\":{\"name\":\"js\",\"uid\":\"u-1\","
    "\"labels\":{\"kai.scheduler/queue\":\"gpu\"},"
    "\"annotations\":{\"kai.scheduler/topology-required-placement\":"
    "\"rack\"},"
    "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"X\","
    "\"name\":\"top\",\"uid\":\"u-0\"}]},"
    "\"spec\":{\"replicatedJobs\":["
    "{\"name\":\"driver\",\"replicas\":1},"
    "{\"name\":\"workers\",\"replicas\":2,"
    "\"template\":{\"spec\":{\"parallelism\":3}}}]}}";

static const char pytorch[] =
    "{\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"pt\"},"
    "\"spec\":{\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1},"
    "\"Worker\":{\"replicas\":3}}}}";

static void
test_access(void)
{
	struct kai_kube_obj *o;
	struct kai_err err;
	int64_t v = -1;

	o = kube_obj_parse(jobset, &err);
	ok(o != NULL, "a JobSet parses");
	is_str(kai_kube_obj_str(o, "metadata.uid"), "u-1", "metadata.uid");
	is_str(kai_kube_obj_str(o, "metadata.ownerReferences.0.name"), "top",
	    "the first owner reference's name, through an array index");
	ok(kai_kube_obj_str(o, "metadata.ownerReferences.1.name") == NULL,
	    "an index past the array's end is absent");
	ok(kai_kube_obj_str(o, "spec.replicatedJobs.x") == NULL,
	    "a key into an array is absent");
	is_int((int64_t)kai_kube_obj_len(o, "spec.replicatedJobs"), 2,
	    "two replicated jobs");
	ok(kai_kube_obj_int(o, "spec.replicatedJobs.1.replicas", &v) == 0 &&
	    v == 2, "the second's replicas");
	ok(kai_kube_obj_int(o,
	    "spec.replicatedJobs.1.template.spec.parallelism", &v) == 0 &&
	    v == 3, "its parallelism");
	ok(kai_kube_obj_int(o,
	    "spec.replicatedJobs.0.template.spec.parallelism", &v) ==
	    KAI_ENOENT, "an absent parallelism is KAI_ENOENT");
	ok(kai_kube_obj_int(o, "metadata.name", &v) == KAI_ENOENT,
	    "a string is no integer");
	ok(kai_kube_obj_str(o, "spec.replicatedJobs.1.replicas") == NULL,
	    "an integer is no string");
	is_str(kai_kube_obj_label(o, "kai.scheduler/queue"), "gpu",
	    "a label whose key has dots");
	is_str(kai_kube_obj_annotation(o,
	    "kai.scheduler/topology-required-placement"), "rack",
	    "an annotation");
	ok(kai_kube_obj_label(o, "nope") == NULL, "an absent label");
	kube_obj_free(o);

	o = kube_obj_parse(pytorch, &err);
	is_int((int64_t)kai_kube_obj_len(o, "spec.pytorchReplicaSpecs"), 2,
	    "a PyTorchJob's two replica specs");
	is_str(kai_kube_obj_key(o, "spec.pytorchReplicaSpecs", 1), "Worker",
	    "the second key of an object");
	ok(kai_kube_obj_key(o, "spec.pytorchReplicaSpecs", 2) == NULL,
	    "no third key");
	ok(kai_kube_obj_annotation(o, "x") == NULL,
	    "an object without annotations has none");
	kube_obj_free(o);

	ok(kube_obj_parse("{\"a\":", &err) == NULL,
	    "invalid JSON is refused (%s)", err.msg);
}

int
main(void)
{
	test_paths();
	test_access();
	return done_testing();
}
