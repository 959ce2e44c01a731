/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-object: the parts of the GET of any object (kube_object.c) that
 * need no server: the URL path of each kind native.c reads, and the path
 * accessors over owners as the API server sends them (a JobSet, a
 * PyTorchJob, a PodGroup), present, absent and of the wrong type; and
 * the owner and group fields of a pod that native.c reads.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
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
	char *p;

	path_is("apps/v1", "Deployment",
	    "/apis/apps/v1/namespaces/team%20a/deployments/x");
	path_is("batch/v1", "Job", "/apis/batch/v1/namespaces/team%20a/jobs/x");
	path_is("v1", "Pod", "/api/v1/namespaces/team%20a/pods/x");
	path_is("scheduling.run.ai/v2alpha2", "PodGroup",
	    "/apis/scheduling.run.ai/v2alpha2/namespaces/team%20a/podgroups/x");
	path_is("kubeflow.org/v1", "PyTorchJob",
	    "/apis/kubeflow.org/v1/namespaces/team%20a/pytorchjobs/x");
	p = kai_kube_object_path("scheduling.run.ai/v2", "Queue", NULL, "q");
	is_str(p, "/apis/scheduling.run.ai/v2/queues/q",
	    "a cluster-scoped Queue has no namespace in its path");
	free(p);
}

/* The status kaid writes on KAI's PodGroups and Queues. */
static void
test_kai_status(void)
{
	struct kai_kube_kai_status st = {
	    .requested = {4000, 256, 1500000},
	    .allocated = {1000, 64, 500000},
	    .reason = "Resources", .message = "needs 4 CPUs",
	    .now = INT64_C(1800000000), .transition = 3};
	static const char qprefix[] =
	    "{\"status\":{\"requested\":{\"cpu\":\"4000m\"";
	char *j = kai_kube_kai_status_json(&st, true), *k1, *k2;

	ok(strstr(j, "\"resourcesStatus\":{\"requested\":{\"cpu\":\"4000m\","
	    "\"memory\":\"256Mi\",\"nvidia.com/gpu\":\"1.5\"},"
	    "\"allocated\":{\"cpu\":\"1000m\",\"memory\":\"64Mi\","
	    "\"nvidia.com/gpu\":\"0.5\"},\"allocatedNonPreemptible\":"
	    "{\"cpu\":\"0m\",\"memory\":\"0Mi\",\"nvidia.com/gpu\":\"0\"}}")
	    != NULL, "a PodGroup's lists, zeros written too (%s)", j);
	ok(strstr(j, "\"schedulingConditions\":[{\"type\":"
	    "\"UnschedulableOnNodePool\",\"nodePool\":\"default\","
	    "\"status\":\"True\",\"reason\":\"Unschedulable\",\"message\":"
	    "\"needs 4 CPUs\",\"reasons\":[{\"reason\":\"Resources\","
	    "\"message\":\"needs 4 CPUs\"}]") != NULL,
	    "while it waits, the condition with the reason code in reasons, "
	    "KAI's one word Unschedulable beside them");
	ok(strstr(j, "\"transitionID\":\"3\",\"lastTransitionTime\":"
	    "\"2027-01-15T08:00:00Z\"") != NULL, "and its change's number and time");
	free(j);
	st.since = INT64_C(1800000000) - 3600;
	j = kai_kube_kai_status_json(&st, true);
	ok(strstr(j, "\"lastTransitionTime\":\"2027-01-15T07:00:00Z\"") !=
	    NULL, "an older condition keeps its time (%s)", j);
	free(j);
	st.reason = NULL;
	j = kai_kube_kai_status_json(&st, true);
	ok(strstr(j, "\"schedulingConditions\":null") != NULL,
	    "placed: the conditions removed (%s)", j);
	free(j);
	j = kai_kube_kai_status_json(&st, false);
	ok(strncmp(j, qprefix, strlen(qprefix)) == 0 &&
	    strstr(j, "resourcesStatus") == NULL &&
	    strstr(j, "schedulingConditions") == NULL &&
	    strstr(j, "\"childQueues\":null") != NULL,
	    "a Queue's lists are the status's own, no children: null (%s)", j);
	free(j);
	k1 = kai_kube_kai_status_key(&st);
	{
		static const char *const kids[] = {"a-1", "b"};

		st.children = kids;
		st.nchildren = 2;
		j = kai_kube_kai_status_json(&st, false);
		ok(strstr(j, "\"childQueues\":[\"a-1\",\"b\"]") != NULL,
		    "a parent's childQueues (%s)", j);
		free(j);
		k2 = kai_kube_kai_status_key(&st);
		ok(strcmp(k1, k2) != 0, "a new child is a change");
		free(k2);
		st.children = NULL;
		st.nchildren = 0;
	}
	st.message = "other words";
	st.now++;
	k2 = kai_kube_kai_status_key(&st);
	is_str(k1, k2, "new words or time alone are no change");
	free(k2);
	st.reason = "Priority";
	k2 = kai_kube_kai_status_key(&st);
	ok(strcmp(k1, k2) != 0, "a new reason code is one");
	free(k1);
	free(k2);
}

