/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hostlist.c: Slurm's compact host lists, both ways.  See hostlist.h.
 *
 * Folding is one pass: a name joins the open bracket when its prefix
 * (everything before the trailing digits) and its digit width rule match
 * the bracket's; a number one above the previous extends the last range.
 * Numbers longer than KAI_HOSTLIST_DIGITS are not folded (they are
 * names), so that every folded list expands again.
 *
 * Expansion splits the list at the commas outside brackets, then expands
 * a name's first bracket and the rest of the name again for each number,
 * so brackets multiply ("r[1-2]-g[1-2]" is four names, r1 first).  A
 * list expands completely or not at all.
 */
#include "config.h"

#include "model/hostlist.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/xmalloc.h"


struct name_parts {
	size_t plen;	/* bytes of the prefix */
	size_t width;	/* digits; 0 = the name does not end in a number */
	bool padded;	/* the digits start with a 0 and are not just "0" */
	uint64_t num;
};

static void
split(const char *s, struct name_parts *p)
{
	size_t len = strlen(s), i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	p->plen = i;
	p->width = len - i;
	p->num = 0;
	if (p->width == 0 || p->width > KAI_HOSTLIST_DIGITS) {
		p->plen = len;
		p->width = 0;
		p->padded = false;
		return;
	}
	p->padded = s[i] == '0' && p->width > 1;
	for (; i < len; i++)
		p->num = p->num * 10 + (uint64_t)(s[i] - '0');
}

/* Whether b may share a bracket with a (same prefix, same digit rule). */
static bool
same_group(const char *as, const struct name_parts *a, const char *bs,
    const struct name_parts *b)
{
	if (a->width == 0 || b->width == 0 || a->plen != b->plen ||
	    memcmp(as, bs, a->plen) != 0)
		return false;
	if (a->padded || b->padded)
		return a->width == b->width;
	return true;
}

/*
 * The buffer has no practical limit, and its allocator aborts on failure,
 * so an append cannot fail.
 */
static void
put(struct kai_buf *b, const char *p, size_t n)
{
	int r = kai_buf_add(b, p, n);

	KAI_ASSERT(r == 0);
}

