/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobcred.c: job credentials (HMAC-SHA256).  See jobcred.h.
 *
 * The MAC covers fixed-width binary fields, not the text, so that no two
 * texts (leading zeros, upper-case hex) stand for one signed request:
 * the parser accepts exactly the form kai_jobcred_new() writes.
 */
#include "config.h"

#include "auth/jobcred.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/sha256.h"
#include "base/xmalloc.h"

#define MAC_LABEL "KAIJOB1"
#define KEY_LABEL "kaibatch job key v1"
/* A bound on what a flood of requests can make kaid hold. */
#define REPLAY_MAX (1u << 20)

static void
hmac(const uint8_t key[KAI_JOBCRED_KEY_LEN], const void *msg, size_t len,
    uint8_t out[32])
{
	uint8_t pad[KAI_SHA256_BLOCK], inner[32];
	struct kai_sha256 h;
	size_t i;

	/* Keys are 32 bytes, shorter than a block: no pre-hashing. */
	memset(pad, 0x36, sizeof(pad));
	for (i = 0; i < KAI_JOBCRED_KEY_LEN; i++)
		pad[i] ^= key[i];
	kai_sha256_init(&h);
	kai_sha256_update(&h, pad, sizeof(pad));
	kai_sha256_update(&h, msg, len);
	kai_sha256_final(&h, inner);
	memset(pad, 0x5c, sizeof(pad));
	for (i = 0; i < KAI_JOBCRED_KEY_LEN; i++)
		pad[i] ^= key[i];
	kai_sha256_init(&h);
	kai_sha256_update(&h, pad, sizeof(pad));
	kai_sha256_update(&h, inner, sizeof(inner));
	kai_sha256_final(&h, out);
	memset(pad, 0, sizeof(pad));
}

static void
put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The signed bytes of a credential. */
static void
mac_of(const uint8_t key[KAI_JOBCRED_KEY_LEN], uint64_t id, int64_t issued,
    const uint8_t *nonce, const uint8_t *digest, uint8_t out[32])
{
	uint8_t m[sizeof(MAC_LABEL) + 16 + KAI_JOBCRED_NONCE_LEN +
	    KAI_JOBCRED_DIGEST_LEN];
	size_t n = sizeof(MAC_LABEL);	/* with its NUL */

	memcpy(m, MAC_LABEL, n);
	put64(m + n, id);
	put64(m + n + 8, (uint64_t)issued);
	n += 16;
	memcpy(m + n, nonce, KAI_JOBCRED_NONCE_LEN);
	n += KAI_JOBCRED_NONCE_LEN;
	memcpy(m + n, digest, KAI_JOBCRED_DIGEST_LEN);
	n += KAI_JOBCRED_DIGEST_LEN;
	hmac(key, m, n, out);
}

bool
kai_jobcred_is(const char *cred)
{
	return cred != NULL && strncmp(cred, KAI_JOBCRED_PREFIX,
	    strlen(KAI_JOBCRED_PREFIX)) == 0;
}

void
kai_jobcred_job_key(const uint8_t master[KAI_JOBCRED_KEY_LEN], uint64_t id,
    uint8_t key[KAI_JOBCRED_KEY_LEN])
{
	uint8_t m[sizeof(KEY_LABEL) + 8];

	memcpy(m, KEY_LABEL, sizeof(KEY_LABEL));
	put64(m + sizeof(KEY_LABEL), id);
	hmac(master, m, sizeof(m), key);
}

static void
hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Exactly 2n lower-case hex digits at s into p; -1 if not. */
static int
unhex(const char *s, uint8_t *p, size_t n)
{
	size_t i;
	int v, j;
	char c;

	for (i = 0; i < n; i++) {
		v = 0;
		for (j = 0; j < 2; j++) {
			c = s[2 * i + (size_t)j];
			if (c >= '0' && c <= '9')
				v = v * 16 + (c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (c - 'a' + 10);
			else
				return -1;
		}
		p[i] = (uint8_t)v;
	}
	return 0;
}

char *
kai_jobcred_new(uint64_t id, const uint8_t key[KAI_JOBCRED_KEY_LEN],
    int64_t now, const uint8_t nonce[KAI_JOBCRED_NONCE_LEN],
    const uint8_t digest[KAI_JOBCRED_DIGEST_LEN])
{
	char n[2 * KAI_JOBCRED_NONCE_LEN + 1], d[2 * KAI_JOBCRED_DIGEST_LEN + 1];
	char m[65];
	uint8_t mac[32];

	mac_of(key, id, now, nonce, digest, mac);
	hex(n, nonce, KAI_JOBCRED_NONCE_LEN);
	hex(d, digest, KAI_JOBCRED_DIGEST_LEN);
	hex(m, mac, sizeof(mac));
	return kai_xasprintf(KAI_JOBCRED_PREFIX "%" PRIu64 ":%" PRId64
	    ":%s:%s:%s", id, now, n, d, m);
}

/* A decimal without sign or leading zero, up to ':'; -1 if not. */
static int
decimal(const char **sp, uint64_t max, uint64_t *v)
{
	const char *s = *sp;
	uint64_t x = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != ':'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s != ':')
		return -1;
	*sp = s + 1;
	*v = x;
	return 0;
}

/* The hex field of n bytes at *sp, then ':' or (last) the end. */
static int
field(const char **sp, uint8_t *p, size_t n, bool last)
{
	const char *s = *sp;

	if (strlen(s) < 2 * n || unhex(s, p, n) != 0)
		return -1;
	s += 2 * n;
	if (last ? *s != '\0' : *s != ':')
		return -1;
	*sp = last ? s : s + 1;
	return 0;
}

