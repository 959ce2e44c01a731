/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * array.c: job array index sets.  See array.h.
 *
 * The common forms ("0-9999", "1-9:2", "1,3,5-7") arrive sorted and
 * disjoint and are kept as written.  Anything else (overlaps, any order)
 * is expanded once into a bitmap and compressed again: contiguous runs
 * become "a-b", and a run of three or more with one stride "a-b:s",
 * unless its last member starts a contiguous run, so that "1,3,5-7"
 * reads back as written rather than as "1-5:2,6-7".
 */
#include "config.h"

#include "model/array.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

static void
push(struct kai_array *a, uint32_t lo, uint32_t hi, uint32_t step)
{
	a->r = kai_xreallocarray(a->r, a->n + 1, sizeof(*a->r));
	a->r[a->n].lo = lo;
	a->r[a->n].hi = hi;
	a->r[a->n].step = lo == hi ? 1 : step;
	a->n++;
}

/* Digits into *v (at most KAI_ARRAY_INDEX_MAX); advances *p. */
static bool
digits(const char **p, const char *end, uint32_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > 0xffffffffu)
			return false;
	}
	*p = s;
	*v = (uint32_t)x;
	return true;
}

/* One "A", "A-B" or "A-B:S" in [p, end). */
static int
item(const char *all, const char *p, const char *end, struct kai_array *a,
    struct kai_err *err)
{
	uint32_t lo, hi, step = 1;

	if (!digits(&p, end, &lo))
		goto bad;
	hi = lo;
	if (p < end && *p == '-') {
		p++;
		if (!digits(&p, end, &hi))
			goto bad;
		if (p < end && *p == ':') {
			p++;
			if (!digits(&p, end, &step))
				goto bad;
			if (step < 1)
				return kai_err_set(err, KAI_EINVAL,
				    "invalid array \"%s\": step must be at "
				    "least 1", all);
		}
	}
	if (p != end)
		goto bad;
	if (hi < lo)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid array \"%s\": maximum below minimum", all);
	if (hi > KAI_ARRAY_INDEX_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid array \"%s\": index %" PRIu32 " is over the "
		    "maximum %d", all, hi, KAI_ARRAY_INDEX_MAX);
	push(a, lo, lo + (hi - lo) / step * step, step);
	return 0;
bad:
	return kai_err_set(err, KAI_EINVAL, "invalid array \"%s\"", all);
}

static int
cmp_lo(const void *x, const void *y)
{
	const struct kai_array_range *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Whether a member of the sorted index list v[0..n) starts a "+1" run. */
static bool
starts_run(const uint32_t *v, size_t n, size_t i)
{
	return i + 1 < n && v[i + 1] == v[i] + 1;
}

/* Rebuilds a's ranges from the sorted, unique indices v[0..n). */
static void
compress(struct kai_array *a, const uint32_t *v, size_t n)
{
	size_t i = 0, j;
	uint32_t d = 1;

	while (i < n) {
		j = i;
		if (starts_run(v, n, i)) {
			while (starts_run(v, n, j))
				j++;
			push(a, v[i], v[j], 1);
			i = j + 1;
			continue;
		}
		if (i + 2 < n) {
			d = v[i + 1] - v[i];
			while (j + 1 < n && v[j + 1] - v[j] == d &&
			    !starts_run(v, n, j + 1))
				j++;
		}
		if (j - i + 1 >= 3) {
			push(a, v[i], v[j], d);
			i = j + 1;
		} else {
			push(a, v[i], v[i], 1);
			i++;
		}
	}
}

/* Merges overlapping or unordered ranges through a bitmap. */
static void
normalize(struct kai_array *a)
{
	struct kai_array_range *old = a->r;
	size_t i, n = a->n, m = 0;
	uint32_t x, *v;
	uint8_t *bits;

	for (i = 0; i + 1 < n; i++)
		if (old[i].hi >= old[i + 1].lo)
			break;
	if (i + 1 >= n)
		return;
	bits = kai_xcalloc(KAI_ARRAY_INDEX_MAX + 1, 1);
	for (i = 0; i < n; i++)
		for (x = old[i].lo; x <= old[i].hi; x += old[i].step)
			bits[x] = 1;
	v = kai_xcalloc(KAI_ARRAY_INDEX_MAX + 1, sizeof(*v));
	for (x = 0; x <= KAI_ARRAY_INDEX_MAX; x++)
		if (bits[x])
			v[m++] = x;
	a->r = NULL;
	a->n = 0;
	compress(a, v, m);
	free(old);
	free(bits);
	free(v);
}

int
kai_array_parse(const char *s, struct kai_array *out, struct kai_err *err)
{
	struct kai_array a = {NULL, 0, 0};
	const char *p = s, *pct = strchr(s, '%'), *end, *comma, *q;
	uint32_t thr = 0;

	end = pct != NULL ? pct : s + strlen(s);
	if (pct != NULL && (q = pct + 1, !digits(&q, q + strlen(q), &thr) ||
	    *q != '\0'))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid array \"%s\": bad task limit after \"%%\"", s);
	for (;;) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (item(s, p, comma != NULL ? comma : end, &a, err) != 0) {
			kai_array_fini(&a);
			return KAI_EINVAL;
		}
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	qsort(a.r, a.n, sizeof(*a.r), cmp_lo);
	normalize(&a);
	a.throttle = thr;
	kai_array_fini(out);
	*out = a;
	return 0;
}

