/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_steps.c: the step rows of kacct (kacct_steps.h).
 *
 * sacct shows each job's steps under it: N.batch, the batch script, and
 * N.0, N.1... for the steps srun started (their command's name, state,
 * exit code, times, tasks and nodes), which kaid recorded
 * (sql/017-job-steps.sql) and gives with KAI_MSG_STEP_LIST.  Only the
 * jobs whose script ran once, beside the step agent (pod/wrapper.sh),
 * have a batch step: where every pod runs the script (no in-pod
 * programs) there is none to show.  A
 * row is its job's record with the step's values put over it, so every
 * field of -o prints for a step as it does for its job; the partition,
 * which sacct leaves empty for a step, is "".
 */
#include "config.h"

#include <sys/wait.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "client.h"
#include "kacct_steps.h"

struct fetch {
	struct kacct_steps *s;
	const char *prog;
};

static int
on_steps(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct fetch *f = ctx;
	struct kai_err err;

	(void)type;
	if (kai_msg_step_list_decode(body, len, &f->s->v, &f->s->n,
	    &err) != 0) {
		client_error(f->prog, NULL, "invalid reply from kaid: %s",
		    err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

int
kacct_steps_fetch(const char *prog, const struct kai_jobinfo *const *v,
    size_t n, struct kacct_steps *s)
{
	uint64_t *ids = kai_xcalloc(n > 0 ? n : 1, sizeof(*ids));
	struct fetch f = {s, prog};
	struct kai_buf b;
	size_t i, k = 0;
	int rc = CLIENT_EXIT_OK;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n && k < KAI_STEP_IDS_MAX; i++)
		if (v[i]->start_time > 0)
			ids[k++] = v[i]->id;
	if (k > 0) {
		kai_buf_init(&b, KAI_PROTO_BODY_MAX);
		if (kai_msg_step_ids_encode(&b, ids, k) == 0)
			rc = client_request(prog, KAI_MSG_STEP_LIST, b.data,
			    b.len, on_steps, &f);
		kai_buf_fini(&b);
	}
	free(ids);
	return rc;
}

void
kacct_steps_fini(struct kacct_steps *s)
{
	kai_step_info_free(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

/* A step's partition: none. */
static char no_queue[] = "";

size_t
kacct_step_rows(const struct kai_jobinfo *j, const struct kacct_steps *s,
    struct kai_jobinfo **rows, char ***suffixes, struct kacct_usage **usage)
{
	size_t n = 0, cap = 0, i;
	struct kai_jobinfo *r;

	*rows = NULL;
	*suffixes = NULL;
	*usage = NULL;
	for (i = 0; i < s->n; i++)
		if (s->v[i].job == j->id)
			cap++;
	if (cap == 0)
		return 0;
	*rows = kai_xcalloc(cap, sizeof(**rows));
	*suffixes = kai_xcalloc(cap, sizeof(**suffixes));
	*usage = kai_xcalloc(cap, sizeof(**usage));
	for (i = 0; i < s->n; i++) {
		const struct kai_step_info *st = &s->v[i];
		int ws = (int)st->exit_status;

		if (st->job != j->id)
			continue;
		r = &(*rows)[n];
		*r = *j;
		r->name = st->name;
		r->queue = no_queue;
		r->state = (enum kai_job_state)st->state;
		r->start_time = st->start;
		r->end_time = st->end;
		r->ntasks = st->ntasks;
		r->tasks_run = st->ntasks;
		r->nodelist = kai_xstrdup(st->nodelist);
		r->exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 0;
		r->exit_signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
		/* The batch script's own processes are not measured. */
		if (st->step != KAI_STEP_BATCH && st->end > 0) {
			(*usage)[n].rss = (*usage)[n].cpu = true;
			(*usage)[n].max_rss_kb = st->max_rss_kb;
			(*usage)[n].ave_rss_kb = st->ave_rss_kb;
			(*usage)[n].cpu_usec = st->cpu_usec;
		}
		(*suffixes)[n++] = st->step == KAI_STEP_BATCH ?
		    kai_xstrdup(".batch") : kai_xasprintf(".%" PRIu32, st->step);
	}
	return n;
}

void
kacct_job_usage(const struct kai_jobinfo *j, const struct kacct_steps *s,
    struct kacct_usage *u)
{
	uint32_t worst = 0;
	size_t i;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < s->n; i++) {
		const struct kai_step_info *st = &s->v[i];

		if (st->job != j->id || st->step == KAI_STEP_BATCH ||
		    st->end == 0)
			continue;
		u->rss = u->cpu = true;
		u->cpu_usec += st->cpu_usec;
		/* sacct's DerivedExitCode: the highest status of the srun
		 * steps, as slurmdbd keeps it (the largest wait status). */
		if (!u->derived || st->exit_status > worst) {
			int ws = (int)st->exit_status;

			worst = st->exit_status;
			u->derived = true;
			u->derived_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 0;
			u->derived_signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
		}
		if (st->max_rss_kb > u->max_rss_kb)
			u->max_rss_kb = st->max_rss_kb;
		if (st->ave_rss_kb > u->ave_rss_kb)
			u->ave_rss_kb = st->ave_rss_kb;
	}
}

void
kacct_rows_free(struct kai_jobinfo *rows, char **suffixes,
    struct kacct_usage *usage, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].nodelist);
		free(suffixes[i]);
	}
	free(rows);
	free(suffixes);
	free(usage);
}
