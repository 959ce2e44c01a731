/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * steps.c: job steps, srun inside a job (proto_step.h, types 44-51).
 *
 * Slurm's model: the batch script runs once, in task 0's pod, and srun
 * starts a step, its command on the job's tasks.  Every pod of a job
 * runs a step agent (pod/kaistep_agent.c) that long-polls kaid with
 * KAI_MSG_STEP_AGENT for the events of its job after the last it saw;
 * srun (pod/kaistep_srun.c) asks kaid for a step with KAI_MSG_STEP_RUN,
 * kaid places its tasks on the pods, appends a RUN event (which answers
 * the agents' waiting requests at once: no polling interval on the
 * launch path), and answers srun when every task reported its status
 * (KAI_MSG_STEP_DONE).  Both waits are deferred replies bounded by
 * KAI_STEP_POLL_S, so that no client sits on a socket past its receive
 * timeout; the client asks again.
 *
 * The state is in memory, per job, and goes when the job is no longer
 * running (checked on every request and by the wait timer), or when
 * kaid stops; a kaid started while the job runs takes its steps back
 * from their rows (steps_recover()) when the job's first request comes,
 * and the agents send again the ends they reported before.  Each request must carry the job's credential: a job
 * reaches its own steps only.  Where tasks go and the steps' records
 * are steps_acct.c's.
 */
#include "config.h"

#include <sys/random.h>

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "proto/codec.h"
#include "proto/proto_step.h"
#include "steps_int.h"
#include "sys/log.h"

#define POLL_MS	 ((int64_t)KAI_STEP_POLL_S * 1000)
#define SWEEP_MS 1000

/* A deferred request: an agent's (step == UINT32_MAX) or srun's. */
struct step_wait {
	struct conn *conn;	/* NULL once the client went away */
	uint64_t job;
	uint32_t step;
	uint64_t seq;		/* an agent's: the last event it saw */
	int64_t due_ms;		/* answer by then, with what there is */
	struct step_wait *next;
};

struct steps {
	uint64_t epoch;		/* this kaid's: the high half of every seq */
	struct step_job *jobs;
	struct step_wait *waits;
	uint64_t timer;		/* the sweep, while something waits */
};

#define AGENT UINT32_MAX

static struct steps *
steps_of(struct kaid *k)
{
	if (k->steps == NULL) {
		/* The logs live in memory: a kaid started later numbers
		 * its events apart, so an agent's cursor from an earlier
		 * kaid is known for what it is (rpc_step_agent()). */
		uint32_t e;

		k->steps = kai_xcalloc(1, sizeof(*k->steps));
		if (getrandom(&e, sizeof(e), 0) != (ssize_t)sizeof(e))
			e = (uint32_t)kaid_now() ^ ((uint32_t)getpid() << 16);
		k->steps->epoch = (uint64_t)e << 32;
	}
	return k->steps;
}

void
step_free(struct step *s)
{
	free(s->name);
	free(s->nodelist);
	free(s->status);
	free(s->done);
	free(s);
}

struct step *
step_new(uint32_t id, uint32_t ntasks)
{
	struct step *s = kai_xcalloc(1, sizeof(*s));

	s->id = id;
	s->ntasks = s->left = ntasks;
	s->status = kai_xcalloc(ntasks > 0 ? ntasks : 1, sizeof(*s->status));
	s->done = kai_xcalloc(ntasks > 0 ? ntasks : 1, sizeof(*s->done));
	return s;
}

static void
job_free(struct step_job *sj)
{
	size_t i;

	for (i = 0; i < sj->nevents; i++) {
		kai_step_event_fini(sj->events[i]);
		free(sj->events[i]);
	}
	free(sj->events);
	for (i = 0; i < sj->nsteps; i++)
		step_free(sj->steps[i]);
	free(sj->steps);
	free(sj);
}

static void arm(struct kaid *k);
static void job_retire(struct kaid *k, struct step_job *sj);

