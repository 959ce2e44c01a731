/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_log.c: GET pods/NAME/log, streamed (klog through kaid).
 *
 * The apiserver answers with the container's output as text/plain (it
 * proxies the kubelet's containerLogs); with follow=true the answer stays
 * open and grows until the container ends, then the server ends it.
 * Errors are Status objects: 400 for a container that has not started
 * ("... is waiting to start: ContainerCreating"), 404 for a pod that does
 * not exist.  The body goes to the caller piece by piece as it arrives,
 * so a long log is never held whole.  Without follow, limitBytes bounds
 * what is asked for.
 *
 * As for the pod calls, the done callback runs exactly once unless the
 * caller cancels: a call still open when the client is freed is answered
 * with KAI_EAGAIN so that its owner can let go of its context.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

struct kai_kube_log {
	struct kai_kube *kube;
	struct kube_req *req;
	char *what; /* "could not read the log of pod \"x\"" */
	kai_kube_log_fn *data;
	kai_kube_done_fn *done;
	void *ctx;
	bool finished; /* done has run, or the caller cancelled */
};

static void
log_free(void *p)
{
	struct kai_kube_log *l = p;
	struct kai_err err;

	if (!l->finished) {
		kai_err_set(&err, KAI_EAGAIN, "%s: cancelled", l->what);
		l->finished = true;
		l->done(KAI_EAGAIN, &err, l->ctx);
	}
	free(l->what);
	free(l);
}

static int
log_data(struct kube_req *req, const char *p, size_t n, void *ctx)
{
	struct kai_kube_log *l = ctx;

	(void)req;
	return l->data(p, n, l->ctx) == 0 ? 0 : -1;
}

static void
log_done(struct kube_req *req, void *ctx)
{
	struct kai_kube_log *l = ctx;
	struct kai_err err;
	int code = 0;

	kai_err_clear(&err);
	if (req->aborted)
		code = kai_err_set(&err, KAI_EAGAIN, "%s: stopped", l->what);
	else
		code = kube_req_check(req, &err, "%s", l->what);
	l->finished = true;
	l->done(code, &err, l->ctx);
}

struct kai_kube_log *
kai_kube_pod_log(struct kai_kube *kube, const char *pod, bool follow,
    int64_t limit_bytes, kai_kube_log_fn *data, kai_kube_done_fn *done,
    void *ctx)
{
	struct kai_kube_log *l = kai_xcalloc(1, sizeof(*l));
	char *ns = kube_escape(kube->ns), *name = kube_escape(pod), *path;

	l->kube = kube;
	l->what = kai_xasprintf("could not read the log of pod \"%s\"", pod);
	l->data = data;
	l->done = done;
	l->ctx = ctx;
	if (follow)
		path = kai_xasprintf("/api/v1/namespaces/%s/pods/%s/log"
				     "?follow=true",
		    ns, name);
	else if (limit_bytes > 0)
		path = kai_xasprintf("/api/v1/namespaces/%s/pods/%s/log"
				     "?limitBytes=%" PRId64,
		    ns, name, limit_bytes);
	else
		path = kai_xasprintf("/api/v1/namespaces/%s/pods/%s/log", ns,
		    name);
	free(ns);
	free(name);
	l->req =
	    kube_req_new(kube, "GET", path, NULL, KUBE_REPLY_MAX, log_done, l);
	free(path);
	l->req->ctx_free = log_free;
	kube_req_stream(l->req, log_data);
	/* A followed log lasts as long as the container: no time limit. */
	kube_req_start(l->req, follow ? 0 : kube->timeout_ms);
	return l;
}

void
kai_kube_log_cancel(struct kai_kube_log *l)
{
	if (l == NULL)
		return;
	l->finished = true;      /* the caller let go: done is not called */
	kube_req_cancel(l->req); /* frees l through log_free */
}
