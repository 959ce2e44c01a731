/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tick.c: the scheduler tick (the serverCron of kaid).
 *
 * Each tick: build the core's snapshot from the caches (snapshot.c: the
 * nodes, the queue tree, running tasks where their allocations put them,
 * other pods as held capacity, the pending jobs), run one cycle of the
 * core with all five phases, commit its evictions (evict.c), then
 * commit the placements to PostgreSQL
 * as intent (state CONFIGURING, allocation rows, pod names) in one
 * transaction, and only then create the pods.  A job starts once its
 * gang minimum is placed (--min-tasks, or every task); the tasks of a
 * started elastic job placed later are committed the same way, as more
 * allocation rows of the running job (doc/scheduler.md).  Every job
 * left pending gets the core's explanation as its reason, a sentence
 * kqueue shows in NODELIST(REASON) (a held job keeps squeue's
 * "JobHeldUser", the word scripts look for), and the core's estimate of
 * its start, which kqueue --start shows.  Nothing is placed while the
 * watches are not synced: kaid does not act on a cluster it cannot see.
 *
 * Reasons live in memory, where kqueue and kacct read them, and are
 * stored in PostgreSQL when they change, in one statement per tick.  One
 * kind changes all the time without saying anything new: "N jobs ahead
 * of it" counts down for every waiting job whenever the head of a queue
 * starts, and rewriting thousands of rows for that on every tick would
 * cost more than the tick.  So a job whose stored reason is already of
 * that kind is not written again for a new count (the tick's prio_ids remember
 * which jobs those are); kaid's own answers always carry the current one.
 */
#include "config.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "deps.h"
#include "dispatch.h"
#include "kaid.h"
#include "mail.h"
#include "queues.h"
#include "share.h"
#include "snapshot.h"
#include "sys/log.h"
#include "tick.h"
#include "usage.h"
#include "wholenode.h"

#define TICK_SOON_MS 20
/*
 * A tick asked for "soon" still waits this share of the interval after
 * the last one: a burst of submissions would otherwise buy a full tick
 * (a snapshot of every pending job) per group commit.
 */
#define TICK_MIN_GAP_DIV 4
/* More cycles in one tick while array tasks start (arrays_more_rounds). */
#define TICK_ARRAY_ROUNDS    64
#define TICK_ARRAY_BUDGET_MS 50

/* What tick.c keeps from one tick to the next: nobody else reads it. */
struct tick {
	uint64_t timer;		/* the loop's timer of the next tick */
	bool soon;		/* a submission or an exit wants a tick */
	bool again;		/* arrays.c: tasks left to start: tick soon */
	int64_t last_ms;	/* loop time of the last tick */
	char *error;		/* the last cycle's refusal, logged once */
	uint64_t *prio_ids;	/* pending jobs whose stored reason is a */
	size_t nprio;		/* "N jobs ahead" one, sorted */
	struct kai_sched_ctx *sched; /* the core's arrays, kept between
					cycles (sched_model.h) */
};

static struct tick *
tk(struct kaid *k)
{
	if (k->tick == NULL) {
		k->tick = kai_xcalloc(1, sizeof(*k->tick));
		k->tick->sched = kai_sched_ctx_new();
	}
	return k->tick;
}

/* Reasons that changed this tick, to store in one statement. */
struct reasons {
	uint64_t *ids;
	const char **code;	/* borrowed from the jobs */
	const char **text;	/* the same */
	size_t n;
	const uint64_t *prio;	/* last tick's prio_ids */
	size_t nprio;
	size_t at;		/* jobs come in id order: a merge cursor */
	uint64_t *next;		/* this tick's, for prio_ids */
	size_t nnext;
};

static void
store_reason(struct kai_job *j, struct reasons *rs)
{
	rs->ids = kai_xreallocarray(rs->ids, rs->n + 1, sizeof(*rs->ids));
	rs->code = kai_xreallocarray(rs->code, rs->n + 1, sizeof(*rs->code));
	rs->text = kai_xreallocarray(rs->text, rs->n + 1, sizeof(*rs->text));
	rs->ids[rs->n] = j->id;
	rs->code[rs->n] = j->reason;
	rs->text[rs->n++] = j->why;
}

/* Whether job id's stored reason is an "N jobs ahead" one. */
static bool
was_priority(struct reasons *rs, uint64_t id)
{
	while (rs->at < rs->nprio && rs->prio[rs->at] < id)
		rs->at++;
	return rs->at < rs->nprio && rs->prio[rs->at] == id;
}

