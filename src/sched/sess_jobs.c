/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sess_jobs.c: the queue tree, jobs, tasks and groups of a session, and
 * the sums that the fair share and the admission checks start from.
 *
 * A group is the set of one user's jobs in one leaf queue: inside a queue
 * the jobs of the user who has used the least go first (order.c), so the
 * group keeps that user's GPUs held in the queue.  Groups are found by a
 * small open-addressing table from (queue, user) to an index: O(jobs)
 * rather than a sort.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "sched/sched_int.h"

void
kai_sched_queues_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t q, *fill;

	S->nq = (uint32_t)s->nqueues;
	S->q = kai_sched_calloc(S->ctx, S->nq, sizeof(*S->q));
	S->qchild = kai_sched_calloc(S->ctx, S->nq, sizeof(*S->qchild));
	S->top = kai_sched_calloc(S->ctx, S->nq, sizeof(*S->top));
	fill = kai_sched_calloc(S->ctx, S->nq, sizeof(*fill));
	for (q = 0; q < S->nq; q++) {
		int32_t p = s->queues[q].parent;

		S->q[q].parent = p;
		if (p >= 0)
			S->q[p].nchild++;
		else
			S->top[S->ntop++] = q;
	}
	for (q = 1; q < S->nq; q++)
		S->q[q].child0 = S->q[q - 1].child0 + S->q[q - 1].nchild;
	for (q = 0; q < S->nq; q++) {
		struct squeue *Q = &S->q[q];
		const struct kai_sched_snap_queue *in = &s->queues[q];
		const struct squeue *P =
		    Q->parent >= 0 ? &S->q[Q->parent] : NULL;

		/* Parents come first, so theirs are already known. */
		Q->depth = P != NULL ? P->depth + 1 : 0;
		Q->leaf = Q->nchild == 0;
		Q->pmin = in->preempt_min_runtime_s >= 0
		    ? in->preempt_min_runtime_s
		    : (P != NULL ? P->pmin : 0);
		Q->rmin = in->reclaim_min_runtime_s >= 0
		    ? in->reclaim_min_runtime_s
		    : (P != NULL ? P->rmin : 0);
		Q->rep = -1;
		if (P != NULL)
			S->qchild[P->child0 + fill[Q->parent]++] = q;
	}
	kai_sched_free(S->ctx, fill);
}

/*
 * The table from (queue, user, account) to a group: at most one group
 * per job, and per (queue, user or none, account or none): a million
 * jobs of 200 users in 200 queues make 40,000 groups, and a table sized
 * by the groups stays in the cache where one sized by the jobs would
 * miss at every probe.
 */
struct gtable {
	size_t cap;
	uint64_t *keys;
	uint32_t *ids;
};

static void
groups_open(struct sess *S, struct gtable *gt)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t most = s->njobs;

	if (s->nqueues > 0 &&
	    (s->nusers + 1) * (s->naccounts + 1) <= most / s->nqueues)
		most = s->nqueues * (s->nusers + 1) * (s->naccounts + 1);
	gt->cap = 16;
	while (gt->cap < 2 * most)
		gt->cap *= 2;
	gt->keys = kai_sched_calloc(S->ctx, gt->cap, sizeof(*gt->keys));
	gt->ids = kai_sched_calloc(S->ctx, gt->cap, sizeof(*gt->ids));
	memset(gt->keys, 0xff, gt->cap * sizeof(*gt->keys));
	S->groups = kai_sched_calloc(S->ctx, most > 0 ? most : 1,
	    sizeof(*S->groups));
}

/* J's (queue, user, account) as one number. */
static uint64_t
group_key(const struct kai_sched_snapshot *s, const struct kai_sched_snap_job *J)
{
	return ((uint64_t)J->queue * (s->nusers + 1) + (uint64_t)(J->user + 1)) *
		(s->naccounts + 1) +
	    (uint64_t)(J->account + 1);
}

/*
 * What job J, a few ahead in the jobs' pass, will read and write: its
 * group's slot in the table (a miss anywhere in it, and the pass does
 * too much per job for the processor to run ahead to the next one's by
 * itself), its session entry, its first tasks' owner and entry.  Nothing
 * of J is trusted: it is not validated yet, and a prefetch reads nothing.
 */
