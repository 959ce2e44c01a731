/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * snapgen.c: a number per job of the tick's snapshot
 * (kai_sched_snapshot.job_gen), so that the scheduler core can leave
 * alone the waiting jobs nothing changed for (doc/scheduler.md,
 * "Incremental cycles").
 *
 * The core's contract: two jobs of two snapshots may carry the same
 * number only when their entries are the same -- the job's fields, its
 * tasks', and what they index.  A job's number here is a 64-bit hash of
 * its entry as the snapshot holds it: every field of the job but
 * first_task (an index that moves when jobs before it leave; its tasks
 * are hashed instead), its name's bytes, and every field of each of its
 * tasks.  What the indices name (queue, user, account, pool, topology,
 * GPU type, GPU cap, node requirement) is not hashed: the core compares
 * everything of the snapshot but its jobs itself, and runs every job
 * when any of it differs.
 *
 * Why a hash and not a generation bumped where kaid changes a job:
 * kaid's job cache is changed in many places (submission, kctl, the
 * pods' events, evictions, requeues, dependencies, arrays, node
 * features, policies) and much of an entry is derived at the tick (a
 * task's node index, a node requirement's index, a QoS cap); one place
 * that forgot to bump would hand a job a stale reason, silently.  A
 * hash of what the core reads cannot forget, and costs one pass over
 * the entries the tick has just written (about 200 bytes a job: some
 * 47 ms of CPU for a million jobs of 3.5 million tasks).  The
 * price is a collision: two different entries of one job with equal
 * numbers, one chance in 2^64 per job and tick, would keep that job's
 * last reason for a tick.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "snapshot.h"

/*
 * The hash reads every field by name; a field added to either struct
 * must be added below (these fail when the size changes).
 */
_Static_assert(sizeof(struct kai_sched_snap_job) == 96,
    "kai_sched_snap_job changed: hash its new field in snapgen.c");
_Static_assert(sizeof(struct kai_sched_snap_task) == 32,
    "kai_sched_snap_task changed: hash its new field in snapgen.c");

/* splitmix64's finaliser: every bit of v moves about half of the out. */
static uint64_t
mix(uint64_t v)
{
	v ^= v >> 30;
	v *= UINT64_C(0xbf58476d1ce4e5b9);
	v ^= v >> 27;
	v *= UINT64_C(0x94d049bb133111eb);
	return v ^ (v >> 31);
}

/*
 * One word into the hash: a multiply by an odd constant and an
 * xor-shift, each a bijection of h, so two entries that differ in one
 * word always differ in the hash; mix() spreads the end.  One multiply
 * a word, as a million jobs are hashed at every tick.
 */
static uint64_t
put(uint64_t h, uint64_t v)
{
	h = (h ^ v) * UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 32);
}

static uint64_t
put_str(uint64_t h, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0, i;
	uint64_t w;

	h = put(h, s != NULL ? (uint64_t)n : UINT64_MAX);
	for (i = 0; i < n; i += 8) {
		w = 0;
		memcpy(&w, s + i, n - i < 8 ? n - i : 8);
		h = put(h, w);
	}
	return h;
}

static uint64_t
put_task(uint64_t h, const struct kai_sched_snap_task *t)
{
	h = put(h, t->gpu_mask);
	h = put(h, (uint64_t)(uint32_t)t->gpu_fraction << 32 |
	    (uint32_t)t->gpu_memory_mib);
	h = put(h, (uint64_t)(uint32_t)t->cpu_millis << 32 |
	    (uint32_t)t->memory_mib);
	return put(h, (uint64_t)(uint32_t)t->node << 32 |
	    (uint64_t)t->gpus << 16 | (uint64_t)t->state << 8 |
	    t->gpu_devices);
}

static uint64_t
job_number(const struct kai_sched_snapshot *s, size_t j)
{
	const struct kai_sched_snap_job *J = &s->jobs[j];
	uint64_t h = put_str(UINT64_C(0x6b61696261746368), J->name);
	uint64_t ht = UINT64_C(0x736e617067656e31);
	size_t t;

	h = put(h, (uint64_t)J->created);
	h = put(h, (uint64_t)J->stale_since);
	h = put(h, (uint64_t)J->started);
	h = put(h, (uint64_t)J->time_limit_s);
	h = put(h, (uint64_t)(uint32_t)J->priority << 32 | J->ntasks);
	h = put(h, (uint64_t)J->queue << 32 | (uint32_t)J->user);
	h = put(h, (uint64_t)(uint32_t)J->account << 32 | J->min_tasks);
	h = put(h, (uint64_t)(uint32_t)J->topology << 32 |
	    (uint32_t)J->staleness_grace_s);
	h = put(h, (uint64_t)J->gpu_limit << 32 | J->tasks_per_node);
	h = put(h, (uint64_t)J->nodereq << 32 | (uint64_t)(uint16_t)J->pool
	    << 16 | J->gpu_type);
	h = put(h, (uint64_t)(uint8_t)J->required_level << 24 |
	    (uint64_t)(uint8_t)J->preferred_level << 16 |
	    (uint64_t)J->preemptible << 2 | (uint64_t)J->held << 1 |
	    (uint64_t)J->exclusive);
	/* The tasks in a chain of their own: two chains of multiplies
	 * run side by side (a fifth less time at a million jobs). */
	for (t = J->first_task; t < (size_t)J->first_task + J->ntasks; t++)
		ht = put_task(ht, &s->tasks[t]);
	/* Injective in each chain with the other fixed. */
	return mix(h ^ mix(ht));
}

void
snap_number(struct snap *sn)
{
	size_t j;

	free(sn->job_gen);
	sn->job_gen = kai_xcalloc(sn->s.njobs + 1, sizeof(*sn->job_gen));
	for (j = 0; j < sn->s.njobs; j++)
		sn->job_gen[j] = job_number(&sn->s, j);
	sn->s.job_gen = sn->job_gen;
}
