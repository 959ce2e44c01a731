/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-queue: a KAI Queue object (scheduling.run.ai/v2) as kaid's queue
 * record (kube_queue.c): KAI's quick-start queues, its units (fractional
 * GPUs, millicores, MB), -1, the defaults of fields left out, the min
 * runtimes as Go durations, every kind of bad value with the field it
 * names; the watch of Queues; the Warning event on a cluster-scoped Queue.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "tap.h"

/* KAI's quick-start queues (docs/quickstart), as the API server sends them. */
static const char qs_default[] =
    "{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\","
    "\"metadata\":{\"name\":\"default\",\"uid\":\"u-d\"},"
    "\"spec\":{\"resources\":{"
    "\"cpu\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1},"
    "\"gpu\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1},"
    "\"memory\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1}}}}";
static const char qs_test[] =
    "{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\","
    "\"metadata\":{\"name\":\"test\",\"uid\":\"u-t\"},"
    "\"spec\":{\"parentQueue\":\"default\",\"resources\":{"
    "\"cpu\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1},"
    "\"gpu\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1},"
    "\"memory\":{\"quota\":-1,\"limit\":-1,\"overQuotaWeight\":1}}}}";

static void
test_quickstart(void)
{
	struct kai_kube_queue q;
	struct kai_err err;
	int r;

	is_int(kai_kube_queue_parse(qs_default, &q, &err), 0,
	    "quick-start \"default\" converts");
	ok(q.error == NULL, "and is valid (%s)", q.error ? q.error : "");
	is_str(q.q.name, "default", "named default");
	ok(q.q.parent == NULL, "top level");
	is_str(q.uid, "u-d", "its uid is kept for events");
	is_int(q.q.priority, 100, "KAI's default priority 100");
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		is_int(q.q.res[r].quota, -1, "%s quota -1 = unlimited",
		    kai_queue_res_name((enum kai_queue_res)r));
		is_int(q.q.res[r].limit, -1, "%s limit -1 = none",
		    kai_queue_res_name((enum kai_queue_res)r));
		is_int(q.q.res[r].weight, KAI_QUEUE_WEIGHT_UNIT,
		    "%s weight 1", kai_queue_res_name((enum kai_queue_res)r));
	}
	is_int(q.q.preempt_min_runtime_s, -1, "no preemptMinRuntime: inherit");
	is_int(q.q.reclaim_min_runtime_s, -1, "no reclaimMinRuntime: inherit");
	kai_kube_queue_fini(&q);

	is_int(kai_kube_queue_parse(qs_test, &q, &err), 0,
	    "quick-start \"test\" converts");
	ok(q.error == NULL, "and is valid");
	is_str(q.q.parent, "default", "its parent is default");
	kai_kube_queue_fini(&q);
}

