/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_json.c: Node JSON from the apiserver into struct kai_node, the
 * Status message of an error reply, and the checked readers of untrusted
 * JSON (kube_jctx.h) that kube_podparse.c reads pods with.
 *
 * Every reply is untrusted input.  A field that is absent takes its
 * documented default (a pod with no status is Pending); a field that is
 * present with the wrong type, a quantity that does not parse or a
 * missing metadata.name is an error naming the object and the field:
 * `pod "kai-42-0": status.containerStatuses[0].state.terminated.exitCode:
 * expected an integer`.  On error the output struct holds no memory.
 *
 * Pods are read in kube_podparse.c; the Pod JSON kaid sends is built
 * in kube_podjson.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "kube/kube_jctx.h"



int
kube_jfail(const struct jctx *c, const char *field, const char *why)
{
	if (c->name != NULL)
		return kai_err_set(c->err, KAI_EKUBE, "%s \"%s\": %s: %s",
		    c->kind, c->name, field, why);
	return kai_err_set(c->err, KAI_EKUBE, "%s: %s: %s", c->kind, field,
	    why);
}

/* o[key] unless o is not an object or the value is absent or null. */
struct json_object *
kube_jchild(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* o[key] as type t, or NULL when absent; an error for another type. */
int
kube_jget(const struct jctx *c, struct json_object *o, const char *key,
    json_type t, const char *field, struct json_object **out)
{
	static const char *const names[] = {
	    [json_type_object] = "an object",
	    [json_type_array] = "an array",
	    [json_type_string] = "a string",
	    [json_type_int] = "an integer",
	    [json_type_boolean] = "a boolean",
	};
	char why[32];

	*out = kube_jchild(o, key);
	if (*out == NULL || json_object_is_type(*out, t))
		return 0;
	(void)snprintf(why, sizeof(why), "expected %s", names[t]);
	*out = NULL;
	return kube_jfail(c, field, why);
}

/* A string field; def when absent. */
int
kube_jstr(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, const char *def, const char **out)
{
	struct json_object *v;
	int r;

	if ((r = kube_jget(c, o, key, json_type_string, field, &v)) != 0)
		return r;
	*out = v != NULL ? json_object_get_string(v) : def;
	return 0;
}

/* A string field, copied over *out ("" when absent); *out kept on error. */
int
kube_jstrdup(const struct jctx *c, struct json_object *o, const char *key,
    const char *field, char **out)
{
	const char *s;
	int r;

	if ((r = kube_jstr(c, o, key, field, "", &s)) != 0)
		return r;
	free(*out);
	*out = kai_xstrdup(s);
	return 0;
}

struct json_object *
kube_json_parse(const char *s, size_t n, struct kai_err *err)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error e;
	size_t used;

	if (n > INT32_MAX) {
		kai_err_set(err, KAI_EKUBE, "invalid JSON: too large");
		return NULL;
	}
	tok = json_tokener_new_ex(KUBE_JSON_DEPTH);
	o = json_tokener_parse_ex(tok, s, (int)n);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || e != json_tokener_success) {
		json_object_put(o);
		kai_err_set(err, KAI_EKUBE, "invalid JSON: %s",
		    e == json_tokener_continue ? "unexpected end of data"
					       : json_tokener_error_desc(e));
		return NULL;
	}
	for (; used < n; used++) {
		if (s[used] != ' ' && s[used] != '\t' && s[used] != '\r' &&
		    s[used] != '\n') {
			json_object_put(o);
			kai_err_set(err, KAI_EKUBE,
			    "invalid JSON: trailing data at offset %zu", used);
			return NULL;
		}
	}
	return o;
}

