/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gpushare.c: KAI's GPU-sharing annotations of a pod, read and judged
 * (gpushare.h).
 *
 * The rules are KAI's (its admission webhook's gpu_request_validator.go),
 * so that a pod KAI accepts kaid accepts and one KAI refuses kaid
 * refuses, with kaid's own words:
 *  - mps "true" needs gpu-fraction or gpu-memory;
 *  - gpu-fraction excludes an nvidia.com/gpu limit on any container;
 *  - gpu-memory excludes gpu-fraction and an nvidia.com/gpu limit;
 *  - gpu-fraction-num-devices needs gpu-fraction or gpu-memory;
 *  - gpu-memory is a positive base-10 integer (MiB);
 *  - gpu-fraction is a number above 0 and below 1, NaN refused, written
 *    as both Go's ParseFloat and a resource.Quantity accept it: a decimal
 *    with an optional exponent ("0.5", ".25", "5e-1"), neither hex nor a
 *    Quantity suffix ("500m");
 *  - gpu-fraction-num-devices is a positive base-10 integer.
 * kaid adds what it must to place the pod: a fraction of at least one
 * micro-GPU (kaid's unit), gpu-memory within a job's limit, at most
 * KAI_JOB_GPU_DEVICES_MAX devices (a node's most; more than the nodes
 * have is the scheduler's pending reason, not a refusal), and a
 * container name that names one of the pod's containers (KAI falls back
 * to the first).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xmalloc.h"
#include "gpushare.h"
#include "model/job.h"

const char *const kai_gpushare_keys[KAI_GPUSHARE_KEYS_N] = {
	"NVIDIA_VISIBLE_DEVICES", "GPU_PORTION", "RUNAI_NUM_OF_GPUS"};

/* Longest annotation value quoted in a message. */
#define QUOTE_MAX 64

bool
kai_gpushare_asked(const struct kai_gpushare_ann *a)
{
	return a->fraction != NULL || a->memory != NULL;
}

static int
bad(struct kai_err *err, const char *key, const char *val, const char *why)
{
	return kai_err_set(err, KAI_EINVAL, "annotation \"%s\" \"%.*s\": %s",
	    key, QUOTE_MAX, val, why);
}

static bool
digits(const char *s, size_t *n)
{
	size_t i = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	*n = i;
	return i > 0;
}

/*
 * Whether s is [+-] (D+ [. D*] | . D+) [(e|E) [+-] D+]: what both Go's
 * ParseFloat and resource.ParseQuantity accept without a suffix.
 */
static bool
decimal_ok(const char *s)
{
	size_t n, m = 0;

	if (*s == '+' || *s == '-')
		s++;
	if (digits(s, &n)) {
		s += n;
		if (*s == '.')
			(void)digits(++s, &m);
		s += m;
	} else if (*s == '.' && digits(s + 1, &m)) {
		s += 1 + m;
	} else {
		return false;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!digits(s, &n))
			return false;
		s += n;
	}
	return *s == '\0';
}

/* A positive base-10 integer, as Go's ParseUint(s, 10, 64) reads it. */
static bool
positive_ok(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return false;	/* strtoull takes signs and spaces */
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0' && *v > 0;
}

static int
parse_fraction(const char *s, uint32_t *micro, struct kai_err *err)
{
	double f;

	if (!decimal_ok(s))
		return bad(err, KAI_ANN_GPU_FRACTION, s,
		    "must be a number written with a decimal point or an "
		    "exponent (\"0.5\", \"5e-1\")");
	f = strtod(s, NULL);
	if (!(f > 0.0 && f < 1.0))	/* also NaN, which decimal_ok refuses */
		return bad(err, KAI_ANN_GPU_FRACTION, s,
		    "must be above 0 and below 1");
	*micro = (uint32_t)(f * KAI_GPU_MICRO + 0.5);
	if (*micro == 0)
		return bad(err, KAI_ANN_GPU_FRACTION, s,
		    "is below kaid's unit of one millionth of a GPU");
	if (*micro >= KAI_GPU_MICRO)
		*micro = KAI_GPU_MICRO - 1;	/* 0.9999999: below 1 still */
	return 0;
}

/* Mutual exclusions and dependencies, before any value is looked at. */
static int
check_combination(const struct kai_gpushare_ann *a, struct kai_err *err)
{
	if (!kai_gpushare_asked(a) && a->mps != NULL &&
	    strcmp(a->mps, "true") == 0)
		return bad(err, KAI_ANN_MPS, a->mps,
		    "MPS needs a \"gpu-fraction\" or \"gpu-memory\" request");
	if (a->fraction != NULL && a->whole_gpu_limit)
		return bad(err, KAI_ANN_GPU_FRACTION, a->fraction,
		    "excludes an nvidia.com/gpu request or limit on the pod's "
		    "containers");
	if (a->memory != NULL && a->fraction != NULL)
		return bad(err, KAI_ANN_GPU_MEMORY, a->memory,
		    "excludes annotation \"gpu-fraction\"");
	if (a->memory != NULL && a->whole_gpu_limit)
		return bad(err, KAI_ANN_GPU_MEMORY, a->memory,
		    "excludes an nvidia.com/gpu request or limit on the pod's "
		    "containers");
	if (a->num_devices != NULL && !kai_gpushare_asked(a))
		return bad(err, KAI_ANN_GPU_NUM_DEV, a->num_devices,
		    "needs a \"gpu-fraction\" or \"gpu-memory\" request");
	return 0;
}

/* The container that gets the share: named, else the first. */
static int
find_container(const struct kai_gpushare_ann *a, struct kai_gpushare *out,
    struct kai_err *err)
{
	size_t i;

