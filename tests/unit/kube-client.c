/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-client: the Kubernetes client against a real HTTPS server,
 * kubesim, started by kube-client.t with the nodes file it wrote:
 *
 *	kube-client KUBECONFIG SCHEMA(yes|no)
 *
 * Node and pod watches, pod create / bind / delete with their 409 and
 * 404 answers, a pod that really runs `exit 3`, a forced watch expiry
 * (410) with a pod created right after it, a wrong token, Events (their
 * JSON, schema-checked by kubesim, and the bound on those in flight).
 * Every wait is
 * a loop run bounded by a timer: the whole program fails rather than
 * hangs after 20 s.
 */
#include "config.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "sys/log.h"
#include "sys/loop.h"
#include "tap.h"

#define BUDGET_MS 20000
#define MAX_OBJS  32

/* What the watches delivered: a cache and a history. */
struct seen_pod {
	char name[64];
	enum kai_pod_phase phase;
	bool terminated;
	int exit_code;
	char node[64];
	bool managed;
	uint64_t job_id;
	uint32_t task;
	int64_t cpu_milli;
	uint64_t mem_mb;
};

struct t {
	struct kai_loop *loop;
	struct kai_kube *kube;
	int64_t deadline; /* monotonic ms */
	bool (*cond)(struct t *);
	/* node watch */
	int node_resets, node_syncs;
	char node_log[256]; /* "R A A S ..." */
	struct kai_node nodes[MAX_OBJS];
	size_t nnodes;
	/* pod watch */
	int pod_resets, pod_syncs;
	struct seen_pod pods[MAX_OBJS];
	size_t npods;
	char ran[MAX_OBJS][64]; /* pods ever seen Running */
	size_t nran;
	char deleted[MAX_OBJS][64];
	size_t ndeleted;
	/* the last call */
	bool done;
	int code;
	struct kai_err err;
	/* what the next wait is for */
	const char *want;
	int want_n;
	/* a bind started from inside the pod watch's callback */
	const char *bind_on_add;
	bool bind_done;
	int bind_code;
};

static int64_t
mono_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
hook(struct kai_loop *loop, void *ctx)
{
	struct t *t = ctx;

	if (t->cond != NULL && t->cond(t))
		kai_loop_stop(loop);
}

static void
deadline(struct kai_loop *loop, uint64_t id, void *ctx)
{
	(void)id;
	(void)ctx;
	kai_loop_stop(loop);
}

/* Runs the loop until cond holds or the budget is spent. */
static bool
run_until(struct t *t, bool (*cond)(struct t *))
{
	int64_t left = t->deadline - mono_ms();
	uint64_t id;

	if (cond(t))
		return true;
	if (left <= 0)
		return false;
	t->cond = cond;
	id = kai_loop_timer_add(t->loop, left, deadline, t);
	if (kai_loop_run(t->loop) != 0)
		diag("kai_loop_run failed");
	kai_loop_timer_del(t->loop, id);
	t->cond = NULL;
	if (!cond(t))
		diag("timed out (20 s budget)");
	return cond(t);
}

static void
node_cb(enum kai_kube_event ev, const struct kai_node *n, void *ctx)
{
	struct t *t = ctx;
	size_t i, len = strlen(t->node_log);

	if (len + 3 < sizeof(t->node_log))
		(void)snprintf(t->node_log + len, sizeof(t->node_log) - len,
		    "%c ", "RAMDS"[ev]);
	if (ev == KAI_KUBE_RESET) {
		t->node_resets++;
		for (i = 0; i < t->nnodes; i++)
			free(t->nodes[i].name);
		t->nnodes = 0;
	} else if (ev == KAI_KUBE_SYNCED) {
		t->node_syncs++;
	} else if (ev == KAI_KUBE_ADDED && t->nnodes < MAX_OBJS) {
		t->nodes[t->nnodes] = *n;
		t->nodes[t->nnodes].name = kai_xstrdup(n->name);
		t->nodes[t->nnodes].gpu_product = NULL;
		t->nodes[t->nnodes].labels = NULL;
		t->nodes[t->nnodes++].nlabels = 0;
	}
}