static void
prefetch_job(const struct sess *S, const struct gtable *gt,
    const struct kai_sched_snap_job *J, size_t j)
{
	size_t h = kai_sched_mix64(group_key(S->s, J)) & (gt->cap - 1);

	__builtin_prefetch(&gt->keys[h]);
	__builtin_prefetch(&gt->ids[h]);
	__builtin_prefetch(&S->jobs[j], 1);
	__builtin_prefetch((const char *)&S->jobs[j] + sizeof(S->jobs[j]) - 1,
	    1);
	if (J->first_task < S->s->ntasks) {
		__builtin_prefetch(&S->tasks[J->first_task], 1);
		__builtin_prefetch(&S->task_job[J->first_task], 1);
	}
}

/* J's group, a new one when J is the first job of its kind. */
static uint32_t
group_of(struct sess *S, struct gtable *gt,
    const struct kai_sched_snap_job *J)
{
	uint64_t key = group_key(S->s, J);
	size_t h = kai_sched_mix64(key) & (gt->cap - 1);

	while (gt->keys[h] != UINT64_MAX && gt->keys[h] != key)
		h = (h + 1) & (gt->cap - 1);
	if (gt->keys[h] == UINT64_MAX) {
		gt->keys[h] = key;
		gt->ids[h] = S->ng;
		S->groups[S->ng].leaf = J->queue;
		S->groups[S->ng].user = J->user;
		S->groups[S->ng].account = J->account;
		S->ng++;
	}
	return gt->ids[h];
}

static void
groups_close(struct sess *S, struct gtable *gt)
{
	kai_sched_free(S->ctx, gt->keys);
	kai_sched_free(S->ctx, gt->ids);
	memset(gt, 0, sizeof(*gt));
}

/* How far ahead the jobs' pass asks for what a job needs. */
#define PREFETCH_JOBS 8

static void job_open(struct sess *S, uint32_t j);
static void maxima_init(struct sess *S);

/*
 * A fault of the session's own (tasks of two jobs, a task of no job) is
 * reported only when the snapshot validates: the validator's faults come
 * first, as when it ran whole before the session.
 */
static int
after_validation(const struct kai_sched_snapshot *s, int rc,
    struct kai_err *err)
{
	struct kai_err v;
	int vrc = kai_sched_validate(s, &v);

	if (vrc == 0)
		return rc;
	*err = v;
	return vrc;
}

/* Task t of job j: whose it is, its session entry (written whole: the
 * array is not zeroed), and whether the lay-out has to place it; true
 * when it is not pending. */
static bool
task_open(struct sess *S, size_t t, size_t j, size_t *cap)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	S->task_job[t] = (uint32_t)j;
	/* Built in place (no local copied over: reading back a local just
	 * written field by field stalls on every task), every byte set:
	 * tasks_out() compares them whole. */
	memset(&S->tasks[t], 0, sizeof(S->tasks[t]));
	S->tasks[t].node = in->node;
	S->tasks[t].state = (unsigned)in->state & 0xfu;
	if (in->state != KAI_SCHED_TASK_RUNNING &&
	    in->state != KAI_SCHED_TASK_RELEASING)
		return in->state != KAI_SCHED_TASK_PENDING;
	if (S->nheld == *cap) {
		*cap = *cap > 0 ? 2 * *cap : 1024;
		S->held = kai_xreallocarray(S->held, *cap, sizeof(*S->held));
	}
	S->held[S->nheld++] = (uint32_t)t;
	return true;
}

/* Job j's sums, static reason and first step wait for the lay-out. */
static void
job_late(struct sess *S, uint32_t j, size_t *cap)
{
	if (S->nlate == *cap) {
		*cap = *cap > 0 ? 2 * *cap : 1024;
		S->late = kai_xreallocarray(S->late, *cap, sizeof(*S->late));
	}
	S->late[S->nlate++] = j;
}

