/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * steps_acct.c: where a step's tasks go, and its record (steps.c keeps
 * the steps of running jobs; this file what outlives them).
 *
 * Placement is Slurm's default block distribution over the job's nodes
 * (each a group of ntasks_per_node pods, or one pod).  Records are rows
 * of job_steps (sql/017-job-steps.sql): written on kaid's main database
 * connection when a step starts and ends, a failure logged and the step
 * going on (accounting must not stop a running job); kacct reads them
 * with KAI_MSG_STEP_LIST.
 */
#include "config.h"

#include <sys/wait.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db.h"
#include "kaid.h"
#include "proto/proto_step.h"
#include "steps_int.h"
#include "sys/log.h"

/* A row of sql/017-job-steps.sql: at a step's start, or its end. */
static void
record_info(struct kaid *k, const struct kai_step_info *i, bool end)
{
	struct kai_err err;

	if ((end ? kai_db_step_end(k->db, i, &err) :
	    kai_db_step_start(k->db, i, &err)) != 0)
		kai_log_warn("job %" PRIu64 ": step %" PRIu32 ": %s", i->job,
		    i->step, err.msg);
}

void
steps_record(struct kaid *k, uint64_t job, const struct step *s, bool end,
    int64_t now)
{
	struct kai_step_info i;
	uint32_t t, worst = 0;
	bool signalled = false;

	memset(&i, 0, sizeof(i));
	i.job = job;
	i.step = s->id;
	i.name = s->name;
	i.ntasks = s->ntasks;
	i.nodelist = s->nodelist;
	i.start = s->start;
	if (!end) {
		record_info(k, &i, false);
		return;
	}
	/* The worst task: the largest exit code, a signal above any. */
	for (t = 0; t < s->ntasks; t++) {
		int st = (int)s->status[t];

		if (!s->done[t])
			continue;
		if (WIFSIGNALED(st) && !signalled) {
			signalled = true;
			worst = (uint32_t)st;
		} else if (!signalled && WEXITSTATUS(st) > WEXITSTATUS(
		    (int)worst)) {
			worst = (uint32_t)st;
		}
	}
	i.exit_status = worst;
	i.max_rss_kb = s->max_rss_kb;
	i.ave_rss_kb = s->ntasks > s->left ?
	    s->sum_rss_kb / (s->ntasks - s->left) : 0;
	i.cpu_usec = s->cpu_usec;
	i.state = s->left > 0 ? KAI_JOB_CANCELLED :
	    worst == 0 ? KAI_JOB_COMPLETED : KAI_JOB_FAILED;
	i.end = now;
	record_info(k, &i, true);
}

/* Room in sj for step id (a hole, a row lost, ends as nothing to wait
 * for). */
static void
recover_room(struct step_job *sj, uint32_t id)
{
	while (sj->nsteps <= id) {
		struct step *s = step_new((uint32_t)sj->nsteps, 1);

		s->left = 0;
		s->done[0] = true;
		s->name = kai_xstrdup("");
		s->nodelist = kai_xstrdup("");
		sj->steps = kai_xreallocarray(sj->steps, sj->nsteps + 1,
		    sizeof(*sj->steps));
		sj->steps[sj->nsteps++] = s;
	}
}