static struct seen_pod *
find_pod(struct t *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->npods; i++)
		if (strcmp(t->pods[i].name, name) == 0)
			return &t->pods[i];
	return NULL;
}

static void
bind_done_cb(int code, const struct kai_err *err, void *ctx)
{
	struct t *t = ctx;

	if (code != 0)
		diag("bind from the callback: %s", kai_err_msg(err));
	t->bind_done = true;
	t->bind_code = code;
}

static void
pod_cb(enum kai_kube_event ev, const struct kai_pod *p, void *ctx)
{
	struct t *t = ctx;
	struct seen_pod *s;

	if (ev == KAI_KUBE_RESET) {
		t->pod_resets++;
		t->npods = 0;
		return;
	}
	if (ev == KAI_KUBE_SYNCED) {
		t->pod_syncs++;
		return;
	}
	s = find_pod(t, p->name);
	if (ev == KAI_KUBE_DELETED) {
		if (s != NULL)
			*s = t->pods[--t->npods];
		if (t->ndeleted < MAX_OBJS)
			(void)snprintf(t->deleted[t->ndeleted++], 64, "%s",
			    p->name);
		return;
	}
	if (ev == KAI_KUBE_ADDED && t->bind_on_add != NULL &&
	    strcmp(p->name, t->bind_on_add) == 0) {
		t->bind_on_add = NULL;
		kai_kube_pod_bind(t->kube, p->name, "cpu-1", bind_done_cb, t);
	}
	if (s == NULL && t->npods < MAX_OBJS)
		s = &t->pods[t->npods++];
	if (s == NULL)
		return;
	(void)snprintf(s->name, sizeof(s->name), "%s", p->name);
	(void)snprintf(s->node, sizeof(s->node), "%s", p->node);
	s->phase = p->phase;
	s->terminated = p->terminated;
	s->exit_code = p->exit_code;
	s->managed = p->managed;
	s->job_id = p->job_id;
	s->task = p->task;
	s->cpu_milli = p->cpu_milli;
	s->mem_mb = p->mem_mb;
	if (p->phase == KAI_POD_RUNNING && t->nran < MAX_OBJS)
		(void)snprintf(t->ran[t->nran++], 64, "%s", p->name);
}

static void
done_cb(int code, const struct kai_err *err, void *ctx)
{
	struct t *t = ctx;

	t->done = true;
	t->code = code;
	t->err = *err;
}

static bool
is_done(struct t *t)
{
	return t->done;
}

static bool
nodes_synced(struct t *t)
{
	return t->node_syncs >= t->want_n;
}

static bool
pods_synced(struct t *t)
{
	return t->pod_syncs >= t->want_n;
}

static bool
pod_terminal(struct t *t)
{
	struct seen_pod *s = find_pod(t, t->want);

	return s != NULL &&
	    (s->phase == KAI_POD_SUCCEEDED || s->phase == KAI_POD_FAILED);
}

static bool
pod_gone(struct t *t)
{
	size_t i;

	for (i = 0; i < t->ndeleted; i++)
		if (strcmp(t->deleted[i], t->want) == 0)
			return true;
	return false;
}

static bool
resynced_with_pod(struct t *t)
{
	return t->pod_syncs >= t->want_n && t->node_syncs >= t->want_n &&
	    find_pod(t, "kai-t-3") != NULL;
}

static bool
bound_from_cb(struct t *t)
{
	return t->bind_done;
}

static bool
pod_seen(struct t *t)
{
	return find_pod(t, t->want) != NULL;
}

static bool
ever_ran(struct t *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nran; i++)
		if (strcmp(t->ran[i], name) == 0)
			return true;
	return false;
}

/* is_int on a call's code, with its message when it is not the one. */
#define is_code(t, got, want, ...)                                             \
	do {                                                                   \
		if (!is_int((got), (want), __VA_ARGS__))                       \
			diag("error: %s", kai_err_msg(&(t)->err));             \
	} while (0)

static void
call_reset(struct t *t)
{
	t->done = false;
	t->code = 1;
	kai_err_clear(&t->err);
}

