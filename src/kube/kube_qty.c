/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_qty.c: Kubernetes resource quantities ("500m", "32", "256Gi",
 * "1.5G", "12e3").
 *
 * A quantity is a decimal number with an optional fraction and one
 * suffix: binary (Ki Mi Gi Ti Pi Ei), decimal (n u m k M G T P E) or an
 * exponent (e3, E-2).  The value is kept exactly as num * 10^exp10 *
 * 2^exp2 in 128-bit integers and only then scaled to the unit the caller
 * wants, rounding up like the apiserver does (a request of "0.1m" CPU
 * still takes 1 milli-CPU).  Floating point would turn "0.1" into
 * 100.00000000000001 and round it up to 101.  Negative quantities are
 * refused: no resource kaid reads can be negative.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kube/kube_int.h"

#define QTY_MAX_DIGITS 30 /* 10^30 < 2^100 leaves room to scale */
#define QTY_MAX_EXP    40

typedef unsigned __int128 qty_u128;

#define QTY_LIMIT ((qty_u128)1 << 120)

struct qty {
	qty_u128 num; /* the digits, without the point */
	int exp10;
	int exp2;
};

static const struct {
	const char *sfx;
	int exp10;
	int exp2;
} qty_suffixes[] = {
    {"Ki", 0, 10},
    {"Mi", 0, 20},
    {"Gi", 0, 30},
    {"Ti", 0, 40},
    {"Pi", 0, 50},
    {"Ei", 0, 60},
    {"n", -9, 0},
    {"u", -6, 0},
    {"m", -3, 0},
    {"", 0, 0},
    {"k", 3, 0},
    {"M", 6, 0},
    {"G", 9, 0},
    {"T", 12, 0},
    {"P", 15, 0},
    {"E", 18, 0},
};

static int
qty_bad(const char *s, const char *why, struct kai_err *err)
{
	return kai_err_set(err, KAI_EINVAL, "invalid quantity \"%.64s\": %s", s,
	    why);
}

/* Reads "e<int>" / "E<int>" (a decimal exponent). */
static bool
qty_exponent(const char *p, int *exp10)
{
	bool neg = false;
	int v = 0;

	if (*p != 'e' && *p != 'E')
		return false;
	p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > QTY_MAX_EXP)
			return false;
	}
	if (*p != '\0')
		return false;
	*exp10 = neg ? -v : v;
	return true;
}

static int
qty_suffix(const char *s, const char *p, struct qty *q, struct kai_err *err)
{
	size_t i;
	int e;

	for (i = 0; i < KAI_NELEM(qty_suffixes); i++) {
		if (strcmp(p, qty_suffixes[i].sfx) == 0) {
			q->exp10 += qty_suffixes[i].exp10;
			q->exp2 = qty_suffixes[i].exp2;
			return 0;
		}
	}
	if (qty_exponent(p, &e)) {
		q->exp10 += e;
		return 0;
	}
	return qty_bad(s, "unrecognized suffix", err);
}

static int
qty_parse(const char *s, struct qty *q, struct kai_err *err)
{
	const char *p = s;
	int ndigits = 0;
	bool point = false;

	memset(q, 0, sizeof(*q));
	if (*p == '+')
		p++;
	else if (*p == '-')
		return qty_bad(s, "negative", err);
	for (;; p++) {
		if (*p == '.' && !point) {
			point = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		if (++ndigits > QTY_MAX_DIGITS)
			return qty_bad(s, "too many digits", err);
		q->num = q->num * 10 + (qty_u128)(*p - '0');
		if (point)
			q->exp10--;
	}
	if (ndigits == 0)
		return qty_bad(s, "not a number", err);
	return qty_suffix(s, p, q, err);
}

/* q in units of 10^-k, rounded up, if it is at most max. */
static bool
qty_scale(const struct qty *q, int k, uint64_t max, uint64_t *out)
{
	qty_u128 n = q->num;
	bool rest = false;
	int i, e = q->exp10 + k;

	/* Intermediates may pass max if a fraction divides them back. */
	for (i = 0; i < q->exp2; i++) {
		if (n > QTY_LIMIT)
			return false;
		n <<= 1;
	}
	for (; e > 0; e--) {
		if (n > QTY_LIMIT)
			return false;
		n *= 10;
	}
	for (; e < 0 && n > 0; e++) {
		rest |= n % 10 != 0;
		n /= 10;
	}
	if (rest)
		n++;
	if (n > (qty_u128)max)
		return false;
	*out = (uint64_t)n;
	return true;
}

int
kube_qty_milli(const char *s, int64_t *milli, struct kai_err *err)
{
	struct qty q;
	uint64_t v;
	int r;

	if ((r = qty_parse(s, &q, err)) != 0)
		return r;
	if (!qty_scale(&q, 3, INT64_MAX, &v))
		return qty_bad(s, "too large", err);
	*milli = (int64_t)v;
	return 0;
}

int
kube_qty_bytes(const char *s, uint64_t *bytes, struct kai_err *err)
{
	struct qty q;
	int r;

	if ((r = qty_parse(s, &q, err)) != 0)
		return r;
	if (!qty_scale(&q, 0, INT64_MAX, bytes))
		return qty_bad(s, "too large", err);
	return 0;
}