void
steps_recover(struct kaid *k, struct step_job *sj)
{
	const struct kai_job *j = state_job(k, sj->id);
	struct kai_step_info *v = NULL;
	struct kai_err err;
	size_t nv = 0, i, t;

	/* Only a RUNNING job's start_time is its current run's: a
	 * requeued job is CONFIGURING with its last run's until its pods
	 * run, and that run's rows are not this one's. */
	if (j == NULL || j->state != KAI_JOB_RUNNING || j->start_time == 0)
		return;
	if (kai_db_steps_load(k->db, &sj->id, 1, -1, &v, &nv, &err) != 0) {
		kai_log_warn("job %" PRIu64 ": could not read its steps "
		    "back: %s", sj->id, err.msg);
		return;
	}
	for (i = 0; i < nv; i++) {
		const struct kai_step_info *r = &v[i];
		struct step *s;

		/* Rows of an earlier run (before a requeue) are older. */
		if (r->start < j->start_time)
			continue;
		if (r->step == KAI_STEP_BATCH) {
			sj->batch = true;
			sj->ended = r->state != KAI_JOB_RUNNING;
			continue;
		}
		if (r->step >= STEPS_MAX || r->ntasks == 0 ||
		    r->ntasks > KAI_STEP_TASKS_MAX)
			continue;
		recover_room(sj, r->step);
		s = step_new(r->step, r->ntasks);
		s->name = kai_xstrdup(r->name != NULL ? r->name : "");
		s->nodelist = kai_xstrdup(r->nodelist != NULL ? r->nodelist :
		    "");
		s->start = r->start;
		if (r->state != KAI_JOB_RUNNING) {
			/* Ended: srun learns its worst status (the row
			 * keeps no other), as task 0's. */
			for (t = 0; t < s->ntasks; t++)
				s->done[t] = true;
			s->status[0] = r->exit_status;
			s->left = 0;
		}
		step_free(sj->steps[r->step]);
		sj->steps[r->step] = s;
	}
	if (sj->nsteps > 0)
		kai_log_info("job %" PRIu64 ": %zu steps read back, the next "
		    "is %zu", sj->id, sj->nsteps, sj->nsteps);
	sj->next_step = (uint32_t)sj->nsteps;
	kai_step_info_free(v, nv);
}

/*
 * The batch step (N.batch): started when task 0's agent first asks (the
 * script starts beside it), ended by STEP_END with the script's exit
 * status, or CANCELLED when the job ended first.
 */
void
steps_record_batch(struct kaid *k, struct step_job *sj, bool end, uint32_t state,
    uint32_t status)
{
	const struct kai_job *j = state_job(k, sj->id);
	struct kai_step_info i;
	static char name[] = "batch";
	static char none[] = "";

	memset(&i, 0, sizeof(i));
	i.job = sj->id;
	i.step = KAI_STEP_BATCH;
	i.name = name;
	i.ntasks = 1;
	i.nodelist = j != NULL && j->nallocs > 0 && j->allocs[0].node != NULL
	    ? j->allocs[0].node : none;
	i.start = j != NULL && j->start_time > 0 ? j->start_time : kaid_now();
	i.state = state;
	i.exit_status = status;
	i.end = kaid_now();
	record_info(k, &i, end);
}

/*
 * Where the tasks go: over nn of the job's nodes (groups of g pods), in
 * blocks (Slurm's default distribution): node i gets tpn tasks, or
 * n / nn and one more for the first n % nn.  Task t of a node runs in
 * the node's pod t % g.  0, or an error message in err.
 */
int
steps_place(const struct kai_job *j, const struct kai_step_req *r,
    struct kai_step_event *ev, struct kai_err *err)
{
	uint32_t pods = j->ntasks > 0 ? j->ntasks : 1;
	uint32_t g = j->ntasks_per_node > 0 && pods % j->ntasks_per_node == 0
	    ? j->ntasks_per_node : 1;
	uint32_t jn = pods / g, nn, n, node, l, t = 0;

