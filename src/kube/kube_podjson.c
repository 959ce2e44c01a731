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
 *
 * Every pod meets the "restricted" Pod Security Standard, which many
 * clusters enforce on their namespaces: privilege escalation off, every
 * capability dropped, the runtime's default seccomp profile, and (unless
 * kaid.yaml lets jobs run as root) runAsNonRoot.  The volumes are the
 * caller's; hostPath and nfs ones are outside that profile (kaid.yaml(5)).
 * A failed container's last log lines become its termination message
 * (FallbackToLogsOnError), so why it failed outlives the pod.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

static void
add_bool(struct json_object *o, const char *key, bool val)
{
	json_object_object_add(o, key, json_object_new_boolean(val));
}

/* The restricted profile's rules that live in the container. */
static struct json_object *
container_security(void)
{
	struct json_object *sc = json_object_new_object(), *caps, *drop;

	add_bool(sc, "allowPrivilegeEscalation", false);
	caps = json_object_new_object();
	drop = json_object_new_array();
	json_object_array_add(drop, json_object_new_string("ALL"));
	json_object_object_add(caps, "drop", drop);
	json_object_object_add(sc, "capabilities", caps);
	return sc;
}

static struct json_object *
mounts(const struct kai_pod_spec *spec)
{
	struct json_object *a = json_object_new_array(), *m;
	size_t i;

	for (i = 0; i < spec->nmounts; i++) {
		const struct kai_pod_mount *pm = &spec->mounts[i];

		m = json_object_new_object();
		add_str(m, "name", pm->volume);
		add_str(m, "mountPath", pm->mount_path);
		if (pm->sub_path != NULL)
			add_str(m, "subPath", pm->sub_path);
		if (pm->read_only)
			add_bool(m, "readOnly", true);
		json_object_array_add(a, m);
	}
	return a;
}

static struct json_object *
container(const struct kai_pod_spec *spec)
{
	struct json_object *c = json_object_new_object(), *a, *e;
	size_t i;

	add_str(c, "name", "job");
	add_str(c, "image", spec->image);
	add_str(c, "imagePullPolicy", "IfNotPresent");
	add_str(c, "terminationMessagePolicy", "FallbackToLogsOnError");
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
	if (spec->nmounts > 0)
		json_object_object_add(c, "volumeMounts", mounts(spec));
	json_object_object_add(c, "securityContext", container_security());
	return c;
}

/* The source of one volume, by kind. */
static void
volume_source(const struct kai_pod_volume *v, struct json_object *o)
{
	struct json_object *src = json_object_new_object(), *items, *it, *f;
	char q[32];
	size_t i;

	switch (v->kind) {
	case KAI_VOL_HOSTPATH:
		add_str(src, "path", v->path);
		add_str(src, "type", "Directory");
		json_object_object_add(o, "hostPath", src);
		return;
	case KAI_VOL_PVC:
		add_str(src, "claimName", v->source);
		if (v->read_only)
			add_bool(src, "readOnly", true);
		json_object_object_add(o, "persistentVolumeClaim", src);
		return;
	case KAI_VOL_NFS:
		add_str(src, "server", v->server);
		add_str(src, "path", v->path);
		if (v->read_only)
			add_bool(src, "readOnly", true);
		json_object_object_add(o, "nfs", src);
		return;
	case KAI_VOL_MEMORY:
		add_str(src, "medium", "Memory");
		if (v->size_mb > 0) {
			(void)snprintf(q, sizeof(q), "%" PRIu64 "Mi",
			    v->size_mb);
			add_str(src, "sizeLimit", q);
		}
		json_object_object_add(o, "emptyDir", src);
		return;
	case KAI_VOL_ANNOTATIONS:
		items = json_object_new_array();
		for (i = 0; i < v->nitems; i++) {
			char *fp = kai_xasprintf("metadata.annotations['%s']",
			    v->items[2 * i + 1]);

			it = json_object_new_object();
			add_str(it, "path", v->items[2 * i]);
			f = json_object_new_object();
			add_str(f, "fieldPath", fp);
			json_object_object_add(it, "fieldRef", f);
			json_object_array_add(items, it);
			free(fp);
		}
		json_object_object_add(src, "items", items);
		json_object_object_add(o, "downwardAPI", src);
		return;
	case KAI_VOL_CONFIGMAP:
		add_str(src, "name", v->source);
		if (v->mode > 0)
			json_object_object_add(src, "defaultMode",
			    json_object_new_int(v->mode));
		if (v->nitems > 0) {
			items = json_object_new_array();
			for (i = 0; i < v->nitems; i++) {
				it = json_object_new_object();
				add_str(it, "key", v->items[2 * i]);
				add_str(it, "path", v->items[2 * i + 1]);
				json_object_array_add(items, it);
			}
			json_object_object_add(src, "items", items);
		}
		json_object_object_add(o, "configMap", src);
		return;
	case KAI_VOL_SECRET:
		add_str(src, "secretName", v->source);
		if (v->mode > 0)
			json_object_object_add(src, "defaultMode",
			    json_object_new_int(v->mode));
		json_object_object_add(o, "secret", src);
		return;
	}
	json_object_put(src);
}

