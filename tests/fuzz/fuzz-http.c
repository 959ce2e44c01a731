/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-http.c: the request head parser of kaid's HTTP port (health and
 * metrics) and of its webhook's port (POST), which anyone on the pod
 * network can reach.  A head that parses must lie within the input and
 * have a terminated path, and a POST's length must not be negative
 * unless it is none (-1).
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
	memset(&req, 0, sizeof(req));
	if (kai_http_parse_post((const char *)data, size, &req, &err) == 0) {
		if (req.head_len == 0 || req.head_len > size)
			fuzz_fail("a parsed POST head is longer than the input");
		if (!req.post)
			fuzz_fail("a parsed POST head is not a POST");
		if (req.content_length < -1)
			fuzz_fail("a negative Content-Length");
	}
	return 0;
}
