/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * httpd.c: kaid's HTTP endpoint for health probes and Prometheus.
 *
 * GET or HEAD of /healthz (the loop runs), /readyz (database and cluster
 * in hand) and /metrics (doc/metrics.md), on its own port (http_listen in
 * kaid.yaml), in the same loop as everything else.  It must never harm
 * the client port, so it is bounded everywhere: at most HTTPD_CONN_MAX
 * connections (more are closed at once), a head of at most 8 KiB
 * (proto/http.h judges it), HTTPD_TIMEOUT_MS to send it, one answer per
 * connection, `Connection: close`.  Answers are small, except /metrics,
 * which is written whole into the connection's buffer and flushed as the
 * peer reads.
 *
 * After its answer a connection shuts down its sending side and reads
 * (and drops) what the peer still sends, for a short while: closing a
 * socket with unread bytes makes the kernel send a reset, which can
 * destroy the answer before the peer read it (a refused POST with a body
 * would see "connection reset" instead of its 405).
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "listener.h"
#include "proto/http.h"
#include "proto/prom.h"
#include "sys/log.h"

#define HTTPD_TIMEOUT_MS  5000		/* to read the answer */
#define HTTPD_LINGER_MS	  1000		/* to read what follows the answer */
#define HTTPD_LINGER_MAX  ((size_t)64 << 10) /* bytes dropped after the answer */
#define HTTPD_PAGE_MAX	  ((size_t)32 << 20) /* the metrics page */
#define HTTPD_OUT_MAX	  (HTTPD_PAGE_MAX + 1024)
#define HTTPD_DB_RETRY_MS 5000		/* /readyz reconnects at most this often */

enum hstate {
	H_READ,		/* reading the head */
	H_WRITE,	/* flushing the answer */
	H_LINGER	/* answer sent: dropping input until EOF */
};

struct hconn {
	struct kaid *k;
	int fd;
	char peer[64];		/* numeric address, for the limits */
	enum hstate state;
	char in[KAI_HTTP_HEAD_MAX];
	size_t inlen;
	struct kai_buf out;
	size_t dropped;		/* bytes read while lingering */
	uint64_t timer;
	struct hconn *next;
};

struct httpd {
	struct listener *listener;
	struct hconn *conns;
	size_t nconns;
	int64_t db_retry_ms;	/* loop time of /readyz's last reconnect */
};

static void hconn_event(struct kai_loop *loop, int fd, int events, void *ctx);

static void
hconn_close(struct hconn *c)
{
	struct httpd *h = c->k->httpd;
	struct hconn **pp;

	kai_loop_timer_del(c->k->loop, c->timer);
	kai_loop_fd_del(c->k->loop, c->fd);
	(void)close(c->fd);
	/* Still linked unless httpd_close() took it off the list. */
	for (pp = &h->conns; *pp != NULL && *pp != c; pp = &(*pp)->next)
		continue;
	if (*pp == c)
		*pp = c->next;
	h->nconns--;
	kai_buf_fini(&c->out);
	free(c);
}

static void
hconn_timeout(struct kai_loop *loop, uint64_t id, void *ctx);

static void
hconn_timer(struct hconn *c, int64_t ms)
{
	kai_loop_timer_del(c->k->loop, c->timer);
	c->timer = kai_loop_timer_add(c->k->loop, ms, hconn_timeout, c);
}

/* Watches for ev; closes c (and returns false) when that fails. */
static bool
hconn_watch(struct hconn *c, int ev)
{
	if (kai_loop_fd_set(c->k->loop, c->fd, ev, hconn_event, c) == 0)
		return true;
	hconn_close(c);
	return false;
}

/* Writes what it can; when all is out, starts lingering.  false: closed. */
static bool
hconn_flush(struct hconn *c)
{
	while (c->out.len > 0) {
		ssize_t n = write(c->fd, c->out.data, c->out.len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return hconn_watch(c, KAI_LOOP_WRITE);
		if (n <= 0) {
			hconn_close(c);
			return false;
		}
		kai_buf_consume(&c->out, (size_t)n);
	}
	(void)shutdown(c->fd, SHUT_WR);
	c->state = H_LINGER;
	hconn_timer(c, HTTPD_LINGER_MS);
	return hconn_watch(c, KAI_LOOP_READ);
}

/* Queues the answer and starts sending it. */
static void
hconn_answer(struct hconn *c, int status, const char *ctype,
    const char *body, size_t len, bool head_only)
{
	metrics_http_answer(&c->k->metrics, status);
	kai_buf_reset(&c->out);
	if (kai_buf_addf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nCache-Control: no-store\r\n%s"
	    "Connection: close\r\n\r\n", status, kai_http_reason(status),
	    ctype, len, status == 405 ? "Allow: GET, HEAD\r\n" : "") != 0 ||
	    (!head_only && kai_buf_add(&c->out, body, len) != 0)) {
		hconn_close(c);
		return;
	}
	c->state = H_WRITE;
	hconn_timer(c, HTTPD_TIMEOUT_MS);
	(void)hconn_flush(c);
}

