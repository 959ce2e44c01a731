/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-json: the parts of src/kube that need no server: quantities, Node
 * and Pod JSON as the apiserver sends it (well-formed and not), the Pod
 * JSON kaid sends, and the watch stream and list pages fed by hand
 * (kube-config tests the kubeconfig reader).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "tap.h"

static void
qty_milli(const char *s, int64_t want)
{
	int64_t v = -1;
	struct kai_err err;

	if (kube_qty_milli(s, &v, &err) != 0)
		diag("%s", kai_err_msg(&err));
	is_int(v, want, "quantity \"%s\" is %lld milli", s, (long long)want);
}

static void
qty_bytes(const char *s, uint64_t want)
{
	uint64_t v = 0;
	struct kai_err err;

	if (kube_qty_bytes(s, &v, &err) != 0)
		diag("%s", kai_err_msg(&err));
	ok(v == want, "quantity \"%s\" is %llu bytes (got %llu)", s,
	    (unsigned long long)want, (unsigned long long)v);
}

static void
qty_bad(const char *s, const char *msg)
{
	struct kai_err err;
	int64_t v;

	kai_err_clear(&err);
	is_int(kube_qty_milli(s, &v, &err), KAI_EINVAL,
	    "quantity \"%s\" refused", s);
	is_str(err.msg, msg, "with a clear message");
}

static void
test_quantities(void)
{
	qty_milli("500m", 500);
	qty_milli("32", 32000);
	qty_milli("1.5", 1500);
	qty_milli("0.1", 100);
	qty_milli("100u", 1);
	qty_milli("2k", 2000000);
	qty_milli("1e3", 1000000);
	qty_milli("+2", 2000);
	qty_milli(".5", 500);
	qty_bytes("256Gi", 256ULL << 30);
	qty_bytes("1Ki", 1024);
	qty_bytes("1k", 1000);
	qty_bytes("1M", 1000000);
	qty_bytes("129941272Ki", 129941272ULL * 1024);
	qty_bytes("1.5Gi", 3ULL << 29);
	qty_bytes("123", 123);
	qty_bytes("1Ti", 1ULL << 40);
	qty_bytes("1E", 1000000000000000000ULL);
	qty_bad("", "invalid quantity \"\": not a number");
	qty_bad("abc", "invalid quantity \"abc\": not a number");
	qty_bad("-1", "invalid quantity \"-1\": negative");
	qty_bad("1Xi", "invalid quantity \"1Xi\": unrecognized suffix");
	qty_bad("1.2.3", "invalid quantity \"1.2.3\": unrecognized suffix");
	qty_bad("1e99", "invalid quantity \"1e99\": unrecognized suffix");
	qty_bad("100Ei", "invalid quantity \"100Ei\": too large");
	qty_bad("1234567890123456789012345678901",
	    "invalid quantity \"1234567890123456789012345678901\": too many digits");
}

static const char node_good[] =
    "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"gpu-1\","
    "\"labels\":{\"nvidia.com/gpu.product\":\"NVIDIA-H100-80GB-HBM3\","
    "\"nvidia.com/gpu.memory\":\"81559\",\"zone\":\"a\"}},"
    "\"spec\":{\"unschedulable\":true},\"status\":{"
    "\"capacity\":{\"cpu\":\"64\",\"memory\":\"512Gi\",\"nvidia.com/gpu\":\"8\"},"
    "\"allocatable\":{\"cpu\":\"63500m\",\"memory\":\"262144Mi\","
    "\"nvidia.com/gpu\":\"8\",\"pods\":\"110\"},"
    "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
    "{\"type\":\"Ready\",\"status\":\"True\"}]}}";

static void
node_bad(const char *json, const char *msg, const char *what)
{
	struct kai_node n;
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kube_node_parse(json, &n, &err), KAI_EKUBE, "%s refused", what);
	is_str(err.msg, msg, "%s: message", what);
	ok(n.name == NULL && n.labels == NULL, "%s: nothing left allocated",
	    what);
}

