/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * utf8.h: is a byte string well-formed UTF-8?
 *
 * The rule is PostgreSQL's for a UTF8 database (RFC 3629): no overlong
 * forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.  kaid
 * checks every string a client sends against it, so a string the
 * database would refuse is refused with the request that carries it and
 * never reaches a group commit shared with other users' jobs.
 */
#ifndef KAI_BASE_UTF8_H
#define KAI_BASE_UTF8_H

#include <stddef.h>

/*
 * The offset of the first byte of s[0..n) that does not begin a
 * well-formed sequence, or n when all of it is well-formed.
 */
size_t kai_utf8_invalid_at(const void *s, size_t n);

#endif /* KAI_BASE_UTF8_H */
