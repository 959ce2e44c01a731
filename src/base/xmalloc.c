/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * xmalloc.c: allocators that abort on out-of-memory.  See xmalloc.h.
 */
#include "config.h"

#include "base/xmalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

KAI_NORETURN static void
oom(size_t size)
{
	(void)fprintf(stderr, "out of memory allocating %zu bytes\n", size);
	abort();
}

void *
kai_xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		oom(size);
	return p;
}

void *
kai_xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		oom(nmemb * size);
	return p;
}

void *
kai_xreallocarray(void *p, size_t nmemb, size_t size)
{
	void *q;

	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	if (nmemb * size == 0)
		nmemb = size = 1;
	if ((q = realloc(p, nmemb * size)) == NULL)
		oom(nmemb * size);
	return q;
}

char *
kai_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		oom(strlen(s) + 1);
	return p;
}

char *
kai_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		oom(n + 1);
	return p;
}

char *
kai_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return p;
}

/*
 * memset through a volatile pointer: the compiler cannot drop the wipe as a
 * dead store, and unlike explicit_bzero() the sanitizers intercept memset,
 * so a size larger than the block is reported instead of hidden.
 */
static void *(*const volatile wipe)(void *, int, size_t) = memset;

void
kai_free_secret(void *p, size_t size)
{
	if (p == NULL)
		return;
	wipe(p, 0, size);
	free(p);
}
