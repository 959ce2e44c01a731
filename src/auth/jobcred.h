/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobcred.h: job credentials, the in-pod alternative to MUNGE.
 *
 * A job's pods have no munged and no MUNGE key (a MUNGE key in a pod
 * would let it speak as anybody).  Instead kaid derives one key per job,
 *     job key = HMAC-SHA256(kaid's master key, "kaibatch job key v1" || id)
 * and hands it to the job's pods in a Secret (doc/design/PROTOCOL.md has
 * the threat model).  A request from inside the job carries
 *     KAIJOB1:<job id>:<issued, unix s>:<nonce, 32 hex>:<digest, 64 hex>:<mac, 64 hex>
 * where digest is the request's kai_frame_digest() and mac is
 * HMAC-SHA256(job key, the fields above in binary).  kaid recomputes the
 * job key from the id, checks the MAC in constant time, the issue time
 * against a window, the nonce against a replay cache, and the digest
 * against the request's bytes; the identity is then the uid and gid kaid
 * recorded for the job at submit, and only while the job has not ended.
 *
 * Pure: no clock (now is an argument), no randomness (the nonce is),
 * no I/O.  Libraries: base only, so the static in-pod program links it
 * without libmunge.
 */
#ifndef KAI_AUTH_JOBCRED_H
#define KAI_AUTH_JOBCRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_JOBCRED_PREFIX    "KAIJOB1:"
#define KAI_JOBCRED_KEY_LEN   32  /* bytes of a master or job key */
#define KAI_JOBCRED_NONCE_LEN 16  /* bytes of a credential's nonce */
#define KAI_JOBCRED_DIGEST_LEN 32 /* bytes: kai_frame_digest() */
#define KAI_JOBCRED_WINDOW_S  300 /* MUNGE's default TTL */
/* Text of a job key in its file: 64 hex digits and a newline. */
#define KAI_JOBCRED_KEY_TEXT_LEN (2 * KAI_JOBCRED_KEY_LEN + 1)

struct kai_jobcred {
	uint64_t job_id;
	int64_t issued;				/* unix s */
	uint8_t nonce[KAI_JOBCRED_NONCE_LEN];
	uint8_t digest[KAI_JOBCRED_DIGEST_LEN];	/* of the request */
	uint8_t mac[32];
};

/* Whether cred is a job credential (by its prefix); NULL is not. */
bool kai_jobcred_is(const char *cred);

/* The key of job id under master. */
void kai_jobcred_job_key(const uint8_t master[KAI_JOBCRED_KEY_LEN],
    uint64_t id, uint8_t key[KAI_JOBCRED_KEY_LEN]);

/*
 * A credential for a request whose digest is given, made with job id's
 * key at time now with the caller's random nonce.  Caller owns the
 * result (kai_free_secret() is not needed: it holds no secret).
 */
char *kai_jobcred_new(uint64_t id, const uint8_t key[KAI_JOBCRED_KEY_LEN],
    int64_t now, const uint8_t nonce[KAI_JOBCRED_NONCE_LEN],
    const uint8_t digest[KAI_JOBCRED_DIGEST_LEN]);

/*
 * Parses cred into c, checking only its form.  KAI_EAUTH "invalid job
 * credential: <what>".
 */
int kai_jobcred_parse(const char *cred, struct kai_jobcred *c,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Checks c's MAC against the job's key (derived from master) and its
 * issue time against now +- window_s.  KAI_EAUTH "job credential does
 * not match its job" or "job credential expired" or "job credential
 * issued in the future" (a clock more than window_s ahead).
 */
int kai_jobcred_check(const struct kai_jobcred *c,
    const uint8_t master[KAI_JOBCRED_KEY_LEN], int64_t now, int window_s,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * The key as its file holds it (64 lower-case hex digits, newline) into
 * text, and back: kai_jobcred_key_parse() accepts the digits with or
 * without one trailing newline, KAI_EINVAL otherwise.
 */
void kai_jobcred_key_text(const uint8_t key[KAI_JOBCRED_KEY_LEN],
    char text[KAI_JOBCRED_KEY_TEXT_LEN + 1]);
int kai_jobcred_key_parse(const char *text, size_t len,
    uint8_t key[KAI_JOBCRED_KEY_LEN]) KAI_MUST_CHECK;

/*
 * The replay cache: a credential's (job id, nonce) is accepted once
 * within its window.  Entries older than the window are dropped as new
 * ones come, so the cache holds at most the credentials of one window.
 */
struct kai_jobcred_replay;
struct kai_jobcred_replay *kai_jobcred_replay_new(void);
void kai_jobcred_replay_free(struct kai_jobcred_replay *r);
/* KAI_EAUTH "job credential replayed" when seen; else records it. */
int kai_jobcred_replay_check(struct kai_jobcred_replay *r,
    const struct kai_jobcred *c, int64_t now, int window_s,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_AUTH_JOBCRED_H */
