/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_wait.c: ksubmit -W/--wait, waiting for the job just submitted
 * to end, and its exit code.  See submit_wait.h.
 *
 * sbatch waits by polling the controller (_job_wait() in sbatch.c); so
 * does ksubmit, with the KAI_MSG_QUERY that kqueue and kacct send, so
 * kaid needs nothing new.  Each round asks first for the job's ACTIVE
 * records, which kaid answers from memory, without PostgreSQL: that is
 * the question asked over and over while the job runs.  Only when no
 * record is active any more does ksubmit ask once for the finished ones
 * (a history query, from PostgreSQL).  kaid writes a job's end to
 * PostgreSQL before it forgets the job from memory, so a job that has
 * left the first answer is always in the second.  The job id names an
 * array's tasks too, on both paths, so an array is waited for whole.
 *
 * The pause between rounds starts at WAIT_FIRST_MS, so a short job is
 * seen ending promptly, and doubles up to WAIT_MAX_MS, so a long one
 * costs kaid one cheap query every two seconds.
 */
#include "config.h"

#include "submit_wait.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "jobquery.h"

#define WAIT_FIRST_MS 100
#define WAIT_MAX_MS   2000

static void
pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * sbatch's rule: the highest exit status among the records, a record
 * ended by a signal counting as 1, and so a TIMEOUT (whose ExitCode is
 * 0:0, as sacct shows it, though its script was ended by SIGTERM).
 */
static int
exit_status(const struct kai_jobinfo *jobs, size_t n)
{
	int ec = 0, e;
	size_t i;

	for (i = 0; i < n; i++) {
		e = jobs[i].exit_signal != 0 ||
		    jobs[i].state == KAI_JOB_TIMEOUT ? 1 :
		    jobs[i].exit_code & 0xff;
		if (e > ec)
			ec = e;
	}
	return ec;
}

/*
 * One round: *done is set once nothing of the job is active, and *ec
 * then holds its exit status.  Returns a CLIENT_EXIT_* code.
 */
static int
poll_once(const char *prog, uint64_t id, bool *done, int *ec)
{
	uint64_t ids[1] = {id};
	struct kai_jobinfo *jobs = NULL;
	struct kai_query q;
	size_t n = 0;
	int rc;

	memset(&q, 0, sizeof(q));
	q.ids = ids;
	q.nids = 1;
	if ((rc = jobquery_run(prog, &q, &jobs, &n)) != CLIENT_EXIT_OK)
		return rc;
	jobquery_free(jobs, n);
	*done = n == 0;
	if (!*done)
		return CLIENT_EXIT_OK;
	q.flags = KAI_QUERY_HISTORY;
	if ((rc = jobquery_run(prog, &q, &jobs, &n)) != CLIENT_EXIT_OK)
		return rc;
	if (n == 0) {
		client_error(prog, NULL,
		    "job %" PRIu64 " is no longer known to kaid: its exit code "
		    "is unknown", id);
		return CLIENT_EXIT_REFUSED;
	}
	*ec = exit_status(jobs, n);
	jobquery_free(jobs, n);
	return CLIENT_EXIT_OK;
}

int
submit_wait(const char *prog, uint64_t id)
{
	long ms = WAIT_FIRST_MS;
	bool done = false;
	int ec = 0, rc;

	for (;;) {
		pause_ms(ms);
		ms = ms * 2 > WAIT_MAX_MS ? WAIT_MAX_MS : ms * 2;
		rc = poll_once(prog, id, &done, &ec);
		/* kaid away (a restart): try again, as sbatch does */
		if (rc == CLIENT_EXIT_CONNECT)
			continue;
		if (rc != CLIENT_EXIT_OK)
			return rc;
		if (done)
			return ec;
	}
}
