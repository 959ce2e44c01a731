/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base64.h: standard base64 (RFC 4648 section 4) decoding.
 *
 * Used for the certificate and key data embedded in kubeconfig files.
 * Whitespace (line breaks in wrapped data) is skipped; the final "="
 * padding may be present or left out; any other character, a stray "="
 * or a truncated last group is an error.  Pure: no I/O.
 */
#ifndef KAI_BASE_BASE64_H
#define KAI_BASE_BASE64_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

/*
 * Decodes n bytes at s into *out (NUL-terminated, *outlen bytes without
 * the NUL).  Caller owns *out.  Returns 0, or KAI_EINVAL with
 * "invalid base64: ..." in err (and *out NULL).
 */
int kai_base64_decode(const char *s, size_t n, char **out, size_t *outlen,
    struct kai_err *err) KAI_MUST_CHECK;

/* Encodes p[0..n) with "=" padding and no line breaks; caller owns. */
char *kai_base64_encode(const void *p, size_t n);

#endif /* KAI_BASE_BASE64_H */
