/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * auth.h: MUNGE credentials bound to request bytes.
 *
 * A client asks its local munged for a credential whose payload is the
 * request digest (proto.h kai_frame_digest()); kaid decodes it with its own
 * munged and accepts the request only when the payload equals the digest of
 * the bytes it received.  munged itself rejects expired and replayed
 * credentials and ones made with another key.  kai_auth_verify() returns
 * the identity only; permission decisions belong to kaid.
 *
 * socket may be NULL for munged's default socket.
 */
#ifndef KAI_AUTH_AUTH_H
#define KAI_AUTH_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/*
 * Creates a credential carrying payload (len bytes).  ttl_s 0 means
 * munged's default.  Caller owns *cred (free()).  KAI_EAUTH with munge's
 * reason ("could not create credential: Failed to access \"/x\": ...").
 */
int kai_auth_cred_new(const char *socket, const void *payload, size_t len,
    int ttl_s, char **cred, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Decodes cred and checks that its payload is exactly want (want_len
 * bytes).  On success sets *uid and *gid from the credential.  Fails with
 * KAI_EAUTH and a reason naming the fault: "credential expired",
 * "credential replayed", "credential does not match the request",
 * "invalid credential: ...", "missing credential".
 */
int kai_auth_verify(const char *socket, const char *cred, const void *want,
    size_t want_len, uint32_t *uid, uint32_t *gid, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * Decodes cred, whose payload must be exactly len bytes, into payload
 * (len bytes, the caller's), and sets *uid and *gid.  kaid checks a
 * request's credential as soon as it arrives, before its body, so that
 * an unauthenticated peer can make it hold no more than a header and a
 * credential; the payload is compared with the body's digest later.
 * The same errors as kai_auth_verify().
 */
int kai_auth_decode(const char *socket, const char *cred, void *payload,
    size_t len, uint32_t *uid, uint32_t *gid, struct kai_err *err)
    KAI_MUST_CHECK;

#endif /* KAI_AUTH_AUTH_H */