/*
 * One pass over the jobs and their tasks (a million jobs, 3.5 million
 * tasks: 210 MiB that do not stay in the cache from one pass to the
 * next), where there were four (validation, the tasks' owner, the
 * sessions' entries and groups, the lay-out's): each job is validated
 * (validate.c's check, unchanged), its tasks get their owner and their
 * session entry, the job its entry and its group.  At the first fault
 * the validator runs whole, so that the fault reported is the one it
 * reports first.  Jobs that list their tasks in order, one after the
 * other (every caller's), need no check that no task is listed twice:
 * the owner array is filled in order; at the first job out of order the
 * rest is cleared and each task checked, as before.
 */
static int
jobs_pass(struct sess *S, size_t *most, struct kai_err *err)
{
	const struct kai_sched_snapshot *s = S->s;
	uint8_t *parent = kai_sched_mark_parents(s);
	struct gtable gt;
	size_t j, t, next = 0, cap = 0, lcap = 0;
	bool tiled = true;
	int rc = 0;

	S->task_job =
	    kai_sched_alloc_dirty(S->ctx, s->ntasks, sizeof(*S->task_job));
	groups_open(S, &gt);
	for (j = 0; j < s->njobs && rc == 0; j++) {
		const struct kai_sched_snap_job *J = &s->jobs[j];
		bool holds = false;

		if (j + PREFETCH_JOBS < s->njobs)
			prefetch_job(S, &gt, &s->jobs[j + PREFETCH_JOBS],
			    j + PREFETCH_JOBS);
		if (kai_sched_validate_job(s, parent, j, err) != 0) {
			rc = kai_sched_validate(s, err);
			break;
		}
		if (tiled && J->first_task != next) {
			tiled = false;
			memset(S->task_job + next, 0xff,
			    (s->ntasks - next) * sizeof(*S->task_job));
		}
		for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
			if (!tiled && S->task_job[t] != NONE32) {
				rc = kai_err_set(err, KAI_EINVAL,
				    "job \"%s\": "
				    "its tasks overlap those of job \"%s\"",
				    J->name, s->jobs[S->task_job[t]].name);
				rc = after_validation(s, rc, err);
				break;
			}
			holds |= task_open(S, t, j, &cap);
		}
		next = J->first_task + J->ntasks;
		S->jobs[j] = (struct sjob){
			.queue = J->queue,
			.group = group_of(S, &gt, J),
			.min = J->min_tasks > 0 ? J->min_tasks
						: (uint32_t)J->ntasks,
			.preemptible = J->preemptible,
			.topo = J->topology >= 0,
			.holds = holds,
		};
		if (J->ntasks > *most)
			*most = J->ntasks;
		/* Its tasks are still in the cache: a job whose figures
		 * need nothing laid out gets them now (job_open()). */
		if (rc == 0 && S->early && !holds)
			job_open(S, (uint32_t)j);
		else if (rc == 0 && S->early)
			job_late(S, (uint32_t)j, &lcap);
	}
	groups_close(S, &gt);
	free(parent);
	if (rc != 0 || (rc = kai_sched_sg_check(s, err)) != 0)
		return rc;
	/* In order, the first task of no job is the one after the last
	 * job's; else the first still unmarked. */
	for (t = tiled ? next : 0;
	     t < s->ntasks && !tiled && S->task_job[t] != NONE32; t++)
		;
	if (t < s->ntasks)
		return kai_err_set(err, KAI_EINVAL, "task %zu belongs to no job",
		    t);
	return 0;
}