static void
hconn_text(struct hconn *c, int status, const char *line, bool head_only)
{
	char body[KAI_ERR_MSG_MAX + 2];
	int n = snprintf(body, sizeof(body), "%s\n", line);

	hconn_answer(c, status, "text/plain; charset=utf-8", body,
	    n < 0 ? 0 : (size_t)n >= sizeof(body) ? sizeof(body) - 1 :
	    (size_t)n, head_only);
}

static void
serve_metrics(struct hconn *c, bool head_only)
{
	struct kai_buf page;

	kai_buf_init(&page, HTTPD_PAGE_MAX);
	if (metrics_render(c->k, &page) != 0) {
		kai_log_err("metrics page larger than %zu bytes",
		    HTTPD_PAGE_MAX);
		hconn_text(c, 500, "metrics page too large", head_only);
	} else {
		hconn_answer(c, 200, KAI_PROM_CONTENT_TYPE, page.data,
		    page.len, head_only);
	}
	kai_buf_fini(&page);
}

/*
 * A lost database connection is made again by the next call that needs
 * it; an idle kaid makes none, and one that is not ready gets no clients
 * through its Service to make one.  So /readyz tries, now and then.
 */
static void
retry_db(struct kaid *k)
{
	int64_t now = kai_loop_now_ms(k->loop);
	struct kai_err err;

	if (kai_db_connected(k->db) ||
	    (k->httpd->db_retry_ms != 0 &&
	    now - k->httpd->db_retry_ms < HTTPD_DB_RETRY_MS))
		return;
	k->httpd->db_retry_ms = now;
	if (kai_db_reconnect(k->db, &err) != 0)
		kai_log_debug("readiness: %s", err.msg);
	else
		kai_log_info("database connection made again");
}

static void
serve(struct hconn *c, const struct kai_http_req *req)
{
	const char *why;

	if (strcmp(req->path, "/healthz") == 0) {
		hconn_text(c, 200, "ok", req->head);
	} else if (strcmp(req->path, "/readyz") == 0) {
		retry_db(c->k);
		why = httpd_unready(c->k);
		hconn_text(c, why == NULL ? 200 : 503, why == NULL ? "ok" : why,
		    req->head);
	} else if (strcmp(req->path, "/metrics") == 0) {
		serve_metrics(c, req->head);
	} else {
		hconn_text(c, 404, "not found: try /healthz, /readyz or "
		    "/metrics", req->head);
	}
}

/* Parses what arrived; eof: the peer sends no more. */
static void
hconn_parse(struct hconn *c, bool eof)
{
	struct kai_http_req req;
	struct kai_err err;
	int r = kai_http_parse(c->in, c->inlen, &req, &err);

	if (r == 0) {
		serve(c, &req);
	} else if (r == KAI_EAGAIN && eof) {
		if (c->inlen == 0)
			hconn_close(c);
		else
			hconn_text(c, 400, "incomplete request head", false);
	} else if (r != KAI_EAGAIN) {
		kai_log_debug("http fd %d: %d: %s", c->fd, req.status, err.msg);
		hconn_text(c, req.status, err.msg, false);
	}
}

static void
hconn_read(struct hconn *c)
{
	char drop[4096];
	ssize_t n;

	for (;;) {
		if (c->state == H_READ)
			n = read(c->fd, c->in + c->inlen,
			    sizeof(c->in) - c->inlen);
		else
			n = read(c->fd, drop, sizeof(drop));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0 || (n == 0 && c->state == H_LINGER)) {
			hconn_close(c);
			return;
		}
		if (c->state == H_LINGER) {
			if ((c->dropped += (size_t)n) > HTTPD_LINGER_MAX) {
				hconn_close(c);
				return;
			}
			continue;
		}
		c->inlen += (size_t)n;
		/* A full buffer is an oversized head: the parser says so. */
		hconn_parse(c, n == 0);
		return;
	}
}

static void
hconn_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct hconn *c = ctx;

	(void)loop;
	(void)fd;
	if (c->state == H_WRITE) {
		if (events & KAI_LOOP_WRITE)
			(void)hconn_flush(c);
		return;
	}
	if (events & KAI_LOOP_READ)
		hconn_read(c);
}

static void
hconn_timeout(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct hconn *c = ctx;

	(void)loop;
	(void)id;
	c->timer = 0;
	if (c->state == H_READ && c->inlen > 0)
		hconn_text(c, 408, "request head not received in time", false);
	else
		hconn_close(c);
}