static void
test_nodes(void)
{
	struct kai_node n;
	struct kai_err err;
	size_t i;
	bool zone = false;

	is_int(kube_node_parse(node_good, &n, &err), 0, "a GPU node parses");
	is_str(n.name, "gpu-1", "name");
	is_int(n.cpu_milli, 63500, "allocatable cpu, not capacity");
	is_int((int64_t)n.mem_mb, 262144, "allocatable memory in MiB");
	is_int(n.gpus, 8, "GPUs");
	is_str(n.gpu_product, "NVIDIA-H100-80GB-HBM3", "GPU product label");
	is_int((int64_t)n.gpu_mem_mb, 81559, "GPU memory label");
	ok(n.ready, "Ready=True");
	ok(n.unschedulable, "spec.unschedulable");
	is_int((int64_t)n.nlabels, 3, "three labels");
	for (i = 0; i < n.nlabels; i++)
		zone |= strcmp(n.labels[i], "zone=a") == 0;
	ok(zone, "labels as key=value");
	kube_node_fini(&n);

	is_int(
	    kube_node_parse(
		"{\"metadata\":{\"name\":\"cpu-1\"},\"status\":{"
		"\"capacity\":{\"cpu\":\"4\",\"memory\":\"8000000Ki\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\"}]}}",
		&n, &err),
	    0, "a CPU node with capacity only parses");
	ok(n.cpu_milli == 4000 && n.mem_mb == 7812 && n.gpus == 0,
	    "capacity is the fallback; memory rounds down to MiB");
	ok(!n.ready && !n.unschedulable, "not ready, schedulable");
	is_str(n.gpu_product, "", "no GPU product is \"\"");
	kube_node_fini(&n);

	node_bad("{\"metadata\":", "node: invalid JSON: unexpected end of data",
	    "truncated JSON");
	node_bad("[1,2]", "node: not a JSON object", "an array");
	node_bad("{\"metadata\":{}}", "node: metadata.name: missing",
	    "no name");
	node_bad("{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":"
		 "{\"cpu\":4}}}",
	    "node \"n\": status.allocatable.cpu: expected a "
	    "string",
	    "cpu as a number");
	node_bad("{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":"
		 "{\"memory\":\"lots\"}}}",
	    "node \"n\": status.allocatable.memory: "
	    "invalid quantity \"lots\": not a number",
	    "bad memory quantity");
	node_bad("{\"metadata\":{\"name\":\"n\",\"labels\":{"
		 "\"nvidia.com/gpu.memory\":\"80GB\"}}}",
	    "node \"n\": metadata.labels"
	    "[\"nvidia.com/gpu.memory\"]: not a number of MiB",
	    "bad GPU memory");
	node_bad("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"unschedulable\":"
		 "\"yes\"}}",
	    "node \"n\": spec.unschedulable: expected a boolean",
	    "unschedulable as a string");
}

static const char pod_done[] =
    "{\"metadata\":{\"name\":\"kai-42-0\",\"namespace\":\"batch\",\"uid\":\"u-1\","
    "\"labels\":{\"app.kubernetes.io/managed-by\":\"kaid\","
    "\"kaibatch.io/job-id\":\"42\",\"kaibatch.io/task-index\":\"3\","
    "\"kaibatch.io/queue\":\"vision\",\"kaibatch.io/gpu-mask\":\"12\","
    "\"kaibatch.io/gpu-share\":\"x\"}},"
    "\"spec\":{\"nodeName\":\"gpu-1\",\"containers\":[{\"name\":\"job\","
    "\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"1Gi\","
    "\"nvidia.com/gpu\":\"2\"},\"requests\":{\"cpu\":\"1500m\","
    "\"memory\":\"1Gi\"}}},{\"name\":\"side\",\"resources\":{\"requests\":"
    "{\"cpu\":\"100m\",\"memory\":\"100M\"}}}],\"initContainers\":[{\"name\":"
    "\"init\",\"resources\":{\"requests\":{\"cpu\":\"4\"}}}]},"
    "\"status\":{\"phase\":\"Failed\",\"reason\":\"DeadlineExceeded\","
    "\"message\":\"too long\",\"containerStatuses\":["
    "{\"name\":\"side\",\"state\":{\"running\":{}}},"
    "{\"name\":\"job\",\"state\":{\"terminated\":{\"exitCode\":137,"
    "\"reason\":\"OOMKilled\",\"startedAt\":\"2026-11-28T08:08:10Z\","
    "\"finishedAt\":\"2026-11-28T08:09:10Z\"}}}]}}";

static void
pod_bad(const char *json, const char *msg, const char *what)
{
	struct kai_pod p;
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kube_pod_parse(json, &p, &err), KAI_EKUBE, "%s refused", what);
	is_str(err.msg, msg, "%s: message", what);
}

