/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * buf.c: bounded growable buffer.  See buf.h for the invariants.
 */
#include "config.h"

#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"

/*
 * An empty buffer points at this shared empty string with cap 0 and owns
 * no memory (git's strbuf_slopbuf): init and fini never allocate, so a
 * buffer that was never written to needs nothing freed.
 */
static char buf_empty[1];

void
kai_buf_init(struct kai_buf *b, size_t max)
{
	b->data = buf_empty;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
kai_buf_fini(struct kai_buf *b)
{
	if (b->cap > 0)
		free(b->data);
	kai_buf_init(b, b->max);
}

void
kai_buf_reset(struct kai_buf *b)
{
	b->len = 0;
	if (b->cap > 0)
		b->data[0] = '\0';
}

char *
kai_buf_detach(struct kai_buf *b, size_t *len)
{
	char *p = b->cap > 0 ? b->data : kai_xstrdup("");

	if (len != NULL)
		*len = b->len;
	kai_buf_init(b, b->max);
	return p;
}

/* Makes room for n more bytes plus the NUL, or fails on max. */
static int
grow(struct kai_buf *b, size_t n)
{
	size_t need, cap;

	if (n > b->max || b->len > b->max - n)
		return KAI_EINVAL;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap > 0 ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = kai_xreallocarray(b->cap > 0 ? b->data : NULL, cap, 1);
	if (b->cap == 0)
		b->data[0] = '\0';
	b->cap = cap;
	return 0;
}

int
kai_buf_add(struct kai_buf *b, const void *p, size_t n)
{
	if (grow(b, n) != 0)
		return KAI_EINVAL;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
kai_buf_adds(struct kai_buf *b, const char *s)
{
	return kai_buf_add(b, s, strlen(s));
}

int
kai_buf_addc(struct kai_buf *b, char c)
{
	return kai_buf_add(b, &c, 1);
}

int
kai_buf_vaddf(struct kai_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	/* cap 0 means the shared empty string: measure only. */
	n = vsnprintf(b->cap > 0 ? b->data + b->len : NULL,
	    b->cap > 0 ? b->cap - b->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return KAI_EINVAL;
	if (b->cap == 0 || (size_t)n >= b->cap - b->len) {
		if (grow(b, (size_t)n) != 0) {
			if (b->cap > 0)
				b->data[b->len] = '\0';
			return KAI_EINVAL;
		}
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		if (n < 0)
			return KAI_EINVAL;
	} else if ((size_t)n > b->max - b->len) {
		b->data[b->len] = '\0';
		return KAI_EINVAL;
	}
	b->len += (size_t)n;
	return 0;
}

int
kai_buf_addf(struct kai_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = kai_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

void
kai_buf_consume(struct kai_buf *b, size_t n)
{
	KAI_ASSERT(n <= b->len);
	if (n == 0)
		return;
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}
