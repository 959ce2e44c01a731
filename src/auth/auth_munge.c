/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * auth_munge.c: MUNGE credentials bound to request bytes.  See auth.h.
 *
 * The munge context is created and destroyed inside each call, so no
 * libmunge object ever leaves this file (STYLE b3) and there is no state
 * to share.  munged does the real checks (key, TTL, replay cache); this
 * file adds the one munged cannot know about, that the payload equals the
 * digest of the request that arrived, and turns libmunge's error numbers
 * into kaibatch's wording.
 *
 * Encoding is retried a few times when munged cannot be reached, the way
 * Slurm's auth/munge plugin does, because munged answers on a listen
 * socket with a small backlog and a busy login node can see a transient
 * EMUNGE_SOCKET.  Decoding is not retried: a decode consumes the
 * credential in munged's replay cache, so a retry after a lost reply
 * would be refused as a replay.
 *
 * The decoded payload (a digest, but still credential contents) is
 * cleared with explicit_bzero() before it is freed on every path.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <munge.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth.h"
#include "base/xmalloc.h"

#define ENCODE_TRIES    5
#define ENCODE_RETRY_NS (100 * 1000 * 1000) /* between tries */

/* The context's detailed message, else the code's static text. */
static const char *
ctx_text(munge_ctx_t ctx, munge_err_t e)
{
	const char *t = munge_ctx_strerror(ctx);

	return t != NULL ? t : munge_strerror(e);
}

/* Sets the socket when one is given; KAI_EAUTH with munge's text if not. */
static int
ctx_new(const char *socket, munge_ctx_t *out, struct kai_err *err)
{
	munge_ctx_t ctx;
	munge_err_t e = EMUNGE_SUCCESS;

	if ((ctx = munge_ctx_create()) == NULL)
		return kai_err_set(err, KAI_EAUTH,
		    "could not create munge context: out of memory");
	if (socket != NULL)
		e = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket);
	if (e != EMUNGE_SUCCESS) {
		kai_err_set(err, KAI_EAUTH, "invalid munge socket \"%s\": %s",
		    socket, ctx_text(ctx, e));
		munge_ctx_destroy(ctx);
		return KAI_EAUTH;
	}
	*out = ctx;
	return 0;
}

static void
pause_retry(void)
{
	struct timespec ts = {0, ENCODE_RETRY_NS};

	/* A signal cuts the pause short; sleep what is left of it. */
	while (nanosleep(&ts, &ts) == -1) {
		if (errno != EINTR)
			break;
	}
}

int
kai_auth_cred_new(const char *socket, const void *payload, size_t len,
    int ttl_s, char **cred, struct kai_err *err)
{
	munge_ctx_t ctx = NULL;
	munge_err_t e;
	char *c = NULL;
	int r, tries;

	*cred = NULL;
	if (len > INT32_MAX || ttl_s < 0)
		return kai_err_set(err, KAI_EINVAL,
		    "could not create credential: invalid %s",
		    ttl_s < 0 ? "time-to-live" : "payload length");
	if ((r = ctx_new(socket, &ctx, err)) != 0)
		return r;
	if (ttl_s > 0 &&
	    (e = munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl_s)) != EMUNGE_SUCCESS) {
		kai_err_set(err, KAI_EAUTH, "could not create credential: %s",
		    munge_strerror(e));
		munge_ctx_destroy(ctx);
		return KAI_EAUTH;
	}
	for (tries = 1;; tries++) {
		e = munge_encode(&c, ctx, payload, (int)len);
		if (e != EMUNGE_SOCKET || tries == ENCODE_TRIES)
			break;
		pause_retry();
	}
	if (e != EMUNGE_SUCCESS) {
		kai_err_set(err, KAI_EAUTH, "could not create credential: %s",
		    ctx_text(ctx, e));
		if (e == EMUNGE_SOCKET)
			kai_err_hint(err,
			    "is munged running? (systemctl status "
			    "munge)");
		munge_ctx_destroy(ctx);
		free(c);
		return KAI_EAUTH;
	}
	munge_ctx_destroy(ctx);
	*cred = c;
	return 0;
}

/* kaibatch's words for munged's verdict on a credential. */
static int
decode_error(munge_err_t e, munge_ctx_t ctx, struct kai_err *err)
{
	const char *text = ctx_text(ctx, e);

	switch (e) {
	case EMUNGE_CRED_EXPIRED:
		kai_err_set(err, KAI_EAUTH, "credential expired");
		kai_err_hint(err,
		    "check that the clocks of the client and "
		    "the controller agree");
		break;
	case EMUNGE_CRED_REPLAYED:
		kai_err_set(err, KAI_EAUTH, "credential replayed");
		break;
	case EMUNGE_CRED_REWOUND:
		kai_err_set(err, KAI_EAUTH,
		    "credential rewound: it was created in the future");
		kai_err_hint(err,
		    "check that the clocks of the client and "
		    "the controller agree");
		break;
	case EMUNGE_SOCKET:
	case EMUNGE_NO_MEMORY:
	case EMUNGE_SNAFU:
	case EMUNGE_TIMEOUT:
		/* Not the credential's fault: kaid's own munged failed. */
		kai_err_set(err, KAI_EAUTH, "could not verify credential: %s",
		    text);
		break;
	default:
		kai_err_set(err, KAI_EAUTH, "invalid credential: %s", text);
		if (e == EMUNGE_CRED_INVALID || e == EMUNGE_BAD_REALM)
			kai_err_hint(err,
			    "the client and the controller must "
			    "share the same munge key");
		break;
	}
	return KAI_EAUTH;
}

int
kai_auth_decode(const char *socket, const char *cred, void *payload,
    size_t len, uint32_t *uid, uint32_t *gid, struct kai_err *err)
{
	munge_ctx_t ctx = NULL;
	munge_err_t e;
	void *p = NULL;
	int plen = 0, r = 0;
	uid_t u;
	gid_t g;

	if (cred == NULL || cred[0] == '\0')
		return kai_err_set(err, KAI_EAUTH, "missing credential");
	if ((r = ctx_new(socket, &ctx, err)) != 0)
		return r;
	e = munge_decode(cred, ctx, &p, &plen, &u, &g);
	if (e != EMUNGE_SUCCESS)
		r = decode_error(e, ctx, err);
	else if ((size_t)plen != len)
		r = kai_err_set(err, KAI_EAUTH,
		    "credential does not match the request");
	else if (len > 0)
		memcpy(payload, p, len);
	munge_ctx_destroy(ctx);
	/* munge_decode() may return a payload even with an error. */
	if (p != NULL) {
		explicit_bzero(p, plen > 0 ? (size_t)plen : 0);
		free(p);
	}
	if (r != 0)
		return r;
	*uid = (uint32_t)u;
	*gid = (uint32_t)g;
	return 0;
}

int
kai_auth_verify(const char *socket, const char *cred, const void *want,
    size_t want_len, uint32_t *uid, uint32_t *gid, struct kai_err *err)
{
	uint8_t *got = kai_xmalloc(want_len > 0 ? want_len : 1);
	int r;

	r = kai_auth_decode(socket, cred, got, want_len, uid, gid, err);
	if (r == 0 && want_len > 0 && memcmp(got, want, want_len) != 0)
		r = kai_err_set(err, KAI_EAUTH,
		    "credential does not match the request");
	free(got);
	return r;
}
