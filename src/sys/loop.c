/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loop.c: the epoll event loop.  See loop.h.
 *
 * One iteration is: run the before-sleep hook, sleep in epoll_wait() until
 * an fd is ready or the nearest timer is due, cache "now", dispatch the
 * ready fds, then fire the due timers (redis aeProcessEvents).
 *
 * File events live in a table indexed by fd.  Each registration gets a
 * generation number that travels in the epoll data next to the fd, so an
 * event that epoll reported for an fd which a callback earlier in the same
 * batch removed (or removed and re-registered) is dropped instead of being
 * delivered to the wrong owner.
 *
 * Timers are a binary min-heap ordered by (deadline, id); ids grow
 * monotonically, so timers with the same deadline fire in creation order,
 * and a timer added while timers are being fired waits for the next
 * iteration (no starvation of I/O by zero-delay timers).  Cancelling is a
 * linear search: kaid keeps a handful of timers, not thousands.
 *
 * Signals are blocked and read from one signalfd.  They stay blocked after
 * kai_loop_free(): unblocking would deliver a pending SIGTERM with its
 * default action at a random later point.
 */
#include "config.h"

#include "sys/loop.h"

#include <sys/epoll.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/xmalloc.h"

#define LOOP_MAX_EVENTS 64
#define LOOP_NSIG       65 /* signal numbers 1..64 */

struct loop_fd {
	int events;   /* KAI_LOOP_* registered; 0 = free slot */
	uint32_t gen; /* bumped on every (re)registration */
	kai_loop_fd_fn *fn;
	void *ctx;
};

struct loop_timer {
	int64_t when; /* monotonic ms */
	uint64_t id;
	kai_loop_timer_fn *fn;
	void *ctx;
};

struct loop_sig {
	kai_loop_signal_fn *fn;
	void *ctx;
};

struct kai_loop {
	int epfd;
	int sigfd;           /* -1 until the first kai_loop_signal_add() */
	sigset_t sigmask;    /* signals routed through sigfd */
	struct loop_fd *fds; /* indexed by fd */
	size_t nfds;         /* slots in fds */
	uint32_t gen;
	struct loop_timer *timers; /* min-heap */
	size_t ntimers;
	size_t timers_cap;
	uint64_t next_id;
	struct loop_sig sigs[LOOP_NSIG];
	kai_loop_hook_fn *hook;
	void *hook_ctx;
	int64_t now; /* cached monotonic ms */
	bool stop;
};

