/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_event.c: core/v1 Events about kaid's pods.
 *
 * An Event is what `kubectl describe pod` prints under "Events:", so kaid
 * posts the ones a scheduler owes its pods: Scheduled when the binding
 * succeeded (the default scheduler's words, "Successfully assigned NS/POD
 * to NODE"), and Preempted / Evicted with the scheduler's reason.  The
 * shape is the one client-go's recorder gives: a unique name POD.<hex
 * nanoseconds>, involvedObject naming the pod (with its uid when known,
 * which kubectl's fieldSelector includes), source.component and
 * reportingComponent "kaid", count 1 and first/lastTimestamp.  kaid does
 * not aggregate repeats (client-go's correlator): its events are one per
 * pod and reason, so there is nothing to fold.
 *
 * Events are best-effort.  They share the client's curl multi handle and
 * connections, but at most EVENTS_INFLIGHT are in flight (none while pod
 * calls wait for a slot) and at most EVENTS_QUEUED wait: a burst of five
 * thousand bindings must not be slowed by its own events, and a dead
 * events endpoint must not grow kaid's memory.  A failed or dropped event
 * is logged as a warning once every EVENTS_WARN_MS, at debug level in
 * between; nothing waits for an event and nothing fails because of one.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "sys/log.h"

#define EVENTS_INFLIGHT 4
#define EVENTS_QUEUED	16384
#define EVENTS_WARN_MS	(5 * 60 * 1000)
#define EVENT_MSG_MAX	1024 /* the API server's note length limit */
#define EVENT_NAME_MAX	253  /* a DNS subdomain */
#define INSTANCE_MAX	128  /* reportingInstance */

struct kube_event {
	struct kai_kube *kube;
	char *body;		/* the Event JSON */
	char *what;		/* "could not post event Scheduled for ..." */
	char *ns;		/* the pod's namespace */
	struct kube_event *next;
};

static void
add_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

/* RFC 3339 in seconds, as metav1.Time is written. */
static void
rfc3339(int64_t now_ns, char *buf, size_t size)
{
	time_t t = (time_t)(now_ns / 1000000000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(buf, size, "1970-01-01T00:00:00Z");
}

char *
kai_kube_pod_event_json(const struct kai_pod_event *ev, const char *ns,
    const char *instance, int64_t now_ns)
{
	struct json_object *o = json_object_new_object(), *m, *io, *src;
	char name[EVENT_NAME_MAX + 1], ts[32], msg[EVENT_MSG_MAX + 1];
	char *out;
	int plen = (int)strnlen(ev->pod, EVENT_NAME_MAX - 17);

	(void)snprintf(name, sizeof(name), "%.*s.%" PRIx64, plen, ev->pod,
	    (uint64_t)now_ns);
	(void)snprintf(msg, sizeof(msg), "%s", ev->message);
	rfc3339(now_ns, ts, sizeof(ts));
	add_str(o, "apiVersion", "v1");
	add_str(o, "kind", "Event");
	m = json_object_new_object();
	add_str(m, "name", name);
	add_str(m, "namespace", ns);
	json_object_object_add(o, "metadata", m);
	io = json_object_new_object();
	add_str(io, "apiVersion", ev->kind != NULL ? ev->api_version : "v1");
	add_str(io, "kind", ev->kind != NULL ? ev->kind : "Pod");
	add_str(io, "name", ev->pod);
	if (ev->kind == NULL)
		add_str(io, "namespace", ns);
	if (ev->uid != NULL && ev->uid[0] != '\0')
		add_str(io, "uid", ev->uid);
	json_object_object_add(o, "involvedObject", io);
	add_str(o, "reason", ev->reason);
	add_str(o, "message", msg);
	add_str(o, "type", ev->type == KAI_EVENT_WARNING ? "Warning" : "Normal");
	src = json_object_new_object();
	add_str(src, "component", "kaid");
	json_object_object_add(o, "source", src);
	add_str(o, "firstTimestamp", ts);
	add_str(o, "lastTimestamp", ts);
	json_object_object_add(o, "count", json_object_new_int(1));
	add_str(o, "reportingComponent", "kaid");
	add_str(o, "reportingInstance", instance);
	out = kai_xstrdup(json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

/*
 * Counts a failure or a drop (msg says which event and why); warns at
 * most once every EVENTS_WARN_MS.
 */
static void
ev_trouble(struct kai_kube *kube, const char *msg)
{
	int64_t now = kai_loop_now_ms(kube->loop);

	if (kube->ev_warn_ms != 0 && now - kube->ev_warn_ms < EVENTS_WARN_MS) {
		kube->ev_quiet++;
		kai_log_debug("%s", msg);
		return;
	}
	if (kube->ev_quiet > 0)
		kai_log_warn("%s (and %" PRIu64 " other events since the last "
		    "warning)", msg, kube->ev_quiet);
	else
		kai_log_warn("%s (events are best-effort: jobs are not "
		    "affected)", msg);
	kube->ev_warn_ms = now != 0 ? now : 1;
	kube->ev_quiet = 0;
}

static void
ev_free(void *p)
{
	struct kube_event *e = p;

	free(e->body);
	free(e->what);
	free(e->ns);
	free(e);
}

static void
ev_done(struct kube_req *req, void *ctx)
{
	struct kube_event *e = ctx;
	struct kai_kube *kube = e->kube;
	struct kai_err err;

	kai_err_clear(&err);
	kube->nevents--;
	if (kube_req_check(req, &err, "%s", e->what) == 0) {
		kube->ev_posted++;
	} else {
		kube->ev_failed++;
		ev_trouble(kube, err.msg);
	}
	kube_event_pump(kube);
}

/*
 * Starts waiting events while there is a free slot: EVENTS_INFLIGHT, and
 * none while pod calls wait for theirs (kube_pod.c calls this again as
 * they drain).  Each Event is a write to etcd like a create or a bind,
 * so even one event always in flight took a fifth of a burst's rate
 * (tests/bench/bench-dispatch.sh); held back, a burst's events follow
 * its pods seconds later.  Under a backlog that never drains, the queue
 * fills and events are dropped with a warning, as client-go's
 * broadcaster drops when it falls behind: pods before their events.
 */
void
kube_event_pump(struct kai_kube *kube)
{
	struct kube_event *e;
	struct kube_req *req;
	char *ns, *path;
	size_t cap = kube->callq[0] != NULL || kube->callq[1] != NULL ?
	    0 : EVENTS_INFLIGHT;

	while (kube->nevents < cap && (e = kube->evq) != NULL) {
		kube->evq = e->next;
		if (kube->evq == NULL)
			kube->evq_tail = &kube->evq;
		kube->nevq--;
		e->next = NULL;
		ns = kube_escape(e->ns);
		path = kai_xasprintf("/api/v1/namespaces/%s/events", ns);
		free(ns);
		req = kube_req_new(kube, "POST", path, e->body, KUBE_REPLY_MAX,
		    ev_done, e);
		e->body = NULL;	/* the request owns it now */
		req->ctx_free = ev_free;
		free(path);
		kube->nevents++;
		kube_req_start(req, kube->timeout_ms);
	}
}

/* "kaid-<host>": which kaid said it, bounded as the server wants. */
static const char *
instance(struct kai_kube *kube)
{
	char host[256];

	if (kube->ev_instance == NULL) {
		if (gethostname(host, sizeof(host)) != 0)
			(void)snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
		kube->ev_instance = kai_xasprintf("kaid-%.*s",
		    INSTANCE_MAX - 5, host);
	}
	return kube->ev_instance;
}

void
kai_kube_pod_event(struct kai_kube *kube, const struct kai_pod_event *ev)
{
	struct kube_event *e;
	struct timespec ts;
	char msg[KAI_ERR_MSG_MAX];
	const char *slash;
	int64_t now;

	if (kube->evq_tail == NULL)
		kube->evq_tail = &kube->evq;
	e = kai_xcalloc(1, sizeof(*e));
	e->kube = kube;
	e->what = kai_xasprintf("could not post event %s for pod \"%s\"",
	    ev->reason, ev->pod);
	if (kube->nevq >= EVENTS_QUEUED) {
		kube->ev_dropped++;
		(void)snprintf(msg, sizeof(msg), "%s: %zu events waiting already",
		    e->what, kube->nevq);
		ev_trouble(kube, msg);
		ev_free(e);
		return;
	}
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	/* Unique names even for two events in one clock tick. */
	if (now <= kube->ev_last_ns)
		now = kube->ev_last_ns + 1;
	kube->ev_last_ns = now;
	/* A pod of another namespace is named "ns/name" (kube_pod.c). */
	slash = ev->kind == NULL ? strchr(ev->pod, '/') : NULL;
	if (ev->kind != NULL) {
		/* A cluster-scoped object's events live in "default". */
		e->ns = kai_xstrdup("default");
		e->body = kai_kube_pod_event_json(ev, e->ns, instance(kube),
		    now);
	} else if (slash != NULL) {
		struct kai_pod_event own = *ev;

		e->ns = kai_xstrndup(ev->pod, (size_t)(slash - ev->pod));
		own.pod = slash + 1;
		e->body = kai_kube_pod_event_json(&own, e->ns, instance(kube),
		    now);
	} else {
		e->ns = kai_xstrdup(kube->ns);
		e->body = kai_kube_pod_event_json(ev, kube->ns, instance(kube),
		    now);
	}
	*kube->evq_tail = e;
	kube->evq_tail = &e->next;
	kube->nevq++;
	kube_event_pump(kube);
}

void
kai_kube_queue_event(struct kai_kube *kube, const char *name,
    const char *uid, enum kai_event_type type, const char *reason,
    const char *message)
{
	struct kai_pod_event ev = {.pod = name, .uid = uid, .type = type,
	    .reason = reason, .message = message, .kind = "Queue",
	    .api_version = "scheduling.run.ai/v2"};

	kai_kube_pod_event(kube, &ev);
}

void
kube_event_fini(struct kai_kube *kube)
{
	struct kube_event *e, *next;

	for (e = kube->evq; e != NULL; e = next) {
		next = e->next;
		ev_free(e);
	}
	kube->evq = NULL;
	kube->evq_tail = &kube->evq;
	kube->nevq = 0;
	free(kube->ev_instance);
	kube->ev_instance = NULL;
}

const char *
kai_kube_namespace(const struct kai_kube *kube)
{
	return kube->ns;
}

void
kai_kube_event_counts(const struct kai_kube *kube, uint64_t *posted,
    uint64_t *failed, uint64_t *dropped)
{
	*posted = kube->ev_posted;
	*failed = kube->ev_failed;
	*dropped = kube->ev_dropped;
}
