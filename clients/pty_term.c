/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_term.c: the user's terminal during an interactive session (see
 * pty_term.h).
 *
 * Until the pod's end has joined (START) the terminal stays as it is, so
 * a Ctrl-C while the job waits for resources is this program's SIGINT:
 * an owner cancels the job (Slurm's srun cancels a pending allocation
 * the same way) and exits 130.  Once the command runs, with a remote
 * terminal, this one is raw: every byte, Ctrl-C included, goes to the
 * remote terminal, whose line discipline makes it the remote command's
 * SIGINT; SIGWINCH sends the new size.  Without a remote terminal a
 * Ctrl-C is srun's: the task's state, and a second within a second
 * sends SIGINT to the command (a SIGNAL frame).  SIGTERM and SIGHUP end the
 * session: the connection closes, and kaid hangs the remote terminal up
 * when this was its owner.  The terminal's settings are restored on
 * every way out.
 */
#include "config.h"

#include "pty_term.h"

#include <sys/ioctl.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "client.h"
#include "client_pty.h"
#include "proto/proto.h"

/* How long a job may take to start before "queued" is said. */
#define PTY_TERM_QUIET_MS 1000
/* srun's window for a second Ctrl-C. */
#define PTY_TERM_INTR_MS 1000
/* How long a command that was sent Ctrl-C to abort has to end before
 * the session is left (and kaid hangs it up). */
#define PTY_TERM_ABORT_MS 5000

static int sig_pipe[2] = {-1, -1};

static int64_t
monotonic_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct term {
	const struct pty_term_opts *o;
	int sock;
	bool started;		/* the pod's end joined */
	bool raw;		/* the terminal's settings are saved in tio */
	struct termios tio;
	char waiting[512];	/* kaid's "queued" line, not said yet */
	bool queued;		/* it was said */
	bool exited;
	int status;
	char notice[512];	/* kaid's last word, if any */
	int64_t last_intr;	/* when Ctrl-C said the state; 0 = never */
	int64_t abort_at;	/* when Ctrl-C was sent to abort; 0 = not */
};

static void
on_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int e = errno;

	if (write(sig_pipe[1], &c, 1) < 0) {
		/* full: one is pending anyway */
	}
	errno = e;
}

bool
pty_term_winsize(uint16_t *rows, uint16_t *cols)
{
	struct winsize ws;

	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0)
		return false;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return true;
}

static void
raw_on(struct term *t)
{
	struct termios r;

	if (t->raw || !t->o->pty || !isatty(STDIN_FILENO) ||
	    tcgetattr(STDIN_FILENO, &t->tio) != 0)
		return;
	r = t->tio;
	cfmakeraw(&r);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &r) == 0)
		t->raw = true;
}

static void
raw_off(struct term *t)
{
	if (t->raw)
		(void)tcsetattr(STDIN_FILENO, TCSADRAIN, &t->tio);
	t->raw = false;
}

static void
send_winsize(struct term *t)
{
	struct kai_pty_io io;
	struct kai_err err;

	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_WINSIZE;
	if (pty_term_winsize(&io.rows, &io.cols) &&
	    client_pty_send(t->sock, &io, &err) != 0) {
		/* the read side sees the session end */
	}
}

static void
out_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static int
on_io(const struct kai_pty_io *io, void *ctx)
{
	struct term *t = ctx;
	size_t n;

	switch (io->kind) {
	case KAI_PTY_DATA:
		out_all(io->stream == 2 ? STDERR_FILENO : STDOUT_FILENO,
		    io->data, io->len);
		break;
	case KAI_PTY_START:
		t->started = true;
		t->waiting[0] = '\0';
		if (t->queued)
			(void)fprintf(stderr, "%s: job %" PRIu64 " has been "
			    "allocated resources\n", t->o->prog, t->o->job);
		if (t->o->alloc)
			(void)fprintf(stderr, "%s: Granted job allocation %"
			    PRIu64 "\n", t->o->prog, t->o->job);
		raw_on(t);
		send_winsize(t);
		break;
	case KAI_PTY_EXIT:
		t->exited = true;
		t->status = io->status;
		break;
	case KAI_PTY_NOTICE:
		n = io->len < sizeof(t->notice) - 1 ? io->len :
		    sizeof(t->notice) - 1;
		memcpy(t->notice, io->data, n);
		t->notice[n] = '\0';
		/* Before the command runs, kaid's word is that the job
		 * waits: said if it still waits a second later (a job that
		 * starts at the next scheduling pass is not "queued" to a
		 * user); after, it is why the session ended. */
		if (!t->started && !t->queued) {
			(void)snprintf(t->waiting, sizeof(t->waiting), "%s",
			    t->notice);
			t->notice[0] = '\0';
		}
		break;
	default:
		break;
	}
	return 0;
}

void
pty_term_cancel(const char *prog, uint64_t id)
{
	struct kai_cancel c;
	struct kai_buf b;

	memset(&c, 0, sizeof(c));
	c.ids = &id;
	c.nids = 1;
	kai_buf_init(&b, 4096);
	if (kai_msg_cancel_encode(&b, &c) == 0 &&
	    client_request(prog, KAI_MSG_CANCEL, b.data, b.len, NULL,
		NULL) == CLIENT_EXIT_OK)
		client_error(prog, NULL, "job %" PRIu64 " cancelled",
		    id);
	kai_buf_fini(&b);
}

static bool
send_signal(struct term *t, int sig)
{
	struct kai_pty_io io;
	struct kai_err err;

	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_SIGNAL;
	io.signo = (uint8_t)sig;
	return client_pty_send(t->sock, &io, &err) == 0;
}