/* Replaces *s by text when they differ; says whether they did. */
static bool
set_str(char **s, const char *text)
{
	if (*s != NULL && strcmp(*s, text) == 0)
		return false;
	free(*s);
	*s = kai_xstrdup(text);
	return true;
}

/*
 * Sets j's reason: code, Slurm's word that squeue's %r prints and
 * scripts test, and text, the sentence that says what is missing.
 * prio: it is an "N jobs ahead" reason (jobs in id order).
 */
static void
set_reason(struct kai_job *j, const char *code, const char *text,
    bool prio, struct reasons *rs)
{
	bool stored_prio = was_priority(rs, j->id);
	bool changed = set_str(&j->reason, code);

	/* Stored now, stored before, or unchanged (memory = database). */
	if (prio)
		rs->next[rs->nnext++] = j->id;
	changed |= set_str(&j->why, text);
	if (changed && !(prio && stored_prio))
		store_reason(j, rs);
}

/* The reason the core gave a pending job, as code and sentence. */
static void
set_core_reason(struct kai_job *j, const struct snap *sn,
    const struct kai_sched_job_out *o, struct reasons *rs)
{
	char buf[KAI_ERR_MSG_MAX];
	const char *text = "";

	if (o->why.why != KAI_SCHED_WHY_NONE)
		text = kai_sched_why_text(&sn->s, &o->why, buf, sizeof(buf));
	set_reason(j, kai_sched_why_name(o->why.why), text,
	    o->why.why == KAI_SCHED_WHY_PRIORITY, rs);
}

/*
 * Tasks of snapshot job i the core placed now (pending in the snapshot,
 * running in the result); *pipe: those it pipelined instead.
 */
static uint32_t
placed_now(const struct snap *sn, const struct kai_sched_result *r,
    size_t i, uint32_t *pipe)
{
	const struct kai_sched_snap_job *sj = &sn->s.jobs[i];
	uint32_t n = 0;
	size_t t;

	*pipe = 0;
	for (t = sj->first_task; t < sj->first_task + sj->ntasks; t++) {
		if (sn->s.tasks[t].state != KAI_SCHED_TASK_PENDING)
			continue;
		n += r->tasks[t].state == KAI_SCHED_TASK_RUNNING;
		*pipe += r->tasks[t].state == KAI_SCHED_TASK_PIPELINED;
	}
	return n;
}

/*
 * The allocation rows and change of one placed job: the tasks placed
 * now, numbered after those it already runs (allocations stay in task
 * order, 0 .. nallocs-1).  A pending job starts (CONFIGURING); a started
 * elastic job grows and stays where it is.  *allocs gets every task, the
 * old ones copied, so that the cache takes it whole once committed.
 */
static void
placement_change(const struct snap *sn, const struct kai_sched_result *r,
    size_t i, struct kai_db_change *c, struct kai_alloc **allocs,
    char **nodelist)
{
	const struct kai_sched_snap_job *sj = &sn->s.jobs[i];
	const struct kai_job *j = sn->kjobs[i];
	size_t t, n = j->nallocs;

	*allocs = kai_xcalloc(j->nallocs + sj->ntasks, sizeof(**allocs));
	for (t = 0; t < j->nallocs; t++) {
		(*allocs)[t] = j->allocs[t];
		(*allocs)[t].node = kai_xstrdup(j->allocs[t].node);
		(*allocs)[t].pod = kai_xstrdup(j->allocs[t].pod);
	}
	for (t = sj->first_task; t < sj->first_task + sj->ntasks; t++) {
		struct kai_alloc *a = &(*allocs)[n];

		if (sn->s.tasks[t].state != KAI_SCHED_TASK_PENDING ||
		    r->tasks[t].state != KAI_SCHED_TASK_RUNNING)
			continue;
		a->task = (uint32_t)n++;
		a->node = kai_xstrdup(sn->nodes[r->tasks[t].node].name);
		/* A workload's pod exists: it is bound, not made (a
		 * gang's members are chosen in commit_placements). */
		a->pod = native_job(j) ? kai_xstrdup(sn->task_pod[t] != NULL
		    ? sn->task_pod[t] : j->workload) :
		    kai_job_pod_name(j->id, a->task);
		a->gpus = kai_job_task_gpus(j->gpus_per_task, j->gpus_per_node,
		    j->ntasks_per_node, a->task);
		a->cpus = j->cpus_per_task;
		a->mem_mb = j->mem_mb;
		a->gpu_mask = r->tasks[t].gpu_mask;
		a->gpu_fraction = (uint32_t)r->tasks[t].gpu_fraction;
	}
	wholenode_share(sn, j, *allocs, j->nallocs, n);
	*nodelist = state_nodelist(*allocs, n);
	memset(c, 0, sizeof(*c));
	c->id = j->id;
	c->from = j->state;
	/* More tasks of a placed (elastic) job: a resize, not a move. */
	c->resize = j->state != KAI_JOB_PENDING;
	c->to = c->resize ? j->state : KAI_JOB_CONFIGURING;
	c->reason = "";
	c->time = sn->s.now;
	c->actor_uid = -1;
	c->nodelist = *nodelist;
	c->allocs = *allocs + j->nallocs;
	c->nallocs = n - j->nallocs;
}

