/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loop.h: kaid's single-threaded event loop (epoll), in the manner of
 * redis ae.c.
 *
 * File events, one-shot timers, signals (signalfd) and a before-sleep hook
 * that runs once per iteration after all ready events were handled: kaid
 * commits the submissions gathered in one iteration there (group commit).
 * Callbacks run on the loop's thread only; there are no locks.
 */
#ifndef KAI_SYS_LOOP_H
#define KAI_SYS_LOOP_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_LOOP_READ  0x1
#define KAI_LOOP_WRITE 0x2

struct kai_loop;

typedef void kai_loop_fd_fn(struct kai_loop *loop, int fd, int events,
    void *ctx);
typedef void kai_loop_timer_fn(struct kai_loop *loop, uint64_t id, void *ctx);
typedef void kai_loop_signal_fn(struct kai_loop *loop, int signo, void *ctx);
typedef void kai_loop_hook_fn(struct kai_loop *loop, void *ctx);

/* Caller owns the result; kai_loop_free() closes the loop's own fds. */
struct kai_loop *kai_loop_new(struct kai_err *err);
void kai_loop_free(struct kai_loop *loop);

/*
 * Watches fd for events (KAI_LOOP_READ and/or KAI_LOOP_WRITE), replacing
 * any earlier registration of fd.  events 0 removes it.  The fd stays the
 * caller's to close (remove it first).
 */
int kai_loop_fd_set(struct kai_loop *loop, int fd, int events,
    kai_loop_fd_fn *fn, void *ctx) KAI_MUST_CHECK;
void kai_loop_fd_del(struct kai_loop *loop, int fd);

/* A one-shot timer after ms milliseconds; returns its id (never 0). */
uint64_t kai_loop_timer_add(struct kai_loop *loop, int64_t ms,
    kai_loop_timer_fn *fn, void *ctx);
/* Cancels a pending timer; unknown or fired ids are ignored. */
void kai_loop_timer_del(struct kai_loop *loop, uint64_t id);

/* Blocks signo and delivers it through the loop. */
int kai_loop_signal_add(struct kai_loop *loop, int signo,
    kai_loop_signal_fn *fn, void *ctx) KAI_MUST_CHECK;

/* The hook run before every sleep (one at most; NULL removes it). */
void kai_loop_before_sleep(struct kai_loop *loop, kai_loop_hook_fn *fn,
    void *ctx);

/* Runs until kai_loop_stop(); returns 0 or KAI_ESYS. */
int kai_loop_run(struct kai_loop *loop) KAI_MUST_CHECK;
void kai_loop_stop(struct kai_loop *loop);

/* Monotonic milliseconds, cached once per iteration. */
int64_t kai_loop_now_ms(struct kai_loop *loop);

#endif /* KAI_SYS_LOOP_H */
