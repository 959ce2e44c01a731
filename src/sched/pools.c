/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pools.c: which nodes may take a job's tasks -- node selectors and
 * taints, as the Kubernetes scheduler's NodeAffinity (nodeSelector) and
 * TaintToleration filters decide them.
 *
 * A job's pool (kaid.yaml's partition as a node pool) names the labels a
 * node must carry and the taints the job tolerates; a job with no pool
 * has no selector and tolerates nothing.  A node whose NoSchedule or
 * NoExecute taint the pool does not tolerate, or whose labels miss a
 * selector label, never takes the job's tasks: not when placing, not when
 * moving them (consolidation), not after evicting others for them.
 *
 * The answer depends on the pool and the node only, so it is worked out
 * once per session into a table of (pools + 1) x nodes bytes, and every
 * placement (kai_sched_fit_node) reads one byte.  The job's own
 * requirements (--constraint, --nodelist, --exclude: nodereq.c) and its
 * GPU type (gputype.c) are checked here too, so this is the one test of
 * "may this node take this task".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

static bool
has_label(const struct kai_sched_snap_node *n, const struct kai_sched_label *l)
{
	size_t i;

	for (i = 0; i < n->nlabels; i++)
		if (strcmp(n->labels[i].key, l->key) == 0 &&
		    strcmp(n->labels[i].value, l->value) == 0)
			return true;
	return false;
}

static bool
tolerated(const struct kai_sched_pool *p, const struct kai_sched_taint *t)
{
	size_t i;

	for (i = 0; p != NULL && i < p->ntolerations; i++) {
		const struct kai_sched_toleration *o = &p->tolerations[i];

		if (*o->key == '\0' ? !o->exists : strcmp(o->key, t->key) != 0)
			continue;
		if (!o->exists && strcmp(o->value, t->value) != 0)
			continue;
		if (*o->effect == '\0' || strcmp(o->effect, t->effect) == 0)
			return true;
	}
	return false;
}

/* Whether node n may take tasks of pool p (NULL = no pool). */
static bool
allows(const struct kai_sched_pool *p, const struct kai_sched_snap_node *n)
{
	size_t i;

	for (i = 0; p != NULL && i < p->nselector; i++)
		if (!has_label(n, &p->selector[i]))
			return false;
	for (i = 0; i < n->ntaints; i++) {
		const char *e = n->taints[i].effect;

		if ((strcmp(e, "NoSchedule") == 0 ||
		    strcmp(e, "NoExecute") == 0) &&
		    !tolerated(p, &n->taints[i]))
			return false;
	}
	return true;
}

void
kai_sched_pools_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t p, n;

	S->pool_ok = kai_xcalloc((s->npools + 1) * S->nn + 1,
	    sizeof(*S->pool_ok));
	S->pool_nodes = kai_xcalloc(s->npools + 1, sizeof(*S->pool_nodes));
	for (n = 0; n < S->nn; n++)
		S->nok += S->nodes[n].ok;
	for (p = 0; p <= s->npools; p++)
		for (n = 0; n < S->nn; n++) {
			S->pool_ok[p * S->nn + n] = allows(p == 0 ? NULL :
			    &s->pools[p - 1], &s->nodes[n]);
			S->pool_nodes[p] += S->pool_ok[p * S->nn + n] &&
			    S->nodes[n].ok;
		}
}

void
kai_sched_pools_fini(struct sess *S)
{
	KAI_FREE(S->pool_ok);
	KAI_FREE(S->pool_nodes);
}

bool
kai_sched_pool_allows(const struct sess *S, uint32_t t, uint32_t n)
{
	int32_t p = S->s->jobs[kai_sched_task_job(S, t)].pool;

	return S->pool_ok[(size_t)(p + 1) * S->nn + n] != 0 &&
	    (S->gt == NULL || kai_sched_type_allows(S, t, n)) &&
	    (S->s->nnodereqs == 0 ||
		kai_sched_nodereq_allows(S, kai_sched_task_job(S, t), n));
}

uint32_t
kai_sched_pool_nodes(const struct sess *S, int32_t pool)
{
	return S->pool_nodes[pool + 1];
}

/*
 * The most idle whole GPUs of a node task t may use, for its reason: the
 * index's answer when every schedulable node may take it, else a scan of
 * the nodes its pool and its own requirements allow (only for a job left
 * waiting).
 */
uint32_t
kai_sched_pool_most_idle(const struct sess *S, uint32_t t)
{
	uint32_t j = kai_sched_task_job(S, t);
	int32_t p = S->s->jobs[j].pool;
	const uint8_t *ok = &S->pool_ok[(size_t)(p + 1) * S->nn];
	uint32_t n, most = 0;
	bool req = S->s->jobs[j].nodereq > 0;

	if (S->pool_nodes[p + 1] == S->nok && !req)
		return kai_sched_most_idle_gpus(S);
	for (n = 0; n < S->nn; n++)
		if (S->nodes[n].ok && ok[n] && S->nodes[n].whole_idle > most &&
		    (!req || kai_sched_nodereq_allows(S, j, n)))
			most = S->nodes[n].whole_idle;
	return most;
}
