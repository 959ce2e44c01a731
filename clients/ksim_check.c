/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksim_check.c: a cycle's result against a scenario's `expect:` block.
 *
 * Node lists are multisets: the expected entries (a name, "*" for any
 * node, {any_of: [...]}) must pair off one-to-one with the nodes of the
 * job's tasks in that state, which is a bipartite matching (augmenting
 * paths; the lists are a job's tasks, so tiny).  Each failed expectation
 * prints one line that says what was expected and what came, e.g.
 *	FILE: job "j0": expected running on [node0, node0], got pending
 *	  (not enough free GPUs: ...)
 * on one line.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "ksim.h"

struct ck {
	FILE *f;
	const char *file;
	const struct scenario *sc;
	const struct kai_sched_result *r;
	int bad;
};

static void miss(struct ck *c, const char *fmt, ...) KAI_PRINTF(2, 3);

static void
miss(struct ck *c, const char *fmt, ...)
{
	va_list ap;

	(void)fprintf(c->f, "%s: ", c->file);
	va_start(ap, fmt);
	(void)vfprintf(c->f, fmt, ap);
	va_end(ap);
	(void)fputc('\n', c->f);
	c->bad++;
}

static void put(struct kai_buf *b, const char *fmt, ...) KAI_PRINTF(2, 3);

static void
put(struct kai_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kai_buf_vaddf(b, fmt, ap);
	va_end(ap);
	/* Past 64 KiB a description is cut short: it is only a message. */
	(void)rc;
}

static const char *
node_name(const struct ck *c, int32_t n)
{
	return n >= 0 ? c->sc->nodes[n].name : "no node";
}

static bool
matches(const struct matcher *m, uint32_t node)
{
	size_t i;

	if (m->kind == MATCH_ANY)
		return true;
	for (i = 0; i < m->n; i++)
		if (m->nodes[i] == node)
			return true;
	return false;
}

/* Kuhn's augmenting path from expected entry i. */
static bool
augment(const struct matcher *m, const uint32_t *nodes, size_t n, size_t i,
    int64_t *owner, bool *seen)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (seen[k] || !matches(&m[i], nodes[k]))
			continue;
		seen[k] = true;
		if (owner[k] < 0 ||
		    augment(m, nodes, n, (size_t)owner[k], owner, seen)) {
			owner[k] = (int64_t)i;
			return true;
		}
	}
	return false;
}

static bool
multiset_match(const struct matcher *m, size_t nm, const uint32_t *nodes,
    size_t n)
{
	int64_t *owner;
	bool *seen, ok = nm == n;
	size_t i;

	if (!ok)
		return false;
	owner = kai_xcalloc(n + 1, sizeof(*owner));
	seen = kai_xcalloc(n + 1, sizeof(*seen));
	for (i = 0; i < n; i++)
		owner[i] = -1;
	for (i = 0; ok && i < nm; i++) {
		memset(seen, 0, n * sizeof(*seen));
		ok = augment(m, nodes, n, i, owner, seen);
	}
	free(owner);
	free(seen);
	return ok;
}

/* The nodes of job j's tasks in state st. */
static size_t
nodes_in(const struct ck *c, uint32_t j, enum kai_sched_task_state st,
    uint32_t *out)
{
	const struct kai_sched_snap_job *J = &c->sc->jobs[j];
	size_t t, n = 0;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++)
		if (c->r->tasks[t].state == st && c->r->tasks[t].node >= 0)
			out[n++] = (uint32_t)c->r->tasks[t].node;
	return n;
}

static void
print_nodes(const struct ck *c, struct kai_buf *b, const uint32_t *nodes,
    size_t n)
{
	size_t i;

	put(b, "%s", "[");
	for (i = 0; i < n; i++)
		put(b, "%s%s", i ? ", " : "", c->sc->nodes[nodes[i]].name);
	put(b, "%s", "]");
}

static void
print_matchers(const struct ck *c, struct kai_buf *b, const struct matcher *m,
    size_t n)
{
	size_t i, k;

	put(b, "%s", "[");
	for (i = 0; i < n; i++) {
		put(b, "%s", i ? ", " : "");
		if (m[i].kind == MATCH_ANY) {
			put(b, "%s", "*");
		} else if (m[i].kind == MATCH_NODE) {
			put(b, "%s", c->sc->nodes[m[i].nodes[0]].name);
		} else {
			put(b, "%s", "any of (");
			for (k = 0; k < m[i].n; k++)
				put(b, "%s%s", k ? ", " : "",
				    c->sc->nodes[m[i].nodes[k]].name);
			put(b, "%s", ")");
		}
	}
	put(b, "%s", "]");
}