static void
test_pods(void)
{
	struct kai_pod p;
	struct kai_err err;

	is_int(kube_pod_parse(pod_done, &p, &err), 0, "a finished pod parses");
	ok(strcmp(p.name, "kai-42-0") == 0 &&
		strcmp(p.namespace, "batch") == 0 &&
		strcmp(p.uid, "u-1") == 0 && strcmp(p.node, "gpu-1") == 0,
	    "name, namespace, uid, node");
	is_int(p.phase, KAI_POD_FAILED, "phase Failed");
	ok(strcmp(p.reason, "DeadlineExceeded") == 0 &&
		strcmp(p.message, "too long") == 0,
	    "status reason and message");
	ok(p.terminated && p.exit_code == 137, "container \"job\" exit code");
	is_str(p.term_reason, "OOMKilled", "terminated reason");
	is_int(p.finished_at, 1795853350, "terminated at finishedAt");
	is_int(p.started_at, 1795853290, "started at terminated.startedAt");
	ok(p.managed && p.job_id == 42 && p.task == 3, "kaid's labels");
	ok(p.queue != NULL && strcmp(p.queue, "vision") == 0 &&
		p.gpu_mask == 12,
	    "the queue and device labels");
	is_int(p.gpu_share, 0, "a malformed share counts as none");
	is_int(p.cpu_milli, 4000, "cpu: the init container beats the sum");
	is_int((int64_t)p.mem_mb, 1120, "memory: 1Gi + 100M, rounded up");
	is_int(p.gpus, 2, "GPUs from limits when not requested");
	ok(!p.deleting && !p.waiting_error, "not deleting, not stuck");
	kube_pod_fini(&p);

	is_int(
	    kube_pod_parse(
		"{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":"
		"\"2024-01-01T00:00:00Z\",\"labels\":{\"kaibatch.io/job-id\":\"x\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\"}]},\"status\":{\"phase\":"
		"\"Pending\",\"containerStatuses\":[{\"name\":\"c\",\"state\":{"
		"\"waiting\":{\"reason\":\"ImagePullBackOff\"}}}]}}",
		&p, &err),
	    0, "a stuck foreign pod parses");
	ok(p.phase == KAI_POD_PENDING && p.waiting_error &&
		strcmp(p.wait_reason, "ImagePullBackOff") == 0,
	    "waiting on an image pull error");
	ok(p.deleting && !p.managed && p.job_id == 0, "deleting, not ours");
	ok(strcmp(p.node, "") == 0 && strcmp(p.reason, "") == 0 &&
		strcmp(p.term_reason, "") == 0,
	    "absent strings are \"\"");
	kube_pod_fini(&p);

	is_int(kube_pod_parse(
		   "{\"metadata\":{\"name\":\"p\"},\"status\":{"
		   "\"phase\":\"Running\",\"containerStatuses\":[{\"state\":{"
		   "\"waiting\":{\"reason\":\"ContainerCreating\"}}}]}}",
		   &p, &err),
	    0, "a pod without spec parses");
	ok(p.phase == KAI_POD_RUNNING && !p.waiting_error &&
		strcmp(p.wait_reason, "ContainerCreating") == 0,
	    "ContainerCreating is not an error");
	kube_pod_fini(&p);
}

static void
test_times(void)
{
	static const struct {
		const char *s;
		int64_t want;	/* -1: refused */
	} cases[] = {
		{"1970-01-01T00:00:00Z", 0},
		{"2026-11-28T08:09:10Z", 1795853350},
		{"2026-11-28T08:09:10.123456Z", 1795853350},
		{"2026-11-28T09:09:10+01:00", 1795853350},
		{"2026-11-28T03:39:10-04:30", 1795853350},
		{"2024-02-29T00:00:00Z", 1709164800},
		{"2023-02-29T00:00:00Z", -1},
		{"2026-11-28 08:09:10Z", -1},
		{"2026-11-28T08:09:10", -1},
		{"2026-11-28T08:09:10.Z", -1},
		{"2026-13-01T00:00:00Z", -1},
		{"2026-11-28T24:00:00Z", -1},
		{"2026-11-28T08:09:10Zjunk", -1},
		{"", -1},
	};
	int64_t t;
	size_t i;
	int r;

	for (i = 0; i < KAI_NELEM(cases); i++) {
		t = -1;
		r = kai_kube_time_parse(cases[i].s, &t);
		if (cases[i].want < 0)
			is_int(r, -1, "time \"%s\" refused", cases[i].s);
		else
			is_int(r == 0 ? t : -2, cases[i].want, "time \"%s\"",
			    cases[i].s);
	}
}

