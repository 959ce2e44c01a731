/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_watch.c: list + watch of nodes, pods, KAI Queues and KAI
 * PodGroups, kept going for ever.
 *
 * A watch is a small state machine:
 *
 *	list (pages of 500)  --all pages-->  watch from the list's RV
 *	   ^    RESET, ADDED*, SYNCED           |  ADDED/MODIFIED/DELETED,
 *	   |                                    |  BOOKMARK: remember the RV
 *	   +--- ERROR 410 / HTTP 410 ----------+
 *	                                        |  stream ends: watch again
 *	                                        v  from the last RV
 *
 * A failure (connection refused, TLS, HTTP 5xx, a malformed stream)
 * retries after a backoff that doubles from 1 s to 30 s and resets once
 * something works; the first failure and then one per minute are logged
 * as warnings, the rest at debug, and the recovery at info.  A relist
 * starts with RESET, so whatever was missed while the watch was down is
 * repaired by the full list that follows (kube.h).
 *
 * The stream is newline-delimited JSON that may arrive in pieces of any
 * size: pieces are gathered in `line` (at most KUBE_EVENT_MAX bytes, so a
 * hostile server cannot make us buffer without end) and each complete
 * line is one event.  An object that does not convert (a wrong type, a
 * bad quantity) is skipped with one warning per object; the stream goes
 * on.  A line that is not JSON means the stream cannot be trusted: relist.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "sys/log.h"

#define WATCH_TIMEOUT_S 300   /* server-side end of one watch request */
#define WATCH_SLACK_MS  30000 /* client-side cap beyond that */
#define LIST_PAGE       500
#define LIST_TIMEOUT_MS 120000
#define BACKOFF_MIN_MS  1000
#define BACKOFF_MAX_MS  30000
#define WARN_EVERY_MS   60000
#define WARNED_MAX      128 /* objects remembered as already warned of */

enum watch_end {
	END_NONE,
	END_RELIST, /* ERROR 410 in the stream */
	END_ERROR   /* another ERROR event or a malformed stream */
};

struct kube_watch {
	struct kai_kube *kube;
	bool pods;
	bool queues;      /* KAI Queues (then pods is false) */
	bool objects;     /* any kind, as kai_kube_obj (pods false) */
	const char *noun; /* "node", "pod", "queue": for messages */
	const char *path;
	kai_kube_node_fn *node_fn;
	kai_kube_pod_fn *pod_fn;
	kai_kube_queue_fn *queue_fn;
	kai_kube_objev_fn *obj_fn;
	void *ctx;
	struct kube_req *req; /* the list or watch in flight */
	uint64_t timer;       /* backoff, 0 = none */
	bool need_list;       /* next start is a list */
	bool reset_sent;      /* RESET sent for the list in progress */
	char *rv;             /* last resourceVersion seen */
	char *cont;           /* continue token of the next page */
	struct kai_buf line;  /* incomplete event line */
	enum watch_end end;
	char end_msg[KAI_ERR_MSG_MAX];
	unsigned long nevents;      /* in the current watch request */
	int64_t started;            /* loop ms when it began */
	int64_t backoff;            /* ms, 0 after a success */
	unsigned int quick_relists; /* 410s right after a watch began */
	unsigned int nfail;
	int64_t last_warn;
	bool warned; /* a failure was logged at warn */
	bool absent_told; /* objects: "cannot list them" was logged */
	char *warned_of[WARNED_MAX];
	size_t warned_next;
};

static void watch_start(struct kube_watch *w);

