/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.h: a tiny Test Anything Protocol harness for the unit tests.
 *
 * plan(n) or done_testing() at the end; ok() and the is_*() checks print
 * both operands on failure (libuv ASSERT_EQ), so a failing line says what
 * was expected and what came.  The exit status is non-zero when any check
 * failed, and automake's tap-driver.sh reads the output.
 */
#ifndef KAI_TESTS_TAP_H
#define KAI_TESTS_TAP_H

#include <stdint.h>

#include "base/compiler.h"

void plan(int n);
KAI_NORETURN void skip_all(const char *why);
int ok_at(int cond, const char *file, int line, const char *fmt, ...)
    KAI_PRINTF(4, 5);
int is_int_at(int64_t got, int64_t want, const char *file, int line,
    const char *fmt, ...) KAI_PRINTF(5, 6);
int is_str_at(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...) KAI_PRINTF(5, 6);
void diag(const char *fmt, ...) KAI_PRINTF(1, 2);
int done_testing(void);

#define ok(cond, ...)	     ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(g, w, ...)    is_int_at((g), (w), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(g, w, ...)    is_str_at((g), (w), __FILE__, __LINE__, __VA_ARGS__)

#endif /* KAI_TESTS_TAP_H */
