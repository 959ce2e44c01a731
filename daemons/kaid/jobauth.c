/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobauth.c: requests from inside jobs, with job credentials.
 *
 * kaid's master key is read once, at start (kaid.yaml job_key_file), and
 * never leaves kaid; each job's key is derived from it (jobcred.h) and
 * reaches the job's pods in a Secret kaid creates with the job's first
 * pod and deletes with its pods (dispatch.c, reconcile.c).  A job credential
 * is accepted when its MAC is right, it is within the window, it is not
 * a replay, and its job is still configuring or running: once the job
 * ended, was requeued or left kaid's cache, a key copied from its pods
 * is worth nothing.  The identity is the job's uid and gid as kaid
 * recorded them at submit.  Changing the key file takes a restart: a
 * reload must not strand the credentials of running jobs.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/jobcred.h"
#include "base/base64.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

struct jobauth {
	uint8_t master[KAI_JOBCRED_KEY_LEN];
	struct kai_jobcred_replay *replay;
};

int
jobauth_init(struct kaid *k, struct kai_err *err)
{
	const char *path = k->conf->job_key_file;
	char text[KAI_JOBCRED_KEY_TEXT_LEN + 2];
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	if (path == NULL)
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return kai_err_set(err, KAI_ECONFIG,
		    "could not open job_key_file \"%s\": %s", path,
		    strerror(errno));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		r = kai_err_set(err, KAI_ECONFIG,
		    "job_key_file \"%s\" is not a regular file", path);
	else if ((st.st_mode & 077) != 0)
		r = kai_err_set(err, KAI_ECONFIG,
		    "job_key_file \"%s\" is readable by others (mode %04o): "
		    "chmod 600 it", path, (unsigned)(st.st_mode & 07777));
	else if ((n = read(fd, text, sizeof(text))) < 0)
		r = kai_err_set(err, KAI_ECONFIG,
		    "could not read job_key_file \"%s\": %s", path,
		    strerror(errno));
	else {
		k->jobauth = kai_xcalloc(1, sizeof(*k->jobauth));
		if (kai_jobcred_key_parse(text, (size_t)n,
			k->jobauth->master) != 0) {
			r = kai_err_set(err, KAI_ECONFIG,
			    "job_key_file \"%s\": expected 64 hex digits (make "
			    "one with: openssl rand -hex 32)", path);
			jobauth_free(k);
		} else {
			k->jobauth->replay = kai_jobcred_replay_new();
		}
	}
	explicit_bzero(text, sizeof(text));
	(void)close(fd);
	return r;
}

void
jobauth_free(struct kaid *k)
{
	if (k->jobauth == NULL)
		return;
	kai_jobcred_replay_free(k->jobauth->replay);
	explicit_bzero(k->jobauth->master, sizeof(k->jobauth->master));
	KAI_FREE(k->jobauth);
}

bool
jobauth_enabled(const struct kaid *k)
{
	return k->jobauth != NULL;
}

void
jobauth_job_key(const struct kaid *k, uint64_t id,
    uint8_t key[KAI_JOBCRED_KEY_LEN])
{
	KAI_ASSERT(k->jobauth != NULL);
	kai_jobcred_job_key(k->jobauth->master, id, key);
}

int
jobauth_verify(struct kaid *k, const char *cred, struct rpc_cred *who,
    struct kai_err *err)
{
	struct kai_jobcred c;
	const struct kai_job *j;
	int64_t now = kaid_now();
	int r;

	if (k->jobauth == NULL)
		return kai_err_set(err, KAI_EAUTH,
		    "job credentials are not enabled (job_key_file in "
		    "kaid.yaml)");
	if ((r = kai_jobcred_parse(cred, &c, err)) != 0 ||
	    (r = kai_jobcred_check(&c, k->jobauth->master, now,
		 KAI_JOBCRED_WINDOW_S, err)) != 0)
		return r;
	/* The job after the MAC: an unknown id is no oracle then. */
	j = state_job(k, c.job_id);
	if (j == NULL || (j->state != KAI_JOB_RUNNING &&
	    j->state != KAI_JOB_CONFIGURING))
		return kai_err_set(err, KAI_EAUTH,
		    "job %" PRIu64 " is not running: its credential is no "
		    "longer valid", c.job_id);
	if ((r = kai_jobcred_replay_check(k->jobauth->replay, &c, now,
		 KAI_JOBCRED_WINDOW_S, err)) != 0)
		return r;
	who->uid = j->uid;
	who->gid = j->gid;
	who->job_id = c.job_id;
	memcpy(who->digest, c.digest, sizeof(who->digest));
	return 0;
}

char *
jobauth_secret_name(uint64_t id)
{
	return kai_xasprintf("kai-%" PRIu64 "-key", id);
}

struct secret_call {
	uint64_t id;
	char *name;
};

static void
on_secret(int code, const struct kai_err *err, void *ctx)
{
	struct secret_call *c = ctx;

	/* 409: made for an earlier pod; 404: gone already.  The pods wait
	 * in ContainerCreating for a Secret that failed, and the next pod
	 * create of the job asks again. */
	if (code != 0 && code != KAI_EEXIST && code != KAI_ENOENT &&
	    code != KAI_EAGAIN)
		kai_log_warn("job %" PRIu64 ": %s", c->id, kai_err_msg(err));
	free(c->name);
	free(c);
}

void
jobauth_secret_create(struct kaid *k, const struct kai_job *j)
{
	uint8_t key[KAI_JOBCRED_KEY_LEN];
	char text[KAI_JOBCRED_KEY_TEXT_LEN + 1], jobid[32], *b64;
	const char *kv[2];
	struct secret_call *c = kai_xcalloc(1, sizeof(*c));

	jobauth_job_key(k, j->id, key);
	kai_jobcred_key_text(key, text);
	b64 = kai_base64_encode(text, strlen(text));
	(void)snprintf(jobid, sizeof(jobid), "%" PRIu64, j->id);
	kv[0] = JOBAUTH_KEY;
	kv[1] = b64;
	c->id = j->id;
	c->name = jobauth_secret_name(j->id);
	kai_kube_secret_create(k->kube, c->name, jobid, kv, 1, on_secret, c);
	explicit_bzero(key, sizeof(key));
	explicit_bzero(text, sizeof(text));
	kai_free_secret(b64, strlen(b64));
}

void
jobauth_secret_delete(struct kaid *k, uint64_t id)
{
	struct secret_call *c = kai_xcalloc(1, sizeof(*c));

	c->id = id;
	c->name = jobauth_secret_name(id);
	kai_kube_secret_delete(k->kube, c->name, on_secret, c);
}
