/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base-base64: encoding against the RFC 4648 section 10 vectors, and
 * every byte value through encode and decode.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "tap.h"

int
main(void)
{
	static const char *const v[][2] = {
		{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
		{"foobar", "Zm9vYmFy"},
	};
	unsigned char all[256];
	struct kai_err err;
	char *e, *d;
	size_t i, n;

	plan(9);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		e = kai_base64_encode(v[i][0], strlen(v[i][0]));
		is_str(e, v[i][1], "encode \"%s\"", v[i][0]);
		free(e);
	}
	for (i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)(255 - i);
	e = kai_base64_encode(all, sizeof(all));
	ok(kai_base64_decode(e, strlen(e), &d, &n, &err) == 0, "decodes");
	ok(n == sizeof(all) && memcmp(d, all, n) == 0,
	    "every byte value round-trips");
	free(d);
	free(e);
	return done_testing();
}
