/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gpushare.h: a pod's request for a share of a GPU, by KAI's pod
 * annotations (doc/k8s-native.md "GPU sharing", issue 13).
 *
 * A pod of another controller asks for a part of a GPU with KAI's
 * annotations: gpu-fraction (0 < f < 1, also a resource.Quantity),
 * gpu-memory (MiB of one GPU), gpu-fraction-num-devices and
 * gpu-fraction-container-name, with mps only beside a fraction.  This is
 * the one place that reads and judges them: kaid's pod watch (native.c,
 * the job's gpu_fraction / gpu_memory_mb) and the admission webhook
 * (admission.c, the JSONPatch or the refusal) both call
 * kai_gpushare_parse(), so the two can never disagree on a pod.
 *
 * struct kai_gpushare_ann holds what a pod carries, copied out of its
 * JSON by kai_gpushare_from_json() (kube's pod watch and the webhook);
 * kai_gpushare_parse() is pure.
 */
#ifndef KAI_KUBE_GPUSHARE_H
#define KAI_KUBE_GPUSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/* KAI's annotation keys (pkg/common/constants in KAI). */
#define KAI_ANN_GPU_FRACTION  "gpu-fraction"
#define KAI_ANN_GPU_MEMORY    "gpu-memory"
#define KAI_ANN_GPU_NUM_DEV   "gpu-fraction-num-devices"
#define KAI_ANN_GPU_CONTAINER "gpu-fraction-container-name"
#define KAI_ANN_MPS	      "mps"
/*
 * Written by kaid's webhook: the name of the pod's ConfigMap, which kaid
 * creates at bind time with the device and the portion it chose (KAI's
 * runai/shared-gpu-configmap plays this part).
 */
#define KAI_ANN_GPU_CONFIGMAP "kaibatch.io/gpu-share-configmap"
/* The keys of that ConfigMap, which the container gets as env. */
#define KAI_GPUSHARE_KEYS_N 3
extern const char *const kai_gpushare_keys[KAI_GPUSHARE_KEYS_N];

/* What a pod carries; NULL members are absent annotations. */
struct kai_gpushare_ann {
	char *fraction;		/* gpu-fraction */
	char *memory;		/* gpu-memory */
	char *num_devices;	/* gpu-fraction-num-devices */
	char *container;	/* gpu-fraction-container-name */
	char *mps;		/* mps */
	char *configmap;	/* kaibatch.io/gpu-share-configmap */
	char **names;		/* containers, then init containers */
	size_t ncontainers;	/* of names: regular ones */
	size_t ninit;		/* of names: init containers, after them */
	bool whole_gpu_limit;	/* a container has an nvidia.com/gpu limit */
};

/* The request, judged. */
struct kai_gpushare {
	uint32_t fraction;	/* micro-GPUs of one GPU; 0 = none */
	uint64_t memory_mib;	/* MiB of one GPU; 0 = none */
	uint32_t num_devices;	/* distinct devices of one node, each with
				 * that share (1 unless asked) */
	bool init;		/* the container is an init container */
	size_t container;	/* its index in containers or initContainers */
};

/* Whether the pod asks for a share (gpu-fraction or gpu-memory present). */
bool kai_gpushare_asked(const struct kai_gpushare_ann *a);

/*
 * Judges a's annotations by KAI's rules (gpu_request_validator.go) and
 * fills *out (zero when the pod asks for no share).  KAI_EINVAL with a
 * message naming the annotation and why ("annotation \"gpu-fraction\"
 * \"1.5\": must be above 0 and below 1") on any fault, out untouched.
 * kaid also refuses what no node of its can hold: a share over more
 * than KAI_JOB_GPU_DEVICES_MAX devices.
 */
int kai_gpushare_parse(const struct kai_gpushare_ann *a,
    struct kai_gpushare *out, struct kai_err *err) KAI_MUST_CHECK;

struct json_object;
/*
 * Copies the sharing annotations, the container names and whether one
 * has an nvidia.com/gpu limit out of a Pod object.  Lenient: a pod may
 * carry anything, so a member of the wrong type reads as absent.
 */
void kai_gpushare_from_json(struct json_object *pod,
    struct kai_gpushare_ann *a);
void kai_gpushare_ann_fini(struct kai_gpushare_ann *a);
/* A deep copy of a into *out (which holds nothing yet). */
void kai_gpushare_ann_dup(const struct kai_gpushare_ann *a,
    struct kai_gpushare_ann *out);

#endif /* KAI_KUBE_GPUSHARE_H */
