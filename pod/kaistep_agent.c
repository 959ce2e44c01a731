/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep_agent.c: the step agent of a job pod (kaistep step-agent), and
 * the end of the batch script (kaistep step-end STATUS).
 *
 * Every pod of a job that has kaistep runs one agent (pod/wrapper.sh:
 * beside the batch script in task 0's pod, instead of it in the others).
 * It long-polls kaid (KAI_MSG_STEP_AGENT, daemons/kaid/steps.c) for the
 * job's step events after the last it saw, so that a new step reaches
 * it as soon as srun asked for it:
 *   RUN	the step's tasks whose pod is this one are started by a runner
 *		process of their own (below), which reports each task's
 *		status (KAI_MSG_STEP_DONE) when it ends, and keeps the
 *		report in the pod (kaid_away.c): an agent that lost
 *		kaid for a while sends them again;
 *   SIGNAL	the signal goes to the step's tasks here (through the
 *		runner's pipe: the runner knows its tasks' pids), to every
 *		step's (kcancel --signal), or to the batch shell (-b, in
 *		task 0's pod: the wrapper wrote its pid for the agent);
 *   END	the batch script ended: the tasks still running get
 *		SIGKILL, as slurmstepd ends a job's steps, and the agent
 *		exits 0, so that the pod ends.
 *
 * The tasks stay in the pod's process group, so the wrapper's SIGTERM
 * at a cancel or the time limit (signal.sh's kai_end) reaches them as
 * it reaches the batch script.  A runner outlives that SIGTERM (its
 * handler does nothing; exec resets it in the tasks) to report how its
 * tasks ended.
 *
 * The environment of a task is srun's (what the script exported), but
 * for what belongs to the pod (KAI_*, HOSTNAME, SLURMD_NODENAME: this
 * pod's) and Slurm's per-task variables.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "client.h"
#include "kaistep.h"
#include "proto/proto_step.h"
#include "kaid_away.h"

static const char *const prog = "kaistep";

extern char **environ;

#define LINE_MAX_B 65536 /* a labelled line longer than this is cut */

struct runner {
	pid_t pid;
	uint32_t step;
	int sigfd;		/* write end: signal numbers for the tasks */
};

struct agent {
	uint32_t pod;
	uint64_t seq;
	struct runner *runners;
	size_t nrunners;
	bool end;
};

/* --- one task's environment --- */

static bool
pod_local(const char *kv)
{
	return strncmp(kv, "KAI_", 4) == 0 ||
	    strncmp(kv, "HOSTNAME=", 9) == 0 ||
	    strncmp(kv, "SLURMD_NODENAME=", 16) == 0;
}

static bool
per_task(const char *kv)
{
	static const char *const names[] = {"SLURM_PROCID=", "SLURM_LOCALID=",
	    "SLURM_NODEID=", "SLURM_STEP_ID=", "SLURM_STEPID=",
	    "SLURM_STEP_NUM_TASKS=", "SLURM_STEP_NUM_NODES=", "RANK=",
	    "LOCAL_RANK=", "PATH="};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(kv, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* The value of name in env (n entries), or NULL. */
static const char *
lookup(char **env, size_t n, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < n; i++)
		if (strncmp(env[i], name, l) == 0 && env[i][l] == '=')
			return env[i] + l + 1;
	return NULL;
}

/*
 * PATH: srun's, with srun's pod's private bin directory (KAI_BIN, where
 * the wrapper put kaistep's names) replaced by this pod's.
 */
static char *
task_path(const struct kai_step_event *ev)
{
	const char *p = lookup(ev->env, ev->nenv, "PATH"),
		   *theirs = lookup(ev->env, ev->nenv, "KAI_BIN"),
		   *mine = getenv("KAI_BIN");
	size_t cap, o = 5, l;
	const char *s, *e;
	char *out;

	if (p == NULL)
		p = getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin";
	/* Each word grows by mine at most; at most strlen(p) + 1 words. */
	cap = 6 + strlen(p) + (strlen(p) + 1) * (mine != NULL ? strlen(mine) :
	    0);
	out = kai_xmalloc(cap);
	memcpy(out, "PATH=", 5);
	for (s = p;; s = e + 1) {
		e = strchr(s, ':');
		if (e == NULL)
			e = s + strlen(s);
		if (s != p)
			out[o++] = ':';
		l = (size_t)(e - s);
		if (theirs != NULL && mine != NULL && l == strlen(theirs) &&
		    strncmp(s, theirs, l) == 0) {
			memcpy(out + o, mine, strlen(mine));
			o += strlen(mine);
		} else {
			memcpy(out + o, s, l);
			o += l;
		}
		if (*e == '\0')
			break;
	}
	out[o] = '\0';
	return out;
}

static char **
task_env(const struct kai_step_event *ev, uint32_t t, uint32_t nnodes)
{
	size_t n = 0, i, cap = ev->nenv + 64;
	char **env;

	for (i = 0; environ[i] != NULL; i++)
		cap++;
	env = kai_xcalloc(cap + 1, sizeof(*env));
	for (i = 0; i < ev->nenv; i++)
		if (!pod_local(ev->env[i]) && !per_task(ev->env[i]))
			env[n++] = ev->env[i];
	for (i = 0; environ[i] != NULL; i++)
		if (pod_local(environ[i]))
			env[n++] = environ[i];
	env[n++] = task_path(ev);
	env[n++] = kai_xasprintf("SLURM_PROCID=%u", t);
	env[n++] = kai_xasprintf("RANK=%u", t);
	env[n++] = kai_xasprintf("SLURM_LOCALID=%u", ev->local[t]);
	env[n++] = kai_xasprintf("LOCAL_RANK=%u", ev->local[t]);
	env[n++] = kai_xasprintf("SLURM_NODEID=%u", ev->node[t]);
	env[n++] = kai_xasprintf("SLURM_STEP_ID=%u", ev->step);
	env[n++] = kai_xasprintf("SLURM_STEPID=%u", ev->step);
	env[n++] = kai_xasprintf("SLURM_STEP_NUM_TASKS=%zu", ev->ntasks);
	env[n++] = kai_xasprintf("SLURM_STEP_NUM_NODES=%u", nnodes);
	env[n] = NULL;
	return env;
}

/* --- the runner: one step's tasks in this pod --- */

struct task {
	uint32_t id;		/* SLURM_PROCID */
	pid_t pid;		/* 0 once reaped */
	int status;
	struct rusage ru;	/* its own and its waited-for descendants' */
	int out, err;		/* the read ends of its pipes (-l), or -1 */
	struct kai_buf line[2]; /* a partial line of each */
};

static void
nothing(int sig)
{
	(void)sig;
}

/* The runner's self-pipe: SIGCHLD wakes its poll() at a task's end. */
static int chld_fd[2] = {-1, -1};

static void
on_chld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_fd[1], "", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	errno = e;
}

static int
open_out(const char *path, const char *fallback)
{
	const char *p = path != NULL ? path : fallback;
	int fd;

	if (p == NULL)
		return dup(path == NULL ? 1 : 2);
	fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd == -1)
		(void)fprintf(stderr, "slurmstepd: error: could not open "
		    "\"%s\": %s\n", p, strerror(errno));
	return fd;
}

/*
 * Writes the whole lines of buf to fd as "N: line", each line in one
 * write(2): the tasks of every pod append to one file, and O_APPEND
 * keeps a single write whole, not a label apart from its line.
 */
static void
label_lines(struct kai_buf *buf, uint32_t id, int fd, bool flush)
{
	char *s = buf->data, *nl, *line;
	size_t off = 0;

	line = kai_xmalloc(LINE_MAX_B + 32);
	while (off < buf->len) {
		size_t avail = buf->len - off, take, hn, n;

		nl = memchr(s + off, '\n', avail);
		if (nl != NULL)
			take = (size_t)(nl - (s + off)) + 1;
		else if (flush || avail >= LINE_MAX_B)
			take = avail;
		else
			break;
		if (take > LINE_MAX_B)
			take = LINE_MAX_B;
		hn = (size_t)snprintf(line, 16, "%u: ", id);
		memcpy(line + hn, s + off, take);
		n = hn + take;
		if (line[n - 1] != '\n')
			line[n++] = '\n';
		if (write(fd, line, n) < 0)
			break;
		off += take;
	}
	free(line);
	memmove(s, s + off, buf->len - off);
	buf->len -= off;
	buf->data[buf->len] = '\0';
}

static void
spawn(const struct kai_step_event *ev, struct task *tk, uint32_t nnodes,
    int ofd, int efd, bool label)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	char **env = task_env(ev, tk->id, nnodes);
	/* execvp() wants argv NULL-terminated; the wire's has its count. */
	char **argv = kai_xcalloc(ev->argc + 1, sizeof(*argv));

	memcpy(argv, ev->argv, ev->argc * sizeof(*argv));

	tk->out = tk->err = -1;
	if (label && (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)) {
		(void)fprintf(stderr, "slurmstepd: error: pipe: %s\n",
		    strerror(errno));
		tk->pid = 0;
		tk->status = 1 << 8;
		return;
	}
	tk->pid = fork();
	if (tk->pid == 0) {
		(void)signal(SIGINT, SIG_DFL);
		(void)signal(SIGQUIT, SIG_DFL);
		(void)dup2(label ? po[1] : ofd, 1);
		(void)dup2(label ? pe[1] : efd, 2);
		if (ev->cwd != NULL && chdir(ev->cwd) != 0)
			(void)fprintf(stderr, "slurmstepd: error: couldn't "
			    "chdir to `%s': %s: going to /tmp instead\n",
			    ev->cwd, strerror(errno));
		environ = env;
		(void)execvp(argv[0], argv);
		(void)fprintf(stderr, "slurmstepd: error: execve(): %s: %s\n",
		    ev->argv[0], strerror(errno));
		_exit(errno == ENOENT ? 2 : 126);
	}
	if (tk->pid < 0) {
		tk->pid = 0;
		tk->status = 1 << 8;
	}
	if (label) {
		(void)close(po[1]);
		(void)close(pe[1]);
		(void)fcntl(po[0], F_SETFL, O_NONBLOCK);
		(void)fcntl(pe[0], F_SETFL, O_NONBLOCK);
		tk->out = po[0];
		tk->err = pe[0];
	}
	/* env is left to the runner's exit: it borrows from ev and
	 * environ, and the runner lives as long as the step. */
	free(argv);
}

