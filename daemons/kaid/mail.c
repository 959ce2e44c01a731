/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mail.c: job mail, as slurmctld sends it.  See mail.h.
 *
 * When: BEGIN as the job runs (an array's first task only, unless
 * ARRAY_TASKS); at the end FAIL for a state Slurm counts as failed
 * (FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY) when FAIL was
 * asked, else END for any end when END was asked (a CANCELLED job's
 * mail says "Ended", as Slurm's does); REQUEUE as it goes back to
 * PENDING; an array without ARRAY_TASKS gets one summary when its last
 * task ends (FAIL when a task exited non-zero, else END, and REQUEUE
 * when a task was requeued); TIME_LIMIT_50/80/90 and TIME_LIMIT as the
 * run reaches that share of its limit.
 *
 * Never twice: the notices that follow a state change go once because
 * the change happens once (the cache moves once, and the database
 * records it once); the others are claimed in the database first
 * (src/db/db_mail.c, jobs.mail_sent), so that neither a restart nor a
 * new leader sends them again.  A kaid that dies between the change and
 * the program loses that notice: at most once.
 *
 * How: kaid.yaml's mail_prog runs as "PROG -s SUBJECT ADDRESS" through
 * posix_spawn, never a shell, as kaid's own user, with Slurm's variables
 * as its whole environment (and a PATH) and /dev/null as stdin, stdout
 * and stderr.  At most MAIL_RUNNING_MAX run at once and MAIL_QUEUE_MAX
 * wait; a timer reaps them (waitpid, WNOHANG) and kills one still
 * running after MAIL_TIMEOUT_S, its whole process group.  A mail_prog
 * that is not an executable file is logged once (again after a reload
 * that names another) and nothing is sent.
 */
#include "config.h"

#include "mail.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "model/hostlist.h"
#include "model/mail.h"
#include "sys/log.h"

#define MAIL_RUNNING_MAX 8    /* programs at once */
#define MAIL_QUEUE_MAX   4096 /* notices waiting for one */
#define MAIL_TIMEOUT_S   120  /* Slurm's MAIL_PROG_TIMEOUT */
#define MAIL_REAP_MS     200  /* how often running programs are reaped */

struct mail_msg {
	char *subject;
	char *addr;
	char **env;
	size_t nenv;
	uint64_t job;
};

struct mail_run {
	pid_t pid;
	int64_t started; /* unix s */
	uint64_t job;
	bool killed;
};

struct mailer {
	struct mail_msg **q; /* waiting, oldest first */
	size_t nq;
	struct mail_run run[MAIL_RUNNING_MAX];
	size_t nrun;
	uint64_t timer; /* the reaper; 0 = none */
	char *warned;   /* the mail_prog last found missing */
	size_t dropped; /* notices dropped since the last log */
};

static struct mailer *
mailer(struct kaid *k)
{
	if (k->mailer == NULL)
		k->mailer = kai_xcalloc(1, sizeof(*k->mailer));
	return k->mailer;
}

static void
msg_free(struct mail_msg *m)
{
	if (m == NULL)
		return;
	free(m->subject);
	free(m->addr);
	kai_mail_env_free(m->env, m->nenv);
	free(m);
}

void
mail_submit_defaults(struct kai_jobspec *js, const char *user)
{
	char buf[KAI_MAIL_TYPE_TEXT_MAX];
	uint32_t mask = kai_mail_type_mask(js->mail_type);

	/* The stored text is the canonical one, whatever a client sent. */
	free(js->mail_type);
	js->mail_type = kai_xstrdup(kai_mail_type_format(mask, buf,
	    sizeof(buf)));
	if (js->mail_user == NULL)
		js->mail_user = kai_xstrdup(user);
}

/* Whether the program may be run; logs once per path when not. */
static bool
prog_ok(struct kaid *k)
{
	struct mailer *m = mailer(k);
	const char *prog = k->conf->mail_prog;

	if (prog != NULL && access(prog, X_OK) == 0) {
		KAI_FREE(m->warned);
		return true;
	}
	if (m->warned == NULL ||
	    strcmp(m->warned, prog != NULL ? prog : "") != 0) {
		kai_log_warn("mail_prog \"%s\" is not an executable file: no "
			     "job mail is sent",
		    prog != NULL ? prog : "");
		free(m->warned);
		m->warned = kai_xstrdup(prog != NULL ? prog : "");
	}
	return false;
}

static void mail_reap(struct kai_loop *loop, uint64_t id, void *ctx);

static void
arm(struct kaid *k)
{
	struct mailer *m = k->mailer;

	if (m->timer == 0 && m->nrun > 0)
		m->timer =
		    kai_loop_timer_add(k->loop, MAIL_REAP_MS, mail_reap, k);
}

/* Runs msg; false when it could not be started (logged). */
static bool
spawn(struct kaid *k, struct mail_msg *msg)
{
	struct mailer *m = k->mailer;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	char *argv[5];
	pid_t pid;
	int r;

	argv[0] = k->conf->mail_prog;
	argv[1] = (char *)"-s";
	argv[2] = msg->subject;
	argv[3] = msg->addr;
	argv[4] = NULL;
	posix_spawn_file_actions_init(&fa);
	(void)posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0);
	(void)posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
	    0);
	(void)posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawnattr_init(&attr);
	/* kaid blocks the signals its loop reads: the program must not
	 * inherit that, and gets a group of its own to be killed with. */
	sigemptyset(&none);
	sigfillset(&all);
	(void)posix_spawnattr_setsigmask(&attr, &none);
	(void)posix_spawnattr_setsigdefault(&attr, &all);
	(void)posix_spawnattr_setpgroup(&attr, 0);
	(void)posix_spawnattr_setflags(&attr,
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
		POSIX_SPAWN_SETPGROUP);
	r = posix_spawn(&pid, argv[0], &fa, &attr, argv, msg->env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		kai_log_warn("job %" PRIu64 ": could not run mail_prog \"%s\": "
			     "%s",
		    msg->job, argv[0], strerror(r));
		return false;
	}
	kai_log_debug("job %" PRIu64 ": mail to %s: %s", msg->job, msg->addr,
	    msg->subject);
	m->run[m->nrun].pid = pid;
	m->run[m->nrun].started = kaid_now();
	m->run[m->nrun].job = msg->job;
	m->run[m->nrun].killed = false;
	m->nrun++;
	return true;
}