static void
test_pod_running(void)
{
	struct kai_pod p;
	struct kai_err err;

	is_int(kube_pod_parse("{\"metadata\":{\"name\":\"p\"},\"status\":"
	    "{\"phase\":\"Running\",\"containerStatuses\":[{\"state\":"
	    "{\"running\":{\"startedAt\":\"2026-11-28T08:08:10.5+01:00\"}}}]}}",
	    &p, &err), 0, "a running pod parses");
	is_int(p.started_at, 1795853290 - 3600, "started at running.startedAt");
	ok(!p.terminated && p.finished_at == 0, "not ended");
	kube_pod_fini(&p);
}

static void
test_pods_bad(void)
{
	pod_bad(
	    "{\"metadata\":{\"name\":\"p\"},\"status\":{\"containerStatuses\":"
	    "[{\"state\":{\"running\":{\"startedAt\":7}}}]}}",
	    "pod \"p\": status.containerStatuses.state.running.startedAt: "
	    "expected a string",
	    "startedAt that is no string");
	pod_bad(
	    "{\"metadata\":{\"name\":\"p\"},\"status\":{\"containerStatuses\":"
	    "[{\"state\":{\"terminated\":{\"exitCode\":0,"
	    "\"finishedAt\":\"yesterday\"}}}]}}",
	    "pod \"p\": status.containerStatuses.state.terminated.finishedAt: "
	    "not an RFC 3339 time",
	    "finishedAt that is no time");
	pod_bad(
	    "{\"metadata\":{\"name\":\"p\"},\"status\":{\"containerStatuses\":"
	    "[{\"state\":{\"terminated\":{\"exitCode\":\"3\"}}}]}}",
	    "pod \"p\": status.containerStatuses.state.terminated.exitCode: "
	    "expected an integer",
	    "exit code as a string");
	pod_bad("{\"metadata\":{\"name\":\"p\"},\"status\":{\"phase\":1}}",
	    "pod \"p\": status.phase: expected a string", "phase as a number");
	pod_bad(
	    "{\"metadata\":{\"name\":\"p\",\"labels\":{"
	    "\"app.kubernetes.io/managed-by\":\"kaid\",\"kaibatch.io/job-id\":"
	    "\"x\"}}}",
	    "pod \"p\": metadata.labels[\"kaibatch.io/job-id\"]: "
	    "not a job id",
	    "our pod with a bad job id");
	pod_bad("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{"
		"\"resources\":{\"requests\":{\"cpu\":\"1x\"}}}]}}",
	    "pod \"p\": spec.containers.resources.requests: invalid quantity "
	    "\"1x\": unrecognized suffix",
	    "bad cpu request");
	pod_bad("{\"kind\":\"Pod\"}", "pod: metadata.name: missing",
	    "no metadata");
	pod_bad("", "pod: invalid JSON: unexpected end of data", "empty text");
	pod_bad("{} x", "pod: invalid JSON: trailing data at offset 3",
	    "trailing garbage");
}

/* spec.x.y... of a JSON object, as a string ("" when absent). */
static const char *
jpath(struct json_object *o, const char *path)
{
	char key[64];
	const char *dot;
	struct json_object *v = o;

	while (v != NULL && *path != '\0') {
		dot = strchr(path, '.');
		(void)snprintf(key, sizeof(key), "%.*s",
		    (int)(dot != NULL ? (size_t)(dot - path) : strlen(path)),
		    path);
		if (json_object_is_type(v, json_type_array))
			v = json_object_array_get_idx(v,
			    (size_t)strtoul(key, NULL, 10));
		else if (!json_object_object_get_ex(v, key, &v))
			v = NULL;
		path = dot != NULL ? dot + 1 : "";
	}
	return v != NULL ? json_object_get_string(v) : "";
}

