/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_time.c: the API server's timestamps (RFC 3339, as metav1.Time
 * writes them: "2026-11-28T08:09:10Z", or with a fraction and an offset
 * from other writers) as unix seconds.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "kube/kube.h"

/* n digits at *p into *v, advancing *p; false unless all are digits. */
static bool
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return true;
}

static bool
sep(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

int
kai_kube_time_parse(const char *s, int64_t *out)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	struct tm tm;
	time_t t;

	if (!digits(&p, 4, &y) || !sep(&p, '-') || !digits(&p, 2, &mo) ||
	    !sep(&p, '-') || !digits(&p, 2, &d) ||
	    !(sep(&p, 'T') || sep(&p, 't')) || !digits(&p, 2, &h) ||
	    !sep(&p, ':') || !digits(&p, 2, &mi) || !sep(&p, ':') ||
	    !digits(&p, 2, &sec))
		return -1;
	if (*p == '.') {	/* a fraction: whole seconds are enough */
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		p++;
		if (!digits(&p, 2, &oh) || !sep(&p, ':') ||
		    !digits(&p, 2, &om) || oh > 23 || om > 59)
			return -1;
	} else {
		return -1;
	}
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1 || tm.tm_mday != d)	/* Feb 30 and the like */
		return -1;
	*out = (int64_t)t - sign * (oh * 3600 + om * 60);
	return 0;
}
