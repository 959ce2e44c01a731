/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * webhook.c: kaid's mutating admission webhook of GPU sharing, over
 * HTTPS, on kaid's loop (doc/k8s-native.md "The admission webhook").
 *
 * The apiserver POSTs an AdmissionReview for every pod created (the
 * MutatingWebhookConfiguration of contrib/kubernetes/) and waits for the
 * answer at most timeoutSeconds; src/kube/admission.c writes the answer.
 * This file is only the transport: listener.c's accept loop, then
 * OpenSSL's libssl driven without blocking (each SSL call that wants the
 * socket readable or writable says so, and the loop calls back when it
 * is), src/proto/http.c for the request head.  A connection carries
 * one request after another (HTTP/1.1 keep-alive, as the apiserver's
 * client reuses its connections: a TLS handshake per pod would cost more
 * than the answer) until the peer says close, an answer is an error, or
 * it waits WEBHOOK_TIMEOUT_MS for a whole request; the apiserver's Go
 * client retries on a new connection a request written onto one kaid
 * closed while idle.
 *
 * Bounded like every port of kaid: WEBHOOK_CONN_MAX connections (more are
 * closed at once: the webhook's failurePolicy Ignore then lets the pod
 * through unchanged, and kaid gives it a pending reason), WEBHOOK_BODY_MAX
 * bytes of body (a Pod object is at most etcd's 1.5 MiB), and
 * WEBHOOK_TIMEOUT_MS for each request (from the connection or the last
 * answer), past the apiserver's own limit.  The certificate and key are read at start: a renewed
 * certificate needs kaid restarted (doc/admin-guide.md).
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "kube/admission.h"
#include "listener.h"
#include "proto/http.h"
#include "sys/log.h"

#define WEBHOOK_CONN_MAX   64
#define WEBHOOK_TIMEOUT_MS 35000	/* the apiserver waits 30 s at most */
#define WEBHOOK_BODY_MAX   ((size_t)8 << 20)
#define WEBHOOK_PATH	   "/mutate-pods"

enum wstate {
	W_HANDSHAKE,	/* TLS handshake */
	W_READ,		/* reading the request */
	W_WRITE		/* sending the answer */
};

struct wconn {
	struct kaid *k;
	int fd;
	SSL *ssl;
	enum wstate state;
	struct kai_buf in;	/* head and body as they arrive */
	struct kai_buf out;	/* the answer not yet sent */
	size_t used;		/* bytes of in the answered request took;
				   0 = close after the answer */
	uint64_t timer;
	char peer[64];
	struct wconn *next;
};

struct webhook {
	struct listener *listener;
	SSL_CTX *ctx;
	struct wconn *conns;
	size_t nconns;
};

static void wconn_event(struct kai_loop *loop, int fd, int events,
    void *ctx);
static void wconn_timeout(struct kai_loop *loop, uint64_t id, void *ctx);

static void
wconn_close(struct wconn *c)
{
	struct webhook *w = c->k->webhook;
	struct wconn **pp;

	kai_loop_timer_del(c->k->loop, c->timer);
	kai_loop_fd_del(c->k->loop, c->fd);
	SSL_free(c->ssl);
	(void)close(c->fd);
	for (pp = &w->conns; *pp != NULL && *pp != c; pp = &(*pp)->next)
		continue;
	if (*pp == c)
		*pp = c->next;
	w->nconns--;
	kai_buf_fini(&c->in);
	kai_buf_fini(&c->out);
	free(c);
}

/* The first error of OpenSSL's queue, as text (static buffer). */
static const char *
ssl_error(void)
{
	static char buf[256];
	unsigned long e = ERR_get_error();

	if (e == 0)
		return strerror(errno);
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

/*
 * After an SSL call returned r <= 0: waits for what it wants and returns
 * false, or closes c (the peer went, or the exchange failed) and returns
 * false too; the caller stops either way.
 */
static bool
wconn_wait(struct wconn *c, int r, const char *what)
{
	int e = SSL_get_error(c->ssl, r);
	int ev = e == SSL_ERROR_WANT_READ ? KAI_LOOP_READ :
	    e == SSL_ERROR_WANT_WRITE ? KAI_LOOP_WRITE : 0;

	if (ev != 0 &&
	    kai_loop_fd_set(c->k->loop, c->fd, ev, wconn_event, c) == 0)
		return false;
	if (e != SSL_ERROR_ZERO_RETURN && ev == 0)
		kai_log_debug("webhook: %s: %s: %s", c->peer, what,
		    e == SSL_ERROR_SYSCALL && r == 0 ? "connection closed" :
		    ssl_error());
	wconn_close(c);
	return false;
}

/* Queues the answer; the caller goes on with W_WRITE. */
static void
wconn_answer(struct wconn *c, int status, const char *ctype,
    const char *body)
{
	size_t len = strlen(body);

	kai_buf_reset(&c->out);
	if (kai_buf_addf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\n%s%s\r\n", status,
	    kai_http_reason(status), ctype, len,
	    status == 405 ? "Allow: POST\r\n" : "",
	    c->used == 0 ? "Connection: close\r\n" : "") != 0 ||
	    kai_buf_add(&c->out, body, len) != 0)
		kai_buf_reset(&c->out);	/* larger than the limit: close */
	c->state = W_WRITE;
}

static void
wconn_text(struct wconn *c, int status, const char *line)
{
	char *body = kai_xasprintf("%s\n", line);

	wconn_answer(c, status, "text/plain; charset=utf-8", body);
	free(body);
}

static bool
ours(const char *scheduler, void *ctx)
{
	return native_scheduler_ours(ctx, scheduler);
}

/* A whole request is in: answer it. */
static void
serve(struct wconn *c, const struct kai_http_req *req)
{
	struct kai_admission a;
	struct kai_err err;
	const char *body = c->in.data + req->head_len;

	if (strcmp(req->path, WEBHOOK_PATH) != 0) {
		wconn_text(c, 404, "not found: the webhook is POST "
		    WEBHOOK_PATH);
		return;
	}
	if (kai_admission_review(body, (size_t)req->content_length, ours,
		c->k, &a, &err) != 0) {
		kai_log_warn("webhook: %s: %s", c->peer, err.msg);
		wconn_text(c, 400, err.msg);
		return;
	}
	if (!req->close)
		c->used = req->head_len + (size_t)req->content_length;
	if (!a.allowed)
		kai_log_info("webhook: pod \"%s\" refused: %s", a.pod,
		    a.message);
	else if (a.patched)
		kai_log_info("webhook: pod \"%s\" gets its GPU share from a "
		    "ConfigMap kaid makes at bind", a.pod);
	wconn_answer(c, 200, "application/json", a.response);
	kai_admission_fini(&a);
}

/*
 * Judges what arrived: true when an answer is queued (c->state W_WRITE),
 * false while more is needed.
 */
static bool
wconn_parse(struct wconn *c)
{
	struct kai_http_req req;
	struct kai_err err;
	int r = kai_http_parse_post(c->in.data, c->in.len, &req, &err);

	if (r == KAI_EAGAIN)
		return false;
	if (r != 0)
		wconn_text(c, req.status, err.msg);
	else if (req.chunked)
		wconn_text(c, 501, "chunked bodies are not taken: send a "
		    "Content-Length");
	else if (req.content_length < 0)
		wconn_text(c, 411, "a Content-Length is needed");
	else if ((size_t)req.content_length > WEBHOOK_BODY_MAX)
		wconn_text(c, 413, "body too large");
	else if (c->in.len - req.head_len < (size_t)req.content_length)
		return false;
	else
		serve(c, &req);
	return true;
}

/* Reads until the request is whole (true) or the socket is dry (false). */
static bool
wconn_read(struct wconn *c)
{
	char buf[16384];

	for (;;) {
		int n;

		ERR_clear_error();
		if ((n = SSL_read(c->ssl, buf, (int)sizeof(buf))) <= 0)
			return wconn_wait(c, n, "read");
		if (kai_buf_add(&c->in, buf, (size_t)n) != 0) {
			wconn_text(c, 413, "request too large");
			return true;
		}
		if (wconn_parse(c))
			return true;
	}
}

/*
 * Sends the answer.  Then either reads the next request (true) or sends
 * the TLS close_notify, best-effort, and closes (false); false also while
 * the socket is full.
 */
static bool
wconn_write(struct wconn *c)
{
	while (c->out.len > 0) {
		int n;

		ERR_clear_error();
		n = SSL_write(c->ssl, c->out.data, (int)c->out.len);
		if (n <= 0)
			return wconn_wait(c, n, "write");
		kai_buf_consume(&c->out, (size_t)n);
	}
	if (c->used == 0) {
		ERR_clear_error();
		(void)SSL_shutdown(c->ssl);
		wconn_close(c);
		return false;
	}
	kai_buf_consume(&c->in, c->used);
	c->used = 0;
	c->state = W_READ;
	kai_loop_timer_del(c->k->loop, c->timer);
	c->timer = kai_loop_timer_add(c->k->loop, WEBHOOK_TIMEOUT_MS,
	    wconn_timeout, c);
	return true;
}

/* Goes as far as the socket lets: handshake, request, answer. */
static void
wconn_step(struct wconn *c)
{
	if (c->state == W_HANDSHAKE) {
		int r;

		ERR_clear_error();
		if ((r = SSL_do_handshake(c->ssl)) != 1) {
			(void)wconn_wait(c, r, "TLS handshake");
			return;
		}
		c->state = W_READ;
	}
	for (;;) {
		/* A request may already wait whole behind the last one. */
		if (c->state == W_READ && !(c->in.len > 0 && wconn_parse(c)) &&
		    !wconn_read(c))
			return;
		if (!wconn_write(c))
			return;
	}
}

static void
wconn_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	(void)loop;
	(void)fd;
	(void)events;
	wconn_step(ctx);
}

