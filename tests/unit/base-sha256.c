/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * base-sha256: SHA-256 against the NIST example vectors (FIPS 180-4
 * examples, SHA256.pdf), plus the one-shot and streamed forms agreeing
 * across every split point and at the padding boundaries.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/sha256.h"
#include "tap.h"

static void
hex(const uint8_t d[KAI_SHA256_LEN], char out[2 * KAI_SHA256_LEN + 1])
{
	int i;

	for (i = 0; i < KAI_SHA256_LEN; i++)
		(void)snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
check(const char *msg, size_t n, const char *want)
{
	uint8_t d[KAI_SHA256_LEN];
	char h[2 * KAI_SHA256_LEN + 1];

	kai_sha256(msg, n, d);
	hex(d, h);
	is_str(h, want, "sha256 of %zu bytes \"%.20s%s\"", n, msg,
	    n > 20 ? "..." : "");
}

static void
test_nist(void)
{
	static char million[1000000];
	struct kai_sha256 c;
	uint8_t d[KAI_SHA256_LEN];
	char h[2 * KAI_SHA256_LEN + 1];
	int i;

	check("", 0,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check("abc", 3,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	    112,
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	memset(million, 'a', sizeof(million));
	check(million, sizeof(million),
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* The same million 'a' fed in uneven pieces. */
	kai_sha256_init(&c);
	for (i = 0; i < 1000000; i += 997)
		kai_sha256_update(&c, million + i,
		    (size_t)(1000000 - i < 997 ? 1000000 - i : 997));
	kai_sha256_final(&c, d);
	hex(d, h);
	is_str(h,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "one million 'a' streamed in 997-byte pieces");
}

/* Streaming must agree with one-shot for every split and every length
 * around the 55/56/64-byte padding edges. */
static void
test_splits(void)
{
	uint8_t msg[200], one[KAI_SHA256_LEN], two[KAI_SHA256_LEN];
	struct kai_sha256 c;
	size_t n, k;
	int bad = 0;

	for (n = 0; n < sizeof(msg); n++)
		msg[n] = (uint8_t)(n * 7 + 3);
	for (n = 0; n <= 130; n++) {
		kai_sha256(msg, n, one);
		for (k = 0; k <= n; k++) {
			kai_sha256_init(&c);
			kai_sha256_update(&c, msg, k);
			kai_sha256_update(&c, NULL, 0);
			kai_sha256_update(&c, msg + k, n - k);
			kai_sha256_final(&c, two);
			if (memcmp(one, two, sizeof(one)) != 0)
				bad++;
		}
	}
	is_int(bad, 0, "streamed and one-shot digests agree at every split");
}

int
main(void)
{
	test_nist();
	test_splits();
	return done_testing();
}
