/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * auth-munge: credentials against a real, private munged.
 *
 * Run by auth-munge.t, which starts munged and passes its socket as
 * argv[1].  Covers what kaid relies on: a good credential gives this
 * process's uid and gid; a credential over other bytes, a second use, a
 * stale one, garbage and an empty string are all refused with KAI_EAUTH
 * and the reason kaid will send back; and an unreachable munged is a
 * clear error on the client side.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/auth.h"
#include "base/err.h"
#include "base/sha256.h"
#include "tap.h"

static const char *sock;

static char *
cred_over(const char *body, int ttl)
{
	uint8_t d[KAI_SHA256_LEN];
	struct kai_err err;
	char *cred = NULL;

	kai_sha256(body, strlen(body), d);
	if (kai_auth_cred_new(sock, d, sizeof(d), ttl, &cred, &err) != 0)
		diag("could not create credential: %s", err.msg);
	return cred;
}

static int
verify(const char *cred, const char *body, uint32_t *uid, uint32_t *gid,
    struct kai_err *err)
{
	uint8_t d[KAI_SHA256_LEN];

	kai_sha256(body, strlen(body), d);
	kai_err_clear(err);
	return kai_auth_verify(sock, cred, d, sizeof(d), uid, gid, err);
}

static void
test_roundtrip(void)
{
	struct kai_err err;
	uint32_t uid = 12345, gid = 12345;
	char *cred = cred_over("submit job", 0);

	ok(cred != NULL && strncmp(cred, "MUNGE:", 6) == 0,
	    "credential created");
	is_int(verify(cred, "submit job", &uid, &gid, &err), 0,
	    "credential over the same bytes verifies");
	is_int(uid, (int64_t)getuid(), "uid is this process's uid");
	is_int(gid, (int64_t)getgid(), "gid is this process's gid");

	/* The same credential again: munged's replay cache. */
	uid = gid = 777;
	is_int(verify(cred, "submit job", &uid, &gid, &err), KAI_EAUTH,
	    "second use refused");
	is_str(err.msg, "credential replayed", "replay reason");
	ok(uid == 777 && gid == 777, "refusal leaves uid and gid alone");
	free(cred);
}

static void
test_mismatch(void)
{
	struct kai_err err;
	uint32_t uid, gid;
	char *cred = cred_over("cancel job 1", 0);

	is_int(verify(cred, "cancel job 2", &uid, &gid, &err), KAI_EAUTH,
	    "credential moved onto other bytes refused");
	is_str(err.msg, "credential does not match the request",
	    "mismatch reason");
	is_int(kai_auth_verify(sock, cred, NULL, 0, &uid, &gid, &err),
	    KAI_EAUTH, "and it is used up even so");
	is_str(err.msg, "credential replayed",
	    "a refused credential counts "
	    "as used");
	free(cred);

	cred = cred_over("", 0);
	is_int(kai_auth_verify(sock, cred, "x", 1, &uid, &gid, &err), KAI_EAUTH,
	    "payload length differs: refused");
	is_str(err.msg, "credential does not match the request",
	    "length mismatch reason");
	free(cred);
}

static void
test_expired(void)
{
	struct kai_err err;
	uint32_t uid, gid;
	char *cred = cred_over("slow", 1);

	diag("waiting 3 s for a 1 s credential to expire");
	sleep(3);
	is_int(verify(cred, "slow", &uid, &gid, &err), KAI_EAUTH,
	    "stale credential refused");
	is_str(err.msg, "credential expired", "expiry reason");
	ok(err.hint != NULL, "expiry hints at the clocks");
	free(cred);
}

static void
test_garbage(void)
{
	struct kai_err err;
	uint32_t uid, gid;

	is_int(verify("MUNGE:AAAAbogusbogus:", "x", &uid, &gid, &err),
	    KAI_EAUTH, "garbage credential refused");
	ok(strncmp(err.msg, "invalid credential: ", 20) == 0,
	    "garbage reason carries munge's text (\"%s\")", err.msg);
	is_int(verify("hello", "x", &uid, &gid, &err), KAI_EAUTH,
	    "non-munge text refused");
	ok(strncmp(err.msg, "invalid credential: ", 20) == 0,
	    "non-munge reason (\"%s\")", err.msg);
	is_int(verify("", "x", &uid, &gid, &err), KAI_EAUTH,
	    "empty credential refused");
	is_str(err.msg, "missing credential", "empty reason");
	is_int(verify(NULL, "x", &uid, &gid, &err), KAI_EAUTH,
	    "NULL credential refused");
	is_str(err.msg, "missing credential", "NULL reason");
}

static void
test_no_munged(void)
{
	struct kai_err err;
	char *cred = (char *)"unchanged";

	is_int(kai_auth_cred_new("/nonexistent/munge.sock", "x", 1, 0, &cred,
		   &err),
	    KAI_EAUTH, "unreachable munged: cannot create");
	ok(strncmp(err.msg, "could not create credential: ", 29) == 0 &&
		strstr(err.msg, "/nonexistent/munge.sock") != NULL,
	    "reason names the socket (\"%s\")", err.msg);
	ok(cred == NULL, "no credential on failure");
	is_int(kai_auth_verify("/nonexistent/munge.sock", "MUNGE:x:", "x", 1,
		   &(uint32_t){0}, &(uint32_t){0}, &err),
	    KAI_EAUTH, "unreachable munged: cannot verify");
	ok(strncmp(err.msg, "could not verify credential: ", 29) == 0,
	    "verify reason (\"%s\")", err.msg);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		skip_all("usage: auth-munge MUNGE_SOCKET (run auth-munge.t)");
	sock = argv[1];
	test_roundtrip();
	test_mismatch();
	test_garbage();
	test_no_munged();
	test_expired();
	return done_testing();
}