/*
 * An owner's Ctrl-C while the command runs without a terminal here, as
 * srun takes it: the task's state, or with a second one within a second
 * (or --quit-on-interrupt, or -X) SIGINT to the command, whose end is
 * then awaited; a Ctrl-C after that leaves at once.  Returns the exit
 * status to stop with, or -1.
 */
static int
on_intr(struct term *t)
{
	const struct pty_term_opts *o = t->o;
	int64_t now = monotonic_ms();
	bool abort_now = o->quit_on_intr ||
	    (t->last_intr != 0 && now - t->last_intr < PTY_TERM_INTR_MS);

	if (t->abort_at != 0 && abort_now)
		return 128 + SIGINT;
	if (abort_now || o->disable_status) {
		(void)fprintf(stderr, "%s: sending Ctrl-C to StepId=%" PRIu64
		    ".0\n", o->prog, o->job);
		if (!send_signal(t, SIGINT))
			return 128 + SIGINT;
		if (abort_now)
			t->abort_at = now;
	} else {
		(void)fprintf(stderr, "%s: interrupt (one more within 1 sec "
		    "to abort)\n%s: StepId=%" PRIu64 ".0 task 0: running\n",
		    o->prog, o->prog, o->job);
	}
	t->last_intr = now;
	return -1;
}

/* A signal arrived; returns the exit status to stop with, or -1. */
static int
on_sig(struct term *t, int sig)
{
	if (sig == SIGWINCH) {
		send_winsize(t);
		return -1;
	}
	if (sig == SIGINT && t->started && !t->o->owner)
		return -1;
	if (sig == SIGINT && t->started && !t->raw)
		return on_intr(t);
	raw_off(t);
	if (!t->started && t->o->cancel_job != 0)
		pty_term_cancel(t->o->prog, t->o->cancel_job);
	return 128 + sig;
}

static void
signals(bool on)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH,
	    SIGQUIT};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_signal : SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	(void)signal(SIGPIPE, on ? SIG_IGN : SIG_DFL);
}

int
pty_term_run(const struct pty_term_opts *o, int sock)
{
	struct term t;
	struct client_pty_rd rd;
	struct pollfd p[3];
	struct kai_err err;
	struct kai_pty_io io;
	char buf[KAI_PTY_DATA_MAX];
	bool in_open = true;
	unsigned char sig;
	const char *esc;
	int64_t t0 = monotonic_ms();
	ssize_t n;
	int r, rc = -1, wait_ms;

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.sock = sock;
	if (sig_pipe[0] < 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		client_error(o->prog, NULL, "could not make a pipe: %s",
		    strerror(errno));
		(void)close(sock);
		return CLIENT_EXIT_REFUSED;
	}
	signals(true);
	client_pty_rd_init(&rd);
	while (rc < 0 && !t.exited) {
		if (t.waiting[0] != '\0' && !t.queued &&
		    monotonic_ms() - t0 >= PTY_TERM_QUIET_MS) {
			(void)fprintf(stderr, "%s: %s\n", o->prog, t.waiting);
			t.queued = true;
			t.waiting[0] = '\0';
		}
		if (t.abort_at != 0 &&
		    monotonic_ms() - t.abort_at >= PTY_TERM_ABORT_MS) {
			rc = 128 + SIGINT;
			break;
		}
		wait_ms = -1;
		if (t.waiting[0] != '\0')
			wait_ms = (int)(PTY_TERM_QUIET_MS - (monotonic_ms() -
			    t0));
		else if (t.abort_at != 0)
			wait_ms = (int)(PTY_TERM_ABORT_MS - (monotonic_ms() -
			    t.abort_at));
		if (wait_ms < -1 || (t.waiting[0] != '\0' && wait_ms < 0))
			wait_ms = 0;
		p[0] = (struct pollfd){sock, POLLIN, 0};
		p[1] = (struct pollfd){sig_pipe[0], POLLIN, 0};
		p[2] = (struct pollfd){in_open && t.started ? STDIN_FILENO :
		    -1, POLLIN, 0};
		if (poll(p, 3, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		while (p[1].revents != 0 && rc < 0 &&
		    read(sig_pipe[0], &sig, 1) == 1)
			rc = on_sig(&t, sig);
		if (rc >= 0)
			break;
		if (p[2].revents != 0) {
			do
				n = read(STDIN_FILENO, buf, sizeof(buf));
			while (n < 0 && errno == EINTR);
			esc = n > 0 && !o->owner ?
			    memchr(buf, PTY_TERM_DETACH, (size_t)n) : NULL;
			if (esc != NULL) {
				n = esc - buf;
				rc = 0;
			}
			if (n > 0) {
				if (client_pty_send_data(sock, 0, buf,
				    (size_t)n, &err) != 0)
					break;
			} else if (esc != NULL) {
				/* detached */
			} else {
				/* stdin ended: the remote command's input
				 * does too (a terminal gets no EOF: ^D is
				 * the user's to type) */
				in_open = false;
				memset(&io, 0, sizeof(io));
				io.kind = KAI_PTY_EOF;
				if (!o->pty &&
				    client_pty_send(sock, &io, &err) != 0)
					break;
			}
		}
		if (p[0].revents != 0) {
			r = client_pty_read(sock, &rd, on_io, &t, &err);
			if (r != 0)
				break;
		}
	}
	client_pty_rd_fini(&rd);
	raw_off(&t);
	signals(false);
	(void)close(sock);
	if (t.exited)
		return t.status;
	if (rc >= 0)
		return rc;
	if (t.notice[0] != '\0')
		client_error(o->prog, NULL, "%s", t.notice);
	else
		client_error(o->prog, NULL, "job %" PRIu64 "'s session ended",
		    o->job);
	return CLIENT_EXIT_REFUSED;
}
