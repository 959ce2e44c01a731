/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-subgroup: a job's subgroup tree (subgroup.c) holds in random
 * worlds through every phase: a job with a task running has its root
 * satisfied, each leaf runs none of its tasks or at least its
 * min_member, and a leaf that requires a rack has its running tasks in
 * one rack.  The same worlds with the trees taken away (a plain gang of
 * the leaves' minimums) break it, so the check can fail.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_model.h"
#include "rnd.h"
#include "tap.h"

#define NN 16
#define NJ 40
#define NT (NJ * 12)
#define NG (NJ * 7)

struct world {
	struct kai_sched_snap_node nodes[NN];
	struct kai_sched_label labels[NN];
	char names[NN][16], racks[NN][8];
	struct kai_sched_snap_queue q;
	struct kai_sched_topology topo;
	const char *levels[1];
	struct kai_sched_snap_job jobs[NJ];
	struct kai_sched_snap_task tasks[NT];
	struct kai_sched_subgroup sg[NG];
	struct kai_sched_job_tree trees[NJ];
	char jnames[NJ][16], sgnames[NG][8];
	struct kai_sched_snapshot s;
};

/* A leaf of n tasks under parent p, maybe in one rack. */
static void
leaf(struct world *w, size_t *g, int32_t p, uint32_t n)
{
	struct kai_sched_subgroup *x = &w->sg[*g];

	(void)snprintf(w->sgnames[*g], sizeof(w->sgnames[0]), "s%zu", *g);
	x->name = w->sgnames[*g];
	x->parent = p;
	x->ntasks = n;
	x->min_member = 1 + rnd(n);
	x->required_level = rnd(3) == 0 ? 0 : -1;
	x->preferred_level = -1;
	(*g)++;
}

/* Job i's tree: 2-3 leaves, or 2 parents of 2 leaves; returns tasks. */
static uint32_t
tree(struct world *w, size_t i, size_t *g)
{
	struct kai_sched_job_tree *J = &w->trees[i];
	uint32_t nt = 0, k, n;

	J->job = (uint32_t)i;
	J->first_subgroup = (uint32_t)*g;
	if (rnd(2)) {
		for (k = 0; k < 2 + rnd(2); k++) {
			n = 1 + rnd(3);
			leaf(w, g, -1, n);
			nt += n;
		}
		J->min_subgroup = rnd(2) ? 1 : 0;
	} else {
		for (k = 0; k < 2; k++) {
			int32_t p = (int32_t)(*g - J->first_subgroup);
			size_t pg = (*g)++;

			(void)snprintf(w->sgnames[pg], sizeof(w->sgnames[0]),
			    "p%zu", pg);
			w->sg[pg].name = w->sgnames[pg];
			w->sg[pg].parent = -1;
			w->sg[pg].min_subgroup = rnd(2);
			w->sg[pg].required_level = w->sg[pg].preferred_level =
			    -1;
			for (n = 0; n < 2; n++) {
				uint32_t m = 1 + rnd(2);

				leaf(w, g, p, m);
				nt += m;
			}
		}
	}
	J->nsubgroups = (uint32_t)(*g - J->first_subgroup);
	return nt;
}

static void
world_init(struct world *w, enum kai_sched_placement pl)
{
	size_t i, t = 0, g = 0, x;

	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	w->s.config.placement = pl;
	w->s.now = 1000;
	w->levels[0] = "rack";
	w->topo.name = "t";
	w->topo.levels = w->levels;
	w->topo.nlevels = 1;
	for (i = 0; i < NN; i++) {
		(void)snprintf(w->names[i], sizeof(w->names[i]), "n%02zu", i);
		(void)snprintf(w->racks[i], sizeof(w->racks[i]), "r%zu", i / 4);
		w->labels[i].key = "rack";
		w->labels[i].value = w->racks[i];
		w->nodes[i].name = w->names[i];
		w->nodes[i].gpus = 1 + rnd(4);
		w->nodes[i].cpu_millis = -1;
		w->nodes[i].memory_mib = -1;
		w->nodes[i].labels = &w->labels[i];
		w->nodes[i].nlabels = 1;
	}
	kai_sched_queue_init(&w->q);
	w->q.name = "q";
	for (i = 0; i < NJ; i++) {
		struct kai_sched_snap_job *J = &w->jobs[i];

		(void)snprintf(w->jnames[i], sizeof(w->jnames[i]), "j%zu", i);
		kai_sched_job_init(J);
		J->name = w->jnames[i];
		J->priority = 50 + 50 * rnd(2);
		J->preemptible = true;
		J->created = (int64_t)i;
		J->topology = 0;
		J->first_task = t;
		J->ntasks = tree(w, i, &g);
		for (x = 0; x < J->ntasks; x++, t++) {
			kai_sched_task_init(&w->tasks[t]);
			w->tasks[t].gpus = 1;
		}
	}
	w->s.nodes = w->nodes;
	w->s.nnodes = NN;
	w->s.queues = &w->q;
	w->s.nqueues = 1;
	w->s.topologies = &w->topo;
	w->s.ntopologies = 1;
	w->s.jobs = w->jobs;
	w->s.njobs = NJ;
	w->s.tasks = w->tasks;
	w->s.ntasks = t;
	w->s.subgroups = w->sg;
	w->s.nsubgroups = g;
	w->s.trees = w->trees;
	w->s.ntrees = NJ;
}

static bool
active(enum kai_sched_task_state s)
{
	return s == KAI_SCHED_TASK_RUNNING || s == KAI_SCHED_TASK_PIPELINED;
}

/*
 * Whether subgroup k (m: the root) of job J is satisfied by act[], the
 * active tasks per subgroup; an evaluation of the rule apart from the
 * core's.
 */
static bool
sat(const struct world *w, const struct kai_sched_job_tree *J, uint32_t k,
    const uint32_t *act)
{
	const struct kai_sched_subgroup *G = &w->sg[J->first_subgroup];
	uint32_t m = J->nsubgroups, c, nchild = 0, ok = 0, need;

	for (c = 0; c < m; c++)
		if ((k == m ? G[c].parent < 0 : G[c].parent == (int32_t)k)) {
			nchild++;
			ok += sat(w, J, c, act);
		}
	if (k < m && nchild == 0)
		return act[k] >= G[k].min_member;
	need = k == m ? J->min_subgroup : G[k].min_subgroup;
	return ok >= (need == 0 ? nchild : need);
}

/* Breaks of the rule in r for the jobs' trees (w's, kept aside). */
static int
breaks(const struct world *w, const struct kai_sched_result *r)
{
	int bad = 0;
	size_t j;

	for (j = 0; j < NJ; j++) {
		const struct kai_sched_job_tree *J = &w->trees[j];
		const struct kai_sched_subgroup *G = &w->sg[J->first_subgroup];
		uint32_t act[8] = {0}, k, any = 0;
		size_t t = w->jobs[j].first_task;

		for (k = 0; k < J->nsubgroups; k++) {
			const char *rack = NULL;
			size_t x;

			for (x = 0; x < G[k].ntasks; x++, t++) {
				const struct kai_sched_task_out *o = &r->tasks[t];

				if (!active(o->state))
					continue;
				act[k]++;
				any++;
				if (G[k].required_level < 0)
					continue;
				if (rack == NULL)
					rack = w->racks[o->node];
				else if (strcmp(rack, w->racks[o->node]) != 0)
					bad++; /* a leaf over two racks */
			}
			if (G[k].ntasks > 0 && act[k] > 0 &&
			    act[k] < G[k].min_member)
				bad++; /* a leaf below its minimum */
		}
		if (any > 0 && !sat(w, J, J->nsubgroups, act))
			bad++;
	}
	return bad;
}

/* Runs allocate, then makes its placements the running state. */
static void
settle(struct world *w)
{
	struct kai_sched_result r;
	size_t t;

	w->s.config.phases[0] = KAI_SCHED_ALLOCATE;
	w->s.config.nphases = 1;
	if (kai_sched_cycle(&w->s, &r, NULL) != 0)
		return;
	for (t = 0; t < w->s.ntasks; t++)
		if (active(r.tasks[t].state)) {
			w->tasks[t].state = KAI_SCHED_TASK_RUNNING;
			w->tasks[t].node = r.tasks[t].node;
			w->tasks[t].gpu_mask = r.tasks[t].gpu_mask;
		}
	kai_sched_result_fini(&r);
	kai_sched_config_init(&w->s.config);
}

/* The trees taken away: a plain gang of the leaves' minimums. */
static void
flatten(struct world *w)
{
	size_t j, k;

	for (j = 0; j < NJ; j++) {
		const struct kai_sched_job_tree *R = &w->trees[j];
		uint32_t min = 0;

		for (k = 0; k < R->nsubgroups; k++)
			if (w->sg[R->first_subgroup + k].ntasks > 0)
				min += w->sg[R->first_subgroup + k].min_member;
		w->jobs[j].min_tasks = min;
		w->jobs[j].topology = -1;
	}
	w->s.ntrees = 0;
}

static void
test_random_worlds(void)
{
	struct world *w = calloc(1, sizeof(*w)), *f = calloc(1, sizeof(*f));
	int seed, runs = 0, bad = 0, bad_without = 0, placed = 0;

	for (seed = 0; seed < 60; seed++) {
		static const enum kai_sched_placement pls[] = {
		    KAI_SCHED_FRAG, KAI_SCHED_BINPACK, KAI_SCHED_SPREAD};
		enum kai_sched_placement pl = pls[seed % 3];
		struct kai_sched_result r;
		struct kai_err err;
		size_t j, t;
		uint64_t keep = rng;

		world_init(w, pl);
		settle(w);
		w->s.config.placement = pl;
		for (j = 0; j < NJ; j++)
			if (rnd(2))
				w->jobs[j].priority += 100;
		if (kai_sched_cycle(&w->s, &r, &err) != 0) {
			diag("seed %d: %s", seed, err.msg);
			continue;
		}
		runs++;
		bad += breaks(w, &r);
		for (t = 0; t < w->s.ntasks; t++)
			placed += active(r.tasks[t].state);
		kai_sched_result_fini(&r);

		/* The same world, its trees taken away. */
		rng = keep;
		world_init(w, pl);
		*f = *w;
		flatten(f);
		f->s.jobs = f->jobs;
		f->s.tasks = f->tasks;
		f->s.nodes = f->nodes;
		f->s.queues = &f->q;
		f->s.topologies = &f->topo;
		f->s.subgroups = f->sg;
		f->s.trees = f->trees;
		for (j = 0; j < NN; j++)
			f->nodes[j].labels = &f->labels[j];
		f->topo.levels = f->levels;
		if (kai_sched_cycle(&f->s, &r, &err) == 0) {
			bad_without += breaks(w, &r);
			kai_sched_result_fini(&r);
		}
	}
	is_int(runs, 60, "subgroups: every random world is a valid snapshot");
	ok(placed > 0, "subgroups: the cycles placed tasks (%d)", placed);
	is_int(bad, 0, "subgroups: roots satisfied, leaves at their minimum, "
	    "racks kept");
	ok(bad_without > 0,
	    "subgroups: without the trees the same check fails (%d)",
	    bad_without);
	free(w);
	free(f);
}

int
main(void)
{
	test_random_worlds();
	return done_testing();
}
