/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_http.c: the client object and its HTTP requests, libcurl's multi
 * interface in multi-socket mode driven by kaid's event loop (the shape
 * of curl's docs/examples/ephiperfifo.c).
 *
 * libcurl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION) and
 * when it next needs a timeout (CURLMOPT_TIMERFUNCTION); the loop calls
 * curl_multi_socket_action() back when a socket is ready or the timer
 * fires, and finished transfers are collected with curl_multi_info_read().
 * One multi handle per client keeps the connection cache, so requests
 * reuse kept-alive connections (or multiplex over HTTP/2 when the server
 * offers it through ALPN; HTTP/1.1 works the same).
 *
 * Re-entrancy: libcurl refuses curl_multi_add_handle() from inside its
 * own callbacks, and a watch calls the caller's callbacks from inside the
 * write callback, where the caller may well create a pod.  So a request
 * started while in_curl is set waits in kube->queued and is added as soon
 * as curl_multi_socket_action() returns.  Done callbacks run outside
 * libcurl and may start anything.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "sys/log.h"

#define CONNECT_TIMEOUT_MS 10000

/* The connection settings shared by every request of a client. */
static CURLcode
tls_opts(CURL *e, const struct kai_kube_config *cfg)
{
	struct curl_blob b;
	CURLcode rc = CURLE_OK;

	if (cfg->ca_pem != NULL) {
		b.data = cfg->ca_pem;
		b.len = strlen(cfg->ca_pem);
		b.flags = CURL_BLOB_COPY;
		rc = curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
	}
	if (rc == CURLE_OK && cfg->insecure) {
		rc = curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (rc == CURLE_OK && cfg->client_cert_pem != NULL) {
		b.data = cfg->client_cert_pem;
		b.len = strlen(cfg->client_cert_pem);
		b.flags = CURL_BLOB_COPY;
		rc = curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &b);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
	}
	if (rc == CURLE_OK && cfg->client_key_pem != NULL) {
		b.data = cfg->client_key_pem;
		b.len = strlen(cfg->client_key_pem);
		b.flags = CURL_BLOB_COPY;
		rc = curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &b);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
	}
	return rc;
}

static void
unlink_req(struct kube_req **head, struct kube_req *req)
{
	if (req->prev != NULL)
		req->prev->next = req->next;
	else
		*head = req->next;
	if (req->next != NULL)
		req->next->prev = req->prev;
	req->prev = req->next = NULL;
}

static void
link_req(struct kube_req **head, struct kube_req *req)
{
	req->prev = NULL;
	req->next = *head;
	if (*head != NULL)
		(*head)->prev = req;
	*head = req;
}

/* Appends: queued requests start in the order they were made. */
static void
link_req_tail(struct kube_req **head, struct kube_req *req)
{
	struct kube_req *last = *head;

	req->next = NULL;
	if (last == NULL) {
		req->prev = NULL;
		*head = req;
		return;
	}
	while (last->next != NULL)
		last = last->next;
	last->next = req;
	req->prev = last;
}

static void
req_free(struct kube_req *req)
{
	curl_easy_cleanup(req->easy);
	curl_slist_free_all(req->hdrs);
	free(req->url);
	free(req->post);
	kai_buf_fini(&req->body);
	if (req->ctx_free != NULL)
		req->ctx_free(req->ctx);
	free(req);
}

/* Connection reuse is what keeps a busy kaid cheap: keep it visible. */
static void
count(struct kai_kube *kube, const struct kube_req *req)
{
	long conns = 0, ver = 0;

	(void)curl_easy_getinfo(req->easy, CURLINFO_NUM_CONNECTS, &conns);
	(void)curl_easy_getinfo(req->easy, CURLINFO_HTTP_VERSION, &ver);
	kube->nrequests++;
	kube->nconnects += conns > 0 ? (uint64_t)conns : 0;
	kai_log_debug("kubernetes client: %s: HTTP %ld, %s, %s connection",
	    req->url, req->status,
	    ver == CURL_HTTP_VERSION_2_0 ? "HTTP/2" : "HTTP/1.x",
	    conns > 0 ? "new" : "reused");
}