/* Creates pod name running `/bin/sh -c script` through kube. */
static int
create(struct t *t, struct kai_kube *kube, const char *name, const char *script,
    uint32_t task)
{
	static const char *const env[] = {"KAI_TEST", "1"};
	static const uint32_t groups[] = {65534};
	const char *cmd[] = {"/bin/sh", "-c", script};
	char taskstr[16];
	const char *labels[] = {"app.kubernetes.io/managed-by", "kaid",
	    "kaibatch.io/job-id", "7", "kaibatch.io/task-index", taskstr};
	struct kai_pod_spec s = {
	    .name = name,
	    .label_kv = labels,
	    .nlabels = 3,
	    .image = "busybox:1.36",
	    .command = cmd,
	    .ncommand = 3,
	    .env_kv = env,
	    .nenv = 1,
	    .run_as_uid = 65534,
	    .run_as_gid = 65534,
	    .groups = groups,
	    .ngroups = 1,
	    .run_as_non_root = true,
	    .cpu_milli = 500,
	    .mem_mb = 64,
	    .gpus = 1,
	    .active_deadline_s = 60,
	};

	(void)snprintf(taskstr, sizeof(taskstr), "%u", task);
	call_reset(t);
	kai_kube_pod_create(kube, &s, done_cb, t);
	if (kai_kube_pending(kube) != 1)
		diag("pending is %zu, not 1", kai_kube_pending(kube));
	if (!run_until(t, is_done))
		return 1;
	return t->code;
}

static int
do_bind(struct t *t, const char *name, const char *node)
{
	call_reset(t);
	kai_kube_pod_bind(t->kube, name, node, done_cb, t);
	if (!run_until(t, is_done))
		return 1;
	return t->code;
}

static int
do_delete(struct t *t, const char *name)
{
	call_reset(t);
	kai_kube_pod_delete(t->kube, name, 0, done_cb, t);
	if (!run_until(t, is_done))
		return 1;
	return t->code;
}

/* POST /kubesim/expire-watches with a plain blocking libcurl call. */
static size_t
discard(char *p, size_t size, size_t nmemb, void *ud)
{
	(void)p;
	(void)ud;
	return size * nmemb;
}

/* POST to a kubesim control endpoint; the HTTP status or 0. */
static long
control(const struct kai_kube_config *cfg, const char *path)
{
	struct curl_blob ca = {cfg->ca_pem, strlen(cfg->ca_pem),
	    CURL_BLOB_COPY};
	struct curl_slist *h;
	char *url, *auth;
	long status = 0;
	CURL *e;

	url = kai_xasprintf("%s%s", cfg->server, path);
	auth = kai_xasprintf("Authorization: Bearer %s", cfg->token);
	h = curl_slist_append(NULL, auth);
	e = curl_easy_init();
	if (e != NULL && h != NULL &&
	    curl_easy_setopt(e, CURLOPT_URL, url) == CURLE_OK &&
	    curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca) == CURLE_OK &&
	    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h) == CURLE_OK &&
	    curl_easy_setopt(e, CURLOPT_POSTFIELDS, "") == CURLE_OK &&
	    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard) == CURLE_OK &&
	    curl_easy_setopt(e, CURLOPT_TIMEOUT, 3L) == CURLE_OK &&
	    curl_easy_perform(e) == CURLE_OK)
		(void)curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(e);
	curl_slist_free_all(h);
	free(url);
	free(auth);
	return status;
}

static const struct kai_node *
node(struct t *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nnodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return &t->nodes[i];
	return NULL;
}

static void
test_nodes(struct t *t, const struct kai_kube_config *cfg)
{
	const struct kai_node *g, *c;
	int64_t t0 = mono_ms();

	is_int(control(cfg,
		   "/kubesim/fail?verb=list&resource=nodes&code=503"
		   "&count=1"),
	    200, "kubesim will fail the first node list");
	kai_kube_watch_nodes(t->kube, node_cb, t);
	t->want_n = 1;
	ok(run_until(t, nodes_synced), "node watch synced");
	ok(mono_ms() - t0 >= 900, "after a backoff of a second");
	is_str(t->node_log, "R A A S ", "RESET, ADDED per node, SYNCED");
	g = node(t, "gpu-1");
	c = node(t, "cpu-1");
	ok(g != NULL && g->cpu_milli == 32000 && g->mem_mb == 262144 &&
		g->gpus == 8 && g->gpu_mem_mb == 81559 && g->ready &&
		!g->unschedulable,
	    "gpu-1: 32 cpu, 256Gi, 8 GPUs, ready");
	ok(c != NULL && c->cpu_milli == 7500 && c->mem_mb == 65536 &&
		c->gpus == 0,
	    "cpu-1: 7500m cpu, 64Gi, no GPUs");
}

