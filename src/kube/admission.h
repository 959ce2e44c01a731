/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * admission.h: kaid's answer to the apiserver's AdmissionReview
 * (admission.k8s.io/v1) for a pod being created: the mutating webhook
 * of GPU sharing (doc/k8s-native.md "The admission webhook").
 *
 * A pod of one of kaid's schedulers that asks for a share of a GPU
 * (gpushare.h) is allowed with a JSONPatch: its annotation
 * kaibatch.io/gpu-share-configmap names a ConfigMap kaid creates when it
 * binds the pod, and the container that gets the share reads
 * NVIDIA_VISIBLE_DEVICES, GPU_PORTION and RUNAI_NUM_OF_GPUS from it
 * (configMapKeyRef, not optional: the kubelet waits for the ConfigMap).
 * Malformed annotations are refused with the message gpushare.c gives;
 * every other pod, and every other object, is allowed unchanged.  Pure:
 * text in, text out.
 */
#ifndef KAI_KUBE_ADMISSION_H
#define KAI_KUBE_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

/* Whether a pod's spec.schedulerName is one of kaid's. */
typedef bool kai_admission_ours_fn(const char *scheduler, void *ctx);

struct kai_admission {
	char *response;	/* the AdmissionReview to answer, JSON */
	char *pod;	/* "namespace/name" ("namespace/generateName*"),
			   for the log; "" when not a pod */
	bool allowed;
	bool patched;	/* allowed with a JSONPatch */
	char *message;	/* why refused; NULL when allowed */
};

/*
 * Answers the AdmissionReview body[0..len).  Returns 0 with *out filled
 * (the caller frees it with kai_admission_fini()), or KAI_EINVAL with
 * err saying why the body is no admission.k8s.io/v1 AdmissionReview
 * request (the server answers 400).
 */
int kai_admission_review(const char *body, size_t len,
    kai_admission_ours_fn *ours, void *ctx, struct kai_admission *out,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_admission_fini(struct kai_admission *a);

#endif /* KAI_KUBE_ADMISSION_H */