/* Collects finished transfers and calls their done callbacks. */
static void
check_done(struct kai_kube *kube)
{
	struct kube_req *req;
	CURLMsg *msg;
	CURLcode result;
	CURL *easy;
	char *priv;
	int left;

	while ((msg = curl_multi_info_read(kube->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		easy = msg->easy_handle;
		result = msg->data.result;
		priv = NULL;
		(void)curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
		if (priv == NULL)
			continue; /* every handle we add has one */
		req = (struct kube_req *)(void *)priv;
		req->result = result;
		req->status = 0;
		(void)curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE,
		    &req->status);
		count(kube, req);
		(void)curl_multi_remove_handle(kube->multi, easy);
		unlink_req(&kube->reqs, req);
		req->done(req, req->ctx);
		req_free(req);
	}
}

static void
add_req(struct kube_req *req)
{
	CURLMcode mc;

	link_req(&req->kube->reqs, req);
	mc = curl_multi_add_handle(req->kube->multi, req->easy);
	/* Fails only through misuse (in a callback) or out of memory. */
	KAI_ASSERT(mc == CURLM_OK);
}

/* Runs libcurl for fd (or its timeout), then whatever became due. */
static void
kube_action(struct kai_kube *kube, curl_socket_t fd, int flags)
{
	struct kube_req *req;
	int running;

	kube->in_curl++;
	(void)curl_multi_socket_action(kube->multi, fd, flags, &running);
	kube->in_curl--;
	while (kube->in_curl == 0 && (req = kube->queued) != NULL) {
		unlink_req(&kube->queued, req);
		req->queued = false;
		add_req(req);
	}
	check_done(kube);
}

static void
on_socket(struct kai_loop *loop, int fd, int events, void *ctx)
{
	int flags = 0;

	(void)loop;
	if (events & KAI_LOOP_READ)
		flags |= CURL_CSELECT_IN;
	if (events & KAI_LOOP_WRITE)
		flags |= CURL_CSELECT_OUT;
	kube_action(ctx, fd, flags);
}

static void
on_timer(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kai_kube *kube = ctx;

	(void)loop;
	(void)id;
	kube->timer = 0;
	kube_action(kube, CURL_SOCKET_TIMEOUT, 0);
}

static int
sock_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *sockp)
{
	struct kai_kube *kube = userp;
	int events = 0;

	(void)easy;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		kai_loop_fd_del(kube->loop, s);
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= KAI_LOOP_READ;
	if (what & CURL_POLL_OUT)
		events |= KAI_LOOP_WRITE;
	if (kai_loop_fd_set(kube->loop, s, events, on_socket, kube) != 0) {
		kai_log_debug("kubernetes client: could not watch socket %d",
		    (int)s);
		return -1;
	}
	return 0;
}

static int
timer_cb(CURLM *multi, long ms, void *userp)
{
	struct kai_kube *kube = userp;

	(void)multi;
	if (kube->timer != 0)
		kai_loop_timer_del(kube->loop, kube->timer);
	kube->timer = 0;
	if (ms >= 0)
		kube->timer =
		    kai_loop_timer_add(kube->loop, ms, on_timer, kube);
	return 0;
}

static size_t
write_cb(char *p, size_t size, size_t nmemb, void *userp)
{
	struct kube_req *req = userp;
	size_t n = size * nmemb;
	long status = 0;

	if (req->data != NULL) {
		(void)curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE,
		    &status);
		if (status >= 200 && status < 300) {
			if (req->data(req, p, n, req->ctx) == 0)
				return n;
			req->aborted = true;
			return 0;
		}
	}
	if (kai_buf_add(&req->body, p, n) != 0) {
		req->toobig = true;
		return 0;
	}
	return n;
}

static void
req_headers(struct kube_req *req, const char *method, const char *path)
{
	struct curl_slist *h = NULL;
	const char *patch =
	    "Content-Type: application/strategic-merge-patch+json";

	h = curl_slist_append(h, "Accept: application/json");
	kube_token_refresh(req->kube);
	if (req->kube->auth_hdr != NULL)
		h = curl_slist_append(h, req->kube->auth_hdr);
	/*
	 * A PATCH body is a strategic merge patch (lists of objects with a
	 * merge key, such as a pod's conditions, merge item by item); but
	 * custom resources (KAI's PodGroups and Queues, under /apis/: kaid
	 * patches no built-in object there) take only a JSON merge patch.
	 */
	if (strncmp(path, "/apis/", 6) == 0)
		patch = "Content-Type: application/merge-patch+json";
	if (req->post != NULL)
		h = curl_slist_append(h, strcmp(method, "PATCH") == 0 ? patch :
		    "Content-Type: application/json");
	KAI_ASSERT(h != NULL);
	req->hdrs = h;
}

