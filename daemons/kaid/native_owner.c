/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_owner.c: a native pod's owner chain and PodGroup, read from the
 * API server (doc/k8s-native.md, "Owners and gangs").
 *
 * KAI's pod grouper follows ownerReferences[0] up to the owner that has
 * none (ReplicaSet -> Deployment, Job -> CronJob, ...) and takes the
 * queue, priority, preemptibility and topology from that top owner
 * first.  kaid does the same with a GET per owner, asynchronously (the
 * loop never waits): a pod whose chain is not all known is kept aside
 * ("parked", a copy of it) while the reads it needs are under way, and
 * run through native_pod() again when they answer.
 *
 * The cache holds each owner by uid (a PodGroup by namespace and name,
 * which is how pods name it), at most CACHE_MAX of them: a full cache is
 * emptied, and every owner is read again at its next use.  An entry is
 * used for FRESH_S seconds (so that a scaled StatefulSet or an edited
 * label is seen within that time), one the API refused (403, 404) for
 * REFUSED_S: KAI falls back to the last owner it could read, and so does
 * kaid, until a read succeeds.  A read that failed otherwise (a timeout,
 * the API down) is not cached: the pod is tried again on the next tick.
 * A pod whose PodGroup cannot be read gets no job (KAI leaves it pending
 * silently; kaid says why, once) and is tried again on each tick, so
 * that a PodGroup made after its pods is found within REFUSED_S.
 *
 * PodGroups are listed and watched besides (kube_watch.c): once their
 * list is whole, the watch's copy (pgs) is the truth, as KAI's informer
 * cache is: a PodGroup is never read by GET, one the watch does not
 * show does not exist, and a PodGroup made or changed makes the pods
 * that wait try again at once.  Until the list is whole, or when it
 * cannot be (no PodGroup CRD, no right to list them), PodGroups are
 * read by GET as above.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/native.h"
#include "sys/log.h"

#define CACHE_MAX  4096 /* owners and PodGroups kept */
#define CHAIN_MAX  8    /* owners followed up from a pod */
#define FRESH_S    30   /* an owner read is used this long */
#define REFUSED_S  10   /* a refused read is believed this long */
#define PARKED_MAX 65536 /* pods waiting for reads */
#define PG_API     "scheduling.run.ai/v2alpha2"

struct native {
	struct kai_map cache;	  /* key -> struct native_owner * */
	struct kai_map inflight;  /* key -> (non-NULL) while read */
	struct kai_map parked;	  /* pod key -> struct kai_pod * (a copy) */
	struct kai_map told;	  /* pod key -> the refusal posted on it */
	struct kai_map pgs;	  /* "PodGroup/ns/name" -> struct
				     native_owner *, from the watch */
	bool pgs_synced;	  /* the PodGroup list is whole */
	bool retry;		  /* a parked pod waits for a failed read */
};

/* What pgs says of a PodGroup it does not hold, once it is whole. */
static const struct native_owner pg_absent = {.readable = false};

/* The read of one object, with what to cache it as. */
struct read_ctx {
	struct kaid *k;
	char *key;
	char *api, *kind, *ns, *name;
};

static void
owner_free(void *p)
{
	struct native_owner *o = p;

	if (o == NULL)
		return;
	free(o->api);
	free(o->kind);
	free(o->ns);
	free(o->name);
	free(o->uid);
	free(o->up_api);
	free(o->up_kind);
	free(o->up_name);
	free(o->up_uid);
	free(o->queue);
	free(o->prio_class);
	free(o->preempt);
	free(o->topo_req);
	free(o->topo_pref);
	free(o->cond_reason);
	free(o->cond_message);
	kai_sgtree_free(o->tree);
	free(o);
}

static char *
dup0(const char *s)
{
	return kai_xstrdup(s != NULL ? s : "");
}