/* Warns about a bad object once; repeats go to debug. */
static void
warn_object(struct kube_watch *w, struct json_object *o,
    const struct kai_err *err)
{
	struct json_object *meta, *v;
	const char *ns = "", *name = "?";
	char key[320];
	size_t i;

	if (json_object_object_get_ex(o, "metadata", &meta)) {
		if (json_object_object_get_ex(meta, "namespace", &v) &&
		    json_object_is_type(v, json_type_string))
			ns = json_object_get_string(v);
		if (json_object_object_get_ex(meta, "name", &v) &&
		    json_object_is_type(v, json_type_string))
			name = json_object_get_string(v);
	}
	(void)snprintf(key, sizeof(key), "%s/%s", ns, name);
	for (i = 0; i < WARNED_MAX; i++) {
		if (w->warned_of[i] != NULL &&
		    strcmp(w->warned_of[i], key) == 0) {
			kai_log_debug("kubernetes %s watch: ignoring %s",
			    w->noun, kai_err_msg(err));
			return;
		}
	}
	kai_log_warn("kubernetes %s watch: ignoring %s", w->noun,
	    kai_err_msg(err));
	free(w->warned_of[w->warned_next]);
	w->warned_of[w->warned_next] = kai_xstrdup(key);
	w->warned_next = (w->warned_next + 1) % WARNED_MAX;
}

/* Converts o (NULL for RESET/SYNCED) and hands it to the caller. */
static void
emit(struct kube_watch *w, enum kai_kube_event ev, struct json_object *o)
{
	struct kai_node node;
	struct kai_pod pod;
	struct kai_kube_queue q;
	struct kai_err err;

	kai_err_clear(&err);
	if (w->objects) {
		struct kai_kube_obj ko = {o};

		w->obj_fn(ev, o != NULL ? &ko : NULL, w->ctx);
		return;
	}
	if (w->queues) {
		if (o == NULL) {
			w->queue_fn(ev, NULL, w->ctx);
		} else if (kube_queue_from_json(o, &q, &err) != 0) {
			warn_object(w, o, &err);
		} else {
			w->queue_fn(ev, &q, w->ctx);
			kai_kube_queue_fini(&q);
		}
		return;
	}
	if (!w->pods) {
		if (o == NULL) {
			w->node_fn(ev, NULL, w->ctx);
		} else if (kube_node_from_json(o, &node, &err) != 0) {
			warn_object(w, o, &err);
		} else {
			w->node_fn(ev, &node, w->ctx);
			kube_node_fini(&node);
		}
		return;
	}
	if (o == NULL) {
		w->pod_fn(ev, NULL, w->ctx);
	} else if (kube_pod_from_json(o, &pod, &err) != 0) {
		warn_object(w, o, &err);
	} else {
		if (w->kube != NULL && w->kube->user_label != NULL)
			kube_pod_user_label(o, w->kube->user_label, &pod);
		w->pod_fn(ev, &pod, w->ctx);
		kube_pod_fini(&pod);
	}
}

static void
set_rv(struct kube_watch *w, const char *rv)
{
	if (rv == NULL || *rv == '\0')
		return;
	free(w->rv);
	w->rv = kai_xstrdup(rv);
}

static void
on_retry(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kube_watch *w = ctx;

	(void)loop;
	(void)id;
	w->timer = 0;
	watch_start(w);
}

/* Something failed: log (rate-limited) and try again after the backoff. */
static void
watch_fail(struct kube_watch *w, const char *why)
{
	int64_t now = kai_loop_now_ms(w->kube->loop);

	w->kube->nerrors[KAI_KUBE_WATCH]++;
	if (w->backoff == 0)
		w->backoff = BACKOFF_MIN_MS;
	else if ((w->backoff *= 2) > BACKOFF_MAX_MS)
		w->backoff = BACKOFF_MAX_MS;
	if (++w->nfail == 1 || now - w->last_warn >= WARN_EVERY_MS) {
		kai_log_warn("kubernetes %s watch: %s (retrying in %lld s)",
		    w->noun, why, (long long)(w->backoff / 1000));
		w->last_warn = now;
		w->warned = true;
	} else {
		kai_log_debug("kubernetes %s watch: %s (retrying in %lld ms)",
		    w->noun, why, (long long)w->backoff);
	}
	w->timer = kai_loop_timer_add(w->kube->loop, w->backoff, on_retry, w);
}