static void
wconn_timeout(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct wconn *c = ctx;

	(void)loop;
	(void)id;
	c->timer = 0;
	kai_log_debug("webhook: %s: no whole request in time (or idle)",
	    c->peer);
	wconn_close(c);
}

static void
on_conn(struct kaid *k, struct listener *l, int fd, const char *peer)
{
	struct webhook *w = k->webhook;
	struct wconn *c;
	int one = 1;

	(void)l;
	if (w->nconns >= WEBHOOK_CONN_MAX) {
		kai_log_warn("webhook: %d connections already: %s refused",
		    WEBHOOK_CONN_MAX, peer);
		(void)close(fd);
		return;
	}
	/* The answer and TLS's close_notify are two small writes. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = kai_xcalloc(1, sizeof(*c));
	c->k = k;
	c->fd = fd;
	(void)snprintf(c->peer, sizeof(c->peer), "%s", peer);
	kai_buf_init(&c->in, KAI_HTTP_HEAD_MAX + WEBHOOK_BODY_MAX);
	kai_buf_init(&c->out, WEBHOOK_BODY_MAX);
	c->next = w->conns;
	w->conns = c;
	w->nconns++;
	c->timer = kai_loop_timer_add(k->loop, WEBHOOK_TIMEOUT_MS,
	    wconn_timeout, c);
	if ((c->ssl = SSL_new(w->ctx)) == NULL || SSL_set_fd(c->ssl, fd) != 1) {
		kai_log_warn("webhook: %s: %s", peer, ssl_error());
		wconn_close(c);
		return;
	}
	SSL_set_accept_state(c->ssl);
	wconn_step(c);
}

/* The server's TLS context: certificate chain and key, TLS 1.2 or later. */
static int
make_ctx(const struct kai_conf *conf, SSL_CTX **out, struct kai_err *err)
{
	SSL_CTX *ctx;

	if (conf->webhook_cert == NULL || conf->webhook_key == NULL)
		return kai_err_set(err, KAI_ECONFIG, "native.webhook_listen "
		    "is set: native.webhook_cert and native.webhook_key are "
		    "needed too");
	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL)
		return kai_err_set(err, KAI_ECONFIG, "native.webhook_listen: %s",
		    ssl_error());
	(void)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	(void)SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (SSL_CTX_use_certificate_chain_file(ctx, conf->webhook_cert) != 1) {
		kai_err_set(err, KAI_ECONFIG, "native.webhook_cert \"%s\": %s",
		    conf->webhook_cert, ssl_error());
	} else if (SSL_CTX_use_PrivateKey_file(ctx, conf->webhook_key,
	    SSL_FILETYPE_PEM) != 1) {
		/* OpenSSL's own words for a mismatch are obscure. */
		if (ERR_GET_REASON(ERR_peek_error()) ==
		    X509_R_KEY_VALUES_MISMATCH) {
			ERR_clear_error();
			kai_err_set(err, KAI_ECONFIG, "native.webhook_key "
			    "\"%s\": does not match the certificate",
			    conf->webhook_key);
		} else {
			kai_err_set(err, KAI_ECONFIG,
			    "native.webhook_key \"%s\": %s", conf->webhook_key,
			    ssl_error());
		}
	} else if (SSL_CTX_check_private_key(ctx) != 1) {
		kai_err_set(err, KAI_ECONFIG, "native.webhook_key \"%s\": does "
		    "not match the certificate", conf->webhook_key);
	} else {
		*out = ctx;
		return 0;
	}
	SSL_CTX_free(ctx);
	return err->code;
}

