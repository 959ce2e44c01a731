/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client.c: one authenticated request to kaid.  See client.h.
 *
 * Clients are short-lived and do one thing, so plain blocking sockets
 * with SO_RCVTIMEO / SO_SNDTIMEO are the simplest correct shape: no event
 * loop, and a dead or wedged controller costs the user a bounded wait
 * instead of a hang.  Every read and write loops over partial transfers
 * and EINTR; every reply header is checked with the same decoder kaid
 * uses before a byte of body is allocated.
 *
 * The wording separates three situations a user must tell apart:
 * "cannot connect" (nothing was sent: safe to retry), "no reply" (the
 * request went out, so it may have been carried out), and "invalid
 * reply" (something that is not a matching kaid answered).
 */
#include "config.h"

#include "client.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "conf/conf.h"

#define FRAME_MAX (KAI_PROTO_HDR_LEN + KAI_PROTO_CRED_MAX + KAI_PROTO_BODY_MAX)

/* Where the two below write: stderr unless client_errors_to() said. */
static FILE *errout;

void
client_errors_to(FILE *f)
{
	errout = f;
}

void
client_error(const char *prog, const char *hint, const char *fmt, ...)
{
	FILE *f = errout != NULL ? errout : stderr;
	va_list ap;

	(void)fprintf(f, "%s: error: ", prog);
	va_start(ap, fmt);
	(void)vfprintf(f, fmt, ap);
	va_end(ap);
	(void)fputc('\n', f);
	if (hint != NULL)
		(void)fprintf(f, "hint: %s\n", hint);
}

void
client_warn(const char *prog, const char *fmt, ...)
{
	FILE *f = errout != NULL ? errout : stderr;
	va_list ap;

	(void)fprintf(f, "%s: warning: ", prog);
	va_start(ap, fmt);
	(void)vfprintf(f, fmt, ap);
	va_end(ap);
	(void)fputc('\n', f);
}

/* An environment variable, with "" counting as unset. */
static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

int
client_target_load(struct client_target *t, struct kai_err *err)
{
	struct kai_client_conf cc = {NULL, NULL};
	const char *ctl = env("KAI_CONTROLLER"), *ms = env("KAI_MUNGE_SOCKET");
	const char *path = env("KAI_CONF");
	int r;

	t->controller = t->munge_socket = NULL;
	/* The file is read only when it can matter, so a broken kai.yaml
	 * does not stop a user who set both variables. */
	if (ctl == NULL || ms == NULL) {
		if (path == NULL)
			path = KAI_CONFIG_DIR "/kai.yaml";
		if ((r = kai_client_conf_load(path, &cc, err)) != 0)
			return r;
	}
	if (ctl == NULL)
		ctl = cc.controller != NULL ? cc.controller
					    : CLIENT_DEFAULT_CONTROLLER;
	if (ms == NULL)
		ms = cc.munge_socket;
#ifdef KAI_MUNGE_SOCKET
	if (ms == NULL)
		ms = KAI_MUNGE_SOCKET;
#endif
	t->controller = kai_xstrdup(ctl);
	t->munge_socket = ms != NULL ? kai_xstrdup(ms) : NULL;
	kai_client_conf_fini(&cc);
	return 0;
}

void
client_target_fini(struct client_target *t)
{
	KAI_FREE(t->controller);
	KAI_FREE(t->munge_socket);
}

/*
 * "host:port", "[v6]:port", "host" or "[v6]" into host and port (the
 * default port when none is given).  A bare IPv6 address with colons is
 * taken as a host; give it in brackets to add a port.
 */
static int
split_hostport(const char *s, char *host, size_t hsz, char *port, size_t psz,
    struct kai_err *err)
{
	const char *h = s, *he, *p = NULL;
	unsigned long num;
	size_t i, hl;

