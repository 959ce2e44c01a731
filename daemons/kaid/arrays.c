/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * arrays.c: job arrays (sbatch --array) in kaid.
 *
 * An array is one job record, the array's own id, holding the tasks that
 * have not started as a compact index set (model/array.h); 10,000 tasks
 * cost one row and one cache entry.  The scheduler sees that record as
 * one job the size of one task.  When it places it, the first pending
 * task is split off before the placement is committed: a copy of the
 * record with a new id and the task's index, and the remainder rewritten,
 * in one transaction (kai_db_array_split); the placement then goes to the
 * task.  The last task takes over the array's own record, as in Slurm.
 * A crash between the split and the placement leaves an ordinary pending
 * task, which the next tick places: no task is lost or started twice.
 *
 * One task per array is split per scheduling cycle; while tasks are
 * left and the throttle ("%N", deps.c) allows more, tick.c runs more
 * cycles at once and the next tick comes soon.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "snapshot.h"
#include "sys/log.h"
#include "tick.h"

static int
check_array(struct submit *s, const char *text, struct kai_err *err)
{
	struct kai_array a = {NULL, 0, 0};
	char buf[KAI_ARRAY_TEXT_MAX];

	if (kai_array_parse(text, &a, err) != 0)
		return err->code;
	if (!kai_array_format(&a, buf, sizeof(buf))) {
		kai_array_fini(&a);
		return kai_err_set(err, KAI_EINVAL,
		    "invalid array \"%s\": too many ranges", text);
	}
	s->ext_text[0] = kai_xstrdup(buf);
	s->ext.array_spec = s->ext_text[0];
	s->ext.array_throttle = a.throttle;
	kai_array_fini(&a);
	return 0;
}

/* Every job a dependency names must exist (sbatch refuses otherwise). */
static int
check_targets(struct kaid *k, const struct kai_dep *d, struct kai_err *err)
{
	uint64_t *ids = kai_xcalloc(d->n + 1, sizeof(*ids));
	bool *exists = kai_xcalloc(d->n + 1, sizeof(*exists));
	size_t i, n = 0;
	int r;

	for (i = 0; i < d->n; i++)
		if (d->items[i].type != KAI_DEP_SINGLETON &&
		    state_job(k, d->items[i].job) == NULL)
			ids[n++] = d->items[i].job;
	r = kai_db_jobs_exist(k->db, ids, n, exists, err);
	for (i = 0; i < n && r == 0; i++)
		if (!exists[i])
			r = kai_err_set(err, KAI_EINVAL,
			    "job dependency problem: job %" PRIu64
			    " does not exist", ids[i]);
	free(ids);
	free(exists);
	return r;
}

static int
check_dep(struct kaid *k, struct submit *s, const char *text,
    struct kai_err *err)
{
	struct kai_dep d = {false, NULL, 0};
	char buf[KAI_DEP_TEXT_MAX];
	int r;

	if (kai_dep_parse(text, &d, err) != 0)
		return err->code;
	if (!kai_dep_format(&d, buf, sizeof(buf)))
		r = kai_err_set(err, KAI_EINVAL,
		    "invalid dependency \"%s\": too long", text);
	else
		r = check_targets(k, &d, err);
	if (r == 0) {
		s->ext_text[1] = kai_xstrdup(buf);
		s->ext.dependency = s->ext_text[1];
	}
	kai_dep_fini(&d);
	return r;
}

int
arrays_submit_check(struct kaid *k, struct submit *s,
    struct kai_submit_ext *x, struct kai_err *err)
{
	if (x->array != NULL && check_array(s, x->array, err) != 0)
		return err->code;
	if (x->dependency != NULL && check_dep(k, s, x->dependency, err) != 0)
		return err->code;
	s->ext.kill_on_invalid_dep = x->kill_on_invalid_dep;
	return 0;
}

void
arrays_submit_fini(struct submit *s)
{
	free(s->ext_text[0]);
	free(s->ext_text[1]);
	memset(&s->ext, 0, sizeof(s->ext));
	s->ext_text[0] = s->ext_text[1] = NULL;
}