static void
check_pod_spec(struct json_object *o)
{
	is_str(jpath(o, "apiVersion"), "v1", "apiVersion");
	is_str(jpath(o, "kind"), "Pod", "kind");
	is_str(jpath(o, "metadata.name"), "kai-42-0", "name");
	is_str(jpath(o, "metadata.namespace"), "batch", "namespace");
	ok(json_object_object_length(
	       json_object_object_get(json_object_object_get(o, "metadata"),
		   "labels")) == 2,
	    "2 labels");
	is_str(jpath(o, "spec.schedulerName"), "kaid", "schedulerName");
	is_str(jpath(o, "spec.restartPolicy"), "Never", "restartPolicy");
	is_str(jpath(o, "spec.terminationGracePeriodSeconds"), "30", "grace");
	is_str(jpath(o, "spec.activeDeadlineSeconds"), "3600", "deadline");
	is_str(jpath(o, "spec.hostname"), "kai-42-0", "hostname");
	is_str(jpath(o, "spec.subdomain"), "kai-42", "subdomain");
	is_str(jpath(o, "spec.automountServiceAccountToken"), "false",
	    "no service account token");
	is_str(jpath(o, "spec.securityContext.runAsUser"), "1000", "runAsUser");
	is_str(jpath(o, "spec.securityContext.runAsGroup"), "1000",
	    "runAsGroup");
	is_str(jpath(o, "spec.securityContext.supplementalGroups.1"), "200",
	    "supplementalGroups");
	is_str(jpath(o, "spec.securityContext.runAsNonRoot"), "true",
	    "runAsNonRoot");
}

static void
check_pod_container(struct json_object *o, const char *text)
{
	is_str(jpath(o, "spec.containers.0.name"), "job", "container name");
	is_str(jpath(o, "spec.containers.0.image"), "busybox:1.36", "image");
	is_str(jpath(o, "spec.containers.0.imagePullPolicy"), "IfNotPresent",
	    "imagePullPolicy");
	is_str(jpath(o, "spec.containers.0.command.2"), "exit 3", "command");
	is_str(jpath(o, "spec.containers.0.env.1.name"), "RANK", "env name");
	is_str(jpath(o, "spec.containers.0.env.1.value"), "0", "env value");
	is_str(jpath(o, "spec.containers.0.resources.requests.cpu"), "1500m",
	    "cpu request");
	is_str(jpath(o, "spec.containers.0.resources.limits.cpu"), "1500m",
	    "cpu limit = request");
	is_str(jpath(o, "spec.containers.0.resources.limits.memory"), "2048Mi",
	    "memory limit");
	is_str(jpath(o, "spec.containers.0.resources.requests.memory"),
	    "2048Mi", "memory request");
	ok(strstr(text,
	       "\"limits\":{\"cpu\":\"1500m\",\"memory\":\"2048Mi\","
	       "\"nvidia.com/gpu\":\"2\"}") != NULL,
	    "GPUs in limits");
	ok(strstr(text,
	       "\"requests\":{\"cpu\":\"1500m\",\"memory\":\"2048Mi\"}") !=
		NULL,
	    "no GPUs in requests");
	ok(strstr(text, "\\/") == NULL, "slashes are not escaped");
}

static void
test_pod_json(void)
{
	static const char *const labels[] = {"app.kubernetes.io/managed-by",
	    "kaid", "kaibatch.io/job-id", "42"};
	static const char *const annots[] = {"kaibatch.io/script", "#!/bin/sh"};
	static const char *const cmd[] = {"/bin/sh", "-c", "exit 3"};
	static const char *const env[] = {"SLURM_JOB_ID", "42", "RANK", "0"};
	static const uint32_t groups[] = {100, 200};
	struct kai_pod_spec s = {
	    .name = "kai-42-0",
	    .label_kv = labels,
	    .nlabels = 2,
	    .annot_kv = annots,
	    .nannots = 1,
	    .image = "busybox:1.36",
	    .command = cmd,
	    .ncommand = 3,
	    .env_kv = env,
	    .nenv = 2,
	    .run_as_uid = 1000,
	    .run_as_gid = 1000,
	    .groups = groups,
	    .ngroups = 2,
	    .run_as_non_root = true,
	    .cpu_milli = 1500,
	    .mem_mb = 2048,
	    .gpus = 2,
	    .active_deadline_s = 3600,
	    .hostname = "kai-42-0",
	    .subdomain = "kai-42",
	};
	struct json_object *o;
	char *text;

	text = kai_kube_pod_json(&s, "batch");
	o = kube_json_parse(text, strlen(text), NULL);
	ok(o != NULL, "the pod JSON parses");
	check_pod_spec(o);
	check_pod_container(o, text);
	json_object_put(o);
	free(text);

	memset(&s, 0, sizeof(s));
	s.name = "p";
	s.image = "img";
	text = kai_kube_pod_json(&s, "ns");
	ok(strstr(text, "activeDeadlineSeconds") == NULL &&
		strstr(text, "hostname") == NULL &&
		strstr(text, "runAsNonRoot") == NULL &&
		strstr(text, "supplementalGroups") == NULL &&
		strstr(text, "nvidia.com/gpu") == NULL &&
		strstr(text, "labels") == NULL &&
		strstr(text, "\"resources\":{}") != NULL,
	    "unset fields are left out");
	free(text);
}