int
kai_jobcred_parse(const char *cred, struct kai_jobcred *c,
    struct kai_err *err)
{
	const char *s = cred;
	uint64_t v;

	if (!kai_jobcred_is(cred))
		return kai_err_set(err, KAI_EAUTH,
		    "invalid job credential: it does not start with \"%s\"",
		    KAI_JOBCRED_PREFIX);
	s += strlen(KAI_JOBCRED_PREFIX);
	if (decimal(&s, UINT64_MAX, &c->job_id) != 0 || c->job_id == 0)
		return kai_err_set(err, KAI_EAUTH,
		    "invalid job credential: bad job id");
	if (decimal(&s, INT64_MAX, &v) != 0)
		return kai_err_set(err, KAI_EAUTH,
		    "invalid job credential: bad issue time");
	c->issued = (int64_t)v;
	if (field(&s, c->nonce, sizeof(c->nonce), false) != 0 ||
	    field(&s, c->digest, sizeof(c->digest), false) != 0 ||
	    field(&s, c->mac, sizeof(c->mac), true) != 0)
		return kai_err_set(err, KAI_EAUTH,
		    "invalid job credential: expected hex nonce, digest and "
		    "MAC");
	return 0;
}

int
kai_jobcred_check(const struct kai_jobcred *c,
    const uint8_t master[KAI_JOBCRED_KEY_LEN], int64_t now, int window_s,
    struct kai_err *err)
{
	uint8_t key[KAI_JOBCRED_KEY_LEN], mac[32];
	unsigned diff = 0;
	size_t i;

	kai_jobcred_job_key(master, c->job_id, key);
	mac_of(key, c->job_id, c->issued, c->nonce, c->digest, mac);
	memset(key, 0, sizeof(key));
	/* Constant time: a timing oracle would forge a MAC byte by byte. */
	for (i = 0; i < sizeof(mac); i++)
		diff |= (unsigned)(mac[i] ^ c->mac[i]);
	if (diff != 0)
		return kai_err_set(err, KAI_EAUTH,
		    "job credential does not match its job");
	if (c->issued < now - window_s)
		return kai_err_set(err, KAI_EAUTH, "job credential expired");
	if (c->issued > now + window_s)
		return kai_err_set(err, KAI_EAUTH,
		    "job credential issued in the future (clock skew over "
		    "%d s)", window_s);
	return 0;
}

void
kai_jobcred_key_text(const uint8_t key[KAI_JOBCRED_KEY_LEN],
    char text[KAI_JOBCRED_KEY_TEXT_LEN + 1])
{
	hex(text, key, KAI_JOBCRED_KEY_LEN);
	text[2 * KAI_JOBCRED_KEY_LEN] = '\n';
	text[KAI_JOBCRED_KEY_TEXT_LEN] = '\0';
}

int
kai_jobcred_key_parse(const char *text, size_t len,
    uint8_t key[KAI_JOBCRED_KEY_LEN])
{
	if (len == KAI_JOBCRED_KEY_TEXT_LEN && text[len - 1] == '\n')
		len--;
	if (len != 2 * KAI_JOBCRED_KEY_LEN ||
	    unhex(text, key, KAI_JOBCRED_KEY_LEN) != 0)
		return KAI_EINVAL;
	return 0;
}

struct kai_jobcred_replay {
	struct kai_map seen;	/* "id:nonce" -> issued time (in the pointer) */
	int64_t purged;		/* unix s of the last sweep */
};

struct kai_jobcred_replay *
kai_jobcred_replay_new(void)
{
	struct kai_jobcred_replay *r = kai_xcalloc(1, sizeof(*r));

	kai_map_init(&r->seen, NULL);
	return r;
}

void
kai_jobcred_replay_free(struct kai_jobcred_replay *r)
{
	if (r == NULL)
		return;
	kai_map_fini(&r->seen);
	KAI_FREE(r);
}

/* Drops what the window already refuses, at most once a window. */
static void
sweep(struct kai_jobcred_replay *r, int64_t now, int window_s)
{
	const char *key;
	void *v;
	size_t i;

	if (now - r->purged < window_s)
		return;
	r->purged = now;
	for (i = 0; kai_map_next(&r->seen, &i, &key, &v);)
		if ((int64_t)(intptr_t)v < now - window_s)
			kai_map_del(&r->seen, key);
}

int
kai_jobcred_replay_check(struct kai_jobcred_replay *r,
    const struct kai_jobcred *c, int64_t now, int window_s,
    struct kai_err *err)
{
	char key[21 + 1 + 2 * KAI_JOBCRED_NONCE_LEN + 1];
	char n[2 * KAI_JOBCRED_NONCE_LEN + 1];

	sweep(r, now, window_s);
	hex(n, c->nonce, sizeof(c->nonce));
	(void)snprintf(key, sizeof(key), "%" PRIu64 ":%s", c->job_id, n);
	if (kai_map_get(&r->seen, key) != NULL)
		return kai_err_set(err, KAI_EAUTH, "job credential replayed");
	if (r->seen.len >= REPLAY_MAX)
		return kai_err_set(err, KAI_EAGAIN,
		    "too many job credentials within %d s; try again",
		    window_s);
	/* | 1 keeps the pointer non-NULL; a second off does not matter. */
	kai_map_put(&r->seen, key, (void *)(intptr_t)(c->issued | 1));
	return 0;
}