/* Whether c has sent nothing: none read, none waiting in its socket. */
static bool
hconn_silent(const struct hconn *c)
{
	char b;
	ssize_t n;

	if (c->inlen > 0)
		return false;
	/* 0: the peer has gone, which is as idle as it gets. */
	n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

/*
 * The oldest connection still reading its head, of peer (or of anyone
 * when peer is NULL), or NULL.  One that has sent nothing is chosen
 * before one whose request is on its way: when a burst of connections
 * is accepted before the loop reads the ones already there, a probe's
 * request may sit unread in its socket.  The list is newest first.
 */
static struct hconn *
oldest_unserved(struct httpd *h, const char *peer)
{
	struct hconn *c, *silent = NULL, *any = NULL;

	for (c = h->conns; c != NULL; c = c->next) {
		if (c->state != H_READ ||
		    (peer != NULL && strcmp(c->peer, peer) != 0))
			continue;
		any = c;
		if (hconn_silent(c))
			silent = c;
	}
	return silent != NULL ? silent : any;
}

/*
 * Makes room for a connection from peer: past a limit, the oldest
 * connection without a request (of that peer, past the per-peer limit)
 * is closed.  Returns false when there is none to displace.
 */
static bool
make_room(struct kaid *k, const char *peer)
{
	struct httpd *h = k->httpd;
	struct hconn *c, *victim = NULL;
	int64_t same = 0;

	for (c = h->conns; c != NULL; c = c->next)
		same += strcmp(c->peer, peer) == 0;
	if (same >= k->conf->http_max_conns_per_peer) {
		if ((victim = oldest_unserved(h, peer)) == NULL)
			return false;
	} else if ((int64_t)h->nconns >= k->conf->http_max_conns) {
		if ((victim = oldest_unserved(h, NULL)) == NULL)
			return false;
	}
	if (victim != NULL) {
		k->metrics.http_refused++;
		kai_log_debug("http: %s displaced by a new connection",
		    victim->peer);
		hconn_close(victim);
	}
	return true;
}

/* No room: a best-effort 503, then close (never blocks). */
static void
refuse(struct kaid *k, int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 22\r\n"
	    "Connection: close\r\n\r\ntoo many connections\r\n";

	k->metrics.http_refused++;
	metrics_http_answer(&k->metrics, 503);
	if (write(fd, busy, sizeof(busy) - 1) < 0)
		kai_log_debug("http: could not refuse a connection: %s",
		    strerror(errno));
	(void)close(fd);
}

/* The listener's callback: one connection, room made for it. */
static void
on_conn(struct kaid *k, struct listener *l, int cfd, const char *peer)
{
	struct httpd *h = k->httpd;
	struct hconn *c;

	(void)l;
	if (!make_room(k, peer)) {
		refuse(k, cfd);
		return;
	}
	c = kai_xcalloc(1, sizeof(*c));
	c->k = k;
	c->fd = cfd;
	(void)snprintf(c->peer, sizeof(c->peer), "%s", peer);
	c->state = H_READ;
	kai_buf_init(&c->out, HTTPD_OUT_MAX);
	c->next = h->conns;
	h->conns = c;
	h->nconns++;
	hconn_timer(c, k->conf->http_timeout_ms);
	(void)hconn_watch(c, KAI_LOOP_READ);
}

int
httpd_listen(struct kaid *k, struct kai_err *err)
{
	const char *addr = k->conf->http_listen;
	if (addr == NULL || strcmp(addr, "off") == 0)
		return 0;
	k->httpd = kai_xcalloc(1, sizeof(*k->httpd));
	k->httpd->listener = listener_open(k, addr, "http", on_conn, err);
	if (k->httpd->listener == NULL) {
		KAI_FREE(k->httpd);
		return kai_err_prefix(err, "http_listen");
	}
	kai_log_info("health and metrics on http://%s", addr);
	return 0;
}

void
httpd_close(struct kaid *k)
{
	struct httpd *h = k->httpd;
	struct hconn *c;

	if (h == NULL)
		return;
	while ((c = h->conns) != NULL) {
		h->conns = c->next;
		hconn_close(c);
	}
	listener_close(h->listener);
	KAI_FREE(k->httpd);
}

const char *
httpd_unready(const struct kaid *k)
{
	if (!leader_leading(k))
		return "standby: another kaid leads";
	if (!kai_db_connected(k->db))
		return "no database connection";
	if (!k->nodes_synced && !k->pods_synced)
		return "node and pod lists not loaded yet";
	if (!k->nodes_synced)
		return "node list not loaded yet";
	if (!k->pods_synced)
		return "pod list not loaded yet";
	return NULL;
}