static void
test_units(void)
{
	struct kai_kube_queue q;
	struct kai_err err;

	is_int(kai_kube_queue_parse(
	    "{\"metadata\":{\"name\":\"team-a\"},\"spec\":{"
	    "\"priority\":150,\"preemptMinRuntime\":\"1m30s\","
	    "\"reclaimMinRuntime\":\"1.5h\",\"resources\":{"
	    "\"gpu\":{\"quota\":1.5,\"limit\":4,\"overQuotaWeight\":2.25},"
	    "\"cpu\":{\"quota\":8000,\"limit\":16000,\"overQuotaWeight\":1},"
	    "\"memory\":{\"quota\":1000,\"limit\":-1,\"overQuotaWeight\":0.5}"
	    "}}}", &q, &err), 0, "a queue with every field converts");
	ok(q.error == NULL, "valid (%s)", q.error ? q.error : "");
	is_int(q.q.priority, 150, "priority 150");
	is_int(q.q.res[KAI_QUEUE_GPU].quota, 1500000, "1.5 GPUs = 1500000 "
	    "micro-GPUs");
	is_int(q.q.res[KAI_QUEUE_GPU].limit, 4000000, "4 GPUs");
	is_int(q.q.res[KAI_QUEUE_GPU].weight, 2250000, "weight 2.25");
	is_int(q.q.res[KAI_QUEUE_CPU].quota, 8000, "cpu stays millicores");
	is_int(q.q.res[KAI_QUEUE_CPU].limit, 16000, "cpu limit millicores");
	is_int(q.q.res[KAI_QUEUE_MEM].quota, 953,
	    "1000 MB (10^6 bytes) = 953 MiB, rounded down");
	is_int(q.q.res[KAI_QUEUE_MEM].limit, -1, "memory limit -1");
	is_int(q.q.res[KAI_QUEUE_MEM].weight, 500000, "weight 0.5");
	is_int(q.q.preempt_min_runtime_s, 90, "preemptMinRuntime 1m30s = 90 s");
	is_int(q.q.reclaim_min_runtime_s, 5400, "reclaimMinRuntime 1.5h");
	kai_kube_queue_fini(&q);

	/* Fields left out: Go's zero values, as KAI reads them. */
	is_int(kai_kube_queue_parse(
	    "{\"metadata\":{\"name\":\"z\"},\"spec\":{\"resources\":{"
	    "\"gpu\":{\"quota\":2}}}}", &q, &err), 0, "sparse queue converts");
	ok(q.error != NULL, "but a gpu quota 2 over the unset limit 0 is "
	    "refused");
	is_str(q.error, "spec.resources.gpu.limit: is below the quota",
	    "naming the limit");
	kai_kube_queue_fini(&q);
	is_int(kai_kube_queue_parse(
	    "{\"metadata\":{\"name\":\"z\"},\"spec\":{\"resources\":{}}}",
	    &q, &err), 0, "empty resources convert");
	ok(q.error == NULL, "valid");
	is_int(q.q.res[KAI_QUEUE_CPU].quota, 0, "unset quota 0");
	is_int(q.q.res[KAI_QUEUE_CPU].limit, 0, "unset limit 0 (blocks, as "
	    "in KAI)");
	is_int(q.q.res[KAI_QUEUE_GPU].weight, 0, "unset weight 0");
	kai_kube_queue_fini(&q);
}

static void
bad(const char *spec, const char *want, const char *what)
{
	struct kai_kube_queue q;
	struct kai_err err;
	char *json = kai_xasprintf("{\"metadata\":{\"name\":\"b\"},"
	    "\"spec\":%s}", spec);

	is_int(kai_kube_queue_parse(json, &q, &err), 0, "%s: converts", what);
	is_str(q.error, want, "%s: refused naming the field", what);
	kai_kube_queue_fini(&q);
	free(json);
}

static void
test_bad(void)
{
	struct kai_kube_queue q;
	struct kai_err err;

	bad("{}", "spec.resources: missing", "no resources");
	bad("{\"resources\":{\"gpu\":{\"quota\":-2}}}",
	    "spec.resources.gpu.quota: expected -1 (unlimited) or a number "
	    "of at least 0", "quota -2");
	bad("{\"resources\":{\"cpu\":{\"limit\":\"lots\"}}}",
	    "spec.resources.cpu.limit: expected a number", "a string limit");
	bad("{\"resources\":{\"memory\":[]}}",
	    "spec.resources.memory: expected an object", "an array");
	bad("{\"resources\":{\"gpu\":{\"overQuotaWeight\":-1}}}",
	    "spec.resources.gpu.overQuotaWeight: expected a number of at "
	    "least 0", "weight -1");
	bad("{\"parentQueue\":\"Not_OK\",\"resources\":{}}",
	    "spec.parentQueue: not a valid queue name", "a bad parent name");
	bad("{\"priority\":\"high\",\"resources\":{}}",
	    "spec.priority: expected an integer", "a string priority");
	bad("{\"preemptMinRuntime\":\"soon\",\"resources\":{}}",
	    "spec.preemptMinRuntime: expected a duration such as \"90s\" or "
	    "\"1h30m\", at most 68 years", "a bad duration");
	bad("{\"reclaimMinRuntime\":\"5\",\"resources\":{}}",
	    "spec.reclaimMinRuntime: expected a duration such as \"90s\" or "
	    "\"1h30m\", at most 68 years", "a duration without a unit");

	is_int(kai_kube_queue_parse("{\"metadata\":{\"name\":\"Big.Team\"},"
	    "\"spec\":{\"resources\":{}}}", &q, &err), 0,
	    "a Kubernetes name kaid cannot take converts");
	ok(q.error != NULL && strncmp(q.error, "metadata.name: ", 15) == 0,
	    "refused naming metadata.name");
	kai_kube_queue_fini(&q);
	ok(kai_kube_queue_parse("{\"spec\":{}}", &q, &err) != 0,
	    "an object without a name is no Queue");
	ok(kai_kube_queue_parse("[1]", &q, &err) != 0, "nor is an array");
}