static void
stream_cb(enum kai_kube_event ev, const struct kai_pod *p, void *ctx)
{
	struct kai_buf *log = ctx;

	(void)!kai_buf_addf(log, "%c:%s:%d ", "RAMDS"[ev],
	    p != NULL ? p->name : "-", p != NULL ? (int)p->phase : -1);
}

static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
    "\"resourceVersion\":\"10\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\","
    "\"resourceVersion\":\"11\"},\"status\":{\"phase\":\"Running\"}}}\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
    "{\"resourceVersion\":\"12\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"bad\","
    "\"resourceVersion\":\"13\"},\"status\":{\"phase\":7}}}\n"
    "\r\n"
    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\","
    "\"resourceVersion\":\"14\"}}}\n";

/* Feeds text in pieces of step bytes; returns the first non-0 result. */
static int
feed(struct kube_watch *w, const char *text, size_t n, size_t step)
{
	size_t off, k;
	int r;

	for (off = 0; off < n; off += k) {
		k = n - off < step ? n - off : step;
		if ((r = kube_watch_test_feed(w, text + off, k)) != 0)
			return r;
	}
	return 0;
}

static void
stream_end_case(const char *text, int end, const char *what)
{
	struct kai_buf log;
	struct kube_watch *w;

	kai_buf_init(&log, 1024);
	w = kube_watch_test_new(stream_cb, &log);
	is_int(feed(w, text, strlen(text), 5), -1, "%s ends the stream", what);
	is_int(kube_watch_test_end(w), end, "%s: %s", what,
	    end == 1 ? "relist" : "error");
	kube_watch_free(w);
	kai_buf_fini(&log);
}

static void
test_stream(void)
{
	static const size_t steps[] = {1, 7, 64, sizeof(stream)};
	struct kai_buf log;
	struct kube_watch *w;
	size_t i, bm;
	char *big;

	for (i = 0; i < KAI_NELEM(steps); i++) {
		kai_buf_init(&log, 1024);
		w = kube_watch_test_new(stream_cb, &log);
		is_int(feed(w, stream, strlen(stream), steps[i]), 0,
		    "a stream in pieces of %zu bytes", steps[i]);
		is_str(log.data, "A:a:0 M:a:1 D:a:0 ",
		    "events whole, the bad object skipped");
		is_str(kube_watch_test_rv(w), "14", "the last resourceVersion");
		kube_watch_free(w);
		kai_buf_fini(&log);
	}
	kai_buf_init(&log, 1024);
	w = kube_watch_test_new(stream_cb, &log);
	bm = strstr(stream, "{\"type\":\"BOOKMARK\"") - stream;
	is_int(feed(w, stream, bm, bm), 0, "the stream up to the bookmark");
	is_str(kube_watch_test_rv(w), "11", "bookmark not yet seen");
	is_int(feed(w, stream + bm, strcspn(stream + bm, "\n") + 1, 3), 0,
	    "the bookmark");
	is_str(kube_watch_test_rv(w), "12", "a bookmark moves the RV");
	kube_watch_free(w);
	kai_buf_fini(&log);

	stream_end_case(
	    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
	    "\"code\":410,\"reason\":\"Expired\",\"message\":\"too old "
	    "resource version: 1 (188)\"}}\n",
	    1, "ERROR 410");
	stream_end_case("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
			"\"code\":500,\"message\":\"boom\"}}\n",
	    2, "ERROR 500");
	stream_end_case("not json\n", 2, "a line that is not JSON");
	stream_end_case("{\"type\":\"ADDED\"}\n", 2, "an event without object");
	big = kai_xmalloc(KUBE_EVENT_MAX + 2);
	memset(big, ' ', KUBE_EVENT_MAX + 1);
	big[0] = '{';
	big[KUBE_EVENT_MAX + 1] = '\0';
	stream_end_case(big, 2, "an event over 4 MiB");
	free(big);
}