const char *
kube_json_rv(struct json_object *o)
{
	struct json_object *v =
	    kube_jchild(kube_jchild(o, "metadata"), "resourceVersion");

	if (v == NULL || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

void
kube_status_message(const char *body, size_t n, char *out, size_t outsz)
{
	struct json_object *o, *m;
	size_t len;

	out[0] = '\0';
	if (n == 0 || outsz == 0)
		return;
	if ((o = kube_json_parse(body, n, NULL)) != NULL) {
		m = kube_jchild(o, "message");
		if (m != NULL && json_object_is_type(m, json_type_string))
			(void)snprintf(out, outsz, "%s",
			    json_object_get_string(m));
		json_object_put(o);
		if (out[0] != '\0')
			return;
	}
	/* Not a Status (a proxy's HTML page, say): its first line. */
	len = strcspn(body, "\r\n");
	if (len > n)
		len = n;
	(void)snprintf(out, outsz, "%.*s", (int)(len < outsz ? len : outsz - 1),
	    body);
}

/* metadata and metadata.name, which every object must have. */
int
kube_meta_name(struct jctx *c, struct json_object *o, struct json_object **meta,
    char **name)
{
	const char *s;
	int r;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return kai_err_set(c->err, KAI_EKUBE, "%s: not a JSON object",
		    c->kind);
	r = kube_jget(c, o, "metadata", json_type_object, "metadata", meta);
	if (r != 0)
		return r;
	if ((r = kube_jstr(c, *meta, "name", "metadata.name", NULL, &s)) != 0)
		return r;
	if (s == NULL || *s == '\0')
		return kube_jfail(c, "metadata.name", "missing");
	*name = kai_xstrdup(s);
	c->name = *name;
	return 0;
}

/* A label value as a string; NULL when absent. */
int
kube_label(const struct jctx *c, struct json_object *labels, const char *key,
    const char **out)
{
	return kube_jstr(c, labels, key, "metadata.labels", NULL, out);
}

static int
node_labels(struct jctx *c, struct json_object *meta, struct kai_node *n)
{
	struct json_object_iterator it, end;
	struct json_object *val;
	struct json_object *labels;
	const char *s;
	size_t i = 0;
	int r;

	r = kube_jget(c, meta, "labels", json_type_object, "metadata.labels",
	    &labels);
	if (r != 0 || labels == NULL)
		return r;
	n->labels = kai_xcalloc((size_t)json_object_object_length(labels),
	    sizeof(*n->labels));
	it = json_object_iter_begin(labels);
	end = json_object_iter_end(labels);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		val = json_object_iter_peek_value(&it);
		if (!json_object_is_type(val, json_type_string))
			return kube_jfail(c, "metadata.labels", "expected strings");
		n->labels[i++] =
		    kai_xasprintf("%s=%s", json_object_iter_peek_name(&it),
			json_object_get_string(val));
		n->nlabels = i;
	}
	if ((r = kube_label(c, labels, LABEL_GPU, &s)) != 0)
		return r;
	if (s != NULL) {
		free(n->gpu_product);
		n->gpu_product = kai_xstrdup(s);
	}
	if ((r = kube_label(c, labels, LABEL_GPU_MEM, &s)) != 0 || s == NULL)
		return r;
	if (kai_strtou64(s, UINT32_MAX, &n->gpu_mem_mb, "label", NULL) != 0)
		return kube_jfail(c, "metadata.labels[\"" LABEL_GPU_MEM "\"]",
		    "not a number of MiB");
	return 0;
}

/* One quantity of a resource map; 0 when absent. */
int
kube_res_qty(const struct jctx *c, struct json_object *map, const char *key,
    const char *field, bool bytes, int64_t *out)
{
	struct kai_err e;
	const char *s;
	uint64_t b;
	int r;

	*out = 0;
	if ((r = kube_jstr(c, map, key, field, NULL, &s)) != 0 || s == NULL)
		return r;
	if (bytes)
		r = kube_qty_bytes(s, &b, &e);
	else
		r = kube_qty_milli(s, out, &e);
	if (r != 0)
		return kube_jfail(c, field, kai_err_msg(&e));
	if (bytes)
		*out = (int64_t)b;
	return 0;
}

static int
node_status(struct jctx *c, struct json_object *o, struct kai_node *n)
{
	struct json_object *st, *alloc, *conds, *cond;
	const char *type, *status;
	int64_t v;
	size_t i;
	int r;

	if ((r = kube_jget(c, o, "status", json_type_object, "status", &st)) != 0)
		return r;
	r = kube_jget(c, st, "allocatable", json_type_object, "status.allocatable",
	    &alloc);
	if (r == 0 && alloc == NULL)
		r = kube_jget(c, st, "capacity", json_type_object, "status.capacity",
		    &alloc);
	if (r != 0)
		return r;
	if ((r = kube_res_qty(c, alloc, "cpu", "status.allocatable.cpu", false,
		 &n->cpu_milli)) != 0)
		return r;
	if ((r = kube_res_qty(c, alloc, "memory", "status.allocatable.memory", true,
		 &v)) != 0)
		return r;
	n->mem_mb = (uint64_t)v / MIB;
	if ((r = kube_res_qty(c, alloc, RES_GPU,
		 "status.allocatable[\"" RES_GPU "\"]", false, &v)) != 0)
		return r;
	n->gpus = v / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(v / 1000);
	r = kube_jget(c, st, "conditions", json_type_array, "status.conditions",
	    &conds);
	for (i = 0;
	     r == 0 && conds != NULL && i < json_object_array_length(conds);
	     i++) {
		cond = json_object_array_get_idx(conds, i);
		if ((r = kube_jstr(c, cond, "type", "status.conditions.type", "",
			 &type)) != 0 ||
		    (r = kube_jstr(c, cond, "status", "status.conditions.status", "",
			 &status)) != 0)
			break;
		if (strcmp(type, "Ready") == 0)
			n->ready = strcmp(status, "True") == 0;
	}
	return r;
}

/*
 * Every taint as "key=value:Effect" (the scheduler's node pools), and
 * the first that keeps new pods off the node (NoSchedule or NoExecute) as
 * "key:Effect", which kinfo shows as a drained node's reason.
 */
static int
node_taint(const struct jctx *c, struct json_object *spec, struct kai_node *n)
{
	struct json_object *taints, *t;
	const char *key, *value, *effect;
	size_t i;
	int r;

	if (spec == NULL)
		return 0;
	if ((r = kube_jget(c, spec, "taints", json_type_array, "spec.taints",
		 &taints)) != 0 ||
	    taints == NULL)
		return r;
	n->taints = kai_xcalloc(json_object_array_length(taints) + 1,
	    sizeof(*n->taints));
	for (i = 0; i < json_object_array_length(taints); i++) {
		t = json_object_array_get_idx(taints, i);
		if ((r = kube_jstr(c, t, "key", "spec.taints.key", "", &key)) != 0 ||
		    (r = kube_jstr(c, t, "value", "spec.taints.value", "",
			 &value)) != 0 ||
		    (r = kube_jstr(c, t, "effect", "spec.taints.effect", "",
			 &effect)) != 0)
			return r;
		n->taints[n->ntaints++] = kai_xasprintf("%s%s%s:%s", key,
		    *value != '\0' ? "=" : "", value, effect);
		if ((strcmp(effect, "NoSchedule") == 0 ||
		    strcmp(effect, "NoExecute") == 0) && *n->taint == '\0') {
			free(n->taint);
			n->taint = kai_xasprintf("%s:%s", key, effect);
		}
	}
	return 0;
}

int
kube_node_from_json(struct json_object *o, struct kai_node *n,
    struct kai_err *err)
{
	struct jctx c = {"node", NULL, err};
	struct json_object *meta = NULL, *spec = NULL, *v = NULL;
	int r;

	memset(n, 0, sizeof(*n));
	n->gpu_product = kai_xstrdup("");
	n->taint = kai_xstrdup("");
	if ((r = kube_meta_name(&c, o, &meta, &n->name)) != 0 ||
	    (r = node_labels(&c, meta, n)) != 0 ||
	    (r = kube_jget(&c, o, "spec", json_type_object, "spec", &spec)) != 0 ||
	    (r = kube_jget(&c, spec, "unschedulable", json_type_boolean,
		 "spec.unschedulable", &v)) != 0 ||
	    (r = node_taint(&c, spec, n)) != 0 ||
	    (r = node_status(&c, o, n)) != 0) {
		kube_node_fini(n);
		return r;
	}
	n->unschedulable = v != NULL && json_object_get_boolean(v);
	return 0;
}

void
kube_node_fini(struct kai_node *n)
{
	size_t i;

	for (i = 0; i < n->nlabels; i++)
		free(n->labels[i]);
	free(n->labels);
	for (i = 0; i < n->ntaints; i++)
		free(n->taints[i]);
	free(n->taints);
	free(n->name);
	free(n->gpu_product);
	free(n->taint);
	memset(n, 0, sizeof(*n));
}

int
kube_node_parse(const char *json, struct kai_node *node, struct kai_err *err)
{
	struct json_object *o;
	int r;

	memset(node, 0, sizeof(*node));
	if ((o = kube_json_parse(json, strlen(json), err)) == NULL)
		return err != NULL ? kai_err_prefix(err, "node") : KAI_EKUBE;
	r = kube_node_from_json(o, node, err);
	json_object_put(o);
	return r;
}

