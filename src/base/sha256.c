/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sha256.c: SHA-256 as FIPS 180-4 section 6.2 gives it.  See sha256.h.
 *
 * Written for clarity rather than speed: request bodies are at most 1 MiB
 * and are hashed once per request, so a straightforward compression
 * function is plenty.  Words are assembled byte by byte, so the code is
 * independent of host endianness and alignment.
 */
#include "config.h"

#include "base/sha256.h"

#include <string.h>

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
/* clang-format off */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
/* clang-format on */

#define ROTR(x, n)   (((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z)  (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x)     (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x)     (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x)     (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x)     (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

static void
compress(uint32_t h[8], const uint8_t blk[KAI_SHA256_BLOCK])
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int i;

	for (i = 0; i < 16; i++, blk += 4)
		w[i] = (uint32_t)blk[0] << 24 | (uint32_t)blk[1] << 16 |
		    (uint32_t)blk[2] << 8 | (uint32_t)blk[3];
	for (i = 16; i < 64; i++)
		w[i] =
		    SSIG1(w[i - 2]) + w[i - 7] + SSIG0(w[i - 15]) + w[i - 16];
	a = h[0], b = h[1], c = h[2], d = h[3];
	e = h[4], f = h[5], g = h[6], hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + BSIG1(e) + CH(e, f, g) + K[i] + w[i];
		t2 = BSIG0(a) + MAJ(a, b, c);
		hh = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void
kai_sha256_init(struct kai_sha256 *c)
{
	/* FIPS 180-4 5.3.3: fractional parts of the square roots of the
	 * first 8 primes. */
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(c->h, iv, sizeof(iv));
	c->nbytes = 0;
	c->nbuf = 0;
}

void
kai_sha256_update(struct kai_sha256 *c, const void *p, size_t n)
{
	const uint8_t *s = p;
	size_t take;

	if (n == 0)
		return;
	c->nbytes += n;
	if (c->nbuf > 0) {
		take = KAI_SHA256_BLOCK - c->nbuf;
		if (take > n)
			take = n;
		memcpy(c->buf + c->nbuf, s, take);
		c->nbuf += take;
		s += take;
		n -= take;
		if (c->nbuf < KAI_SHA256_BLOCK)
			return;
		compress(c->h, c->buf);
		c->nbuf = 0;
	}
	for (; n >= KAI_SHA256_BLOCK;
	     s += KAI_SHA256_BLOCK, n -= KAI_SHA256_BLOCK)
		compress(c->h, s);
	if (n > 0)
		memcpy(c->buf, s, n);
	c->nbuf = n;
}

void
kai_sha256_final(struct kai_sha256 *c, uint8_t out[KAI_SHA256_LEN])
{
	uint64_t bits = c->nbytes * 8;
	int i;

	/* 5.1.1: a 1 bit, zeros up to 56 mod 64, then the bit length. */
	c->buf[c->nbuf++] = 0x80;
	if (c->nbuf > KAI_SHA256_BLOCK - 8) {
		memset(c->buf + c->nbuf, 0, KAI_SHA256_BLOCK - c->nbuf);
		compress(c->h, c->buf);
		c->nbuf = 0;
	}
	memset(c->buf + c->nbuf, 0, KAI_SHA256_BLOCK - 8 - c->nbuf);
	for (i = 0; i < 8; i++)
		c->buf[KAI_SHA256_BLOCK - 1 - i] = (uint8_t)(bits >> (8 * i));
	compress(c->h, c->buf);
	for (i = 0; i < 8; i++) {
		*out++ = (uint8_t)(c->h[i] >> 24);
		*out++ = (uint8_t)(c->h[i] >> 16);
		*out++ = (uint8_t)(c->h[i] >> 8);
		*out++ = (uint8_t)c->h[i];
	}
	memset(c, 0, sizeof(*c));
}

void
kai_sha256(const void *p, size_t n, uint8_t out[KAI_SHA256_LEN])
{
	struct kai_sha256 c;

	kai_sha256_init(&c);
	kai_sha256_update(&c, p, n);
	kai_sha256_final(&c, out);
}