void
arrays_job_init(struct kai_job *j, const struct submit *s)
{
	struct kai_err err;

	if (s->ext.array_spec != NULL) {
		j->array_job_id = j->id;
		j->array_spec = kai_xstrdup(s->ext.array_spec);
		j->array_pending = kai_xcalloc(1, sizeof(*j->array_pending));
		if (kai_array_parse(j->array_spec, j->array_pending,
		    &err) != 0)
			kai_log_err("job %" PRIu64 ": %s", j->id, err.msg);
		j->array_pending->throttle = s->ext.array_throttle;
	}
	if (s->ext.dependency != NULL) {
		j->dep_text = kai_xstrdup(s->ext.dependency);
		j->dep = kai_xcalloc(1, sizeof(*j->dep));
		if (kai_dep_parse(j->dep_text, j->dep, &err) != 0)
			kai_log_err("job %" PRIu64 ": %s", j->id, err.msg);
	}
	j->kill_on_invalid_dep = s->ext.kill_on_invalid_dep;
}

/*
 * The cache's copy of a task split off array a: every field the database
 * copies with the row (db_array.c), scheduling ones included, so that a
 * task asks for what its array asked for before and after a restart.
 */
struct kai_job *
arrays_task_new(const struct kai_job *a, uint64_t id, uint32_t task)
{
	struct kai_job *j = kai_xcalloc(1, sizeof(*j));

	j->id = id;
	j->uid = a->uid;
	j->gid = a->gid;
	j->user = kai_xstrdup(a->user);
	j->name = kai_xstrdup(a->name);
	j->queue = kai_xstrdup(a->queue);
	j->account = kai_job_optstr(a->account);
	j->qos = kai_job_optstr(a->qos);
	j->workdir = kai_xstrdup(a->workdir);
	j->state = KAI_JOB_PENDING;
	j->priority = a->priority;
	j->submit_time = a->submit_time;
	j->ntasks = a->ntasks;
	j->cpus_per_task = a->cpus_per_task;
	j->mem_mb = a->mem_mb;
	j->gpus_per_task = a->gpus_per_task;
	j->time_limit_s = a->time_limit_s;
	j->hold = a->hold;
	j->reason = kai_xstrdup("");
	j->why = kai_xstrdup("");
	j->preemptible = a->preemptible;
	j->requeue = a->requeue;
	j->min_tasks = a->min_tasks;
	j->ntasks_per_node = a->ntasks_per_node;
	j->gpus_per_node = a->gpus_per_node;
	j->whole_node = a->whole_node;
	j->gpu_fraction = a->gpu_fraction;
	j->gpu_memory_mb = a->gpu_memory_mb;
	j->gpu_devices = a->gpu_devices;
	j->topology = kai_job_optstr(a->topology);
	j->topology_preferred = kai_job_optstr(a->topology_preferred);
	j->gpu_type = kai_job_optstr(a->gpu_type);
	j->mail_mask = a->mail_mask;
	j->mail_sent = a->mail_sent;
	j->mail_user = kai_job_optstr(a->mail_user);
	j->features = kai_job_optstr(a->features);
	j->node_req = kai_job_optstr(a->node_req);
	j->array_job_id = a->array_job_id;
	j->array_task_id = task;
	j->array_spec = a->array_spec != NULL ? kai_xstrdup(a->array_spec) :
	    NULL;
	j->dep_text = a->dep_text != NULL ? kai_xstrdup(a->dep_text) : NULL;
	j->kill_on_invalid_dep = a->kill_on_invalid_dep;
	return j;
}

/* The split of a's first task, as the database will make it. */
static void
split_plan(const struct kai_job *a, struct kai_db_split *s, char *rest,
    size_t size)
{
	struct kai_array tmp = {NULL, 0, 0};

	tmp.r = kai_xcalloc(a->array_pending->n + 1, sizeof(*tmp.r));
	memcpy(tmp.r, a->array_pending->r,
	    a->array_pending->n * sizeof(*tmp.r));
	tmp.n = a->array_pending->n;
	(void)kai_array_take_first(&tmp, &s->task);
	(void)kai_array_format(&tmp, rest, size);
	s->array_id = a->id;
	s->rest = tmp.n > 0 ? rest : NULL;
	kai_array_fini(&tmp);
}

/*
 * Applies a committed split to the cache: the array's remainder loses
 * the task, and the task (a new record unless it was the last) is
 * returned.
 */
