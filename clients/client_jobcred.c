/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_jobcred.c: the in-pod auth backend, job credentials (client.h
 * client_cred_new(), auth/jobcred.h).
 *
 * kaid puts the job's key in a file of the pod ($KAI_JOB_KEY, readable
 * by the job's user only) and the job's id in $KAI_JOB_ID.  Each request
 * gets a fresh random nonce from getrandom(2), so two requests in the
 * same second are two credentials and kaid's replay cache tells a copy
 * from a new request.  The key is read for each request and wiped after.
 */
#include "config.h"

#include "client.h"

#include <sys/random.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth/jobcred.h"
#include "base/strconv.h"

static int
read_key(const char *path, uint8_t key[KAI_JOBCRED_KEY_LEN],
    struct kai_err *err)
{
	char text[KAI_JOBCRED_KEY_TEXT_LEN + 2];
	ssize_t n;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return kai_err_set(err, KAI_EAUTH,
		    "could not read the job key \"%s\": %s", path,
		    strerror(errno));
	n = read(fd, text, sizeof(text));
	if (n < 0)
		r = kai_err_set(err, KAI_EAUTH,
		    "could not read the job key \"%s\": %s", path,
		    strerror(errno));
	else if (kai_jobcred_key_parse(text, (size_t)n, key) != 0)
		r = kai_err_set(err, KAI_EAUTH,
		    "job key \"%s\" is not 64 hex digits", path);
	explicit_bzero(text, sizeof(text));
	(void)close(fd);
	return r;
}

int
client_cred_new(const char *munge_socket,
    const uint8_t digest[KAI_PROTO_DIGEST_LEN], int ttl_s, char **cred,
    struct kai_err *err)
{
	const char *path = getenv("KAI_JOB_KEY"), *id = getenv("KAI_JOB_ID");
	uint8_t key[KAI_JOBCRED_KEY_LEN], nonce[KAI_JOBCRED_NONCE_LEN];
	uint64_t job;
	int r;

	(void)munge_socket;
	(void)ttl_s;
	if (path == NULL || path[0] == '\0' || id == NULL)
		return kai_err_set(err, KAI_EAUTH,
		    "no job credential here: KAI_JOB_KEY and KAI_JOB_ID are "
		    "set only inside a job whose kaid has job_key_file");
	if (kai_strtou64(id, UINT64_MAX, &job, "KAI_JOB_ID", NULL) != 0 ||
	    job == 0)
		return kai_err_set(err, KAI_EAUTH,
		    "invalid KAI_JOB_ID \"%s\": expected a job id", id);
	if (getrandom(nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
		return kai_err_set(err, KAI_EAUTH,
		    "could not make a nonce: %s", strerror(errno));
	if ((r = read_key(path, key, err)) != 0)
		return r;
	*cred = kai_jobcred_new(job, key, (int64_t)time(NULL), nonce, digest);
	explicit_bzero(key, sizeof(key));
	return 0;
}