static struct json_object *
volumes(const struct kai_pod_spec *spec)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < spec->nvolumes; i++) {
		o = json_object_new_object();
		add_str(o, "name", spec->volumes[i].name);
		volume_source(&spec->volumes[i], o);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *
tolerations(const struct kai_pod_spec *spec)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < spec->ntolerations; i++) {
		const struct kai_pod_toleration *t = &spec->tolerations[i];

		o = json_object_new_object();
		if (*t->key != '\0')
			add_str(o, "key", t->key);
		add_str(o, "operator", t->op);
		if (*t->value != '\0')
			add_str(o, "value", t->value);
		if (*t->effect != '\0')
			add_str(o, "effect", t->effect);
		json_object_array_add(a, o);
	}
	return a;
}

/* nodeSelector, tolerations, imagePullSecrets: the partition's pool. */
static void
node_pool(const struct kai_pod_spec *spec, struct json_object *s)
{
	struct json_object *a, *o;
	size_t i;

	if ((o = kv_map(spec->selector_kv, spec->nselector)) != NULL)
		json_object_object_add(s, "nodeSelector", o);
	if (spec->ntolerations > 0)
		json_object_object_add(s, "tolerations", tolerations(spec));
	if (spec->npull_secrets > 0) {
		a = json_object_new_array();
		for (i = 0; i < spec->npull_secrets; i++) {
			o = json_object_new_object();
			add_str(o, "name", spec->pull_secrets[i]);
			json_object_array_add(a, o);
		}
		json_object_object_add(s, "imagePullSecrets", a);
	}
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
	if (spec->fs_group)
		json_object_object_add(sc, "fsGroup",
		    json_object_new_int64(spec->run_as_gid));
	if (spec->run_as_non_root)
		json_object_object_add(sc, "runAsNonRoot",
		    json_object_new_boolean(1));
	g = json_object_new_object();
	add_str(g, "type", "RuntimeDefault");
	json_object_object_add(sc, "seccompProfile", g);
	return sc;
}

static struct json_object *
pod_spec(const struct kai_pod_spec *spec)
{
	struct json_object *s = json_object_new_object(), *ctrs, *dns, *search;

	add_str(s, "schedulerName", "kaid");
	add_str(s, "restartPolicy", "Never");
	json_object_object_add(s, "terminationGracePeriodSeconds",
	    json_object_new_int64(spec->grace_s > 0 ? spec->grace_s : 30));
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
	node_pool(spec, s);
	if (spec->nvolumes > 0)
		json_object_object_add(s, "volumes", volumes(spec));
	ctrs = json_object_new_array();
	json_object_array_add(ctrs, container(spec));
	json_object_object_add(s, "containers", ctrs);
	return s;
}

