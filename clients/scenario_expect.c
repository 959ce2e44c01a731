/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_expect.c: the `expect:` block of a scenario.
 *
 * Every name in it must exist (a misspelt job would otherwise make a
 * test that cannot fail): jobs, queues, nodes, and tasks named
 * "<job>-<index>".  Node lists hold exact names, "*" (any node) or
 * {any_of: [...]}, compared later as multisets (ksim_check.c).  The
 * `reasons:` key is kaibatch's own (doc/scheduler.md): a text that must
 * occur in a job's reason, so explanations are tested too.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "scenario.h"

static int
job_ref(struct sload *ld, const struct ynode *n, uint32_t *out)
{
	size_t i;
	int rc;

	if ((rc = sload_kind(ld, n, YT_SCALAR, "a job")) != 0)
		return rc;
	if ((i = sload_find(&ld->sc->job_ix, n->s)) == 0)
		return sload_fail(ld, n, "no job \"%s\"", n->s);
	*out = (uint32_t)(i - 1);
	return 0;
}

static int
matcher(struct sload *ld, const struct ynode *n, struct matcher *m)
{
	const struct ynode *l;
	size_t i;

	if (n->kind == YT_SCALAR && strcmp(n->s, "*") == 0) {
		m->kind = MATCH_ANY;
		return 0;
	}
	if (n->kind == YT_SCALAR) {
		m->kind = MATCH_NODE;
		m->nodes = kai_xcalloc(1, sizeof(*m->nodes));
		m->n = 1;
		return sload_node(ld, n, &m->nodes[0]);
	}
	if (n->kind != YT_MAP || n->n != 1 ||
	    (l = ytree_get(n, "any_of")) == NULL || l->kind != YT_SEQ ||
	    l->n == 0)
		return sload_fail(ld, n,
		    "a node is a name, \"*\" or "
		    "{any_of: [names]}");
	m->kind = MATCH_ANY_OF;
	m->nodes = kai_xcalloc(l->n, sizeof(*m->nodes));
	m->n = l->n;
	for (i = 0; i < l->n; i++) {
		int rc = sload_node(ld, l->v[i], &m->nodes[i]);

		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
places(struct sload *ld, const struct ynode *map, struct exp_place **out,
    size_t *nout)
{
	size_t i, k;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "a job-to-nodes map")) != 0)
		return rc;
	*out = kai_xcalloc(map->n + 1, sizeof(**out));
	for (i = 0; i < map->n; i++) {
		const struct ynode *l = map->v[2 * i + 1];
		struct exp_place *p = &(*out)[i];

		*nout = i + 1;
		if ((rc = job_ref(ld, map->v[2 * i], &p->job)) != 0 ||
		    (rc = sload_kind(ld, l, YT_SEQ, "a node list")) != 0)
			return rc;
		p->m = kai_xcalloc(l->n + 1, sizeof(*p->m));
		p->n = l->n;
		for (k = 0; k < l->n; k++)
			if ((rc = matcher(ld, l->v[k], &p->m[k])) != 0)
				return rc;
	}
	return 0;
}

static int
job_list(struct sload *ld, const struct ynode *l, uint32_t **out, size_t *n)
{
	size_t i;
	int rc;

	if (l == NULL)
		return 0;
	if ((rc = sload_kind(ld, l, YT_SEQ, "a job list")) != 0)
		return rc;
	*out = kai_xcalloc(l->n + 1, sizeof(**out));
	for (i = 0; i < l->n; i++)
		if ((rc = job_ref(ld, l->v[i], &(*out)[i])) != 0)
			return rc;
	*n = l->n;
	return 0;
}