static void
puts_(struct kai_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/*
 * Whether b can extend a range that starts at a: a range is written with
 * its first number's width ("01-12" expands to two digits each), so a
 * padded start takes only numbers of its width, an unpadded one only
 * unpadded numbers ("02" then "3" is "02,3", not "02-3": 02,03).
 */
static bool
same_rule(const struct name_parts *a, const struct name_parts *b)
{
	return a->padded ? b->width == a->width : !b->padded;
}

/* Appends names[first..last] (one group) to b. */
static void
add_group(struct kai_buf *b, const char *const *names,
    const struct name_parts *parts, size_t first, size_t last)
{
	size_t i, lo;

	if (first == last) {
		puts_(b, names[first]);
		return;
	}
	put(b, names[first], parts[first].plen);
	puts_(b, "[");
	for (i = first; i <= last; i = lo + 1) {
		lo = i;
		while (lo < last && parts[lo + 1].num == parts[lo].num + 1 &&
		    same_rule(&parts[i], &parts[lo + 1]))
			lo++;
		if (i > first)
			puts_(b, ",");
		put(b, names[i] + parts[i].plen, parts[i].width);
		if (lo > i) {
			puts_(b, "-");
			put(b, names[lo] + parts[lo].plen, parts[lo].width);
		}
	}
	puts_(b, "]");
}

char *
kai_hostlist_compress(const char *const *names, size_t n)
{
	struct name_parts *parts;
	struct kai_buf b;
	size_t i, first;

	kai_buf_init(&b, SIZE_MAX / 2);
	if (n == 0)
		return kai_buf_detach(&b, NULL);
	parts = kai_xcalloc(n, sizeof(*parts));
	for (i = 0; i < n; i++)
		split(names[i], &parts[i]);
	for (first = 0, i = 1; i <= n; i++) {
		if (i < n && same_group(names[first], &parts[first], names[i],
		    &parts[i]))
			continue;
		if (first > 0)
			puts_(&b, ",");
		add_group(&b, names, parts, first, i - 1);
		first = i;
	}
	free(parts);
	return kai_buf_detach(&b, NULL);
}

/*
 * Sorting
 */

static int
cmp_names(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	struct name_parts pa, pb;
	int c;

	split(a, &pa);
	split(b, &pb);
	c = memcmp(a, b, pa.plen < pb.plen ? pa.plen : pb.plen);
	if (c != 0)
		return c;
	if (pa.plen != pb.plen)
		return pa.plen < pb.plen ? -1 : 1;
	if ((pa.width == 0) != (pb.width == 0))
		return pa.width == 0 ? -1 : 1;
	if (pa.num != pb.num)
		return pa.num < pb.num ? -1 : 1;
	if (pa.width != pb.width)
		return pa.width < pb.width ? -1 : 1;
	return strcmp(a, b);
}

void
kai_hostlist_sort(const char **names, size_t n)
{
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
}

/*
 * Expanding
 */

struct expansion {
	const char *list; /* for the messages */
	char **names;
	size_t n;
	struct kai_err *err;
	size_t cap;       /* entries allocated in names */
};

static int
bad(struct expansion *x, const char *why)
{
	return kai_err_set(x->err, KAI_EINVAL, "invalid host list \"%s\": %s",
	    x->list, why);
}

/* "7" or "1-3" in [r, end): the bounds and the padded width (0 = none). */
static bool
range(const char *r, const char *end, unsigned long *lo, unsigned long *hi,
    int *width)
{
	const char *dash = memchr(r, '-', (size_t)(end - r));
	size_t alen = dash != NULL ? (size_t)(dash - r) : (size_t)(end - r);
	size_t blen = dash != NULL ? (size_t)(end - dash - 1) : alen;
	const char *b = dash != NULL ? dash + 1 : r;
	size_t i;

	if (alen == 0 || alen > KAI_HOSTLIST_DIGITS || blen == 0 ||
	    blen > KAI_HOSTLIST_DIGITS)
		return false;
	for (i = 0; i < alen; i++)
		if (r[i] < '0' || r[i] > '9')
			return false;
	for (i = 0; i < blen; i++)
		if (b[i] < '0' || b[i] > '9')
			return false;
	*lo = strtoul(r, NULL, 10);
	*hi = strtoul(b, NULL, 10);
	*width = r[0] == '0' && alen > 1 ? (int)alen : 0;
	return *lo <= *hi;
}

/* The names of pre + s[0..len), s holding brackets still to expand. */
static int
expand_name(struct expansion *x, const char *pre, const char *s, size_t len)
{
	const char *open = memchr(s, '[', len), *close, *r, *end;
	unsigned long lo, hi, v;
	char *next;
	int width, rc;

	if (memchr(s, ']', open != NULL ? (size_t)(open - s) : len) != NULL)
		return bad(x, "unbalanced \"]\"");
	if (open == NULL) {
		if (x->n >= KAI_HOSTLIST_MAX)
			return kai_err_set(x->err, KAI_EINVAL,
			    "invalid host list \"%s\": more than %d names",
			    x->list, KAI_HOSTLIST_MAX);
		/*
		 * Doubling, not one more each time: up to KAI_HOSTLIST_MAX
		 * names that is 17 moves of the array instead of 100,000
		 * (quadratic wherever realloc copies: ASan, valgrind, musl).
		 */
		if (x->n == x->cap) {
			x->cap = x->cap == 0 ? 16 : 2 * x->cap;
			x->names = kai_xreallocarray(x->names, x->cap,
			    sizeof(*x->names));
		}
		x->names[x->n++] = kai_xasprintf("%s%.*s", pre, (int)len, s);
		return 0;
	}
	close = memchr(open, ']', len - (size_t)(open - s));
	if (close == NULL)
		return bad(x, "unclosed \"[\"");
	for (r = open + 1; r <= close; r = end + 1) {
		end = memchr(r, ',', (size_t)(close - r));
		if (end == NULL)
			end = close;
		if (!range(r, end, &lo, &hi, &width))
			return kai_err_set(x->err, KAI_EINVAL,
			    "invalid host list \"%s\": bad range \"%.*s\"",
			    x->list, (int)(end - r), r);
		for (v = lo; v <= hi; v++) {
			next = kai_xasprintf("%s%.*s%0*lu", pre,
			    (int)(open - s), s, width, v);
			rc = expand_name(x, next, close + 1,
			    len - (size_t)(close + 1 - s));
			free(next);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

int
kai_hostlist_expand(const char *list, char ***names, size_t *n,
    struct kai_err *err)
{
	struct expansion x = {list, NULL, 0, err, 0};
	const char *p = list;
	size_t len;
	int depth, rc;

	*names = NULL;
	*n = 0;
	for (;;) {
		/* a comma inside brackets separates ranges, not names */
		for (len = 0, depth = 0;
		     p[len] != '\0' && (p[len] != ',' || depth > 0); len++)
			depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
		rc = len == 0 ? bad(&x, "empty name") :
		    expand_name(&x, "", p, len);
		if (rc != 0) {
			kai_hostlist_free(x.names, x.n);
			return rc;
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	*names = x.names;
	*n = x.n;
	return 0;
}

void
kai_hostlist_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
