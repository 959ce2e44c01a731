/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slurmtime.c: Slurm's date/time syntax for sacct -S/-E.  See slurmtime.h.
 *
 * The string is read left to right as a series of parts (a word, a time,
 * a date, a "now" offset); each part fills in the date fields, the time
 * fields or both, and whatever is still unset afterwards is filled from
 * the rules in the header.
 */
#include "config.h"

#include "slurmtime.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct when {
	int year, mon, mday; /* tm-style (years since 1900, 0-11); -1 unset */
	int hour, min, sec;  /* -1 unset */
	struct tm now;       /* local time of now */
	int64_t now_t;
};

static const struct {
	const char *word;
	int hour; /* -1: a day word */
	int day_offset;
} words[] = {
    {"today", -1, 0},
    {"tomorrow", -1, 1},
    {"midnight", 0, 0},
    {"noon", 12, 0},
    {"elevenses", 11, 0},
    {"fika", 15, 0},
    {"teatime", 16, 0},
};

static const struct {
	const char *unit;
	int64_t secs;
} units[] = {
    {"seconds", 1},
    {"second", 1},
    {"minutes", 60},
    {"minute", 60},
    {"hours", 3600},
    {"hour", 3600},
    {"days", 86400},
    {"day", 86400},
    {"weeks", 604800},
    {"week", 604800},
};

static void
set_date_from(struct when *w, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL)
		return;
	w->year = tm.tm_year, w->mon = tm.tm_mon, w->mday = tm.tm_mday;
}

static bool
word_part(struct when *w, const char **p)
{
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i].word);
		if (strncasecmp(*p, words[i].word, n) != 0)
			continue;
		*p += n;
		if (words[i].hour < 0) {
			set_date_from(w,
			    w->now_t + (int64_t)words[i].day_offset * 86400);
		} else {
			w->hour = words[i].hour;
			w->min = w->sec = 0;
		}
		return true;
	}
	return false;
}

/* "now[{+|-}N[unit]]"; false on a malformed offset. */
static bool
now_part(struct when *w, const char **p)
{
	int64_t count = 0, sign = 1, mult = 1, t;
	const char *q = *p + 3;
	struct tm tm;
	time_t tt;
	size_t i, n;
	int ndig = 0;

	while (*q == ' ' || *q == '\t')
		q++;
	if (*q == '+' || *q == '-') {
		sign = *q++ == '-' ? -1 : 1;
		while (*q == ' ' || *q == '\t')
			q++;
		for (; isdigit((unsigned char)*q) && count < 1000000000; q++)
			count = count * 10 + (*q - '0'), ndig++;
		if (ndig == 0 || isdigit((unsigned char)*q))
			return false;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			n = strlen(units[i].unit);
			if (strncasecmp(q, units[i].unit, n) == 0) {
				mult = units[i].secs;
				q += n;
				break;
			}
		}
	}
	t = w->now_t + sign * count * mult;
	tt = (time_t)t;
	if (localtime_r(&tt, &tm) == NULL)
		return false;
	w->year = tm.tm_year, w->mon = tm.tm_mon, w->mday = tm.tm_mday;
	w->hour = tm.tm_hour, w->min = tm.tm_min, w->sec = tm.tm_sec;
	*p = q;
	return true;
}

/* Up to max digits into *v; the count read, 0 when none. */
static int
digits(const char **p, int max, int *v)
{
	int n = 0;

	*v = 0;
	while (n < max && isdigit((unsigned char)**p)) {
		*v = *v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n;
}

/* "H:MM[:SS] [AM|PM]" */
static bool
time_part(struct when *w, const char **p)
{
	int h, m, s = 0;

	if (digits(p, 2, &h) == 0 || h > 23 || **p != ':')
		return false;
	(*p)++;
	if (digits(p, 2, &m) != 2 || m > 59)
		return false;
	if (**p == ':') {
		(*p)++;
		if (digits(p, 2, &s) != 2 || s > 59)
			return false;
	}
	while (**p == ' ')
		(*p)++;
	if (strncasecmp(*p, "pm", 2) == 0 || strncasecmp(*p, "am", 2) == 0) {
		if (h > 12)
			return false;
		h = (**p == 'p' || **p == 'P') ? (h % 12) + 12 : h % 12;
		*p += 2;
	}
	w->hour = h, w->min = m, w->sec = s;
	return true;
}

/* "YYYY-MM-DD", "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]" */
static bool
date_part(struct when *w, const char **p)
{
	int y, m, d, yy = -1;

	if (strlen(*p) >= 10 && (*p)[4] == '-' && (*p)[7] == '-') {
		if (digits(p, 4, &y) != 4 || *(*p)++ != '-' ||
		    digits(p, 2, &m) != 2 || *(*p)++ != '-' ||
		    digits(p, 2, &d) != 2)
			return false;
		yy = y - 1900;
	} else {
		if (digits(p, 2, &m) == 0)
			return false;
		if (**p == '/' || **p == '.')
			(*p)++;
		if (digits(p, 2, &d) == 0)
			return false;
		if (**p == '/' || **p == '.')
			(*p)++;
		if (isdigit((unsigned char)**p)) {
			if (digits(p, 2, &y) != 2)
				return false;
			yy = y + 100;
		}
	}
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return false;
	w->mon = m - 1, w->mday = d, w->year = yy;
	return true;
}

static bool
starts_word(const char *p)
{
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncasecmp(p, words[i].word, strlen(words[i].word)) == 0)
			return true;
	return false;
}

static bool
part(struct when *w, const char **p)
{
	const char *q = *p;

	if (word_part(w, p))
		return true;
	if (strncasecmp(q, "now", 3) == 0)
		return now_part(w, p);
	if (!isdigit((unsigned char)*q))
		return false;
	if (q[1] == ':' || (q[1] != '\0' && q[2] == ':'))
		return time_part(w, p);
	return date_part(w, p);
}

int
slurmtime_parse(const char *s, int64_t now, int64_t *t, struct kai_err *err)
{
	struct when w = {-1, -1, -1, -1, -1, -1, {0}, now};
	const char *p = s;
	time_t tt = (time_t)now;
	struct tm tm;

	if (localtime_r(&tt, &w.now) == NULL)
		return kai_err_set(err, KAI_EINVAL, "invalid time \"%s\"", s);
	while (*p != '\0') {
		/* 'T' separates "2024-03-01T10:00" but starts "Today" */
		if (*p == ' ' || *p == '\t' || *p == '-' ||
		    (*p == 'T' && !starts_word(p))) {
			p++;
			continue;
		}
		if (!part(&w, &p))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid time \"%s\": unexpected \"%s\"", s, p);
	}
	if (w.hour < 0 && w.mday < 0)
		return kai_err_set(err, KAI_EINVAL, "invalid time \"%s\"", s);
	if (w.hour < 0)
		w.hour = w.min = w.sec = 0;
	if (w.mday < 0)
		w.year = w.now.tm_year, w.mon = w.now.tm_mon,
		w.mday = w.now.tm_mday;
	if (w.year < 0)
		w.year =
		    w.mon > w.now.tm_mon ? w.now.tm_year - 1 : w.now.tm_year;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = w.year, tm.tm_mon = w.mon, tm.tm_mday = w.mday;
	tm.tm_hour = w.hour, tm.tm_min = w.min, tm.tm_sec = w.sec;
	tm.tm_isdst = -1;
	if ((tt = mktime(&tm)) == (time_t)-1)
		return kai_err_set(err, KAI_EINVAL, "invalid time \"%s\"", s);
	*t = (int64_t)tt;
	return 0;
}
