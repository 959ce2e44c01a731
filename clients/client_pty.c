/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_pty.c: an interactive session's frames outside kaid (see
 * client_pty.h).  After the opening request the session's frames carry
 * no credential: the connection was authenticated by the request, and
 * kaid ties the connection, not its frames, to the job.
 */
#include "config.h"

#include "client_pty.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "proto/proto.h"

#define RD_MAX (KAI_PROTO_HDR_LEN + KAI_PTY_IO_MAX)

struct open_ctx {
	const char *prog;
	uint64_t job;
};

static int
on_open(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct open_ctx *c = ctx;
	struct kai_err err;

	(void)type;
	if (kai_msg_u64_decode(body, len, &c->job, &err) != 0) {
		client_error(c->prog, NULL, "invalid reply from kaid: %s",
		    kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

int
client_pty_open(const char *prog, uint16_t type, const struct kai_pty_open *o,
    int *fd, uint64_t *job)
{
	struct open_ctx c = {prog, 0};
	struct timeval tv = {0, 0};
	struct kai_buf b;
	int r, rc;

	kai_buf_init(&b, 64);
	r = type == KAI_MSG_PTY_ATTACH ? kai_msg_pty_attach_encode(&b, o) :
	    kai_msg_pty_serve_encode(&b, o);
	if (r != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "could not encode the request");
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request_open(prog, type, b.data, b.len, on_open, &c, fd);
	kai_buf_fini(&b);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	(void)setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(*fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	*job = c.job;
	return CLIENT_EXIT_OK;
}

int
client_pty_send(int fd, const struct kai_pty_io *io, struct kai_err *err)
{
	struct kai_buf body, frame;
	int r;

	kai_buf_init(&body, KAI_PTY_IO_MAX);
	kai_buf_init(&frame, RD_MAX);
	if (kai_msg_pty_io_encode(&body, io) != 0 ||
	    kai_frame_build(&frame, KAI_MSG_PTY_IO, 0, NULL, body.data,
		body.len) != 0)
		r = kai_err_set(err, KAI_EINVAL, "session frame too large");
	else
		r = client_send(fd, frame.data, frame.len, err);
	kai_buf_fini(&body);
	kai_buf_fini(&frame);
	return r;
}

int
client_pty_send_data(int fd, uint8_t stream, const void *p, size_t n,
    struct kai_err *err)
{
	struct kai_pty_io io;
	const char *c = p;
	size_t k;
	int r;

	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_DATA;
	io.stream = stream;
	do {
		k = n > KAI_PTY_DATA_MAX ? KAI_PTY_DATA_MAX : n;
		io.data = c;
		io.len = k;
		if ((r = client_pty_send(fd, &io, err)) != 0)
			return r;
		c += k;
		n -= k;
	} while (n > 0);
	return 0;
}

void
client_pty_rd_init(struct client_pty_rd *rd)
{
	kai_buf_init(&rd->in, RD_MAX);
}

void
client_pty_rd_fini(struct client_pty_rd *rd)
{
	kai_buf_fini(&rd->in);
}

int
client_pty_read(int fd, struct client_pty_rd *rd, client_pty_fn *fn,
    void *ctx, struct kai_err *err)
{
	char tmp[RD_MAX];
	struct kai_frame_hdr h;
	struct kai_pty_io io;
	size_t total;
	ssize_t n;
	int r;

	do
		n = read(fd, tmp, RD_MAX - rd->in.len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return kai_err_set(err, KAI_ESYS, "%s", strerror(errno));
	if (n == 0)
		return kai_err_set(err, KAI_ENOENT, "kaid closed the session");
	if (kai_buf_add(&rd->in, tmp, (size_t)n) != 0)
		return kai_err_set(err, KAI_EPROTO, "frame too large");
	while (rd->in.len >= KAI_PROTO_HDR_LEN) {
		if ((r = kai_frame_hdr_decode(rd->in.data, rd->in.len, &h,
		    err)) != 0)
			return r;
		if (h.type == KAI_MSG_ERROR) {
			/* kaid's refusal after the session opened: rare */
			return kai_err_set(err, KAI_EPROTO,
			    "kaid ended the session with an error");
		}
		if (h.type != KAI_MSG_PTY_IO_OUT || h.cred_len != 0 ||
		    h.body_len > KAI_PTY_IO_MAX)
			return kai_err_set(err, KAI_EPROTO,
			    "unexpected frame of type %u in the session",
			    (unsigned)h.type);
		total = KAI_PROTO_HDR_LEN + h.body_len;
		if (rd->in.len < total)
			break;
		if ((r = kai_msg_pty_io_decode(rd->in.data +
		    KAI_PROTO_HDR_LEN, h.body_len, &io, err)) != 0)
			return r;
		r = fn(&io, ctx);
		kai_buf_consume(&rd->in, total);
		if (r != 0)
			return r;
	}
	return 0;
}
