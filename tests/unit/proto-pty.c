/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-pty: the interactive session messages (proto_pty.h): ATTACH and
 * SERVE round-trip, their every proper prefix and a trailing byte are
 * refused, unknown flags are refused; each IO kind round-trips, DATA up
 * to its limit and not past it, with bytes that are not UTF-8; an
 * unknown kind, a stream above 2, a SIGNAL outside 1-31, a truncated
 * WINSIZE and bytes after a fixed-size kind are refused with a message naming the field.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_pty.h"
#include "tap.h"

static size_t
bad_prefixes(const struct kai_buf *b, bool attach)
{
	struct kai_pty_open o;
	struct kai_err err;
	char *p = kai_xmalloc(b->len + 1);
	size_t n, bad = 0;

	memcpy(p, b->data, b->len);
	p[b->len] = 0;
	for (n = 0; n <= b->len + 1; n++) {
		int r = attach ? kai_msg_pty_attach_decode(p, n, &o, &err) :
		    kai_msg_pty_serve_decode(p, n, &o, &err);
		if (n != b->len && r != KAI_EPROTO)
			bad++;
	}
	free(p);
	return bad;
}

static void
test_open(void)
{
	struct kai_pty_open o = {42, KAI_PTY_OWNER, 33, 101}, m;
	struct kai_buf b;
	struct kai_err err;

	kai_buf_init(&b, 1024);
	ok(kai_msg_pty_attach_encode(&b, &o) == 0, "attach encodes");
	ok(kai_msg_pty_attach_decode(b.data, b.len, &m, &err) == 0 &&
	    m.job == 42 && m.flags == KAI_PTY_OWNER && m.rows == 33 &&
	    m.cols == 101, "attach round-trips");
	is_int((int64_t)bad_prefixes(&b, true), 0,
	    "attach: every prefix and a trailing byte refused");
	kai_buf_reset(&b);
	o.flags = 0x80;
	ok(kai_msg_pty_attach_encode(&b, &o) == 0 &&
	    kai_msg_pty_attach_decode(b.data, b.len, &m, &err) ==
	    KAI_EPROTO && strstr(err.msg, "unrecognized session flags") !=
	    NULL, "attach: unknown flags refused: %s", err.msg);
	kai_buf_reset(&b);
	o.flags = KAI_PTY_TERMINAL;
	ok(kai_msg_pty_serve_encode(&b, &o) == 0 &&
	    kai_msg_pty_serve_decode(b.data, b.len, &m, &err) == 0 &&
	    m.job == 0 && m.flags == KAI_PTY_TERMINAL && m.rows == 33,
	    "serve round-trips, without a job (the credential names it)");
	is_int((int64_t)bad_prefixes(&b, false), 0,
	    "serve: every prefix and a trailing byte refused");
	kai_buf_fini(&b);
}

static int
io_round(const struct kai_pty_io *io, struct kai_pty_io *m, struct kai_buf *b)
{
	struct kai_err err;

	kai_buf_reset(b);
	if (kai_msg_pty_io_encode(b, io) != 0)
		return -1;
	return kai_msg_pty_io_decode(b->data, b->len, m, &err);
}

