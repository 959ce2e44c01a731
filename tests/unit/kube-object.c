/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-object: the parts of the GET of any object (kube_object.c) that
 * need no server: the URL path of each kind native.c reads, and the path
 * accessors over owners as the API server sends them (a JobSet, a
 * PyTorchJob, a PodGroup), present, absent and of the wrong type; and
 * the owner and group fields of a pod that native.c reads.
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

/* What a foreign pod tells native.c about its owner and group. */
static void
test_pod_owner(void)
{
	struct kai_pod p;
	struct kai_err err;

	memset(&p, 0, sizeof(p));
	is_int(kube_pod_parse("{\"metadata\":{\"name\":\"w-0\","
	    "\"namespace\":\"t\",\"uid\":\"p-1\","
	    "\"annotations\":{\"pod-group-name\":\"pg4\"},"
	    "\"labels\":{\"leaderworkerset.sigs.k8s.io/group-index\":\"3\"},"
	    "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
	    "\"kind\":\"StatefulSet\",\"name\":\"w\",\"uid\":\"s-1\"},"
	    "{\"apiVersion\":\"v1\",\"kind\":\"X\",\"name\":\"x\","
	    "\"uid\":\"x-1\"}]},"
	    "\"spec\":{\"schedulerName\":\"kai-scheduler\"},"
	    "\"status\":{\"phase\":\"Pending\"}}", &p, &err), 0,
	    "a pod with owners and a PodGroup parses");
	is_str(p.owner_api, "apps/v1", "its first owner's apiVersion");
	is_str(p.owner_kind, "StatefulSet", "kind");
	is_str(p.owner_uid, "s-1", "and uid");
	is_str(p.pod_group, "pg4", "the pod-group-name annotation");
	is_str(p.lws_group, "3", "the LWS group index label");
	kube_pod_fini(&p);
	memset(&p, 0, sizeof(p));
	is_int(kube_pod_parse("{\"metadata\":{\"name\":\"b\","
	    "\"namespace\":\"t\",\"uid\":\"p-2\"},\"spec\":{},"
	    "\"status\":{\"phase\":\"Pending\"}}", &p, &err), 0,
	    "a bare pod parses");
	ok(strcmp(p.owner_uid, "") == 0 && strcmp(p.pod_group, "") == 0 &&
	    strcmp(p.owner_api, "") == 0, "with no owner and no group: \"\"");
	kube_pod_fini(&p);
}

int
main(void)
{
	test_paths();
	test_access();
	test_pod_owner();
	return done_testing();
}