static void
test_durations(void)
{
	int64_t s = -5;

	ok(kai_kube_duration_s("20s", &s) == 0 && s == 20, "20s");
	ok(kai_kube_duration_s("2h45m", &s) == 0 && s == 9900, "2h45m");
	ok(kai_kube_duration_s("1500ms", &s) == 0 && s == 2,
	    "1500ms rounds up to 2 s");
	ok(kai_kube_duration_s("0", &s) == 0 && s == 0, "0");
	ok(kai_kube_duration_s("", &s) != 0, "\"\" refused");
	ok(kai_kube_duration_s("-5s", &s) != 0, "negative refused");
	ok(kai_kube_duration_s("1d", &s) != 0, "days are no Go unit");
	ok(kai_kube_duration_s("100000000h", &s) != 0, "too long refused");
}

/* What the watch hands on. */
static int nadded, nsynced;
static char last_error[256];

static void
on_queue(enum kai_kube_event ev, const struct kai_kube_queue *q, void *ctx)
{
	(void)ctx;
	if (ev == KAI_KUBE_SYNCED)
		nsynced++;
	if (ev == KAI_KUBE_ADDED || ev == KAI_KUBE_MODIFIED) {
		nadded++;
		(void)snprintf(last_error, sizeof(last_error), "%s",
		    q->error != NULL ? q->error : "");
	}
}

static void
test_watch(void)
{
	struct kube_watch *w = kube_watch_test_new_queues(on_queue, NULL);
	struct kai_err err;
	char *list = kai_xasprintf("{\"kind\":\"QueueList\",\"metadata\":"
	    "{\"resourceVersion\":\"7\"},\"items\":[%s,%s]}", qs_default,
	    qs_test);
	const char ev[] = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":"
	    "{\"name\":\"test\",\"resourceVersion\":\"8\"},\"spec\":{}}}\n";

	is_int(kube_watch_test_list(w, list, &err), 0, "a QueueList is read");
	is_int(nadded, 2, "both queues handed on");
	is_int(nsynced, 1, "then SYNCED");
	is_int(kube_watch_test_feed(w, ev, strlen(ev)), 0, "a MODIFIED event");
	is_int(nadded, 3, "is handed on");
	is_str(last_error, "spec.resources: missing",
	    "bad, with its reason, not dropped");
	free(list);
	kube_watch_free(w);
}

static void
test_event(void)
{
	struct kai_pod_event ev = {.pod = "test", .uid = "u-t",
	    .type = KAI_EVENT_WARNING, .reason = "QueueRefused",
	    .message = "spec.parentQueue: no Queue \"x\"", .kind = "Queue",
	    .api_version = "scheduling.run.ai/v2"};
	char *j = kai_kube_pod_event_json(&ev, "default", "kaid-h",
	    INT64_C(1800000000000000000));

	ok(strstr(j, "\"involvedObject\":{\"apiVersion\":"
	    "\"scheduling.run.ai/v2\",\"kind\":\"Queue\",\"name\":\"test\","
	    "\"uid\":\"u-t\"}") != NULL,
	    "the event names the cluster-scoped Queue, no namespace (%s)", j);
	ok(strstr(j, "\"type\":\"Warning\"") != NULL, "a Warning");
	free(j);
}

int
main(void)
{
	test_quickstart();
	test_units();
	test_bad();
	test_durations();
	test_watch();
	test_event();
	return done_testing();
}
