/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podfail.c: what kaid does when the API server refuses to create a pod.
 *
 * A refusal is either about the pod itself, and asking again can only get
 * the same answer, or about the moment.  The pod's own fault: 400 (bad
 * request), 413 (too large: an environment or script near the limits),
 * 422 (invalid), and 403 from an admission plugin (a Pod Security level
 * the pod violates).  Those fail the job, with the API server's message as
 * its reason, instead of creating the pod again on every tick for ever.
 * Everything else (429, 5xx, timeouts, a 403 for an exhausted
 * ResourceQuota or for RBAC, both of which an operator may fix) is tried
 * again after a delay that doubles with each refusal, from
 * PODFAIL_FIRST_MS up to PODFAIL_MAX_MS, so that a struggling API server
 * is not hammered.  The delays are kept per pod in struct podfail and
 * forgotten when the pod is created or deleted.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

#define PODFAIL_FIRST_MS 1000
#define PODFAIL_MAX_MS	 60000

struct backoff {
	unsigned failures;
	int64_t until_ms;	/* loop time before which no create is sent */
};

struct podfail {
	struct kai_map backoff;	/* pod name -> struct backoff * */
};

void
podfail_init(struct kaid *k)
{
	k->podfail = kai_xcalloc(1, sizeof(*k->podfail));
	kai_map_init(&k->podfail->backoff, free);
}

void
podfail_free(struct kaid *k)
{
	if (k->podfail == NULL)
		return;
	kai_map_fini(&k->podfail->backoff);
	KAI_FREE(k->podfail);
}

/*
 * Whether a refusal is about the pod (permanent).  A 403 is the pod's
 * fault when an admission plugin refused it; RBAC ("cannot create
 * resource") and ResourceQuota ("exceeded quota") refusals are kaid's
 * or the namespace's, and pass.
 */
static bool
permanent(int code, const char *msg)
{
	if (code == KAI_EINVAL)
		return true;
	if (code != KAI_EPERM)
		return false;
	return strstr(msg, "exceeded quota") == NULL &&
	    strstr(msg, "cannot create resource") == NULL;
}

bool
podfail_waiting(const struct kaid *k, const char *pod)
{
	const struct backoff *b = kai_map_get(&k->podfail->backoff, pod);

	return b != NULL && kai_loop_now_ms(k->loop) < b->until_ms;
}

void
podfail_forget(struct kaid *k, const char *pod)
{
	kai_map_del(&k->podfail->backoff, pod);
}

void
podfail_refused(struct kaid *k, uint64_t job_id, const char *pod, int code,
    const struct kai_err *err)
{
	struct kai_job *job = state_job(k, job_id);
	const char *msg = kai_err_msg(err);
	struct backoff *b;
	int64_t delay;
	unsigned i;

	if (job == NULL)
		return;		/* ended meanwhile: nothing to create */
	if (permanent(code, msg) && job->state == KAI_JOB_CONFIGURING) {
		kai_log_warn("job %" PRIu64 ": failed: the API server refused "
		    "its pod for good: %s", job_id, msg);
		podfail_forget(k, pod);
		/* The API server's answer: its arrival is the time. */
		(void)reconcile_finish(k, job, KAI_JOB_FAILED, msg, 1, 0, -1,
		    kaid_now());
		return;
	}
	if ((b = kai_map_get(&k->podfail->backoff, pod)) == NULL) {
		b = kai_xcalloc(1, sizeof(*b));
		kai_map_put(&k->podfail->backoff, pod, b);
	}
	b->failures++;
	delay = PODFAIL_FIRST_MS;
	for (i = 1; i < b->failures && delay < PODFAIL_MAX_MS; i++)
		delay *= 2;
	if (delay > PODFAIL_MAX_MS)
		delay = PODFAIL_MAX_MS;
	b->until_ms = kai_loop_now_ms(k->loop) + delay;
	kai_log_warn("job %" PRIu64 ": could not create pod \"%s\" (refusal "
	    "%u, next try in %" PRId64 " ms): %s", job_id, pod, b->failures,
	    delay, msg);
}
