/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * http.h: the request head of kaid's HTTP endpoint (health probes and
 * metrics), parsed from bytes with hard limits.
 *
 * kaid answers GET and HEAD on a handful of fixed paths and closes every
 * connection after one reply, so the parser only needs the request line
 * and must only prove the header lines well formed: it keeps no header.
 * Whatever is wrong with a head maps to the status the server answers:
 * 400 (malformed), 405 (a method other than GET and HEAD), 414 (target or
 * request line too long), 431 (head or a header too large, too many
 * headers), 505 (not HTTP/1.x).  Pure: bytes in, a struct out.
 */
#ifndef KAI_PROTO_HTTP_H
#define KAI_PROTO_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_HTTP_HEAD_MAX    8192 /* request line + headers + blank line */
#define KAI_HTTP_TARGET_MAX  1024 /* bytes of the request target */
#define KAI_HTTP_HEADERS_MAX 64   /* header lines */

struct kai_http_req {
	bool head;			    /* HEAD: answer without a body */
	bool post;			    /* POST (kai_http_parse_post()) */
	int64_t content_length;		    /* Content-Length; -1 = none */
	bool chunked;			    /* a Transfer-Encoding header */
	bool close;			    /* Connection: close, or HTTP/1.0:
					       no second request follows */
	char path[KAI_HTTP_TARGET_MAX + 1]; /* target without its query */
	int minor;			    /* HTTP/1.<minor> */
	size_t head_len;		    /* bytes of the head, blank line included */
	int status;			    /* on error: the status to answer */
};

/*
 * Parses the request head at the start of buf[0..len).  Returns 0 when a
 * whole, valid GET or HEAD head is there (req filled, req->head_len its
 * length; bytes after it are not looked at), KAI_EAGAIN when more bytes
 * are needed and may still make a valid head, or KAI_EPROTO with
 * req->status set (400, 405, 414, 431 or 505) and err saying why
 * ("method \"POST\" not allowed").  Lines may end in CRLF or LF.
 */
int kai_http_parse(const char *buf, size_t len, struct kai_http_req *req,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * As kai_http_parse(), for a port that takes POST with a body (kaid's
 * admission webhook) and only POST: any other method is 405.  The body's
 * length is req->content_length (a malformed or repeated Content-Length
 * is 400); the caller refuses what it cannot take (411 without a length,
 * 413 too large, 501 chunked).
 */
int kai_http_parse_post(const char *buf, size_t len, struct kai_http_req *req,
    struct kai_err *err) KAI_MUST_CHECK;

/* The reason phrase of status ("Not Found"); "Unknown" for others. */
const char *kai_http_reason(int status);

#endif /* KAI_PROTO_HTTP_H */
