/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_term.h: the login node's end of an interactive session (ksrun,
 * ksalloc, ksattach): the user's terminal in raw mode while the remote
 * command runs, keystrokes and window sizes to it, its output back.
 */
#ifndef KAI_CLIENTS_PTY_TERM_H
#define KAI_CLIENTS_PTY_TERM_H

#include <stdbool.h>
#include <stdint.h>

#define PTY_TERM_DETACH 0x1d /* Ctrl-], telnet's escape */

struct pty_term_opts {
	const char *prog;
	uint64_t job;
	bool pty;	/* the remote end is a terminal: raw mode here */
	bool alloc;	/* ksalloc: salloc's "Granted job allocation" */
	bool owner;	/* a signal here ends the session (ksrun, ksalloc);
			 * else Ctrl-] (PTY_TERM_DETACH) detaches */
	/* The job to cancel when the user gives up before it starts
	 * (Ctrl-C, SIGTERM); 0 = none (ksattach). */
	uint64_t cancel_job;
	/* An owner's Ctrl-C while the command runs without a terminal
	 * (srun's): the first says the task's state, a second within a
	 * second sends SIGINT to the command.  quit_on_intr
	 * (--quit-on-interrupt) sends it at the first; disable_status (-X,
	 * --disable-status) too, without the state. */
	bool quit_on_intr;
	bool disable_status;
};

/*
 * Relays between this process's stdin/stdout/stderr and the session on
 * sock until the remote command ends, and returns its exit status (the
 * code, or 128 + the signal), or 1 with a message when the session ended
 * without one.  Closes sock.
 */
int pty_term_run(const struct pty_term_opts *o, int sock);

/* Cancels job id (kcancel's request), saying so on stderr. */
void pty_term_cancel(const char *prog, uint64_t id);

/* The window size of stdin's terminal; false when it is none. */
bool pty_term_winsize(uint16_t *rows, uint16_t *cols);

#endif /* KAI_CLIENTS_PTY_TERM_H */