static void
free_allocs(struct kai_alloc *a, size_t n)
{
	size_t t;

	for (t = 0; t < n; t++)
		kai_alloc_fini(&a[t]);
	free(a);
}

/* Commits the placements of the snapshot jobs in which[0..n). */
static void
commit_placements(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r, const size_t *which, size_t n)
{
	struct kai_db_change *c = kai_xcalloc(n, sizeof(*c));
	struct kai_alloc **allocs = kai_xcalloc(n, sizeof(*allocs));
	char **nl = kai_xcalloc(n, sizeof(*nl));
	bool *applied = kai_xcalloc(n, sizeof(*applied));
	struct kai_err err;
	size_t i;

	for (i = 0; i < n; i++) {
		placement_change(sn, r, which[i], &c[i], &allocs[i], &nl[i]);
		native_assign(k, sn->kjobs[which[i]], allocs[i] +
		    sn->kjobs[which[i]]->nallocs, c[i].nallocs);
	}
	if (kai_db_jobs_change(k->db, c, n, applied, &err) != 0) {
		kai_log_err("could not commit %zu placements: %s", n, err.msg);
		memset(applied, 0, n * sizeof(*applied));
	}
	for (i = 0; i < n; i++) {
		struct kai_job *j = sn->kjobs[which[i]];
		size_t had = j->nallocs;

		if (!applied[i]) {
			free_allocs(allocs[i], had + c[i].nallocs);
			continue;
		}
		free_allocs(j->allocs, had);
		if (!c[i].resize)
			(void)state_job_move(j, c[i].to);
		j->allocs = allocs[i];
		j->nallocs = had + c[i].nallocs;
		free(j->reason);
		j->reason = kai_xstrdup("");
		if (had == 0 && j->nallocs < j->ntasks)
			kai_log_info("job %" PRIu64 ": placed %zu of %" PRIu32
			    " tasks on %s", j->id, j->nallocs, j->ntasks, nl[i]);
		else if (had > 0)
			kai_log_info("job %" PRIu64 ": tasks %zu-%zu placed, "
			    "now on %s", j->id, had, j->nallocs - 1, nl[i]);
		else
			kai_log_info("job %" PRIu64 ": placed on %s", j->id,
			    nl[i]);
		native_placed(k, j);
		dispatch_ensure_pods(k, j, sn->s.now);
	}
	for (i = 0; i < n; i++)
		free(nl[i]);
	free(nl);
	free(c);
	free(allocs);
	free(applied);
}

/* A refused snapshot is a bug; say so once, not every tick. */
static void
cycle_failed(struct kaid *k, const struct kai_err *err)
{
	struct tick *t = tk(k);

	if (t->error != NULL && strcmp(t->error, err->msg) == 0)
		return;
	kai_log_err("scheduler refused the snapshot, nothing placed: %s",
	    err->msg);
	free(t->error);
	t->error = kai_xstrdup(err->msg);
}

/*
 * Why a job the core ran is not started now: it waits for what evicted
 * pods still hold (pipelined), for more of its tasks (kaid starts a job
 * once its gang minimum -- min_tasks, or every task -- is placed on free
 * resources; the core pipelined the rest), or for its own pods of a
 * preempted run; NULL when it can go.
 */
static const char *
wait_text(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r, size_t i)
{
	const struct kai_sched_snap_job *sj = &sn->s.jobs[i];
	uint32_t pipe, need = sj->min_tasks > 0 ? sj->min_tasks :
	    (uint32_t)sj->ntasks;

	/* A subgroup tree starts with what the core placed: its root is
	 * satisfied, unless some of that waits for evicted pods. */
	if (sn->task_pod[sj->first_task] != NULL
		? placed_now(sn, r, i, &pipe) == 0 || pipe > 0
			       : placed_now(sn, r, i, &pipe) < need) {
		if (pipe > 0)
			return "waiting for resources that preempted jobs "
			       "are releasing";
		return sj->min_tasks > 0
		    ? "waiting for resources to start its --min-tasks"
		    : "waiting for resources to start all its tasks";
	}
	if (evict_pods_linger(k, sn->kjobs[i]))
		return "waiting for the pods of its preempted run to "
		       "terminate";
	return NULL;
}

