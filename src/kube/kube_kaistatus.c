/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_kaistatus.c: the status kaid writes back on KAI's objects, as
 * KAI's own controllers write it (doc/k8s-native.md, "Status written
 * back"), so that `kubectl get podgroup -o yaml` and `kubectl describe
 * queue` and the tools that read them (dashboards, KAI's CLI) show what
 * kaid decided.
 *
 * A PodGroup's: status.resourcesStatus.{requested, allocated,
 * allocatedNonPreemptible} (KAI's podgroup-controller: the requests of
 * its active pods, of those bound, and of those bound when the group is
 * not preemptible) and status.schedulingConditions (KAI's scheduler,
 * pkg/scheduler/cache/status_updater: one condition
 * UnschedulableOnNodePool while the group waits, its deprecated reason
 * "Unschedulable", the reason code in reasons[0] and its words; none
 * once it is placed).  A Queue's: status.{requested, allocated,
 * allocatedNonPreemptible} (KAI's queue-controller: the sums of its jobs
 * and of its children's) and status.childQueues (its children's names).
 * KAI's status.phase and running/pending/succeeded/failed counts are not
 * written: no KAI controller ever wrote them, and KAI's CRD dropped them
 * in v0.16 (an API server with that CRD would prune them).
 *
 * A condition's transitionID is read back from the object
 * (kai_kube_pg_cond_read), as KAI's scheduler reads it from its
 * informer's copy, so that a restart does not count from 1 again.
 *
 * Every resource list carries cpu, memory and nvidia.com/gpu, zeros
 * included: the body is a JSON merge patch, in which a key left out
 * would keep its old value.  A list of conditions is replaced whole (a
 * merge patch does not merge lists), and null removes it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

/* A ResourceList of r: cpu in millicores, memory in MiB, GPUs decimal. */
static struct json_object *
res_list(const struct kai_kube_res *r)
{
	struct json_object *o = json_object_new_object();
	char buf[64];
	uint64_t whole = r->gpu_micro / 1000000, frac = r->gpu_micro % 1000000;
	size_t n;

	(void)snprintf(buf, sizeof(buf), "%" PRIu64 "m", r->cpu_milli);
	json_object_object_add(o, "cpu", json_object_new_string(buf));
	(void)snprintf(buf, sizeof(buf), "%" PRIu64 "Mi", r->mem_mb);
	json_object_object_add(o, "memory", json_object_new_string(buf));
	if (frac == 0) {
		(void)snprintf(buf, sizeof(buf), "%" PRIu64, whole);
	} else {
		(void)snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64,
		    whole, frac);
		n = strlen(buf);
		while (buf[n - 1] == '0')	/* "0.5", not "0.500000" */
			buf[--n] = '\0';
	}
	json_object_object_add(o, "nvidia.com/gpu",
	    json_object_new_string(buf));
	return o;
}

/* The condition array of a group that waits, or null. */
static struct json_object *
conditions(const struct kai_kube_kai_status *st)
{
	struct json_object *a, *c, *rs, *r;
	char when[32], id[32];
	struct tm tm;
	time_t t = (time_t)(st->since != 0 ? st->since : st->now);

	if (st->reason == NULL || st->reason[0] == '\0')
		return NULL;	/* placed: no condition */
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		when[0] = '\0';
	(void)snprintf(id, sizeof(id), "%" PRIu32, st->transition);
	r = json_object_new_object();
	json_object_object_add(r, "reason", json_object_new_string(
	    st->reason));
	json_object_object_add(r, "message", json_object_new_string(
	    st->message != NULL ? st->message : ""));
	rs = json_object_new_array();
	json_object_array_add(rs, r);
	c = json_object_new_object();
	json_object_object_add(c, "type",
	    json_object_new_string("UnschedulableOnNodePool"));
	json_object_object_add(c, "nodePool", json_object_new_string(
	    "default"));
	json_object_object_add(c, "status", json_object_new_string("True"));
	/* KAI's scheduler writes this (deprecated) one word always; the
	 * code is reasons[0]'s. */
	json_object_object_add(c, "reason", json_object_new_string(
	    "Unschedulable"));
	json_object_object_add(c, "message", json_object_new_string(
	    st->message != NULL ? st->message : ""));
	json_object_object_add(c, "reasons", rs);
	json_object_object_add(c, "transitionID", json_object_new_string(id));
	if (when[0] != '\0')
		json_object_object_add(c, "lastTransitionTime",
		    json_object_new_string(when));
	a = json_object_new_array();
	json_object_array_add(a, c);
	return a;
}

/* A Queue's childQueues, or null for none (KAI's omitempty list). */
static struct json_object *
children(const struct kai_kube_kai_status *st)
{
	struct json_object *a;
	size_t i;

	if (st->nchildren == 0)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < st->nchildren; i++)
		json_object_array_add(a, json_object_new_string(
		    st->children[i]));
	return a;
}

char *
kai_kube_kai_status_json(const struct kai_kube_kai_status *st,
    bool podgroup)
{
	struct json_object *b = json_object_new_object();
	struct json_object *status = json_object_new_object(), *res;
	char *out;

	/* A PodGroup keeps its lists under resourcesStatus, a Queue not. */
	res = podgroup ? json_object_new_object() : status;
	json_object_object_add(res, "requested", res_list(&st->requested));
	json_object_object_add(res, "allocated", res_list(&st->allocated));
	json_object_object_add(res, "allocatedNonPreemptible",
	    res_list(&st->allocated_np));
	if (podgroup) {
		json_object_object_add(status, "resourcesStatus", res);
		json_object_object_add(status, "schedulingConditions",
		    conditions(st));
	} else {
		json_object_object_add(status, "childQueues", children(st));
	}
	json_object_object_add(b, "status", status);
	out = kai_xstrdup(json_object_to_json_string_ext(b,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(b);
	return out;
}

char *
kai_kube_kai_status_key(const struct kai_kube_kai_status *st)
{
	const struct kai_kube_res *r[3] = {&st->requested, &st->allocated,
	    &st->allocated_np};
	char buf[256], *out;
	size_t i, len = 0;

	for (i = 0; i < 3; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		    "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ";", r[i]->cpu_milli,
		    r[i]->mem_mb, r[i]->gpu_micro);
	(void)snprintf(buf + len, sizeof(buf) - len, "%s",
	    st->reason != NULL ? st->reason : "");
	if (st->nchildren == 0)
		return kai_xstrdup(buf);
	/* A child's name cannot hold '/': the list is unambiguous. */
	out = kai_xstrdup(buf);
	for (i = 0; i < st->nchildren; i++) {
		char *more = kai_xasprintf("%s/%s", out, st->children[i]);

		free(out);
		out = more;
	}
	return out;
}

/* The number of a transitionID, 0 when it is none. */
static uint32_t
transition_id(const char *s)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return 0;
	v = strtoul(s, &end, 10);
	return *end != '\0' || v > UINT32_MAX ? 0 : (uint32_t)v;
}

void
kai_kube_pg_cond_read(const struct kai_kube_obj *o,
    struct kai_kube_pg_cond *c)
{
	char path[96];
	size_t i, n = kai_kube_obj_len(o, "status.schedulingConditions");
	const char *s;
	uint32_t id;
	long best = -1;

	memset(c, 0, sizeof(*c));
	c->reason = c->message = "";
	for (i = 0; i < n && i < 64; i++) {
		(void)snprintf(path, sizeof(path),
		    "status.schedulingConditions.%zu.transitionID", i);
		id = transition_id(kai_kube_obj_str(o, path));
		if (best < 0 || id > c->id) {
			best = (long)i;
			c->id = id;
		}
	}
	if (best < 0)
		return;
	(void)snprintf(path, sizeof(path),
	    "status.schedulingConditions.%ld.reasons.0.reason", best);
	if ((s = kai_kube_obj_str(o, path)) == NULL) {
		(void)snprintf(path, sizeof(path),
		    "status.schedulingConditions.%ld.reason", best);
		s = kai_kube_obj_str(o, path);
	}
	c->reason = s != NULL ? s : "";
	(void)snprintf(path, sizeof(path),
	    "status.schedulingConditions.%ld.message", best);
	s = kai_kube_obj_str(o, path);
	c->message = s != NULL ? s : "";
	(void)snprintf(path, sizeof(path),
	    "status.schedulingConditions.%ld.lastTransitionTime", best);
	if ((s = kai_kube_obj_str(o, path)) == NULL ||
	    kai_kube_time_parse(s, &c->since) != 0)
		c->since = 0;
}

struct status_call {
	char *what;	/* "could not write the status of PodGroup \"ns/x\"" */
	kai_kube_done_fn *fn;
	void *ctx;
	bool finished;
};

static void
status_free(void *p)
{
	struct status_call *c = p;
	struct kai_err err;

	if (!c->finished) {
		kai_err_set(&err, KAI_EAGAIN, "%s: cancelled", c->what);
		c->finished = true;
		c->fn(KAI_EAGAIN, &err, c->ctx);
	}
	free(c->what);
	free(c);
}

static void
status_done(struct kube_req *req, void *ctx)
{
	struct status_call *c = ctx;
	struct kai_err err;
	int code;

	kai_err_clear(&err);
	code = kube_req_check(req, &err, "%s", c->what);
	c->finished = true;
	c->fn(code, &err, c->ctx);
}

void
kai_kube_object_patch_status(struct kai_kube *kube, const char *api_version,
    const char *kind, const char *ns, const char *name, char *body,
    kai_kube_done_fn *fn, void *ctx)
{
	struct status_call *c = kai_xcalloc(1, sizeof(*c));
	struct kube_req *req;
	char *path, *spath;

	c->what = ns != NULL ?
	    kai_xasprintf("could not write the status of %s \"%s/%s\"", kind,
		ns, name) :
	    kai_xasprintf("could not write the status of %s \"%s\"", kind,
		name);
	c->fn = fn;
	c->ctx = ctx;
	path = kai_kube_object_path(api_version, kind, ns, name);
	spath = kai_xasprintf("%s/status", path);
	req = kube_req_new(kube, "PATCH", spath, body, KUBE_REPLY_MAX,
	    status_done, c);
	free(path);
	free(spath);
	req->ctx_free = status_free;
	kube_req_start(req, kube->timeout_ms);
}