/* The fields of a pod that native.c reads, copied for a parked pod. */
struct kai_pod *
native_pod_dup(const struct kai_pod *p)
{
	struct kai_pod *c = kai_xcalloc(1, sizeof(*c));

	c->name = dup0(p->name);
	c->namespace = dup0(p->namespace);
	c->uid = dup0(p->uid);
	c->node = dup0(p->node);
	c->phase = p->phase;
	c->deleting = p->deleting;
	c->managed = p->managed;
	c->cpu_milli = p->cpu_milli;
	c->mem_mb = p->mem_mb;
	c->gpus = p->gpus;
	c->scheduler = dup0(p->scheduler);
	c->owner_kind = dup0(p->owner_kind);
	c->owner_name = dup0(p->owner_name);
	c->owner_api = dup0(p->owner_api);
	c->owner_uid = dup0(p->owner_uid);
	c->kai_queue = dup0(p->kai_queue);
	c->prio_class = dup0(p->prio_class);
	c->kai_preempt = dup0(p->kai_preempt);
	c->pod_group = dup0(p->pod_group);
	c->lws_group = dup0(p->lws_group);
	c->subgroup = dup0(p->subgroup);
	c->user_label = dup0(p->user_label);
	/* podshare.c judges the GPU-sharing annotations of a parked pod
	 * too: without them it would be a job of no share. */
	kai_gpushare_ann_dup(&p->share, &c->share);
	return c;
}

void
native_pod_free(void *p)
{
	struct kai_pod *c = p;

	if (c == NULL)
		return;
	free(c->name);
	free(c->namespace);
	free(c->uid);
	free(c->node);
	free(c->scheduler);
	free(c->owner_kind);
	free(c->owner_name);
	free(c->owner_api);
	free(c->owner_uid);
	free(c->kai_queue);
	free(c->prio_class);
	free(c->kai_preempt);
	free(c->pod_group);
	free(c->lws_group);
	free(c->subgroup);
	free(c->user_label);
	kai_gpushare_ann_fini(&c->share);
	free(c);
}

static struct native *
nat(struct kaid *k)
{
	if (k->native == NULL) {
		k->native = kai_xcalloc(1, sizeof(*k->native));
		kai_map_init(&k->native->cache, owner_free);
		kai_map_init(&k->native->inflight, NULL);
		kai_map_init(&k->native->parked, native_pod_free);
		kai_map_init(&k->native->told, free);
		kai_map_init(&k->native->pgs, owner_free);
	}
	return k->native;
}

void
native_owner_fini(struct kaid *k)
{
	if (k->native == NULL)
		return;
	kai_map_fini(&k->native->cache);
	kai_map_fini(&k->native->inflight);
	kai_map_fini(&k->native->parked);
	kai_map_fini(&k->native->told);
	kai_map_fini(&k->native->pgs);
	KAI_FREE(k->native);
}

/* What the API answered for one object, as the cache keeps it. */
static struct native_owner *
owner_from(const char *api, const char *kind, const char *ns,
    const char *name, const struct kai_kube_obj *o, int64_t now)
{
	struct native_owner *w = kai_xcalloc(1, sizeof(*w));
	bool pg = strcmp(kind, "PodGroup") == 0;

	w->api = kai_xstrdup(api);
	w->kind = kai_xstrdup(kind);
	w->ns = kai_xstrdup(ns);
	w->name = kai_xstrdup(name);
	w->read_at = now;
	w->readable = o != NULL;
	w->uid = dup0(kai_kube_obj_str(o, "metadata.uid"));
	w->up_api = dup0(kai_kube_obj_str(o,
	    "metadata.ownerReferences.0.apiVersion"));
	w->up_kind = dup0(kai_kube_obj_str(o,
	    "metadata.ownerReferences.0.kind"));
	w->up_name = dup0(kai_kube_obj_str(o,
	    "metadata.ownerReferences.0.name"));
	w->up_uid = dup0(kai_kube_obj_str(o,
	    "metadata.ownerReferences.0.uid"));
	w->queue = dup0(pg ? kai_kube_obj_str(o, "spec.queue") :
	    kai_kube_obj_label(o, "kai.scheduler/queue"));
	w->prio_class = dup0(pg ? kai_kube_obj_str(o,
	    "spec.priorityClassName") :
	    kai_kube_obj_label(o, "priorityClassName"));
	w->preempt = dup0(pg ? kai_kube_obj_str(o, "spec.preemptibility") :
	    kai_kube_obj_label(o, "kai.scheduler/preemptibility"));
	w->topo_req = dup0(pg ? kai_kube_obj_str(o,
	    "spec.topologyConstraint.requiredTopologyLevel") :
	    kai_kube_obj_annotation(o,
		"kai.scheduler/topology-required-placement"));
	w->topo_pref = dup0(pg ? kai_kube_obj_str(o,
	    "spec.topologyConstraint.preferredTopologyLevel") :
	    kai_kube_obj_annotation(o,
		"kai.scheduler/topology-preferred-placement"));
	w->min_member = o != NULL ? native_gang_min(kind, o) : 0;
	w->tree = native_gang_tree(kind, o);
	if (pg && o != NULL) {
		struct kai_kube_pg_cond c;

		kai_kube_pg_cond_read(o, &c);
		w->cond_id = c.id;
		w->cond_since = c.since;
		w->cond_reason = kai_xstrdup(c.reason);
		w->cond_message = kai_xstrdup(c.message);
	}
	return w;
}

