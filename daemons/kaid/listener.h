/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * listener.h: a listening TCP socket on kaid's loop (listener.c), shared by
 * the client port (server.c), a standby's relay (relay.c) and the health
 * and metrics endpoint (httpd.c).
 */
#ifndef KAID_LISTENER_H
#define KAID_LISTENER_H

#include <stddef.h>

#include "kaid.h"

struct listener;

/*
 * Called for each accepted connection: fd is non-blocking and close-on-
 * exec and now belongs to the callee; peer is its numeric address.  The
 * callee may call listener_pause() on l.
 */
typedef void listener_fn(struct kaid *k, struct listener *l, int fd,
    const char *peer);

/*
 * Listens on "host:port" addr (host may be "[v6]", or empty for every
 * address) and accepts what waits whenever the loop says so.  what names
 * the port in log lines ("client", "http", "relay").  NULL with err set
 * when the address does not parse or resolve, or the socket cannot be
 * bound.
 */
struct listener *listener_open(struct kaid *k, const char *addr,
    const char *what, listener_fn *fn, struct kai_err *err);
/*
 * Stops accepting for a second (reason for the log, which says so at
 * most once a minute); accept() out of descriptors does it itself.
 */
void listener_pause(struct listener *l, const char *reason);
/* Closes the socket and forgets the listener; NULL is fine. */
void listener_close(struct listener *l);

#endif /* KAID_LISTENER_H */
