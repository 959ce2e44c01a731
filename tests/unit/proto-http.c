/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-http: the request head parser of kaid's HTTP endpoint.
 *
 * Good heads parse (CRLF or LF, HEAD, a query), every proper prefix of a
 * good head asks for more bytes, and each kind of bad head gets the
 * status kaid answers: 400, 405 (even before the line ends), 414, 431
 * and 505.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "proto/http.h"
#include "tap.h"

/* The status kai_http_parse() gives s: 0 parsed, 1 needs more, or an error. */
static int
status_of(const char *s, size_t len)
{
	struct kai_http_req req;
	struct kai_err err;
	int r = kai_http_parse(s, len, &req, &err);

	if (r == 0)
		return 0;
	if (r == KAI_EAGAIN)
		return 1;
	return r == KAI_EPROTO ? req.status : -1;
}

static int
status(const char *s)
{
	return status_of(s, strlen(s));
}

static void
good_heads(void)
{
	const char *g = "GET /metrics?x=1 HTTP/1.1\r\nHost: a:1\r\n"
	    "User-Agent: curl/7.88\r\nAccept: */*\r\n\r\nBODY";
	struct kai_http_req req;
	struct kai_err err;
	size_t i;
	bool prefixes = true;

	is_int(kai_http_parse(g, strlen(g), &req, &err), 0, "a GET parses");
	is_str(req.path, "/metrics", "the path loses its query");
	ok(!req.head && req.minor == 1, "GET, HTTP/1.1");
	is_int((long)req.head_len, (long)(strlen(g) - 4),
	    "head_len ends at the blank line");
	for (i = 0; i < strlen(g) - 4; i++)
		if (status_of(g, i) != 1) {
			diag("prefix of %zu bytes: %d", i, status_of(g, i));
			prefixes = false;
		}
	ok(prefixes, "every proper prefix asks for more bytes");
	is_int(kai_http_parse("HEAD /healthz HTTP/1.0\n\n", 24, &req, &err), 0,
	    "HEAD with bare LFs parses");
	ok(req.head && req.minor == 0, "HEAD, HTTP/1.0");
	is_str(req.path, "/healthz", "its path");
	is_int(status("GET / HTTP/1.1\r\nX-Empty:\r\n\r\n"), 0,
	    "an empty header value is fine");
}

static void
bad_heads(void)
{
	struct kai_http_req req;
	struct kai_err err;

	is_int(status("POST /metrics HTTP/1.1\r\n\r\n"), 405, "POST: 405");
	is_int(status("DELETE "), 405, "405 before the line ends");
	is_int(kai_http_parse("PUT / HTTP/1.1\r\n\r\n", 18, &req, &err),
	    KAI_EPROTO, "the error is KAI_EPROTO");
	is_str(err.msg, "method \"PUT\" not allowed", "and names the method");
	is_int(status("\x16\x03\x01\x02\x00\x01"), 400, "a TLS hello: 400");
	is_int(status("GARBAGE\r\n\r\n"), 400, "no target: 400");
	is_int(status("GET metrics HTTP/1.1\r\n\r\n"), 400,
	    "a target that is not a path: 400");
	is_int(status("GET /a\x01 HTTP/1.1\r\n\r\n"), 400,
	    "a control character in the target: 400");
	is_int(status("GET / HTTP/2.0\r\n\r\n"), 505, "HTTP/2.0: 505");
	is_int(status("GET / HTTX/1.1\r\n\r\n"), 400, "not HTTP: 400");
	is_int(status("GET / HTTP/1.1 extra\r\n\r\n"), 400,
	    "a fourth word: 400");
	is_int(status("GET / HTTP/1.1\r\nNo colon\r\n\r\n"), 400,
	    "a header without a colon: 400");
	is_int(status("GET / HTTP/1.1\r\n folded\r\n\r\n"), 400,
	    "a folded header: 400");
	is_int(status("GET / HTTP/1.1\r\nA: b\x7f\r\n\r\n"), 400,
	    "DEL in a header value: 400");
	is_int(status("GET / HTTP/1.1\r\n: v\r\n\r\n"), 400,
	    "an empty header name: 400");
	is_int(status("GETTTTTTTTTTTTTTTTTTTTTTTT / HTTP/1.1\r\n\r\n"), 400,
	    "a method name too long: 400");
}