/* What job j came out as: "pending (reason)", "running on [a] ...". */
static void
describe(const struct ck *c, uint32_t j, struct kai_buf *b, uint32_t *tmp)
{
	const struct kai_sched_job_out *o = &c->r->jobs[j];
	static const char *const st[] = {"pending", "running", "evicted",
	    "failed"};
	size_t nr, np;

	if (o->state != KAI_SCHED_JOB_RUNNING) {
		put(b, "%s", st[o->state]);
		if (o->why.why != KAI_SCHED_WHY_NONE) {
			char why[512];

			put(b, " (%s)",
			    kai_sched_why_text(&c->sc->snap, &o->why, why,
				sizeof(why)));
		}
		return;
	}
	if ((nr = nodes_in(c, j, KAI_SCHED_TASK_RUNNING, tmp)) > 0) {
		put(b, "%s", "running on ");
		print_nodes(c, b, tmp, nr);
	}
	if ((np = nodes_in(c, j, KAI_SCHED_TASK_PIPELINED, tmp)) > 0) {
		put(b, "%s", nr > 0 ? " and pipelined on " : "pipelined on ");
		print_nodes(c, b, tmp, np);
	}
}

static void
check_places(struct ck *c, const struct exp_place *p, size_t n,
    enum kai_sched_task_state st, const char *what)
{
	uint32_t *tmp = kai_xcalloc(c->sc->snap.ntasks + 1, sizeof(*tmp));
	size_t i;

	for (i = 0; i < n; i++) {
		struct kai_buf want, got;
		size_t k = nodes_in(c, p[i].job, st, tmp);

		if (multiset_match(p[i].m, p[i].n, tmp, k))
			continue;
		kai_buf_init(&want, 1 << 16);
		kai_buf_init(&got, 1 << 16);
		print_matchers(c, &want, p[i].m, p[i].n);
		describe(c, p[i].job, &got, tmp);
		miss(c, "job \"%s\": expected %s on %s, got %s",
		    c->sc->jobs[p[i].job].name, what, want.data, got.data);
		kai_buf_fini(&want);
		kai_buf_fini(&got);
	}
	free(tmp);
}

static void
check_states(struct ck *c, const uint32_t *jobs, size_t n,
    enum kai_sched_job_state st, const char *what)
{
	uint32_t *tmp = kai_xcalloc(c->sc->snap.ntasks + 1, sizeof(*tmp));
	size_t i;

	for (i = 0; i < n; i++) {
		struct kai_buf got;

		if (c->r->jobs[jobs[i]].state == st)
			continue;
		kai_buf_init(&got, 1 << 16);
		describe(c, jobs[i], &got, tmp);
		miss(c, "job \"%s\": expected %s, got %s",
		    c->sc->jobs[jobs[i]].name, what, got.data);
		kai_buf_fini(&got);
	}
	free(tmp);
}

static const char *
tstate(int s)
{
	return s < 0 ? "any state"
		     : kai_sched_task_state_name((enum kai_sched_task_state)s);
}

static void
check_tasks(struct ck *c)
{
	const struct expect *e = &c->sc->expect;
	size_t i;

	for (i = 0; i < e->ntasks; i++) {
		const struct exp_task *x = &e->tasks[i];
		const struct kai_sched_task_out *o = &c->r->tasks[x->task];
		uint32_t j = 0;

		if ((x->state < 0 || (int)o->state == x->state) &&
		    (x->node < 0 || o->node == x->node))
			continue;
		while (c->sc->jobs[j].first_task + c->sc->jobs[j].ntasks <=
		    x->task)
			j++;
		miss(c, "task \"%s-%zu\": expected %s%s%s, got %s on %s",
		    c->sc->jobs[j].name, (size_t)(x->task - c->sc->jobs[j].first_task),
		    tstate(x->state), x->node >= 0 ? " on " : "",
		    x->node >= 0 ? node_name(c, x->node) : "",
		    tstate((int)o->state), node_name(c, o->node));
	}
}

/* The first task of j holding a GPU, or NULL. */
static const struct kai_sched_task_out *
gpu_task(const struct ck *c, uint32_t j)
{
	const struct kai_sched_snap_job *J = &c->sc->jobs[j];
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		const struct kai_sched_task_out *o = &c->r->tasks[t];

		if ((o->state == KAI_SCHED_TASK_RUNNING ||
			o->state == KAI_SCHED_TASK_PIPELINED) &&
		    o->gpu_mask != 0)
			return o;
	}
	return NULL;
}

