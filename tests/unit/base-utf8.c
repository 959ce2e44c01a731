/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base-utf8: the well-formed sequences PostgreSQL stores are accepted,
 * and each kind of ill-formed one is found at its first byte.
 */
#include "config.h"

#include <string.h>

#include "base/utf8.h"
#include "tap.h"

struct utf8_case {
	const char *what;
	const char *s;
	size_t want;	/* offset of the first bad byte; strlen(s) = none */
};

static const struct utf8_case cases[] = {
	{"empty", "", 0},
	{"ASCII", "train-42", 8},
	{"two bytes (U+00E9)", "caf\xc3\xa9", 5},
	{"three bytes (U+20AC)", "\xe2\x82\xac", 3},
	{"four bytes (U+1F600)", "x\xf0\x9f\x98\x80y", 6},
	{"largest code point U+10FFFF", "\xf4\x8f\xbf\xbf", 4},
	{"0xff", "job\xff", 3},
	{"0xfe", "\xfe", 0},
	{"a lone continuation byte", "a\x80", 1},
	{"overlong NUL (0xc0 0x80)", "a\xc0\x80", 1},
	{"overlong '/' (0xc1 0xaf)", "\xc1\xaf", 0},
	{"overlong three bytes", "\xe0\x80\xaf", 0},
	{"overlong four bytes", "\xf0\x80\x80\xaf", 0},
	{"surrogate U+D800", "ok\xed\xa0\x80", 2},
	{"above U+10FFFF", "\xf4\x90\x80\x80", 0},
	{"0xf5 lead byte", "\xf5\x80\x80\x80", 0},
	{"truncated at the end", "abc\xe2\x82", 3},
	{"lead byte then ASCII", "\xc3(", 0},
	{"bad third byte", "\xe2\x82(", 0},
};

int
main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n);
	for (i = 0; i < n; i++)
		is_int((int64_t)kai_utf8_invalid_at(cases[i].s,
			   strlen(cases[i].s)),
		    (int64_t)cases[i].want, "%s", cases[i].what);
	return done_testing();
}