/* The answers to DONE and END are empty. */
static int
on_empty(uint16_t type, const void *body, size_t len, void *ctx)
{
	(void)type;
	(void)body;
	(void)len;
	(void)ctx;
	return CLIENT_EXIT_OK;
}

/*
 * A task's end to kaid: its status, and its usage as wait4(2) gave it
 * (ru_maxrss is the peak resident set of the task or of the largest
 * descendant it waited for, in KiB; the CPU times include those
 * descendants), which kacct shows as MaxRSS, AveRSS and TotalCPU.
 */
static void
report(uint32_t step, const struct task *tk)
{
	struct kai_step_done d;
	struct kai_buf b;

	d.step = step;
	d.task = tk->id;
	d.status = (uint32_t)tk->status;
	d.max_rss_kb = tk->ru.ru_maxrss > 0 ? (uint64_t)tk->ru.ru_maxrss : 0;
	d.cpu_usec = (uint64_t)tk->ru.ru_utime.tv_sec * 1000000 +
	    (uint64_t)tk->ru.ru_utime.tv_usec +
	    (uint64_t)tk->ru.ru_stime.tv_sec * 1000000 +
	    (uint64_t)tk->ru.ru_stime.tv_usec;
	kai_buf_init(&b, 64);
	if (kai_msg_step_done_encode(&b, &d) == 0) {
		(void)kaid_away_request(prog, KAI_MSG_STEP_DONE, b.data,
		    b.len, on_empty, NULL);
		kaid_away_keep(b.data, b.len);
	}
	kai_buf_fini(&b);
}

