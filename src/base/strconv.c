/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strconv.c: strict number parsing.  See strconv.h.
 */
#include "config.h"

#include "base/strconv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

int
kai_strtoi64(const char *s, int64_t min, int64_t max, int64_t *out,
    const char *what, struct kai_err *err)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return kai_err_set(err, KAI_EINVAL, "invalid %s \"%s\": not a number",
		    what, s != NULL ? s : "");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": not a number", what, s);
	if (errno == ERANGE || v < min || v > max)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": must be between %" PRId64 " and %" PRId64,
		    what, s, min, max);
	*out = (int64_t)v;
	return 0;
}

int
kai_strtou64(const char *s, uint64_t max, uint64_t *out, const char *what,
    struct kai_err *err)
{
	char *end;
	unsigned long long v;

	if (s == NULL || !isdigit((unsigned char)*s))
		return kai_err_set(err, KAI_EINVAL, "invalid %s \"%s\": not a number",
		    what, s != NULL ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": not a number", what, s);
	if (errno == ERANGE || v > max)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": must be at most %" PRIu64, what, s, max);
	*out = (uint64_t)v;
	return 0;
}

int
kai_strtod(const char *s, double min, double max, double *out,
    const char *what, struct kai_err *err)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return kai_err_set(err, KAI_EINVAL, "invalid %s \"%s\": not a number",
		    what, s != NULL ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": not a number", what, s);
	if (errno == ERANGE || v < min || v > max)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": must be between %g and %g", what, s, min,
		    max);
	*out = v;
	return 0;
}