void
kai_array_fini(struct kai_array *a)
{
	KAI_FREE(a->r);
	a->n = 0;
	a->throttle = 0;
}

uint64_t
kai_array_count(const struct kai_array *a)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < a->n; i++)
		n += (a->r[i].hi - a->r[i].lo) / a->r[i].step + 1;
	return n;
}

uint32_t
kai_array_min(const struct kai_array *a)
{
	return a->n > 0 ? a->r[0].lo : 0;
}

uint32_t
kai_array_max(const struct kai_array *a)
{
	return a->n > 0 ? a->r[a->n - 1].hi : 0;
}

uint32_t
kai_array_step(const struct kai_array *a)
{
	return a->n == 1 ? a->r[0].step : 1;
}

/* The index of the range that holds idx, or a->n. */
static size_t
find(const struct kai_array *a, uint32_t idx)
{
	size_t lo = 0, hi = a->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->r[mid].hi < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->n && a->r[lo].lo <= idx &&
	    (idx - a->r[lo].lo) % a->r[lo].step == 0)
		return lo;
	return a->n;
}

bool
kai_array_contains(const struct kai_array *a, uint32_t idx)
{
	return find(a, idx) < a->n;
}

bool
kai_array_remove(struct kai_array *a, uint32_t idx)
{
	size_t i = find(a, idx), j;
	struct kai_array_range *r;

	if (i == a->n)
		return false;
	r = &a->r[i];
	if (r->lo == r->hi) {
		memmove(r, r + 1, (a->n - i - 1) * sizeof(*r));
		a->n--;
	} else if (idx == r->lo) {
		r->lo += r->step;
	} else if (idx == r->hi) {
		r->hi -= r->step;
	} else {
		a->r = kai_xreallocarray(a->r, a->n + 1, sizeof(*a->r));
		r = &a->r[i];
		memmove(r + 1, r, (a->n - i) * sizeof(*r));
		a->n++;
		r[0].hi = idx - r[0].step;
		r[1].lo = idx + r[1].step;
	}
	for (j = i; j < a->n && j <= i + 1; j++) /* keep single ones tidy */
		if (a->r[j].lo == a->r[j].hi)
			a->r[j].step = 1;
	return true;
}

bool
kai_array_take_first(struct kai_array *a, uint32_t *idx)
{
	if (a->n == 0)
		return false;
	*idx = a->r[0].lo;
	return kai_array_remove(a, *idx);
}

bool
kai_array_format(const struct kai_array *a, char *buf, size_t size)
{
	size_t i, at = 0;
	int w;

	if (size == 0)
		return false;
	buf[0] = '\0';
	for (i = 0; i < a->n; i++) {
		const struct kai_array_range *r = &a->r[i];
		const char *sep = i > 0 ? "," : "";

		if (r->lo == r->hi)
			w = snprintf(buf + at, size - at, "%s%" PRIu32, sep,
			    r->lo);
		else if (r->step == 1)
			w = snprintf(buf + at, size - at, "%s%" PRIu32
			    "-%" PRIu32, sep, r->lo, r->hi);
		else
			w = snprintf(buf + at, size - at, "%s%" PRIu32
			    "-%" PRIu32 ":%" PRIu32, sep, r->lo, r->hi,
			    r->step);
		if (w < 0 || (size_t)w >= size - at) {
			buf[at] = '\0';
			return false;
		}
		at += (size_t)w;
	}
	return true;
}
