/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * http.c: the HTTP/1.x request head parser of kaid's health and metrics
 * endpoint (RFC 9112, the subset a probe or a scraper sends).
 *
 * The parser is re-run on the whole buffer whenever bytes arrive: heads
 * are at most 8 KiB, so this costs nothing and keeps no state between
 * calls.  It judges a partial head as far as it goes, so "POST " is
 * refused with 405 before the rest arrives and a target over the limit
 * with 414 before its end, and only a head that could still become valid
 * asks for more bytes.  Nothing past the blank line is read: kaid takes
 * no request bodies and closes the connection after its reply.
 */
#include "config.h"

#include "proto/http.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define METHOD_MAX 16

/* RFC 9110 tchar. */
static bool
is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || (c != '\0' && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

static int
fail(struct kai_http_req *req, int status, struct kai_err *err,
    const char *what)
{
	req->status = status;
	return kai_err_set(err, KAI_EPROTO, "%s", what);
}

/* The line at p[0..n) without its CR; n excludes the LF. */
static size_t
strip_cr(const char *p, size_t n)
{
	return n > 0 && p[n - 1] == '\r' ? n - 1 : n;
}

/* "HTTP/1.0" or "HTTP/1.1" (v[0..n)), complete: the line ended. */
static int
parse_version(const char *v, size_t n, bool complete,
    struct kai_http_req *req, struct kai_err *err)
{
	static const char want[] = "HTTP/1.";

	if (!complete) {
		if (n > sizeof(want) || memcmp(v, want, n < sizeof(want) - 1 ?
		    n : sizeof(want) - 1) != 0)
			return fail(req, 400, err, "malformed HTTP version");
		return KAI_EAGAIN;
	}
	if (n == 8 && memcmp(v, want, 7) == 0 && (v[7] == '0' || v[7] == '1')) {
		req->minor = v[7] - '0';
		return 0;
	}
	if (n == 8 && memcmp(v, "HTTP/", 5) == 0 && v[5] >= '0' &&
	    v[5] <= '9' && v[6] == '.' && v[7] >= '0' && v[7] <= '9')
		return fail(req, 505, err, "HTTP version not supported");
	return fail(req, 400, err, "malformed HTTP version");
}

/* The request target t[0..n): origin-form, visible ASCII. */
static int
parse_target(const char *t, size_t n, struct kai_http_req *req,
    struct kai_err *err)
{
	size_t i, plen = n;

	if (n == 0 || t[0] != '/')
		return fail(req, 400, err, "request target is not a path");
	for (i = 0; i < n; i++) {
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return fail(req, 400, err,
			    "invalid character in request target");
		if ((t[i] == '?' || t[i] == '#') && plen == n)
			plen = i;
	}
	memcpy(req->path, t, plen);
	req->path[plen] = '\0';
	return 0;
}

/*
 * The request line p[0..n) (without LF); complete says whether its LF
 * arrived.  A partial line is judged as far as it goes.
 */
static int
parse_request_line(const char *p, size_t n, bool complete, bool want_post,
    struct kai_http_req *req, struct kai_err *err)
{
	const char *sp1, *sp2;
	size_t mlen, tlen;

	n = strip_cr(p, n); /* a partial line's CR awaits its LF */
	for (mlen = 0; mlen < n && p[mlen] != ' '; mlen++)
		if (!is_tchar((unsigned char)p[mlen]))
			return fail(req, 400, err, "malformed request line");
	if (mlen > METHOD_MAX)
		return fail(req, 400, err, "method name too long");
	if (mlen == n)
		return complete ? fail(req, 400, err,
		    "malformed request line") : KAI_EAGAIN;
	if (mlen == 0)
		return fail(req, 400, err, "malformed request line");
	req->post = mlen == 4 && memcmp(p, "POST", 4) == 0;
	if (want_post ? !req->post :
	    !(mlen == 3 && memcmp(p, "GET", 3) == 0) &&
	    !(mlen == 4 && memcmp(p, "HEAD", 4) == 0)) {
		req->status = 405;
		return kai_err_set(err, KAI_EPROTO,
		    "method \"%.*s\" not allowed", (int)mlen, p);
	}
	req->head = mlen == 4 && !req->post;
	sp1 = p + mlen;
	sp2 = memchr(sp1 + 1, ' ', n - mlen - 1);
	tlen = sp2 != NULL ? (size_t)(sp2 - sp1 - 1) : n - mlen - 1;
	if (tlen > KAI_HTTP_TARGET_MAX)
		return fail(req, 414, err, "request target too long");
	if (sp2 == NULL)
		return complete ? fail(req, 400, err,
		    "malformed request line") : KAI_EAGAIN;
	if (parse_target(sp1 + 1, tlen, req, err) != 0)
		return KAI_EPROTO;
	return parse_version(sp2 + 1, (size_t)(p + n - sp2 - 1), complete,
	    req, err);
}

/* Whether header line h[0..n) has the name name (any case). */
static bool
header_is(const char *h, size_t n, const char *name)
{
	size_t len = strlen(name);

	return n > len && h[len] == ':' && strncasecmp(h, name, len) == 0;
}

/*
 * Content-Length (digits, once: RFC 9112 6.3 refuses a list or a repeat)
 * and whether a Transfer-Encoding is there.
 */
static int
body_header(const char *h, size_t n, struct kai_http_req *req,
    struct kai_err *err)
{
	size_t i, end;
	int64_t v = 0;

	if (header_is(h, n, "transfer-encoding")) {
		req->chunked = true;
		return 0;
	}
	if (header_is(h, n, "connection")) {
		/* A token list ("keep-alive, close"): any "close" ends it. */
		for (i = strlen("connection") + 1; i + 5 <= n; i++)
			if (strncasecmp(h + i, "close", 5) == 0)
				req->close = true;
		return 0;
	}
	if (!header_is(h, n, "content-length"))
		return 0;
	for (i = strlen("content-length") + 1; i < n && (h[i] == ' ' ||
	    h[i] == '\t'); i++)
		continue;
	for (end = n; end > i && (h[end - 1] == ' ' || h[end - 1] == '\t');)
		end--;
	if (req->content_length >= 0 || i == end)
		return fail(req, 400, err, "malformed Content-Length");
	for (; i < end; i++) {
		if (h[i] < '0' || h[i] > '9' || v > (INT64_MAX - 9) / 10)
			return fail(req, 400, err, "malformed Content-Length");
		v = v * 10 + (h[i] - '0');
	}
	req->content_length = v;
	return 0;
}

/* One header line h[0..n) (without CR LF): name ":" value. */
static int
check_header(const char *h, size_t n, struct kai_http_req *req,
    struct kai_err *err)
{
	size_t i;

	if (h[0] == ' ' || h[0] == '\t')
		return fail(req, 400, err, "folded header line");
	for (i = 0; i < n && h[i] != ':'; i++)
		if (!is_tchar((unsigned char)h[i]))
			return fail(req, 400, err, "malformed header name");
	if (i == 0 || i == n)
		return fail(req, 400, err, "malformed header line");
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)h[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(req, 400, err,
			    "invalid character in header value");
	}
	return body_header(h, n, req, err);
}