/* Runs every parked pod through native_pod() again. */
static void
retry_all(struct kaid *k, int64_t now)
{
	struct native *n = nat(k);
	const char **keys;
	struct kai_pod **pods;
	const char *key;
	void *v;
	size_t it = 0, i, cnt = 0;

	keys = kai_xcalloc(n->parked.len + 1, sizeof(*keys));
	pods = kai_xcalloc(n->parked.len + 1, sizeof(*pods));
	while (kai_map_next(&n->parked, &it, &key, &v)) {
		keys[cnt] = kai_xstrdup(key);
		pods[cnt++] = native_pod_dup(v);
	}
	n->retry = false;
	for (i = 0; i < cnt; i++) {
		kai_map_del(&n->parked, keys[i]);
		state_native_retry(k, keys[i], pods[i], now);
		free((char *)keys[i]);
		native_pod_free(pods[i]);
	}
	free(keys);
	free(pods);
}

static void
on_read(int code, const struct kai_err *err, const struct kai_kube_obj *obj,
    void *ctx)
{
	struct read_ctx *rc = ctx;
	struct kaid *k = rc->k;
	int64_t now;

	if (code == KAI_EAGAIN)
		goto out;	/* kaid stops: the client was freed */
	now = kaid_now();
	kai_map_del(&nat(k)->inflight, rc->key);
	if (code == 0 || code == KAI_ENOENT || code == KAI_EPERM) {
		if (code != 0)
			kai_log_info("%s: kaid takes the owner below it as "
			    "the top one", err->msg);
		if (nat(k)->cache.len >= CACHE_MAX) {
			kai_map_fini(&nat(k)->cache);
			kai_map_init(&nat(k)->cache, owner_free);
		}
		kai_map_put(&nat(k)->cache, rc->key, owner_from(rc->api,
		    rc->kind, rc->ns, rc->name, code == 0 ? obj : NULL, now));
	} else {
		kai_log_warn("%s", err->msg);
		nat(k)->retry = true;	/* next tick */
	}
	retry_all(k, now);
out:
	free(rc->key);
	free(rc->api);
	free(rc->kind);
	free(rc->ns);
	free(rc->name);
	free(rc);
}

/*
 * The cached object of key, or NULL after starting its read (unless one
 * is under way already).
 */
static const struct native_owner *
lookup(struct kaid *k, const char *key, const char *api, const char *kind,
    const char *ns, const char *name, int64_t now)
{
	struct native *n = nat(k);
	struct native_owner *w = kai_map_get(&n->cache, key);
	struct read_ctx *rc;

	if (w != NULL && now - w->read_at < (w->readable ? FRESH_S :
	    REFUSED_S))
		return w;
	if (kai_map_get(&n->inflight, key) != NULL)
		return NULL;
	rc = kai_xcalloc(1, sizeof(*rc));
	rc->k = k;
	rc->key = kai_xstrdup(key);
	rc->api = kai_xstrdup(api);
	rc->kind = kai_xstrdup(kind);
	rc->ns = kai_xstrdup(ns);
	rc->name = kai_xstrdup(name);
	kai_map_put(&n->inflight, key, rc);
	kai_kube_object_get(k->kube, api, kind, ns, name, on_read, rc);
	return NULL;
}

static void
park(struct kaid *k, const char *key, const struct kai_pod *pod)
{
	struct native *n = nat(k);

	if (n->parked.len >= PARKED_MAX && kai_map_get(&n->parked, key) ==
	    NULL) {
		kai_log_warn("pod \"%s\": %d pods wait for their owners "
		    "already; it is looked at again when it changes", key,
		    PARKED_MAX);
		return;
	}
	kai_map_put(&n->parked, key, native_pod_dup(pod));
}

void
native_unpark(struct kaid *k, const char *key)
{
	if (k->native == NULL)
		return;
	kai_map_del(&k->native->parked, key);
	kai_map_del(&k->native->told, key);
}

bool
native_told(struct kaid *k, const char *key, const char *why)
{
	const char *was = kai_map_get(&nat(k)->told, key);

	if (was != NULL && strcmp(was, why) == 0)
		return true;
	kai_map_put(&nat(k)->told, key, kai_xstrdup(why));
	return false;
}

