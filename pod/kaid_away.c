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
 * The ends are kept in a file per pod in $TMPDIR (else /tmp), private to
 * the pod's container, named after the job and the pod (kubesim's pods
 * share the host's /tmp); a record is a u16 length and the body,
 * appended with one write(2), which O_APPEND keeps whole beside other
 * runners' records.
 */
#include "config.h"

#include "kaid_away.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/msgtype.h"

#define REPORT_MAX 256 /* a STEP_DONE body is 28 bytes */

void
kaid_away_quiet(bool on)
{
	static int saved = -1;
	int null;

	if (on && saved < 0) {
		saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
		if (saved >= 0 &&
		    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
			(void)dup2(null, 2);
			(void)close(null);
		}
	} else if (!on && saved >= 0) {
		(void)dup2(saved, 2);
		(void)close(saved);
		saved = -1;
	}
}

int
kaid_away_request(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *on_reply, void *ctx)
{
	int rc, tries = 0;

	while ((rc = client_request(prog, type, body, len, on_reply, ctx)) ==
	    CLIENT_EXIT_CONNECT && ++tries < KAID_AWAY_S) {
		if (tries == 1)
			kaid_away_quiet(true);
		(void)sleep(1);
	}
	kaid_away_quiet(false);
	return rc;
}

static bool
path_of(char *p, size_t n)
{
	const char *dir = getenv("TMPDIR");
	const char *job = getenv("SLURM_JOB_ID");
	const char *pod = getenv("SLURM_PROCID");
	int w;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	if (job == NULL || pod == NULL)
		return false;
	w = snprintf(p, n, "%s/.kaistep-done.%s.%s", dir, job, pod);
	return w > 0 && (size_t)w < n;
}

void
kaid_away_keep(const void *body, size_t len)
{
	unsigned char rec[2 + REPORT_MAX];
	char path[PATH_MAX];
	int fd;

	if (len > REPORT_MAX || !path_of(path, sizeof(path)))
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

void
kaid_away_resend(void)
{
	unsigned char rec[REPORT_MAX];
	unsigned char hdr[2];
	char path[PATH_MAX];
	size_t len;
	int fd;

	if (!path_of(path, sizeof(path)) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	kaid_away_quiet(true);
	while (read(fd, hdr, 2) == 2) {
		len = (size_t)hdr[0] << 8 | hdr[1];
		if (len > REPORT_MAX || read(fd, rec, len) != (ssize_t)len)
			break;
		(void)client_request("kaistep", KAI_MSG_STEP_DONE, rec, len,
		    ignore_reply, NULL);
	}
	kaid_away_quiet(false);
	(void)close(fd);
}
