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
 *
 * What one client can hold is bounded (limits in kaid.yaml(5)): the
 * credential of a frame is verified as soon as it arrived, before the
 * body is read, and until then kaid reads at most
 * limits.unauthenticated_size bytes; a connection that leaves more than
 * limits.output_size bytes of answers unread is closed.  Who may connect,
 * and for how long, is server_limits.c's.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "listener.h"
#include "server_int.h"
#include "sys/log.h"

#define CONN_IN_MAX  (KAI_PROTO_HDR_LEN + KAI_PROTO_CRED_MAX + KAI_PROTO_BODY_MAX)

static void conn_event(struct kai_loop *loop, int fd, int events, void *ctx);

void
server_conn_close(struct kaid *k, struct conn *c)
{
	struct server *s = k->server;
	size_t i;

	submit_forget_conn(k, c);
	log_forget_conn(k, c);
	reads_forget_conn(k, c);
	steps_forget_conn(k, c);
	if (c->fd >= 0) {
		kai_loop_fd_del(k->loop, c->fd);
		(void)close(c->fd);
	}
	kai_buf_fini(&c->in);
	kai_buf_fini(&c->out);
	if (c->produce_free != NULL)
		c->produce_free(c->produce_ctx);
	if (c->adopt_free != NULL)
		c->adopt_free(c->adopt_ctx);
	for (i = 0; i < s->nconns; i++) {
		if (s->conns[i] == c) {
			s->conns[i] = s->conns[--s->nconns];
			break;
		}
	}
	free(c);
}

/*
 * server_handoff()'s second half, once nothing is left to write: the
 * socket leaves the loop and the connection list (not closed), and the
 * new owner gets it with what was read ahead.
 */
static void
conn_adopt(struct kaid *k, struct conn *c)
{
	server_adopt_fn *fn = c->adopt;
	void *ctx = c->adopt_ctx;
	struct kai_buf in = c->in;
	uint16_t version = c->version;
	int fd = c->fd;

	c->adopt = NULL;
	c->adopt_free = NULL;
	c->adopt_ctx = NULL;
	kai_buf_init(&c->in, 1);
	c->fd = -1;
	kai_loop_fd_del(k->loop, fd);
	server_conn_close(k, c);
	fn(k, fd, in.data, in.len, version, ctx);
	kai_buf_fini(&in);
}

bool
server_handoff(struct kaid *k, struct conn *c, server_adopt_fn *fn,
    void (*free_fn)(void *ctx), void *ctx)
{
	(void)k;
	c->adopt = fn;
	c->adopt_free = free_fn;
	c->adopt_ctx = ctx;
	return true;
}

/* Re-registers interest: read unless waiting or closing, write if queued. */
static void
conn_update(struct kaid *k, struct conn *c)
{
	int ev = 0;

	if (c->adopt != NULL && !c->closing && c->out.len == 0) {
		conn_adopt(k, c);
		return;
	}
	if (!c->waiting && !c->closing)
		ev |= KAI_LOOP_READ;
	if (c->out.len > 0)
		ev |= KAI_LOOP_WRITE;
	if (ev == 0 && c->closing) {
		server_conn_close(k, c);
		return;
	}
	if (kai_loop_fd_set(k->loop, c->fd, ev, conn_event, k) != 0)
		server_conn_close(k, c);
}