static void
watch_ok(struct kube_watch *w)
{
	if (w->warned)
		kai_log_info("kubernetes %s watch: working again", w->noun);
	w->warned = false;
	w->nfail = 0;
	w->backoff = 0;
}

static void list_start(struct kube_watch *w);

/* One page of the list: RESET before the first, SYNCED after the last. */
static int
list_page(struct kube_watch *w, struct json_object *o, struct kai_err *err)
{
	struct json_object *items, *meta, *v;
	const char *cont = NULL, *rv;
	size_t i;

	if (!json_object_object_get_ex(o, "items", &items) ||
	    !(json_object_is_type(items, json_type_array) ||
		json_object_is_type(items, json_type_null)))
		return kai_err_set(err, KAI_EKUBE, "list has no items array");
	rv = kube_json_rv(o);
	if (json_object_object_get_ex(o, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "continue", &v) &&
	    json_object_is_type(v, json_type_string))
		cont = json_object_get_string(v);
	if ((cont == NULL || *cont == '\0') && (rv == NULL || *rv == '\0'))
		return kai_err_set(err, KAI_EKUBE,
		    "list has no metadata.resourceVersion");
	if (!w->reset_sent) {
		emit(w, KAI_KUBE_RESET, NULL);
		w->reset_sent = true;
	}
	for (i = 0; json_object_is_type(items, json_type_array) &&
	     i < json_object_array_length(items);
	     i++)
		emit(w, KAI_KUBE_ADDED, json_object_array_get_idx(items, i));
	free(w->cont);
	w->cont = cont != NULL && *cont != '\0' ? kai_xstrdup(cont) : NULL;
	if (w->cont == NULL) {
		set_rv(w, rv);
		w->reset_sent = false;
		w->need_list = false;
		emit(w, KAI_KUBE_SYNCED, NULL);
	}
	return 0;
}

/*
 * The objects of an optional kind (PodGroups: only where KAI's CRD is)
 * cannot be listed: 404 (no such resource) or 403 (no right to).  That
 * is a cluster's lasting state, not a failure: said once at info, the
 * list tried again every BACKOFF_MAX_MS quietly, and RESET tells the
 * caller that it has no list (it reads the objects otherwise).
 */
static void
list_absent(struct kube_watch *w, long status)
{
	if (!w->absent_told)
		kai_log_info("kubernetes %s watch: cannot list them (HTTP "
		    "%ld); trying again every %d s", w->noun, status,
		    BACKOFF_MAX_MS / 1000);
	w->absent_told = true;
	KAI_FREE(w->cont);
	w->reset_sent = false;
	emit(w, KAI_KUBE_RESET, NULL);
	w->timer = kai_loop_timer_add(w->kube->loop, BACKOFF_MAX_MS,
	    on_retry, w);
}

static void
list_done(struct kube_req *req, void *ctx)
{
	struct kube_watch *w = ctx;
	struct json_object *o;
	struct kai_err err;

	w->req = NULL;
	if (w->objects && (req->status == 404 || req->status == 403)) {
		list_absent(w, req->status);
		return;
	}
	if (w->objects && req->status == 200 && w->absent_told) {
		kai_log_info("kubernetes %s watch: listing them", w->noun);
		w->absent_told = false;
	}
	if (req->status == 410 && w->cont != NULL) {
		/* The continue token expired: start the list over. */
		kai_log_debug("kubernetes %s watch: list page expired",
		    w->noun);
		KAI_FREE(w->cont);
		w->reset_sent = false;
		list_start(w);
		return;
	}
	if (kube_req_check(req, &err, "could not list %ss", w->noun) != 0)
		goto fail;
	if ((o = kube_json_parse_lean(req->body.data, req->body.len,
	    &err)) == NULL)
		goto fail_list;
	if (list_page(w, o, &err) != 0) {
		json_object_put(o);
		goto fail_list;
	}
	json_object_put(o);
	if (w->cont != NULL) {
		list_start(w);
		return;
	}
	watch_ok(w);
	watch_start(w);
	return;
fail_list:
	(void)kai_err_prefix(&err, "could not list %ss", w->noun);
fail:
	KAI_FREE(w->cont);
	w->reset_sent = false;
	watch_fail(w, kai_err_msg(&err));
}

