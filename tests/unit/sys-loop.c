/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sys-loop: the epoll event loop.  Readiness on real pipes, timer order
 * and cancel, a real SIGUSR1 through the signalfd, the before-sleep hook
 * running once per iteration, and stop.  Every run is bounded by a
 * watchdog timer so a broken loop fails instead of hanging.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "sys/loop.h"
#include "tap.h"

struct state {
	int pipe_a[2];
	int pipe_b[2];
	int calls;
	int events;
	int hooks;
	int seen[8];
	uint64_t order[8];
	int norder;
	uint64_t ids[4];
	int signo;
	bool watchdog;
};

static void
watchdog(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct state *st = ctx;

	(void)id;
	st->watchdog = true;
	kai_loop_stop(loop);
}

static void
stop_now(struct kai_loop *loop, uint64_t id, void *ctx)
{
	(void)id;
	(void)ctx;
	kai_loop_stop(loop);
}

/* Runs the loop with a 5 s watchdog; true when it stopped by itself. */
static bool
run_bounded(struct kai_loop *loop, struct state *st)
{
	uint64_t id;

	st->watchdog = false;
	id = kai_loop_timer_add(loop, 5000, watchdog, st);
	if (kai_loop_run(loop) != 0)
		return false;
	kai_loop_timer_del(loop, id);
	return !st->watchdog;
}

static void
pipe_read(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct state *st = ctx;
	char c;

	st->calls++;
	st->events = events;
	if (read(fd, &c, 1) != 1)
		st->events = -1;
	kai_loop_stop(loop);
}

static void
pipe_write(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct state *st = ctx;

	(void)fd;
	st->calls++;
	st->events = events;
	kai_loop_stop(loop);
}

static void
test_fd(struct kai_loop *loop, struct state *st)
{
	is_int(kai_loop_fd_set(loop, st->pipe_a[0], KAI_LOOP_READ, pipe_read,
		   st),
	    0, "register the read end of a pipe");
	ok(write(st->pipe_a[1], "x", 1) == 1, "write one byte");
	ok(run_bounded(loop, st), "loop stops from the read callback");
	is_int(st->calls, 1, "read callback ran once");
	is_int(st->events, KAI_LOOP_READ, "it saw READ");
	kai_loop_fd_del(loop, st->pipe_a[0]);

	st->calls = 0;
	is_int(kai_loop_fd_set(loop, st->pipe_a[1], KAI_LOOP_WRITE, pipe_write,
		   st),
	    0, "register the write end");
	ok(run_bounded(loop, st), "loop stops from the write callback");
	is_int(st->events, KAI_LOOP_WRITE, "it saw WRITE");
	is_int(kai_loop_fd_set(loop, st->pipe_a[1], 0, NULL, NULL), 0,
	    "events 0 removes the fd");
	is_int(kai_loop_fd_set(loop, -1, KAI_LOOP_READ, pipe_read, st),
	    KAI_EINVAL, "a negative fd is refused");
}

/* Whichever of the two ready pipes runs first removes the other. */
static void
pipe_del_other(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct state *st = ctx;
	char c;

	(void)events;
	if (read(fd, &c, 1) != 1)
		return;
	st->calls++;
	kai_loop_fd_del(loop,
	    fd == st->pipe_a[0] ? st->pipe_b[0] : st->pipe_a[0]);
	(void)kai_loop_timer_add(loop, 50, stop_now, NULL);
}

static void
test_fd_del_in_batch(struct kai_loop *loop, struct state *st)
{
	char c;

	st->calls = 0;
	ok(write(st->pipe_a[1], "x", 1) == 1 &&
		write(st->pipe_b[1], "y", 1) == 1,
	    "make two pipes readable");
	ok(kai_loop_fd_set(loop, st->pipe_a[0], KAI_LOOP_READ, pipe_del_other,
	       st) == 0 &&
		kai_loop_fd_set(loop, st->pipe_b[0], KAI_LOOP_READ,
		    pipe_del_other, st) == 0,
	    "register both");
	ok(run_bounded(loop, st), "loop stops");
	is_int(st->calls, 1,
	    "an fd removed earlier in the batch gets no event");
	kai_loop_fd_del(loop, st->pipe_a[0]);
	kai_loop_fd_del(loop, st->pipe_b[0]);
	(void)!read(st->pipe_a[0], &c, 1);
	(void)!read(st->pipe_b[0], &c, 1);
}

static void
timer_rec(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct state *st = ctx;

	if (st->norder < 8)
		st->order[st->norder++] = id;
	if (id == st->ids[0])
		kai_loop_stop(loop);
}

static void
test_timers(struct kai_loop *loop, struct state *st)
{
	int64_t t0 = kai_loop_now_ms(loop);
	uint64_t cancelled;

	st->norder = 0;
	st->ids[0] = kai_loop_timer_add(loop, 60, timer_rec, st);
	st->ids[1] = kai_loop_timer_add(loop, 20, timer_rec, st);
	cancelled = kai_loop_timer_add(loop, 30, timer_rec, st);
	st->ids[2] = kai_loop_timer_add(loop, 40, timer_rec, st);
	st->ids[3] = kai_loop_timer_add(loop, 40, timer_rec, st);
	ok(st->ids[0] != 0 && cancelled != 0, "timer ids are never 0");
	kai_loop_timer_del(loop, cancelled);
	kai_loop_timer_del(loop, 999999);
	ok(run_bounded(loop, st), "the last timer stops the loop");
	is_int(st->norder, 4, "four timers fired, the cancelled one did not");
	ok(st->order[0] == st->ids[1] && st->order[1] == st->ids[2] &&
		st->order[2] == st->ids[3] && st->order[3] == st->ids[0],
	    "timers fire by deadline, equal deadlines in creation order");
	ok(kai_loop_now_ms(loop) - t0 >= 60, "cached now advanced by >= 60 ms");
}