static void
test_pods(struct t *t, bool schema)
{
	struct seen_pod *s;

	kai_kube_watch_pods(t->kube, pod_cb, t);
	t->want_n = 1;
	ok(run_until(t, pods_synced), "pod watch synced");
	is_int(t->pod_resets, 1, "one RESET before it");

	is_code(t, create(t, t->kube, "kai-t-1", "exit 3", 0), 0,
	    schema ? "create: 201 (its JSON passed the OpenAPI schema)"
		   : "create: 201");
	is_int((int64_t)kai_kube_pending(t->kube), 0, "no call pending after");
	is_code(t, create(t, t->kube, "kai-t-1", "exit 3", 0), KAI_EEXIST,
	    "create again: KAI_EEXIST");
	ok(strstr(t->err.msg, "could not create pod \"kai-t-1\": HTTP 409: ") ==
		t->err.msg,
	    "message: %s", t->err.msg);
	is_code(t, do_bind(t, "kai-t-1", "gpu-1"), 0, "bind: 201");
	is_code(t, do_bind(t, "kai-t-1", "gpu-1"), KAI_EEXIST,
	    "bind again: KAI_EEXIST");
	t->want = "kai-t-1";
	ok(run_until(t, pod_terminal), "the pod ran to its end");
	s = find_pod(t, "kai-t-1");
	ok(ever_ran(t, "kai-t-1"), "the watch saw it Running");
	ok(s != NULL && s->phase == KAI_POD_FAILED && s->terminated &&
		s->exit_code == 3,
	    "then Failed with exit code 3");
	ok(s != NULL && strcmp(s->node, "gpu-1") == 0 && s->managed &&
		s->job_id == 7 && s->cpu_milli == 500 && s->mem_mb == 64,
	    "node, labels and requests read back");

	is_code(t, create(t, t->kube, "kai-t-2", "exit 0", 1), 0,
	    "create a second");
	is_code(t, do_bind(t, "kai-t-2", "cpu-1"), 0, "bind it");
	t->want = "kai-t-2";
	ok(run_until(t, pod_terminal), "it ran to its end");
	s = find_pod(t, "kai-t-2");
	ok(s != NULL && s->phase == KAI_POD_SUCCEEDED && s->exit_code == 0,
	    "Succeeded with exit code 0");

	is_code(t, do_delete(t, "kai-t-1"), 0, "delete: 200");
	t->want = "kai-t-1";
	ok(run_until(t, pod_gone), "the watch saw it DELETED");
	is_code(t, do_delete(t, "kai-t-1"), KAI_ENOENT,
	    "delete again: KAI_ENOENT");
}

/* A call made from inside a watch callback (libcurl queues it). */
static void
test_from_callback(struct t *t)
{
	struct seen_pod *s;

	t->bind_on_add = "kai-t-5";
	is_code(t, create(t, t->kube, "kai-t-5", "exit 0", 5), 0,
	    "create a pod the watch callback binds");
	ok(run_until(t, bound_from_cb), "the bind made in the callback ran");
	is_int(t->bind_code, 0, "and succeeded");
	t->want = "kai-t-5";
	ok(run_until(t, pod_terminal), "the pod ran to its end");
	s = find_pod(t, "kai-t-5");
	ok(s != NULL && s->phase == KAI_POD_SUCCEEDED &&
		strcmp(s->node, "cpu-1") == 0,
	    "Succeeded on cpu-1");
}

