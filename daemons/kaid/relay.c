/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * relay.c: a standby kaid forwards its clients to the leader.
 *
 * Only the leader serves requests: its memory holds the jobs and the
 * cluster.  A standby listens on the same client port (listen:) and
 * relays each connection it accepts, byte for byte, to the address the
 * leader recorded when it took the lead (advertise:, leader.address in
 * the database), so that clients may list every kaid ("controller:
 * a:6820,b:6820") or reach any of them through one Service.  The relay
 * never reads a frame: the client's MUNGE credential travels to the
 * leader, which authenticates it as for any client, so a standby adds no
 * trust of its own and nothing a client sends is parsed here.
 *
 * The standby listens only while it knows where the leader is: with no
 * leader recorded, clients get "connection refused" at once (and try the
 * next address) instead of a connection that leads nowhere.  It bounds
 * what it holds as the leader's port does: connections in all and per
 * peer, RELAY_BUF_MAX bytes buffered each way (a side that does not read
 * stops the other from being read), and RELAY_CONNECT_MS to reach the
 * leader.  Timeouts of requests are the leader's: when it closes its
 * side, the client's goes too.  When this kaid takes the lead it stops
 * relaying (relay_stop()) before it listens for itself.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "listener.h"
#include "sys/log.h"

#define RELAY_BUF_MAX	  (1024 * 1024)
#define RELAY_CONNECT_MS  5000
#define RELAY_SWEEP_MS	  1000

struct relay_conn;

/* One side of a relayed connection. */
struct relay_end {
	struct relay_conn *rc;
	int fd;
	struct kai_buf out;	/* bytes for this side, from the other */
	bool eof;		/* it sent its last byte */
};

struct relay_conn {
	struct kaid *k;
	struct relay_end client;
	struct relay_end leader;
	bool connecting;	/* the leader's side is not connected yet */
	int64_t start_ms;
	char peer[64];
};

struct relay {
	struct listener *listener; /* NULL while no leader is known */
	char *leader;		/* its address, "" unknown */
	bool warned;		/* the listener failed: said once per leader */
	struct sockaddr_storage addr;
	socklen_t addrlen;	/* 0: the address did not resolve */
	struct relay_conn **v;
	size_t n, cap;
	uint64_t sweep_timer;
};

static void end_event(struct kai_loop *loop, int fd, int events, void *ctx);

/*
 * A client whose leader cannot be reached is told so in one ERROR frame
 * ("no leader kaid is reachable: why"), which the clients print as their
 * one line of error, instead of a connection closed without a word.  The
 * client has not been answered by anyone yet, so this is its only reply.
 */
static void
tell_unreachable(int fd, const char *fmt, ...) KAI_PRINTF(2, 3);

static void
tell_unreachable(int fd, const char *fmt, ...)
{
	struct kai_buf b, f;
	char why[300], msg[400];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	(void)snprintf(msg, sizeof(msg), "no leader kaid is reachable: %s",
	    why);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	kai_buf_init(&f, KAI_PROTO_BODY_MAX + KAI_PROTO_HDR_LEN);
	if (kai_msg_error_encode(&b, KAI_EAGAIN, msg, NULL) == 0 &&
	    kai_frame_build(&f, KAI_MSG_ERROR, 0, NULL, b.data, b.len) == 0 &&
	    write(fd, f.data, f.len) < 0)
		kai_log_debug("relay: could not tell a client: %s",
		    strerror(errno));
	kai_buf_fini(&b);
	kai_buf_fini(&f);
}

static struct relay *
rl(struct kaid *k)
{
	if (k->relay == NULL) {
		k->relay = kai_xcalloc(1, sizeof(*k->relay));
		k->relay->leader = kai_xstrdup("");
	}
	return k->relay;
}

static void
conn_close(struct relay_conn *rc)
{
	struct relay *r = rc->k->relay;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i] == rc) {
			r->v[i] = r->v[--r->n];
			break;
		}
	kai_loop_fd_del(rc->k->loop, rc->client.fd);
	(void)close(rc->client.fd);
	if (rc->leader.fd >= 0) {
		kai_loop_fd_del(rc->k->loop, rc->leader.fd);
		(void)close(rc->leader.fd);
	}
	kai_buf_fini(&rc->client.out);
	kai_buf_fini(&rc->leader.out);
	free(rc);
}