static int64_t
clock_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct kai_loop *
kai_loop_new(struct kai_err *err)
{
	struct kai_loop *loop;
	int fd;

	if ((fd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		kai_err_set(err, KAI_ESYS,
		    "could not create epoll instance: %s", strerror(errno));
		return NULL;
	}
	loop = kai_xcalloc(1, sizeof(*loop));
	loop->epfd = fd;
	loop->sigfd = -1;
	(void)sigemptyset(&loop->sigmask);
	loop->next_id = 1;
	loop->now = clock_ms();
	return loop;
}

void
kai_loop_free(struct kai_loop *loop)
{
	if (loop == NULL)
		return;
	(void)close(loop->epfd);
	if (loop->sigfd != -1)
		(void)close(loop->sigfd);
	free(loop->fds);
	free(loop->timers);
	free(loop);
}

static uint32_t
to_epoll(int events)
{
	uint32_t ev = 0;

	if (events & KAI_LOOP_READ)
		ev |= EPOLLIN;
	if (events & KAI_LOOP_WRITE)
		ev |= EPOLLOUT;
	return ev;
}

int
kai_loop_fd_set(struct kai_loop *loop, int fd, int events, kai_loop_fd_fn *fn,
    void *ctx)
{
	struct epoll_event ee;
	struct loop_fd *f;
	size_t n;
	int op;

	events &= KAI_LOOP_READ | KAI_LOOP_WRITE;
	if (fd < 0)
		return KAI_EINVAL;
	if (events == 0) {
		kai_loop_fd_del(loop, fd);
		return 0;
	}
	if ((size_t)fd >= loop->nfds) {
		n = loop->nfds == 0 ? 64 : loop->nfds;
		while (n <= (size_t)fd)
			n *= 2;
		loop->fds = kai_xreallocarray(loop->fds, n, sizeof(*loop->fds));
		memset(loop->fds + loop->nfds, 0,
		    (n - loop->nfds) * sizeof(*loop->fds));
		loop->nfds = n;
	}
	f = &loop->fds[fd];
	op = f->events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
	memset(&ee, 0, sizeof(ee));
	ee.events = to_epoll(events);
	ee.data.u64 = (uint64_t)(++loop->gen) << 32 | (uint32_t)fd;
	if (epoll_ctl(loop->epfd, op, fd, &ee) == -1) {
		/*
		 * Closing an fd without removing it drops it from epoll
		 * behind our back, and a new fd may reuse the number.
		 */
		if (errno == ENOENT && op == EPOLL_CTL_MOD)
			op = EPOLL_CTL_ADD;
		else if (errno == EEXIST && op == EPOLL_CTL_ADD)
			op = EPOLL_CTL_MOD;
		else
			return KAI_ESYS;
		if (epoll_ctl(loop->epfd, op, fd, &ee) == -1)
			return KAI_ESYS;
	}
	f->events = events;
	f->gen = loop->gen;
	f->fn = fn;
	f->ctx = ctx;
	return 0;
}

void
kai_loop_fd_del(struct kai_loop *loop, int fd)
{
	struct loop_fd *f;

	if (fd < 0 || (size_t)fd >= loop->nfds || loop->fds[fd].events == 0)
		return;
	f = &loop->fds[fd];
	/* The fd may already be closed, which removed it from epoll. */
	(void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
	memset(f, 0, sizeof(*f));
}

static bool
timer_less(const struct loop_timer *a, const struct loop_timer *b)
{
	return a->when < b->when || (a->when == b->when && a->id < b->id);
}

static void
heap_swap(struct kai_loop *loop, size_t i, size_t j)
{
	struct loop_timer t = loop->timers[i];

	loop->timers[i] = loop->timers[j];
	loop->timers[j] = t;
}

static void
heap_up(struct kai_loop *loop, size_t i)
{
	size_t up;

	while (i > 0) {
		up = (i - 1) / 2;
		if (!timer_less(&loop->timers[i], &loop->timers[up]))
			return;
		heap_swap(loop, i, up);
		i = up;
	}
}

static void
heap_down(struct kai_loop *loop, size_t i)
{
	size_t l, r, m;

	for (;;) {
		l = 2 * i + 1;
		r = l + 1;
		m = i;
		if (l < loop->ntimers &&
		    timer_less(&loop->timers[l], &loop->timers[m]))
			m = l;
		if (r < loop->ntimers &&
		    timer_less(&loop->timers[r], &loop->timers[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(loop, i, m);
		i = m;
	}
}

static void
heap_remove(struct kai_loop *loop, size_t i)
{
	loop->ntimers--;
	if (i == loop->ntimers)
		return;
	loop->timers[i] = loop->timers[loop->ntimers];
	heap_up(loop, i);
	heap_down(loop, i);
}

uint64_t
kai_loop_timer_add(struct kai_loop *loop, int64_t ms, kai_loop_timer_fn *fn,
    void *ctx)
{
	struct loop_timer *t;

	if (loop->ntimers == loop->timers_cap) {
		loop->timers_cap =
		    loop->timers_cap == 0 ? 16 : 2 * loop->timers_cap;
		loop->timers = kai_xreallocarray(loop->timers, loop->timers_cap,
		    sizeof(*loop->timers));
	}
	t = &loop->timers[loop->ntimers];
	/*
	 * A fresh clock reading, not the cached one: a timer armed long after
	 * the last wake-up (before kai_loop_run(), or after a slow callback)
	 * must not fire early.
	 */
	t->when = clock_ms() + (ms < 0 ? 0 : ms);
	t->id = loop->next_id++;
	t->fn = fn;
	t->ctx = ctx;
	heap_up(loop, loop->ntimers++);
	return loop->next_id - 1;
}

void
kai_loop_timer_del(struct kai_loop *loop, uint64_t id)
{
	size_t i;

	for (i = 0; i < loop->ntimers; i++) {
		if (loop->timers[i].id == id) {
			heap_remove(loop, i);
			return;
		}
	}
}

static void
signal_read(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct signalfd_siginfo si;
	struct loop_sig *s;

	(void)events;
	(void)ctx;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo >= LOOP_NSIG)
			continue;
		s = &loop->sigs[si.ssi_signo];
		if (s->fn != NULL)
			s->fn(loop, (int)si.ssi_signo, s->ctx);
	}
}

int
kai_loop_signal_add(struct kai_loop *loop, int signo, kai_loop_signal_fn *fn,
    void *ctx)
{
	sigset_t one;
	int fd, r;

	if (signo <= 0 || signo >= LOOP_NSIG)
		return KAI_EINVAL;
	(void)sigemptyset(&one);
	if (sigaddset(&one, signo) == -1 ||
	    sigaddset(&loop->sigmask, signo) == -1)
		return KAI_EINVAL;
	if (sigprocmask(SIG_BLOCK, &one, NULL) == -1)
		return KAI_ESYS;
	fd = signalfd(loop->sigfd, &loop->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd == -1)
		return KAI_ESYS;
	if (loop->sigfd == -1) {
		loop->sigfd = fd;
		r = kai_loop_fd_set(loop, fd, KAI_LOOP_READ, signal_read, NULL);
		if (r != 0)
			return r;
	}
	loop->sigs[signo].fn = fn;
	loop->sigs[signo].ctx = ctx;
	return 0;
}

void
kai_loop_before_sleep(struct kai_loop *loop, kai_loop_hook_fn *fn, void *ctx)
{
	loop->hook = fn;
	loop->hook_ctx = ctx;
}

/* Milliseconds until the nearest timer, or -1 (sleep until an fd event). */
static int
loop_timeout(struct kai_loop *loop)
{
	int64_t d;

	if (loop->stop)
		return 0;
	if (loop->ntimers == 0)
		return -1;
	d = loop->timers[0].when - clock_ms();
	if (d <= 0)
		return 0;
	return d > 86400000 ? 86400000 : (int)d;
}

static void
loop_fire_timers(struct kai_loop *loop)
{
	struct loop_timer t;
	uint64_t last = loop->next_id;

	while (loop->ntimers > 0 && !loop->stop) {
		t = loop->timers[0];
		if (t.when > loop->now || t.id >= last)
			break;
		heap_remove(loop, 0);
		t.fn(loop, t.id, t.ctx);
	}
}

static void
loop_dispatch(struct kai_loop *loop, const struct epoll_event *ev)
{
	int fd = (int)(uint32_t)ev->data.u64;
	uint32_t gen = (uint32_t)(ev->data.u64 >> 32);
	struct loop_fd *f;
	int events = 0;

	if ((size_t)fd >= loop->nfds)
		return;
	f = &loop->fds[fd];
	if (f->events == 0 || f->gen != gen)
		return;
	if (ev->events & EPOLLIN)
		events |= KAI_LOOP_READ;
	if (ev->events & EPOLLOUT)
		events |= KAI_LOOP_WRITE;
	/* Errors and hang-ups wake whoever waits; their read/write sees why. */
	if (ev->events & (EPOLLERR | EPOLLHUP))
		events |= f->events;
	events &= f->events;
	if (events != 0)
		f->fn(loop, fd, events, f->ctx);
}

int
kai_loop_run(struct kai_loop *loop)
{
	struct epoll_event evs[LOOP_MAX_EVENTS];
	int i, n, r = 0;

	while (!loop->stop) {
		if (loop->hook != NULL)
			loop->hook(loop, loop->hook_ctx);
		n = epoll_wait(loop->epfd, evs, LOOP_MAX_EVENTS,
		    loop_timeout(loop));
		loop->now = clock_ms();
		if (n == -1) {
			if (errno == EINTR)
				continue;
			r = KAI_ESYS;
			break;
		}
		for (i = 0; i < n && !loop->stop; i++)
			loop_dispatch(loop, &evs[i]);
		loop_fire_timers(loop);
	}
	loop->stop = false;
	return r;
}

void
kai_loop_stop(struct kai_loop *loop)
{
	loop->stop = true;
}

int64_t
kai_loop_now_ms(struct kai_loop *loop)
{
	return loop->now;
}
