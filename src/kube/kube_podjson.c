/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_podjson.c: the Pod object kaid creates, from struct kai_pod_spec.
 *
 * Only the fields kaid means are written, so the server defaults the
 * rest the same way for every pod: schedulerName "kaid" (no other
 * scheduler touches it; kaid binds it), restartPolicy Never (a batch task
 * runs once), no service-account token (jobs get no API access), and one
 * container "job".  Requests equal limits for cpu and memory, so the pod
 * is Guaranteed and what the scheduler counted is what the node reserves;
 * nvidia.com/gpu goes only in limits, from which the server defaults the
 * request.  The script and environment travel as data in the object,
 * never through a shell command line.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

static void
add_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

/* {"k": "v", ...} from key/value pairs, or NULL when there are none. */
static struct json_object *
kv_map(const char *const *kv, size_t n)
{
	struct json_object *o;
	size_t i;

	if (n == 0)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < n; i++)
		add_str(o, kv[2 * i], kv[2 * i + 1]);
	return o;
}

static struct json_object *
pod_meta(const struct kai_pod_spec *spec, const char *ns)
{
	struct json_object *meta = json_object_new_object(), *m;

	add_str(meta, "name", spec->name);
	add_str(meta, "namespace", ns);
	if ((m = kv_map(spec->label_kv, spec->nlabels)) != NULL)
		json_object_object_add(meta, "labels", m);
	if ((m = kv_map(spec->annot_kv, spec->nannots)) != NULL)
		json_object_object_add(meta, "annotations", m);
	return meta;
}

/* cpu and memory, or NULL when neither is set. */
static struct json_object *
cpu_mem(const struct kai_pod_spec *spec)
{
	struct json_object *o;
	char q[32];

	if (spec->cpu_milli <= 0 && spec->mem_mb == 0)
		return NULL;
	o = json_object_new_object();
	if (spec->cpu_milli > 0) {
		(void)snprintf(q, sizeof(q), "%" PRId64 "m", spec->cpu_milli);
		add_str(o, "cpu", q);
	}
	if (spec->mem_mb > 0) {
		(void)snprintf(q, sizeof(q), "%" PRIu64 "Mi", spec->mem_mb);
		add_str(o, "memory", q);
	}
	return o;
}

static struct json_object *
resources(const struct kai_pod_spec *spec)
{
	struct json_object *res = json_object_new_object(), *lim, *req;
	char q[16];

	req = cpu_mem(spec);
	lim = cpu_mem(spec);
	if (spec->gpus > 0) {
		if (lim == NULL)
			lim = json_object_new_object();
		(void)snprintf(q, sizeof(q), "%" PRIu32, spec->gpus);
		add_str(lim, "nvidia.com/gpu", q);
	}
	if (lim != NULL)
		json_object_object_add(res, "limits", lim);
	if (req != NULL)
		json_object_object_add(res, "requests", req);
	return res;
}

static struct json_object *
container(const struct kai_pod_spec *spec)
{
	struct json_object *c = json_object_new_object(), *a, *e;
	size_t i;

	add_str(c, "name", "job");
	add_str(c, "image", spec->image);
	add_str(c, "imagePullPolicy", "IfNotPresent");
	if (spec->ncommand > 0) {
		a = json_object_new_array();
		for (i = 0; i < spec->ncommand; i++)
			json_object_array_add(a,
			    json_object_new_string(spec->command[i]));
		json_object_object_add(c, "command", a);
	}
	if (spec->nenv > 0) {
		a = json_object_new_array();
		for (i = 0; i < spec->nenv; i++) {
			e = json_object_new_object();
			add_str(e, "name", spec->env_kv[2 * i]);
			add_str(e, "value", spec->env_kv[2 * i + 1]);
			json_object_array_add(a, e);
		}
		json_object_object_add(c, "env", a);
	}
	json_object_object_add(c, "resources", resources(spec));
	return c;
}

