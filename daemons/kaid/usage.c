/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * usage.c: decayed usage per queue and per user, fed into every tick's
 * snapshot (time-based fair share, per-user order inside a queue), and
 * the scheduling: section of kaid.yaml passed to the core.
 *
 * Usage is kept from the accounting rows, so it survives restarts:
 *  - finished jobs: one aggregate in PostgreSQL (kai_db_usage_load(), a
 *    range scan of the jobs that ended inside the window) at start-up
 *    and then every scheduling.usage_refresh, never per tick.  Between
 *    two reads the figures are carried forward by multiplying them by
 *    the decay of the elapsed time, and a job seen running at the last
 *    tick that is no longer running is added at once, as ended now; the
 *    next read replaces these estimates with the stored times;
 *  - running jobs: from memory, every tick, O(running jobs).
 * Figures are in resource-seconds: GPU-seconds, core-seconds and
 * MiB-seconds (src/sched/decay.h).  The core takes them normalised by
 * the cluster's decayed capacity: the current nodes' total times the
 * decayed window.  A parent queue's usage is the sum of its children's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sched/decay.h"
#include "snapshot.h"
#include "sys/log.h"
#include "usage.h"

#define NRES KAI_SCHED_NRES

/* One (queue, user): finished jobs' usage as of u->at, running jobs'. */
struct urec {
	char *queue;
	char *user;
	double done[NRES];
	double run[NRES];
};

/* A job that was running at the last tick. */
struct urun {
	uint64_t id;
	struct urec *rec;
	int64_t start;
	double rate[NRES];	/* GPUs, cores, MiB */
};

struct usage {
	struct kai_map recs;	/* "queue\nuser" -> struct urec * */
	int64_t at;		/* done[] is decayed up to this time */
	int64_t tried_at;	/* last read from PostgreSQL; 0 = never */
	bool failed;		/* the last read failed (logged once) */
	bool loaded;		/* the first read was done */
	bool pending;		/* a read is under way (reads.c) */
	int64_t sent_at;	/* the time that read was asked for */
	struct urun *runs;
	size_t nruns;
};

static void
urec_free(void *p)
{
	struct urec *r = p;

	free(r->queue);
	free(r->user);
	free(r);
}

static struct kai_sched_decay
decay_of(const struct kaid *k)
{
	struct kai_sched_decay d = {k->conf->usage_half_life_ms / 1000,
	    k->conf->usage_window_ms / 1000};

	return d;
}

static struct urec *
rec_get(struct usage *u, const char *queue, const char *user)
{
	char *key = kai_xasprintf("%s\n%s", queue, user);
	struct urec *r = kai_map_get(&u->recs, key);

	if (r == NULL) {
		r = kai_xcalloc(1, sizeof(*r));
		r->queue = kai_xstrdup(queue);
		r->user = kai_xstrdup(user);
		kai_map_put(&u->recs, key, r);
	}
	free(key);
	return r;
}

/* Brings done[] forward to now. */
static void
carry(struct usage *u, const struct kai_sched_decay *d, int64_t now)
{
	const char *key;
	void *v;
	size_t it = 0;
	int r;

	while (kai_map_next(&u->recs, &it, &key, &v))
		for (r = 0; r < NRES; r++)
			((struct urec *)v)->done[r] = kai_sched_decay_since(d,
			    ((struct urec *)v)->done[r], u->at, now);
	u->at = now;
}

static bool
running(const struct kai_job *j)
{
	return j != NULL && j->state == KAI_JOB_RUNNING && j->start_time > 0;
}

/* Jobs running at the last tick that are not now ended just now. */
static void
add_ended(struct kaid *k, const struct kai_sched_decay *d, int64_t now)
{
	struct usage *u = k->usage;
	size_t i;
	int r;

	for (i = 0; i < u->nruns; i++) {
		struct urun *x = &u->runs[i];
		double s;

		if (running(state_job(k, x->id)))
			continue;
		s = kai_sched_decayed_seconds(d, x->start, now, now);
		for (r = 0; r < NRES; r++)
			x->rec->done[r] += x->rate[r] * s;
	}
}

static void
read_failed(struct usage *u, const struct kai_err *err)
{
	if (!u->failed)
		kai_log_warn("could not read the usage of finished jobs (fair "
		    "share goes on with the last figures): %s", err->msg);
	u->failed = true;
}

/* done[] from the rows PostgreSQL gave, decayed up to at. */
static void
replace_done(struct usage *u, const struct kai_db_usage *rows, size_t n,
    int64_t at)
{
	const char *key;
	void *v;
	size_t i, it = 0;

	u->failed = false;
	while (kai_map_next(&u->recs, &it, &key, &v))
		memset(((struct urec *)v)->done, 0, sizeof(double) * NRES);
	for (i = 0; i < n; i++) {
		struct urec *r = rec_get(u, rows[i].queue, rows[i].user);

		r->done[KAI_SCHED_GPU] = (double)rows[i].gpu / 1e6;
		r->done[KAI_SCHED_CPU] = (double)rows[i].cpu / 1e3;
		r->done[KAI_SCHED_MEM] = (double)rows[i].mem;
	}
	u->at = at;
}