int
kai_sched_jobs_init(struct sess *S, struct kai_err *err)
{
	const struct kai_sched_snapshot *s = S->s;
	size_t j, most = 1;
	int rc;

	/* Both written whole by jobs_pass(), before any read. */
	S->jobs = kai_sched_alloc_dirty(S->ctx, s->njobs, sizeof(*S->jobs));
	S->tasks = kai_sched_alloc_dirty(S->ctx, s->ntasks, sizeof(*S->tasks));
	maxima_init(S);
	/*
	 * A job's sums, static reason and first step read only its own
	 * tasks and figures known before the jobs (the nodes, the pools),
	 * unless the snapshot has GPU types, subgroup trees or node
	 * requirements (their tables come later): then they wait for
	 * kai_sched_accounts_init(), as do the jobs with tasks to lay out.
	 */
	S->early = s->ntrees == 0 && s->nnodereqs == 0 &&
	    kai_sched_types_none(s);
	if ((rc = jobs_pass(S, &most, err)) != 0)
		return rc;
	kai_sched_acct_init(S);
	kai_sched_sg_init(S);
	/* A tree's jobs: the memo passes them by (topo), and their
	 * minimum is the leaves' (subgroup.c). */
	for (j = 0; j < s->ntrees; j++) {
		S->jobs[s->trees[j].job].topo = true;
		S->jobs[s->trees[j].job].min =
		    kai_sched_sg_min(s, &s->trees[j]);
	}
	S->qdirty = kai_sched_calloc(S->ctx, S->nq + 1, 1);
	S->qdirty_list =
	    kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*S->qdirty_list));
	S->gdirty = kai_sched_calloc(S->ctx, S->ng + 1, 1);
	S->gdirty_list =
	    kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*S->gdirty_list));
	S->scratch_tasks =
	    kai_sched_calloc(S->ctx, most, sizeof(*S->scratch_tasks));
	S->scratch_tasks2 =
	    kai_sched_calloc(S->ctx, most, sizeof(*S->scratch_tasks2));
	S->scratch_nodes =
	    kai_sched_calloc(S->ctx, S->nn + 1, sizeof(*S->scratch_nodes));
	S->scratch_nflag = kai_sched_calloc(S->ctx, S->nn + 1, 1);
	S->scratch_pref =
	    kai_sched_calloc(S->ctx, S->nn + 1, sizeof(*S->scratch_pref));
	S->blocked = kai_sched_calloc(S->ctx, S->nq + 1, sizeof(*S->blocked));
	S->closed = kai_sched_calloc(S->ctx, S->nq + 1, 1);
	return 0;
}

void
kai_sched_jobs_fini(struct sess *S)
{
	kai_sched_free(S->ctx, S->q);
	kai_sched_free(S->ctx, S->qchild);
	kai_sched_free(S->ctx, S->top);
	kai_sched_free(S->ctx, S->jobs);
	kai_sched_free(S->ctx, S->tasks);
	kai_sched_free(S->ctx, S->task_job);
	free(S->held);
	free(S->late);
	kai_sched_free(S->ctx, S->maxima);
	kai_sched_free(S->ctx, S->groups);
	kai_sched_free(S->ctx, S->slot_at);
	kai_sched_free(S->ctx, S->slot_grp);
	kai_sched_free(S->ctx, S->slot_gpu);
	kai_sched_free(S->ctx, S->qdirty);
	kai_sched_free(S->ctx, S->qdirty_list);
	kai_sched_free(S->ctx, S->gdirty);
	kai_sched_free(S->ctx, S->gdirty_list);
	kai_sched_free(S->ctx, S->scratch_tasks);
	kai_sched_free(S->ctx, S->scratch_tasks2);
	kai_sched_free(S->ctx, S->scratch_nodes);
	kai_sched_free(S->ctx, S->scratch_nflag);
	kai_sched_free(S->ctx, S->scratch_pref);
	kai_sched_free(S->ctx, S->blocked);
	kai_sched_free(S->ctx, S->closed);
	kai_sched_free(S->ctx, S->vjobs);
	kai_sched_free(S->ctx, S->vstart);
}

uint32_t
kai_sched_task_job(const struct sess *S, uint32_t t)
{
	return S->task_job[t];
}

/* What an active task holds, in queue units. */
void
kai_sched_task_held(const struct sess *S, uint32_t t, int64_t v[NRES])
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];
	const struct stask *st = &S->tasks[t];

	v[R_GPU] = (int64_t)__builtin_popcountll(st->mask) * st->ugpu;
	v[R_CPU] = in->cpu_millis;
	v[R_MEM] = in->memory_mib;
}

static void
add3(int64_t *to, const int64_t *v, int64_t sign)
{
	int r;

	for (r = 0; r < NRES; r++)
		to[r] += sign * v[r];
}