static struct json_object *
security(const struct kai_pod_spec *spec)
{
	struct json_object *sc = json_object_new_object(), *g;
	size_t i;

	json_object_object_add(sc, "runAsUser",
	    json_object_new_int64(spec->run_as_uid));
	json_object_object_add(sc, "runAsGroup",
	    json_object_new_int64(spec->run_as_gid));
	if (spec->ngroups > 0) {
		g = json_object_new_array();
		for (i = 0; i < spec->ngroups; i++)
			json_object_array_add(g,
			    json_object_new_int64(spec->groups[i]));
		json_object_object_add(sc, "supplementalGroups", g);
	}
	if (spec->run_as_non_root)
		json_object_object_add(sc, "runAsNonRoot",
		    json_object_new_boolean(1));
	return sc;
}

static struct json_object *
pod_spec(const struct kai_pod_spec *spec)
{
	struct json_object *s = json_object_new_object(), *ctrs, *dns, *search;

	add_str(s, "schedulerName", "kaid");
	add_str(s, "restartPolicy", "Never");
	json_object_object_add(s, "terminationGracePeriodSeconds",
	    json_object_new_int64(30));
	if (spec->active_deadline_s > 0)
		json_object_object_add(s, "activeDeadlineSeconds",
		    json_object_new_int64(spec->active_deadline_s));
	if (spec->hostname != NULL)
		add_str(s, "hostname", spec->hostname);
	if (spec->subdomain != NULL)
		add_str(s, "subdomain", spec->subdomain);
	if (spec->dns_search != NULL) {
		dns = json_object_new_object();
		search = json_object_new_array();
		json_object_array_add(search,
		    json_object_new_string(spec->dns_search));
		json_object_object_add(dns, "searches", search);
		json_object_object_add(s, "dnsConfig", dns);
	}
	json_object_object_add(s, "automountServiceAccountToken",
	    json_object_new_boolean(0));
	json_object_object_add(s, "securityContext", security(spec));
	ctrs = json_object_new_array();
	json_object_array_add(ctrs, container(spec));
	json_object_object_add(s, "containers", ctrs);
	return s;
}

char *
kai_kube_pod_json(const struct kai_pod_spec *spec, const char *ns)
{
	struct json_object *pod;
	const char *text;
	char *s;

	KAI_ASSERT(spec->name != NULL && spec->image != NULL && ns != NULL);
	pod = json_object_new_object();
	add_str(pod, "apiVersion", "v1");
	add_str(pod, "kind", "Pod");
	json_object_object_add(pod, "metadata", pod_meta(spec, ns));
	json_object_object_add(pod, "spec", pod_spec(spec));
	text = json_object_to_json_string_ext(pod,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	KAI_ASSERT(text != NULL); /* only out of memory */
	s = kai_xstrdup(text);
	json_object_put(pod);
	return s;
}

char *
kai_kube_service_json(const char *name, const char *job_id, const char *ns)
{
	struct json_object *svc = json_object_new_object(), *meta, *spec;
	struct json_object *labels, *sel;
	const char *text;
	char *s;

	add_str(svc, "apiVersion", "v1");
	add_str(svc, "kind", "Service");
	meta = json_object_new_object();
	add_str(meta, "name", name);
	add_str(meta, "namespace", ns);
	labels = json_object_new_object();
	add_str(labels, "app.kubernetes.io/managed-by", "kaid");
	add_str(labels, "kaibatch.io/job-id", job_id);
	json_object_object_add(meta, "labels", labels);
	json_object_object_add(svc, "metadata", meta);
	spec = json_object_new_object();
	add_str(spec, "clusterIP", "None");
	sel = json_object_new_object();
	add_str(sel, "kaibatch.io/job-id", job_id);
	json_object_object_add(spec, "selector", sel);
	/* A pod's DNS record must exist before it is ready: the tasks look
	 * each other up while they start. */
	json_object_object_add(spec, "publishNotReadyAddresses",
	    json_object_new_boolean(1));
	json_object_object_add(svc, "spec", spec);
	text = json_object_to_json_string_ext(svc,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	KAI_ASSERT(text != NULL); /* only out of memory */
	s = kai_xstrdup(text);
	json_object_put(svc);
	return s;
}
