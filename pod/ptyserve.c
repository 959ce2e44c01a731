/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ptyserve.c: `kaistep pty-serve [--pty] [CMD ARGS...]`, the pod's end
 * of an interactive session (ksrun(1), ksalloc(1), ksattach(1)).
 *
 * It runs CMD (the user's $SHELL, else /bin/sh, when none is given) and
 * offers its terminal to kaid with the job's credential (PTY_SERVE), on
 * a connection kaid pairs with the client's (daemons/kaid/ptyrelay.c).
 * With --pty CMD gets a pseudo-terminal as its controlling terminal,
 * in a session of its own: keystrokes are bytes to the terminal, so a
 * Ctrl-C the user types is the terminal's SIGINT to CMD's foreground
 * process group, and the client's window size is set on it (SIGWINCH).
 * Without --pty, CMD gets three pipes: the client's stdin, and stdout
 * and stderr sent apart.  CMD starts with the signals a login shell
 * expects (the wrapper runs the job script in the background, with
 * SIGINT and SIGQUIT ignored, which exec keeps).
 *
 * When CMD exits, its status goes to the client (EXIT) and is
 * pty-serve's own, so the job's exit code is the command's.  SIGTERM to
 * pty-serve (kcancel, the time limit: the wrapper's) is passed on to
 * CMD's session, which is not the wrapper's process group.  When the
 * client that owns the session leaves (HANGUP) or kaid goes, CMD's
 * session gets SIGHUP, as a terminal's hangup gives, and SIGKILL
 * PTYSERVE_KILL_S seconds later if it is still there.
 *
 * Only task 0 serves, as Slurm's interactive step runs on the
 * allocation's first node.  With the helpers ConfigMap the wrapper runs
 * the script in task 0 alone and the other pods wait for the session's
 * srun steps (pod/wrapper.sh), ending with it.  Where every pod runs the
 * script, the other tasks end at once, with status 0: nothing in the
 * session could reach their pods, and a task that waited would keep the
 * job running after the session ended (kaid ends a job when every task
 * has succeeded, reconcile.c).
 */
#include "config.h"

#include "kaistep.h"

#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "client.h"
#include "client_pty.h"

#define PTYSERVE_KILL_S 5

static const char *const prog = "kaistep pty-serve";

struct serve {
	int sock;		/* the session, through kaid */
	int master;		/* the terminal's master (--pty), or -1 */
	int in, out, err;	/* the pipes without --pty, or -1 */
	pid_t pid;		/* CMD */
	bool pty;
	bool hangup;		/* SIGHUP sent */
	int status;		/* CMD's wait status, once reaped */
	bool reaped;
};

static int chld_pipe[2] = {-1, -1};
static volatile sig_atomic_t alarmed;
static volatile sig_atomic_t terminated;

static void
on_chld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_pipe[1], "c", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	errno = e;
}

static void
set_winsize(int fd, uint16_t rows, uint16_t cols)
{
	struct winsize ws;

	if (fd < 0 || rows == 0 || cols == 0)
		return;
	memset(&ws, 0, sizeof(ws));
	ws.ws_row = rows;
	ws.ws_col = cols;
	(void)ioctl(fd, TIOCSWINSZ, &ws);
}

/* In the child: CMD's terminal or pipes, its signals, then exec. */
static void
child_exec(struct serve *s, const char *slave, int pin[2], int pout[2],
    int perr[2], char **argv)
{
	static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP,
	    SIGPIPE, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU};
	sigset_t none;
	size_t i;
	int fd;

	(void)setsid();
	if (s->pty) {
		if ((fd = open(slave, O_RDWR)) < 0) {
			(void)fprintf(stderr, "%s: error: could not open %s: "
			    "%s\n", prog, slave, strerror(errno));
			_exit(126);
		}
		(void)ioctl(fd, TIOCSCTTY, 0);
		(void)dup2(fd, 0);
		(void)dup2(fd, 1);
		(void)dup2(fd, 2);
		if (fd > 2)
			(void)close(fd);
	} else {
		(void)dup2(pin[0], 0);
		(void)dup2(pout[1], 1);
		(void)dup2(perr[1], 2);
	}
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)signal(sigs[i], SIG_DFL);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
	(void)fprintf(stderr, "%s: error: could not run \"%s\": %s\n", prog,
	    argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int
start(struct serve *s, char **argv)
{
	int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
	const char *slave = NULL;

	if (s->pty) {
		if ((s->master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 ||
		    grantpt(s->master) != 0 || unlockpt(s->master) != 0 ||
		    (slave = ptsname(s->master)) == NULL) {
			client_error(prog, NULL, "could not open a "
			    "pseudo-terminal: %s", strerror(errno));
			return -1;
		}
		(void)fcntl(s->master, F_SETFD, FD_CLOEXEC);
	} else if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 ||
	    pipe2(perr, O_CLOEXEC) != 0) {
		client_error(prog, NULL, "could not make pipes: %s",
		    strerror(errno));
		return -1;
	}
	if ((s->pid = fork()) < 0) {
		client_error(prog, NULL, "could not fork: %s", strerror(errno));
		return -1;
	}
	if (s->pid == 0)
		child_exec(s, slave, pin, pout, perr, argv);
	if (!s->pty) {
		(void)close(pin[0]);
		(void)close(pout[1]);
		(void)close(perr[1]);
		s->in = pin[1];
		s->out = pout[0];
		s->err = perr[0];
	}
	return 0;
}

static void
on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* kcancel, the time limit: the wrapper's SIGTERM to the pod's processes
 * does not reach CMD's own session; relayed in the loop. */
static void
on_term(int sig)
{
	(void)sig;
	terminated = 1;
	on_chld(sig);
}

static void
hangup(struct serve *s)
{
	if (s->hangup || s->reaped)
		return;
	s->hangup = true;
	(void)kill(-s->pid, SIGHUP);
	(void)kill(-s->pid, SIGCONT);
	if (s->master >= 0) {
		(void)close(s->master);
		s->master = -1;
	}
	(void)alarm(PTYSERVE_KILL_S);
}

static void
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0 && fd >= 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* CMD closed its input: drop */
		p += w;
		n -= (size_t)w;
	}
}