/* The run of job id now: its requeues (0 if kaid does not know it). */
static uint32_t
job_run(const struct kaid *k, uint64_t id)
{
	const struct kai_job *j = state_job(k, id);

	return j != NULL ? j->requeue_count : 0;
}

/*
 * The steps of job id's current run.  A requeued job's new run starts
 * afresh (its steps from 0, an event log its new pods read from the
 * start), even when the sweep has not yet forgotten the old one.
 */
static struct step_job *
job_find(struct kaid *k, uint64_t id, bool create)
{
	struct steps *st = steps_of(k);
	struct step_job **pj, *sj;

	for (pj = &st->jobs; (sj = *pj) != NULL; pj = &sj->next) {
		if (sj->id != id)
			continue;
		if (sj->run == job_run(k, id))
			return sj;
		*pj = sj->next;
		job_retire(k, sj);
		break;
	}
	if (!create)
		return NULL;
	sj = kai_xcalloc(1, sizeof(*sj));
	sj->id = id;
	sj->epoch = st->epoch;
	sj->run = job_run(k, id);
	sj->next = st->jobs;
	st->jobs = sj;
	steps_recover(k, sj);
	arm(k);
	return sj;
}

static bool
job_active(const struct kaid *k, uint64_t id)
{
	const struct kai_job *j = state_job(k, id);

	return j != NULL && (j->state == KAI_JOB_RUNNING ||
	    j->state == KAI_JOB_CONFIGURING);
}

static void
reply_empty(struct kaid *k, struct conn *conn, uint16_t type)
{
	struct kai_buf b;

	kai_buf_init(&b, 16);
	server_reply(k, conn, type, 0, &b);
	kai_buf_fini(&b);
}

/* srun's answer: the step, and whether it is done and how. */
static void
reply_step(struct kaid *k, struct conn *conn, const struct step *s)
{
	struct kai_step_result r = {s->id, s->left == 0, NULL, 0};
	struct kai_buf b;

	if (r.done) {
		r.status = s->status;
		r.ntasks = s->ntasks;
	}
	kai_buf_init(&b, 64 + 4 * (size_t)s->ntasks);
	if (kai_msg_step_result_encode(&b, &r) == 0)
		server_reply(k, conn, KAI_MSG_STEP_RUN_REPLY, 0, &b);
	else
		server_reply_error(k, conn, KAI_EINTERNAL,
		    "could not encode the step's result", NULL);
	kai_buf_fini(&b);
}

/* An agent's answer: the events after seq (none when there are none). */
static void
reply_events(struct kaid *k, struct conn *conn, const struct step_job *sj,
    uint64_t seq)
{
	size_t n = sj != NULL && seq < sj->nevents ? sj->nevents - seq : 0;
	struct kai_buf b;

	kai_buf_init(&b, 4096);
	b.max = KAI_PROTO_BODY_MAX;
	if (kai_msg_step_events_encode(&b,
	    (const struct kai_step_event *const *)(n > 0 ? sj->events + seq
		: NULL), &n) == 0)
		server_reply(k, conn, KAI_MSG_STEP_AGENT_REPLY, 0, &b);
	else
		server_reply_error(k, conn, KAI_EINTERNAL,
		    "a step event does not fit in a frame", NULL);
	kai_buf_fini(&b);
}

static void sweep(struct kai_loop *loop, uint64_t id, void *ctx);

static void
arm(struct kaid *k)
{
	struct steps *st = steps_of(k);

	/* While something waits, or a job's steps wait to be forgotten
	 * (and their unfinished steps recorded) once it ends. */
	if (st->timer == 0 && (st->waits != NULL || st->jobs != NULL))
		st->timer = kai_loop_timer_add(k->loop, SWEEP_MS, sweep, k);
}

