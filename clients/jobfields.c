/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobfields.c: cell renderers shared by kqueue and kacct.  See
 * jobfields.h.
 */
#include "config.h"

#include "jobfields.h"

#include <stdio.h>
#include <string.h>

#include "model/jobstate.h"
#include "output.h"

static void
str(const char *s, char *b, size_t n)
{
	out_copy(b, n, s);
}

/* squeue's JOBID: "123_4" / "123_[5-99%10]" for arrays. */
void
jf_id(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	if (j->array_id != NULL && j->array_id[0] != '\0')
		str(j->array_id, b, n);
	else
		out_u64(b, n, j->id);
}

void
jf_id_raw(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->id);
}

void
jf_name(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->name, b, n);
}

void
jf_queue(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->queue, b, n);
}

void
jf_account(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->account, b, n);
}

void
jf_state(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(kai_jobstate_name(j->state), b, n);
}

void
jf_workdir(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->workdir, b, n);
}

void
jf_user(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	if (j->user != NULL && *j->user != '\0')
		str(j->user, b, n);
	else
		out_u64(b, n, j->uid);
}

void
jf_uid(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->uid);
}

/*
 * Array fields (squeue %F, %K): the record's array and task come from
 * its array_id, "123_4" or "123_[5-99%10]"; a job outside an array is
 * its own array (%F) and has no task (%K "N/A"), as in squeue.
 */
void
jf_array_job(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	const char *us = j->array_id != NULL ? strchr(j->array_id, '_') : NULL;

	(void)now;
	if (us == NULL) {
		out_u64(b, n, j->id);
		return;
	}
	out_copy(b, n < (size_t)(us - j->array_id) + 1 ? n :
	    (size_t)(us - j->array_id) + 1, j->array_id);
}

void
jf_array_task(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	const char *us = j->array_id != NULL ? strchr(j->array_id, '_') : NULL;

	(void)now;
	str(us != NULL ? us + 1 : "N/A", b, n);
}
