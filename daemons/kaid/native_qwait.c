/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_qwait.c: native pods that wait for their queue (doc/k8s-native.md,
 * "Which pods are kaid's").
 *
 * A Kubernetes operator may apply a workload's Queue after the workload
 * (a Helm chart's order, a GitOps sync), and KAI schedules its pods as
 * soon as the Queue exists: its scheduler reads the queues every cycle.
 * kaid decides once per pod change whether a pod is a job, so a pod whose
 * queue is missing (or not a leaf) would otherwise be looked at again
 * only when the watch shows the pod change or relists.  Such a pod is
 * kept here (a copy, with the reason posted on it) and run through
 * native_pod() again at the first tick after kaid's queue tree changed
 * (queues_reload: kctl's writes, KAI Queue objects, a restart's load).
 *
 * The reason is posted on the pod once per sentence, not at each retry
 * or change of the pod that leaves it the same.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/native.h"
#include "sys/log.h"

/* Beyond this many waiting pods, one is looked at only when it changes. */
#define QWAIT_MAX 65536

struct native_qwait {
	struct kai_map pods;	/* pod key -> struct waiter * */
	bool changed;		/* the queue tree changed since the retry */
};

struct waiter {
	struct kai_pod *pod;	/* native_pod_dup()'s copy */
	char *why;		/* the reason posted on it */
};

static void
waiter_free(void *p)
{
	struct waiter *w = p;

	if (w == NULL)
		return;
	native_pod_free(w->pod);
	free(w->why);
	free(w);
}

static struct native_qwait *
qw(struct kaid *k)
{
	if (k->nqwait == NULL) {
		k->nqwait = kai_xcalloc(1, sizeof(*k->nqwait));
		kai_map_init(&k->nqwait->pods, waiter_free);
	}
	return k->nqwait;
}

bool
native_qwait_put(struct kaid *k, const char *key, const struct kai_pod *pod,
    const char *why)
{
	struct native_qwait *q = qw(k);
	struct waiter *old = kai_map_get(&q->pods, key), *w;
	bool told = old != NULL && strcmp(old->why, why) == 0;

	if (old == NULL && q->pods.len >= QWAIT_MAX) {
		kai_log_warn("pod \"%s\": %d pods wait for their queue "
		    "already; it is looked at again when it changes", key,
		    QWAIT_MAX);
		return true;
	}
	w = kai_xcalloc(1, sizeof(*w));
	w->pod = native_pod_dup(pod);
	w->why = kai_xstrdup(why);
	kai_map_put(&q->pods, key, w);
	return !told;
}

void
native_qwait_del(struct kaid *k, const char *key)
{
	if (k->nqwait != NULL)
		kai_map_del(&k->nqwait->pods, key);
}

void
native_queues_changed(struct kaid *k)
{
	if (k->nqwait != NULL && k->nqwait->pods.len > 0)
		k->nqwait->changed = true;
}

void
native_qwait_retry(struct kaid *k, int64_t now)
{
	struct native_qwait *q = k->nqwait;
	const char *key, **keys;
	struct kai_pod **pods;
	size_t it = 0, i, n = 0;
	void *v;

	if (q == NULL || !q->changed)
		return;
	q->changed = false;
	/* Copies: a retry puts its pod back (the same reason) or drops it. */
	keys = kai_xcalloc(q->pods.len + 1, sizeof(*keys));
	pods = kai_xcalloc(q->pods.len + 1, sizeof(*pods));
	while (kai_map_next(&q->pods, &it, &key, &v)) {
		keys[n] = kai_xstrdup(key);
		pods[n++] = native_pod_dup(((struct waiter *)v)->pod);
	}
	kai_log_debug("queues changed: %zu pods that waited for theirs "
	    "looked at again", n);
	for (i = 0; i < n; i++) {
		state_native_retry(k, keys[i], pods[i], now);
		free((char *)keys[i]);
		native_pod_free(pods[i]);
	}
	free(keys);
	free(pods);
}

void
native_qwait_free(struct kaid *k)
{
	if (k->nqwait == NULL)
		return;
	kai_map_fini(&k->nqwait->pods);
	KAI_FREE(k->nqwait);
}
