/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-queue-yaml.c: a queue file of `kctl apply -f` (clients/ytree.c and
 * kctl_apply.c).  Changes it accepts must pass kai_queue_check() or be
 * refused by it cleanly, and must encode into a request kaid decodes.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "kctl.h"
#include "proto/proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kai_queue_change *c = NULL, *back = NULL;
	struct kai_err err;
	struct kai_buf b;
	size_t n = 0, nback = 0, i;

	if (kctl_queue_file(fuzz_file(data, size), &c, &n, &err) != 0)
		return 0;
	for (i = 0; i < n; i++)
		(void)!kai_queue_check(&c[i].q, &err);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_queue_apply_encode(&b, c, n) == 0) {
		if (kai_msg_queue_apply_decode(b.data, b.len, &back, &nback,
		    &err) != 0)
			fuzz_fail("queue changes kctl encodes do not decode");
		kai_queue_changes_free(back, nback);
	}
	kai_buf_fini(&b);
	kai_queue_changes_free(c, n);
	return 0;
}
