/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_main.c: the one main() of the client programs.  See
 * client_main.h.
 */
#include "config.h"

#include "client_main.h"

#include <stdio.h>

#include "client.h"

enum client_action
client_action_of(bool help, bool version)
{
	return help ? CLIENT_HELP : version ? CLIENT_VERSION : CLIENT_RUN;
}

int
client_main(const struct client_prog *p, void *ctx, int argc, char **argv)
{
	enum client_action act = CLIENT_RUN;
	struct kai_err err;
	int rc;

	kai_err_clear(&err);
	if (p->parse(ctx, argc, argv, &act, &err) != 0) {
		client_error(p->name, err.hint, "%s", kai_err_msg(&err));
		rc = CLIENT_EXIT_USAGE;
	} else if (act == CLIENT_HELP) {
		cliopt_usage(stdout, p->synopsis, p->table, p->ntable);
		rc = CLIENT_EXIT_OK;
	} else if (act == CLIENT_VERSION) {
		(void)printf("%s (kaibatch) %s\n", p->name, PACKAGE_VERSION);
		rc = CLIENT_EXIT_OK;
	} else {
		rc = p->run(ctx);
	}
	if (p->fini != NULL)
		p->fini(ctx);
	return rc;
}