static struct relay_end *
other(struct relay_end *e)
{
	return e == &e->rc->client ? &e->rc->leader : &e->rc->client;
}

/* What e waits for: room to read into the other's buffer, and its own
 * buffer to write. */
static void
arm(struct relay_end *e)
{
	struct relay_end *o = other(e);
	int ev = 0;

	if (!e->eof && o->out.len < RELAY_BUF_MAX &&
	    !(e == &e->rc->client && e->rc->connecting))
		ev |= KAI_LOOP_READ;
	if (e->out.len > 0 || (e == &e->rc->leader && e->rc->connecting))
		ev |= KAI_LOOP_WRITE;
	if (ev == 0)
		kai_loop_fd_del(e->rc->k->loop, e->fd);
	else if (kai_loop_fd_set(e->rc->k->loop, e->fd, ev, end_event, e) != 0)
		kai_log_warn("relay: could not watch a connection");
}

/* Reads what e has into the other side's buffer; false: close the pair. */
static bool
pull(struct relay_end *e)
{
	struct relay_end *o = other(e);
	char buf[16384];
	size_t room = RELAY_BUF_MAX - o->out.len;
	ssize_t n;

	if (room == 0)
		return true;	/* full: arm() stops reading until it drains */
	n = read(e->fd, buf, room < sizeof(buf) ? room : sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	if (n == 0) {
		e->eof = true;
		/* Pass the half-close on once what is queued is written. */
		if (o->out.len == 0)
			(void)shutdown(o->fd, SHUT_WR);
		return !o->eof;
	}
	return kai_buf_add(&o->out, buf, (size_t)n) == 0;
}

/* Writes e's buffer; false: close the pair. */
static bool
push(struct relay_end *e)
{
	ssize_t n;

	if (e->out.len == 0)
		return true;
	n = write(e->fd, e->out.data, e->out.len);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	kai_buf_consume(&e->out, (size_t)n);
	if (e->out.len == 0 && other(e)->eof)
		(void)shutdown(e->fd, SHUT_WR);
	return true;
}

static void
end_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct relay_end *e = ctx;
	struct relay_conn *rc = e->rc;
	socklen_t sl = sizeof(int);
	int soerr = 0;

	(void)loop;
	(void)fd;
	if (e == &rc->leader && rc->connecting) {
		if (getsockopt(e->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 ||
		    soerr != 0) {
			kai_log_warn("relay: cannot reach the leader at \"%s\": "
			    "%s", rc->k->relay->leader, strerror(soerr));
			tell_unreachable(rc->client.fd, "%s: %s",
			    rc->k->relay->leader, strerror(soerr));
			conn_close(rc);
			return;
		}
		rc->connecting = false;
	}
	if (((events & KAI_LOOP_READ) != 0 && !pull(e)) ||
	    ((events & KAI_LOOP_WRITE) != 0 && !push(e)) ||
	    (e->eof && other(e)->eof)) {
		conn_close(rc);
		return;
	}
	arm(&rc->client);
	arm(&rc->leader);
}

/* The leader's side of a new connection, connecting without blocking. */
static int
connect_leader(struct relay *r)
{
	int fd, one = 1;

	fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&r->addr, r->addrlen) != 0 &&
	    errno != EINPROGRESS) {
		int e = errno;	/* for the client's message */

		(void)close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static bool
admit(struct kaid *k, const char *peer)
{
	struct relay *r = k->relay;
	size_t i, same = 0;

	if ((int64_t)r->n >= k->conf->max_conns)
		return false;
	for (i = 0; i < r->n; i++)
		same += strcmp(r->v[i]->peer, peer) == 0;
	return (int64_t)same < k->conf->max_conns_per_peer;
}

/* The listener's callback: one client, forwarded to the leader. */
static void
on_client(struct kaid *k, struct listener *l, int cfd, const char *peer)
{
	struct relay *r = k->relay;
	struct relay_conn *rc;
	int lfd;

	(void)l;
	if (!admit(k, peer)) {
		kai_log_warn("relay: refused a client from %s: over "
		    "limits.connections or connections_per_peer", peer);
		(void)close(cfd);
		return;
	}
	if (r->addrlen == 0 || (lfd = connect_leader(r)) < 0) {
		int e = errno;

		kai_log_warn("relay: refused a client from %s: the leader at "
		    "\"%s\" %s", peer, r->leader, r->addrlen == 0 ?
		    "does not resolve" : "cannot be reached");
		tell_unreachable(cfd, "%s: %s", r->leader, r->addrlen == 0 ?
		    "the address does not resolve" : strerror(e));
		(void)close(cfd);
		return;
	}
	rc = kai_xcalloc(1, sizeof(*rc));
	rc->k = k;
	rc->client.rc = rc->leader.rc = rc;
	rc->client.fd = cfd;
	rc->leader.fd = lfd;
	kai_buf_init(&rc->client.out, RELAY_BUF_MAX);
	kai_buf_init(&rc->leader.out, RELAY_BUF_MAX);
	rc->connecting = true;
	rc->start_ms = kai_loop_now_ms(k->loop);
	(void)snprintf(rc->peer, sizeof(rc->peer), "%s", peer);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = kai_xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	r->v[r->n++] = rc;
	arm(&rc->client);
	arm(&rc->leader);
}

/* Pairs whose leader did not answer the connect in time. */
static void
sweep(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;
	struct relay *r = k->relay;
	int64_t now = kai_loop_now_ms(loop);
	size_t i;

	(void)id;
	for (i = r->n; i-- > 0;)
		if (r->v[i]->connecting &&
		    now - r->v[i]->start_ms > RELAY_CONNECT_MS) {
			kai_log_warn("relay: the leader at \"%s\" did not "
			    "answer in %d s", r->leader, RELAY_CONNECT_MS / 1000);
			tell_unreachable(r->v[i]->client.fd, "%s did not "
			    "answer in %d s", r->leader,
			    RELAY_CONNECT_MS / 1000);
			conn_close(r->v[i]);
		}
	r->sweep_timer = kai_loop_timer_add(loop, RELAY_SWEEP_MS, sweep, k);
}

static void
stop_listening(struct kaid *k)
{
	struct relay *r = k->relay;

	if (r == NULL || r->listener == NULL)
		return;
	listener_close(r->listener);
	r->listener = NULL;
	kai_loop_timer_del(k->loop, r->sweep_timer);
	r->sweep_timer = 0;
}

/* The leader's address as a socket address; false when it does not
 * resolve (logged). */
static bool
resolve(struct relay *r)
{
	struct addrinfo hints, *res;
	char host[256];
	const char *port;
	size_t hl;
	int e;

	r->addrlen = 0;
	port = strrchr(r->leader, ':');
	if (port == NULL)
		return false;
	hl = (size_t)(port - r->leader);
	if (r->leader[0] == '[' && hl >= 2 && r->leader[hl - 1] == ']') {
		(void)snprintf(host, sizeof(host), "%.*s", (int)hl - 2,
		    r->leader + 1);
	} else {
		(void)snprintf(host, sizeof(host), "%.*s", (int)hl,
		    r->leader);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((e = getaddrinfo(host, port + 1, &hints, &res)) != 0) {
		kai_log_warn("relay: the leader's address \"%s\" does not "
		    "resolve: %s", r->leader, gai_strerror(e));
		return false;
	}
	memcpy(&r->addr, res->ai_addr, res->ai_addrlen);
	r->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return true;
}

void
relay_update(struct kaid *k, const char *leader)
{
	struct relay *r = rl(k);
	struct kai_err err;

	if (strcmp(r->leader, leader) != 0) {
		free(r->leader);
		r->leader = kai_xstrdup(leader);
		r->warned = false;
		if (leader[0] != '\0' && resolve(r))
			kai_log_info("standby: forwarding clients to the "
			    "leader at %s", leader);
	}
	if (leader[0] == '\0' || r->addrlen == 0) {
		stop_listening(k);
		return;
	}
	if (r->listener != NULL)
		return;
	r->listener = listener_open(k, k->conf->listen, "relay", on_client,
	    &err);
	if (r->listener == NULL) {
		if (!r->warned)
			kai_log_warn("standby: %s; not forwarding", err.msg);
		r->warned = true;
		return;
	}
	r->sweep_timer = kai_loop_timer_add(k->loop, RELAY_SWEEP_MS, sweep, k);
}

void
relay_stop(struct kaid *k)
{
	struct relay *r = k->relay;

	if (r == NULL)
		return;
	stop_listening(k);
	while (r->n > 0)
		conn_close(r->v[0]);
	free(r->v);
	free(r->leader);
	KAI_FREE(k->relay);
}

size_t
relay_nconns(const struct kaid *k)
{
	return k->relay != NULL ? k->relay->n : 0;
}
