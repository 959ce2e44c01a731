/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * buf.h: a growable byte buffer with a mandatory maximum size.
 *
 * Invariants (git strbuf): after kai_buf_init() the buffer is always
 * NUL-terminated at data[len], data is never NULL, and len <= max.  An
 * empty buffer owns no memory (cap 0, data points at a shared ""), so
 * init and fini never allocate and a buffer never written needs no fini.  Every
 * append that would pass max fails with KAI_EINVAL and leaves the buffer as
 * it was ("toobig" in curl's dynbuf), so whatever is read from outside is
 * bounded by construction.  kai_buf_detach() is the only way to take the
 * memory away from the buffer.
 */
#ifndef KAI_BASE_BUF_H
#define KAI_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct kai_buf {
	char *data;  /* len bytes plus a NUL */
	size_t len;  /* bytes in use */
	size_t cap;  /* bytes allocated, > len */
	size_t max;  /* hard limit on len */
};

/* Initialises an empty buffer that may grow to max bytes. */
void kai_buf_init(struct kai_buf *b, size_t max);
/* Frees the memory and leaves b empty but usable. */
void kai_buf_fini(struct kai_buf *b);
/* Empties b, keeping its memory. */
void kai_buf_reset(struct kai_buf *b);
/* Returns the data (NUL-terminated); caller owns it; b is left empty. */
char *kai_buf_detach(struct kai_buf *b, size_t *len);

/* Appends; 0 or KAI_EINVAL when the result would pass max. */
int kai_buf_add(struct kai_buf *b, const void *p, size_t n) KAI_MUST_CHECK;
int kai_buf_adds(struct kai_buf *b, const char *s) KAI_MUST_CHECK;
int kai_buf_addc(struct kai_buf *b, char c) KAI_MUST_CHECK;
int kai_buf_addf(struct kai_buf *b, const char *fmt, ...)
    KAI_PRINTF(2, 3) KAI_MUST_CHECK;
int kai_buf_vaddf(struct kai_buf *b, const char *fmt, va_list ap)
    KAI_PRINTF(2, 0) KAI_MUST_CHECK;

/* Removes the first n bytes (n <= len). */
void kai_buf_consume(struct kai_buf *b, size_t n);

#endif /* KAI_BASE_BUF_H */