static struct conn *
conn_find(struct kaid *k, int fd)
{
	size_t i;

	for (i = 0; i < k->server->nconns; i++)
		if (k->server->conns[i]->fd == fd)
			return k->server->conns[i];
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
			server_conn_close(k, c);
			return false;
		}
		kai_buf_consume(&c->out, (size_t)n);
		c->active_ms = kai_loop_now_ms(k->loop);
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
conn_push(struct kaid *k, struct conn *c)
{
	ssize_t n;

	while (c->out.len > 0) {
		n = write(c->fd, c->out.data, c->out.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		kai_buf_consume(&c->out, (size_t)n);
		c->active_ms = kai_loop_now_ms(k->loop);
	}
}

/*
 * Verifies the credential of the frame at the head of c->in once it is
 * all there (the body need not be).  Returns false when the connection
 * must stop (refused: the error reply is queued and c is closing).
 */
static bool
conn_authenticate(struct kaid *k, struct conn *c,
    const struct kai_frame_hdr *h)
{
	char *cred;
	bool ok;

	/*
	 * A MUNGE credential is printable text: a NUL inside it is an
	 * attack or a broken client, refused before it is copied (the
	 * copy would stop at the NUL and be shorter than cred_len).
	 */
	if (memchr(c->in.data + KAI_PROTO_HDR_LEN, '\0', h->cred_len) !=
	    NULL) {
		kai_log_warn("client %s: credential holds a NUL byte",
		    c->peer);
		server_reply_error(k, c, KAI_EPROTO,
		    "frame field \"cred\" holds a NUL byte", NULL);
		c->closing = true;
		return false;
	}
	cred = kai_xstrndup(c->in.data + KAI_PROTO_HDR_LEN, h->cred_len);
	ok = rpc_authenticate(k, c, h, cred, &c->who);
	kai_free_secret(cred, strlen(cred));
	if (!ok) {
		c->closing = true;
		return false;
	}
	c->authed = true;
	return true;
}

/*
 * Handles what arrived in c->in: a broken header gets an error reply and
 * the connection is closed after it is sent; a credential is verified as
 * soon as it is in; a complete frame is dispatched.
 */
static void
conn_process(struct kaid *k, struct conn *c)
{
	struct kai_frame_hdr h;
	struct kai_err err;
	size_t total;

	while (!c->waiting && !c->closing && c->in.len >= KAI_PROTO_HDR_LEN) {
		if (kai_frame_hdr_decode(c->in.data, c->in.len, &h, &err) != 0) {
			/*
			 * A peer of another version is answered in its own
			 * version: the header and ERROR body are the same
			 * in all of them, so it can read why.
			 */
			if (h.magic == KAI_PROTO_MAGIC && h.version >= 1)
				c->version = h.version;
			kai_log_warn("client %s: %s", c->peer, err.msg);
			server_reply_error(k, c, err.code, err.msg, NULL);
			c->closing = true;
			break;
		}
		c->version = h.version;
		if (!c->authed) {
			if (h.cred_len > 0 &&
			    c->in.len < KAI_PROTO_HDR_LEN + (size_t)h.cred_len)
				break;
			if (!conn_authenticate(k, c, &h))
				break;
		}
		total = KAI_PROTO_HDR_LEN + (size_t)h.cred_len + h.body_len;
		if (c->in.len < total)
			break;
		c->waiting = rpc_dispatch(k, c, &h, &c->who,
		    c->in.data + KAI_PROTO_HDR_LEN + h.cred_len);
		kai_buf_consume(&c->in, total);
		c->authed = false;
		c->active_ms = c->frame_ms = kai_loop_now_ms(k->loop);
	}
}

/*
 * How many bytes c may read now: until its frame's credential is
 * verified, no more than limits.unauthenticated_size in all.
 */
static size_t
conn_room(const struct kaid *k, const struct conn *c, size_t want)
{
	size_t cap = c->authed ? CONN_IN_MAX :
	    (size_t)k->conf->preauth_bytes;

	if (c->in.len >= cap)
		return 0;
	return cap - c->in.len < want ? cap - c->in.len : want;
}

static void
conn_read(struct kaid *k, struct conn *c)
{
	char tmp[65536];
	size_t room;
	ssize_t n;

	for (;;) {
		if ((room = conn_room(k, c, sizeof(tmp))) == 0)
			break;
		n = read(c->fd, tmp, room);
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
		if (c->in.len == 0)
			c->frame_ms = kai_loop_now_ms(k->loop);
		if (kai_buf_add(&c->in, tmp, (size_t)n) != 0) {
			/* Cannot happen with a checked header; be safe. */
			server_reply_error(k, c, KAI_EPROTO,
			    "frame exceeds the size limit", NULL);
			c->closing = true;
			break;
		}
		if ((size_t)n < room)
			break;
		/* The credential may be in: verify it before reading on. */
		if (!c->authed)
			break;
	}
	conn_process(k, c);
}

/* The producer is done or the client gone: release it. */
static void
stream_end(struct conn *c)
{
	if (c->produce_free != NULL)
		c->produce_free(c->produce_ctx);
	c->produce = NULL;
	c->produce_free = NULL;
	c->produce_ctx = NULL;
}

/*
 * Lets c's producer add frames while little waits for the client; when
 * it sent the last one, the request is done as a deferred one is
 * (server_resume()): a request that came meanwhile is read.
 */
static void
conn_produce(struct kaid *k, struct conn *c)
{
	while (c->produce != NULL && c->out.len < SERVER_STREAM_LOW) {
		if (c->closing) {
			stream_end(c);
			return;
		}
		if (!c->produce(k, c, c->produce_ctx))
			continue;
		stream_end(c);
		c->waiting = false;
		c->active_ms = c->frame_ms = kai_loop_now_ms(k->loop);
		conn_process(k, c);
	}
}

bool
server_stream(struct kaid *k, struct conn *c, server_produce_fn *fn,
    void (*free_fn)(void *ctx), void *ctx)
{
	if (c == NULL || c->closing) {
		free_fn(ctx);
		return false;
	}
	c->produce = fn;
	c->produce_free = free_fn;
	c->produce_ctx = ctx;
	c->waiting = true;
	/* At once, up to SERVER_STREAM_LOW: most answers end here. */
	while (c->produce != NULL && c->out.len < SERVER_STREAM_LOW &&
	    !c->closing)
		if (fn(k, c, ctx))
			stream_end(c);
	if (c->closing)
		stream_end(c);
	if (c->produce == NULL)
		return false;
	conn_update(k, c);
	return true;
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
	conn_produce(k, c);
	conn_update(k, c);
}

/* The listener's callback: one client, within the limits. */
static void
on_client(struct kaid *k, struct listener *l, int cfd, const char *peer)
{
	struct server *s = k->server;
	struct conn *c;
	int one = 1;

	if (!limits_admit(k, cfd, peer))
		return;
	(void)setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = kai_xcalloc(1, sizeof(*c));
	c->fd = cfd;
	(void)snprintf(c->peer, sizeof(c->peer), "%s", peer);
	c->active_ms = kai_loop_now_ms(k->loop);
	kai_buf_init(&c->in, CONN_IN_MAX);
	kai_buf_init(&c->out, (size_t)k->conf->output_bytes);
	if (s->nconns == s->capconns) {
		s->capconns = s->capconns ? s->capconns * 2 : 16;
		s->conns = kai_xreallocarray(s->conns, s->capconns,
		    sizeof(*s->conns));
	}
	s->conns[s->nconns++] = c;
	conn_update(k, c);
	/* Past the reserve kept for munged, PostgreSQL and the API server:
	 * this client is served, the next ones wait in the backlog. */
	if (s->fd_ceiling >= 0 && cfd >= s->fd_ceiling)
		listener_pause(l, "descriptors nearly exhausted");
}

int
server_listen(struct kaid *k, struct kai_err *err)
{
	k->server->listener = listener_open(k, k->conf->listen, "client",
	    on_client, err);
	if (k->server->listener == NULL)
		return err->code;
	limits_start(k);
	return 0;
}

void
server_init(struct kaid *k)
{
	k->server = kai_xcalloc(1, sizeof(*k->server));
	k->server->fd_ceiling = -1;
}

size_t
server_nconns(const struct kaid *k)
{
	return k->server->nconns;
}

void
server_free(struct kaid *k)
{
	struct server *s = k->server;

	if (s == NULL)
		return;
	/* kaid -n and a failed start end here with no loop. */
	if (k->loop != NULL)
		kai_loop_timer_del(k->loop, s->sweep_timer);
	while (s->nconns > 0)
		server_conn_close(k, s->conns[0]);
	free(s->conns);
	listener_close(s->listener);
	KAI_FREE(k->server);
}

void
server_reply(struct kaid *k, struct conn *c, uint16_t type, uint32_t flags,
    const struct kai_buf *body)
{
	if (c == NULL || c->closing)
		return;
	if (kai_frame_build_version(&c->out, c->version != 0 ? c->version :
	    KAI_PROTO_VERSION, type, flags, NULL, body->data, body->len) != 0) {
		/*
		 * The client reads slower than kaid answers, or not at all:
		 * holding more for it is how it would exhaust kaid's memory.
		 */
		kai_log_warn("client %s: more than %" PRId64 " answer bytes "
		    "unread (limits.output_size): closed", c->peer,
		    k->conf->output_bytes);
		c->out.len = 0;
		c->closing = true;
	}
	if (!(flags & KAI_FRAME_MORE))
		c->waiting = false;
	else
		conn_push(k, c);
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
	/* A frame read ahead while waiting gets its whole header timeout. */
	c->active_ms = c->frame_ms = kai_loop_now_ms(k->loop);
	if (c->out.len > 0 && !conn_flush(k, c))
		return;
	conn_process(k, c);
	conn_update(k, c);
}
