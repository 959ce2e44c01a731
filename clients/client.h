/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client.h: what every client program shares: exit statuses, the error
 * wording, and one authenticated request to kaid.
 *
 * A request is one TCP connection: connect, send one frame whose MUNGE
 * credential carries kai_frame_digest() of the body, read reply frames
 * until one comes without KAI_FRAME_MORE, close.  Sockets are blocking
 * with timeouts, so a client never hangs on a dead controller.  Nothing
 * here keeps state between calls.
 *
 * Where kaid is: $KAI_CONTROLLER ("host:port", "[v6addr]:port" or "host"
 * for port 6820), else `controller:` in kai.yaml ($KAI_CONF, else
 * KAI_CONFIG_DIR/kai.yaml), else 127.0.0.1:6820.  Which munged:
 * $KAI_MUNGE_SOCKET, else `munge_socket:` in kai.yaml, else the configure
 * default, else munged's own default.
 */
#ifndef KAI_CLIENTS_CLIENT_H
#define KAI_CLIENTS_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/proto.h"

/* exit statuses of every client (doc'd in each man page) */
#define CLIENT_EXIT_OK      0
#define CLIENT_EXIT_REFUSED 1 /* kaid refused or the job failed */
#define CLIENT_EXIT_USAGE   2
#define CLIENT_EXIT_CONNECT 3 /* cannot connect to or authenticate with kaid */

#define CLIENT_DEFAULT_CONTROLLER "127.0.0.1:6820"
#define CLIENT_DEFAULT_PORT       "6820"
#define CLIENT_CONNECT_TIMEOUT_S  10
#define CLIENT_IO_TIMEOUT_S       60 /* SO_RCVTIMEO / SO_SNDTIMEO */

/* Prints "prog: error: <msg>" (and a "hint: <hint>" line if hint) on stderr. */
void client_error(const char *prog, const char *hint, const char *fmt, ...)
    KAI_PRINTF(3, 4);
/* Prints "prog: warning: <msg>" on stderr. */
void client_warn(const char *prog, const char *fmt, ...) KAI_PRINTF(2, 3);
/*
 * Sends what the two above print to f instead (NULL: stderr again), for
 * a caller that holds a try's messages back until it knows whether it
 * will try again (pod/kaid_away.c).
 */
void client_errors_to(FILE *f);

/*
 * Called once per reply frame (not for KAI_MSG_ERROR, which
 * client_request() reports itself).  body is borrowed for the call.
 * Returns CLIENT_EXIT_OK to go on, or another CLIENT_EXIT_* to stop and
 * make client_request() return it; the callback prints its own error.
 */
typedef int
client_reply_fn(uint16_t type, const void *body, size_t len, void *ctx);

/*
 * Sends one request to kaid and feeds every reply frame (KAI_FRAME_MORE
 * chains) to fn.  Creates a credential over kai_frame_digest(type, body).
 * The reply to request type T must be T + 1 or KAI_MSG_ERROR.  A
 * KAI_MSG_ERROR reply is printed with client_error() and gives
 * CLIENT_EXIT_REFUSED (CLIENT_EXIT_CONNECT when its code is KAI_EAUTH).
 * Connection and credential failures print
 * "prog: error: cannot connect to kaid at \"host:port\": <reason>", and a
 * broken or unexpected reply "prog: error: invalid reply from kaid at
 * \"host:port\": <reason>"; both give CLIENT_EXIT_CONNECT.  Returns
 * CLIENT_EXIT_OK when the last frame was handled.
 */
int client_request(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *fn, void *ctx);
/*
 * The same, keeping the connection: when the reply was handled, *keep
 * is the socket, which carries what the request opened (an interactive
 * session, client_pty.h); the caller closes it.
 */
int client_request_open(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *fn, void *ctx, int *keep);

/*
 * The pieces client_request() is made of, for kai-rawreq and for clients
 * that need more control.  Each returns 0 or a KAI_E* code with err set.
 */

/* Where kaid and munged are (see the top of this file). */
struct client_target {
	char *controller;   /* "host:port"; owned */
	char *munge_socket; /* NULL = munged's default; owned */
};
int
client_target_load(struct client_target *t, struct kai_err *err) KAI_MUST_CHECK;
void client_target_fini(struct client_target *t);

/*
 * Connects to "host:port" (TCP_NODELAY, close-on-exec, I/O timeouts set),
 * or to the first of "host:port,host:port..." that accepts (a leader and
 * its standbys).  KAI_EINVAL for an address that does not parse, KAI_ESYS
 * or KAI_ETIMEDOUT when none accepts (the last one's error).
 */
int client_connect(const char *hostport, int *fd,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Appends a request frame to out: a fresh credential (ttl_s 0 = munged's
 * default) over kai_frame_digest(type, body), then the body.
 */
int client_frame_new(struct kai_buf *out, uint16_t type, const void *body,
    size_t len, const char *munge_socket, int ttl_s,
    struct kai_err *err) KAI_MUST_CHECK;
/* The same in protocol version `version` (kai-rawreq's --proto-version). */
int client_frame_new_version(struct kai_buf *out, uint16_t version,
    uint16_t type, const void *body, size_t len, const char *munge_socket,
    int ttl_s, struct kai_err *err) KAI_MUST_CHECK;

/*
 * The credential over a request digest: the link-time auth backend.
 * The clients link client_munge.c (a MUNGE credential from munged at
 * munge_socket, ttl_s 0 = munged's default); the in-pod kaistep links
 * client_jobcred.c (a job credential from the key kaid gave the job:
 * munge_socket and ttl_s are ignored).  Caller owns *cred and frees it
 * with kai_free_secret().  KAI_EAUTH with the reason.
 */
int client_cred_new(const char *munge_socket,
    const uint8_t digest[KAI_PROTO_DIGEST_LEN], int ttl_s, char **cred,
    struct kai_err *err) KAI_MUST_CHECK;

/* Writes all n bytes (partial writes, EINTR; no SIGPIPE). */
int client_send(int fd, const void *p, size_t n,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Reads one whole reply frame: checks the header (kai_frame_hdr_decode()
 * and no credential in a reply) and reads the body into body (reset
 * first; its max must be at least KAI_PROTO_BODY_MAX).  KAI_EPROTO for a
 * broken frame or a connection closed inside one, KAI_ENOENT when kaid
 * closed the connection before the first byte, KAI_ETIMEDOUT, KAI_ESYS.
 */
int client_recv_frame(int fd, struct kai_frame_hdr *h, struct kai_buf *body,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_CLIENTS_CLIENT_H */