int
webhook_listen(struct kaid *k, struct kai_err *err)
{
	const char *addr = k->conf->webhook_listen;
	SSL_CTX *ctx = NULL;

	if (addr == NULL || strcmp(addr, "off") == 0)
		return 0;
	if (make_ctx(k->conf, &ctx, err) != 0)
		return err->code;
	k->webhook = kai_xcalloc(1, sizeof(*k->webhook));
	k->webhook->ctx = ctx;
	k->webhook->listener = listener_open(k, addr, "webhook", on_conn, err);
	if (k->webhook->listener == NULL) {
		SSL_CTX_free(ctx);
		KAI_FREE(k->webhook);
		return kai_err_prefix(err, "native.webhook_listen");
	}
	kai_log_info("admission webhook on https://%s%s", addr, WEBHOOK_PATH);
	return 0;
}

void
webhook_reload(struct kaid *k)
{
	struct kai_err err;
	SSL_CTX *ctx = NULL;
	const char *addr = k->conf->webhook_listen;
	bool on = addr != NULL && strcmp(addr, "off") != 0;

	if (k->webhook == NULL) {
		if (on)
			kai_log_warn("native.webhook_listen takes effect when "
			    "kaid restarts");
		return;
	}
	if (!on) {
		kai_log_warn("native.webhook_listen \"off\" takes effect "
		    "when kaid restarts");
		return;
	}
	if (make_ctx(k->conf, &ctx, &err) != 0) {
		kai_log_err("webhook certificate not reloaded: %s", err.msg);
		return;
	}
	/* Connections keep the context they started with (SSL_new's ref). */
	SSL_CTX_free(k->webhook->ctx);
	k->webhook->ctx = ctx;
	kai_log_info("webhook certificate reloaded from \"%s\"",
	    k->conf->webhook_cert);
}

void
webhook_close(struct kaid *k)
{
	struct webhook *w = k->webhook;

	if (w == NULL)
		return;
	while (w->conns != NULL)
		wconn_close(w->conns);
	listener_close(w->listener);
	SSL_CTX_free(w->ctx);
	KAI_FREE(k->webhook);
}
