/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_jctx.h: the checked readers of an apiserver object's JSON
 * (kube_json.c), shared by the node and pod parsers: a field present
 * with the wrong type is an error naming the object and the field.
 * Internal to src/kube.
 */
#ifndef KAI_KUBE_JCTX_H
#define KAI_KUBE_JCTX_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

#define LABEL_MANAGED "app.kubernetes.io/managed-by"
#define LABEL_JOB     "kaibatch.io/job-id"
#define LABEL_TASK    "kaibatch.io/task-index"
#define LABEL_QUEUE   "kaibatch.io/queue"
#define LABEL_MASK    "kaibatch.io/gpu-mask"
#define LABEL_SHARE   "kaibatch.io/gpu-share"
#define LABEL_GPU     "nvidia.com/gpu.product"
#define LABEL_GPU_MEM "nvidia.com/gpu.memory"
#define RES_GPU       "nvidia.com/gpu"
#define MIB           ((uint64_t)1 << 20)

/* Which object is being read, for error messages. */
struct jctx {
	const char *kind; /* "node", "pod" */
	const char *name; /* metadata.name once known */
	struct kai_err *err;
};

/* The error "KIND \"NAME\": FIELD: WHY" (KAI_EKUBE). */
int kube_jfail(const struct jctx *c, const char *field, const char *why);
/* o[key] unless o is not an object or the value is absent or null. */
struct json_object *kube_jchild(struct json_object *o, const char *key);
/* o[key] as type t, or NULL when absent; an error for another type. */
int kube_jget(const struct jctx *c, struct json_object *o, const char *key,
    json_type t, const char *field, struct json_object **out);
/* A string field; def when absent. */
int kube_jstr(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, const char *def, const char **out);
/* A string field, copied over *out ("" when absent); *out kept on error. */
int kube_jstrdup(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, char **out);
/* metadata and metadata.name, which every object must have (the name
 * names c from then on). */
int kube_meta_name(struct jctx *c, struct json_object *o,
    struct json_object **meta, char **name);
/* A label value as a string; NULL when absent. */
int kube_label(const struct jctx *c, struct json_object *labels,
    const char *key, const char **out);
/* One quantity of a resource map, in bytes or else in milli-units; 0
 * when absent. */
int kube_res_qty(const struct jctx *c, struct json_object *map,
    const char *key, const char *field, bool bytes, int64_t *out);

#endif /* KAI_KUBE_JCTX_H */
