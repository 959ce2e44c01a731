/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobfields.c: cell renderers shared by kqueue and kacct.  See
 * jobfields.h.
 */
#include "config.h"

#include "jobfields.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobquery.h"
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

/* A job recorded before kaibatch had QoS, or a workload's: none. */
void
jf_qos(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->qos != NULL ? j->qos : "", b, n);
}

void
jf_dependency(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	str(j->dependency != NULL && j->dependency[0] != '\0' ?
	    j->dependency : "(null)", b, n);
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

/*
 * squeue fields (kqueue -o/-O) added with issue 4.
 */

static bool
active(const struct kai_jobinfo *j)
{
	return (KAI_JOB_STATES_ACTIVE & KAI_JOB_STATE_BIT(j->state)) != 0;
}

/* squeue %L: the limit less the time used; a pending job has it all. */
void
jf_time_left(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];
	int64_t left;

	if (j->time_limit_s == KAI_TIME_UNLIMITED || j->time_limit_s < 0) {
		out_copy(b, n, out_limit(j->time_limit_s, false, t));
		return;
	}
	left = j->time_limit_s - jobquery_elapsed(j, now);
	if (!active(j) || left < 0)
		left = 0;
	out_copy(b, n, out_elapsed_squeue(left, t));
}

/*
 * squeue %e: when the job ended, or for a running job when its limit
 * ends it; "N/A" while that is unknown (pending, or no limit).
 */
void
jf_end(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];
	int64_t end = j->end_time;

	(void)now;
	if (end <= 0 && j->start_time > 0 && active(j) &&
	    j->time_limit_s != KAI_TIME_UNLIMITED && j->time_limit_s >= 0)
		end = j->start_time + j->time_limit_s;
	out_copy(b, n, end > 0 ? out_timestamp(end, t) : "N/A");
}

/* squeue %c (CPUs per node; here a pod per task) and -O cpus-per-task. */
void
jf_cpus_per_task(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->cpus_per_task > 0 ? j->cpus_per_task : 1);
}

void
jf_gid(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->gid);
}

/* squeue -O tres-per-task: "gres/gpu:2", "N/A" without GPUs. */
void
jf_tres_task(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	if (j->gpus_per_task == 0)
		out_copy(b, n, "N/A");
	else
		(void)snprintf(b, n, "gres/gpu:%" PRIu32, j->gpus_per_task);
}

/* squeue -O tres-per-node: "gres/gpu:1" for --gres=gpu:1, "N/A" else. */
void
jf_tres_node(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	if (j->gpus_per_node == 0)
		out_copy(b, n, "N/A");
	else
		(void)snprintf(b, n, "gres/gpu:%" PRIu32, j->gpus_per_node);
}

/* squeue -O PendingTime: seconds from submission to start (or now). */
void
jf_pending_time(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	int64_t until = j->start_time > 0 ? j->start_time :
	    j->state == KAI_JOB_PENDING ? now : j->submit_time;

	out_u64(b, n, until > j->submit_time ?
	    (uint64_t)(until - j->submit_time) : 0);
}
