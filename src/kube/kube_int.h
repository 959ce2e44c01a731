/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_int.h: what the files of src/kube share.  Not for other modules
 * (CURL and json_object never leave kube); the unit tests include it to
 * reach the parsers.
 *
 * Ownership: a struct kube_req belongs to the HTTP layer (kube_http.c)
 * from kube_req_new() until its done callback has returned, when it is
 * freed; kube_req_cancel() frees it without calling back.  Its ctx is
 * freed with ctx_free (if set) in both cases.
 */
#ifndef KAI_KUBE_KUBE_INT_H
#define KAI_KUBE_KUBE_INT_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdbool.h>

#include "base/buf.h"
#include "kube/kube.h"

#define KUBE_LIST_MAX   (64u << 20) /* one list page, bytes */
#define KUBE_REPLY_MAX  (1u << 20)  /* a create/bind/delete reply */
#define KUBE_EVENT_MAX  (4u << 20)  /* one watch event (one line) */
#define KUBE_JSON_DEPTH 64          /* nesting accepted from the server */
#define KUBE_CALLS_MAX  64          /* pod calls sent at once (kube_pod.c) */

struct kube_call;
struct kube_event;
struct kube_req;
struct kube_watch;

/* A JSON object read through the kai_kube_obj_* accessors (kube.h). */
struct kai_kube_obj {
	struct json_object *root;
};

/* Called once when a request finished (any way but a cancel). */
typedef void kube_done_fn(struct kube_req *req, void *ctx);
/*
 * Streaming requests: called with each piece of a 2xx body; returns 0 to
 * go on or -1 to abort the transfer (done then sees req->aborted).  Runs
 * inside libcurl: it may start requests (they are queued) but not cancel.
 */
typedef int
kube_data_fn(struct kube_req *req, const char *p, size_t n, void *ctx);

struct kube_req {
	struct kai_kube *kube;
	CURL *easy;
	struct curl_slist *hdrs;
	char *url;
	char *post;          /* request body (JSON) or NULL */
	struct kai_buf body; /* reply, or a streaming request's error body */
	kube_done_fn *done;
	kube_data_fn *data; /* NULL = buffer the whole reply */
	void *ctx;
	void (*ctx_free)(void *);
	CURLcode result; /* valid in done */
	long status;     /* HTTP status, 0 if none; valid in done */
	bool toobig;     /* reply passed body.max */
	bool aborted;    /* data returned -1 */
	bool queued;     /* waits in kube->queued for curl to be free */
	char errbuf[CURL_ERROR_SIZE];
	struct kube_req *prev, *next;
};

struct kai_kube {
	struct kai_loop *loop;
	struct kai_kube_config cfg; /* deep copy */
	char *ns;                   /* namespace of kaid's pods */
	int64_t timeout_ms;         /* per non-watch call */
	char *auth_hdr;             /* "Authorization: Bearer ..." or NULL */
	char *user_label;           /* label read into kai_pod.user_label */
	struct kube_tokstat {       /* cfg.token_file as last read */
		int64_t checked_ms; /* last stat, at most once a second */
		int64_t mtime_ns;
		uint64_t ino, size;
	} tok;
	CURLM *multi;
	uint64_t timer;          /* loop timer for curl, 0 = none */
	int in_curl;             /* inside curl_multi_socket_action() */
	struct kube_req *reqs;   /* added to the multi handle */
	struct kube_req *queued; /* started from inside libcurl */
	size_t ncalls;           /* create/bind/delete in flight or queued */
	size_t nactive;          /* of which sent, at most KUBE_CALLS_MAX */
	struct kube_call *callq[2];   /* waiting: [0] bind/delete, [1] create */
	struct kube_call **callq_tail[2];
	uint64_t nrequests;      /* finished, for tests and debugging */
	uint64_t nconnects;      /* connections those had to open */
	uint64_t nerrors[KAI_KUBE_NVERBS]; /* failed calls (metrics) */
	struct kube_watch *wnodes;
	struct kube_watch *wpods;
	struct kube_watch *wqueues;
	struct kube_watch *wpgs;	/* KAI PodGroups */
	struct kube_event *evq;       /* events waiting for a slot */
	struct kube_event **evq_tail;
	size_t nevq;                  /* waiting */
	size_t nevents;               /* in flight */
	int64_t ev_last_ns;           /* the last event name's suffix */
	int64_t ev_warn_ms;           /* loop time of the last warning */
	uint64_t ev_quiet;            /* failures since, not warned */
	uint64_t ev_posted, ev_failed, ev_dropped;
	char *ev_instance;            /* reportingInstance */
};

/* kube_config.c */
/* Deep copy of src into dst. */
/* A token file's content without trailing white space; KAI_ECONFIG. */
int kube_token_read(const char *path, char **out, struct kai_err *err)
    KAI_MUST_CHECK;
/*
 * kube_token_init() sets the Authorization header from cfg.token;
 * kube_token_refresh(), called before each request, reads cfg.token_file
 * again once it changed (kube_token.c).
 */
void kube_token_init(struct kai_kube *kube);
void kube_token_refresh(struct kai_kube *kube);
void kube_config_copy(struct kai_kube_config *dst,
    const struct kai_kube_config *src);