static void
on_signal(struct kai_loop *loop, int signo, void *ctx)
{
	struct state *st = ctx;

	st->signo = signo;
	kai_loop_stop(loop);
}

static void
test_signal(struct kai_loop *loop, struct state *st)
{
	is_int(kai_loop_signal_add(loop, SIGUSR1, on_signal, st), 0,
	    "route SIGUSR1 through the loop");
	is_int(kai_loop_signal_add(loop, 0, on_signal, st), KAI_EINVAL,
	    "signal 0 is refused");
	ok(raise(SIGUSR1) == 0,
	    "raise SIGUSR1 (blocked, so the process lives)");
	ok(run_bounded(loop, st), "the signal callback stops the loop");
	is_int(st->signo, SIGUSR1, "callback got SIGUSR1");
}

static void
hook(struct kai_loop *loop, void *ctx)
{
	struct state *st = ctx;

	(void)loop;
	st->hooks++;
}

/* Each read records the hook count and re-arms the pipe for next time. */
static void
pipe_chain(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct state *st = ctx;
	char c;

	(void)events;
	if (read(fd, &c, 1) != 1)
		return;
	st->seen[st->calls++] = st->hooks;
	if (st->calls == 5 || write(st->pipe_a[1], "x", 1) != 1)
		kai_loop_stop(loop);
}

static void
pipe_count(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct state *st = ctx;
	char c;

	(void)events;
	if (read(fd, &c, 1) == 1)
		st->seen[st->calls++] = st->hooks;
	if (st->calls == 2)
		(void)kai_loop_timer_add(loop, 0, stop_now, NULL);
}

static void
timer_chain(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct state *st = ctx;

	(void)id;
	st->seen[st->calls++] = st->hooks;
	if (st->calls < 3)
		(void)kai_loop_timer_add(loop, 0, timer_chain, st);
	else
		kai_loop_stop(loop);
}

static void
test_hook(struct kai_loop *loop, struct state *st)
{
	st->hooks = st->calls = 0;
	kai_loop_before_sleep(loop, hook, st);
	ok(write(st->pipe_a[1], "x", 1) == 1, "arm the pipe");
	ok(kai_loop_fd_set(loop, st->pipe_a[0], KAI_LOOP_READ, pipe_chain,
	       st) == 0,
	    "register it");
	ok(run_bounded(loop, st), "five iterations then stop");
	ok(st->seen[0] == 1 && st->seen[1] == 2 && st->seen[2] == 3 &&
		st->seen[3] == 4 && st->seen[4] == 5,
	    "the hook ran exactly once before each iteration's events");
	kai_loop_fd_del(loop, st->pipe_a[0]);

	st->hooks = st->calls = 0;
	ok(write(st->pipe_a[1], "x", 1) == 1 &&
		write(st->pipe_b[1], "y", 1) == 1,
	    "two fds ready at once");
	ok(kai_loop_fd_set(loop, st->pipe_a[0], KAI_LOOP_READ, pipe_count,
	       st) == 0 &&
		kai_loop_fd_set(loop, st->pipe_b[0], KAI_LOOP_READ, pipe_count,
		    st) == 0,
	    "register both");
	ok(run_bounded(loop, st), "loop stops");
	ok(st->calls == 2 && st->seen[0] == 1 && st->seen[1] == 1,
	    "both handled in one iteration after one hook run");
	kai_loop_fd_del(loop, st->pipe_a[0]);
	kai_loop_fd_del(loop, st->pipe_b[0]);

	st->hooks = st->calls = 0;
	(void)kai_loop_timer_add(loop, 0, timer_chain, st);
	ok(run_bounded(loop, st), "zero-delay timer chain stops");
	ok(st->seen[0] == 1 && st->seen[1] == 2 && st->seen[2] == 3,
	    "a timer added by a timer waits for the next iteration");
	kai_loop_before_sleep(loop, NULL, NULL);
}

static void
test_stop(struct kai_loop *loop, struct state *st)
{
	kai_loop_stop(loop);
	ok(run_bounded(loop, st), "stop before run makes run return at once");
	(void)kai_loop_timer_add(loop, 10, stop_now, NULL);
	ok(run_bounded(loop, st), "the loop can run again after a stop");
}

int
main(void)
{
	struct kai_err err;
	struct kai_loop *loop;
	struct state st;

	memset(&st, 0, sizeof(st));
	if (pipe2(st.pipe_a, O_NONBLOCK | O_CLOEXEC) == -1 ||
	    pipe2(st.pipe_b, O_NONBLOCK | O_CLOEXEC) == -1)
		skip_all("could not create pipes");
	loop = kai_loop_new(&err);
	ok(loop != NULL, "kai_loop_new");
	if (loop == NULL)
		return done_testing();
	test_fd(loop, &st);
	test_fd_del_in_batch(loop, &st);
	test_timers(loop, &st);
	test_signal(loop, &st);
	test_hook(loop, &st);
	test_stop(loop, &st);
	kai_loop_free(loop);
	return done_testing();
}
