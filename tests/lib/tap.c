/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.c: TAP output for the unit tests.  See tap.h.
 */
#include "config.h"

#include "tap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

void
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

void
skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static int report(int cond, const char *file, int line, const char *fmt,
    va_list ap) KAI_PRINTF(4, 0);

static int
report(int cond, const char *file, int line, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return cond;
}

int
ok_at(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)report(cond, file, line, fmt, ap);
	va_end(ap);
	return cond;
}

int
is_int_at(int64_t got, int64_t want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int cond = got == want;

	va_start(ap, fmt);
	(void)report(cond, file, line, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#          got: %" PRId64 "\n#     expected: %" PRId64 "\n",
		    got, want);
	return cond;
}

int
is_str_at(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int cond;

	if (got == NULL || want == NULL)
		cond = got == want;
	else
		cond = strcmp(got, want) == 0;
	va_start(ap, fmt);
	(void)report(cond, file, line, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#          got: \"%s\"\n#     expected: \"%s\"\n",
		    got != NULL ? got : "(null)", want != NULL ? want : "(null)");
	return cond;
}

void
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int
done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		printf("# planned %d tests but ran %d\n", tap_planned, tap_run);
	fflush(stdout);
	return tap_failed != 0 || (tap_planned >= 0 && tap_planned != tap_run);
}