static void
check_shared(struct ck *c)
{
	const struct expect *e = &c->sc->expect;
	size_t i;

	for (i = 0; i < e->nshared; i++) {
		const struct exp_shared *x = &e->shared[i];
		const struct kai_sched_task_out *a = gpu_task(c, x->job);
		const struct kai_sched_task_out *b = gpu_task(c, x->other);
		const char *ja = c->sc->jobs[x->job].name;
		const char *jb = c->sc->jobs[x->other].name;
		bool same;

		if (a == NULL || b == NULL) {
			miss(c,
			    "job \"%s\": expected a GPU %s job \"%s\", but "
			    "job \"%s\" holds no GPU",
			    ja, x->same ? "shared with" : "apart from", jb,
			    a == NULL ? ja : jb);
			continue;
		}
		same = a->node == b->node && (a->gpu_mask & b->gpu_mask) != 0;
		if (same == x->same)
			continue;
		miss(c,
		    "job \"%s\": expected %s GPU as job \"%s\", got GPU "
		    "%d of %s and GPU %d of %s",
		    ja, x->same ? "the same" : "a different", jb,
		    __builtin_ctzll(a->gpu_mask), node_name(c, a->node),
		    __builtin_ctzll(b->gpu_mask), node_name(c, b->node));
	}
}

static void
check_fair(struct ck *c)
{
	static const char *const res[] = {"GPU", "CPU", "memory"};
	const struct expect *e = &c->sc->expect;
	size_t i;
	int r;

	for (i = 0; i < e->nfair; i++) {
		const struct exp_fair *x = &e->fair[i];
		const int64_t *got = c->r->queues[x->queue].fair_share;

		for (r = 0; r < KAI_SCHED_NRES; r++) {
			if (!x->has[r] || got[r] == x->v[r])
				continue;
			(void)fprintf(c->f,
			    "%s: queue \"%s\": expected a %s fair "
			    "share of ",
			    c->file, c->sc->queues[x->queue].name, res[r]);
			if (r == KAI_SCHED_GPU) {
				ksim_gpu(c->f, x->v[r]);
				(void)fputs(", got ", c->f);
				ksim_gpu(c->f, got[r]);
			} else {
				(void)fprintf(c->f, "%lld, got %lld",
				    (long long)x->v[r], (long long)got[r]);
			}
			(void)fputc('\n', c->f);
			c->bad++;
		}
	}
}

static void
check_tfair(struct ck *c)
{
	const struct expect *e = &c->sc->expect;
	size_t i, t;

	for (i = 0; i < e->ntfair; i++) {
		const struct exp_tfair *x = &e->tfair[i];
		int64_t got = -1;

		for (t = 0; t < c->r->ntypes; t++)
			if (strcmp(c->r->types[t], x->type) == 0)
				got = c->r->qtypes[x->queue * c->r->ntypes + t]
					  .fair_share;
		if (got == x->v)
			continue;
		(void)fprintf(c->f, "%s: queue \"%s\": expected a fair share of ",
		    c->file, c->sc->queues[x->queue].name);
		ksim_gpu(c->f, x->v);
		(void)fprintf(c->f, " %s GPUs, got ", x->type);
		if (got < 0)
			(void)fputs("no such GPU type", c->f);
		else
			ksim_gpu(c->f, got);
		(void)fputc('\n', c->f);
		c->bad++;
	}
}

static void
check_reasons(struct ck *c)
{
	const struct expect *e = &c->sc->expect;
	char why[512];
	size_t i;

	for (i = 0; i < e->nreasons; i++) {
		const struct exp_reason *x = &e->reasons[i];
		const struct kai_sched_job_out *o = &c->r->jobs[x->job];

		if (o->why.why == KAI_SCHED_WHY_NONE) {
			miss(c,
			    "job \"%s\": expected a reason with \"%s\", got "
			    "none",
			    c->sc->jobs[x->job].name, x->text);
			continue;
		}
		(void)kai_sched_why_text(&c->sc->snap, &o->why, why,
		    sizeof(why));
		if (strstr(why, x->text) == NULL)
			miss(c,
			    "job \"%s\": expected a reason with \"%s\", got "
			    "\"%s\"",
			    c->sc->jobs[x->job].name, x->text, why);
	}
}

int
ksim_check(FILE *f, const char *file, const struct scenario *sc,
    const struct kai_sched_result *r)
{
	const struct expect *e = &sc->expect;
	struct ck c = {f, file, sc, r, 0};

	check_places(&c, e->running, e->nrunning, KAI_SCHED_TASK_RUNNING,
	    "running");
	check_places(&c, e->pipelined, e->npipelined, KAI_SCHED_TASK_PIPELINED,
	    "pipelined");
	check_states(&c, e->pending, e->npending, KAI_SCHED_JOB_PENDING,
	    "pending");
	check_states(&c, e->evicted, e->nevicted, KAI_SCHED_JOB_EVICTED,
	    "evicted");
	check_tasks(&c);
	check_shared(&c);
	check_fair(&c);
	check_tfair(&c);
	check_reasons(&c);
	return c.bad;
}
