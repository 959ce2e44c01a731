/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base64.c: base64 decoding and encoding.  See base64.h.
 */
#include "config.h"

#include "base/base64.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/xmalloc.h"

/* The value of a base64 digit, or -1. */
static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static bool
b64_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Only whitespace and at most two "=" may follow the first "=". */
static int
b64_tail(const char *s, size_t i, size_t n, unsigned int ndigits,
    struct kai_err *err)
{
	unsigned int npad = 0;

	for (; i < n; i++) {
		if (b64_space(s[i]))
			continue;
		if (s[i] != '=' || ++npad > 2)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid base64: unexpected character after padding");
	}
	if (ndigits + npad != 4)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid base64: wrong amount of padding");
	return 0;
}

int
kai_base64_decode(const char *s, size_t n, char **out, size_t *outlen,
    struct kai_err *err)
{
	uint32_t acc = 0;
	unsigned int ndigits = 0;
	size_t i, len = 0;
	char *p;
	int v;

	*out = NULL;
	p = kai_xmalloc(n / 4 * 3 + 3);
	for (i = 0; i < n; i++) {
		if (b64_space(s[i]))
			continue;
		if (s[i] == '=') {
			if (b64_tail(s, i, n, ndigits, err) != 0)
				goto fail;
			break;
		}
		if ((v = b64_value(s[i])) < 0) {
			kai_err_set(err, KAI_EINVAL,
			    "invalid base64: unexpected character at offset %zu",
			    i);
			goto fail;
		}
		acc = acc << 6 | (uint32_t)v;
		if (++ndigits == 4) {
			p[len++] = (char)(acc >> 16);
			p[len++] = (char)(acc >> 8);
			p[len++] = (char)acc;
			acc = 0;
			ndigits = 0;
		}
	}
	if (ndigits == 1) {
		kai_err_set(err, KAI_EINVAL, "invalid base64: truncated data");
		goto fail;
	}
	if (ndigits >= 2)
		p[len++] = (char)(acc >> (ndigits == 2 ? 4 : 10));
	if (ndigits == 3)
		p[len++] = (char)(acc >> 2);
	p[len] = '\0';
	*out = p;
	if (outlen != NULL)
		*outlen = len;
	return 0;
fail:
	free(p);
	return KAI_EINVAL;
}

char *
kai_base64_encode(const void *p, size_t n)
{
	static const char digits[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *b = p;
	char *out = kai_xmalloc((n + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 |
		    b[i + 2];

		*o++ = digits[v >> 18];
		*o++ = digits[(v >> 12) & 63];
		*o++ = digits[(v >> 6) & 63];
		*o++ = digits[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)b[i] << 16 |
		    (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0);

		*o++ = digits[v >> 18];
		*o++ = digits[(v >> 12) & 63];
		*o++ = i + 1 < n ? digits[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}