static void
limits(void)
{
	size_t big = KAI_HTTP_HEAD_MAX + 100, i;
	char *s = kai_xmalloc(big + 1);
	size_t n;

	/* A target just over the limit, line not yet ended: 414. */
	n = (size_t)snprintf(s, big + 1, "GET /");
	memset(s + n, 'a', KAI_HTTP_TARGET_MAX);
	s[n + KAI_HTTP_TARGET_MAX] = '\0';
	is_int(status(s), 414, "a target over the limit: 414 before its end");
	memset(s + 5, 'a', KAI_HTTP_TARGET_MAX - 1);
	memcpy(s + 4 + KAI_HTTP_TARGET_MAX, " HTTP/1.1\r\n\r\n", 14);
	is_int(status(s), 0, "a target at the limit parses");

	/* Headers past 8 KiB, no blank line: 431. */
	n = (size_t)snprintf(s, big + 1, "GET / HTTP/1.1\r\n");
	for (i = 0; n + 12 < big; i++)
		n += (size_t)snprintf(s + n, big + 1 - n, "X-%04zu: %s\r\n", i % 10000, "v");
	is_int(status_of(s, n), 431, "too many header lines: 431");
	n = (size_t)snprintf(s, big + 1, "GET / HTTP/1.1\r\nX-Big: ");
	memset(s + n, 'v', big - n);
	is_int(status_of(s, big), 431, "a head past 8 KiB: 431");
	is_int(status_of(s, KAI_HTTP_HEAD_MAX - 1), 1,
	    "one byte short of the limit: more bytes wanted");
	n = (size_t)snprintf(s, big + 1, "GET / HTTP/1.1\r\nX: ");
	memset(s + n, 'v', KAI_HTTP_HEAD_MAX - n - 4);
	memcpy(s + KAI_HTTP_HEAD_MAX - 4, "\r\n\r\n", 4);
	is_int(status_of(s, KAI_HTTP_HEAD_MAX), 0,
	    "a head of exactly 8 KiB parses");
	free(s);
	is_str(kai_http_reason(431), "Request Header Fields Too Large",
	    "reason phrase of 431");
	is_str(kai_http_reason(299), "Unknown", "an unknown status");
}

/* The webhook's port: POST with a Content-Length, and only POST. */
static int
post_status(const char *s, struct kai_http_req *req)
{
	struct kai_err err;
	int r = kai_http_parse_post(s, strlen(s), req, &err);

	return r == KAI_EPROTO ? req->status : r;
}

static void
post_heads(void)
{
	struct kai_http_req req;

	is_int(post_status("POST /mutate?timeout=10s HTTP/1.1\r\nHost: a\r\n"
	    "Content-Type: application/json\r\nContent-Length: 1234\r\n"
	    "\r\n{", &req), 0, "a POST parses");
	ok(req.post && !req.head, "it is a POST");
	is_str(req.path, "/mutate", "its path");
	is_int(req.content_length, 1234, "Content-Length 1234");
	ok(!req.chunked, "not chunked");
	ok(!req.close, "HTTP/1.1 without Connection: kept open");
	is_int(post_status("POST / HTTP/1.1\r\ncontent-length:  7 \r\n\r\n",
	    &req), 0, "a lower-case name and spaces");
	is_int(req.content_length, 7, "Content-Length 7");
	is_int(post_status("POST / HTTP/1.1\r\n\r\n", &req), 0,
	    "no Content-Length parses");
	is_int(req.content_length, -1, "... and says none");
	is_int(post_status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n", &req), 0, "chunked parses");
	ok(req.chunked, "... and says so");
	is_int(post_status("POST / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n",
	    &req), 400, "a list of lengths: 400");
	is_int(post_status("POST / HTTP/1.1\r\nContent-Length: 1\r\n"
	    "Content-Length: 1\r\n\r\n", &req), 400, "a repeated length: 400");
	is_int(post_status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
	    &req), 400, "a negative length: 400");
	is_int(post_status("POST / HTTP/1.1\r\nContent-Length: "
	    "99999999999999999999\r\n\r\n", &req), 400,
	    "an overflowing length: 400");
	is_int(post_status("POST / HTTP/1.1\r\nConnection: keep-alive, Close"
	    "\r\n\r\n", &req), 0, "a Connection list parses");
	ok(req.close, "... and its close is seen");
	is_int(post_status("POST / HTTP/1.0\r\n\r\n", &req), 0,
	    "HTTP/1.0 parses");
	ok(req.close, "... and closes");
	is_int(post_status("GET / HTTP/1.1\r\n\r\n", &req), 405,
	    "GET on the POST port: 405");
	is_int(status("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\n"), 405,
	    "POST on the GET port: still 405");
}

int
main(void)
{
	plan(55);
	good_heads();
	bad_heads();
	limits();
	post_heads();
	return done_testing();
}
