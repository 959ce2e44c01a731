/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * incr_world.c: everything of a snapshot but its jobs, written out as
 * bytes, so that a cycle fed by a kept state (incr.c) can tell whether
 * what a closed leaf's waiting jobs were told still holds.
 *
 * The bytes are compared whole with the last cycle's, not hashed: a
 * collision would hand a job another cycle's reason.  What is written
 * is what the reasons of a closed leaf's jobs can depend on: the config,
 * the nodes (all of a node: its capacity, what others hold on it, its
 * labels, taints, type and features), the queues but their usage (a
 * queue's usage moves its fair share, which incr.c checks at every
 * phase instead), the users but their usage (it orders a leaf's jobs
 * by user, and decays at every tick: incr.c compares the order it
 * gives per kept leaf instead), the accounts, pools, topologies, the jobs' GPU type
 * names, GPU caps and node requirements.  `now` is left out: nothing a
 * left-out job is told depends on it (its start estimate is none, and
 * the jobs that could get one are never left out).  Strings are written with their length,
 * and NULL apart from "".
 */
#include "config.h"

#include <string.h>

#include "base/xmalloc.h"
#include "sched/incr.h"

static void
put(struct inc_bytes *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = b->cap * 2 > b->n + n ? b->cap * 2 : b->n + n + 4096;
		b->p = kai_xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void
put_i64(struct inc_bytes *b, int64_t v)
{
	put(b, &v, sizeof(v));
}

static void
put_dbl(struct inc_bytes *b, double v)
{
	put(b, &v, sizeof(v));
}

static void
put_str(struct inc_bytes *b, const char *s)
{
	int64_t n = s == NULL ? -1 : (int64_t)strlen(s);

	put_i64(b, n);
	if (n > 0)
		put(b, s, (size_t)n);
}

static void
put_labels(struct inc_bytes *b, const struct kai_sched_label *l, size_t n)
{
	size_t i;

	put_i64(b, (int64_t)n);
	for (i = 0; i < n; i++) {
		put_str(b, l[i].key);
		put_str(b, l[i].value);
	}
}

static void
put_config(struct inc_bytes *b, const struct kai_sched_config *c)
{
	size_t i;

	put_i64(b, c->placement);
	put_i64(b, c->gpu_placement);
	put_i64(b, (int64_t)c->nphases);
	for (i = 0; i < c->nphases && i < KAI_SCHED_MAX_PHASES; i++)
		put_i64(b, c->phases[i]);
	put_dbl(b, c->k_value);
	put_i64(b, c->default_staleness_grace_s);
	put_i64(b, c->max_consolidation_moves);
	put_i64(b, c->est_jobs);
	put_i64(b, c->bf_reservations);
	put_i64(b, c->bf_max_job_test);
}

static void
put_nodes(struct inc_bytes *b, const struct kai_sched_snapshot *s)
{
	size_t i, k;

	put_i64(b, (int64_t)s->nnodes);
	for (i = 0; i < s->nnodes; i++) {
		const struct kai_sched_snap_node *n = &s->nodes[i];

		put_str(b, n->name);
		put_i64(b, n->gpus);
		put_i64(b, n->gpu_memory_mib);
		put_i64(b, n->cpu_millis);
		put_i64(b, n->memory_mib);
		put_i64(b, n->held_gpus);
		put_i64(b, n->held_cpu_millis);
		put_i64(b, n->held_memory_mib);
		put_labels(b, n->labels, n->nlabels);
		put_i64(b, n->unschedulable);
		put_i64(b, (int64_t)n->ntaints);
		for (k = 0; k < n->ntaints; k++) {
			put_str(b, n->taints[k].key);
			put_str(b, n->taints[k].value);
			put_str(b, n->taints[k].effect);
		}
		put_str(b, n->gpu_type);
		put_i64(b, (int64_t)n->features);
	}
}

static void
put_queues(struct inc_bytes *b, const struct kai_sched_snapshot *s)
{
	size_t i, k;
	int r;

	put_i64(b, (int64_t)s->nqueues);
	for (i = 0; i < s->nqueues; i++) {
		const struct kai_sched_snap_queue *q = &s->queues[i];

		put_str(b, q->name);
		put_i64(b, q->parent);
		put_i64(b, q->priority);
		for (r = 0; r < KAI_SCHED_NRES; r++) {
			put_i64(b, q->res[r].quota);
			put_i64(b, q->res[r].limit);
			put_dbl(b, q->res[r].weight);
		}
		put_i64(b, q->preempt_min_runtime_s);
		put_i64(b, q->reclaim_min_runtime_s);
		put_i64(b, (int64_t)q->ntypes);
		for (k = 0; k < q->ntypes; k++) {
			put_str(b, q->types[k].type);
			put_i64(b, q->types[k].quota);
			put_i64(b, q->types[k].limit);
			put_dbl(b, q->types[k].weight);
		}
	}
}

static void
put_rest(struct inc_bytes *b, const struct kai_sched_snapshot *s)
{
	size_t i, k;

	put_i64(b, (int64_t)s->nusers);
	for (i = 0; i < s->nusers; i++)
		put_str(b, s->users[i].name);
	put_i64(b, (int64_t)s->naccounts);
	for (i = 0; i < s->naccounts; i++) {
		put_str(b, s->accounts[i].name);
		put_i64(b, s->accounts[i].weight);
	}
	put_i64(b, (int64_t)s->ntopologies);
	for (i = 0; i < s->ntopologies; i++) {
		put_str(b, s->topologies[i].name);
		put_i64(b, (int64_t)s->topologies[i].nlevels);
		for (k = 0; k < s->topologies[i].nlevels; k++)
			put_str(b, s->topologies[i].levels[k]);
	}
	put_i64(b, (int64_t)s->npools);
	for (i = 0; i < s->npools; i++) {
		const struct kai_sched_pool *p = &s->pools[i];

		put_str(b, p->name);
		put_labels(b, p->selector, p->nselector);
		put_i64(b, (int64_t)p->ntolerations);
		for (k = 0; k < p->ntolerations; k++) {
			put_str(b, p->tolerations[k].key);
			put_i64(b, p->tolerations[k].exists);
			put_str(b, p->tolerations[k].value);
			put_str(b, p->tolerations[k].effect);
		}
	}
	put_i64(b, (int64_t)s->ngpu_types);
	for (i = 0; i < s->ngpu_types; i++)
		put_str(b, s->gpu_types[i]);
	put_i64(b, (int64_t)s->ngpu_limits);
	for (i = 0; i < s->ngpu_limits; i++)
		put_i64(b, s->gpu_limits[i]);
	put_i64(b, (int64_t)s->nnodereqs);
	for (i = 0; i < s->nnodereqs; i++) {
		const struct kai_sched_nodereq *q = &s->nodereqs[i];

		put_str(b, q->text);
		put_i64(b, (int64_t)q->nalts);
		for (k = 0; k < q->nalts; k++)
			put_i64(b, (int64_t)q->alts[k]);
		put_i64(b, q->match);
		put_i64(b, q->only_set);
		put_i64(b, (int64_t)q->nonly);
		for (k = 0; k < q->nonly; k++)
			put_i64(b, q->only[k]);
		put_i64(b, (int64_t)q->nnever);
		for (k = 0; k < q->nnever; k++)
			put_i64(b, q->never[k]);
	}
}

void
kai_sched_inc_world(struct inc_bytes *b, const struct kai_sched_snapshot *s)
{
	b->n = 0;
	put_config(b, &s->config);
	put_nodes(b, s);
	put_queues(b, s);
	put_rest(b, s);
}