static void
test_expiry(struct t *t, const struct kai_kube_config *cfg)
{
	is_int(control(cfg,
		   "/kubesim/fail?verb=watch&resource=pods&code=500"
		   "&count=1"),
	    200, "kubesim will fail the next pod watch");
	is_int(control(cfg, "/kubesim/expire-watches"), 200,
	    "kubesim expired every watch");
	is_code(t, create(t, t->kube, "kai-t-3", "sleep 30", 2), 0,
	    "create a pod right after");
	t->want_n = 2;
	ok(run_until(t, resynced_with_pod), "both watches listed again");
	is_code(t, create(t, t->kube, "kai-t-6", "sleep 30", 6), 0,
	    "create one while the failed pod watch backs off");
	t->want = "kai-t-6";
	ok(run_until(t, pod_seen), "the watch resumed and saw it");
	is_int(t->pod_resets, 2, "pods: a second RESET");
	is_int(t->node_resets, 2, "nodes: a second RESET");
	ok(find_pod(t, "kai-t-3") != NULL, "the new pod is in the cache");
	ok(find_pod(t, "kai-t-2") != NULL, "the old one still is");
	ok(find_pod(t, "kai-t-1") == NULL, "the deleted one is not");
	is_int((int64_t)t->nnodes, 2, "both nodes are back in the cache");
	is_code(t, do_delete(t, "kai-t-3"), 0, "delete the unbound pod");
	is_code(t, do_delete(t, "kai-t-6"), 0, "and the other");
}

/* A client for a variant of cfg, which must fail to create a pod. */
static void
refused(struct t *t, const struct kai_kube_config *cfg, int code,
    const char *msg, const char *what)
{
	struct kai_kube *kube;
	struct kai_err err;

	if (kai_kube_new(t->loop, cfg, NULL, 5000, &kube, &err) != 0) {
		ok(0, "client %s: %s", what, kai_err_msg(&err));
		return;
	}
	is_code(t, create(t, kube, "kai-t-4", "exit 0", 3), code,
	    "%s is refused", what);
	ok(strstr(t->err.msg, msg) != NULL, "%s: %s", what, t->err.msg);
	kai_kube_free(kube);
}

/* Errors the server gives map to codes, with its message. */
static void
test_http_errors(struct t *t, const struct kai_kube_config *cfg)
{
	is_int(control(cfg,
		   "/kubesim/fail?verb=create&resource=pods&code=403"
		   "&count=1"),
	    200, "kubesim will refuse a create with 403");
	is_code(t, create(t, t->kube, "kai-t-7", "exit 0", 7), KAI_EPERM,
	    "403 gives KAI_EPERM");
	is_str(t->err.msg,
	    "could not create pod \"kai-t-7\": HTTP 403: kubesim: injected "
	    "failure for create pods",
	    "with the server's message");
	is_int(control(cfg,
		   "/kubesim/fail?verb=create&resource=pods/binding"
		   "&code=503&count=1"),
	    200, "kubesim will refuse a bind with 503");
	is_code(t, do_bind(t, "kai-t-7", "gpu-1"), KAI_EKUBE,
	    "503 gives KAI_EKUBE");
	ok(strstr(t->err.msg,
	       "could not bind pod \"kai-t-7\" to node "
	       "\"gpu-1\": HTTP 503: ") == t->err.msg,
	    "message: %s", t->err.msg);
	is_code(t, do_bind(t, "kai-t-7", "gpu-1"), KAI_ENOENT,
	    "binding a pod that does not exist gives KAI_ENOENT");
}

static void
test_refusals(struct t *t, const struct kai_kube_config *cfg)
{
	struct kai_kube_config bad = *cfg;

	bad.token = (char *)"not-the-token";
	refused(t, &bad, KAI_EKUBE,
	    "could not create pod \"kai-t-4\": "
	    "HTTP 401: Unauthorized",
	    "a wrong token");
	bad = *cfg;
	bad.ca_pem = NULL;
	refused(t, &bad, KAI_EKUBE, "certificate", "a server outside the CAs");
	bad = *cfg;
	bad.server = (char *)"https://127.0.0.1:1";
	refused(t, &bad, KAI_EKUBE,
	    "could not create pod \"kai-t-4\": "
	    "failed to connect",
	    "a closed port");
}