static void
list_start(struct kube_watch *w)
{
	char *path, *cont;

	w->need_list = true;
	if (w->cont != NULL) {
		cont = kube_escape(w->cont);
		path = kai_xasprintf("%s?limit=%d&continue=%s", w->path,
		    LIST_PAGE, cont);
		free(cont);
	} else {
		path = kai_xasprintf("%s?limit=%d", w->path, LIST_PAGE);
	}
	w->req = kube_req_new(w->kube, "GET", path, NULL, KUBE_LIST_MAX,
	    list_done, w);
	free(path);
	kube_req_start(w->req, LIST_TIMEOUT_MS);
}

/* Ends the stream with why; returns -1 for `return stream_end(...)`. */
static int
stream_end(struct kube_watch *w, enum watch_end end, const char *why)
{
	w->end = end;
	(void)snprintf(w->end_msg, sizeof(w->end_msg), "%s", why);
	return -1;
}

static int
watch_error_event(struct kube_watch *w, struct json_object *obj)
{
	struct json_object *v;
	const char *msg = "";
	char why[KAI_ERR_MSG_MAX];
	int64_t code = 0;

	if (json_object_object_get_ex(obj, "code", &v) &&
	    json_object_is_type(v, json_type_int))
		code = json_object_get_int64(v);
	if (json_object_object_get_ex(obj, "message", &v) &&
	    json_object_is_type(v, json_type_string))
		msg = json_object_get_string(v);
	if (code == 410)
		return stream_end(w, END_RELIST, msg);
	(void)snprintf(why, sizeof(why), "watch error %lld: %s",
	    (long long)code, msg);
	return stream_end(w, END_ERROR, why);
}

/* The event for an object change type; false for others. */
static bool
change_type(const char *type, enum kai_kube_event *ev)
{
	static const struct {
		const char *type;
		enum kai_kube_event ev;
	} types[] = {
	    {"ADDED", KAI_KUBE_ADDED},
	    {"MODIFIED", KAI_KUBE_MODIFIED},
	    {"DELETED", KAI_KUBE_DELETED},
	};
	size_t i;

	for (i = 0; i < KAI_NELEM(types); i++) {
		if (strcmp(type, types[i].type) == 0) {
			*ev = types[i].ev;
			return true;
		}
	}
	return false;
}

/* One event line; -1 ends the stream (w->end says why). */
static int
watch_line(struct kube_watch *w, const char *p, size_t n)
{
	struct json_object *o, *t, *obj;
	enum kai_kube_event ev;
	struct kai_err err;
	const char *type;
	size_t i;
	int r = 0;

	i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
		i++;
	if (i == n)
		return 0;
	if ((o = kube_json_parse_lean(p, n, &err)) == NULL)
		return stream_end(w, END_ERROR, kai_err_msg(&err));
	if (!json_object_object_get_ex(o, "type", &t) ||
	    !json_object_is_type(t, json_type_string) ||
	    !json_object_object_get_ex(o, "object", &obj) ||
	    !json_object_is_type(obj, json_type_object)) {
		json_object_put(o);
		return stream_end(w, END_ERROR,
		    "watch event without type or object");
	}
	type = json_object_get_string(t);
	w->nevents++;
	if (strcmp(type, "ERROR") == 0) {
		r = watch_error_event(w, obj);
	} else if (strcmp(type, "BOOKMARK") == 0) {
		set_rv(w, kube_json_rv(obj));
	} else if (change_type(type, &ev)) {
		emit(w, ev, obj);
		set_rv(w, kube_json_rv(obj));
	} else {
		kai_log_debug("kubernetes %s watch: ignoring a \"%s\" event",
		    w->noun, type);
	}
	json_object_put(o);
	return r;
}