	if (s[0] == '[') {
		h = s + 1;
		if ((he = strchr(h, ']')) == NULL ||
		    (he[1] != '\0' && he[1] != ':'))
			goto bad;
		if (he[1] == ':')
			p = he + 2;
	} else if ((he = strchr(s, ':')) != NULL &&
	    strchr(he + 1, ':') == NULL) {
		p = he + 1;
	} else {
		he = s + strlen(s);
	}
	hl = (size_t)(he - h);
	if (hl == 0 || hl >= hsz)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (p == NULL)
		p = CLIENT_DEFAULT_PORT;
	/* 1 to 65535, digits only: no sign, no spaces, no service names. */
	i = strspn(p, "0123456789");
	if (i == 0 || i > 5 || i >= psz || p[i] != '\0' ||
	    (num = strtoul(p, NULL, 10)) < 1 || num > 65535)
		goto bad;
	memcpy(port, p, i + 1);
	return 0;
bad:
	return kai_err_set(err, KAI_EINVAL,
	    "invalid controller address \"%s\": expected host:port", s);
}

static void
set_timeout(int fd, int opt, int seconds)
{
	struct timeval tv = {seconds, 0};

	/* Best effort: without it the socket still works, only unbounded. */
	(void)setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* A blocking connect that a signal interrupted goes on in the
 * background (connect(2)); wait for it like a non-blocking one. */
static int
finish_connect(int fd)
{
	struct pollfd pfd = {fd, POLLOUT, 0};
	socklen_t sl = sizeof(int);
	int n, soerr = 0;

	do
		n = poll(&pfd, 1, CLIENT_CONNECT_TIMEOUT_S * 1000);
	while (n == -1 && errno == EINTR);
	if (n == 0)
		return EINPROGRESS;
	if (n == -1)
		return errno;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == -1)
		return errno;
	return soerr;
}

static int
connect_one(const struct addrinfo *ai, int *fdp)
{
	int fd, e, one = 1;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
	    ai->ai_protocol);
	if (fd == -1)
		return errno;
	/* Linux applies SO_SNDTIMEO to connect(2) too. */
	set_timeout(fd, SO_SNDTIMEO, CLIENT_CONNECT_TIMEOUT_S);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		e = errno == EINTR ? finish_connect(fd) : errno;
		if (e != 0) {
			(void)close(fd);
			return e;
		}
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_timeout(fd, SO_SNDTIMEO, CLIENT_IO_TIMEOUT_S);
	set_timeout(fd, SO_RCVTIMEO, CLIENT_IO_TIMEOUT_S);
	*fdp = fd;
	return 0;
}