static bool
events_settled(struct t *t)
{
	uint64_t posted, failed, dropped;

	kai_kube_event_counts(t->kube, &posted, &failed, &dropped);
	return posted + failed + dropped >= (uint64_t)t->want_n;
}

/*
 * Events: the JSON's shape, then ten posted at once (kubesim checks each
 * against the OpenAPI schema when it has it: a refusal counts as failed),
 * never more than a few in flight.
 */
static void
test_events(struct t *t)
{
	struct kai_pod_event ev = {"kai-t-9", "0b1c", KAI_EVENT_WARNING,
	    "Preempted", NULL, NULL, NULL};
	struct json_object *o, *v;
	char longmsg[2000], pod[16], *json;
	uint64_t posted, failed, dropped;
	struct kai_err err;
	int i;

	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	ev.message = longmsg;
	json = kai_kube_pod_event_json(&ev, "default", "kaid-h",
	    INT64_C(1700000000123456789));
	o = kube_json_parse(json, strlen(json), &err);
	ok(o != NULL && json_object_object_get_ex(o, "metadata", &v) &&
	    strcmp(json_object_get_string(json_object_object_get(v, "name")),
	    "kai-t-9.17979cfe3d85cd15") == 0,
	    "event name: the pod's and the time in hex nanoseconds");
	ok(o != NULL && strcmp(json_object_get_string(json_object_object_get(o,
	    "type")), "Warning") == 0 && strlen(json_object_get_string(
	    json_object_object_get(o, "message"))) == 1024 &&
	    strcmp(json_object_get_string(json_object_object_get(o,
	    "firstTimestamp")), "2023-11-14T22:13:20Z") == 0,
	    "type Warning, message cut to 1024 bytes, RFC 3339 timestamps");
	json_object_put(o);
	free(json);

	t->want_n = 10;
	for (i = 0; i < 10; i++) {
		(void)snprintf(pod, sizeof(pod), "kai-ev-%d", i);
		ev.pod = pod;
		ev.uid = NULL;
		ev.type = i % 2 ? KAI_EVENT_WARNING : KAI_EVENT_NORMAL;
		ev.reason = i % 2 ? "Evicted" : "Scheduled";
		ev.message = i % 2 ? longmsg : "Successfully assigned x to y";
		kai_kube_pod_event(t->kube, &ev);
	}
	ok(t->kube->nevents <= 4 && t->kube->nevq + t->kube->nevents == 10,
	    "at most 4 events in flight, the rest wait (%zu, %zu)",
	    t->kube->nevents, t->kube->nevq);
	ok(run_until(t, events_settled), "the events were answered");
	kai_kube_event_counts(t->kube, &posted, &failed, &dropped);
	ok(posted == 10 && failed == 0 && dropped == 0,
	    "all 10 accepted (%llu posted, %llu failed)",
	    (unsigned long long)posted, (unsigned long long)failed);
}

/* Answers counted by code, for the calls of test_call_cap. */
static int cap_enoent, cap_eagain, cap_other;

static void
cap_done(int code, const struct kai_err *err, void *ctx)
{
	(void)err;
	(void)ctx;
	if (code == KAI_ENOENT)
		cap_enoent++;
	else if (code == KAI_EAGAIN)
		cap_eagain++;
	else
		cap_other++;
}

static bool
cap_settled(struct t *t)
{
	return kai_kube_pending(t->kube) == 0;
}

/*
 * A burst of calls is sent KUBE_CALLS_MAX at a time (a real apiserver
 * answers 429 past 200 writes in flight); every call is answered once,
 * the waiting ones too when the client is freed.
 */