/* The answer of a refresh sent to the connection for reads. */
static void
reloaded(int code, const struct kai_err *err, struct kai_db_usage *rows,
    size_t n, void *ctx)
{
	struct kaid *k = ctx;
	struct usage *u = k->usage;

	u->pending = false;
	if (code == KAI_EAGAIN) {	/* kaid is stopping */
		kai_db_usage_free(rows, n);
		return;
	}
	if (code != 0)
		read_failed(u, err);
	else
		/* carry() takes it from the time it was asked for */
		replace_done(u, rows, n, u->sent_at);
	kai_db_usage_free(rows, n);
}

/*
 * Replaces done[] with what PostgreSQL holds.  The first read, at start,
 * waits for the answer; the later ones go to the connection for reads
 * (reads.c) and land when they come, so that an aggregate over a large
 * history never holds up a tick.  A job that ends while such a read is
 * under way counts from the next refresh.
 */
static void
reload(struct kaid *k, const struct kai_sched_decay *d, int64_t now)
{
	struct usage *u = k->usage;
	struct kai_db_usage *rows;
	struct kai_err err;
	size_t n;
	int r;

	if (u->pending)
		return;
	u->tried_at = now; /* a failing database is retried at the next refresh */
	if (u->loaded && reads_db(k) != NULL) {
		u->sent_at = now;
		reads_begin(k);
		r = kai_db_usage_send(reads_db(k), now, d->window_s,
		    d->half_life_s, reloaded, k, &err);
		reads_sent(k);
		if (r != 0)
			read_failed(u, &err);
		else
			u->pending = true;
		return;
	}
	if (kai_db_usage_load(k->db, now, d->window_s, d->half_life_s, &rows,
	    &n, &err) != 0) {
		read_failed(u, &err);
		return;
	}
	replace_done(u, rows, n, now);
	u->loaded = true;
	kai_db_usage_free(rows, n);
}

/*
 * The GPUs a job holds, all tasks, in micro-GPUs: a fractional task
 * counts its share of the device (the fraction the core charged it, for
 * --gpu-memory its memory over the device's), as kai_db_usage_load()
 * counts it for finished jobs.  Before placement, what it asks for.
 */
uint64_t
usage_gpu_micro(const struct kai_job *j)
{
	uint64_t n = 0;
	size_t t;

	if (j->nallocs == 0)
		return kai_job_gpus(j->gpus_per_task, j->gpus_per_node,
			   j->ntasks_per_node, j->ntasks) * KAI_GPU_MICRO +
		    (uint64_t)(j->ntasks > 0 ? j->ntasks : 1) *
		    kai_job_share_micro(j->gpu_fraction, j->gpu_devices);
	for (t = 0; t < j->nallocs; t++)
		n += kai_alloc_gpu_micro(&j->allocs[t]);
	return n;
}

/* The running jobs' usage, and the list for the next tick. */
static void
add_running(struct kaid *k, const struct kai_sched_decay *d, int64_t now)
{
	struct usage *u = k->usage;
	const char *key;
	void *v;
	size_t i, t, it = 0;
	int r;

	while (kai_map_next(&u->recs, &it, &key, &v))
		memset(((struct urec *)v)->run, 0, sizeof(double) * NRES);
	u->runs = kai_xreallocarray(u->runs, state_njobs(k) + 1,
	    sizeof(*u->runs));
	u->nruns = 0;
	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);
		struct urun *x = &u->runs[u->nruns];
		double s;

		if (!running(j))
			continue;
		memset(x, 0, sizeof(*x));
		x->id = j->id;
		x->start = j->start_time;
		x->rec = rec_get(u, j->queue, j->user != NULL ? j->user : "");
		for (t = 0; t < j->nallocs; t++) {
			x->rate[KAI_SCHED_CPU] += j->allocs[t].cpus;
			x->rate[KAI_SCHED_MEM] += (double)j->allocs[t].mem_mb;
		}
		x->rate[KAI_SCHED_GPU] = (double)usage_gpu_micro(j) /
		    KAI_GPU_MICRO;
		s = kai_sched_decayed_seconds(d, x->start, now, now);
		for (r = 0; r < NRES; r++)
			x->rec->run[r] += x->rate[r] * s;
		u->nruns++;
	}
}

void
usage_update(struct kaid *k, int64_t now)
{
	struct kai_sched_decay d = decay_of(k);

	if (k->usage == NULL) {
		k->usage = kai_xcalloc(1, sizeof(*k->usage));
		kai_map_init(&k->usage->recs, urec_free);
		k->usage->at = now;
	}
	carry(k->usage, &d, now);
	add_ended(k, &d, now);
	if (k->usage->tried_at == 0 || now - k->usage->tried_at >=
	    k->conf->usage_refresh_ms / 1000)
		reload(k, &d, now);
	add_running(k, &d, now);
}

void
usage_free(struct kaid *k)
{
	if (k->usage == NULL)
		return;
	kai_map_fini(&k->usage->recs);
	free(k->usage->runs);
	free(k->usage);
	k->usage = NULL;
}