/* One IO frame from the client, through kaid. */
static int
on_io(const struct kai_pty_io *io, void *ctx)
{
	struct serve *s = ctx;

	switch (io->kind) {
	case KAI_PTY_DATA:
		if (io->stream == 0)
			write_all(s->pty ? s->master : s->in, io->data,
			    io->len);
		break;
	case KAI_PTY_WINSIZE:
		set_winsize(s->master, io->rows, io->cols);
		break;
	case KAI_PTY_EOF:
		if (!s->pty && s->in >= 0) {
			(void)close(s->in);
			s->in = -1;
		}
		break;
	case KAI_PTY_HANGUP:
		hangup(s);
		break;
	case KAI_PTY_SIGNAL:
		/* The command leads its own process group (setsid). */
		if (s->pid > 0 && !s->reaped)
			(void)kill(-s->pid, io->signo);
		break;
	default:
		break;
	}
	return 0;
}

/* Passes what fd (CMD's terminal or pipe) has on; false at its end. */
static bool
pump(struct serve *s, int *fd, uint8_t stream)
{
	char buf[KAI_PTY_DATA_MAX];
	struct kai_err err;
	ssize_t n;

	do
		n = read(*fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* EIO: every holder of the terminal's slave closed it. */
		(void)close(*fd);
		*fd = -1;
		return false;
	}
	if (client_pty_send_data(s->sock, stream, buf, (size_t)n, &err) != 0)
		hangup(s);
	return true;
}

static void
reap(struct serve *s)
{
	int st;

	if (!s->reaped && waitpid(s->pid, &st, WNOHANG) == s->pid) {
		s->status = st;
		s->reaped = true;
	}
}