static int
parse_head(const char *buf, size_t len, bool want_post,
    struct kai_http_req *req, struct kai_err *err)
{
	size_t lim = len < KAI_HTTP_HEAD_MAX ? len : KAI_HTTP_HEAD_MAX;
	const char *lf = memchr(buf, '\n', lim);
	size_t off, n, nhdr = 0;
	int r;

	memset(req, 0, sizeof(*req));
	req->content_length = -1;
	r = parse_request_line(buf, lf != NULL ? (size_t)(lf - buf) : lim,
	    lf != NULL, want_post, req, err);
	if (r == KAI_EAGAIN && len >= KAI_HTTP_HEAD_MAX)
		return fail(req, 414, err, "request line too long");
	if (r != 0)
		return r;
	for (off = (size_t)(lf - buf) + 1; off < lim; off += n + 1) {
		lf = memchr(buf + off, '\n', lim - off);
		if (lf == NULL)
			break;
		n = strip_cr(buf + off, (size_t)(lf - (buf + off)));
		if (n == 0) {
			req->head_len = (size_t)(lf - buf) + 1;
			if (req->minor == 0)
				req->close = true;
			return 0;
		}
		if (++nhdr > KAI_HTTP_HEADERS_MAX)
			return fail(req, 431, err, "too many header lines");
		if (check_header(buf + off, n, req, err) != 0)
			return KAI_EPROTO;
		n = (size_t)(lf - (buf + off));
	}
	if (len >= KAI_HTTP_HEAD_MAX)
		return fail(req, 431, err, "request head too large");
	return KAI_EAGAIN;
}

int
kai_http_parse(const char *buf, size_t len, struct kai_http_req *req,
    struct kai_err *err)
{
	return parse_head(buf, len, false, req, err);
}

int
kai_http_parse_post(const char *buf, size_t len, struct kai_http_req *req,
    struct kai_err *err)
{
	return parse_head(buf, len, true, req, err);
}

const char *
kai_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Unknown";
	}
}