static int
connect_address(const char *hostport, int *fd, struct kai_err *err)
{
	struct addrinfo hints, *res, *ai;
	char host[256], port[8];
	int r, e = 0;

	if ((r = split_hostport(hostport, host, sizeof(host), port,
		 sizeof(port), err)) != 0)
		return r;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/*
	 * A numeric address first, without AI_ADDRCONFIG: that flag makes
	 * glibc ask the kernel for the host's addresses over netlink, a
	 * cost every short-lived client would pay for nothing.
	 */
	hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
	r = getaddrinfo(host, port, &hints, &res);
	if (r == EAI_NONAME) {
		hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
		r = getaddrinfo(host, port, &hints, &res);
	}
	if (r != 0)
		return kai_err_set(err, KAI_ESYS,
		    "could not resolve \"%s\": %s", host,
		    r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
	for (ai = res; ai != NULL; ai = ai->ai_next)
		if ((e = connect_one(ai, fd)) == 0)
			break;
	freeaddrinfo(res);
	if (e == EINPROGRESS || e == EAGAIN || e == ETIMEDOUT)
		return kai_err_set(err, KAI_ETIMEDOUT, "timed out after %d s",
		    CLIENT_CONNECT_TIMEOUT_S);
	if (e != 0)
		return kai_err_set(err, KAI_ESYS, "%s", strerror(e));
	return 0;
}

/*
 * Several kaid (one leader, standbys that forward to it) may be listed,
 * "a:6820,b:6820", as Slurm lists SlurmctldHost: each is tried in turn
 * until one accepts the connection; the error is the last one's.
 */
int
client_connect(const char *list, int *fd, struct kai_err *err)
{
	char one[512], host[256], port[8];
	const char *p, *comma;
	size_t len;
	int pass, r;

	/* Pass 0 checks every address, so that a typo in a standby's shows
	 * at once and not only the day the leader is down; pass 1 connects. */
	for (pass = 0; pass < 2; pass++) {
		for (p = list;; p = comma + 1) {
			comma = strchr(p, ',');
			len = comma != NULL ? (size_t)(comma - p) : strlen(p);
			if (len == 0 || len >= sizeof(one))
				return kai_err_set(err, KAI_EINVAL,
				    "invalid controller address \"%s\": "
				    "expected host:port[,host:port...]", list);
			memcpy(one, p, len);
			one[len] = '\0';
			if (pass == 0)
				r = split_hostport(one, host, sizeof(host),
				    port, sizeof(port), err);
			else
				r = connect_address(one, fd, err);
			if (r != 0 && (pass == 0 || comma == NULL))
				return r;
			if (r == 0 && pass == 1)
				return 0;
			if (comma == NULL)
				break;
		}
	}
	return 0;	/* not reached: pass 1 returns */
}

int
client_frame_new(struct kai_buf *out, uint16_t type, const void *body,
    size_t len, const char *munge_socket, int ttl_s, struct kai_err *err)
{
	return client_frame_new_version(out, KAI_PROTO_VERSION, type, body,
	    len, munge_socket, ttl_s, err);
}

int
client_frame_new_version(struct kai_buf *out, uint16_t version,
    uint16_t type, const void *body, size_t len, const char *munge_socket,
    int ttl_s, struct kai_err *err)
{
	uint8_t digest[KAI_PROTO_DIGEST_LEN];
	char *cred;
	int r;

	if (len > KAI_PROTO_BODY_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "request too large: %zu > %d bytes", len,
		    KAI_PROTO_BODY_MAX);
	kai_frame_digest(version, type, body, len, digest);
	if ((r = client_cred_new(munge_socket, digest, ttl_s, &cred,
		 err)) != 0)
		return r;
	r = kai_frame_build_version(out, version, type, 0, cred, body, len);
	kai_free_secret(cred, strlen(cred));
	if (r != 0)
		return kai_err_set(err, KAI_EINVAL,
		    "could not build the request frame: credential or body "
		    "over the protocol limits");
	return 0;
}

int
client_send(int fd, const void *p, size_t n, struct kai_err *err)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		w = send(fd, s, n, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return kai_err_set(err, KAI_ETIMEDOUT,
			    "timed out after %d s sending the request",
			    CLIENT_IO_TIMEOUT_S);
		if (w == -1)
			return kai_err_set(err, KAI_ESYS,
			    "could not send the request: %s", strerror(errno));
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads exactly n bytes; *got tells how many came before EOF. */
static int
recv_full(int fd, void *p, size_t n, size_t *got, struct kai_err *err)
{
	char *s = p;
	ssize_t r;

	*got = 0;
	while (*got < n) {
		r = recv(fd, s + *got, n - *got, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return kai_err_set(err, KAI_ETIMEDOUT,
			    "timed out after %d s waiting for a reply",
			    CLIENT_IO_TIMEOUT_S);
		if (r == -1)
			return kai_err_set(err, KAI_ESYS,
			    "could not read the reply: %s", strerror(errno));
		if (r == 0)
			return 0;
		*got += (size_t)r;
	}
	return 0;
}

static int
recv_body(int fd, uint32_t len, struct kai_buf *body, struct kai_err *err)
{
	char chunk[16384];
	size_t want, got;
	int r;

	while (body->len < len) {
		want = len - body->len;
		if (want > sizeof(chunk))
			want = sizeof(chunk);
		if ((r = recv_full(fd, chunk, want, &got, err)) != 0)
			return r;
		if (kai_buf_add(body, chunk, got) != 0)
			return kai_err_set(err, KAI_EINTERNAL,
			    "reply body buffer too small for %u bytes", len);
		if (got < want)
			return kai_err_set(err, KAI_EPROTO,
			    "connection closed inside a frame body (%zu of %u "
			    "bytes)",
			    body->len, len);
	}
	return 0;
}

int
client_recv_frame(int fd, struct kai_frame_hdr *h, struct kai_buf *body,
    struct kai_err *err)
{
	uint8_t x[KAI_PROTO_HDR_LEN];
	size_t got;
	int r;

	kai_buf_reset(body);
	if ((r = recv_full(fd, x, sizeof(x), &got, err)) != 0)
		return r;
	if (got == 0)
		return kai_err_set(err, KAI_ENOENT,
		    "kaid closed the connection without a reply");
	if (got < sizeof(x))
		return kai_err_set(err, KAI_EPROTO,
		    "connection closed inside a frame header (%zu of %d bytes)",
		    got, KAI_PROTO_HDR_LEN);
	if ((r = kai_frame_hdr_decode(x, sizeof(x), h, err)) != 0)
		return r;
	if (h->cred_len != 0)
		return kai_err_set(err, KAI_EPROTO,
		    "reply carries a %u-byte credential", h->cred_len);
	return recv_body(fd, h->body_len, body, err);
}

/* Prints kaid's KAI_MSG_ERROR and picks the exit status. */
static int
report_refusal(const char *prog, const char *where, const struct kai_buf *b)
{
	struct kai_msg_error m;
	struct kai_err err;
	int rc;

	if (kai_msg_error_decode(b->data, b->len, &m, &err) != 0) {
		client_error(prog, NULL,
		    "invalid reply from kaid at \"%s\": %s", where, err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	client_error(prog, m.hint, "%s", m.msg);
	rc = m.code == KAI_EAUTH ? CLIENT_EXIT_CONNECT : CLIENT_EXIT_REFUSED;
	kai_msg_error_fini(&m);
	return rc;
}

static int
read_replies(const char *prog, const char *where, int fd, uint16_t type,
    client_reply_fn *fn, void *ctx)
{
	struct kai_frame_hdr h = {0, 0, 0, 0, 0, 0};
	struct kai_buf body;
	struct kai_err err;
	int r, rc = CLIENT_EXIT_OK;

	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	for (;;) {
		if ((r = client_recv_frame(fd, &h, &body, &err)) != 0) {
			if (r == KAI_EPROTO)
				client_error(prog, err.hint,
				    "invalid reply from kaid at \"%s\": %s",
				    where, err.msg);
			else
				client_error(prog,
				    "the request may have been "
				    "carried out all the same",
				    "no reply from kaid at \"%s\": %s", where,
				    err.msg);
			rc = CLIENT_EXIT_CONNECT;
			break;
		}
		if (h.type == KAI_MSG_ERROR) {
			rc = report_refusal(prog, where, &body);
			break;
		}
		if (h.type != type + 1) {
			client_error(prog, NULL,
			    "invalid reply from kaid at "
			    "\"%s\": unexpected reply type %u to request type "
			    "%u",
			    where, h.type, type);
			rc = CLIENT_EXIT_CONNECT;
			break;
		}
		if (fn != NULL)
			rc = fn(h.type, body.data, body.len, ctx);
		if (rc != CLIENT_EXIT_OK)
			break;
		if ((h.flags & KAI_FRAME_MORE) == 0)
			break;
	}
	kai_buf_fini(&body);
	return rc;
}

int
client_request(const char *prog, uint16_t type, const void *body, size_t len,
    client_reply_fn *fn, void *ctx)
{
	return client_request_open(prog, type, body, len, fn, ctx, NULL);
}

int
client_request_open(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *fn, void *ctx, int *keep)
{
	struct client_target t;
	struct kai_buf frame;
	struct kai_err err;
	const char *hint;
	int fd = -1, r, rc = CLIENT_EXIT_CONNECT;

	if (client_target_load(&t, &err) != 0) {
		client_error(prog, err.hint, "%s", err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	kai_buf_init(&frame, FRAME_MAX);
	r = client_frame_new(&frame, type, body, len, t.munge_socket, 0, &err);
	if (r == KAI_EINVAL) {
		/* The request itself is too big: no use retrying. */
		client_error(prog, NULL, "%s", err.msg);
		rc = CLIENT_EXIT_REFUSED;
	} else if (r != 0 ||
	    (r = client_connect(t.controller, &fd, &err)) != 0 ||
	    (r = client_send(fd, frame.data, frame.len, &err)) != 0) {
		hint = err.hint;
		if (hint == NULL && (r == KAI_ESYS || r == KAI_ETIMEDOUT))
			hint = "is kaid running there?  KAI_CONTROLLER or "
			       "\"controller:\" in kai.yaml says where it is";
		client_error(prog, hint, "cannot connect to kaid at \"%s\": %s",
		    t.controller, err.msg);
	} else {
		rc = read_replies(prog, t.controller, fd, type, fn, ctx);
	}
	if (keep != NULL && rc == CLIENT_EXIT_OK) {
		*keep = fd;
		fd = -1;
	}
	if (fd != -1)
		(void)close(fd);
	kai_buf_fini(&frame);
	client_target_fini(&t);
	return rc;
}
