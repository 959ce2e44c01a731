/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sha256.h: SHA-256 (FIPS 180-4).
 *
 * Pure and allocation-free: the protocol binds a MUNGE credential to the
 * bytes of a request by carrying SHA-256 of them (proto.h
 * kai_frame_digest()), so base needs a hash that every module may use
 * without pulling in a crypto library.  The context is plain caller-owned
 * storage; init, any number of updates, then final.  After final the
 * context is cleared and must be initialised again before reuse.
 */
#ifndef KAI_BASE_SHA256_H
#define KAI_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KAI_SHA256_LEN   32 /* bytes of a digest */
#define KAI_SHA256_BLOCK 64 /* bytes of one compression block */

struct kai_sha256 {
	uint32_t h[8];                 /* chaining state */
	uint64_t nbytes;               /* bytes hashed so far */
	uint8_t buf[KAI_SHA256_BLOCK]; /* partial block */
	size_t nbuf;                   /* bytes in buf, < KAI_SHA256_BLOCK */
};

void kai_sha256_init(struct kai_sha256 *c);
/* Hashes n more bytes of p (p may be NULL when n is 0). */
void kai_sha256_update(struct kai_sha256 *c, const void *p, size_t n);
/* Writes the digest and clears c. */
void kai_sha256_final(struct kai_sha256 *c, uint8_t out[KAI_SHA256_LEN]);

/* One-shot digest of n bytes of p. */
void kai_sha256(const void *p, size_t n, uint8_t out[KAI_SHA256_LEN]);

#endif /* KAI_BASE_SHA256_H */
