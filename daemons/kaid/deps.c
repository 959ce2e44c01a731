/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * deps.c: what keeps a pending job from the scheduler before it sees the
 * cluster: an unsatisfied dependency (reason "Dependency"), one that can
 * never be satisfied ("DependencyNeverSatisfied": the job stays pending,
 * Slurm's default, or is cancelled with --kill-on-invalid-dep), and an
 * array's task limit "%N" ("JobArrayTaskLimit").
 *
 * Evaluated once per tick, before the snapshot, from the cache: one pass
 * over the active jobs describes every job and array that is still
 * active.  A dependency on a job that has ended needs its final state,
 * which only PostgreSQL has; those are read in ONE query per tick for
 * all the targets not yet known, and kept in struct deps (this file's
 * alone), because a
 * finished job's final state never changes.  A satisfied dependency is
 * dropped from the job (it stays in the row and in dep_text): once met,
 * always met.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "deps.h"
#include "kaid.h"
#include "mail.h"
#include "sys/log.h"

/* What deps.c keeps between ticks: nobody else reads it. */
struct deps {
	struct kai_map done;	/* finished targets: key -> struct tgt */
};

/* The active part of a job or array, or a finished one's summary. */
struct tgt {
	struct kai_dep_target t;
	uintptr_t running;	/* array: tasks placed or running */
	uint64_t min_id;	/* singleton key: the oldest active job */
};

static struct tgt *
tgt_at(struct kai_map *m, const char *key)
{
	struct tgt *g = kai_map_get(m, key);

	if (g == NULL) {
		g = kai_xcalloc(1, sizeof(*g));
		kai_map_put(m, key, g);
	}
	return g;
}

static void
key_of(char *buf, size_t size, uint64_t job, uint32_t task)
{
	if (task == KAI_DEP_TASK_ALL)
		(void)snprintf(buf, size, "%" PRIu64, job);
	else
		(void)snprintf(buf, size, "%" PRIu64 "_%" PRIu32, job, task);
}

static void
note_active(struct tgt *g, const struct kai_job *j)
{
	if (j->state != KAI_JOB_PENDING) {
		g->t.started = true;
		g->running++;
		if (g->t.start_time == 0 || (j->start_time > 0 &&
		    j->start_time < g->t.start_time))
			g->t.start_time = j->start_time;
	}
}

/* One pass: every active job, array and array task; singleton keys. */
static void
build_active(const struct kaid *k, struct kai_map *act)
{
	char key[64];
	size_t i;

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);
		uint64_t top = j->array_job_id != 0 ? j->array_job_id : j->id;
		struct tgt *g;

		key_of(key, sizeof(key), top, KAI_DEP_TASK_ALL);
		note_active(tgt_at(act, key), j);
		if (j->array_job_id != 0 && j->array_pending == NULL) {
			key_of(key, sizeof(key), top, j->array_task_id);
			note_active(tgt_at(act, key), j);
		}
		(void)snprintf(key, sizeof(key), "s%" PRIu32 "/", j->uid);
		{
			char *sk = kai_xasprintf("%s%s", key, j->name);

			g = tgt_at(act, sk);
			if (g->min_id == 0 || j->id < g->min_id)
				g->min_id = j->id;
			free(sk);
		}
	}
}

static void
note_done(struct kai_dep_target *t, const struct kai_db_done *row)
{
	t->ended = t->started = true;
	t->failed |= row->state != KAI_JOB_COMPLETED;
	if (row->start_time > 0 && (t->start_time == 0 ||
	    row->start_time < t->start_time))
		t->start_time = row->start_time;
}

/* Reads the final states of the targets not active and not yet known. */
static void
fetch_done(struct kaid *k, struct kai_map *act)
{
	uint64_t *ids = NULL;
	struct kai_db_done *rows;
	size_t i, x, n = 0, nrows;
	struct kai_err err;
	char key[64];

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);

		for (x = 0; j->state == KAI_JOB_PENDING && j->dep != NULL &&
		    x < j->dep->n; x++) {
			const struct kai_dep_item *it = &j->dep->items[x];

			if (it->type == KAI_DEP_SINGLETON)
				continue;
			key_of(key, sizeof(key), it->job, KAI_DEP_TASK_ALL);
			if (kai_map_get(act, key) != NULL ||
			    kai_map_get(&k->deps->done, key) != NULL)
				continue;
			ids = kai_xreallocarray(ids, n + 1, sizeof(*ids));
			ids[n++] = it->job;
			/* Known from now on, even with no rows at all. */
			tgt_at(&k->deps->done, key)->t.ended = true;
		}
	}
	if (n == 0)
		return;
	if (kai_db_jobs_done(k->db, ids, n, &rows, &nrows, &err) != 0) {
		kai_log_warn("could not read dependencies: %s", err.msg);
		for (i = 0; i < n; i++) {
			key_of(key, sizeof(key), ids[i], KAI_DEP_TASK_ALL);
			kai_map_del(&k->deps->done, key);
		}
		free(ids);
		return;
	}
	for (i = 0; i < nrows; i++) {
		struct tgt *g[2];

		key_of(key, sizeof(key), rows[i].key, KAI_DEP_TASK_ALL);
		g[0] = tgt_at(&k->deps->done, key);
		key_of(key, sizeof(key), rows[i].key, rows[i].task < 0 ?
		    KAI_DEP_TASK_ALL : (uint32_t)rows[i].task);
		g[1] = tgt_at(&k->deps->done, key);
		for (x = 0; x < 2; x++)
			note_done(&g[x]->t, &rows[i]);
	}
	free(rows);
	free(ids);
}