static void
wait_add(struct kaid *k, const struct rpc_req *req, uint32_t step,
    uint64_t seq)
{
	struct steps *st = steps_of(k);
	struct step_wait *w = kai_xcalloc(1, sizeof(*w));

	w->conn = req->conn;
	w->job = req->job_id;
	w->step = step;
	w->seq = seq;
	w->due_ms = kai_loop_now_ms(k->loop) + POLL_MS;
	w->next = st->waits;
	st->waits = w;
	arm(k);
}

/*
 * Answers the waits that can be answered: all of them when `all` (the
 * sweep: the due ones with what there is), else those with news.  A
 * wait whose job is gone gets an error.
 */
static void
wake(struct kaid *k, uint64_t job)
{
	struct steps *st = steps_of(k);
	struct step_wait **pw = &st->waits, *w;
	int64_t now = kai_loop_now_ms(k->loop);

	while ((w = *pw) != NULL) {
		struct step_job *sj = job_find(k, w->job, false);
		bool answer = w->conn == NULL;

		if (!answer && (job == 0 || w->job == job)) {
			if (sj == NULL || !job_active(k, w->job)) {
				server_reply_error(k, w->conn, KAI_ENOENT,
				    "the job is no longer running", NULL);
				answer = true;
			} else if (w->step == AGENT) {
				if (w->seq < sj->nevents || now >= w->due_ms) {
					reply_events(k, w->conn, sj, w->seq);
					answer = true;
				}
			} else if (w->step < sj->nsteps &&
			    (sj->steps[w->step]->left == 0 ||
				now >= w->due_ms)) {
				reply_step(k, w->conn, sj->steps[w->step]);
				answer = true;
			}
			if (answer)
				server_resume(k, w->conn);
		}
		if (answer) {
			*pw = w->next;
			free(w);
		} else {
			pw = &w->next;
		}
	}
}

/*
 * Forgets a run of a job (unlinked), recording what it left unfinished:
 * steps whose tasks never all reported and a batch script that never
 * said it ended were ended under them.
 */
static void
job_retire(struct kaid *k, struct step_job *sj)
{
	size_t i;

	for (i = 0; i < sj->nsteps; i++)
		if (sj->steps[i]->left > 0)
			steps_record(k, sj->id, sj->steps[i], true, kaid_now());
	if (sj->batch && !sj->ended)
		steps_record_batch(k, sj, true, KAI_JOB_CANCELLED, 0);
	job_free(sj);
}

/* Forgets the jobs that ended (their waits were answered by wake()). */
static void
reap_jobs(struct kaid *k)
{
	struct steps *st = steps_of(k);
	struct step_job **pj = &st->jobs, *sj;

	while ((sj = *pj) != NULL) {
		if (!job_active(k, sj->id) || sj->run != job_run(k, sj->id)) {
			*pj = sj->next;
			job_retire(k, sj);
		} else {
			pj = &sj->next;
		}
	}
}

static void
sweep(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;

	(void)loop;
	(void)id;
	k->steps->timer = 0;
	wake(k, 0);
	reap_jobs(k);
	arm(k);
}

static struct kai_step_event *
event_add(struct step_job *sj, uint32_t kind, uint32_t step)
{
	struct kai_step_event *ev = kai_xcalloc(1, sizeof(*ev));

	sj->events = kai_xreallocarray(sj->events, sj->nevents + 1,
	    sizeof(*sj->events));
	sj->events[sj->nevents++] = ev;
	ev->seq = sj->epoch | sj->nevents;
	ev->kind = kind;
	ev->step = step;
	return ev;
}

static bool
refuse(struct kaid *k, const struct rpc_req *req, int code, const char *msg,
    const char *hint)
{
	server_reply_error(k, req->conn, code, msg, hint);
	return false;
}

static bool
step_start(struct kaid *k, const struct rpc_req *req, struct step_job *sj,
    struct kai_step_req *r)
{
	const struct kai_job *j = state_job(k, req->job_id);
	struct kai_step_event tmp;
	struct kai_step_event *ev;
	struct step *s;
	struct kai_err err;

