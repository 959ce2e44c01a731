/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_pty.c: the interactive session messages (proto_pty.h): the ATTACH
 * and SERVE requests that open a session and the IO frames that follow
 * on the same connection.  DATA carries raw terminal bytes, which need
 * not be UTF-8 (a multi-byte character may be cut between two frames),
 * so its payload is the rest of the body rather than a codec string.
 */
#include "config.h"

#include <string.h>

#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_pty.h"

static int
open_encode(struct kai_buf *b, const struct kai_pty_open *o, bool with_job)
{
	size_t start = b->len;

	if ((with_job && kai_codec_put_u64(b, o->job) != 0) ||
	    kai_codec_put_u32(b, o->flags) != 0 ||
	    kai_codec_put_u16(b, o->rows) != 0 ||
	    kai_codec_put_u16(b, o->cols) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

static int
open_decode(const void *p, size_t n, struct kai_pty_open *o, bool with_job,
    uint32_t known, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_pty_open v;
	int rc;

	memset(&v, 0, sizeof(v));
	kai_codec_rd_init(&r, p, n, err);
	if ((with_job && (rc = kai_codec_get_u64(&r, "job", &v.job)) != 0) ||
	    (rc = kai_codec_get_u32(&r, "flags", &v.flags)) != 0 ||
	    (rc = kai_codec_get_u16(&r, "rows", &v.rows)) != 0 ||
	    (rc = kai_codec_get_u16(&r, "cols", &v.cols)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	if ((v.flags & ~known) != 0)
		return kai_err_set(err, KAI_EPROTO,
		    "unrecognized session flags 0x%x", (unsigned)v.flags);
	*o = v;
	return 0;
}

int
kai_msg_pty_attach_encode(struct kai_buf *b, const struct kai_pty_open *o)
{
	return open_encode(b, o, true);
}

int
kai_msg_pty_attach_decode(const void *p, size_t n, struct kai_pty_open *o,
    struct kai_err *err)
{
	return open_decode(p, n, o, true, KAI_PTY_ATTACH_FLAGS, err);
}

int
kai_msg_pty_serve_encode(struct kai_buf *b, const struct kai_pty_open *o)
{
	return open_encode(b, o, false);
}

int
kai_msg_pty_serve_decode(const void *p, size_t n, struct kai_pty_open *o,
    struct kai_err *err)
{
	return open_decode(p, n, o, false, KAI_PTY_SERVE_FLAGS, err);
}

int
kai_msg_pty_io_encode(struct kai_buf *b, const struct kai_pty_io *io)
{
	size_t start = b->len;
	int r = kai_codec_put_u8(b, (uint8_t)io->kind);

	switch (io->kind) {
	case KAI_PTY_DATA:
		if (io->stream > 2 || io->len > KAI_PTY_DATA_MAX)
			r = KAI_EINVAL;
		if (r == 0)
			r = kai_codec_put_u8(b, io->stream);
		if (r == 0 && io->len > 0)
			r = kai_buf_add(b, io->data, io->len);
		break;
	case KAI_PTY_WINSIZE:
		if (r == 0)
			r = kai_codec_put_u16(b, io->rows);
		if (r == 0)
			r = kai_codec_put_u16(b, io->cols);
		break;
	case KAI_PTY_EXIT:
		if (r == 0)
			r = kai_codec_put_i32(b, io->status);
		break;
	case KAI_PTY_EOF:
		if (r == 0)
			r = kai_codec_put_u8(b, io->stream);
		break;
	case KAI_PTY_HANGUP:
	case KAI_PTY_START:
		break;
	case KAI_PTY_SIGNAL:
		if (io->signo == 0 || io->signo > KAI_PTY_SIGNAL_MAX)
			r = KAI_EINVAL;
		if (r == 0)
			r = kai_codec_put_u8(b, io->signo);
		break;
	case KAI_PTY_NOTICE:
		if (io->len > KAI_PTY_DATA_MAX)
			r = KAI_EINVAL;
		if (r == 0 && io->len > 0)
			r = kai_buf_add(b, io->data, io->len);
		break;
	default:
		r = KAI_EINVAL;
		break;
	}
	if (r != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_pty_io_decode(const void *p, size_t n, struct kai_pty_io *io,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_pty_io v;
	uint8_t kind;
	int rc;

	memset(&v, 0, sizeof(v));
	kai_codec_rd_init(&r, p, n, err);
	if ((rc = kai_codec_get_u8(&r, "kind", &kind)) != 0)
		return rc;
	if (kind >= KAI_PTY_NKINDS)
		return kai_err_set(err, KAI_EPROTO,
		    "invalid value %u for field \"kind\": must be below %d",
		    (unsigned)kind, KAI_PTY_NKINDS);
	v.kind = (enum kai_pty_kind)kind;
	switch (v.kind) {
	case KAI_PTY_DATA:
		if ((rc = kai_codec_get_u8(&r, "stream", &v.stream)) != 0)
			return rc;
		if (v.stream > 2)
			return kai_err_set(err, KAI_EPROTO,
			    "invalid value %u for field \"stream\": must be 0, "
			    "1 or 2", (unsigned)v.stream);
		v.data = (const char *)r.p + r.off;
		v.len = r.len - r.off;
		if (v.len > KAI_PTY_DATA_MAX)
			return kai_err_set(err, KAI_EPROTO,
			    "field \"data\" too long: %zu > %d bytes", v.len,
			    KAI_PTY_DATA_MAX);
		r.off = r.len;
		break;
	case KAI_PTY_WINSIZE:
		if ((rc = kai_codec_get_u16(&r, "rows", &v.rows)) != 0 ||
		    (rc = kai_codec_get_u16(&r, "cols", &v.cols)) != 0)
			return rc;
		break;
	case KAI_PTY_EXIT:
		if ((rc = kai_codec_get_i32(&r, "status", &v.status)) != 0)
			return rc;
		break;
	case KAI_PTY_EOF:
		if ((rc = kai_codec_get_u8(&r, "stream", &v.stream)) != 0)
			return rc;
		break;
	case KAI_PTY_HANGUP:
	case KAI_PTY_START:
		break;
	case KAI_PTY_SIGNAL:
		if ((rc = kai_codec_get_u8(&r, "signal", &v.signo)) != 0)
			return rc;
		if (v.signo == 0 || v.signo > KAI_PTY_SIGNAL_MAX)
			return kai_err_set(err, KAI_EPROTO,
			    "invalid value %u for field \"signal\": must be 1 "
			    "to %d", (unsigned)v.signo, KAI_PTY_SIGNAL_MAX);
		break;
	case KAI_PTY_NOTICE:
		v.data = (const char *)r.p + r.off;
		v.len = r.len - r.off;
		if (v.len > KAI_PTY_DATA_MAX)
			return kai_err_set(err, KAI_EPROTO,
			    "field \"notice\" too long: %zu > %d bytes", v.len,
			    KAI_PTY_DATA_MAX);
		r.off = r.len;
		break;
	default:
		break;
	}
	if ((rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	*io = v;
	return 0;
}
