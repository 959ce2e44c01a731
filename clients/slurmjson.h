/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slurmjson.h: kqueue --json and kacct --json in the layout Slurm 22.05's
 * squeue --json (openapi/v0.0.38) and sacct --json (openapi/dbv0.0.38)
 * print, so that a script written against Slurm reads ours.  Only the keys
 * our job record can fill are present; doc/man/kqueue.1 and kacct.1 list
 * the ones left out.  After Slurm's keys each job carries the kaibatch
 * keys of model/jobfields.def whose names Slurm does not use.
 */
#ifndef KAI_CLIENTS_SLURMJSON_H
#define KAI_CLIENTS_SLURMJSON_H

#include <stddef.h>
#include <stdint.h>

#include "model/job.h"

struct json_object;

enum slurmjson_layout {
	SLURMJSON_SQUEUE,	/* squeue --json: flat job objects */
	SLURMJSON_SACCT		/* sacct --json: nested state, time, tres */
};

/*
 * {"meta": {...}, "errors": [], "jobs": [...]} for the jobs v[0..n) at
 * time now (the elapsed time of a running job).  Caller owns the result.
 */
struct json_object *slurmjson_jobs(enum slurmjson_layout l,
    const struct kai_jobinfo *const *v, size_t n, int64_t now);

/*
 * {"status", "return_code"[, "signal"]}: how j (a job, or a step's row)
 * ended, as sacct --json's exit_code and a step's.
 */
struct json_object *slurmjson_exit_code(const struct kai_jobinfo *j);

#endif
