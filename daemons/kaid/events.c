/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * events.c: the Kubernetes Events kaid posts on its pods.
 *
 * A thin layer over kai_kube_pod_event(): it formats the message and adds
 * the pod's uid from the watch cache, because `kubectl describe pod`
 * selects events by the pod's uid as well as its name, and an event
 * without it would only show in `kubectl get events`.  Posting is
 * best-effort (src/kube/kube_event.c): nothing here can fail a job.
 */
#include "config.h"

#include <string.h>

#include <stdarg.h>
#include <stdio.h>

#include "kaid.h"

void
events_post(struct kaid *k, const char *pod, enum kai_event_type type,
    const char *reason, const char *fmt, ...)
{
	const struct pod_rec *r = kai_map_get(&k->pods, pod);
	struct kai_pod_event ev = {0};	/* kind NULL: a pod */
	char msg[1024];
	va_list ap;

	if (k->kube == NULL)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ev.pod = pod;
	ev.uid = r != NULL ? r->uid : NULL;
	ev.type = type;
	ev.reason = reason;
	ev.message = msg;
	kai_kube_pod_event(k->kube, &ev);
}

void
events_scheduled(struct kaid *k, const char *pod, const char *node)
{
	/* The default scheduler's words, so tools that match them work;
	 * a workload's pod is keyed "ns/name" already (native.c). */
	if (strchr(pod, '/') != NULL)
		events_post(k, pod, KAI_EVENT_NORMAL, "Scheduled",
		    "Successfully assigned %s to %s", pod, node);
	else
		events_post(k, pod, KAI_EVENT_NORMAL, "Scheduled",
		    "Successfully assigned %s/%s to %s",
		    kai_kube_namespace(k->kube), pod, node);
}
