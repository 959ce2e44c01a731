/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * auth-jobcred: job credentials.  The job key and a credential against
 * values computed independently (Python's hmac module); a credential
 * checked under its window, refused when expired, from the future,
 * signed for another job or another request, altered in any field, or
 * replayed; malformed texts refused with a reason.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "auth/jobcred.h"
#include "tap.h"

#define NOW 1700000000

static const char want_key[] =
    "5c6e25c2bec4bef7c476564a7ab6a0d5c1b2aaa2273e1fb68bcd14daf8793018\n";
static const char want_cred[] =
    "KAIJOB1:42:1700000000:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:"
    "1111111111111111111111111111111111111111111111111111111111111111:"
    "55467c4b6f912c27c17dd3fc2da7e7945817b0676f90542abb5b76ab288ef80f";

static uint8_t master[KAI_JOBCRED_KEY_LEN];
static const uint8_t nonce[KAI_JOBCRED_NONCE_LEN] = {
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
};
static uint8_t digest[KAI_JOBCRED_DIGEST_LEN];

/* Parses and checks text at now; the error message in err. */
static int
verify(const char *text, int64_t now, struct kai_err *err)
{
	struct kai_jobcred c;
	int r;

	if ((r = kai_jobcred_parse(text, &c, err)) != 0)
		return r;
	return kai_jobcred_check(&c, master, now, KAI_JOBCRED_WINDOW_S, err);
}

static void
test_vectors(void)
{
	uint8_t key[KAI_JOBCRED_KEY_LEN], back[KAI_JOBCRED_KEY_LEN];
	char text[KAI_JOBCRED_KEY_TEXT_LEN + 1];
	char *cred;

	kai_jobcred_job_key(master, 42, key);
	kai_jobcred_key_text(key, text);
	is_str(text, want_key, "job key of job 42");
	ok(kai_jobcred_key_parse(text, strlen(text), back) == 0 &&
	    memcmp(back, key, sizeof(key)) == 0, "key text reads back");
	ok(kai_jobcred_key_parse(text, 64, back) == 0,
	    "key text without its newline reads");
	is_int(kai_jobcred_key_parse(text, 63, back), KAI_EINVAL,
	    "short key text refused");
	text[3] = 'G';
	is_int(kai_jobcred_key_parse(text, 64, back), KAI_EINVAL,
	    "key text with a non-hex digit refused");
	cred = kai_jobcred_new(42, key, NOW, nonce, digest);
	is_str(cred, want_cred, "credential of job 42");
	ok(kai_jobcred_is(cred), "recognised by its prefix");
	ok(!kai_jobcred_is("MUNGE:AwQ..."), "a MUNGE credential is not one");
	free(cred);
}

static void
test_check(void)
{
	uint8_t key[KAI_JOBCRED_KEY_LEN], other[KAI_JOBCRED_KEY_LEN];
	struct kai_jobcred c;
	struct kai_err err;
	char *cred, *bad;
	size_t i, n;

	kai_jobcred_job_key(master, 42, key);
	cred = kai_jobcred_new(42, key, NOW, nonce, digest);
	is_int(verify(cred, NOW, &err), 0, "accepted at once");
	is_int(verify(cred, NOW + KAI_JOBCRED_WINDOW_S, &err), 0,
	    "accepted at the end of its window");
	is_int(verify(cred, NOW + KAI_JOBCRED_WINDOW_S + 1, &err), KAI_EAUTH,
	    "refused after its window");
	is_str(err.msg, "job credential expired", "... as expired");
	is_int(verify(cred, NOW - KAI_JOBCRED_WINDOW_S - 1, &err), KAI_EAUTH,
	    "refused from too far ahead");
	ok(strstr(err.msg, "in the future") != NULL, "... saying so: %s",
	    err.msg);
	ok(kai_jobcred_parse(cred, &c, &err) == 0 && c.job_id == 42 &&
	    c.issued == NOW && memcmp(c.digest, digest, 32) == 0,
	    "fields read back");
	free(cred);

	/* Job 43's key signing as job 42: another job's pod. */
	kai_jobcred_job_key(master, 43, other);
	cred = kai_jobcred_new(42, other, NOW, nonce, digest);
	is_int(verify(cred, NOW, &err), KAI_EAUTH, "another job's key refused");
	is_str(err.msg, "job credential does not match its job", "... reason");
	free(cred);

	/* Every single-character change of a good one is refused. */
	cred = kai_jobcred_new(42, key, NOW, nonce, digest);
	n = strlen(cred);
	bad = kai_jobcred_new(42, key, NOW, nonce, digest);
	for (i = strlen(KAI_JOBCRED_PREFIX); i < n; i++) {
		memcpy(bad, cred, n + 1);
		bad[i] = bad[i] == '1' ? '2' : '1';
		if (verify(bad, NOW, &err) != KAI_EAUTH)
			break;
	}
	ok(i == n, "each altered character refused (first kept: %zu)", i);
	free(bad);
	free(cred);
}

static void
test_malformed(void)
{
	static const char *const bad[] = {
		"KAIJOB1:",
		"KAIJOB1:0:1:aa:bb:cc",
		"KAIJOB1:042:1700000000:",
		"KAIJOB1:42:-5:",
		"KAIJOB1:99999999999999999999:1:",
		"KAIJOB1:42:1700000000:aaaa:bbbb:cccc",
		"KAIJOB2:42:1:",
	};
	struct kai_jobcred c;
	struct kai_err err;
	char *t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(kai_jobcred_parse(bad[i], &c, &err), KAI_EAUTH,
		    "malformed \"%s\" refused", bad[i]);
		ok(strncmp(err.msg, "invalid job credential: ", 24) == 0,
		    "... with a reason: %s", err.msg);
	}
	t = malloc(strlen(want_cred) + 2);
	memcpy(t, want_cred, strlen(want_cred));
	memcpy(t + strlen(want_cred), "0", 2);
	is_int(kai_jobcred_parse(t, &c, &err), KAI_EAUTH,
	    "trailing garbage refused");
	free(t);
}

static void
test_replay(void)
{
	struct kai_jobcred_replay *r = kai_jobcred_replay_new();
	struct kai_jobcred c;
	struct kai_err err;

	ok(kai_jobcred_parse(want_cred, &c, &err) == 0, "parsed");
	is_int(kai_jobcred_replay_check(r, &c, NOW, 300, &err), 0,
	    "first use accepted");
	is_int(kai_jobcred_replay_check(r, &c, NOW + 10, 300, &err),
	    KAI_EAUTH, "second use refused");
	is_str(err.msg, "job credential replayed", "... as replayed");
	c.job_id = 43;
	is_int(kai_jobcred_replay_check(r, &c, NOW + 10, 300, &err), 0,
	    "the same nonce of another job accepted");
	c.job_id = 42;
	c.nonce[0] ^= 1;
	is_int(kai_jobcred_replay_check(r, &c, NOW + 10, 300, &err), 0,
	    "another nonce accepted");
	c.nonce[0] ^= 1;
	/* After a window the sweep drops it: the time check refuses it. */
	is_int(kai_jobcred_replay_check(r, &c, NOW + 302, 300, &err), 0,
	    "swept after its window");
	kai_jobcred_replay_free(r);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(master); i++)
		master[i] = (uint8_t)i;
	memset(digest, 0x11, sizeof(digest));
	plan(40);
	test_vectors();
	test_check();
	test_malformed();
	test_replay();
	return done_testing();
}