static void
test_call_cap(struct t *t, const struct kai_kube_config *cfg)
{
	struct kai_pod_event ev = {"kai-cap-ev", NULL, KAI_EVENT_NORMAL,
	    "Scheduled", "Successfully assigned default/kai-cap-ev to n1", NULL,
	    NULL};
	uint64_t posted0, posted, failed, dropped;
	struct kai_kube *kube;
	struct kai_err err;
	char pod[32];
	bool settled;
	int i;

	for (i = 0; i < 100; i++) {
		(void)snprintf(pod, sizeof(pod), "kai-none-%d", i);
		kai_kube_pod_delete(t->kube, pod, 0, cap_done, NULL);
	}
	ok(kai_kube_pending(t->kube) == 100 &&
	    t->kube->nactive == KUBE_CALLS_MAX,
	    "100 calls: %d sent, the rest wait (%zu sent)", KUBE_CALLS_MAX,
	    t->kube->nactive);
	kai_kube_event_counts(t->kube, &posted0, &failed, &dropped);
	kai_kube_pod_event(t->kube, &ev);
	ok(t->kube->nevents == 0 && t->kube->nevq == 1,
	    "an event waits while pod calls wait (%zu sent)",
	    t->kube->nevents);
	settled = run_until(t, cap_settled);
	ok(settled && cap_enoent == 100 && cap_other == 0,
	    "all 100 answered 404 (%d, %d other)", cap_enoent, cap_other);
	t->want_n = (int)(posted0 + failed + dropped) + 1;
	ok(run_until(t, events_settled), "then the event is sent");
	kai_kube_event_counts(t->kube, &posted, &failed, &dropped);
	ok(posted == posted0 + 1, "and accepted (%llu posted)",
	    (unsigned long long)posted);
	if (kai_kube_new(t->loop, cfg, NULL, 5000, &kube, &err) != 0) {
		ok(0, "client: %s", kai_err_msg(&err));
		return;
	}
	for (i = 0; i < 100; i++) {
		(void)snprintf(pod, sizeof(pod), "kai-none-%d", i);
		kai_kube_pod_delete(kube, pod, 0, cap_done, NULL);
	}
	kai_kube_free(kube);
	ok(cap_eagain == 100 && cap_other == 0,
	    "freeing the client answers all 100, sent or waiting, with "
	    "KAI_EAGAIN (%d)", cap_eagain);
}

int
main(int argc, char **argv)
{
	struct kai_kube_config cfg;
	struct kai_err err;
	struct t t;
	size_t i;

	if (argc != 3)
		skip_all(
		    "usage: kube-client KUBECONFIG yes|no (run kube-client.t)");
	kai_log_init("kube-client", KAI_LOG_STDERR, KAI_LOG_WARN);
	memset(&t, 0, sizeof(t));
	t.deadline = mono_ms() + BUDGET_MS;
	if (kai_kube_config_load(argv[1], NULL, &cfg, &err) != 0) {
		ok(0, "load the kubeconfig: %s", kai_err_msg(&err));
		return done_testing();
	}
	ok(cfg.ca_pem != NULL && !cfg.insecure && cfg.token != NULL,
	    "kubeconfig: a CA to verify against and a token");
	if ((t.loop = kai_loop_new(&err)) == NULL ||
	    kai_kube_new(t.loop, &cfg, NULL, 5000, &t.kube, &err) != 0) {
		ok(0, "client: %s", kai_err_msg(&err));
		return done_testing();
	}
	kai_loop_before_sleep(t.loop, hook, &t);
	test_nodes(&t, &cfg);
	test_pods(&t, strcmp(argv[2], "yes") == 0);
	test_from_callback(&t);
	test_expiry(&t, &cfg);
	test_http_errors(&t, &cfg);
	test_refusals(&t, &cfg);
	test_events(&t);
	test_call_cap(&t, &cfg);
	/*
	 * Four events, then 64 deletes at once over HTTP/1.1 (kubesim) need
	 * up to that many connections; reused, they are far fewer than calls.
	 */
	ok(t.kube->nrequests >= 15 && t.kube->nconnects <= 80,
	    "connections are reused: %llu requests over %llu connections",
	    (unsigned long long)t.kube->nrequests,
	    (unsigned long long)t.kube->nconnects);
	kai_kube_free(t.kube);
	/* Nothing of the client may fire once it is gone (ASan watches). */
	t.cond = NULL;
	(void)kai_loop_timer_add(t.loop, 200, deadline, &t);
	ok(kai_loop_run(t.loop) == 0, "the loop runs on after kai_kube_free");
	kai_loop_free(t.loop);
	kai_kube_config_fini(&cfg);
	for (i = 0; i < t.nnodes; i++)
		free(t.nodes[i].name);
	return done_testing();
}
