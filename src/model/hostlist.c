/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hostlist.c: folding host names into Slurm's compact list.  See
 * hostlist.h.
 *
 * One pass: a name joins the open bracket when its prefix (everything
 * before the trailing digits) and its digit width rule match the
 * bracket's; a number one above the previous extends the last range.
 * Numbers longer than 18 digits are not folded (they are names).
 */
#include "config.h"

#include "model/hostlist.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/xmalloc.h"

#define NUM_DIGITS_MAX 18 /* fits a uint64_t */

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
	if (p->width == 0 || p->width > NUM_DIGITS_MAX) {
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
		while (lo < last && parts[lo + 1].num == parts[lo].num + 1)
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
