/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * server.c: the client port: accept, read frames, write replies.
 *
 * Every socket is non-blocking and driven by the loop.  A connection reads
 * one frame at a time: the header is checked before the rest is awaited,
 * so an oversized or foreign frame is refused after 20 bytes, with an
 * error reply, and that connection alone is closed.  While a reply is
 * deferred (a submission waiting for the group commit) the connection
 * reads nothing more.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

#define CONN_IN_MAX  (KAI_PROTO_HDR_LEN + KAI_PROTO_CRED_MAX + KAI_PROTO_BODY_MAX)
#define CONN_OUT_MAX (256 * 1024 * 1024)

struct conn {
	int fd;
	struct kai_buf in;
	struct kai_buf out;
	bool waiting;		/* a deferred reply is due */
	bool closing;		/* close once out is flushed */
};

static void conn_event(struct kai_loop *loop, int fd, int events, void *ctx);

static void
conn_close(struct kaid *k, struct conn *c)
{
	size_t i;

	submit_forget_conn(k, c);
	log_forget_conn(k, c);
	reads_forget_conn(k, c);
	kai_loop_fd_del(k->loop, c->fd);
	(void)close(c->fd);
	kai_buf_fini(&c->in);
	kai_buf_fini(&c->out);
	for (i = 0; i < k->nconns; i++) {
		if (k->conns[i] == c) {
			k->conns[i] = k->conns[--k->nconns];
			break;
		}
	}
	free(c);
}

/* Re-registers interest: read unless waiting or closing, write if queued. */
static void
conn_update(struct kaid *k, struct conn *c)
{
	int ev = 0;

	if (!c->waiting && !c->closing)
		ev |= KAI_LOOP_READ;
	if (c->out.len > 0)
		ev |= KAI_LOOP_WRITE;
	if (ev == 0 && c->closing) {
		conn_close(k, c);
		return;
	}
	if (kai_loop_fd_set(k->loop, c->fd, ev, conn_event, k) != 0)
		conn_close(k, c);
}

static struct conn *
conn_find(struct kaid *k, int fd)
{
	size_t i;

	for (i = 0; i < k->nconns; i++)
		if (k->conns[i]->fd == fd)
			return k->conns[i];
	return NULL;
}

/* Returns false when the connection was closed. */
static bool
conn_flush(struct kaid *k, struct conn *c)
{
	while (c->out.len > 0) {
		ssize_t n = write(c->fd, c->out.data, c->out.len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(k, c);
			return false;
		}
		kai_buf_consume(&c->out, (size_t)n);
	}
	return true;
}

/*
 * Writes what the socket takes now, inside a multi-frame reply: the
 * client starts decoding the first frames while later ones are encoded,
 * and c->out stays one frame long instead of holding the whole reply.
 * Never closes c (the handler still holds it): an error leaves the bytes
 * for conn_flush(), which closes.
 */
static void
conn_push(struct conn *c)
{
	ssize_t n;

	while (c->out.len > 0) {
		n = write(c->fd, c->out.data, c->out.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		kai_buf_consume(&c->out, (size_t)n);
	}
}

/*
 * Handles complete frames in c->in.  A broken header gets an error reply
 * and the connection is closed after it is sent.
 */
static void
conn_process(struct kaid *k, struct conn *c)
{
	struct kai_frame_hdr h;
	struct kai_err err;
	size_t total;
	char *cred;

	while (!c->waiting && !c->closing && c->in.len >= KAI_PROTO_HDR_LEN) {
		if (kai_frame_hdr_decode(c->in.data, c->in.len, &h, &err) != 0) {
			kai_log_warn("client fd %d: %s", c->fd, err.msg);
			server_reply_error(k, c, err.code, err.msg, NULL);
			c->closing = true;
			break;
		}
		total = KAI_PROTO_HDR_LEN + (size_t)h.cred_len + h.body_len;
		if (c->in.len < total)
			break;
		/*
		 * A MUNGE credential is printable text: a NUL inside it is an
		 * attack or a broken client, refused before it is copied (the
		 * copy would stop at the NUL and be shorter than cred_len).
		 */
		if (memchr(c->in.data + KAI_PROTO_HDR_LEN, '\0',
		    h.cred_len) != NULL) {
			kai_log_warn("client fd %d: credential holds a NUL byte",
			    c->fd);
			server_reply_error(k, c, KAI_EPROTO,
			    "frame field \"cred\" holds a NUL byte", NULL);
			c->closing = true;
			break;
		}
		cred = kai_xstrndup(c->in.data + KAI_PROTO_HDR_LEN, h.cred_len);
		c->waiting = rpc_dispatch(k, c, &h, cred,
		    c->in.data + KAI_PROTO_HDR_LEN + h.cred_len);
		kai_free_secret(cred, strlen(cred));
		kai_buf_consume(&c->in, total);
	}
}

static void
conn_read(struct kaid *k, struct conn *c)
{
	char tmp[65536];
	ssize_t n;

	for (;;) {
		n = read(c->fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			/* The peer is gone: nothing to answer. */
			c->closing = true;
			c->out.len = 0;
			break;
		}
		if (kai_buf_add(&c->in, tmp, (size_t)n) != 0) {
			/* Cannot happen with a checked header; be safe. */
			server_reply_error(k, c, KAI_EPROTO,
			    "frame exceeds the size limit", NULL);
			c->closing = true;
			break;
		}
		if ((size_t)n < sizeof(tmp))
			break;
	}
	conn_process(k, c);
}

static void
conn_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct kaid *k = ctx;
	struct conn *c = conn_find(k, fd);

	(void)loop;
	if (c == NULL)
		return;
	if ((events & KAI_LOOP_READ) && !c->waiting && !c->closing)
		conn_read(k, c);
	if (c->out.len > 0 && !conn_flush(k, c))
		return;
	conn_update(k, c);
}