	if (sj->ended)
		return refuse(k, req, KAI_EINVAL, "the batch script has ended",
		    NULL);
	if (sj->nsteps >= STEPS_MAX)
		return refuse(k, req, KAI_EINVAL, "too many steps in one job",
		    "a job runs at most 65536 steps");
	if (r->argc == 0)
		return refuse(k, req, KAI_EINVAL, "no command to execute",
		    NULL);
	memset(&tmp, 0, sizeof(tmp));
	if (steps_place(j, r, &tmp, &err) != 0) {
		kai_step_event_fini(&tmp);
		return refuse(k, req, err.code, err.msg, NULL);
	}
	ev = event_add(sj, KAI_STEP_EV_RUN, sj->next_step);
	tmp.seq = ev->seq;
	tmp.kind = ev->kind;
	tmp.step = ev->step;
	*ev = tmp;
	ev->label = r->label;
	ev->cwd = r->cwd;
	ev->out = r->out;
	ev->err = r->err;
	ev->argv = r->argv;
	ev->argc = r->argc;
	ev->env = r->env;
	ev->nenv = r->nenv;
	r->cwd = r->out = r->err = NULL;
	r->argv = r->env = NULL;
	r->argc = r->nenv = 0;
	s = step_new(sj->next_step++, (uint32_t)ev->ntasks);
	s->kill_on_bad_exit = r->kill_on_bad_exit;
	s->run = ev;
	s->start = kaid_now();
	s->name = kai_xstrdup(strrchr(ev->argv[0], '/') != NULL ?
	    strrchr(ev->argv[0], '/') + 1 : ev->argv[0]);
	s->nodelist = steps_nodes(j, ev);
	sj->steps = kai_xreallocarray(sj->steps, sj->nsteps + 1,
	    sizeof(*sj->steps));
	sj->steps[sj->nsteps++] = s;
	kai_log_info("job %" PRIu64 ": step %" PRIu32 " started: %" PRIu32
	    " tasks, %s", req->job_id, s->id, s->ntasks, ev->argv[0]);
	steps_record(k, req->job_id, s, false, 0);
	/* Its number at once: srun waits with it (a request it can make
	 * again, to a kaid that restarted meanwhile). */
	reply_step(k, req->conn, s);
	wake(k, req->job_id);
	return false;
}

bool
rpc_step_run(struct kaid *k, const struct rpc_req *req)
{
	struct kai_step_req r;
	struct step_job *sj;
	struct kai_err err;
	bool deferred;

	if (req->job_id == 0)
		return refuse(k, req, KAI_EPERM,
		    "job steps are started from inside a job", NULL);
	if (kai_msg_step_req_decode(req->body, req->len, &r, &err) != 0) {
		kai_step_req_fini(&r);
		return refuse(k, req, KAI_EPROTO, err.msg, NULL);
	}
	sj = job_find(k, req->job_id, true);
	/* r.step is the step's id + 1: 0 asks for a new one. */
	if (r.step == 0) {
		deferred = step_start(k, req, sj, &r);
	} else if (r.step > sj->nsteps) {
		deferred = refuse(k, req, KAI_ENOENT, "no such step", NULL);
	} else if (sj->steps[r.step - 1]->left == 0) {
		reply_step(k, req->conn, sj->steps[r.step - 1]);
		deferred = false;
	} else {
		wait_add(k, req, r.step - 1, 0);
		deferred = true;
	}
	kai_step_req_fini(&r);
	return deferred;
}

