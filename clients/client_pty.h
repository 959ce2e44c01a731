/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_pty.h: the two ends of an interactive session outside kaid:
 * ksrun/ksalloc/ksattach on a login node and `kaistep pty-serve` in the
 * job's pod.  Both open the session with one request (client.h
 * client_request_open(): PTY_ATTACH with MUNGE, PTY_SERVE with the job's
 * credential) and then exchange IO frames on that connection
 * (proto/proto_pty.h).
 */
#ifndef KAI_CLIENTS_CLIENT_PTY_H
#define KAI_CLIENTS_CLIENT_PTY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/proto_pty.h"

/*
 * Sends request type (PTY_ATTACH or PTY_SERVE) with body o and waits for
 * its reply; on CLIENT_EXIT_OK *fd is the session, with no receive
 * timeout (a terminal may be idle for hours) and *job the job kaid
 * named.  Errors are printed as client_request() prints them.
 */
int client_pty_open(const char *prog, uint16_t type,
    const struct kai_pty_open *o, int *fd, uint64_t *job);

/* Writes one IO frame, whole (blocking). */
int client_pty_send(int fd, const struct kai_pty_io *io,
    struct kai_err *err) KAI_MUST_CHECK;
/* DATA frames for n bytes of p on stream, as many as they take. */
int client_pty_send_data(int fd, uint8_t stream, const void *p, size_t n,
    struct kai_err *err) KAI_MUST_CHECK;

/* What has been read of the session and not yet decoded. */
struct client_pty_rd {
	struct kai_buf in;
};
typedef int client_pty_fn(const struct kai_pty_io *io, void *ctx);
void client_pty_rd_init(struct client_pty_rd *rd);
void client_pty_rd_fini(struct client_pty_rd *rd);
/*
 * One read(2) of fd, then fn for every whole frame (in order); fn's
 * non-zero return stops and is returned.  KAI_ENOENT when kaid closed
 * the session, KAI_EPROTO for a frame that is not IO, KAI_ESYS.
 */
int client_pty_read(int fd, struct client_pty_rd *rd, client_pty_fn *fn,
    void *ctx, struct kai_err *err);

#endif /* KAI_CLIENTS_CLIENT_PTY_H */
