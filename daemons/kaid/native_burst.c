/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native_burst.c: the one-pod jobs of a watch burst, recorded in one
 * transaction (doc/k8s-native.md "Lifecycle").
 *
 * A controller makes its pods in bursts (a Deployment scaled to 1,000,
 * the pod list at kaid's start), and the watch hands them to kaid
 * together.  Each pod's job inserted in a transaction of its own costs a
 * round trip and a commit (a disk flush) per pod; so native.c builds the
 * job and leaves it here, and kaid's loop, before it sleeps (once every
 * ready event was handled, as for the group commit of submissions in
 * rpc_submit.c), records them all at once.  A gang's job is not
 * deferred: its next members, maybe in the same burst, join it.
 *
 * Until then the pod is not a job's: nothing in kaid acts on it (an
 * unbound pod holds no capacity), and the pod watch may show it again
 * (native_pod() then leaves it waiting here) or deleted.  So at the
 * commit each pod is looked at again, and only those the watch still
 * shows pending, unbound, not deleted and not a job's are recorded.
 *
 * One row the database refuses (the unique workload index, a kaid that
 * lost the race with another) would undo the whole batch: then each is
 * recorded alone and only the one at fault is dropped, logged; its pod
 * is tried again at its next change, as before batching.
 *
 * Ownership: the burst owns its struct native_new until recorded
 * (their jobs then go to the state) or dropped.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "daemons/kaid/kaid.h"
#include "daemons/kaid/native.h"
#include "daemons/kaid/tick.h"
#include "sys/log.h"

struct native_burst {
	struct native_new **v;	/* in the order the watch showed them */
	size_t n, cap;
	struct kai_map keys;	/* pod key -> (non-NULL): is in v */
};

void
native_new_free(struct native_new *nn)
{
	if (nn == NULL)
		return;
	free(nn->key);
	kai_jobspec_fini(&nn->js);
	if (nn->j != NULL) {
		kai_job_fini(nn->j);
		free(nn->j);
	}
	free(nn);
}

/* The job of nn, recorded as id, joins the state; nn keeps no job. */
static struct kai_job *
settle(struct kaid *k, struct native_new *nn, uint64_t id)
{
	struct kai_job *j = nn->j;

	nn->j = NULL;
	j->id = id;
	kai_log_info("%s \"%s\" is job %" PRIu64 " (user %s, queue %s, "
	    "name %s, %" PRIu32 " task%s)", native_gang(j) ? "group" : "pod",
	    j->workload, id, j->user, j->queue, j->name, j->ntasks,
	    j->ntasks == 1 ? "" : "s");
	state_job_add(k, j);
	return j;
}

struct kai_job *
native_new_record(struct kaid *k, struct native_new *nn)
{
	struct kai_job *j = NULL;
	struct kai_err err;
	uint64_t id;

	if (kai_db_jobs_insert(k->db, &nn->nj, 1, &id, &err) != 0)
		kai_log_err("pod \"%s\": could not record its job: %s",
		    nn->key, err.msg);
	else {
		j = settle(k, nn, id);
		tick_soon(k);
	}
	native_new_free(nn);
	return j;
}

void
native_burst_add(struct kaid *k, struct native_new *nn)
{
	struct native_burst *b = k->nburst;

	if (b == NULL) {
		b = k->nburst = kai_xcalloc(1, sizeof(*b));
		kai_map_init(&b->keys, NULL);
	}
	if (kai_map_get(&b->keys, nn->key) != NULL) {
		native_new_free(nn);	/* native_pod() checks: never */
		return;
	}
	if (b->n == b->cap) {
		b->cap = b->cap != 0 ? b->cap * 2 : 64;
		b->v = kai_xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	b->v[b->n++] = nn;
	kai_map_put(&b->keys, nn->key, nn);
}

bool
native_burst_has(const struct kaid *k, const char *key)
{
	return k->nburst != NULL && kai_map_get(&k->nburst->keys, key) != NULL;
}

/* Whether the watch still shows the pod keyed key waiting for a job. */
static bool
still_waits(const struct kaid *k, const char *key)
{
	const struct pod_rec *r = kai_map_get(&k->pods, key);

	return r != NULL && !r->managed && !r->deleting &&
	    r->node[0] == '\0' && r->phase == KAI_POD_PENDING &&
	    native_job_of(k, key, NULL) == NULL;
}

/* The pod keyed key is now job j's, task 0 (state.c's native_follow). */
static void
follow(struct kaid *k, const char *key, const struct kai_job *j)
{
	struct pod_rec *r = kai_map_get(&k->pods, key);

	r->managed = true;
	r->job_id = j->id;
	r->task = 0;
}

/*
 * Records v[0..n) one by one after their batch failed: the one the
 * database refuses is dropped (logged), the others recorded.  Returns
 * how many were.
 */
static size_t
one_by_one(struct kaid *k, struct native_new **v, size_t n)
{
	struct kai_err err;
	uint64_t id;
	size_t i, done = 0;
	bool down = false;

	for (i = 0; i < n; i++) {
		/* Without a database the rest fail as the batch did. */
		if (!down && !kai_db_connected(k->db) &&
		    kai_db_reconnect(k->db, &err) != 0)
			down = true;
		if (down || kai_db_jobs_insert(k->db, &v[i]->nj, 1, &id,
		    &err) != 0) {
			kai_log_err("pod \"%s\": could not record its job: %s",
			    v[i]->key, err.msg);
			continue;
		}
		follow(k, v[i]->key, settle(k, v[i], id));
		done++;
	}
	return done;
}

void
native_burst_commit(struct kaid *k)
{
	struct native_burst *b = k->nburst;
	struct kai_db_newjob *rows;
	struct native_new **v;
	struct kai_err err;
	uint64_t *ids;
	size_t i, n = 0, done;

	if (b == NULL || b->n == 0)
		return;
	/* Only the pods that still wait: the others' jobs are dropped. */
	v = kai_xcalloc(b->n, sizeof(*v));
	for (i = 0; i < b->n; i++)
		if (still_waits(k, b->v[i]->key))
			v[n++] = b->v[i];
	rows = kai_xcalloc(n > 0 ? n : 1, sizeof(*rows));
	ids = kai_xcalloc(n > 0 ? n : 1, sizeof(*ids));
	for (i = 0; i < n; i++)
		rows[i] = v[i]->nj;
	done = n;
	if (n > 0 && kai_db_jobs_insert(k->db, rows, n, ids, &err) == 0) {
		for (i = 0; i < n; i++)
			follow(k, v[i]->key, settle(k, v[i], ids[i]));
		kai_log_debug("recorded the jobs of %zu pods in one "
		    "transaction", n);
	} else if (n > 1) {
		kai_log_warn("recording the jobs of %zu pods in one transaction "
		    "failed (%s); recording them one by one", n, err.msg);
		done = one_by_one(k, v, n);
	} else if (n == 1) {
		kai_log_err("pod \"%s\": could not record its job: %s",
		    v[0]->key, err.msg);
		done = 0;
	}
	if (done > 0)
		tick_soon(k);
	for (i = 0; i < b->n; i++)
		native_new_free(b->v[i]);
	b->n = 0;
	kai_map_fini(&b->keys);
	kai_map_init(&b->keys, NULL);
	free(v);
	free(rows);
	free(ids);
}

void
native_burst_free(struct kaid *k)
{
	size_t i;

	if (k->nburst == NULL)
		return;
	for (i = 0; i < k->nburst->n; i++)
		native_new_free(k->nburst->v[i]);
	free(k->nburst->v);
	kai_map_fini(&k->nburst->keys);
	KAI_FREE(k->nburst);
}
