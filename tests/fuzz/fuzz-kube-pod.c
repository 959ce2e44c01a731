/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-kube-pod.c: a Pod object from the API server as kube_json.c reads
 * it (phase, node, containers' states and exit codes, labels), and the
 * Status text of a refused request.
 *
 * The watch and the lists parse pods with kube_json_parse_lean(), which
 * drops the containers' "env" arrays before json-c sees the text.  What
 * json-c accepts whole, the lean parse must accept too, and the pod read
 * from it must be the same: kaid reads nothing that lean drops.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kube/kube_int.h"

static int
str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int
pod_eq(const struct kai_pod *a, const struct kai_pod *b)
{
	return str_eq(a->name, b->name) && str_eq(a->namespace, b->namespace) &&
	    str_eq(a->uid, b->uid) && str_eq(a->node, b->node) &&
	    a->phase == b->phase && str_eq(a->reason, b->reason) &&
	    str_eq(a->message, b->message) && a->terminated == b->terminated &&
	    a->exit_code == b->exit_code &&
	    str_eq(a->term_reason, b->term_reason) &&
	    str_eq(a->term_message, b->term_message) &&
	    a->waiting_error == b->waiting_error &&
	    str_eq(a->wait_reason, b->wait_reason) &&
	    a->deleting == b->deleting && a->managed == b->managed &&
	    a->job_id == b->job_id && a->task == b->task &&
	    str_eq(a->queue, b->queue) && a->gpu_mask == b->gpu_mask &&
	    a->gpu_share == b->gpu_share && a->cpu_milli == b->cpu_milli &&
	    a->mem_mb == b->mem_mb && a->gpus == b->gpus;
}

static void
check_lean(const char *s, size_t n)
{
	struct json_object *full, *lean;
	struct kai_pod a, b;
	struct kai_err err;
	int ra, rb;

	if ((full = kube_json_parse(s, n, &err)) == NULL)
		return;
	if ((lean = kube_json_parse_lean(s, n, &err)) == NULL)
		fuzz_fail("valid JSON is refused by the lean parse");
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = kube_pod_from_json(full, &a, &err);
	rb = kube_pod_from_json(lean, &b, &err);
	if (ra != rb)
		fuzz_fail("the lean parse changes whether a pod is valid");
	if (ra == 0 && !pod_eq(&a, &b))
		fuzz_fail("the lean parse changes a pod");
	kube_pod_fini(&a);
	kube_pod_fini(&b);
	json_object_put(full);
	json_object_put(lean);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	struct kai_pod pod;
	struct kai_err err;
	char msg[256];

	memset(&pod, 0, sizeof(pod));
	if (kube_pod_parse(s, &pod, &err) == 0)
		kube_pod_fini(&pod);
	check_lean(s, strlen(s));
	kube_status_message(s, size, msg, sizeof(msg));
	if (memchr(msg, '\0', sizeof(msg)) == NULL)
		fuzz_fail("a status message is not terminated");
	free(s);
	return 0;
}
