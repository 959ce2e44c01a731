/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podshare.h: kaid's side of a Kubernetes-native pod's GPU share
 * (podshare.c, doc/k8s-native.md "GPU sharing").
 */
#ifndef KAID_PODSHARE_H
#define KAID_PODSHARE_H

#include "kaid.h"

/*
 * Why the pod's GPU-sharing annotations keep it from being a job, as a
 * sentence the caller frees, or NULL with *sh filled (zero: no share).
 * A share needs the ConfigMap reference kaid's webhook adds at creation.
 */
char *podshare_problem(const struct kai_pod *pod, struct kai_gpushare *sh);

/* Whether binding j's pod r needs its ConfigMap first. */
bool podshare_wanted(const struct kai_job *j, const struct pod_rec *r);

/*
 * Creates pod r's ConfigMap (r->share_cm, in the pod's namespace, owned
 * by the pod) holding the device and portion of allocation a, then calls
 * fn (0, KAI_EEXIST when it existed, or the failure) with ctx.
 */
void podshare_configmap(struct kaid *k, const struct kai_job *j,
    const struct kai_alloc *a, const struct pod_rec *r,
    kai_kube_done_fn *fn, void *ctx);

#endif /* KAID_PODSHARE_H */