/* "<job>-<index>": the job is everything before the last '-'. */
static int
task_ref(struct sload *ld, const struct ynode *n, uint32_t *out)
{
	const struct scenario *sc = ld->sc;
	const char *dash = strrchr(n->s, '-');
	char *job;
	int64_t idx;
	size_t j;
	struct kai_err e;

	if (dash == NULL)
		return sload_fail(ld, n, "a task is named \"<job>-<index>\"");
	job = kai_xstrndup(n->s, (size_t)(dash - n->s));
	j = sload_find(&sc->job_ix, job);
	free(job);
	if (j == 0 ||
	    kai_strtoi64(dash + 1, 0, INT32_MAX, &idx, "task index", &e) != 0 ||
	    (size_t)idx >= sc->jobs[j - 1].ntasks)
		return sload_fail(ld, n, "no task \"%s\"", n->s);
	*out = (uint32_t)(sc->jobs[j - 1].first_task + (size_t)idx);
	return 0;
}

static int
tasks(struct sload *ld, const struct ynode *map)
{
	static const char *const keys[] = {"state", "node", NULL};
	struct expect *e = &ld->sc->expect;
	size_t i;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "tasks")) != 0)
		return rc;
	e->tasks = kai_xcalloc(map->n + 1, sizeof(*e->tasks));
	for (i = 0; i < map->n; i++) {
		const struct ynode *m = map->v[2 * i + 1], *n;
		struct exp_task *t = &e->tasks[i];
		uint32_t node;

		e->ntasks = i + 1;
		t->state = -1;
		t->node = -1;
		if ((rc = task_ref(ld, map->v[2 * i], &t->task)) != 0 ||
		    (rc = sload_keys(ld, m, keys, "a task expectation")) != 0)
			return rc;
		if ((n = ytree_get(m, "state")) != NULL &&
		    (rc = sload_task_state(ld, n, KAI_SCHED_TASK_EVICTED,
			 &t->state)) != 0)
			return rc;
		if ((n = ytree_get(m, "node")) != NULL) {
			if ((rc = sload_node(ld, n, &node)) != 0)
				return rc;
			t->node = (int32_t)node;
		}
	}
	return 0;
}

static int
shared(struct sload *ld, const struct ynode *map)
{
	static const char *const keys[] = {"same_gpu_as", "different_gpu_from",
	    NULL};
	struct expect *e = &ld->sc->expect;
	size_t i;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "shared_gpu")) != 0)
		return rc;
	e->shared = kai_xcalloc(map->n + 1, sizeof(*e->shared));
	for (i = 0; i < map->n; i++) {
		const struct ynode *m = map->v[2 * i + 1], *o;
		struct exp_shared *s = &e->shared[i];

		e->nshared = i + 1;
		if ((rc = job_ref(ld, map->v[2 * i], &s->job)) != 0 ||
		    (rc = sload_keys(ld, m, keys, "a shared_gpu entry")) != 0)
			return rc;
		if (m->n != 1)
			return sload_fail(ld, m,
			    "give same_gpu_as or "
			    "different_gpu_from");
		s->same = (o = ytree_get(m, "same_gpu_as")) != NULL;
		if (o == NULL)
			o = ytree_get(m, "different_gpu_from");
		if ((rc = job_ref(ld, o, &s->other)) != 0)
			return rc;
	}
	return 0;
}

static int
devices(struct sload *ld, const struct ynode *map)
{
	struct expect *e = &ld->sc->expect;
	size_t i;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "gpu_index")) != 0)
		return rc;
	e->devs = kai_xcalloc(map->n + 1, sizeof(*e->devs));
	for (i = 0; i < map->n; i++) {
		struct exp_devs *d = &e->devs[i];

		e->ndevs = i + 1;
		if ((rc = job_ref(ld, map->v[2 * i], &d->job)) != 0 ||
		    (rc = sload_gpu_index(ld, map->v[2 * i + 1], &d->mask)) != 0)
			return rc;
		if (d->mask == 0)
			return sload_fail(ld, map->v[2 * i + 1],
			    "gpu_index lists no GPU");
	}
	return 0;
}