/* Starts waiting notices while there is room. */
static void
pump(struct kaid *k)
{
	struct mailer *m = k->mailer;
	size_t done = 0;

	while (done < m->nq && m->nrun < MAIL_RUNNING_MAX) {
		(void)spawn(k, m->q[done]);
		msg_free(m->q[done]);
		done++;
	}
	if (done > 0) {
		memmove(m->q, m->q + done, (m->nq - done) * sizeof(*m->q));
		m->nq -= done;
	}
	arm(k);
}

static void
reaped(struct kaid *k, size_t i, int status)
{
	struct mailer *m = k->mailer;
	struct mail_run *r = &m->run[i];

	if (r->killed)
		kai_log_warn("job %" PRIu64 ": mail_prog killed after %d s",
		    r->job, MAIL_TIMEOUT_S);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		kai_log_warn("job %" PRIu64 ": mail_prog exited %d", r->job,
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		kai_log_warn("job %" PRIu64 ": mail_prog killed by signal %d",
		    r->job, WTERMSIG(status));
	m->run[i] = m->run[--m->nrun];
}

static void
mail_reap(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;
	struct mailer *m = k->mailer;
	int64_t now = kaid_now();
	size_t i = 0;

	(void)loop;
	(void)id;
	m->timer = 0;
	while (i < m->nrun) {
		int status = 0;
		pid_t p = waitpid(m->run[i].pid, &status, WNOHANG);

		if (p == m->run[i].pid || (p < 0 && errno == ECHILD)) {
			reaped(k, i, status);
			continue; /* i now holds the last one */
		}
		if (!m->run[i].killed &&
		    now - m->run[i].started >= MAIL_TIMEOUT_S) {
			(void)kill(-m->run[i].pid, SIGKILL);
			m->run[i].killed = true;
		}
		i++;
	}
	pump(k);
}

static void
enqueue(struct kaid *k, struct mail_msg *msg)
{
	struct mailer *m = mailer(k);

	if (m->nq >= MAIL_QUEUE_MAX) {
		if (m->dropped++ % 1000 == 0)
			kai_log_warn("job %" PRIu64 ": %zu notices wait for "
				     "mail_prog: this one is dropped",
			    msg->job, m->nq);
		msg_free(msg);
		return;
	}
	m->q = kai_xreallocarray(m->q, m->nq + 1, sizeof(*m->q));
	m->q[m->nq++] = msg;
	pump(k);
}

/* Where j's mail goes: its --mail-user (or user), and mail_domain. */
static char *
address(const struct kaid *k, const struct kai_job *j)
{
	const char *u = j->mail_user != NULL && j->mail_user[0] != '\0'
	    ? j->mail_user
	    : j->user;

	if (strchr(u, '@') == NULL && k->conf->mail_domain != NULL)
		return kai_xasprintf("%s@%s", u, k->conf->mail_domain);
	return kai_xstrdup(u);
}

/* The notice's view of j. */
static void
describe(const struct kaid *k, const struct kai_job *j, struct kai_mail_job *mj,
    const char **names)
{
	size_t t;

	memset(mj, 0, sizeof(*mj));
	mj->id = j->id;
	mj->name = j->name;
	mj->user = j->user;
	mj->uid = j->uid;
	mj->gid = j->gid;
	mj->queue = j->queue;
	mj->account = j->account;
	mj->qos = j->qos;
	mj->state = j->state;
	mj->array_job_id = j->array_job_id;
	mj->array_task_id = j->array_task_id;
	mj->submit_time = j->submit_time;
	mj->start_time = j->start_time;
	mj->restart_count = j->requeue_count;
	mj->cluster = k->conf->cluster_name;
	for (t = 0; t < j->nallocs && names != NULL; t++)
		names[t] = j->allocs[t].node;
}

/* Words and queues notice event about mj. */
static void
send_notice(struct kaid *k, const struct kai_job *j,
    const struct kai_mail_job *mj, uint32_t event, int64_t now)
{
	struct mail_msg *msg;

	if (!prog_ok(k))
		return;
	msg = kai_xcalloc(1, sizeof(*msg));
	msg->job = j->id;
	msg->addr = address(k, j);
	kai_mail_build(mj, event, now, &msg->subject, &msg->env, &msg->nenv);
	msg->env =
	    kai_xreallocarray(msg->env, msg->nenv + 2, sizeof(*msg->env));
	msg->env[msg->nenv++] =
	    kai_xstrdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	msg->env[msg->nenv] = NULL;
	kai_log_info("job %" PRIu64 ": mail to %s: %s", j->id, msg->addr,
	    msg->subject);
	enqueue(k, msg);
}

/* The notice of event about j as it is now, with its node list. */
static void
notice(struct kaid *k, const struct kai_job *j, struct kai_mail_job *mj,
    uint32_t event, int64_t now)
{
	const char **names =
	    j->nallocs > 0 ? kai_xcalloc(j->nallocs, sizeof(*names)) : NULL;
	char *nodes = NULL;
	struct kai_mail_job base;

	describe(k, j, &base, names);
	if (mj == NULL)
		mj = &base;
	if (names != NULL)
		nodes = kai_hostlist_compress(names, j->nallocs);
	mj->nodelist = nodes;
	send_notice(k, j, mj, event, now);
	free(nodes);
	free(names);
}

/*
 * Claims notice bit of job id in the database; false: sent already, or
 * the database cannot say (then nothing is sent: never twice).  The
 * cached job, if any, remembers the bit, so the database is asked once
 * (a task split off an array later copies it with the row).
 */
static bool
claim(struct kaid *k, uint64_t id, uint32_t bit)
{
	struct kai_job *c = state_job(k, id);
	struct kai_err err;
	bool claimed = false;

	if (c != NULL && (c->mail_sent & bit) != 0)
		return false;
	if (c != NULL)
		c->mail_sent |= bit;
	if (kai_db_mail_claim(k->db, id, bit, &claimed, &err) != 0) {
		kai_log_warn("job %" PRIu64 ": %s: its mail is not sent", id,
		    err.msg);
		return false;
	}
	return claimed;
}

static bool
per_task(const struct kai_job *j)
{
	return j->array_job_id == 0 || (j->mail_mask & KAI_MAIL_ARRAY_TASKS);
}

void
mail_started(struct kaid *k, const struct kai_job *j, int64_t now)
{
	struct kai_mail_job mj;

	if ((j->mail_mask & KAI_MAIL_BEGIN) == 0)
		return;
	if (per_task(j)) {
		notice(k, j, NULL, KAI_MAIL_BEGIN, now);
		return;
	}
	/* The array's first task to run, whoever leads: the array's own
	 * row keeps the mark. */
	if (!claim(k, j->array_job_id, KAI_MAIL_BEGIN))
		return;
	describe(k, j, &mj, NULL);
	mj.id = j->array_job_id;
	mj.summary = true;
	notice(k, j, &mj, KAI_MAIL_BEGIN, now);
}

void
mail_invalid_depend(struct kaid *k, const struct kai_job *j, int64_t now)
{
	struct kai_mail_job mj;

	if ((j->mail_mask & KAI_MAIL_INVALID_DEPEND) == 0 ||
	    (j->mail_sent & KAI_MAIL_INVALID_DEPEND) != 0 ||
	    !claim(k, j->id, KAI_MAIL_INVALID_DEPEND))
		return;
	describe(k, j, &mj, NULL);
	/* A pending array's row is the array. */
	mj.summary = !per_task(j);
	notice(k, j, &mj, KAI_MAIL_INVALID_DEPEND, now);
}

/* Slurm's failed states: FAIL mail rather than END. */
static bool
failed_state(enum kai_job_state s)
{
	return s == KAI_JOB_FAILED || s == KAI_JOB_TIMEOUT ||
	    s == KAI_JOB_NODE_FAIL || s == KAI_JOB_PREEMPTED ||
	    s == KAI_JOB_OUT_OF_MEMORY;
}

/* The last task of an array without ARRAY_TASKS ended: its summary. */
static void
array_ended(struct kaid *k, const struct kai_job *j, struct kai_mail_job *mj,
    int64_t now)
{
	const struct kai_job *row = state_job(k, j->array_job_id);
	struct kai_db_mail_array a;
	struct kai_err err;

	/* The array's own row is its unsplit tasks, then its last one: while
	 * another task holds it the array goes on, and the database is not
	 * asked (a 10,000-task array would otherwise cost 10,000 reads of
	 * all its rows). */
	if (row != NULL && row != j)
		return;
	if (kai_db_mail_array(k->db, j->array_job_id, &a, &err) != 0) {
		kai_log_warn("job %" PRIu64 ": %s: its mail is not sent", j->id,
		    err.msg);
		return;
	}
	if (a.active > 0 || !claim(k, j->array_job_id, KAI_MAIL_END))
		return;
	mj->id = j->array_job_id;
	mj->summary = true;
	mj->exit_min = a.exit_min;
	mj->exit_code = a.exit_max;
	mj->exit_signal = a.signal_max;
	mj->with_requeued = a.requeued;
	if (a.requeued && (j->mail_mask & KAI_MAIL_REQUEUE))
		notice(k, j, mj, KAI_MAIL_REQUEUE, now);
	if (a.exit_max != 0 && (j->mail_mask & KAI_MAIL_FAIL))
		notice(k, j, mj, KAI_MAIL_FAIL, now);
	else if (j->mail_mask & KAI_MAIL_END)
		notice(k, j, mj, KAI_MAIL_END, now);
}

void
mail_ended(struct kaid *k, const struct kai_job *j, enum kai_job_state to,
    int32_t exit_code, int32_t exit_signal, int64_t end_time)
{
	struct kai_mail_job mj;

	if ((j->mail_mask &
		(KAI_MAIL_END | KAI_MAIL_FAIL | KAI_MAIL_REQUEUE)) == 0)
		return;
	describe(k, j, &mj, NULL);
	mj.state = to;
	mj.exit_code = exit_code;
	mj.exit_signal = exit_signal;
	mj.end_time = end_time;
	if (mj.start_time == 0 && j->state != KAI_JOB_PENDING)
		mj.start_time = end_time;
	if (!per_task(j)) {
		array_ended(k, j, &mj, end_time);
		return;
	}
	if ((j->mail_mask & KAI_MAIL_FAIL) && failed_state(to))
		notice(k, j, &mj, KAI_MAIL_FAIL, end_time);
	else if (j->mail_mask & KAI_MAIL_END)
		notice(k, j, &mj, KAI_MAIL_END, end_time);
}

void
mail_requeued(struct kaid *k, const struct kai_job *j, int64_t now)
{
	struct kai_mail_job mj;

	/* An array's requeued tasks are told in its summary. */
	if ((j->mail_mask & KAI_MAIL_REQUEUE) == 0 || !per_task(j))
		return;
	describe(k, j, &mj, NULL);
	mj.state = KAI_JOB_PENDING;
	mj.end_time = now;
	notice(k, j, &mj, KAI_MAIL_REQUEUE, now);
}

/* The time-limit notices, the latest first as slurmctld checks them. */
static const struct {
	uint32_t bit;
	int pct;
} limits[] = {
    {KAI_MAIL_TIME100, 100},
    {KAI_MAIL_TIME90, 90},
    {KAI_MAIL_TIME80, 80},
    {KAI_MAIL_TIME50, 50},
};

void
mail_tick(struct kaid *k, int64_t now)
{
	size_t i, l;

	for (i = 0; i < state_njobs(k); i++) {
		struct kai_job *j = state_job_at(k, i);
		int64_t ran;

		if ((j->mail_mask & KAI_MAIL_TIMES & ~j->mail_sent) == 0 ||
		    j->state != KAI_JOB_RUNNING || j->start_time <= 0 ||
		    j->time_limit_s <= 0)
			continue;
		ran = now - j->start_time;
		for (l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
			uint32_t bit = limits[l].bit;

			if ((j->mail_mask & bit) == 0 ||
			    (j->mail_sent & bit) != 0 ||
			    ran * 100 < j->time_limit_s * limits[l].pct)
				continue;
			if (claim(k, j->id, bit))
				notice(k, j, NULL, bit, now);
		}
	}
}

void
mail_free(struct kaid *k)
{
	struct mailer *m = k->mailer;
	size_t i;

	if (m == NULL)
		return;
	if (m->timer != 0)
		kai_loop_timer_del(k->loop, m->timer);
	for (i = 0; i < m->nq; i++)
		msg_free(m->q[i]);
	free(m->q);
	free(m->warned);
	free(m);
	k->mailer = NULL;
}