	out->init = false;
	out->container = 0;
	if (a->container == NULL) {
		if (a->ncontainers == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "the pod has no container to give a GPU share");
		return 0;
	}
	for (i = 0; i < a->ncontainers + a->ninit; i++)
		if (strcmp(a->names[i], a->container) == 0) {
			out->init = i >= a->ncontainers;
			out->container = out->init ? i - a->ncontainers : i;
			return 0;
		}
	return bad(err, KAI_ANN_GPU_CONTAINER, a->container,
	    "names none of the pod's containers or init containers");
}

int
kai_gpushare_parse(const struct kai_gpushare_ann *a, struct kai_gpushare *out,
    struct kai_err *err)
{
	struct kai_gpushare g;
	uint64_t v;
	int r;

	memset(&g, 0, sizeof(g));
	if ((r = check_combination(a, err)) != 0)
		return r;
	if (!kai_gpushare_asked(a)) {
		*out = g;
		return 0;
	}
	if (a->memory != NULL) {
		if (!positive_ok(a->memory, &g.memory_mib))
			return bad(err, KAI_ANN_GPU_MEMORY, a->memory,
			    "must be a positive whole number of MiB");
		if (g.memory_mib > KAI_JOB_GPU_MEM_MAX)
			return bad(err, KAI_ANN_GPU_MEMORY, a->memory,
			    "is more MiB than one GPU can have");
	}
	if (a->fraction != NULL &&
	    (r = parse_fraction(a->fraction, &g.fraction, err)) != 0)
		return r;
	g.num_devices = 1;
	if (a->num_devices != NULL) {
		if (!positive_ok(a->num_devices, &v))
			return bad(err, KAI_ANN_GPU_NUM_DEV, a->num_devices,
			    "must be a positive whole number");
		/* More devices than any node has is a pending reason of
		 * the scheduler's (nodes come and go), but no node of
		 * kaid's can have more than this. */
		if (v > KAI_JOB_GPU_DEVICES_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "annotation \"%s\" \"%.*s\": kaid places a "
			    "share on at most %d devices of one node",
			    KAI_ANN_GPU_NUM_DEV, QUOTE_MAX, a->num_devices,
			    KAI_JOB_GPU_DEVICES_MAX);
		g.num_devices = (uint32_t)v;
	}
	if ((r = find_container(a, &g, err)) != 0)
		return r;
	*out = g;
	return 0;
}

/* The string member key of o, copied, or NULL. */
static char *
str_or_null(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o != NULL && json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return kai_xstrdup(json_object_get_string(v));
	return NULL;
}

static struct json_object *
member(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (o != NULL && json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, type))
		return v;
	return NULL;
}

/* Adds the names of the array list's containers; returns how many. */
static size_t
add_names(struct json_object *list, struct kai_gpushare_ann *a)
{
	size_t i, n = list != NULL ? json_object_array_length(list) : 0;
	size_t base = a->ncontainers + a->ninit;

	if (n == 0)
		return 0;
	a->names = kai_xreallocarray(a->names, base + n, sizeof(*a->names));
	for (i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(list, i);
		struct json_object *lim = member(member(c, "resources",
		    json_type_object), "limits", json_type_object);
		char *name = str_or_null(c, "name");

		a->names[base + i] = name != NULL ? name : kai_xstrdup("");
		if (member(lim, "nvidia.com/gpu", json_type_string) != NULL ||
		    member(lim, "nvidia.com/gpu", json_type_int) != NULL)
			a->whole_gpu_limit = true;
	}
	return n;
}

void
kai_gpushare_from_json(struct json_object *pod, struct kai_gpushare_ann *a)
{
	struct json_object *ann = member(member(pod, "metadata",
	    json_type_object), "annotations", json_type_object);
	struct json_object *spec = member(pod, "spec", json_type_object);

	memset(a, 0, sizeof(*a));
	a->fraction = str_or_null(ann, KAI_ANN_GPU_FRACTION);
	a->memory = str_or_null(ann, KAI_ANN_GPU_MEMORY);
	a->num_devices = str_or_null(ann, KAI_ANN_GPU_NUM_DEV);
	a->container = str_or_null(ann, KAI_ANN_GPU_CONTAINER);
	a->mps = str_or_null(ann, KAI_ANN_MPS);
	a->configmap = str_or_null(ann, KAI_ANN_GPU_CONFIGMAP);
	a->ncontainers = add_names(member(spec, "containers",
	    json_type_array), a);
	a->ninit = add_names(member(spec, "initContainers", json_type_array),
	    a);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? kai_xstrdup(s) : NULL;
}

void
kai_gpushare_ann_dup(const struct kai_gpushare_ann *a,
    struct kai_gpushare_ann *out)
{
	size_t i, n = a->ncontainers + a->ninit;

	*out = *a;
	out->fraction = dup_or_null(a->fraction);
	out->memory = dup_or_null(a->memory);
	out->num_devices = dup_or_null(a->num_devices);
	out->container = dup_or_null(a->container);
	out->mps = dup_or_null(a->mps);
	out->configmap = dup_or_null(a->configmap);
	out->names = n > 0 ? kai_xcalloc(n, sizeof(*out->names)) : NULL;
	for (i = 0; i < n; i++)
		out->names[i] = dup_or_null(a->names[i]);
}

void
kai_gpushare_ann_fini(struct kai_gpushare_ann *a)
{
	size_t i;

	free(a->fraction);
	free(a->memory);
	free(a->num_devices);
	free(a->container);
	free(a->mps);
	free(a->configmap);
	for (i = 0; i < a->ncontainers + a->ninit; i++)
		free(a->names[i]);
	free(a->names);
	memset(a, 0, sizeof(*a));
}
