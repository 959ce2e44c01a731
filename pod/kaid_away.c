/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaid_away.c: a job pod's programs while kaid restarts (kaid_away.h).
 *
 * Step agents and srun wait on kaid for as long as a step runs, so a
 * kaid restart must not end them: they try again, quietly, for
 * KAID_AWAY_S.  kaid keeps a running step's task ends in memory; a kaid
 * started while the job runs reads its steps back from job_steps
 * (daemons/kaid/steps_acct.c, steps_recover()) but not which of their
 * tasks already ended.  The tasks that end later report to it as usual;
 * the ones that reported to the kaid before are sent again from here by
 * the agent when it reaches kaid after having lost it
 * (kaistep_agent.c).  kaid counts a task once, so sending again is
 * harmless.
 *
 * The ends are kept in the file KAI_STEP_ENDS, which the wrapper names
 * in its own directory for this run of this pod: a pod of a requeued
 * job's earlier run, or of a job of the same number under another
 * cluster (kubesim's pods share the host's /tmp), cannot hand kaid its
 * ends as this one's.  A record is a u16 length and the body, appended
 * with one write(2), which O_APPEND keeps whole beside other runners'
 * records.
 *
 * The messages of a try that will be made again are held back: a kaid
 * restart must not leave "no reply from kaid" lines in the job's error
 * file for requests that then went through.
 */
#include "config.h"

#include "kaid_away.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/msgtype.h"

#define REPORT_MAX 256 /* a STEP_DONE body is 28 bytes */

int
kaid_away_try(const char *prog, uint16_t type, const void *body, size_t len,
    client_reply_fn *on_reply, void *ctx, int *tries, bool *again)
{
	char *said = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&said, &n);
	int rc;

	/* Without a stream the messages go out as they come. */
	client_errors_to(f);
	rc = client_request(prog, type, body, len, on_reply, ctx);
	client_errors_to(NULL);
	if (f != NULL)
		(void)fclose(f);
	*again = rc == CLIENT_EXIT_CONNECT && ++*tries < KAID_AWAY_S;
	if (!*again && said != NULL)
		(void)fputs(said, stderr);
	free(said);
	return rc;
}

int
kaid_away_request(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *on_reply, void *ctx)
{
	int rc, tries = 0;
	bool again;

	while ((rc = kaid_away_try(prog, type, body, len, on_reply, ctx,
	    &tries, &again)) != CLIENT_EXIT_OK && again)
		(void)sleep(1);
	return rc;
}

/* The wrapper names it, in the pod's run's own directory. */
static const char *
path_of(void)
{
	const char *p = getenv("KAI_STEP_ENDS");

	return p != NULL && p[0] != '\0' ? p : NULL;
}

void
kaid_away_keep(const void *body, size_t len)
{
	unsigned char rec[2 + REPORT_MAX];
	const char *path = path_of();
	int fd;

	if (len > REPORT_MAX || path == NULL)
		return;
	rec[0] = (unsigned char)(len >> 8);
	rec[1] = (unsigned char)len;
	memcpy(rec + 2, body, len);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, rec, len + 2) != (ssize_t)(len + 2)) {
		/* a lost record costs only a restart's resend */
	}
	(void)close(fd);
}

static int
ignore_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	(void)type;
	(void)body;
	(void)len;
	(void)ctx;
	return CLIENT_EXIT_OK;
}

bool
kaid_away_resend(void)
{
	unsigned char rec[REPORT_MAX];
	unsigned char hdr[2];
	const char *path = path_of();
	FILE *quiet;
	size_t len;
	bool reached = true;
	int fd;

	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true;
	/* A record kaid refuses (a step it does not know) is not news. */
	quiet = fopen("/dev/null", "we");
	client_errors_to(quiet);
	while (reached && read(fd, hdr, 2) == 2) {
		len = (size_t)hdr[0] << 8 | hdr[1];
		if (len > REPORT_MAX || read(fd, rec, len) != (ssize_t)len)
			break;
		reached = client_request("kaistep", KAI_MSG_STEP_DONE, rec,
		    len, ignore_reply, NULL) != CLIENT_EXIT_CONNECT;
	}
	client_errors_to(NULL);
	if (quiet != NULL)
		(void)fclose(quiet);
	(void)close(fd);
	return reached;
}