/*
 * A new object of kind (apiVersion v1) named name in ns, labelled as
 * kaid's and, with job_id, as that job's; *meta is its metadata.
 */
static struct json_object *
object_new(const char *kind, const char *name, const char *ns,
    const char *job_id, struct json_object **meta)
{
	struct json_object *o = json_object_new_object(), *labels;

	add_str(o, "apiVersion", "v1");
	add_str(o, "kind", kind);
	*meta = json_object_new_object();
	add_str(*meta, "name", name);
	add_str(*meta, "namespace", ns);
	labels = json_object_new_object();
	add_str(labels, "app.kubernetes.io/managed-by", "kaid");
	if (job_id != NULL)
		add_str(labels, "kaibatch.io/job-id", job_id);
	json_object_object_add(*meta, "labels", labels);
	json_object_object_add(o, "metadata", *meta);
	return o;
}

/*
 * o's text, a copy of the caller's, and o freed; wipe: json-c's own
 * copy is zeroed first (a Secret's text holds the job's key).
 */
static char *
object_text(struct json_object *o, bool wipe)
{
	const char *text = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *s;

	KAI_ASSERT(text != NULL); /* only out of memory */
	s = kai_xstrdup(text);
	if (wipe)
		explicit_bzero((char *)text, strlen(text));
	json_object_put(o);
	return s;
}

char *
kai_kube_pod_json(const struct kai_pod_spec *spec, const char *ns)
{
	struct json_object *pod;

	KAI_ASSERT(spec->name != NULL && spec->image != NULL && ns != NULL);
	pod = json_object_new_object();
	add_str(pod, "apiVersion", "v1");
	add_str(pod, "kind", "Pod");
	json_object_object_add(pod, "metadata", pod_meta(spec, ns));
	json_object_object_add(pod, "spec", pod_spec(spec));
	return object_text(pod, false);
}

char *
kai_kube_configmap_json(const char *name, const char *const *kv, size_t n,
    const char *const *bin_kv, size_t nbin, const char *ns)
{
	return kai_kube_configmap_owned_json(name, kv, n, bin_kv, nbin, ns, NULL,
	    NULL);
}

/* metadata.ownerReferences: the pod, so that its deletion takes cm. */
static void
add_pod_owner(struct json_object *meta, const char *pod, const char *uid)
{
	struct json_object *refs = json_object_new_array(), *ref;

	ref = json_object_new_object();
	add_str(ref, "apiVersion", "v1");
	add_str(ref, "kind", "Pod");
	add_str(ref, "name", pod);
	add_str(ref, "uid", uid);
	json_object_array_add(refs, ref);
	json_object_object_add(meta, "ownerReferences", refs);
}

char *
kai_kube_configmap_owned_json(const char *name, const char *const *kv,
    size_t n, const char *const *bin_kv, size_t nbin, const char *ns,
    const char *owner_pod, const char *owner_uid)
{
	struct json_object *meta, *bin;
	struct json_object *cm = object_new("ConfigMap", name, ns, NULL, &meta);

	if (owner_pod != NULL)
		add_pod_owner(meta, owner_pod, owner_uid);
	json_object_object_add(cm, "data", kv_map(kv, n));
	if ((bin = kv_map(bin_kv, nbin)) != NULL)
		json_object_object_add(cm, "binaryData", bin);
	return object_text(cm, false);
}

char *
kai_kube_secret_json(const char *name, const char *job_id,
    const char *const *kv, size_t n, const char *ns)
{
	struct json_object *meta;
	struct json_object *sec = object_new("Secret", name, ns, job_id, &meta);

	add_str(sec, "type", "Opaque");
	json_object_object_add(sec, "data", kv_map(kv, n));
	return object_text(sec, true);
}

char *
kai_kube_service_json(const char *name, const char *job_id, const char *ns)
{
	struct json_object *meta, *spec, *sel;
	struct json_object *svc = object_new("Service", name, ns, job_id, &meta);

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
	return object_text(svc, false);
}