static void
test_list_pages(void)
{
	struct kai_buf log;
	struct kube_watch *w;
	struct kai_err err;

	kai_buf_init(&log, 1024);
	w = kube_watch_test_new(stream_cb, &log);
	is_int(
	    kube_watch_test_list(w,
		"{\"metadata\":{\"continue\":\"c1\","
		"\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":{\"name\":\"a\"}},"
		"{\"metadata\":{\"name\":\"b\"}}]}",
		&err),
	    0, "a first list page");
	is_str(log.data, "R:-:-1 A:a:0 A:b:0 ", "RESET, then its items");
	ok(kube_watch_test_rv(w) == NULL, "no resourceVersion before the end");
	is_int(kube_watch_test_list(w,
		   "{\"metadata\":{\"resourceVersion\":"
		   "\"9\"},\"items\":[{\"metadata\":{\"name\":\"c\"}}]}",
		   &err),
	    0, "the last page");
	is_str(log.data, "R:-:-1 A:a:0 A:b:0 A:c:0 S:-:-1 ",
	    "its items, then SYNCED; no second RESET");
	is_str(kube_watch_test_rv(w), "9", "the last page's resourceVersion");
	is_int(kube_watch_test_list(w,
		   "{\"metadata\":{\"resourceVersion\":"
		   "\"10\"}}",
		   &err),
	    KAI_EKUBE, "a list without items is refused");
	is_str(err.msg, "list has no items array", "message");
	is_int(kube_watch_test_list(w, "{\"items\":[]}", &err), KAI_EKUBE,
	    "a list without resourceVersion is refused");
	is_str(err.msg, "list has no metadata.resourceVersion", "message");
	kube_watch_free(w);
	kai_buf_fini(&log);
}

/* The lean parse equals the full one with every env array emptied. */
static void
lean_case(const char *in, const char *want, const char *what)
{
	struct json_object *a, *b;
	struct kai_err err;

	a = kube_json_parse_lean(in, strlen(in), &err);
	b = kube_json_parse(want, strlen(want), NULL);
	ok(a != NULL && b != NULL && json_object_equal(a, b), "lean: %s", what);
	json_object_put(a);
	json_object_put(b);
}

static void
test_lean(void)
{
	struct kai_err err;
	const char *bad = "{\"env\":[1,2],\"x\":}";

	lean_case("{\"spec\":{\"containers\":[{\"name\":\"job\",\"env\":"
	    "[{\"name\":\"A\",\"value\":\"x]}\\\"[\"},{\"name\":\"B\","
	    "\"valueFrom\":{\"k\":[[],{}]}}],\"image\":\"i\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"job\",\"env\":[],"
	    "\"image\":\"i\"}]}}",
	    "env emptied, brackets and escaped quotes in values skipped");
	lean_case("{\"metadata\":{\"labels\":{\"env\":\"prod\"}},\"a\":"
	    "[\"env\", \"env\" ],\"env\" : [ 1 ] ,\"b\":\"\\\"env\\\":[\"}",
	    "{\"metadata\":{\"labels\":{\"env\":\"prod\"}},\"a\":"
	    "[\"env\",\"env\"],\"env\":[],\"b\":\"\\\"env\\\":[\"}",
	    "a label env, env as a value and inside a string stay");
	lean_case("{\"env\":{\"a\":[1]}}", "{\"env\":{\"a\":[1]}}",
	    "an env that is no array stays");
	ok(kube_json_parse_lean(bad, strlen(bad), &err) == NULL &&
	    strstr(err.msg, "invalid JSON") != NULL,
	    "invalid JSON outside env is still refused (%s)", err.msg);
	ok(kube_json_parse_lean("{\"env\":[1,", 11, &err) == NULL,
	    "an unterminated env array is refused");
}

int
main(void)
{
	test_quantities();
	test_nodes();
	test_pods();
	test_times();
	test_pod_running();
	test_pods_bad();
	test_pod_json();
	test_stream();
	test_list_pages();
	test_lean();
	return done_testing();
}