static long
snap_ix(const struct kai_map *m, const char *name)
{
	uintptr_t v = (uintptr_t)kai_map_get(m, name);

	return v == 0 ? -1 : (long)(v - 1);
}

void
usage_totals(const struct kaid *k, const struct snap *sn, double (*tot)[NRES],
    double cap[NRES])
{
	const char *key;
	void *v;
	size_t i, it = 0;
	long q;
	int r;

	memset(cap, 0, sizeof(double) * NRES);
	for (i = 0; i < sn->s.nnodes; i++) {
		cap[KAI_SCHED_GPU] += sn->nodes[i].gpus;
		if (sn->nodes[i].cpu_millis > 0)
			cap[KAI_SCHED_CPU] += sn->nodes[i].cpu_millis / 1000.0;
		if (sn->nodes[i].memory_mib > 0)
			cap[KAI_SCHED_MEM] += (double)sn->nodes[i].memory_mib;
	}
	memset(tot, 0, sizeof(*tot) * (sn->s.nqueues + 1));
	while (k->usage != NULL && kai_map_next(&k->usage->recs, &it, &key, &v)) {
		const struct urec *u = v;

		if ((q = snap_ix(&sn->queue_ix, u->queue)) < 0)
			continue; /* a deleted queue */
		for (r = 0; r < NRES; r++)
			tot[q][r] += u->done[r] + u->run[r];
	}
	/* Children come after their parent: roll up from the end. */
	for (i = sn->s.nqueues; i-- > 0;)
		if (sn->queues[i].parent >= 0)
			for (r = 0; r < NRES; r++)
				tot[sn->queues[i].parent][r] += tot[i][r];
}

void
usage_apply(struct kaid *k, struct snap *sn)
{
	struct kai_sched_decay d = decay_of(k);
	double (*tot)[NRES] = kai_xcalloc(sn->s.nqueues + 1, sizeof(*tot));
	double cap[NRES], *ugpu;
	const char *key;
	void *v;
	size_t i, it = 0;
	long x;
	int r;

	usage_totals(k, sn, tot, cap);
	for (i = 0; i < sn->s.nqueues; i++)
		for (r = 0; r < NRES; r++)
			sn->queues[i].res[r].usage =
			    kai_sched_usage_share(&d, tot[i][r], cap[r]);
	/* A user's order in a queue: their GPU usage in every queue. */
	ugpu = kai_xcalloc(sn->s.nusers + 1, sizeof(*ugpu));
	while (k->usage != NULL && kai_map_next(&k->usage->recs, &it, &key, &v)) {
		const struct urec *u = v;

		if ((x = snap_ix(&sn->user_ix, u->user)) >= 0)
			ugpu[x] += u->done[KAI_SCHED_GPU] + u->run[KAI_SCHED_GPU];
	}
	for (i = 0; i < sn->s.nusers; i++)
		sn->users[i].usage = kai_sched_usage_share(&d, ugpu[i],
		    cap[KAI_SCHED_GPU]);
	free(ugpu);
	free(tot);
}

/*
 * The usage of one (queue, user) in resource-seconds, or false when
 * there is none recorded.
 */
bool
usage_of(const struct kaid *k, const char *queue, const char *user,
    double out[NRES])
{
	char *key = kai_xasprintf("%s\n%s", queue, user);
	const struct urec *u = k->usage != NULL ?
	    kai_map_get(&k->usage->recs, key) : NULL;
	int r;

	free(key);
	for (r = 0; r < NRES; r++)
		out[r] = u != NULL ? u->done[r] + u->run[r] : 0;
	return u != NULL;
}

/* Visits every (queue, user) with recorded usage. */
void
usage_each(const struct kaid *k,
    void (*fn)(const char *queue, const char *user, void *ctx), void *ctx)
{
	const char *key;
	void *v;
	size_t it = 0;

	while (k->usage != NULL && kai_map_next(&k->usage->recs, &it, &key, &v))
		fn(((const struct urec *)v)->queue,
		    ((const struct urec *)v)->user, ctx);
}

/* kaid.yaml's scheduling: section into the core's config. */
void
usage_config(const struct kaid *k, struct kai_sched_config *c)
{
	const struct kai_conf *f = k->conf;
	size_t i;

	c->placement = (enum kai_sched_placement)f->sched_placement;
	c->gpu_placement = (enum kai_sched_placement)f->sched_gpu_placement;
	c->k_value = f->sched_k_value;
	c->default_staleness_grace_s = f->sched_stale_grace_ms < 0 ? -1 :
	    f->sched_stale_grace_ms / 1000;
	c->max_consolidation_moves = (uint32_t)f->sched_max_moves;
	c->bf_reservations = (uint32_t)f->sched_bf_reservations;
	c->bf_max_job_test = (uint32_t)f->sched_bf_max_job_test;
	if (f->sched_nphases == 0)
		return; /* unset: the phases the tick chose (snapshot.c) */
	for (i = 0; i < f->sched_nphases; i++)
		c->phases[i] = (enum kai_sched_action)f->sched_phases[i];
	c->nphases = f->sched_nphases;
}