/* The condition a PodGroup's object shows, read back after a restart. */
static void
test_pg_cond(void)
{
	struct kai_kube_pg_cond c;
	struct kai_err err;
	struct kai_kube_obj *o;

	o = kube_obj_parse("{\"status\":{\"schedulingConditions\":["
	    "{\"type\":\"UnschedulableOnNodePool\",\"nodePool\":\"a\","
	    "\"reason\":\"Unschedulable\",\"message\":\"old\","
	    "\"transitionID\":\"7\"},"
	    "{\"type\":\"UnschedulableOnNodePool\",\"nodePool\":\"default\","
	    "\"reason\":\"Unschedulable\",\"message\":\"waiting for 2 of 4\","
	    "\"reasons\":[{\"reason\":\"PodGroup\",\"message\":\"x\"}],"
	    "\"transitionID\":\"12\","
	    "\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"},"
	    "{\"transitionID\":\"9\"}]}}", &err);
	ok(o != NULL, "a PodGroup with conditions parses");
	kai_kube_pg_cond_read(o, &c);
	is_int(c.id, 12, "the last condition is the highest transitionID");
	is_str(c.reason, "PodGroup", "its code is reasons[0]'s");
	is_str(c.message, "waiting for 2 of 4", "its words");
	ok(c.since == INT64_C(1800000000), "its time");
	kube_obj_free(o);
	o = kube_obj_parse("{\"status\":{\"schedulingConditions\":["
	    "{\"reason\":\"OverLimit\",\"transitionID\":\"2\","
	    "\"lastTransitionTime\":\"yesterday\"}]}}", &err);
	kai_kube_pg_cond_read(o, &c);
	ok(c.id == 2 && strcmp(c.reason, "OverLimit") == 0 &&
	    c.message[0] == '\0' && c.since == 0,
	    "without reasons the top-level reason; a bad time is none");
	kube_obj_free(o);
	o = kube_obj_parse("{\"status\":{\"schedulingConditions\":["
	    "{\"reason\":\"X\",\"transitionID\":\"-1\"}]}}", &err);
	kai_kube_pg_cond_read(o, &c);
	is_int(c.id, 0, "a transitionID that is no number counts as none");
	kube_obj_free(o);
	o = kube_obj_parse("{\"spec\":{}}", &err);
	kai_kube_pg_cond_read(o, &c);
	ok(c.id == 0 && c.reason[0] == '\0' && c.message[0] == '\0',
	    "no status: no condition");
	kube_obj_free(o);
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
/* A pod's subgroup from its operator's labels, as KAI routes it. */
static void
pod_sg_is(const char *labels, const char *want, const char *what)
{
	struct kai_pod p;
	struct kai_err err;
	char *json = kai_xasprintf("{\"metadata\":{\"name\":\"p\","
	    "\"namespace\":\"t\",\"uid\":\"u\",\"labels\":{%s}},"
	    "\"spec\":{},\"status\":{\"phase\":\"Pending\"}}", labels);

	memset(&p, 0, sizeof(p));
	if (kube_pod_parse(json, &p, &err) != 0)
		diag("%s: %s", what, err.msg);
	is_str(p.subgroup, want, "%s", what);
	kube_pod_fini(&p);
	free(json);
}

static void
test_pod_subgroups(void)
{
	pod_sg_is("\"jobset.sigs.k8s.io/replicatedjob-name\":\"workers\","
	    "\"jobset.sigs.k8s.io/job-index\":\"1\"", "workers-replica-1",
	    "a JobSet pod: <replicatedJob>-replica-<job-index>");
	pod_sg_is("\"training.kubeflow.org/replica-type\":\"Master\"",
	    "master", "a PyTorchJob pod: its replica type, lower-cased");
	pod_sg_is("\"ray.io/group\":\"headgroup\"", "headgroup",
	    "a Ray pod: its group");
	pod_sg_is("\"leaderworkerset.sigs.k8s.io/worker-index\":\"0\"",
	    "leader", "an LWS pod of worker index 0: the leader");
	pod_sg_is("\"leaderworkerset.sigs.k8s.io/worker-index\":\"2\"",
	    "workers", "of another index: the workers");
	pod_sg_is("\"kai.scheduler/subgroup-name\":\"x\","
	    "\"ray.io/group\":\"w\"", "x", "KAI's own label first");
}

