/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobfields.h: cell renderers shared by kqueue and kacct.
 *
 * Each renders one field of a job into b (n bytes, always terminated);
 * now is the time "elapsed" fields are measured to.  The renderers that
 * squeue and sacct print the same way live here; those whose output
 * differs between the two (time limits, node lists, allocations) stay in
 * their program.
 */
#ifndef KAI_CLIENTS_JOBFIELDS_H
#define KAI_CLIENTS_JOBFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "model/job.h"

typedef void jobfield_fn(const struct kai_jobinfo *j, int64_t now, char *b,
    size_t n);

jobfield_fn jf_id;	/* 42, 42_7, 42_[8-99%10] */
jobfield_fn jf_id_raw;	/* 42 */
jobfield_fn jf_name;	/* job name */
jobfield_fn jf_queue;	/* partition */
jobfield_fn jf_account;
jobfield_fn jf_qos;	/* the QoS kaid gave the job; "" = none */
jobfield_fn jf_dependency; /* its items not met, squeue's %E; "(null)" */
jobfield_fn jf_state;	/* PENDING, RUNNING, ... */
jobfield_fn jf_workdir;
jobfield_fn jf_user;	/* user name, or the uid when kaid knew no name */
jobfield_fn jf_uid;
jobfield_fn jf_array_job;	/* squeue %F: 42 for 42_7 and for 42 */
jobfield_fn jf_array_task;	/* squeue %K: 7, [8-99%10], N/A */
jobfield_fn jf_time_left;	/* squeue %L: limit less time used */
jobfield_fn jf_end;		/* squeue %e: end, or start + limit; N/A */
jobfield_fn jf_cpus_per_task;	/* squeue %c, -O cpus-per-task */
jobfield_fn jf_gid;		/* squeue %G */
jobfield_fn jf_tres_task;	/* squeue -O tres-per-task: gres/gpu:N */
jobfield_fn jf_tres_node;	/* squeue -O tres-per-node: gres/gpu:N */
jobfield_fn jf_pending_time;	/* squeue -O PendingTime: seconds */

#endif /* KAI_CLIENTS_JOBFIELDS_H */
