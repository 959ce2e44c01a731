/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaiqueues.c: the queue tree from KAI Queue objects (queues_source:
 * kubernetes in kaid.yaml; doc/k8s-native.md, "Queues from KAI Queue
 * objects").
 *
 * The watch (kube_watch.c) keeps every Queue object here, converted
 * (kube_queue.c).  Once the list is whole, and after every change, the
 * objects are made into a tree and written to PostgreSQL the way `kctl
 * queue apply` writes it, so kshare, kqueue, accounting and a restart all
 * see the one tree; queues.c's cache is then reloaded as after kctl.
 *
 * A Queue that makes no valid tree (a bad field, an unknown parent, a
 * cycle of parents, a change the store refuses) is left out with a log
 * line and a Warning event on the object, once per reason; the rest
 * apply.  A queue that was valid before keeps its last valid settings.
 * A Queue deleted is deleted from the tree once no job uses it and it has
 * no children (the store's rule); until then it stays, retried every
 * RETRY_MS.  The queues of kaid.yaml's partitions are never deleted here.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db.h"
#include "kaid.h"
#include "kube/kube.h"
#include "queues.h"
#include "sys/log.h"
#include "tick.h"

#define RETRY_MS 10000	/* a deletion that waits for jobs to end */
/*
 * Changes are written this long after the first one, together: one
 * `kubectl apply` of a parent and its child arrives as two events, and
 * the child alone would be refused for its unknown parent.
 */
#define GATHER_MS 200

struct kaiqueues {
	struct kai_map objs;	/* name -> struct kai_kube_queue * */
	size_t nobjs;
	struct kai_map told;	/* name -> the reason last reported */
	struct kai_map kept;	/* name -> "" : deletion waits (logged once) */
	bool synced;		/* the list is whole */
	uint64_t timer;		/* retry of waiting deletions, 0 = none */
	uint64_t gather;	/* the write of gathered changes, 0 = none */
};

static void
obj_free(void *p)
{
	kai_kube_queue_fini(p);
	free(p);
}

static struct kaiqueues *
kq(struct kaid *k)
{
	if (k->kaiqueues == NULL) {
		k->kaiqueues = kai_xcalloc(1, sizeof(*k->kaiqueues));
		kai_map_init(&k->kaiqueues->objs, obj_free);
		kai_map_init(&k->kaiqueues->told, free);
		kai_map_init(&k->kaiqueues->kept, free);
	}
	return k->kaiqueues;
}

/* Says once per reason that Queue o was refused, in the log and on it. */
static void
refuse(struct kaid *k, const struct kai_kube_queue *o, const char *why)
{
	struct kaiqueues *s = kq(k);
	const char *last = kai_map_get(&s->told, o->name);

	if (last != NULL && strcmp(last, why) == 0)
		return;
	kai_log_warn("KAI Queue \"%s\" refused: %s", o->name, why);
	kai_map_put(&s->told, o->name, kai_xstrdup(why));
	if (k->kube != NULL)
		kai_kube_queue_event(k->kube, o->name, o->uid,
		    KAI_EVENT_WARNING, "QueueRefused", why);
}

/* The objects, by name; refusals' reasons in why[i] (NULL = accepted). */
struct plan {
	const struct kai_kube_queue **o;
	char **why;
	size_t n;
};

/* The index of name in the plan (sorted by name), or -1. */
static long
plan_find(const struct plan *p, const char *name)
{
	size_t lo = 0, hi = p->n, mid;
	int c;

	while (name != NULL && lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(name, p->o[mid]->name)) == 0)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int
by_name(const void *a, const void *b)
{
	const struct kai_kube_queue *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Parent of accepted queue i in the plan, or -1 (top level or unknown). */
static long
parent_of(const struct plan *p, size_t i)
{
	return plan_find(p, p->o[i]->q.parent);
}

/*
 * The tree's own rules: every parent a Queue that is accepted itself, no
 * cycle of parents.  Marks what breaks them in p->why.
 */
static void
plan_tree(struct plan *p)
{
	size_t i, steps;
	bool again = true;
	long j;

	/* Queues on a cycle: walking up comes back to them. */
	for (i = 0; i < p->n; i++) {
		if (p->why[i] != NULL)
			continue;
		for (j = parent_of(p, i), steps = 0; j >= 0 && steps <= p->n &&
		    (size_t)j != i; j = parent_of(p, (size_t)j), steps++)
			;
		if (j >= 0 && (size_t)j == i)
			p->why[i] = kai_xasprintf("spec.parentQueue: \"%s\" "
			    "makes a cycle of parents", p->o[i]->q.parent);
	}
	/* Unknown or refused parents, until nothing changes. */
	while (again) {
		again = false;
		for (i = 0; i < p->n; i++) {
			const char *par = p->o[i]->q.parent;

			if (p->why[i] != NULL || par == NULL)
				continue;
			j = parent_of(p, i);
			if (j < 0)
				p->why[i] = kai_xasprintf("spec.parentQueue: no "
				    "Queue \"%s\"", par);
			else if (p->why[j] != NULL)
				p->why[i] = kai_xasprintf("spec.parentQueue: "
				    "Queue \"%s\" is refused", par);
			again = again || p->why[i] != NULL;
		}
	}
}

/* Depth of accepted queue i (0 = top level): parents are written first. */
static size_t
depth(const struct plan *p, size_t i)
{
	size_t d = 0;
	long j;

	for (j = parent_of(p, i); j >= 0 && d <= p->n;
	    j = parent_of(p, (size_t)j))
		d++;
	return d;
}

/* Writes the accepted queues: all at once, else one by one. */
static bool
plan_write(struct kaid *k, struct plan *p)
{
	struct kai_queue_change *c;
	enum kai_queue_result *res;
	size_t i, n = 0, d, maxd = 0;
	bool changed = false;
	struct kai_err err;
	size_t *dep;

	c = kai_xcalloc(p->n + 1, sizeof(*c));
	res = kai_xcalloc(p->n + 1, sizeof(*res));
	dep = kai_xcalloc(p->n + 1, sizeof(*dep));
	for (i = 0; i < p->n; i++)
		if (p->why[i] == NULL && (dep[i] = depth(p, i)) > maxd)
			maxd = dep[i];
	for (d = 0; d <= maxd; d++)
		for (i = 0; i < p->n; i++) {
			if (p->why[i] != NULL || dep[i] != d)
				continue;
			c[n].op = KAI_QUEUE_REPLACE;
			c[n].set = KAI_QUEUE_SET_ALL;
			c[n].q = p->o[i]->q;	/* borrowed */
			n++;
		}
	if (n > 0 && kai_db_queue_apply(k->db, c, n, res, &err) == 0) {
		for (i = 0; i < n; i++)
			changed = changed || res[i] != KAI_QUEUE_UNCHANGED;
	} else if (n > 0) {
		/* Which one: each alone, parents first, as a tree. */
		kai_log_debug("KAI queues together refused (%s): one by one",
		    err.msg);
		for (i = 0; i < n; i++) {
			if (kai_db_queue_apply(k->db, &c[i], 1, &res[i],
			    &err) == 0) {
				changed = changed ||
				    res[i] != KAI_QUEUE_UNCHANGED;
				continue;
			}
			d = (size_t)plan_find(p, c[i].q.name);
			p->why[d] = kai_xstrdup(err.msg);
		}
	}
	free(dep);
	free(c);
	free(res);
	return changed;
}

static bool
is_partition(const struct kaid *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->conf->npartitions; i++)
		if (strcmp(k->conf->partitions[i].name, name) == 0)
			return true;
	return false;
}

static void kaiqueues_retry(struct kai_loop *loop, uint64_t id, void *ctx);

/*
 * Deletes the queues whose Queue is gone, leaves first; those the store
 * keeps (jobs, children) wait for the retry timer.
 */
static bool
plan_delete(struct kaid *k)
{
	struct kaiqueues *s = kq(k);
	bool changed = false, progress = true, waiting = false;
	struct kai_err err;
	size_t i;

	while (progress) {
		progress = false;
		waiting = false;
		for (i = 0; i < queues_count(k); i++) {
			const struct kai_queue *q = queues_at(k, i);
			char *name;

			if (kai_map_get(&s->objs, q->name) != NULL ||
			    is_partition(k, q->name))
				continue;
			name = q->name;
			if (kai_db_queue_delete(k->db, &name, 1, &err) != 0) {
				if (kai_map_get(&s->kept, q->name) == NULL) {
					kai_log_info("KAI Queue \"%s\" deleted; "
					    "its queue stays for now: %s",
					    q->name, err.msg);
					kai_map_put(&s->kept, q->name,
					    kai_xstrdup(""));
				}
				waiting = true;
				continue;
			}
			kai_log_info("queue \"%s\" deleted (its KAI Queue is "
			    "gone)", q->name);
			kai_map_del(&s->kept, q->name);
			kai_map_del(&s->told, q->name);
			changed = progress = true;
			if (queues_reload(k, &err) != 0) {
				kai_log_err("could not reload the queues: %s",
				    err.msg);
				return changed;
			}
			break;	/* the cache changed under i */
		}
	}
	if (waiting && s->timer == 0)
		s->timer = kai_loop_timer_add(k->loop, RETRY_MS,
		    kaiqueues_retry, k);
	return changed;
}

/* Makes the tree in PostgreSQL what the Queue objects say. */
static void
kaiqueues_sync(struct kaid *k)
{
	struct kaiqueues *s = kq(k);
	struct plan p = {0};
	const char *key;
	void *v;
	size_t it, i;
	bool changed;
	struct kai_err err;

	if (!s->synced || k->db == NULL)
		return;
	p.o = kai_xcalloc(s->nobjs + 1, sizeof(*p.o));
	p.why = kai_xcalloc(s->nobjs + 1, sizeof(*p.why));
	for (it = 0; kai_map_next(&s->objs, &it, &key, &v);)
		p.o[p.n++] = v;
	qsort(p.o, p.n, sizeof(*p.o), by_name);
	for (i = 0; i < p.n; i++)
		if (p.o[i]->error != NULL)
			p.why[i] = kai_xstrdup(p.o[i]->error);
	plan_tree(&p);
	changed = plan_write(k, &p);
	for (i = 0; i < p.n; i++) {
		if (p.why[i] != NULL)
			refuse(k, p.o[i], p.why[i]);
		else if (kai_map_get(&s->told, p.o[i]->name) != NULL) {
			kai_log_info("KAI Queue \"%s\" accepted",
			    p.o[i]->name);
			kai_map_del(&s->told, p.o[i]->name);
		}
		free(p.why[i]);
	}
	free(p.why);
	free(p.o);
	if (changed && queues_reload(k, &err) != 0)
		kai_log_err("could not reload the queues: %s (retrying at the "
		    "next tick)", err.msg);
	changed = plan_delete(k) || changed;
	if (changed)
		tick_soon(k);
}

static void
kaiqueues_retry(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;

	(void)loop;
	(void)id;
	k->kaiqueues->timer = 0;
	kaiqueues_sync(k);
}

static void
kaiqueues_gathered(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;

	(void)loop;
	(void)id;
	k->kaiqueues->gather = 0;
	kaiqueues_sync(k);
}

static void
on_queue(enum kai_kube_event ev, const struct kai_kube_queue *o, void *ctx)
{
	struct kaid *k = ctx;
	struct kaiqueues *s = kq(k);
	struct kai_kube_queue *c;

	switch (ev) {
	case KAI_KUBE_RESET:
		/* The relist's ADDED rebuild it; act only at SYNCED. */
		kai_map_fini(&s->objs);
		kai_map_init(&s->objs, obj_free);
		s->nobjs = 0;
		s->synced = false;
		return;
	case KAI_KUBE_ADDED:
	case KAI_KUBE_MODIFIED:
		c = kai_xcalloc(1, sizeof(*c));
		c->name = kai_xstrdup(o->name);
		c->uid = kai_xstrdup(o->uid);
		c->error = o->error != NULL ? kai_xstrdup(o->error) : NULL;
		kai_queue_copy(&c->q, &o->q);
		if (kai_map_get(&s->objs, o->name) == NULL)
			s->nobjs++;
		kai_map_put(&s->objs, o->name, c);
		kai_map_del(&s->kept, o->name);
		break;
	case KAI_KUBE_DELETED:
		if (kai_map_get(&s->objs, o->name) != NULL)
			s->nobjs--;
		kai_map_del(&s->objs, o->name);
		kai_map_del(&s->told, o->name);
		break;
	case KAI_KUBE_SYNCED:
		if (!s->synced)
			kai_log_info("%zu KAI Queue objects listed",
			    s->nobjs);
		s->synced = true;
		kaiqueues_sync(k);	/* the whole list at once */
		return;
	}
	if (s->synced && s->gather == 0)
		s->gather = kai_loop_timer_add(k->loop, GATHER_MS,
		    kaiqueues_gathered, k);
}

void
kaiqueues_start(struct kaid *k)
{
	if (k->conf->queues_source != KAI_CONF_QUEUES_KUBERNETES ||
	    k->kube == NULL)
		return;
	(void)kq(k);
	kai_kube_watch_queues(k->kube, on_queue, k);
}

/*
 * The watch, not the setting: a SIGHUP that changes queues_source takes
 * effect at the next start, and until then one source stays in charge.
 */
bool
kaiqueues_in_charge(const struct kaid *k)
{
	return k->kaiqueues != NULL;
}

bool
kaiqueues_has(const struct kaid *k, const char *name)
{
	return k->kaiqueues != NULL && k->kaiqueues->synced &&
	    kai_map_get(&k->kaiqueues->objs, name) != NULL;
}

void
kaiqueues_free(struct kaid *k)
{
	struct kaiqueues *s = k->kaiqueues;

	if (s == NULL)
		return;
	if (s->timer != 0)
		kai_loop_timer_del(k->loop, s->timer);
	if (s->gather != 0)
		kai_loop_timer_del(k->loop, s->gather);
	kai_map_fini(&s->objs);
	kai_map_fini(&s->told);
	kai_map_fini(&s->kept);
	KAI_FREE(k->kaiqueues);
}