static struct kai_job *
split_apply(struct kaid *k, struct kai_job *a, const struct kai_db_split *s)
{
	struct kai_job *t;

	(void)kai_array_remove(a->array_pending, s->task);
	if (s->rest == NULL) {
		kai_array_fini(a->array_pending);
		KAI_FREE(a->array_pending);
		a->array_task_id = s->task;
		return a;
	}
	t = arrays_task_new(a, s->new_id, s->task);
	state_job_add(k, t);
	tick_again(k);
	kai_log_info("job %" PRIu64 ": task %" PRIu32 " of array %" PRIu64,
	    t->id, s->task, a->id);
	return t;
}

/* Splits the first task of each array a[0..n); false if not committed. */
static bool
split_tasks(struct kaid *k, struct kai_job **a, size_t n,
    struct kai_job **out, int64_t now)
{
	struct kai_db_split *s = kai_xcalloc(n + 1, sizeof(*s));
	char (*rest)[KAI_ARRAY_TEXT_MAX] = kai_xcalloc(n + 1, sizeof(*rest));
	struct kai_err err;
	size_t i;
	bool ok;

	for (i = 0; i < n; i++)
		split_plan(a[i], &s[i], rest[i], sizeof(rest[i]));
	ok = kai_db_array_split(k->db, s, n, now, &err) == 0;
	if (!ok)
		kai_log_err("could not split %zu array tasks: %s", n, err.msg);
	for (i = 0; i < n && ok; i++)
		out[i] = split_apply(k, a[i], &s[i]);
	free(s);
	free(rest);
	return ok;
}

size_t
arrays_split_placed(struct kaid *k, struct snap *sn, size_t *which,
    size_t n)
{
	struct kai_job **a = kai_xcalloc(n + 1, sizeof(*a));
	struct kai_job **t = kai_xcalloc(n + 1, sizeof(*t));
	size_t *at = kai_xcalloc(n + 1, sizeof(*at));
	size_t i, m = 0, keep = 0;
	bool ok;

	for (i = 0; i < n; i++) {
		struct kai_job *j = sn->kjobs[which[i]];

		if (j->array_pending != NULL && j->array_pending->n > 0) {
			at[m] = i;
			a[m++] = j;
		}
	}
	ok = m == 0 || split_tasks(k, a, m, t, sn->s.now);
	for (i = 0; i < m && ok; i++)
		sn->kjobs[which[at[i]]] = t[i];
	for (i = 0; i < n; i++) {
		struct kai_job *j = sn->kjobs[which[i]];

		if (ok || j->array_pending == NULL)
			which[keep++] = which[i];
	}
	free(a);
	free(t);
	free(at);
	return keep;
}

char *
arrays_display(const struct kai_job *j)
{
	char set[KAI_ARRAY_TEXT_MAX], thr[16] = "";

	if (j->array_job_id == 0)
		return NULL;
	if (j->array_pending == NULL)
		return kai_xasprintf("%" PRIu64 "_%" PRIu32, j->array_job_id,
		    j->array_task_id);
	if (!kai_array_format(j->array_pending, set, sizeof(set)))
		(void)snprintf(set, sizeof(set), "%" PRIu32 "-%" PRIu32,
		    kai_array_min(j->array_pending),
		    kai_array_max(j->array_pending));
	if (j->array_pending->throttle > 0)
		(void)snprintf(thr, sizeof(thr), "%%%" PRIu32,
		    j->array_pending->throttle);
	return kai_xasprintf("%" PRIu64 "_[%s%s]", j->array_job_id, set, thr);
}

void
arrays_expand_ids(const struct kaid *k, struct kai_cancel *c)
{
	size_t i, n = c->nids, x, keep = 0;
	bool *has = kai_xcalloc(n + 1, sizeof(*has));
	uint64_t *add = NULL;
	size_t nadd = 0;

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);

		if (j->array_job_id == 0 || j->array_job_id == j->id)
			continue;
		for (x = 0; x < n && c->ids[x] != j->array_job_id; x++)
			;
		if (x == n)
			continue;
		has[x] = true;
		add = kai_xreallocarray(add, nadd + 1, sizeof(*add));
		add[nadd++] = j->id;
	}
	/* An array whose own record ended answers for its tasks only. */
	for (x = 0; x < n; x++)
		if (!has[x] || state_job(k, c->ids[x]) != NULL)
			c->ids[keep++] = c->ids[x];
	c->nids = keep;
	if (nadd > 0) {
		c->ids = kai_xreallocarray(c->ids, keep + nadd,
		    sizeof(*c->ids));
		memcpy(c->ids + keep, add, nadd * sizeof(*add));
		c->nids += nadd;
	}
	free(has);
	free(add);
}
