/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * xmalloc.h: allocators that never return NULL.
 *
 * Out of memory aborts the process (tmux xmalloc, postgres palloc): nobody
 * checks for NULL after allocating, and this is the only file that calls
 * malloc, calloc, realloc or strdup.
 */
#ifndef KAI_BASE_XMALLOC_H
#define KAI_BASE_XMALLOC_H

#include <stddef.h>

#include "base/compiler.h"

void *kai_xmalloc(size_t size);
void *kai_xcalloc(size_t nmemb, size_t size);
/* realloc with overflow check on nmemb * size. */
void *kai_xreallocarray(void *p, size_t nmemb, size_t size);
char *kai_xstrdup(const char *s);
char *kai_xstrndup(const char *s, size_t n);
/* Caller owns the result. */
char *kai_xasprintf(const char *fmt, ...) KAI_PRINTF(1, 2);
/* Frees p after clearing size bytes of it: for secrets.  p may be NULL. */
void kai_free_secret(void *p, size_t size);

/* Frees p and sets it to NULL. */
#define KAI_FREE(p)                                                        \
	do {                                                               \
		free(p);                                                   \
		(p) = NULL;                                                \
	} while (0)

#endif /* KAI_BASE_XMALLOC_H */