bool
native_busy(const struct kaid *k)
{
	/* Pods refused for a missing PodGroup wait too, but for nothing
	 * kaid reads now: they do not count. */
	return k->native != NULL && (k->native->inflight.len > 0 ||
	    k->native->parked.len > k->native->told.len);
}

void
native_retry_parked(struct kaid *k, int64_t now)
{
	if (k->native != NULL && k->native->retry)
		retry_all(k, now);
}

enum native_resolve
native_resolve(struct kaid *k, const char *key, const struct kai_pod *pod,
    int64_t now, struct native_group *g, char **why)
{
	const struct native_owner *chain[CHAIN_MAX], *w, *pg = NULL;
	const char *api = pod->owner_api, *kind = pod->owner_kind;
	const char *name = pod->owner_name, *uid = pod->owner_uid;
	bool wait = false;
	size_t n = 0;

	*why = NULL;
	if (pod->pod_group[0] != '\0') {
		pg = native_pg_known(k, pod->namespace, pod->pod_group, now);
		wait = pg == NULL;
	}
	while (name[0] != '\0' && uid[0] != '\0' && api[0] != '\0' &&
	    n < CHAIN_MAX) {
		if ((w = lookup(k, uid, api, kind, pod->namespace, name,
		    now)) == NULL) {
			wait = true;
			break;
		}
		if (!w->readable)
			break;	/* KAI: the last owner it could read */
		chain[n++] = w;
		api = w->up_api;
		kind = w->up_kind;
		name = w->up_name;
		uid = w->up_uid;
	}
	if (wait) {
		park(k, key, pod);
		return NATIVE_WAIT;
	}
	if (pg != NULL && !pg->readable) {
		*why = kai_xasprintf("PodGroup \"%s\" (annotation "
		    "pod-group-name) does not exist or cannot be read",
		    pod->pod_group);
		/* The PodGroup may be made after its pods: the watch then
		 * says so; without it, tried again each tick (read again
		 * after REFUSED_S). */
		park(k, key, pod);
		if (!nat(k)->pgs_synced)
			nat(k)->retry = true;
		return NATIVE_REFUSED;
	}
	native_unpark(k, key);
	native_group_make(pod, chain, n, pg, g);
	return NATIVE_READY;
}

/* The PodGroup watch: pgs follows it (see the top of the file). */
static void
on_podgroup(enum kai_kube_event ev, const struct kai_kube_obj *o, void *ctx)
{
	struct kaid *k = ctx;
	struct native *n = nat(k);
	const char *ns, *name;
	char *key;

	switch (ev) {
	case KAI_KUBE_RESET:
		kai_map_fini(&n->pgs);
		kai_map_init(&n->pgs, owner_free);
		n->pgs_synced = false;
		return;
	case KAI_KUBE_SYNCED:
		if (!n->pgs_synced)
			kai_log_info("PodGroup list synced: %zu PodGroups",
			    n->pgs.len);
		n->pgs_synced = true;
		retry_all(k, kaid_now());
		return;
	case KAI_KUBE_ADDED:
	case KAI_KUBE_MODIFIED:
	case KAI_KUBE_DELETED:
		break;
	}
	ns = kai_kube_obj_str(o, "metadata.namespace");
	name = kai_kube_obj_str(o, "metadata.name");
	if (ns == NULL || name == NULL)
		return;		/* not an object of a namespace: never */
	key = kai_xasprintf("PodGroup/%s/%s", ns, name);
	if (ev == KAI_KUBE_DELETED)
		kai_map_del(&n->pgs, key);
	else
		kai_map_put(&n->pgs, key, owner_from(PG_API, "PodGroup", ns,
		    name, o, kaid_now()));
	free(key);
	/* Pods that wait for it (made after them) try again now. */
	if (n->pgs_synced && ev != KAI_KUBE_DELETED)
		retry_all(k, kaid_now());
}

const struct native_owner *
native_pg_known(struct kaid *k, const char *ns, const char *name,
    int64_t now)
{
	const struct native_owner *pg;
	char *key = kai_xasprintf("PodGroup/%s/%s", ns, name);

	if (nat(k)->pgs_synced) {
		pg = kai_map_get(&nat(k)->pgs, key);
		if (pg == NULL)
			pg = &pg_absent;
	} else {
		pg = lookup(k, key, PG_API, "PodGroup", ns, name, now);
	}
	free(key);
	return pg;
}

void
native_watch_podgroups(struct kaid *k)
{
	kai_kube_watch_podgroups(k->kube, on_podgroup, k);
}
