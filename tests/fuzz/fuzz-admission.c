/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-admission.c: the AdmissionReview answer of kaid's webhook
 * (src/kube/admission.c) over any body, which whoever reaches the
 * webhook's port can send, and with it the GPU-sharing annotation
 * parser.  An answered body must give a JSON AdmissionReview; a refusal
 * must say why.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "kube/admission.h"

static bool
ours(const char *scheduler, void *ctx)
{
	(void)ctx;
	return strcmp(scheduler, "kaid") == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kai_admission a;
	struct kai_err err;
	struct json_object *o;

	if (kai_admission_review((const char *)data, size, ours, NULL, &a,
		&err) != 0)
		return 0;
	if ((o = json_tokener_parse(a.response)) == NULL)
		fuzz_fail("an answer is not JSON");
	json_object_put(o);
	if (!a.allowed && (a.message == NULL || a.message[0] == '\0'))
		fuzz_fail("a refusal without a message");
	kai_admission_fini(&a);
	return 0;
}