static void
accept_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct kaid *k = ctx;
	struct conn *c;
	int cfd, one = 1;

	(void)loop;
	(void)events;
	for (;;) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				kai_log_warn("could not accept a client: %s",
				    strerror(errno));
			return;
		}
		(void)setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		c = kai_xcalloc(1, sizeof(*c));
		c->fd = cfd;
		kai_buf_init(&c->in, CONN_IN_MAX);
		kai_buf_init(&c->out, CONN_OUT_MAX);
		if (k->nconns == k->capconns) {
			k->capconns = k->capconns ? k->capconns * 2 : 16;
			k->conns = kai_xreallocarray(k->conns, k->capconns,
			    sizeof(*k->conns));
		}
		k->conns[k->nconns++] = c;
		conn_update(k, c);
	}
}

/* Splits "host:port" (host may be "[v6]" or empty for any address). */
static int
split_hostport(const char *s, char *host, size_t hsize, char *port,
    size_t psize, struct kai_err *err)
{
	const char *colon = strrchr(s, ':');
	size_t hl;

	if (colon == NULL || colon[1] == '\0')
		return kai_err_set(err, KAI_ECONFIG,
		    "invalid listen address \"%s\": expected host:port", s);
	hl = (size_t)(colon - s);
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		s++;
		hl -= 2;
	}
	if (hl >= hsize || strlen(colon + 1) >= psize)
		return kai_err_set(err, KAI_ECONFIG,
		    "invalid listen address \"%s\": too long", s);
	memcpy(host, s, hl);
	host[hl] = '\0';
	memcpy(port, colon + 1, strlen(colon + 1) + 1); /* length checked */
	return 0;
}

int
server_socket(const char *addr, int *fdp, struct kai_err *err)
{
	struct addrinfo hints, *res = NULL;
	char host[256], port[32];
	int fd, one = 1, r;

	if (split_hostport(addr, host, sizeof(host), port, sizeof(port),
		err) != 0)
		return KAI_ECONFIG;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	r = getaddrinfo(host[0] != '\0' ? host : NULL, port, &hints, &res);
	if (r != 0)
		return kai_err_set(err, KAI_ECONFIG,
		    "could not resolve listen address \"%s\": %s", addr,
		    gai_strerror(r));
	fd = socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) != 0 ||
	    listen(fd, 512) != 0) {
		r = errno;
		if (fd >= 0)
			(void)close(fd);
		freeaddrinfo(res);
		return kai_err_set(err, KAI_ESYS, "could not listen on \"%s\": %s",
		    addr, strerror(r));
	}
	freeaddrinfo(res);
	*fdp = fd;
	return 0;
}

int
server_listen(struct kaid *k, struct kai_err *err)
{
	int fd, r;

	if ((r = server_socket(k->conf->listen, &fd, err)) != 0)
		return r;
	if (kai_loop_fd_set(k->loop, fd, KAI_LOOP_READ, accept_event, k) != 0) {
		(void)close(fd);
		return kai_err_set(err, KAI_ESYS, "could not watch the listener");
	}
	k->listen_fd = fd;
	return 0;
}

void
server_close_all(struct kaid *k)
{
	while (k->nconns > 0)
		conn_close(k, k->conns[0]);
	free(k->conns);
	k->conns = NULL;
	k->capconns = 0;
	if (k->listen_fd >= 0) {
		kai_loop_fd_del(k->loop, k->listen_fd);
		(void)close(k->listen_fd);
		k->listen_fd = -1;
	}
}

void
server_reply(struct kaid *k, struct conn *c, uint16_t type, uint32_t flags,
    const struct kai_buf *body)
{
	if (c == NULL)
		return;
	if (kai_frame_build(&c->out, type, flags, NULL, body->data,
		body->len) != 0) {
		kai_log_err("reply of %zu bytes exceeds the output limit",
		    body->len);
		c->closing = true;
	}
	if (!(flags & KAI_FRAME_MORE))
		c->waiting = false;
	else
		conn_push(c);
	(void)k;
}

void
server_reply_error(struct kaid *k, struct conn *c, int code, const char *msg,
    const char *hint)
{
	struct kai_buf b;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_error_encode(&b, code, msg, hint) == 0)
		server_reply(k, c, KAI_MSG_ERROR, 0, &b);
	kai_buf_fini(&b);
}

void
server_flush(struct kaid *k, struct conn *c)
{
	if (c == NULL)
		return;
	if (c->closing) {
		conn_update(k, c);
		return;
	}
	if (c->out.len > 0 && !conn_flush(k, c))
		return;
	conn_update(k, c);
}

void
server_resume(struct kaid *k, struct conn *c)
{
	if (c == NULL)
		return;
	c->waiting = false;
	if (c->out.len > 0 && !conn_flush(k, c))
		return;
	conn_process(k, c);
	conn_update(k, c);
}
