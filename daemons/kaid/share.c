/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * share.c: what kshare shows, kept from the last scheduling pass.
 *
 * After each cycle the core's per-queue figures (fair share, allocated,
 * requested) are copied with the queues' settings and their decayed
 * usage into share_last(), and every user's part of each leaf queue
 * (decayed usage, and what their jobs hold at the end of the pass) is
 * listed by queue then user, after the rows of the accounts whose jobs
 * the queue has (kaid.yaml's accounts.fairshare: the weight, the part of
 * the queue's GPU fair share it gives, what the account's jobs hold; no
 * decayed usage).  rpc_share.c answers from this copy: a
 * kshare call costs no database query and no cycle.  A refused cycle
 * keeps the last good figures.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "queues.h"
#include "share.h"
#include "snapshot.h"
#include "usage.h"

#define NRES KAI_SCHED_NRES

/* Wire units of usage: micro-GPU-s, millicore-s, MiB-s (proto.h). */
static const double usage_unit[NRES] = {1e6, 1e3, 1};

static int64_t
to_i64(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 9e18 ? INT64_MAX : (int64_t)(v + 0.5);
}

static void
fill_queue(const struct kaid *k, const struct snap *sn,
    const struct kai_sched_queue_out *o, size_t i, const double tot[NRES],
    struct kai_share_queue *q)
{
	const struct kai_sched_snap_queue *s = &sn->queues[i];
	long ci = queues_find(k, s->name);
	int r;

	q->name = kai_xstrdup(s->name);
	q->parent = s->parent >= 0 ?
	    kai_xstrdup(sn->queues[s->parent].name) : NULL;
	q->priority = s->priority;
	for (r = 0; r < NRES; r++) {
		struct kai_share_res *x = &q->res[r];

		x->quota = s->res[r].quota;
		x->limit = s->res[r].limit;
		x->weight = ci >= 0 ? queues_at(k, ci)->res[r].weight : 0;
		x->fair_share = o->fair_share[r];
		x->allocated = o->allocated[r];
		x->requested = o->requested[r];
		x->usage = to_i64(tot[r] * usage_unit[r]);
		x->usage_share = to_i64(s->res[r].usage * 1e6);
	}
}

/*
 * Queue i's figures for each GPU type of the pass: the queue's settings
 * for the type (quota 0, no limit, its GPU weight when it names none)
 * and the core's fair share, allocation and request.
 */
static void
fill_types(const struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *res, size_t i, struct kai_share_queue *q)
{
	long ci = queues_find(k, sn->queues[i].name);
	const struct kai_queue *kq = ci >= 0 ? queues_at(k, ci) : NULL;
	size_t t, n = res->ntypes < KAI_SHARE_TYPES_MAX ? res->ntypes
						      : KAI_SHARE_TYPES_MAX;

	if (n == 0)
		return;
	q->gpu_types = kai_xcalloc(n, sizeof(*q->gpu_types));
	for (t = 0; t < n; t++) {
		const struct kai_sched_type_out *o =
		    &res->qtypes[i * res->ntypes + t];
		const struct kai_queue_gtype *g = kq != NULL
		    ? kai_queue_type_find(kq, res->types[t])
		    : NULL;
		struct kai_share_type x;

		memset(&x, 0, sizeof(x));
		(void)snprintf(x.type, sizeof(x.type), "%s", res->types[t]);
		x.quota = g != NULL ? g->quota : 0;
		x.limit = g != NULL ? g->limit : -1;
		x.weight = g != NULL ? g->weight : -1;
		x.fair_share = o->fair_share;
		x.allocated = o->allocated;
		x.requested = o->requested;
		q->gpu_types[q->ngpu_types++] = kai_share_type_text(&x);
	}
}

/* A user row with its queue's snapshot index, the first sort key. */
struct urow {
	long q;
	struct kai_share_user u;
};

struct ulist {
	struct urow *r;
	size_t n, cap;
	const struct snap *sn;
	struct kai_map ix;	/* "queue\nuser" -> index + 1 */
};

/* The row of user (or, with acct, of that account: user "") in queue. */
static struct kai_share_user *
row(struct ulist *l, const char *queue, const char *user, const char *acct)
{
	char *key = kai_xasprintf("%s\n%s\n%s", queue, user,
	    acct != NULL ? acct : "");
	uintptr_t v = (uintptr_t)kai_map_get(&l->ix, key);
	struct urow *x;

	if (v == 0) {
		if (l->n == l->cap) {
			l->cap = l->cap * 2 + 16;
			l->r = kai_xreallocarray(l->r, l->cap, sizeof(*l->r));
		}
		x = &l->r[l->n];
		memset(x, 0, sizeof(*x));
		x->q = (long)(uintptr_t)kai_map_get(&l->sn->queue_ix, queue);
		x->u.queue = kai_xstrdup(queue);
		x->u.user = kai_xstrdup(user);
		x->u.account = acct != NULL ? kai_xstrdup(acct) : NULL;
		kai_map_put(&l->ix, key, (void *)(uintptr_t)++l->n);
		v = l->n;
	}
	free(key);
	return &l->r[v - 1].u;
}

/* The row of account a (a snapshot index) in queue. */
static struct kai_share_user *
acct_row(struct ulist *l, const char *queue, int32_t a)
{
	const struct kai_sched_snap_account *x = &l->sn->accounts[a];
	struct kai_share_user *u = row(l, queue, "", x->name);

	u->shares = x->weight;
	return u;
}

static void
add_used(const char *queue, const char *user, void *ctx)
{
	struct ulist *l = ctx;

	if (kai_map_get(&l->sn->queue_ix, queue) != NULL)
		(void)row(l, queue, user, NULL);
}