	nn = r->nnodes;
	n = r->ntasks;
	/* No -n: as many as the nodes hold (the job's tasks per node,
	 * which srun inherits from sbatch in Slurm), or all the job's. */
	if (n == 0)
		n = r->ntasks_per_node > 0 ? r->ntasks_per_node *
		    (nn > 0 ? nn : jn) : nn > 0 ? nn * g : pods;
	if (nn == 0)
		nn = r->ntasks_per_node > 0 ?
		    (n + r->ntasks_per_node - 1) / r->ntasks_per_node :
		    (n + g - 1) / g;
	if (nn > jn)
		nn = r->nnodes > 0 ? nn : jn;
	if (nn > jn)
		return kai_err_set(err, KAI_EINVAL,
		    "unable to create step for job %" PRIu64 ": %" PRIu32
		    " nodes requested, the job has %" PRIu32, j->id, nn, jn);
	if (n > KAI_STEP_TASKS_MAX || n < nn)
		return kai_err_set(err, KAI_EINVAL,
		    "unable to create step for job %" PRIu64 ": %" PRIu32
		    " tasks on %" PRIu32 " nodes", j->id, n, nn);
	if (r->ntasks_per_node > 0 && n > r->ntasks_per_node * nn)
		return kai_err_set(err, KAI_EINVAL,
		    "unable to create step for job %" PRIu64 ": %" PRIu32
		    " tasks exceed %" PRIu32 " per node on %" PRIu32 " nodes",
		    j->id, n, r->ntasks_per_node, nn);
	ev->pod = kai_xcalloc(n, sizeof(*ev->pod));
	ev->node = kai_xcalloc(n, sizeof(*ev->node));
	ev->local = kai_xcalloc(n, sizeof(*ev->local));
	ev->ntasks = n;
	for (node = 0; node < nn; node++) {
		uint32_t here = r->ntasks_per_node > 0 ? r->ntasks_per_node :
		    n / nn + (node < n % nn ? 1 : 0);

		if (here > g)
			return kai_err_set(err, KAI_EINVAL,
			    "unable to create step for job %" PRIu64 ": more "
			    "processors requested than permitted (%" PRIu32
			    " tasks on a node of %" PRIu32 ")", j->id, here, g);
		for (l = 0; l < here && t < n; l++, t++) {
			ev->pod[t] = node * g + l % g;
			ev->node[t] = node;
			ev->local[t] = l;
		}
	}
	return 0;
}

/* The nodes of the step's pods, "a,b" in task order, each once. */
char *
steps_nodes(const struct kai_job *j, const struct kai_step_event *ev)
{
	struct kai_buf b;
	size_t t, u;

	kai_buf_init(&b, 65536);
	for (t = 0; t < ev->ntasks; t++) {
		const char *node = ev->pod[t] < j->nallocs &&
		    j->allocs[ev->pod[t]].node != NULL ?
		    j->allocs[ev->pod[t]].node : "";
		bool seen = false;

		for (u = 0; u < t && !seen; u++)
			seen = ev->pod[u] < j->nallocs &&
			    j->allocs[ev->pod[u]].node != NULL &&
			    strcmp(j->allocs[ev->pod[u]].node, node) == 0;
		if (seen || node[0] == '\0')
			continue;
		if ((b.len > 0 && kai_buf_add(&b, ",", 1) != 0) ||
		    kai_buf_add(&b, node, strlen(node)) != 0)
			break;
	}
	return kai_buf_detach(&b, NULL);
}

bool
rpc_step_list(struct kaid *k, const struct rpc_req *req)
{
	struct kai_step_info *v = NULL;
	uint64_t *ids = NULL;
	size_t n = 0, nv = 0, fit;
	struct kai_buf b;
	struct kai_err err;

	if (kai_msg_step_ids_decode(req->body, req->len, &ids, &n, &err) != 0)
		{
		server_reply_error(k, req->conn, KAI_EPROTO, err.msg, NULL);
		return false;
	}
	/* As kacct's own rows: the caller's jobs, or all for operators. */
	if (kai_db_steps_load(k->db, ids, n, rpc_is_operator(k, req->uid) ?
	    -1 : (int64_t)req->uid, &v, &nv, &err) != 0) {
		free(ids);
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	free(ids);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	fit = nv;
	if (kai_msg_step_list_encode(&b, v, &fit) == 0)
		server_reply(k, req->conn, KAI_MSG_STEP_LIST_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the steps", NULL);
	kai_buf_fini(&b);
	kai_step_info_free(v, nv);
	return false;
}