bool
rpc_step_agent(struct kaid *k, const struct rpc_req *req)
{
	struct step_job *sj;
	uint32_t pod;
	uint64_t seq;
	struct kai_err err;

	if (req->job_id == 0)
		return refuse(k, req, KAI_EPERM,
		    "the step agent runs inside a job", NULL);
	if (kai_msg_step_agent_decode(req->body, req->len, &pod, &seq,
	    &err) != 0)
		return refuse(k, req, KAI_EPROTO, err.msg, NULL);
	sj = job_find(k, req->job_id, true);
	if (pod == 0 && !sj->batch) {
		sj->batch = true;
		steps_record_batch(k, sj, false, KAI_JOB_RUNNING, 0);
	}
	/* seq is epoch | index.  Another epoch (a cursor from before
	 * kaid restarted: the steps lived in its memory) or an index past
	 * the log's end: the agent reads this log from its start. */
	if ((seq & ~(uint64_t)0xffffffffU) != sj->epoch ||
	    (seq & 0xffffffffU) > sj->nevents)
		seq = 0;
	else
		seq &= 0xffffffffU;
	if (seq < sj->nevents) {
		reply_events(k, req->conn, sj, seq);
		return false;
	}
	wait_add(k, req, AGENT, seq);
	return true;
}

bool
rpc_step_done(struct kaid *k, const struct rpc_req *req)
{
	struct step_job *sj;
	struct step *s;
	struct kai_step_done d;
	uint32_t step, task;
	struct kai_err err;

	if (req->job_id == 0)
		return refuse(k, req, KAI_EPERM,
		    "step tasks report from inside their job", NULL);
	if (kai_msg_step_done_decode(req->body, req->len, &d, &err) != 0)
		return refuse(k, req, KAI_EPROTO, err.msg, NULL);
	step = d.step;
	task = d.task;
	/* Created (and recovered from job_steps) when a restarted kaid
	 * hears of the job first from a task's end. */
	sj = job_active(k, req->job_id) ? job_find(k, req->job_id, true) :
	    NULL;
	if (sj == NULL || step >= sj->nsteps ||
	    task >= sj->steps[step]->ntasks)
		return refuse(k, req, KAI_ENOENT, "no such step task", NULL);
	s = sj->steps[step];
	if (!s->done[task]) {
		s->done[task] = true;
		s->status[task] = d.status;
		s->left--;
		if (d.max_rss_kb > s->max_rss_kb)
			s->max_rss_kb = d.max_rss_kb;
		s->sum_rss_kb += d.max_rss_kb;
		s->cpu_usec += d.cpu_usec;
		if (d.status != 0 && s->kill_on_bad_exit && !s->killed &&
		    s->left > 0) {
			struct kai_step_event *ev = event_add(sj,
			    KAI_STEP_EV_SIGNAL, step);

			ev->sig = SIGKILL;
			s->killed = true;
		}
		if (s->left == 0) {
			steps_record(k, req->job_id, s, true, kaid_now());
			/* Every pod with a task has it: the rest need
			 * neither the command nor the environment. */
			if (s->run != NULL) {
				kai_codec_strv_free(s->run->env, s->run->nenv);
				s->run->env = NULL;
				s->run->nenv = 0;
			}
			kai_log_info("job %" PRIu64 ": step %" PRIu32 " done",
			    req->job_id, step);
		}
	}
	reply_empty(k, req->conn, KAI_MSG_STEP_DONE_REPLY);
	wake(k, req->job_id);
	return false;
}

bool
rpc_step_end(struct kaid *k, const struct rpc_req *req)
{
	struct step_job *sj;
	int32_t status;
	struct kai_err err;

	if (req->job_id == 0)
		return refuse(k, req, KAI_EPERM,
		    "only a job's own wrapper ends its steps", NULL);
	if (kai_msg_step_end_decode(req->body, req->len, &status, &err) != 0)
		return refuse(k, req, KAI_EPROTO, err.msg, NULL);
	sj = job_find(k, req->job_id, true);
	if (!sj->ended) {
		/* The shell's status: 128 + N for a signal N. */
		uint32_t ws = status > 128 && status < 128 + 64 ?
		    (uint32_t)(status - 128) : ((uint32_t)status & 0xff) << 8;

		sj->ended = true;
		(void)event_add(sj, KAI_STEP_EV_END, 0);
		if (sj->batch)
			steps_record_batch(k, sj, true, ws == 0 ? KAI_JOB_COMPLETED :
			    KAI_JOB_FAILED, ws);
		kai_log_debug("job %" PRIu64 ": batch script ended (%" PRId32
		    ")", req->job_id, status);
	}
	reply_empty(k, req->conn, KAI_MSG_STEP_END_REPLY);
	wake(k, req->job_id);
	return false;
}