/* The runner: starts this pod's tasks of ev and waits for them. */
static void
run_step(const struct kai_step_event *ev, uint32_t pod, int sigfd)
{
	struct task *tk = kai_xcalloc(ev->ntasks, sizeof(*tk));
	struct pollfd *pfd = kai_xcalloc(2 * ev->ntasks + 2, sizeof(*pfd));
	size_t n = 0, i, live;
	uint32_t nnodes = 0, t;
	int ofd, efd, sig;
	struct sigaction sa;

	/* The runner outlives what its tasks get (the pod's TERM, a
	 * --signal timer's signal to every process of the pod) to report
	 * them; exec resets the handlers in the tasks. */
	static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
	    SIGUSR2, SIGALRM, SIGURG, SIGXCPU, SIGVTALRM, SIGPROF};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	for (t = 0; t < sizeof(sigs) / sizeof(sigs[0]); t++)
		(void)sigaction(sigs[t], &sa, NULL);
	if (pipe2(chld_fd, O_CLOEXEC | O_NONBLOCK) == 0) {
		sa.sa_handler = on_chld;
		sa.sa_flags = SA_NOCLDSTOP;
		(void)sigaction(SIGCHLD, &sa, NULL);
	}
	for (t = 0; t < ev->ntasks; t++)
		if (ev->node[t] + 1 > nnodes)
			nnodes = ev->node[t] + 1;
	ofd = open_out(ev->out, getenv("KAI_STDOUT"));
	efd = ev->err != NULL || getenv("KAI_STDERR") == NULL ||
	    (ev->out == NULL && getenv("KAI_STDOUT") != NULL &&
		strcmp(getenv("KAI_STDERR"), getenv("KAI_STDOUT")) == 0) ?
	    (ev->err != NULL ? open_out(ev->err, NULL) : dup(ofd)) :
	    open_out(NULL, getenv("KAI_STDERR"));
	for (t = 0; t < ev->ntasks; t++) {
		if (ev->pod[t] != pod)
			continue;
		tk[n].id = t;
		kai_buf_init(&tk[n].line[0], LINE_MAX_B * 2);
		kai_buf_init(&tk[n].line[1], LINE_MAX_B * 2);
		if (ofd < 0 || efd < 0) {
			tk[n].status = 1 << 8;
			tk[n].out = tk[n].err = -1;
		} else {
			spawn(ev, &tk[n], nnodes, ofd, efd, ev->label);
		}
		n++;
	}
	/* Until every task is reaped and its pipes are drained. */
	for (;;) {
		size_t np = 0;

		live = 0;
		for (i = 0; i < n; i++) {
			if (tk[i].pid > 0) {
				int st;
				pid_t p = wait4(tk[i].pid, &st, WNOHANG,
				    &tk[i].ru);

				if (p == tk[i].pid) {
					tk[i].pid = 0;
					tk[i].status = st;
				} else {
					live++;
				}
			}
			if (tk[i].out >= 0) {
				pfd[np].fd = tk[i].out;
				pfd[np++].events = POLLIN;
			}
			if (tk[i].err >= 0) {
				pfd[np].fd = tk[i].err;
				pfd[np++].events = POLLIN;
			}
		}
		if (live == 0 && np == 0)
			break;
		pfd[np].fd = chld_fd[0];
		pfd[np++].events = POLLIN;
		pfd[np].fd = sigfd;
		pfd[np++].events = POLLIN;
		/* A task's end writes to chld_fd (on_chld()); the timeout is
		 * for a pipe that could not be made. */
		if (poll(pfd, np, chld_fd[0] >= 0 ? 1000 : 50) < 0 &&
		    errno != EINTR)
			break;
		if (pfd[np - 2].revents & POLLIN) {
			char drain[64];

			while (read(chld_fd[0], drain, sizeof(drain)) > 0)
				;
		}
		if (pfd[np - 1].revents & POLLIN) {
			if (read(sigfd, &sig, sizeof(sig)) == (ssize_t)sizeof(sig))
				for (i = 0; i < n; i++)
					if (tk[i].pid > 0)
						(void)kill(tk[i].pid, sig);
		} else if (pfd[np - 1].revents & (POLLHUP | POLLERR)) {
			sigfd = -1; /* the agent is gone; poll skips -1 */
		}
		for (i = 0; i < n; i++) {
			int *fds[2] = {&tk[i].out, &tk[i].err};
			int s;

			for (s = 0; s < 2; s++) {
				char buf[8192];
				ssize_t r;

				if (*fds[s] < 0)
					continue;
				r = read(*fds[s], buf, sizeof(buf));
				if (r > 0) {
					/* Full (a line past LINE_MAX_B is
					 * cut there): written out first. */
					if (kai_buf_add(&tk[i].line[s], buf,
					    (size_t)r) != 0) {
						label_lines(&tk[i].line[s],
						    tk[i].id, s == 0 ? ofd :
						    efd, true);
						if (kai_buf_add(&tk[i].line[s],
						    buf, (size_t)r) != 0)
							continue;
					}
					label_lines(&tk[i].line[s], tk[i].id,
					    s == 0 ? ofd : efd, false);
				} else if (r == 0 || errno != EAGAIN) {
					label_lines(&tk[i].line[s], tk[i].id,
					    s == 0 ? ofd : efd, true);
					(void)close(*fds[s]);
					*fds[s] = -1;
				}
			}
		}
	}
	for (i = 0; i < n; i++) {
		report(ev->step, &tk[i]);
		kai_buf_fini(&tk[i].line[0]);
		kai_buf_fini(&tk[i].line[1]);
	}
	free(tk);
	free(pfd);
}