/* Options that cannot fail but through a bug or out of memory. */
static void
req_opts(struct kube_req *req, const char *method)
{
	CURL *e = req->easy;
	CURLcode rc;

	rc = curl_easy_setopt(e, CURLOPT_URL, req->url);
	rc |= curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)(void *)req);
	rc |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	rc |= curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
	rc |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->errbuf);
	rc |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->hdrs);
	rc |= curl_easy_setopt(e, CURLOPT_USERAGENT, "kaid/" PACKAGE_VERSION);
	rc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	if (req->post != NULL) {
		rc |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->post);
		rc |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE,
		    (long)strlen(req->post));
	}
	if (strcmp(method, req->post != NULL ? "POST" : "GET") != 0)
		rc |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	rc |= tls_opts(e, &req->kube->cfg); /* probed in kai_kube_new */
	KAI_ASSERT(rc == CURLE_OK);
	/* Without nghttp2 this fails and HTTP/1.1 is used: fine. */
	(void)curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
	    (long)CURL_HTTP_VERSION_2TLS);
}

struct kube_req *
kube_req_new(struct kai_kube *kube, const char *method, const char *path,
    char *post, size_t max, kube_done_fn *done, void *ctx)
{
	struct kube_req *req = kai_xcalloc(1, sizeof(*req));

	req->kube = kube;
	req->post = post;
	req->done = done;
	req->ctx = ctx;
	kai_buf_init(&req->body, max);
	req->url = kai_xasprintf("%s%s", kube->cfg.server, path);
	req->easy = curl_easy_init();
	KAI_ASSERT(req->easy != NULL);
	req_headers(req, method, path);
	req_opts(req, method);
	return req;
}

void
kube_req_stream(struct kube_req *req, kube_data_fn *fn)
{
	req->data = fn;
	/* Error bodies of a stream are Status objects: small. */
	req->body.max = KUBE_REPLY_MAX;
}

void
kube_req_start(struct kube_req *req, int64_t timeout_ms)
{
	long total = timeout_ms > 0 ? (long)timeout_ms : 0;
	long conn = CONNECT_TIMEOUT_MS;
	CURLcode rc;

	if (total > 0 && total < conn)
		conn = total;
	rc = curl_easy_setopt(req->easy, CURLOPT_TIMEOUT_MS, total);
	rc |= curl_easy_setopt(req->easy, CURLOPT_CONNECTTIMEOUT_MS, conn);
	if (req->data == NULL)
		rc |= curl_easy_setopt(req->easy, CURLOPT_ACCEPT_ENCODING, "");
	KAI_ASSERT(rc == CURLE_OK);
	if (req->kube->in_curl > 0) {
		req->queued = true;
		link_req_tail(&req->kube->queued, req);
		return;
	}
	add_req(req);
}

void
kube_req_cancel(struct kube_req *req)
{
	struct kai_kube *kube = req->kube;

	if (req->queued) {
		unlink_req(&kube->queued, req);
	} else {
		KAI_ASSERT(kube->in_curl == 0);
		(void)curl_multi_remove_handle(kube->multi, req->easy);
		unlink_req(&kube->reqs, req);
	}
	req_free(req);
}

/* curl's messages start with a capital; ours do not. */
static void
lower_first(char *s)
{
	if (isupper((unsigned char)s[0]) && islower((unsigned char)s[1]))
		s[0] = (char)tolower((unsigned char)s[0]);
}

static int
http_code(long status)
{
	switch (status) {
	case 400:	/* the request itself is wrong: asking again cannot help */
	case 413:
	case 422:
		return KAI_EINVAL;
	case 403:
		return KAI_EPERM;
	case 404:
		return KAI_ENOENT;
	case 409:
		return KAI_EEXIST;
	default:
		return KAI_EKUBE;
	}
}

int
kube_req_check(const struct kube_req *req, struct kai_err *err, const char *fmt,
    ...)
{
	char what[128], msg[KAI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (req->toobig)
		return kai_err_set(err, KAI_EKUBE,
		    "%s: reply larger than %zu bytes", what, req->body.max);
	if (req->result != CURLE_OK) {
		(void)snprintf(msg, sizeof(msg), "%s",
		    req->errbuf[0] != '\0' ? req->errbuf
					   : curl_easy_strerror(req->result));
		lower_first(msg);
		return kai_err_set(err,
		    req->result == CURLE_OPERATION_TIMEDOUT ? KAI_ETIMEDOUT
							    : KAI_EKUBE,
		    "%s: %s", what, msg);
	}
	if (req->status >= 200 && req->status < 300)
		return 0;
	kube_status_message(req->body.data, req->body.len, msg, sizeof(msg));
	return kai_err_set(err, http_code(req->status), "%s: HTTP %ld: %s",
	    what, req->status, msg[0] != '\0' ? msg : "no message");
}

char *
kube_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = kai_xmalloc(strlen(s) * 3 + 1), *p = out;

	for (; *s != '\0'; s++) {
		if (isalnum((unsigned char)*s) || strchr("-._~", *s) != NULL) {
			*p++ = *s;
			continue;
		}
		*p++ = '%';
		*p++ = hex[(unsigned char)*s >> 4];
		*p++ = hex[(unsigned char)*s & 0xf];
	}
	*p = '\0';
	return out;
}