/* A piece of the stream: split into lines, bounded. */
static int
watch_data(struct kube_req *req, const char *p, size_t n, void *ctx)
{
	struct kube_watch *w = ctx;
	const char *nl;
	size_t take;
	int r;

	(void)req;
	while (n > 0) {
		nl = memchr(p, '\n', n);
		take = nl != NULL ? (size_t)(nl - p) + 1 : n;
		if (nl != NULL && w->line.len == 0) {
			r = watch_line(w, p, take - 1);
		} else if (kai_buf_add(&w->line, p, take) != 0) {
			r = stream_end(w, END_ERROR, "watch event too large");
		} else if (nl != NULL) {
			r = watch_line(w, w->line.data, w->line.len - 1);
			kai_buf_reset(&w->line);
		} else {
			r = 0;
		}
		if (r != 0)
			return -1;
		p += take;
		n -= take;
	}
	return 0;
}

/*
 * 410: relist at once, unless watches keep expiring as soon as they
 * start (a server whose watch window lags its lists), which would spin.
 */
static void
watch_expired(struct kube_watch *w, int64_t ran)
{
	if (ran >= BACKOFF_MIN_MS)
		w->quick_relists = 0;
	if (ran < BACKOFF_MIN_MS && ++w->quick_relists > 1) {
		w->need_list = true;
		watch_fail(w, "the watch expired again at once");
		return;
	}
	kai_log_debug("kubernetes %s watch: expired, relisting", w->noun);
	list_start(w);
}

static void
watch_done(struct kube_req *req, void *ctx)
{
	struct kube_watch *w = ctx;
	struct kai_err err;
	int64_t ran = kai_loop_now_ms(w->kube->loop) - w->started;
	int r;

	w->req = NULL;
	/* A last event without its newline still counts. */
	if (w->end == END_NONE && w->line.len > 0 && !req->aborted)
		(void)watch_line(w, w->line.data, w->line.len);
	kai_buf_reset(&w->line);
	r = kube_req_check(req, &err, "could not watch %ss", w->noun);
	if (w->end == END_RELIST || req->status == 410) {
		watch_expired(w, ran);
	} else if (w->end == END_ERROR) {
		w->need_list = true;
		watch_fail(w, w->end_msg);
	} else if (req->result == CURLE_OPERATION_TIMEDOUT && w->nevents > 0) {
		watch_start(w); /* our cap on a quiet stream */
	} else if (r != 0) {
		watch_fail(w, kai_err_msg(&err));
	} else if (w->nevents == 0 && ran < BACKOFF_MIN_MS) {
		watch_fail(w, "the watch ended at once");
	} else {
		w->quick_relists = 0;
		watch_ok(w);
		watch_start(w);
	}
}

static void
stream_start(struct kube_watch *w)
{
	char *path, *rv = kube_escape(w->rv);

	path = kai_xasprintf("%s?watch=1&resourceVersion=%s"
			     "&allowWatchBookmarks=true&timeoutSeconds=%d",
	    w->path, rv, WATCH_TIMEOUT_S);
	free(rv);
	w->end = END_NONE;
	w->nevents = 0;
	w->started = kai_loop_now_ms(w->kube->loop);
	kai_buf_reset(&w->line);
	w->req = kube_req_new(w->kube, "GET", path, NULL, KUBE_REPLY_MAX,
	    watch_done, w);
	free(path);
	kube_req_stream(w->req, watch_data);
	kube_req_start(w->req, WATCH_TIMEOUT_S * 1000 + WATCH_SLACK_MS);
}

/* The next step: a (re)list, or a watch from the last RV. */
static void
watch_start(struct kube_watch *w)
{
	if (w->need_list || w->rv == NULL)
		list_start(w);
	else
		stream_start(w);
}

static struct kube_watch *
watch_new(struct kai_kube *kube, bool pods, void *ctx)
{
	struct kube_watch *w = kai_xcalloc(1, sizeof(*w));

	w->kube = kube;
	w->pods = pods;
	w->noun = pods ? "pod" : "node";
	w->path = pods ? "/api/v1/pods" : "/api/v1/nodes";
	w->ctx = ctx;
	w->need_list = true;
	kai_buf_init(&w->line, KUBE_EVENT_MAX);
	return w;
}

