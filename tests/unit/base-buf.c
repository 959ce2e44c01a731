/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base-buf: the bounded buffer, error helpers and strict number parsing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "tap.h"

static void
test_buf(void)
{
	struct kai_buf b;
	char *p;
	size_t n;
	int i, r = 0;

	kai_buf_init(&b, 16);
	is_int(kai_buf_adds(&b, "hello"), 0, "add within max");
	is_int(kai_buf_addf(&b, " %d", 42), 0, "addf within max");
	is_str(b.data, "hello 42", "content after adds");
	is_int(kai_buf_adds(&b, "0123456789"), KAI_EINVAL, "add past max fails");
	is_str(b.data, "hello 42", "failed add leaves buffer unchanged");
	is_int(kai_buf_addf(&b, "%s", "0123456789"), KAI_EINVAL,
	    "addf past max fails");
	is_str(b.data, "hello 42", "failed addf leaves buffer unchanged");
	kai_buf_consume(&b, 6);
	is_str(b.data, "42", "consume drops the front");
	p = kai_buf_detach(&b, &n);
	is_str(p, "42", "detach hands over the data");
	is_int((int64_t)n, 2, "detach gives the length");
	is_int((int64_t)b.len, 0, "buffer empty after detach");
	free(p);
	kai_buf_fini(&b);

	kai_buf_init(&b, 100000);
	for (i = 0; i < 1000; i++)
		r |= kai_buf_addf(&b, "%04d,", i);
	is_int(r, 0, "growth across many appends");
	is_int((int64_t)b.len, 5000, "length after growth");
	ok(strncmp(b.data + 4995, "0999,", 5) == 0, "last element intact");
	kai_buf_fini(&b);
}

static void
test_err(void)
{
	struct kai_err e;

	kai_err_clear(&e);
	is_int(kai_err_set(&e, KAI_EINVAL, "invalid time limit \"%s\"", "3x"),
	    KAI_EINVAL, "set returns the code");
	is_int(kai_err_prefix(&e, "job %d", 42), KAI_EINVAL,
	    "prefix returns the code");
	is_str(e.msg, "job 42: invalid time limit \"3x\"", "prefix adds context");
	is_str(kai_strerror(KAI_EPERM), "permission denied", "strerror");
	is_str(kai_errname(KAI_EAUTH), "EAUTH", "errname");
	is_str(kai_strerror(5), "unrecognized error", "strerror out of range");
	is_int(kai_err_set(NULL, KAI_ENOENT, "x"), KAI_ENOENT,
	    "set with NULL err still returns the code");
}

static void
test_oneline(void)
{
	struct kai_err e;
	char out[16];

	kai_err_set(&e, KAI_ENOENT, "no queue \"%s\"", "a\nb\r\tc\033d\x7f");
	is_str(e.msg, "no queue \"a\\nb\\r\\tc\\x1bd\\x7f\"",
	    "a message is one line: control characters escaped");
	kai_err_prefix(&e, "job %s", "1\n2");
	is_str(e.msg, "job 1\\n2: no queue \"a\\nb\\r\\tc\\x1bd\\x7f\"",
	    "a prefix is escaped, the escaped rest is left as it is");
	is_int((int64_t)kai_str_oneline(out, sizeof(out), "caf\xc3\xa9 \\n"),
	    8, "UTF-8 and a backslash are copied");
	is_str(out, "caf\xc3\xa9 \\n", "  unchanged");
	is_int((int64_t)kai_str_oneline(out, sizeof(out), "0123456789abcd\n"),
	    14, "an escape that does not fit is left out whole");
	is_str(out, "0123456789abcd", "  never cut in half");
}

static void
test_strconv(void)
{
	struct kai_err e;
	int64_t v;
	uint64_t u;
	double d;

	is_int(kai_strtoi64("42", 0, 100, &v, "ntasks", &e), 0, "i64 ok");
	is_int(v, 42, "i64 value");
	is_int(kai_strtoi64("4x", 0, 100, &v, "ntasks", &e), KAI_EINVAL,
	    "i64 trailing junk");
	is_str(e.msg, "invalid ntasks \"4x\": not a number", "i64 junk message");
	is_int(kai_strtoi64("101", 0, 100, &v, "ntasks", &e), KAI_EINVAL,
	    "i64 over max");
	is_int(kai_strtoi64("", 0, 100, &v, "ntasks", &e), KAI_EINVAL,
	    "i64 empty");
	is_int(kai_strtou64("-1", 10, &u, "id", &e), KAI_EINVAL, "u64 sign");
	is_int(kai_strtou64("99999999999999999999999", UINT64_MAX, &u, "id",
		   &e),
	    KAI_EINVAL, "u64 overflow");
	is_int(kai_strtod("0.5", 0, 1, &d, "fraction", &e), 0, "double ok");
	is_int(kai_strtod("nan", 0, 1, &d, "fraction", &e), KAI_EINVAL,
	    "double nan refused");
}

static void
test_map(void)
{
	struct kai_map m;
	char key[32];
	const char *k;
	void *v;
	size_t it = 0, seen = 0;
	int i, bad = 0;

	kai_map_init(&m, free);
	for (i = 0; i < 5000; i++) {
		(void)snprintf(key, sizeof(key), "kai-%d-0", i);
		kai_map_put(&m, key, kai_xasprintf("%d", i));
	}
	is_int((int64_t)m.len, 5000, "map holds every key");
	for (i = 0; i < 5000; i += 2) {
		(void)snprintf(key, sizeof(key), "kai-%d-0", i);
		kai_map_del(&m, key);
	}
	is_int((int64_t)m.len, 2500, "deletes remove entries");
	for (i = 0; i < 5000; i++) {
		(void)snprintf(key, sizeof(key), "kai-%d-0", i);
		v = kai_map_get(&m, key);
		if ((i % 2 == 0) != (v == NULL))
			bad++;
		else if (v != NULL && strtol(v, NULL, 10) != i)
			bad++;
	}
	is_int(bad, 0, "lookups after deletes find exactly the live keys");
	kai_map_put(&m, "kai-1-0", kai_xstrdup("replaced"));
	is_str(kai_map_get(&m, "kai-1-0"), "replaced", "put replaces");
	while (kai_map_next(&m, &it, &k, &v))
		seen++;
	is_int((int64_t)seen, 2500, "iteration visits every live entry");
	kai_map_fini(&m);
}

int
main(void)
{
	test_map();
	test_buf();
	test_err();
	test_oneline();
	test_strconv();
	return done_testing();
}