static void
test_io(void)
{
	static const char raw[] = {'\xff', '\0', '\x03', '\xc3'};
	struct kai_pty_io io, m;
	struct kai_buf b;
	struct kai_err err;
	char *big = kai_xcalloc(1, KAI_PTY_DATA_MAX + 1);
	uint8_t x[8];

	kai_buf_init(&b, KAI_PTY_IO_MAX + 64);
	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_DATA;
	io.stream = 2;
	io.data = raw;
	io.len = sizeof(raw);
	ok(io_round(&io, &m, &b) == 0 && m.stream == 2 &&
	    m.len == sizeof(raw) && memcmp(m.data, raw, sizeof(raw)) == 0,
	    "DATA round-trips bytes that are not UTF-8 (a NUL, a cut "
	    "character)");
	io.data = big;
	io.len = KAI_PTY_DATA_MAX;
	ok(io_round(&io, &m, &b) == 0 && m.len == KAI_PTY_DATA_MAX,
	    "DATA of %d bytes (the limit)", KAI_PTY_DATA_MAX);
	io.len = KAI_PTY_DATA_MAX + 1;
	kai_buf_reset(&b);
	ok(kai_msg_pty_io_encode(&b, &io) == KAI_EINVAL && b.len == 0,
	    "DATA past the limit is not encoded, nothing half-written");
	io.len = 0;
	io.stream = 3;
	ok(kai_msg_pty_io_encode(&b, &io) == KAI_EINVAL,
	    "a stream above 2 is not encoded");
	x[0] = KAI_PTY_DATA;
	x[1] = 3;
	ok(kai_msg_pty_io_decode(x, 2, &m, &err) == KAI_EPROTO &&
	    strstr(err.msg, "\"stream\"") != NULL,
	    "a stream above 2 is refused: %s", err.msg);
	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_WINSIZE;
	io.rows = 40;
	io.cols = 120;
	ok(io_round(&io, &m, &b) == 0 && m.kind == KAI_PTY_WINSIZE &&
	    m.rows == 40 && m.cols == 120, "WINSIZE round-trips");
	ok(kai_msg_pty_io_decode(b.data, b.len - 1, &m, &err) ==
	    KAI_EPROTO && strstr(err.msg, "\"cols\"") != NULL,
	    "a truncated WINSIZE is refused: %s", err.msg);
	io.kind = KAI_PTY_EXIT;
	io.status = 130;
	ok(io_round(&io, &m, &b) == 0 && m.status == 130,
	    "EXIT round-trips");
	ok(kai_buf_addc(&b, 'x') == 0 &&
	    kai_msg_pty_io_decode(b.data, b.len, &m, &err) == KAI_EPROTO &&
	    strstr(err.msg, "trailing") != NULL,
	    "bytes after EXIT's status are refused: %s", err.msg);
	io.kind = KAI_PTY_EOF;
	io.stream = 0;
	ok(io_round(&io, &m, &b) == 0 && m.kind == KAI_PTY_EOF, "EOF");
	io.kind = KAI_PTY_HANGUP;
	ok(io_round(&io, &m, &b) == 0 && m.kind == KAI_PTY_HANGUP, "HANGUP");
	io.kind = KAI_PTY_START;
	ok(io_round(&io, &m, &b) == 0 && m.kind == KAI_PTY_START, "START");
	io.kind = KAI_PTY_NOTICE;
	io.data = "job 7 ended: CANCELLED";
	io.len = strlen(io.data);
	ok(io_round(&io, &m, &b) == 0 && m.len == io.len &&
	    memcmp(m.data, io.data, io.len) == 0, "NOTICE round-trips");
	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_SIGNAL;
	io.signo = 2;
	ok(io_round(&io, &m, &b) == 0 && m.kind == KAI_PTY_SIGNAL &&
	    m.signo == 2, "SIGNAL round-trips");
	io.signo = 0;
	ok(kai_msg_pty_io_encode(&b, &io) == KAI_EINVAL,
	    "SIGNAL 0 is not encoded");
	io.signo = KAI_PTY_SIGNAL_MAX + 1;
	ok(kai_msg_pty_io_encode(&b, &io) == KAI_EINVAL,
	    "a real-time signal is not encoded");
	x[0] = KAI_PTY_SIGNAL;
	x[1] = 40;
	ok(kai_msg_pty_io_decode(x, 2, &m, &err) == KAI_EPROTO &&
	    strstr(err.msg, "\"signal\"") != NULL,
	    "SIGNAL 40 is refused: %s", err.msg);
	ok(kai_msg_pty_io_decode(x, 1, &m, &err) == KAI_EPROTO,
	    "SIGNAL without its number is refused");
	x[0] = KAI_PTY_NKINDS;
	ok(kai_msg_pty_io_decode(x, 1, &m, &err) == KAI_EPROTO &&
	    strstr(err.msg, "\"kind\"") != NULL,
	    "an unknown kind is refused: %s", err.msg);
	ok(kai_msg_pty_io_decode(x, 0, &m, &err) == KAI_EPROTO,
	    "an empty body is refused");
	kai_buf_fini(&b);
	free(big);
}

int
main(void)
{
	test_open();
	test_io();
	return done_testing();
}
