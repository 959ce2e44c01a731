/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto_pty.h: interactive sessions (types 56-61; see proto.h for the
 * frame and doc/design/PROTOCOL.md, "Interactive sessions").
 *
 *	KAI_MSG_PTY_ATTACH	 client (MUNGE) asks for job's terminal:
 *				 u64 job, u32 flags, u16 rows, u16 cols.
 *	KAI_MSG_PTY_ATTACH_REPLY u64 job: the connection now carries IO.
 *	KAI_MSG_PTY_SERVE	 a job's pod (job credential) offers its
 *				 terminal: u32 flags, u16 rows, u16 cols.
 *	KAI_MSG_PTY_SERVE_REPLY	 u64 job: the connection now carries IO.
 *	KAI_MSG_PTY_IO		 a stream frame to kaid, no credential.
 *	KAI_MSG_PTY_IO_OUT	 a stream frame from kaid.
 *
 * After the reply, both sides exchange IO frames on the same connection
 * until one of them closes it: the first frame's credential authenticated
 * the connection, and kaid pairs a client's connection with the pod's of
 * the same job (daemons/kaid/ptyrelay.c).  An IO body is u8 kind, then:
 *
 *	DATA	u8 stream (0 stdin, 1 stdout, 2 stderr), then the bytes to
 *		the end of the body (at most KAI_PTY_DATA_MAX)
 *	WINSIZE	u16 rows, u16 cols
 *	EXIT	i32 status: the exit code, or 128 + the signal that killed
 *	EOF	u8 stream: that stream is closed (the client's stdin)
 *	HANGUP	nothing: the client that owned the session left
 *	NOTICE	the rest of the body, a message for the user (UTF-8)
 *	START	nothing: kaid tells the client the pod serves now
 */
#ifndef KAI_PROTO_PROTO_PTY_H
#define KAI_PROTO_PROTO_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/msgtype.h"

#define KAI_PTY_DATA_MAX  16384 /* payload bytes of one DATA frame */
#define KAI_PTY_SIGNAL_MAX 31 /* the standard signals; no real-time ones */
#define KAI_PTY_IO_MAX	  (KAI_PTY_DATA_MAX + 2) /* an IO body */

/* PTY_ATTACH flags */
#define KAI_PTY_OWNER 0x1 /* the job ends when this client leaves */
#define KAI_PTY_ATTACH_FLAGS KAI_PTY_OWNER
/* PTY_SERVE flags */
#define KAI_PTY_TERMINAL 0x1 /* a pseudo-terminal, not three pipes */
#define KAI_PTY_SERVE_FLAGS KAI_PTY_TERMINAL

enum kai_pty_kind {
	KAI_PTY_DATA = 0,
	KAI_PTY_WINSIZE = 1,
	KAI_PTY_EXIT = 2,
	KAI_PTY_EOF = 3,
	KAI_PTY_HANGUP = 4,
	KAI_PTY_NOTICE = 5,
	KAI_PTY_START = 6,
	KAI_PTY_SIGNAL = 7,
	KAI_PTY_NKINDS
};

/* The body of an ATTACH or a SERVE (job is 0 in SERVE: the credential
 * names it). */
struct kai_pty_open {
	uint64_t job;
	uint32_t flags;
	uint16_t rows, cols; /* 0 = not a terminal or not known */
};

/* One IO frame's body; data is borrowed from the decoded bytes. */
struct kai_pty_io {
	enum kai_pty_kind kind;
	uint8_t stream;		/* DATA, EOF */
	uint16_t rows, cols;	/* WINSIZE */
	int32_t status;		/* EXIT */
	uint8_t signo;		/* SIGNAL: 1 to KAI_PTY_SIGNAL_MAX */
	const char *data;	/* DATA, NOTICE */
	size_t len;
};

int kai_msg_pty_attach_encode(struct kai_buf *b,
    const struct kai_pty_open *o) KAI_MUST_CHECK;
int kai_msg_pty_attach_decode(const void *p, size_t n, struct kai_pty_open *o,
    struct kai_err *err) KAI_MUST_CHECK;
int kai_msg_pty_serve_encode(struct kai_buf *b,
    const struct kai_pty_open *o) KAI_MUST_CHECK;
int kai_msg_pty_serve_decode(const void *p, size_t n, struct kai_pty_open *o,
    struct kai_err *err) KAI_MUST_CHECK;

/* KAI_EINVAL for DATA over KAI_PTY_DATA_MAX, a stream above 2 or a
 * SIGNAL outside 1 to KAI_PTY_SIGNAL_MAX. */
int kai_msg_pty_io_encode(struct kai_buf *b,
    const struct kai_pty_io *io) KAI_MUST_CHECK;
/* KAI_EPROTO naming the fault; io->data points into p. */
int kai_msg_pty_io_decode(const void *p, size_t n, struct kai_pty_io *io,
    struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_PROTO_PROTO_PTY_H */