static int
fair(struct sload *ld, const struct ynode *map)
{
	static const char *const keys[] = {"gpu", "cpu", "memory", NULL};
	struct expect *e = &ld->sc->expect;
	size_t i;
	int rc, r;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "fair_share")) != 0)
		return rc;
	e->fair = kai_xcalloc(map->n + 1, sizeof(*e->fair));
	for (i = 0; i < map->n; i++) {
		const struct ynode *m = map->v[2 * i + 1];
		struct exp_fair *f = &e->fair[i];
		size_t q;

		e->nfair = i + 1;
		if ((q = sload_find(&ld->sc->queue_ix, map->v[2 * i]->s)) == 0)
			return sload_fail(ld, map->v[2 * i], "no queue \"%s\"",
			    map->v[2 * i]->s);
		f->queue = (uint32_t)(q - 1);
		if ((rc = sload_keys(ld, m, keys, "a fair share")) != 0)
			return rc;
		for (r = 0; r < KAI_SCHED_NRES; r++) {
			const struct ynode *n = ytree_get(m, keys[r]);

			if (n == NULL)
				continue;
			f->has[r] = true;
			rc = r == KAI_SCHED_GPU
			    ? sload_gpu(ld, n, true, &f->v[r])
			    : sload_i64(ld, n, -1, INT64_C(1) << 50, &f->v[r]);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

static int
reasons(struct sload *ld, const struct ynode *map)
{
	struct expect *e = &ld->sc->expect;
	size_t i;
	int rc;

	if (map == NULL)
		return 0;
	if ((rc = sload_kind(ld, map, YT_MAP, "reasons")) != 0)
		return rc;
	e->reasons = kai_xcalloc(map->n + 1, sizeof(*e->reasons));
	for (i = 0; i < map->n; i++) {
		const struct ynode *t = map->v[2 * i + 1];
		struct exp_reason *x = &e->reasons[i];

		e->nreasons = i + 1;
		if ((rc = job_ref(ld, map->v[2 * i], &x->job)) != 0 ||
		    (rc = sload_kind(ld, t, YT_SCALAR, "a reason")) != 0)
			return rc;
		x->text = t->s;
	}
	return 0;
}

int
scenario_load_expect(struct sload *ld, const struct ynode *x)
{
	static const char *const keys[] = {"running", "pipelined", "pending",
	    "evicted", "tasks", "shared_gpu", "fair_share", "reasons",
	    "gpu_type_fair_share", "gpu_index", NULL};
	struct expect *e = &ld->sc->expect;
	int rc;

	if ((rc = sload_keys(ld, x, keys, "expect")) != 0)
		return rc;
	e->present = true;
	if ((rc = places(ld, ytree_get(x, "running"), &e->running,
		 &e->nrunning)) != 0 ||
	    (rc = places(ld, ytree_get(x, "pipelined"), &e->pipelined,
		 &e->npipelined)) != 0 ||
	    (rc = job_list(ld, ytree_get(x, "pending"), &e->pending,
		 &e->npending)) != 0 ||
	    (rc = job_list(ld, ytree_get(x, "evicted"), &e->evicted,
		 &e->nevicted)) != 0 ||
	    (rc = tasks(ld, ytree_get(x, "tasks"))) != 0 ||
	    (rc = shared(ld, ytree_get(x, "shared_gpu"))) != 0 ||
	    (rc = devices(ld, ytree_get(x, "gpu_index"))) != 0)
		return rc;
	if ((rc = fair(ld, ytree_get(x, "fair_share"))) != 0 ||
	    (rc = scenario_expect_types(ld,
		 ytree_get(x, "gpu_type_fair_share"))) != 0)
		return rc;
	return reasons(ld, ytree_get(x, "reasons"));
}

static void
places_free(struct exp_place *p, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < p[i].n; k++)
			free(p[i].m[k].nodes);
		free(p[i].m);
	}
	free(p);
}

void
scenario_expect_fini(struct expect *e)
{
	places_free(e->running, e->nrunning);
	places_free(e->pipelined, e->npipelined);
	free(e->pending);
	free(e->evicted);
	free(e->tasks);
	free(e->shared);
	free(e->devs);
	free(e->fair);
	free(e->reasons);
	free(e->tfair);
	memset(e, 0, sizeof(*e));
}