/* kube_http.c */
/*
 * A request for method ("GET", "POST", "DELETE") on path (with its query,
 * already escaped) of the configured server.  Takes ownership of post.
 * max bounds the buffered reply.
 */
struct kube_req *kube_req_new(struct kai_kube *kube, const char *method,
    const char *path, char *post, size_t max, kube_done_fn *done, void *ctx);
/* Makes req a stream: 2xx bodies go to fn piecewise, not to req->body. */
void kube_req_stream(struct kube_req *req, kube_data_fn *fn);
/* Hands req to libcurl with a total time limit (0 = none). */
void kube_req_start(struct kube_req *req, int64_t timeout_ms);
/* Aborts req without calling done; not from inside a data callback. */
void kube_req_cancel(struct kube_req *req);
/*
 * 0 for a 2xx reply, else the KAI_E* code with "<what>: <reason>" in err,
 * where what is formatted from fmt: curl failures (timeout ->
 * KAI_ETIMEDOUT), a too large reply, and HTTP errors as
 * "HTTP 422: <Status message>" (403 -> EPERM, 404 -> ENOENT,
 * 409 -> EEXIST, else EKUBE).
 */
int kube_req_check(const struct kube_req *req, struct kai_err *err,
    const char *fmt, ...) KAI_PRINTF(3, 4);
/* Percent-encodes s for a URL path segment or query value; caller owns. */
char *kube_escape(const char *s);

/* kube_pod.c */
/* Answers the calls still waiting with KAI_EAGAIN ("...: cancelled"). */
void kube_calls_fini(struct kai_kube *kube);

/* kube_event.c */
/* Frees the events still waiting (in-flight ones are cancelled as reqs). */
void kube_event_fini(struct kai_kube *kube);
/* Sends waiting events as far as their cap allows (see kube_event.c). */
void kube_event_pump(struct kai_kube *kube);

/* kube_object.c: an object from JSON text (tests), and its free. */
struct kai_kube_obj *kube_obj_parse(const char *json, struct kai_err *err);
void kube_obj_free(struct kai_kube_obj *o);

/* kube_json.c */
/* Parses JSON text with the depth limit; NULL and err on failure. */
struct json_object *
kube_json_parse(const char *s, size_t n, struct kai_err *err);
/* The same for a pod list or watch event, without the containers' env. */
struct json_object *kube_json_parse_lean(const char *s, size_t n,
    struct kai_err *err);
int kube_node_from_json(struct json_object *o, struct kai_node *node,
    struct kai_err *err) KAI_MUST_CHECK;
int kube_pod_from_json(struct json_object *o, struct kai_pod *pod,
    struct kai_err *err) KAI_MUST_CHECK;
/* p->user_label: o's label named label ("" when it has none). */
void kube_pod_user_label(struct json_object *o, const char *label,
    struct kai_pod *p);
/* Text versions of the above, for tests. */
int kube_node_parse(const char *json, struct kai_node *node,
    struct kai_err *err) KAI_MUST_CHECK;
int kube_pod_parse(const char *json, struct kai_pod *pod,
    struct kai_err *err) KAI_MUST_CHECK;
/* Free the strings of a parsed node/pod (not the struct); idempotent. */
int kube_queue_from_json(struct json_object *o, struct kai_kube_queue *q,
    struct kai_err *err);
void kube_node_fini(struct kai_node *node);
void kube_pod_fini(struct kai_pod *pod);
/* The "message" of a Status reply, else the body's first line, in out. */
void kube_status_message(const char *body, size_t n, char *out, size_t outsz);
/* metadata.resourceVersion of o, or NULL (borrowed from o). */
const char *kube_json_rv(struct json_object *o);

/* kube_qty.c */
/* A resource quantity ("500m", "2", "1.5") in thousandths, rounded up. */
int kube_qty_milli(const char *s, int64_t *milli,
    struct kai_err *err) KAI_MUST_CHECK;
/* A quantity of bytes ("256Gi", "1G", "129941272Ki"), rounded up. */
int kube_qty_bytes(const char *s, uint64_t *bytes,
    struct kai_err *err) KAI_MUST_CHECK;

/* kube_watch.c */
void kube_watch_free(struct kube_watch *w);
/*
 * Test seam: a pod watch with no client whose stream is fed by hand.
 * feed returns what libcurl would get (0 go on, -1 abort); end says why
 * the stream was ended (0 none, 1 relist, 2 error).
 */
struct kube_watch *kube_watch_test_new(kai_kube_pod_fn *fn, void *ctx);
/* The same for a node watch. */
struct kube_watch *kube_watch_test_new_nodes(kai_kube_node_fn *fn, void *ctx);
struct kube_watch *kube_watch_test_new_queues(kai_kube_queue_fn *fn,
    void *ctx);
struct kube_watch *kube_watch_test_new_objects(kai_kube_objev_fn *fn,
    void *ctx);
int kube_watch_test_feed(struct kube_watch *w, const char *p, size_t n);
int kube_watch_test_end(const struct kube_watch *w);
/* One list page (JSON text) as if a list request returned it. */
int kube_watch_test_list(struct kube_watch *w, const char *json,
    struct kai_err *err);
const char *kube_watch_test_rv(const struct kube_watch *w);

#endif /* KAI_KUBE_KUBE_INT_H */