void
kai_kube_watch_nodes(struct kai_kube *kube, kai_kube_node_fn *fn, void *ctx)
{
	KAI_ASSERT(kube->wnodes == NULL);
	kube->wnodes = watch_new(kube, false, ctx);
	kube->wnodes->node_fn = fn;
	watch_start(kube->wnodes);
}

void
kai_kube_watch_pods(struct kai_kube *kube, kai_kube_pod_fn *fn, void *ctx)
{
	KAI_ASSERT(kube->wpods == NULL);
	kube->wpods = watch_new(kube, true, ctx);
	kube->wpods->pod_fn = fn;
	watch_start(kube->wpods);
}

void
kai_kube_watch_queues(struct kai_kube *kube, kai_kube_queue_fn *fn,
    void *ctx)
{
	KAI_ASSERT(kube->wqueues == NULL);
	kube->wqueues = watch_new(kube, false, ctx);
	kube->wqueues->queues = true;
	kube->wqueues->noun = "KAI queue";
	kube->wqueues->path = "/apis/scheduling.run.ai/v2/queues";
	kube->wqueues->queue_fn = fn;
	watch_start(kube->wqueues);
}

void
kai_kube_watch_podgroups(struct kai_kube *kube, kai_kube_objev_fn *fn,
    void *ctx)
{
	KAI_ASSERT(kube->wpgs == NULL);
	kube->wpgs = watch_new(kube, false, ctx);
	kube->wpgs->objects = true;
	kube->wpgs->noun = "KAI PodGroup";
	kube->wpgs->path = "/apis/scheduling.run.ai/v2alpha2/podgroups";
	kube->wpgs->obj_fn = fn;
	watch_start(kube->wpgs);
}

void
kube_watch_free(struct kube_watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	if (w->timer != 0)
		kai_loop_timer_del(w->kube->loop, w->timer);
	if (w->req != NULL)
		kube_req_cancel(w->req);
	for (i = 0; i < WARNED_MAX; i++)
		free(w->warned_of[i]);
	free(w->rv);
	free(w->cont);
	kai_buf_fini(&w->line);
	free(w);
}

struct kube_watch *
kube_watch_test_new(kai_kube_pod_fn *fn, void *ctx)
{
	struct kube_watch *w = watch_new(NULL, true, ctx);

	w->pod_fn = fn;
	return w;
}

struct kube_watch *
kube_watch_test_new_nodes(kai_kube_node_fn *fn, void *ctx)
{
	struct kube_watch *w = watch_new(NULL, false, ctx);

	w->node_fn = fn;
	return w;
}

struct kube_watch *
kube_watch_test_new_queues(kai_kube_queue_fn *fn, void *ctx)
{
	struct kube_watch *w = watch_new(NULL, false, ctx);

	w->queues = true;
	w->noun = "KAI queue";
	w->queue_fn = fn;
	return w;
}

struct kube_watch *
kube_watch_test_new_objects(kai_kube_objev_fn *fn, void *ctx)
{
	struct kube_watch *w = watch_new(NULL, false, ctx);

	w->objects = true;
	w->noun = "object";
	w->obj_fn = fn;
	return w;
}

int
kube_watch_test_feed(struct kube_watch *w, const char *p, size_t n)
{
	return watch_data(NULL, p, n, w);
}

int
kube_watch_test_end(const struct kube_watch *w)
{
	return (int)w->end;
}

const char *
kube_watch_test_rv(const struct kube_watch *w)
{
	return w->rv;
}

int
kube_watch_test_list(struct kube_watch *w, const char *json,
    struct kai_err *err)
{
	struct json_object *o;
	int r;

	if ((o = kube_json_parse(json, strlen(json), err)) == NULL)
		return KAI_EKUBE;
	r = list_page(w, o, err);
	json_object_put(o);
	return r;
}
