/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-http.c: the request head parser of kaid's HTTP port (health and
 * metrics), which anyone on the pod network can reach.  A head that
 * parses must lie within the input and have a terminated path.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "proto/http.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kai_http_req req;
	struct kai_err err;

	memset(&req, 0, sizeof(req));
	if (kai_http_parse((const char *)data, size, &req, &err) == 0) {
		if (req.head_len == 0 || req.head_len > size)
			fuzz_fail("a parsed head is longer than the input");
		if (memchr(req.path, '\0', sizeof(req.path)) == NULL)
			fuzz_fail("a parsed path is not terminated");
	}
	return 0;
}
