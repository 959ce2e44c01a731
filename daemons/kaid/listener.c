/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * listener.c: one listening socket on kaid's loop, with the accept loop
 * every port of kaid needs.
 *
 * The loop is level-triggered: a connection left in the backlog is
 * reported again at once.  So accept() takes everything that waits, and
 * when it fails for want of descriptors or kernel memory (EMFILE, ENFILE,
 * ENOBUFS, ENOMEM) the listener is unwatched for a second instead of
 * firing for ever; the clients wait in the backlog meanwhile (OpenBSD's
 * daemons pause accepting the same way).  Pauses come in floods, so the
 * log says so once a minute, with how many there were.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "listener.h"
#include "sys/log.h"
#include "sys/loop.h"

#define PAUSE_MS     1000	 /* out of descriptors: wait this long */
#define PAUSE_LOG_MS (60 * 1000) /* and say so once a minute */
#define BACKLOG	     512

struct listener {
	struct kaid *k;
	int fd;
	const char *what;	/* static: "client", "http", "relay" */
	listener_fn *fn;
	uint64_t pause_timer;	/* 0 = accepting */
	int64_t pause_log_ms;	/* loop time of the last pause line */
	uint64_t pauses;	/* since that line */
};

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

/* A non-blocking listening socket on addr, into *fdp. */
static int
open_socket(const char *addr, int *fdp, struct kai_err *err)
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
	    listen(fd, BACKLOG) != 0) {
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

static void accept_event(struct kai_loop *loop, int fd, int events,
    void *ctx);

static void
resume(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct listener *l = ctx;

	(void)id;
	l->pause_timer = 0;
	if (kai_loop_fd_set(loop, l->fd, KAI_LOOP_READ, accept_event, l) != 0)
		kai_log_err("%s port: could not watch the listener again",
		    l->what);
}

void
listener_pause(struct listener *l, const char *reason)
{
	int64_t now = kai_loop_now_ms(l->k->loop);

	if (l->pause_timer != 0)
		return;
	kai_loop_fd_del(l->k->loop, l->fd);
	l->pause_timer = kai_loop_timer_add(l->k->loop, PAUSE_MS, resume, l);
	l->pauses++;
	if (l->pause_log_ms != 0 && now - l->pause_log_ms < PAUSE_LOG_MS)
		return;
	kai_log_warn("%s port: could not accept a connection: %s; pausing "
	    "%d ms (%" PRIu64 " pause%s)", l->what, reason, PAUSE_MS,
	    l->pauses, l->pauses == 1 ? "" : "s");
	l->pause_log_ms = now;
	l->pauses = 0;
}

static void
accept_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct sockaddr_storage sa;
	struct listener *l = ctx;
	char peer[64];
	socklen_t salen;
	int cfd;

	(void)loop;
	(void)events;
	while (l->pause_timer == 0) {
		salen = sizeof(sa);
		cfd = accept4(fd, (struct sockaddr *)&sa, &salen,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				listener_pause(l, strerror(errno));
			else if (errno != EAGAIN && errno != EWOULDBLOCK)
				kai_log_warn("%s port: could not accept a "
				    "connection: %s", l->what,
				    strerror(errno));
			return;
		}
		if (getnameinfo((const struct sockaddr *)&sa, salen, peer,
			sizeof(peer), NULL, 0, NI_NUMERICHOST) != 0)
			(void)snprintf(peer, sizeof(peer), "unknown");
		l->fn(l->k, l, cfd, peer);
	}
}

struct listener *
listener_open(struct kaid *k, const char *addr, const char *what,
    listener_fn *fn, struct kai_err *err)
{
	struct listener *l;
	int fd;

	if (open_socket(addr, &fd, err) != 0)
		return NULL;
	l = kai_xcalloc(1, sizeof(*l));
	l->k = k;
	l->fd = fd;
	l->what = what;
	l->fn = fn;
	if (kai_loop_fd_set(k->loop, fd, KAI_LOOP_READ, accept_event, l) != 0) {
		(void)close(fd);
		free(l);
		(void)kai_err_set(err, KAI_ESYS, "could not watch the %s listener",
		    what);
		return NULL;
	}
	return l;
}

void
listener_close(struct listener *l)
{
	if (l == NULL)
		return;
	kai_loop_timer_del(l->k->loop, l->pause_timer);
	kai_loop_fd_del(l->k->loop, l->fd);
	(void)close(l->fd);
	free(l);
}