/* One job of kcancel --signal: its SIGNAL event(s), or why not. */
static void
signal_job(struct kaid *k, const struct rpc_req *req, uint64_t id,
    uint32_t sig, uint32_t flags, struct kai_cancel_result *r)
{
	const struct kai_job *j = state_job(k, id);
	struct step_job *sj;

	r->id = id;
	r->code = 0;
	r->msg = NULL;
	if (j == NULL || !job_active(k, id)) {
		r->code = KAI_ENOENT;
		r->msg = kai_xstrdup("invalid job id specified or job is not "
		    "running");
		return;
	}
	if (j->uid != req->uid && !rpc_is_operator(k, req->uid)) {
		kai_log_info("audit: uid=%u action=signal job=%" PRIu64
		    " result=permission denied", req->uid, id);
		r->code = KAI_EPERM;
		r->msg = kai_xstrdup("permission denied");
		return;
	}
	sj = job_find(k, id, false);
	if (sj == NULL || !sj->batch || sj->ended) {
		r->code = KAI_EINVAL;
		r->msg = kai_xstrdup("the job has no step agent to deliver "
		    "the signal (its pods lack the in-pod programs, or its "
		    "script has ended)");
		return;
	}
	if (flags & (KAI_STEP_SIG_BATCH | KAI_STEP_SIG_FULL))
		event_add(sj, KAI_STEP_EV_SIGNAL, KAI_STEP_BATCH)->sig = sig;
	if (!(flags & KAI_STEP_SIG_BATCH))
		event_add(sj, KAI_STEP_EV_SIGNAL, AGENT)->sig = sig;
	kai_log_info("audit: uid=%u action=signal job=%" PRIu64 " signal=%u "
	    "flags=%#x", req->uid, id, (unsigned)sig, (unsigned)flags);
	r->msg = kai_xstrdup("");
}

bool
rpc_step_signal(struct kaid *k, const struct rpc_req *req)
{
	struct kai_cancel_result *res;
	uint64_t *ids = NULL;
	uint32_t sig, flags;
	size_t n = 0, i;
	struct kai_buf b;
	struct kai_err err;

	if (kai_msg_step_signal_decode(req->body, req->len, &ids, &n, &sig,
	    &flags, &err) != 0)
		return refuse(k, req, KAI_EPROTO, err.msg, NULL);
	res = kai_xcalloc(n > 0 ? n : 1, sizeof(*res));
	for (i = 0; i < n; i++) {
		signal_job(k, req, ids[i], sig, flags, &res[i]);
		if (res[i].code == 0)
			wake(k, ids[i]);
	}
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_reply_encode(&b, res, n) == 0)
		server_reply(k, req->conn, KAI_MSG_STEP_SIGNAL_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the results", NULL);
	kai_buf_fini(&b);
	kai_cancel_results_free(res, n);
	free(ids);
	return false;
}

void
steps_forget_conn(struct kaid *k, struct conn *conn)
{
	struct step_wait *w;

	if (k->steps == NULL)
		return;
	for (w = k->steps->waits; w != NULL; w = w->next)
		if (w->conn == conn)
			w->conn = NULL;
}

void
steps_free(struct kaid *k)
{
	struct step_job *sj;
	struct step_wait *w;

	if (k->steps == NULL)
		return;
	if (k->steps->timer != 0)
		kai_loop_timer_del(k->loop, k->steps->timer);
	while ((sj = k->steps->jobs) != NULL) {
		k->steps->jobs = sj->next;
		job_free(sj);
	}
	while ((w = k->steps->waits) != NULL) {
		k->steps->waits = w->next;
		free(w);
	}
	KAI_FREE(k->steps);
}
