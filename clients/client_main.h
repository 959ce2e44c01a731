/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_main.h: the one main() of the client programs.
 *
 * Every client does the same around its own work: read the command line
 * over its option table (cliopt.h); on a fault print one line
 * "prog: error: <reason>" (and the hint, if any) and exit 2; answer -h
 * with the table's usage and -V with the version, exit 0; otherwise run
 * and exit with what run returns (CLIENT_EXIT_*, client.h, which also
 * connects, authenticates and reports kaid's refusals); in every case
 * release what parsing took.  A program declares a struct client_prog
 * and its main() is one call to client_main().
 */
#ifndef KAI_CLIENTS_CLIENT_MAIN_H
#define KAI_CLIENTS_CLIENT_MAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cliopt.h"

enum client_action {
	CLIENT_RUN = 0,
	CLIENT_HELP,	/* -h: print the usage */
	CLIENT_VERSION	/* -V: print "prog (kaibatch) VERSION" */
};

struct client_prog {
	const char *name;	      /* "kqueue": messages, -V */
	const char *const *synopsis;  /* -h: the usage lines, NULL-ended */
	const struct cliopt *table;   /* -h: the options */
	size_t ntable;
	/*
	 * Reads argv into ctx and says what to do; KAI_EINVAL (or another
	 * code) with err naming the fault.  Called once.
	 */
	int (*parse)(void *ctx, int argc, char **argv,
	    enum client_action *act, struct kai_err *err);
	int (*run)(void *ctx);	/* the exit status */
	void (*fini)(void *ctx);	/* NULL = nothing to release */
};

/* The exit status of the program p with its state ctx (zeroed). */
int client_main(const struct client_prog *p, void *ctx, int argc,
    char **argv);

/* -h wins over -V, as in every client: the action for the two flags. */
enum client_action client_action_of(bool help, bool version);

#endif /* KAI_CLIENTS_CLIENT_MAIN_H */