/* The largest single-node figures a task may ever get. */
struct sess_maxima {
	int64_t gpus, gmem, cpu, mem;
};

/* Over the schedulable nodes that pool (-1 = none) may use. */
static void
node_maxima(const struct sess *S, int32_t pool, struct sess_maxima *m)
{
	const uint8_t *ok = &S->pool_ok[(size_t)(pool + 1) * S->nn];
	uint32_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < S->nn; i++) {
		const struct snode *n = &S->nodes[i];

		if (!n->ok || !ok[i])
			continue;
		if (n->ngpu > m->gpus)
			m->gpus = n->ngpu;
		if (n->ngpu > 0 && n->gmem > m->gmem)
			m->gmem = n->gmem;
		if (n->cap[R_CPU] > m->cpu)
			m->cpu = n->cap[R_CPU];
		if (n->cap[R_MEM] > m->mem)
			m->mem = n->cap[R_MEM];
	}
}

/* Task in may fit some node m describes (what never_fits() tests). */
static bool
may_fit(const struct kai_sched_snap_task *in, const struct sess_maxima *m)
{
	return (int64_t)in->gpus <= m->gpus &&
	    ((in->gpu_fraction == 0 && in->gpu_memory_mib == 0) ||
		(int64_t)kai_sched_task_ndev(in) <= m->gpus) &&
	    in->gpu_memory_mib <= m->gmem && in->cpu_millis <= m->cpu &&
	    in->memory_mib <= m->mem;
}

/* Why task t, which may not fit (may_fit() false), never does. */
static void
never_fits(const struct sess *S, uint32_t t, const struct sess_maxima *m,
    struct kai_sched_why_info *w)
{
	const struct kai_sched_snap_task *in = &S->s->tasks[t];

	w->why = KAI_SCHED_WHY_NEVER_FITS;
	w->res = R_GPU;
	w->c = 0;
	if ((int64_t)in->gpus > m->gpus ||
	    ((in->gpu_fraction > 0 || in->gpu_memory_mib > 0) &&
		(int64_t)kai_sched_task_ndev(in) > m->gpus)) {
		w->a = in->gpus > 0 ? in->gpus : kai_sched_task_ndev(in);
		w->c = in->gpus > 0 ? 0 : 2; /* 2: a share of a GPUs */
		w->b = m->gpus;
		return;
	}
	if (in->gpu_memory_mib > m->gmem) {
		w->a = in->gpu_memory_mib;
		w->b = m->gmem;
		w->c = 1;
		return;
	}
	w->res = in->cpu_millis > m->cpu ? R_CPU : R_MEM;
	w->a = w->res == R_CPU ? in->cpu_millis : in->memory_mib;
	w->b = w->res == R_CPU ? m->cpu : m->mem;
}

/*
 * Job j's tasks into its counts and its queue's sums (sj->holds is
 * the jobs' pass's).  The pending tasks' requests are summed here and
 * added to the queue once: the same integers.  Returns its first
 * pending task that may fit no node of its pool (NONE32: none), for
 * static_fail(), in the same read of its tasks.
 */
static uint32_t
sum_job(struct sess *S, uint32_t j)
{
	const struct kai_sched_snap_job *J = &S->s->jobs[j];
	struct sjob *sj = &S->jobs[j];
	struct squeue *Q = &S->q[J->queue];
	const struct sess_maxima *m = &S->maxima[J->pool + 1];
	int64_t req[NRES] = {0};
	uint32_t npending = 0, nofit = NONE32;
	size_t t;

	for (t = J->first_task; t < J->first_task + J->ntasks; t++) {
		int64_t v[NRES];

		if (S->tasks[t].state == KAI_SCHED_TASK_RUNNING) {
			sj->nactive++;
			kai_sched_task_held(S, (uint32_t)t, v);
			add3(Q->alloc, v, 1);
			add3(Q->req, v, 1);
			if (!J->preemptible)
				add3(Q->alloc_np, v, 1);
			S->groups[sj->group].alloc_gpu += v[R_GPU];
			kai_sched_acct_add(S, sj->group, v[R_GPU], false);
		} else if (S->tasks[t].state == KAI_SCHED_TASK_PENDING) {
			npending++;
			if (nofit == NONE32 && !may_fit(&S->s->tasks[t], m))
				nofit = (uint32_t)t;
			if (J->held)
				continue;
			kai_sched_task_req(S, (uint32_t)t, v);
			req[R_GPU] += v[R_GPU];
			req[R_CPU] += v[R_CPU];
			req[R_MEM] += v[R_MEM];
		}
	}
	sj->npending += npending;
	add3(Q->req, req, 1);
	return nofit;
}