/* What each user's jobs hold at the end of the pass, per leaf queue. */
static void
add_allocs(struct ulist *l, const struct kai_sched_result *r)
{
	const struct snap *sn = l->sn;
	size_t j, t;

	for (j = 0; j < sn->s.njobs; j++) {
		const struct kai_sched_snap_job *sj = &sn->s.jobs[j];
		struct kai_share_user *u[2] = {NULL, NULL};
		int k;

		if (sj->user >= 0)
			u[0] = row(l, sn->queues[sj->queue].name,
			    sn->users[sj->user].name, NULL);
		if (sj->account >= 0)
			u[1] = acct_row(l, sn->queues[sj->queue].name,
			    sj->account);
		for (t = sj->first_task; t < sj->first_task + sj->ntasks; t++) {
			const struct kai_sched_snap_task *st = &sn->s.tasks[t];

			if (r->tasks[t].state != KAI_SCHED_TASK_RUNNING &&
			    r->tasks[t].state != KAI_SCHED_TASK_PIPELINED &&
			    r->tasks[t].state != KAI_SCHED_TASK_RELEASING)
				continue;
			for (k = 0; k < 2; k++) {
				if (u[k] == NULL)
					continue;
				u[k]->allocated[KAI_QUEUE_GPU] +=
				    (int64_t)st->gpus * KAI_SCHED_GPU_UNIT +
				    (int64_t)r->tasks[t].gpu_fraction *
					__builtin_popcountll(
					    r->tasks[t].gpu_mask);
				u[k]->allocated[KAI_QUEUE_CPU] += st->cpu_millis;
				u[k]->allocated[KAI_QUEUE_MEM] +=
				    st->memory_mib;
			}
		}
	}
}

/*
 * Each account row's part of its queue's GPU fair share, by weight among
 * the queue's account rows (Slurm's normalised shares).
 */
static void
acct_shares(struct ulist *l, const struct kai_sched_result *r)
{
	size_t i, o;

	for (i = 0; i < l->n; i++) {
		struct kai_share_user *u = &l->r[i].u;
		int64_t sum = 0;
		long q = l->r[i].q;

		if (u->account == NULL || q <= 0)
			continue;
		for (o = 0; o < l->n; o++)
			if (l->r[o].q == q && l->r[o].u.account != NULL)
				sum += l->r[o].u.shares;
		if (sum > 0)
			u->fair_share_gpu = (int64_t)((double)r->queues[q - 1]
				.fair_share[KAI_SCHED_GPU] *
			    (double)u->shares / (double)sum);
	}
}

/* By queue (snapshot order: parents first), then user name. */
static int
cmp_row(const void *a, const void *b)
{
	const struct urow *x = a, *y = b;

	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	/* The accounts (user "") first, by name. */
	if (strcmp(x->u.user, y->u.user) != 0)
		return strcmp(x->u.user, y->u.user);
	return strcmp(x->u.account != NULL ? x->u.account : "",
	    y->u.account != NULL ? y->u.account : "");
}

static void
keep_users(const struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r, struct kai_share *out)
{
	struct ulist l;
	double u[NRES];
	size_t i;
	int x;

	memset(&l, 0, sizeof(l));
	l.sn = sn;
	kai_map_init(&l.ix, NULL);
	usage_each(k, add_used, &l);
	add_allocs(&l, r);
	acct_shares(&l, r);
	for (i = 0; i < l.n; i++) {
		if (l.r[i].u.account != NULL)
			continue; /* no decayed usage per account */
		(void)usage_of(k, l.r[i].u.queue, l.r[i].u.user, u);
		for (x = 0; x < NRES; x++)
			l.r[i].u.usage[x] = to_i64(u[x] * usage_unit[x]);
	}
	if (l.n > 1)
		qsort(l.r, l.n, sizeof(*l.r), cmp_row);
	kai_map_fini(&l.ix);
	out->users = kai_xcalloc(l.n + 1, sizeof(*out->users));
	for (i = 0; i < l.n; i++)
		out->users[i] = l.r[i].u;
	out->nusers = l.n;
	free(l.r);
}

void
share_keep(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r)
{
	double (*tot)[NRES] = kai_xcalloc(sn->s.nqueues + 1, sizeof(*tot));
	struct kai_share s;
	double cap[NRES];
	size_t i;

	memset(&s, 0, sizeof(s));
	s.time = sn->s.now;
	s.half_life_s = k->conf->usage_half_life_ms / 1000;
	s.window_s = k->conf->usage_window_ms / 1000;
	s.k_value = to_i64(sn->s.config.k_value * 1e6);
	usage_totals(k, sn, tot, cap);
	s.queues = kai_xcalloc(sn->s.nqueues + 1, sizeof(*s.queues));
	for (i = 0; i < sn->s.nqueues; i++) {
		fill_queue(k, sn, &r->queues[i], i, tot[i], &s.queues[i]);
		fill_types(k, sn, r, i, &s.queues[i]);
	}
	s.nqueues = sn->s.nqueues;
	keep_users(k, sn, r, &s);
	free(tot);
	if (k->share == NULL)
		k->share = kai_xcalloc(1, sizeof(*k->share));
	kai_share_fini(k->share);
	*k->share = s;
}

const struct kai_share *
share_last(const struct kaid *k)
{
	static const struct kai_share none;

	return k->share != NULL ? k->share : &none;
}

void
share_free(struct kaid *k)
{
	if (k->share == NULL)
		return;
	kai_share_fini(k->share);
	KAI_FREE(k->share);
}