/* What item x of j's dependency is waiting for. */
static struct kai_dep_target
target(const struct kaid *k, struct kai_map *act, const struct kai_job *j,
    const struct kai_dep_item *it)
{
	struct kai_dep_target none = {false, false, false, 0};
	const struct kai_job *a;
	struct tgt *g;
	char key[KAI_JOB_NAME_MAX + 32];

	if (it->type == KAI_DEP_SINGLETON) {
		(void)snprintf(key, sizeof(key), "s%" PRIu32 "/%s", j->uid,
		    j->name);
		g = kai_map_get(act, key);
		none.ended = g == NULL || g->min_id >= j->id;
		return none;
	}
	if (it->task != KAI_DEP_TASK_ALL &&
	    (a = state_job(k, it->job)) != NULL && a->array_pending != NULL &&
	    kai_array_contains(a->array_pending, it->task))
		return none; /* the task has not been split off: pending */
	key_of(key, sizeof(key), it->job, it->task);
	if ((g = kai_map_get(act, key)) != NULL) {
		none.started = g->t.started;
		none.start_time = g->t.start_time;
		return none;
	}
	if ((g = kai_map_get(&k->deps->done, key)) != NULL)
		return g->t;
	none.ended = none.failed = true; /* a task the array never had */
	return none;
}

/* The whole dependency's state; j->dep_left says which items are not
 * met yet (kqueue %E). */
static enum kai_dep_status
evaluate(const struct kaid *k, struct kai_map *act, struct kai_job *j,
    int64_t now)
{
	struct kai_dep_target *t = kai_xcalloc(j->dep->n + 1, sizeof(*t));
	char left[KAI_DEP_TEXT_MAX];
	enum kai_dep_status st;
	size_t x;

	for (x = 0; x < j->dep->n; x++)
		t[x] = target(k, act, j, &j->dep->items[x]);
	st = kai_dep_eval(j->dep, t, now);
	if (st != KAI_DEP_OK &&
	    kai_dep_format_left(j->dep, t, now, left, sizeof(left)))
		j->dep_left = kai_xstrdup(left);
	free(t);
	return st;
}

/* The gate of one pending job; may drop a met dependency. */
static const char *
gate_of(const struct kaid *k, struct kai_map *act, struct kai_job *j,
    int64_t now)
{
	char key[32];
	struct tgt *g;

	if (j->dep != NULL) {
		switch (evaluate(k, act, j, now)) {
		case KAI_DEP_WAIT:
			return "Dependency";
		case KAI_DEP_NEVER:
			return "DependencyNeverSatisfied";
		case KAI_DEP_OK:
			kai_dep_fini(j->dep);
			KAI_FREE(j->dep);
			break;
		}
	}
	if (j->array_pending != NULL && j->array_pending->throttle > 0) {
		key_of(key, sizeof(key), j->array_job_id, KAI_DEP_TASK_ALL);
		g = kai_map_get(act, key);
		if (g != NULL && g->running >= j->array_pending->throttle)
			return "JobArrayTaskLimit";
	}
	return NULL;
}

char *
deps_gate_text(const struct kai_job *j)
{
	if (j->gate == NULL)
		return kai_xstrdup("");
	if (strcmp(j->gate, "Dependency") == 0)
		return kai_xasprintf("waiting for its dependency %s",
		    j->dep_text != NULL ? j->dep_text : "");
	if (strcmp(j->gate, "DependencyNeverSatisfied") == 0)
		return kai_xasprintf("its dependency %s can never be "
		    "satisfied", j->dep_text != NULL ? j->dep_text : "");
	if (strcmp(j->gate, "JobArrayTaskLimit") == 0 &&
	    j->array_pending != NULL)
		return kai_xasprintf("the array already runs its limit of %"
		    PRIu32 " tasks at once", j->array_pending->throttle);
	return kai_xstrdup(j->gate);
}

static bool
gated(const struct kai_job *j)
{
	return j->state == KAI_JOB_PENDING && !j->hold && (j->dep != NULL ||
	    (j->array_pending != NULL && j->array_pending->throttle > 0));
}

void
deps_update(struct kaid *k, int64_t now)
{
	struct kai_map act;
	uint64_t *kill = NULL;
	size_t i, nkill = 0;
	bool need = false;

	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		j->gate = NULL;
		KAI_FREE(j->dep_left);
		need |= gated(j);
	}
	if (!need)
		return;
	kai_map_init(&act, free);
	build_active(k, &act);
	fetch_done(k, &act);
	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (!gated(j))
			continue;
		j->gate = gate_of(k, &act, j, now);
		if (j->gate != NULL &&
		    strcmp(j->gate, "DependencyNeverSatisfied") == 0)
			mail_invalid_depend(k, j, now);
		if (j->gate != NULL && j->kill_on_invalid_dep &&
		    strcmp(j->gate, "DependencyNeverSatisfied") == 0) {
			kill = kai_xreallocarray(kill, nkill + 1,
			    sizeof(*kill));
			kill[nkill++] = j->id;
		}
	}
	kai_map_fini(&act);
	for (i = 0; i < nkill; i++) {
		struct kai_job *j = state_job(k, kill[i]);

		if (j != NULL)
			(void)reconcile_finish(k, j, KAI_JOB_CANCELLED,
			    "DependencyNeverSatisfied", 0, 0, -1, now);
	}
	free(kill);
}

void
deps_init(struct kaid *k)
{
	k->deps = kai_xcalloc(1, sizeof(*k->deps));
	kai_map_init(&k->deps->done, free);
}

void
deps_free(struct kaid *k)
{
	if (k->deps == NULL)
		return;
	kai_map_fini(&k->deps->done);
	KAI_FREE(k->deps);
}