/* A reason of j's that holds for the whole cycle, decided once. */
static void
static_fail(struct sess *S, uint32_t j, uint32_t nofit)
{
	const struct kai_sched_snapshot *s = S->s;
	const struct kai_sched_snap_job *J = &s->jobs[j];
	struct sjob *sj = &S->jobs[j];
	struct kai_sched_why_info w;

	kai_sched_why_clear(&w);
	if (J->held)
		w.why = KAI_SCHED_WHY_HELD;
	else if (!S->any_ok)
		w.why = KAI_SCHED_WHY_NO_NODES;
	else if (kai_sched_pool_nodes(S, J->pool) == 0) {
		w.why = KAI_SCHED_WHY_NO_POOL_NODES;
		w.a = J->pool;
	} else
		(void)kai_sched_nodereq_none(S, j, &w);
	/* Else its first pending task that fits no node, if any. */
	if (w.why == KAI_SCHED_WHY_NONE && nofit != NONE32)
		never_fits(S, nofit, &S->maxima[J->pool + 1], &w);
	if (w.why == KAI_SCHED_WHY_NONE)
		return;
	sj->static_fail = true;
	S->r->jobs[j].why = w;
}

/* The nodes' largest figures, per pool (-1 = none: [0]). */
static void
maxima_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t p;

	S->maxima = kai_sched_calloc(S->ctx, s->npools + 1, sizeof(*S->maxima));
	for (p = 0; p <= s->npools; p++)
		node_maxima(S, (int32_t)p - 1, &S->maxima[p]);
}

/*
 * Job j's tasks into its sums, its reason that holds all cycle and
 * (pending) its first step, which the orderings ask for in queue order
 * and would otherwise fetch at random: one read of its tasks, while
 * they are in the cache.  None reads another job's figures, and the sums
 * are of integers, so the order the jobs come in changes nothing.
 */
static void
job_open(struct sess *S, uint32_t j)
{
	uint32_t nofit = sum_job(S, j);

	if (S->jobs[j].npending == 0)
		return;
	static_fail(S, j, nofit);
	(void)kai_sched_step(S, j);
}

void
kai_sched_accounts_init(struct sess *S)
{
	const struct kai_sched_snapshot *s = S->s;
	uint32_t q, j;
	size_t i;

	/* The jobs the jobs' pass left (sess_jobs.c), or all of them. */
	for (i = 0; S->early && i < S->nlate; i++)
		job_open(S, S->late[i]);
	for (j = 0; !S->early && j < s->njobs; j++)
		job_open(S, j);
	KAI_FREE(S->late);
	S->nlate = 0;
	kai_sched_free(S->ctx, S->maxima);
	S->maxima = NULL;
	/* Jobs a cycle fed by a kept state left out still ask (incr.c). */
	for (q = 0; S->inc != NULL && q < S->nq; q++) {
		int64_t v[NRES];

		kai_sched_inc_extra(S, q, v);
		add3(S->q[q].req, v, 1);
	}
	/* Children come after their parents: sum from the end. */
	for (q = S->nq; q-- > 0;) {
		const struct squeue *Q = &S->q[q];

		if (Q->parent < 0)
			continue;
		add3(S->q[Q->parent].alloc, Q->alloc, 1);
		add3(S->q[Q->parent].alloc_np, Q->alloc_np, 1);
		add3(S->q[Q->parent].req, Q->req, 1);
	}
	for (q = 0; q < S->nq; q++)
		memcpy(S->r->queues[q].requested, S->q[q].req,
		    sizeof(S->q[q].req));
}