/* --- the agent --- */

static void
signal_runners(struct agent *a, uint32_t step, bool all, int sig)
{
	size_t i;

	for (i = 0; i < a->nrunners; i++)
		if ((all || a->runners[i].step == step) &&
		    a->runners[i].sigfd >= 0 &&
		    write(a->runners[i].sigfd, &sig, sizeof(sig)) < 0)
			(void)close(a->runners[i].sigfd), a->runners[i].sigfd = -1;
}

/*
 * kcancel --signal -b/--full: the batch shell, whose pid the wrapper of
 * task 0's pod wrote to KAI_BATCH_PID_FILE (none in the other pods).
 */
static void
signal_batch(int sig)
{
	const char *f = getenv("KAI_BATCH_PID_FILE");
	char text[32];
	uint64_t pid;
	ssize_t n;
	int fd;

	if (f == NULL || (fd = open(f, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, text, sizeof(text) - 1);
	(void)close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (kai_strtou64(text, INT32_MAX, &pid, "pid", NULL) == 0 && pid > 1)
		(void)kill((pid_t)pid, sig);
}

static void
reap(struct agent *a, bool block)
{
	size_t i = 0;

	while (i < a->nrunners) {
		if (waitpid(a->runners[i].pid, NULL, block ? 0 : WNOHANG) ==
		    a->runners[i].pid) {
			if (a->runners[i].sigfd >= 0)
				(void)close(a->runners[i].sigfd);
			a->runners[i] = a->runners[--a->nrunners];
		} else {
			i++;
		}
	}
}

static void
start(struct agent *a, const struct kai_step_event *ev)
{
	struct runner *r;
	int p[2];
	pid_t pid;
	size_t t;

	for (t = 0; t < ev->ntasks && ev->pod[t] != a->pod; t++)
		;
	if (t == ev->ntasks || ev->argc == 0)
		return; /* nothing of it here */
	if (pipe2(p, O_CLOEXEC) != 0) {
		(void)fprintf(stderr, "kaistep: error: pipe: %s\n",
		    strerror(errno));
		return;
	}
	if ((pid = fork()) == 0) {
		/* Forked inside a try whose messages are held back. */
		client_errors_to(NULL);
		(void)close(p[1]);
		run_step(ev, a->pod, p[0]);
		_exit(0);
	}
	(void)close(p[0]);
	if (pid < 0) {
		(void)fprintf(stderr, "kaistep: error: fork: %s\n",
		    strerror(errno));
		(void)close(p[1]);
		return;
	}
	a->runners = kai_xreallocarray(a->runners, a->nrunners + 1,
	    sizeof(*a->runners));
	r = &a->runners[a->nrunners++];
	r->pid = pid;
	r->step = ev->step;
	r->sigfd = p[1];
}

static int
on_events(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct agent *a = ctx;
	struct kai_step_event *ev;
	struct kai_err err;
	size_t n, i;

	(void)type;
	if (kai_msg_step_events_decode(body, len, &ev, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	/* kaid sends only what this agent has not seen: the events past
	 * its cursor, or a new log from its start after kaid restarted
	 * (its events are numbered in a new epoch). */
	for (i = 0; i < n; i++) {
		a->seq = ev[i].seq;
		switch (ev[i].kind) {
		case KAI_STEP_EV_RUN:
			start(a, &ev[i]);
			break;
		case KAI_STEP_EV_SIGNAL:
			if (ev[i].step == KAI_STEP_BATCH)
				signal_batch((int)ev[i].sig);
			else
				signal_runners(a, ev[i].step,
				    ev[i].step == UINT32_MAX, (int)ev[i].sig);
			break;
		default:
			a->end = true;
			break;
		}
	}
	kai_step_events_free(ev, n);
	return CLIENT_EXIT_OK;
}

int
kaistep_agent(int argc, char **argv)
{
	struct agent a;
	const char *procid = getenv("SLURM_PROCID");
	uint64_t pod;
	int rc = 0, tries = 0;
	bool lost = false;

	(void)argv;
	memset(&a, 0, sizeof(a));
	if (argc != 1 || procid == NULL ||
	    kai_strtou64(procid, KAI_STEP_TASKS_MAX, &pod, "SLURM_PROCID",
		NULL) != 0) {
		client_error(prog, NULL, "step-agent runs in a job's pod, "
		    "which sets SLURM_PROCID");
		return 2;
	}
	a.pod = (uint32_t)pod;
	(void)signal(SIGPIPE, SIG_IGN);
	while (!a.end) {
		struct kai_buf b;
		bool again;

		/* kaid was away, perhaps restarted: the task ends it had
		 * may be lost with it.  Sent before this agent waits on
		 * the new kaid, so that a step's srun need not wait for
		 * that poll's end. */
		if (lost && kaid_away_resend())
			lost = false;
		kai_buf_init(&b, 64);
		if (kai_msg_step_agent_encode(&b, a.pod, a.seq) != 0) {
			kai_buf_fini(&b);
			rc = 1;
			break;
		}
		rc = kaid_away_try(prog, KAI_MSG_STEP_AGENT, b.data, b.len,
		    on_events, &a, &tries, &again);
		kai_buf_fini(&b);
		reap(&a, false);
		if (again) {
			lost = true;
			(void)sleep(1);
			continue;
		}
		if (rc != CLIENT_EXIT_OK) {
			if (rc == CLIENT_EXIT_CONNECT)
				client_error(prog, NULL, "gave up reaching kaid "
				    "after %d tries", tries);
			break;
		}
		tries = 0;
	}
	/* The batch script ended (or kaid let the job go): what still runs
	 * of its steps ends with it. */
	signal_runners(&a, 0, true, SIGKILL);
	reap(&a, true);
	free(a.runners);
	return a.end ? 0 : rc;
}

int
kaistep_step_end(int argc, char **argv)
{
	struct kai_buf b;
	int64_t status;
	int rc;

	if (argc != 2 || kai_strtoi64(argv[1], INT32_MIN, INT32_MAX, &status,
	    "status", NULL) != 0) {
		client_error(prog, NULL, "usage: kaistep step-end STATUS");
		return 2;
	}
	kai_buf_init(&b, 16);
	rc = kai_msg_step_end_encode(&b, (int32_t)status) != 0 ? 1 :
	    client_request(prog, KAI_MSG_STEP_END, b.data, b.len, on_empty, NULL);
	kai_buf_fini(&b);
	return rc;
}