/*
 * The started elastic jobs the core gave more tasks on free resources
 * (pipelined ones wait for the next tick), into which; a job it also
 * evicted from is not grown, nor one whose shed tasks' pods (evict.c)
 * still exist under the names its new tasks would take.
 */
static size_t
grown(const struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r, size_t *which)
{
	uint32_t pipe;
	size_t i, n = 0;

	for (i = 0; i < sn->s.njobs; i++)
		if (sn->kjobs[i] != NULL &&
		    sn->kjobs[i]->state != KAI_JOB_PENDING &&
		    r->jobs[i].state == KAI_SCHED_JOB_RUNNING &&
		    !evict_victim(sn, r, i) && placed_now(sn, r, i, &pipe) > 0 &&
		    !evict_pods_linger(k, sn->kjobs[i]))
			which[n++] = i;
	return n;
}

/*
 * Evicts, then places what the cycle placed; every other pending job
 * gets its reason.  Which jobs to place is settled before the evictions,
 * which may free the victims' structs.
 */
static void
tick_act(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r, struct reasons *rs)
{
	size_t *which = kai_xcalloc(sn->s.njobs + 1, sizeof(*which));
	size_t *grow = kai_xcalloc(sn->s.njobs + 1, sizeof(*grow));
	const char *wait;
	size_t i, n = 0, ng;

	for (i = 0; i < sn->s.njobs; i++) {
		if (sn->kjobs[i] == NULL ||
		    sn->kjobs[i]->state != KAI_JOB_PENDING)
			continue;
		/* For kqueue --start: unix seconds, like the core's now. */
		if (r->jobs[i].est_start != KAI_SCHED_NO_TIME)
			sn->kjobs[i]->est_start = r->jobs[i].est_start;
		else
			sn->kjobs[i]->est_start = 0;
		if (r->jobs[i].state != KAI_SCHED_JOB_RUNNING) {
			struct kai_job *j = sn->kjobs[i];

			set_core_reason(j, sn, &r->jobs[i], rs);
			/* A workload's pod tells why it waits, as the
			 * default scheduler's do (native.c: how often). */
			native_tell(k, j, sn->s.now);
		} else if ((wait = wait_text(k, sn, r, i)) != NULL)
			set_reason(sn->kjobs[i], "Resources", wait, false, rs);
		else
			which[n++] = i;
	}
	ng = grown(k, sn, r, grow);
	(void)evict_commit(k, sn, r);
	if (n > 0)
		n = arrays_split_placed(k, (struct snap *)sn, which, n);
	memcpy(which + n, grow, ng * sizeof(*grow));
	n += ng;
	if (n > 0)
		commit_placements(k, sn, r, which, n);
	free(which);
	free(grow);
}

