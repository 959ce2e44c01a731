/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strconv.h: strict string-to-number conversion.
 *
 * The whole string must be a number in [min, max]; no sign games, no
 * trailing junk, no silent overflow.  what names the thing being parsed in
 * the error message: "invalid ntasks \"x\": not a number".
 */
#ifndef KAI_BASE_STRCONV_H
#define KAI_BASE_STRCONV_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

int kai_strtoi64(const char *s, int64_t min, int64_t max, int64_t *out,
    const char *what, struct kai_err *err) KAI_MUST_CHECK;
int kai_strtou64(const char *s, uint64_t max, uint64_t *out, const char *what,
    struct kai_err *err) KAI_MUST_CHECK;
/* A decimal like "0.5" in [min, max]. */
int kai_strtod(const char *s, double min, double max, double *out,
    const char *what, struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_BASE_STRCONV_H */
