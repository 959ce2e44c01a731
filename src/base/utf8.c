/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * utf8.c: the well-formedness check of utf8.h, after the table of
 * well-formed byte sequences in the Unicode standard (ch. 3, table 3-7):
 * the second byte's range depends on the first, which is what rules out
 * overlong forms, surrogates and code points above U+10FFFF.
 */
#include "config.h"

#include "base/utf8.h"

#include <stdint.h>

/* The length of the sequence at x[0..n) (1..4), or 0 if it is not one. */
static size_t
seq_len(const uint8_t *x, size_t n)
{
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (x[0] < 0x80)
		return 1;
	if (x[0] >= 0xc2 && x[0] <= 0xdf)
		len = 2;
	else if (x[0] >= 0xe0 && x[0] <= 0xef)
		len = 3;
	else if (x[0] >= 0xf0 && x[0] <= 0xf4)
		len = 4;
	else
		return 0;	/* a continuation byte, 0xc0, 0xc1 or 0xf5.. */
	if (x[0] == 0xe0)
		lo = 0xa0;	/* overlong below U+0800 */
	else if (x[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (x[0] == 0xf0)
		lo = 0x90;	/* overlong below U+10000 */
	else if (x[0] == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (n < len || x[1] < lo || x[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (x[i] < 0x80 || x[i] > 0xbf)
			return 0;
	return len;
}

size_t
kai_utf8_invalid_at(const void *s, size_t n)
{
	const uint8_t *x = s;
	size_t off = 0, len;

	while (off < n) {
		/* ASCII, the common case, a byte at a time without the call */
		if (x[off] < 0x80) {
			off++;
			continue;
		}
		if ((len = seq_len(x + off, n - off)) == 0)
			return off;
		off += len;
	}
	return n;
}
