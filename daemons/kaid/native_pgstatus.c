/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_pgstatus.c: a PodGroup's status written back, as KAI writes it
 * (doc/k8s-native.md, "Status written back"; src/kube/kube_kaistatus.c
 * has the fields).
 *
 * Each tick, for every active gang job whose group is a PodGroup
 * ("ns/PodGroup:name"), kaid sums its member pods' requests (active
 * ones: requested; bound ones: allocated, and allocatedNonPreemptible
 * when the job is not preemptible) and takes the reason it waits
 * (kqueue's, while it is pending).  The status is written (a PATCH of the
 * status subresource) only when that changes: the sums or the reason
 * code; new words of the same code as the Events tell them
 * (native_words_due: a gang waiting for its pods at once, others, which
 * count the jobs ahead and change every tick, a minute after the last
 * write, or with the next change before that).  When the job ends,
 * a last status with nothing requested or allocated and no condition is
 * written, and the PodGroup is forgotten.
 *
 * The condition's transitionID is KAI's scheduler's: the last
 * condition's plus one when the condition (reason code or words) is not
 * the last one written, else the same, with its lastTransitionTime; a
 * group placed has none, so its next wait is 1 again.  The last one is
 * what kaid wrote, kept here, or, for a PodGroup kaid has not written
 * since it started, the one the object shows (the watch's or the GET's
 * copy, as KAI reads its informer's): a restarted kaid counts on.  Such
 * a PodGroup is written only once kaid has its copy and its members.
 *
 * A write that fails (the PodGroup deleted, no right to patch its
 * status: rbac-native.yaml) is logged at info and not retried until the
 * status changes again: the status is for people and tools to read,
 * nothing of kaid's depends on it.  At most STATUS_INFLIGHT_MAX writes
 * (PodGroups' and Queues') are under way: the rest wait for a later
 * tick, so that a thousand gangs placed at once do not hold up binds.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/kaid.h"
#include "daemons/kaid/native.h"
#include "sys/log.h"

#define PG_API "scheduling.run.ai/v2alpha2"

/*
 * What was written on a PodGroup (k->pgstatus's values, one allocation:
 * free() frees it): the status's key and its condition: the reason code
 * and words ("" and transition 0: none), its transitionID and time.
 */
struct written {
	uint32_t transition;
	int64_t since;		/* lastTransitionTime, unix s */
	int64_t at;		/* when it was written, unix s */
	char *reason;		/* points into buf */
	char *message;		/* points into buf */
	char *sig;		/* points into buf */
	char buf[];
};

static const char *
str0(const char *s)
{
	return s != NULL ? s : "";
}

static struct written *
written_new(const char *sig, const struct kai_kube_kai_status *st)
{
	const char *reason = str0(st->reason), *msg = str0(st->message);
	size_t ls = strlen(sig) + 1, lr = strlen(reason) + 1;
	size_t lm = strlen(msg) + 1;
	struct written *w = kai_xmalloc(sizeof(*w) + ls + lr + lm);

	w->transition = st->transition;
	w->since = st->since;
	w->at = st->now;
	w->sig = w->buf;
	w->reason = w->buf + ls;
	w->message = w->reason + lr;
	memcpy(w->sig, sig, ls);
	memcpy(w->reason, reason, lr);
	memcpy(w->message, msg, lm);
	return w;
}

/* Whether st says nothing new since was (the words may wait). */
static bool
unchanged(const struct written *was, const char *sig,
    const struct kai_kube_kai_status *st)
{
	if (was == NULL || strcmp(was->sig, sig) != 0)
		return false;
	if (st->reason == NULL || strcmp(was->message, str0(st->message)) == 0)
		return true;
	return !native_words_due(st->reason, was->at, st->now);
}

/*
 * Numbers the condition of st as KAI's scheduler does (setTransitionID,
 * shouldUpdateCondition): from the last condition, c.
 */
static void
number(struct kai_kube_kai_status *st, const struct kai_kube_pg_cond *c)
{
	if (st->reason == NULL) {
		st->transition = 0;	/* placed: no condition */
		st->since = 0;
	} else if (c->id != 0 && strcmp(c->reason, st->reason) == 0 &&
	    strcmp(c->message, str0(st->message)) == 0) {
		st->transition = c->id;	/* the same condition */
		st->since = c->since != 0 ? c->since : st->now;
	} else {
		st->transition = c->id + 1;
		st->since = st->now;
	}
}

/*
 * The last condition of PodGroup ns/name into *c: the one kaid wrote
 * (was), else the object's; false while kaid has no copy of the object
 * (its read under way) or it does not exist, and, for a first write,
 * until the gang's members are back (after a restart: the pod list
 * whole and no pod waiting for its owners, as native_sweep waits), so
 * that a gang that seems empty meanwhile writes no condition of its own.
 */
static bool
last_cond(struct kaid *k, const struct written *was, const char *ns,
    const char *name, int64_t now, struct kai_kube_pg_cond *c)
{
	const struct native_owner *pg;

	if (was != NULL) {
		c->id = was->transition;
		c->reason = was->reason;
		c->message = was->message;
		c->since = was->since;
		return true;
	}
	if (!state_synced(k) || native_busy(k) ||
	    (pg = native_pg_known(k, ns, name, now)) == NULL || !pg->readable)
		return false;
	c->id = pg->cond_id;
	c->reason = str0(pg->cond_reason);
	c->message = str0(pg->cond_message);
	c->since = pg->cond_since;
	return true;
}

/* One PodGroup's sums this tick. */
struct pgsum {
	const struct kai_job *j;
	struct kai_kube_kai_status st;
};

void
native_status_done(int code, const struct kai_err *err, void *ctx)
{
	struct kaid *k = ctx;

	if (k->status_inflight > 0)
		k->status_inflight--;
	if (code != 0 && code != KAI_EAGAIN)
		kai_log_info("%s", err->msg);
}

/*
 * Splits a gang's workload "ns/PodGroup:name" into ns and name (into
 * buffers of n); false for another kind of group.
 */
static bool
pg_of(const struct kai_job *j, char *ns, char *name, size_t n)
{
	const char *slash = strchr(j->workload, '/');
	static const char kind[] = "PodGroup:";

	if (slash == NULL || (size_t)(slash - j->workload) >= n ||
	    strncmp(slash + 1, kind, sizeof(kind) - 1) != 0 ||
	    strlen(slash + sizeof(kind)) >= n)
		return false;
	memcpy(ns, j->workload, (size_t)(slash - j->workload));
	ns[slash - j->workload] = '\0';
	(void)snprintf(name, n, "%s", slash + sizeof(kind));
	return true;
}

static void
add(struct kai_kube_res *r, const struct pod_rec *p, const struct kai_job *j)
{
	r->cpu_milli += p->cpu_milli > 0 ? (uint64_t)p->cpu_milli : 0;
	r->mem_mb += p->mem_mb;
	/* A share is the job's (its pods ask no whole GPU). */
	r->gpu_micro += p->gpus > 0 ? (uint64_t)p->gpus * 1000000 :
	    kai_job_share_micro(j->gpu_fraction, j->gpu_devices);
}

static int
by_job(const void *a, const void *b)
{
	uint64_t x = ((const struct pgsum *)a)->j->id;
	uint64_t y = ((const struct pgsum *)b)->j->id;

	return x < y ? -1 : x > y;
}

/* Adds every member pod to the sum of its job (one pass over the pods). */
static void
sum_pods(const struct kaid *k, struct pgsum *s, size_t n)
{
	const char *key;
	void *v;
	size_t it = 0;

	while (kai_map_next(&k->pods, &it, &key, &v)) {
		const struct pod_rec *p = v;
		struct kai_job probe = {.id = p->job_id};
		struct pgsum want = {.j = &probe}, *g;

		if (!p->managed || p->deleting ||
		    (p->phase != KAI_POD_PENDING &&
		    p->phase != KAI_POD_RUNNING))
			continue;
		if ((g = bsearch(&want, s, n, sizeof(*s), by_job)) == NULL)
			continue;
		add(&g->st.requested, p, g->j);
		if (p->node[0] == '\0')
			continue;
		add(&g->st.allocated, p, g->j);
		if (!g->j->preemptible)
			add(&g->st.allocated_np, p, g->j);
	}
}

static void
write_status(struct kaid *k, const char *ns, const char *name,
    const struct kai_kube_kai_status *st)
{
	k->status_inflight++;
	kai_kube_object_patch_status(k->kube, PG_API, "PodGroup", ns, name,
	    kai_kube_kai_status_json(st, true), native_status_done, k);
}

/* The groups written before whose job is no longer active: a last one. */
static void
forget_ended(struct kaid *k, struct kai_map *seen, int64_t now)
{
	struct kai_kube_kai_status st = {.now = now};
	const char *key;
	char ns[256];
	void *v;
	size_t it = 0;

	while (kai_map_next(&k->pgstatus, &it, &key, &v)) {
		const char *slash = strchr(key, '/');

		if (kai_map_get(seen, key) != NULL)
			continue;
		if (slash != NULL && (size_t)(slash - key) < sizeof(ns)) {
			memcpy(ns, key, (size_t)(slash - key));
			ns[slash - key] = '\0';
			write_status(k, ns, slash + 1, &st);
		}
		kai_map_del(&k->pgstatus, key);
	}
}

void
native_pg_status(struct kaid *k, int64_t now)
{
	struct pgsum *s;
	struct kai_map seen;
	char ns[256], name[256], key[520];
	size_t i, n = 0;

	if (k->kube == NULL)
		return;
	s = kai_xcalloc(state_njobs(k) + 1, sizeof(*s));
	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);

		if (native_gang(j) && pg_of(j, ns, name, sizeof(ns)))
			s[n++].j = j;
	}
	/* The state's jobs are in id order already: bsearch needs it. */
	sum_pods(k, s, n);
	kai_map_init(&seen, NULL);
	for (i = 0; i < n; i++) {
		const struct kai_job *j = s[i].j;
		const struct written *was;
		struct kai_kube_pg_cond last;
		char *sig;

		(void)pg_of(j, ns, name, sizeof(ns));
		(void)snprintf(key, sizeof(key), "%s/%s", ns, name);
		s[i].st.now = now;
		if (j->state == KAI_JOB_PENDING && j->reason != NULL &&
		    strcmp(j->reason, "None") != 0) {
			s[i].st.reason = j->reason;
			s[i].st.message = j->why;
		}
		kai_map_put(&seen, key, (void *)1);
		sig = kai_kube_kai_status_key(&s[i].st);
		was = kai_map_get(&k->pgstatus, key);
		/* Unchanged, no room now, or the object's last condition
		 * not known yet: the next tick sees it again. */
		if (unchanged(was, sig, &s[i].st) ||
		    k->status_inflight >= STATUS_INFLIGHT_MAX ||
		    !last_cond(k, was, ns, name, now, &last)) {
			free(sig);
			continue;
		}
		number(&s[i].st, &last);
		kai_map_put(&k->pgstatus, key, written_new(sig, &s[i].st));
		free(sig);
		write_status(k, ns, name, &s[i].st);
	}
	forget_ended(k, &seen, now);
	kai_map_fini(&seen);
	free(s);
}
