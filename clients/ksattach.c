/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksattach: this terminal on a running job's terminal.
 *
 *	ksattach JOBID[.STEP]
 *
 * Slurm's sattach for kaibatch's interactive jobs: any job whose script
 * runs `kaistep pty-serve` (ksrun, ksalloc, or a batch script that offers
 * a terminal).  It attaches through kaid (PTY_ATTACH without the owner
 * flag): first the output the job wrote while nobody watched (its last
 * 64 KiB), then what it writes, and what is typed goes to it.  Leaving
 * (Ctrl-], SIGTERM, SIGHUP, the connection lost) leaves the job running.
 * One client at a time: a job whose terminal is in use is refused.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strconv.h"
#include "client.h"
#include "client_pty.h"
#include "pty_term.h"

static const char *const prog = "ksattach";

static int
usage(FILE *f, int rc)
{
	(void)fprintf(f, "usage: ksattach JOBID[.STEP]\n"
	    "  Ctrl-] detaches; the job goes on.\n");
	return rc;
}

/* JOBID or JOBID.0: an interactive job's terminal is its step 0. */
static int
parse_id(const char *s, uint64_t *id, struct kai_err *err)
{
	char buf[64];
	const char *dot = strchr(s, '.');
	size_t n = dot != NULL ? (size_t)(dot - s) : strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\": "
		    "expected JOBID[.STEP]", s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (kai_strtou64(buf, UINT64_MAX, id, "job id", err) != 0 || *id == 0)
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\": "
		    "expected JOBID[.STEP]", s);
	if (dot != NULL && strcmp(dot, ".0") != 0)
		return kai_err_set(err, KAI_EINVAL, "invalid step \"%s\": "
		    "an interactive job's terminal is its step 0", dot + 1);
	return 0;
}

int
main(int argc, char **argv)
{
	struct kai_pty_open o = {0, 0, 0, 0};
	struct pty_term_opts t = {prog, 0, false, false, false, 0, false, false};
	struct kai_err err;
	uint64_t job;
	int fd, rc;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0))
		return usage(stdout, CLIENT_EXIT_OK);
	if (argc == 2 && (strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "--version") == 0)) {
		(void)printf("%s (kaibatch) %s\n", prog, PACKAGE_VERSION);
		return CLIENT_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-') {
		client_error(prog, NULL, "%s", argc < 2 ? "no job id given" :
		    argc > 2 ? "too many arguments" : "unrecognized option");
		return usage(stderr, CLIENT_EXIT_USAGE);
	}
	kai_err_clear(&err);
	if (parse_id(argv[1], &o.job, &err) != 0) {
		client_error(prog, NULL, "%s", kai_err_msg(&err));
		return CLIENT_EXIT_USAGE;
	}
	(void)pty_term_winsize(&o.rows, &o.cols);
	if ((rc = client_pty_open(prog, KAI_MSG_PTY_ATTACH, &o, &fd, &job)) !=
	    CLIENT_EXIT_OK)
		return rc;
	t.job = job;
	t.pty = isatty(STDIN_FILENO) != 0;
	return pty_term_run(&t, fd);
}