static void
test_pod_owner(void)
{
	struct kai_pod p;
	struct kai_err err;

	memset(&p, 0, sizeof(p));
	is_int(kube_pod_parse("{\"metadata\":{\"name\":\"w-0\","
	    "\"namespace\":\"t\",\"uid\":\"p-1\","
	    "\"annotations\":{\"pod-group-name\":\"pg4\"},"
	    "\"labels\":{\"leaderworkerset.sigs.k8s.io/group-index\":\"3\","
	    "\"kai.scheduler/subgroup-name\":\"worker\"},"
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
	is_str(p.subgroup, "worker", "the KAI subgroup label");
	kube_pod_fini(&p);
	memset(&p, 0, sizeof(p));
	is_int(kube_pod_parse("{\"metadata\":{\"name\":\"b\","
	    "\"namespace\":\"t\",\"uid\":\"p-2\"},\"spec\":{},"
	    "\"status\":{\"phase\":\"Pending\"}}", &p, &err), 0,
	    "a bare pod parses");
	ok(strcmp(p.owner_uid, "") == 0 && strcmp(p.pod_group, "") == 0 &&
	    strcmp(p.owner_api, "") == 0, "with no owner and no group: \"\"");
	is_str(p.subgroup, "", "and no subgroup");
	kube_pod_fini(&p);
	test_pod_subgroups();
}

/* What the PodGroup watch hands on: "EV ns/name minMember", one a line. */
static char seen[512];

static void
on_obj(enum kai_kube_event ev, const struct kai_kube_obj *o, void *ctx)
{
	static const char *const evs[] = {"RESET", "ADDED", "MODIFIED",
	    "DELETED", "SYNCED"};
	size_t n = strlen(seen);
	int64_t min = -1;

	(void)ctx;
	if (o == NULL) {
		(void)snprintf(seen + n, sizeof(seen) - n, "%s\n",
		    evs[ev]);
		return;
	}
	if (kai_kube_obj_int(o, "spec.minMember", &min) != 0)
		min = -1;
	(void)snprintf(seen + n, sizeof(seen) - n, "%s %s/%s %lld\n",
	    evs[ev], kai_kube_obj_str(o, "metadata.namespace"),
	    kai_kube_obj_str(o, "metadata.name"), (long long)min);
}

static void
test_watch_objects(void)
{
	struct kube_watch *w = kube_watch_test_new_objects(on_obj, NULL);
	struct kai_err err;
	const char list[] = "{\"kind\":\"PodGroupList\",\"metadata\":"
	    "{\"resourceVersion\":\"5\"},\"items\":["
	    "{\"metadata\":{\"namespace\":\"a\",\"name\":\"pg4\"},"
	    "\"spec\":{\"minMember\":4}},"
	    "{\"metadata\":{\"namespace\":\"b\",\"name\":\"x\"},"
	    "\"spec\":{}}]}";
	const char evs[] = "{\"type\":\"MODIFIED\",\"object\":"
	    "{\"metadata\":{\"namespace\":\"a\",\"name\":\"pg4\","
	    "\"resourceVersion\":\"6\"},\"spec\":{\"minMember\":2}}}\n"
	    "{\"type\":\"DELETED\",\"object\":{\"metadata\":"
	    "{\"namespace\":\"b\",\"name\":\"x\","
	    "\"resourceVersion\":\"7\"}}}\n";

	is_int(kube_watch_test_list(w, list, &err), 0, "a PodGroupList is read");
	is_int(kube_watch_test_feed(w, evs, strlen(evs)), 0,
	    "then a MODIFIED and a DELETED event");
	is_str(seen, "RESET\nADDED a/pg4 4\nADDED b/x -1\nSYNCED\n"
	    "MODIFIED a/pg4 2\nDELETED b/x -1\n",
	    "each object handed on as it is, between RESET and SYNCED");
	is_str(kube_watch_test_rv(w), "7", "the watch goes on from the last");
	kube_watch_free(w);
}

int
main(void)
{
	test_paths();
	test_access();
	test_pod_owner();
	test_watch_objects();
	test_kai_status();
	test_pg_cond();
	return done_testing();
}