static void
tick_run(struct kaid *k)
{
	struct kai_sched_result r;
	struct reasons rs;
	struct kai_err err;
	struct snap sn;
	int64_t now;
	size_t i;

	leader_check(k);
	if (!leader_leading(k))
		return;
	now = kaid_now();	/* the one clock reading of this tick */
	writeq_retry(k);	/* facts first, before any decision */
	helpers_ensure(k, now);	/* the pods' ConfigMap, when due */
	if (!state_synced(k))
		return;
	metrics_tick_begin(&k->metrics);
	mail_tick(k, now);	/* time limits' notices */
	if (queues_stale(k) && queues_reload(k, &err) != 0)
		kai_log_debug("queues still not reloaded: %s", err.msg);
	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);

		if (j->state == KAI_JOB_CONFIGURING ||
		    (j->state == KAI_JOB_RUNNING && state_job_elastic(j)))
			dispatch_ensure_pods(k, j, now);
	}
	evict_retry_deletes(k);
	native_sweep(k, now);
	native_pg_status(k, now);	/* the last tick's reasons */
	kaiqueues_status(k, now);
	deps_update(k, now);
	snap_build(k, &sn, now);
	usage_config(k, &sn.s.config);	/* kaid.yaml's scheduling: */
	usage_update(k, sn.s.now);
	usage_apply(k, &sn);
	snap_number(&sn);	/* last: the entries are whole */
	memset(&rs, 0, sizeof(rs));
	rs.prio = tk(k)->prio_ids;
	rs.nprio = tk(k)->nprio;
	rs.next = kai_xcalloc(sn.s.njobs + 1, sizeof(*rs.next));
	for (i = 0; i < sn.nlost; i++) {
		rs.at = 0; /* lost jobs are not in id order with the rest */
		set_reason(sn.lost[i], sn.lost_code[i], sn.lost_why[i], false,
		    &rs);
		native_tell(k, sn.lost[i], now);
		sn.lost[i]->est_start = 0; /* not given to the core: none */
	}
	rs.at = 0;
	if (kai_sched_cycle_ctx(tk(k)->sched, &sn.s, &r, &err) != 0) {
		cycle_failed(k, &err);
	} else {
		KAI_FREE(tk(k)->error);
		/*
		 * Before tick_act(): acting on evictions may free jobs the
		 * snapshot points to (a --no-requeue victim leaves the
		 * cache), and these read the snapshot's jobs.
		 */
		metrics_tick_result(&k->metrics, &sn.s, &r);
		k->metrics.jobs_left_alone =
		    kai_sched_ctx_left_out(tk(k)->sched);
		if (k->metrics.jobs_left_alone > 0)
			kai_log_debug("cycle: %zu of %zu jobs left alone "
			    "(nothing changed for them)",
			    (size_t)k->metrics.jobs_left_alone, sn.s.njobs);
		share_keep(k, &sn, &r);	/* for kshare */
		tick_act(k, &sn, &r, &rs);
		kai_sched_result_fini(&r);
	}
	if (rs.n > 0 && kai_db_jobs_set_reason(k->db, rs.ids,
	    (const char *const *)rs.code, (const char *const *)rs.text, rs.n,
	    &err) != 0) {
		kai_log_warn("could not store pending reasons: %s", err.msg);
		rs.nnext = 0; /* nothing known stored: write all next time */
	}
	free(tk(k)->prio_ids);
	tk(k)->prio_ids = rs.next;
	tk(k)->nprio = rs.nnext;
	free(rs.ids);
	free(rs.code);
	free(rs.text);
	snap_fini(&sn);
	metrics_tick_end(&k->metrics);
}

/*
 * An array starts one task per cycle (arrays.c); while one was split and
 * tasks are left, run more cycles now, within a small budget, so that an
 * array fills free capacity in one tick instead of one task per tick.
 */
static void
arrays_more_rounds(struct kaid *k)
{
	struct timespec t0, t;
	int round;

	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 1; round < TICK_ARRAY_ROUNDS && tk(k)->again; round++) {
		tk(k)->again = false;
		tick_run(k);
		(void)clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= TICK_ARRAY_BUDGET_MS)
			break;
	}
}

static void
tick_timer(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;

	(void)id;
	tk(k)->soon = false;
	tk(k)->last_ms = kai_loop_now_ms(loop);
	tick_run(k);
	arrays_more_rounds(k);
	/*
	 * The snapshots and results were thousands of small blocks: give the
	 * pages they leave free back to the system now, once per tick and
	 * not per round, so that kaid's resident memory follows its live
	 * data (10,000 pending jobs: under 20 MiB).
	 */
	(void)malloc_trim(0);
	tk(k)->timer = kai_loop_timer_add(loop, k->conf->sched_interval_ms,
	    tick_timer, k);
	if (tk(k)->again) { /* array tasks are left to start */
		tk(k)->again = false;
		tick_soon(k);
	}
}

void
tick_free(struct kaid *k)
{
	if (k->tick == NULL)
		return;
	free(k->tick->error);
	free(k->tick->prio_ids);
	kai_sched_ctx_free(k->tick->sched);
	KAI_FREE(k->tick);
}

void
tick_start(struct kaid *k)
{
	tk(k)->timer = kai_loop_timer_add(k->loop, k->conf->sched_interval_ms,
	    tick_timer, k);
}

void
tick_again(struct kaid *k)
{
	tk(k)->again = true;
}

void
tick_soon(struct kaid *k)
{
	int64_t wait = TICK_SOON_MS, next;

	if (tk(k)->soon)
		return;
	next = tk(k)->last_ms + k->conf->sched_interval_ms / TICK_MIN_GAP_DIV;
	if (next - kai_loop_now_ms(k->loop) > wait)
		wait = next - kai_loop_now_ms(k->loop);
	tk(k)->soon = true;
	kai_loop_timer_del(k->loop, tk(k)->timer);
	tk(k)->timer = kai_loop_timer_add(k->loop, wait, tick_timer, k);
}