/* Sets up a throw-away handle once, so requests cannot fail later. */
static int
probe(const struct kai_kube_config *cfg, struct kai_err *err)
{
	CURL *e = curl_easy_init();
	CURLcode rc;

	if (e == NULL)
		return kai_err_set(err, KAI_EKUBE,
		    "could not create a libcurl handle");
	rc = tls_opts(e, cfg);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_cleanup(e);
	if (rc != CURLE_OK)
		return kai_err_set(err, KAI_EKUBE,
		    "libcurl could not take the TLS settings: %s",
		    curl_easy_strerror(rc));
	return 0;
}

static int
check_server(const char *server, struct kai_err *err)
{
	if (server == NULL || *server == '\0')
		return kai_err_set(err, KAI_ECONFIG,
		    "kubernetes client: no server URL");
	if (strncmp(server, "https://", 8) != 0 &&
	    strncmp(server, "http://", 7) != 0)
		return kai_err_set(err, KAI_ECONFIG,
		    "kubernetes client: server \"%s\" is not an http(s) URL",
		    server);
	return 0;
}

int
kai_kube_new(struct kai_loop *loop, const struct kai_kube_config *cfg,
    const char *namespace, int64_t timeout_ms, struct kai_kube **out,
    struct kai_err *err)
{
	struct kai_kube *kube;
	CURLMcode mc;
	size_t n;
	int r;

	*out = NULL;
	if ((r = check_server(cfg->server, err)) != 0)
		return r;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return kai_err_set(err, KAI_EKUBE,
		    "could not initialise libcurl");
	if ((r = probe(cfg, err)) != 0) {
		curl_global_cleanup();
		return r;
	}
	kube = kai_xcalloc(1, sizeof(*kube));
	kube->loop = loop;
	kube_config_copy(&kube->cfg, cfg);
	n = strlen(kube->cfg.server);
	while (n > 0 && kube->cfg.server[n - 1] == '/')
		kube->cfg.server[--n] = '\0';
	if (namespace == NULL)
	namespace = cfg->namespace != NULL ? cfg->namespace : "default";
	kube->ns = kai_xstrdup(namespace);
	kube->timeout_ms = timeout_ms;
	kube_token_init(kube);
	kube->multi = curl_multi_init();
	KAI_ASSERT(kube->multi != NULL);
	mc = curl_multi_setopt(kube->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	mc |= curl_multi_setopt(kube->multi, CURLMOPT_SOCKETDATA, kube);
	mc |= curl_multi_setopt(kube->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	mc |= curl_multi_setopt(kube->multi, CURLMOPT_TIMERDATA, kube);
	KAI_ASSERT(mc == CURLM_OK);
	*out = kube;
	return 0;
}

void
kai_kube_free(struct kai_kube *kube)
{
	struct kube_req *req, *next;

	if (kube == NULL)
		return;
	kube_watch_free(kube->wnodes);
	kube_watch_free(kube->wpods);
	kube_watch_free(kube->wqueues);
	kube_watch_free(kube->wpgs);
	kube_event_fini(kube);
	kube_calls_fini(kube);
	for (req = kube->queued; req != NULL; req = next) {
		next = req->next;
		kube_req_cancel(req);
	}
	for (req = kube->reqs; req != NULL; req = next) {
		next = req->next;
		kube_req_cancel(req);
	}
	/* Closing cached connections calls sock_cb, which needs kube. */
	(void)curl_multi_cleanup(kube->multi);
	if (kube->timer != 0)
		kai_loop_timer_del(kube->loop, kube->timer);
	kai_kube_config_fini(&kube->cfg);
	if (kube->auth_hdr != NULL)
		kai_free_secret(kube->auth_hdr, strlen(kube->auth_hdr));
	free(kube->ns);
	free(kube->user_label);
	free(kube);
	curl_global_cleanup();
}

void
kai_kube_set_user_label(struct kai_kube *kube, const char *label)
{
	free(kube->user_label);
	kube->user_label = label != NULL && label[0] != '\0' ?
	    kai_xstrdup(label) : NULL;
}

size_t
kai_kube_pending(const struct kai_kube *kube)
{
	return kube->ncalls;
}

uint64_t
kai_kube_requests(const struct kai_kube *kube)
{
	return kube->nrequests;
}

uint64_t
kai_kube_errors(const struct kai_kube *kube, enum kai_kube_verb verb)
{
	return (unsigned)verb < KAI_KUBE_NVERBS ? kube->nerrors[verb] : 0;
}
