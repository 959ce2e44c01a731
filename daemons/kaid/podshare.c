/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podshare.c: a Kubernetes-native pod's share of a GPU, kaid's side.
 *
 * kaid cannot change a pod it did not create once the pod exists, and a
 * container's environment is fixed at creation: so kaid's admission
 * webhook (webhook.c, admission.c) gives the container of a pod that asks
 * for a share env entries taken from a ConfigMap that does not exist yet
 * (configMapKeyRef, not optional: the kubelet holds the container until
 * it exists) and records the ConfigMap's name in the pod's annotation
 * kaibatch.io/gpu-share-configmap.  Here, once the scheduler's decision
 * is committed, kaid creates that ConfigMap with what it chose (the
 * device's index and the portion, the very values podenv_gpu() gives
 * kaid's own pods) and only then binds the pod.  The ConfigMap is owned
 * by the pod, so the garbage collector removes it with the pod; a create
 * answered 409 means a kaid before a restart made it, with the same
 * content since the allocation is committed before.
 *
 * A pod that asks for a share but has no such annotation was created
 * while the webhook did not answer (kaid down: the webhook's failure
 * policy is Ignore).  Its container could never learn its device, so it
 * gets no job and a reason that says what to do.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "podshare.h"

/* A ConfigMap name kaid can create: a DNS subdomain. */
static bool
cm_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

char *
podshare_problem(const struct kai_pod *pod, struct kai_gpushare *sh)
{
	struct kai_err err;
	const char *cm = pod->share.configmap;

	if (kai_gpushare_parse(&pod->share, sh, &err) != 0)
		return kai_xstrdup(err.msg);
	if (!kai_gpushare_asked(&pod->share))
		return NULL;
	if (cm == NULL)
		return kai_xasprintf("the pod asks for a share of a GPU "
		    "(annotation \"%s\") but has no annotation \"%s\": kaid's "
		    "admission webhook did not see it created (kaid down or "
		    "the webhook not registered); delete the pod so that it "
		    "is created again",
		    pod->share.fraction != NULL ? KAI_ANN_GPU_FRACTION :
		    KAI_ANN_GPU_MEMORY, KAI_ANN_GPU_CONFIGMAP);
	if (!cm_name_ok(cm))
		return kai_xasprintf("annotation \"%s\" \"%.64s\": not a "
		    "ConfigMap name", KAI_ANN_GPU_CONFIGMAP, cm);
	return NULL;
}

bool
podshare_wanted(const struct kai_job *j, const struct pod_rec *r)
{
	return native_job(j) && (j->gpu_fraction > 0 || j->gpu_memory_mb > 0) &&
	    r->share_cm[0] != '\0';
}

void
podshare_configmap(struct kaid *k, const struct kai_job *j,
    const struct kai_alloc *a, const struct pod_rec *r,
    kai_kube_done_fn *fn, void *ctx)
{
	struct podenv env = {NULL, 0, NULL};

	/* Every entry of the env kaid's own pods get for the share. */
	podenv_gpu(k, j, a, &env);
	kai_kube_pod_configmap_create(k->kube, a->pod, r->uid, r->share_cm,
	    (const char *const *)env.v, env.n / 2, fn, ctx);
	podenv_fini(&env);
}