/* The relay until CMD is gone and its output drained. */
static void
relay(struct serve *s)
{
	struct client_pty_rd rd;
	struct pollfd p[5];
	struct kai_err err;
	char c[64];
	bool sock_ok = true;
	int n, timeout, drains = 0;

	client_pty_rd_init(&rd);
	for (;;) {
		reap(s);
		if (s->reaped && s->master < 0 && s->out < 0 && s->err < 0)
			break;
		if (s->reaped && ++drains > 50)
			break;	/* a process CMD left keeps writing */
		if (alarmed && !s->reaped)
			(void)kill(-s->pid, SIGKILL);
		if (terminated == 1 && !s->reaped) {
			terminated = 2;
			(void)kill(-s->pid, SIGTERM);
			(void)kill(-s->pid, SIGCONT);
		}
		/* CMD exited but something it left holds its output
		 * open: a last look, then stop. */
		timeout = s->reaped ? 200 : -1;
		p[0] = (struct pollfd){sock_ok ? s->sock : -1, POLLIN, 0};
		p[1] = (struct pollfd){chld_pipe[0], POLLIN, 0};
		p[2] = (struct pollfd){s->master, POLLIN, 0};
		p[3] = (struct pollfd){s->out, POLLIN, 0};
		p[4] = (struct pollfd){s->err, POLLIN, 0};
		n = poll(p, 5, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			break;
		if (p[1].revents != 0 && read(chld_pipe[0], c, sizeof(c)) < 0) {
			/* nothing: a wake-up only */
		}
		if (p[2].revents != 0)
			(void)pump(s, &s->master, 1);
		if (p[3].revents != 0)
			(void)pump(s, &s->out, 1);
		if (p[4].revents != 0)
			(void)pump(s, &s->err, 2);
		if (p[0].revents != 0 &&
		    client_pty_read(s->sock, &rd, on_io, s, &err) != 0) {
			/* kaid is gone: nobody will see CMD again. */
			sock_ok = false;
			hangup(s);
		}
	}
	client_pty_rd_fini(&rd);
	while (!s->reaped) {
		if (waitpid(s->pid, &s->status, 0) == s->pid)
			s->reaped = true;
		else if (errno != EINTR)
			break;
	}
}

/* The status as a shell gives it: the code, or 128 + the signal. */
static int
exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}


int
kaistep_ptyserve(int argc, char **argv)
{
	struct serve s = {-1, -1, -1, -1, -1, 0, false, false, 0, false};
	struct kai_pty_open o = {0, 0, 0, 0};
	struct kai_pty_io io;
	struct sigaction sa;
	struct kai_err err;
	const char *procid = getenv("SLURM_PROCID");
	const char *shell = getenv("SHELL");
	char *defcmd[2];
	char **cmd;
	uint64_t job;
	int i = 1, rc;

	if (i < argc && strcmp(argv[i], "--pty") == 0) {
		s.pty = true;
		i++;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i < argc && argv[i][0] == '-') {
		client_error(prog, "usage: kaistep pty-serve [--pty] "
		    "[--] [CMD ARGS...]", "unrecognized option \"%s\"",
		    argv[i]);
		return CLIENT_EXIT_USAGE;
	}
	if (procid != NULL && strcmp(procid, "0") != 0)
		return CLIENT_EXIT_OK; /* not task 0: see the top */
	if (i < argc) {
		cmd = argv + i;
	} else {
		defcmd[0] = (char *)(shell != NULL && shell[0] == '/' &&
		    access(shell, X_OK) == 0 ? shell : "/bin/sh");
		defcmd[1] = NULL;
		cmd = defcmd;
	}
	o.flags = s.pty ? KAI_PTY_TERMINAL : 0;
	if ((rc = client_pty_open(prog, KAI_MSG_PTY_SERVE, &o, &s.sock,
	    &job)) != CLIENT_EXIT_OK)
		return rc;
	if (pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		client_error(prog, NULL, "could not make a pipe: %s",
		    strerror(errno));
		return CLIENT_EXIT_REFUSED;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	(void)sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0;
	(void)sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_term;
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);
	if (start(&s, cmd) != 0)
		return CLIENT_EXIT_REFUSED;
	relay(&s);
	(void)alarm(0);
	if (!s.reaped) {
		(void)kill(-s.pid, SIGKILL);
		(void)waitpid(s.pid, &s.status, 0);
	}
	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_EXIT;
	io.status = exit_code(s.status);
	if (client_pty_send(s.sock, &io, &err) != 0) {
		/* the client is gone: the job's exit code still says */
	}
	(void)close(s.sock);
	return io.status;
}
