/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-kube-pod.c: a Pod object from the API server as kube_json.c reads
 * it (phase, node, containers' states and exit codes, labels), and the
 * Status text of a refused request.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kube/kube_int.h"

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
	kube_status_message(s, size, msg, sizeof(msg));
	if (memchr(msg, '\0', sizeof(msg)) == NULL)
		fuzz_fail("a status message is not terminated");
	free(s);
	return 0;
}
