/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mail.h: job mail (sbatch --mail-type, --mail-user), owned by mail.c.
 *
 * The files where a job's events happen call one function each: a job
 * starts (reconcile.c), ends (reconcile.c, evict.c), is requeued
 * (rpc_jobctl.c, evict.c); the tick calls mail_tick() for the time
 * limits.  mail.c decides, with Slurm's rules, whether the job asked for
 * that notice, words it (model/mail.c) and runs kaid.yaml's mail_prog
 * without blocking the loop.  struct mailer (the programs running, the
 * notices waiting) is defined in mail.c alone.
 */
#ifndef KAID_MAIL_H
#define KAID_MAIL_H

#include <stdint.h>

#include "model/job.h"

struct kaid;

/* At submission: "NONE" when --mail-type was not given, the user's name
 * when --mail-user was not (scontrol shows both). */
void mail_submit_defaults(struct kai_jobspec *js, const char *user);
/* j moved to RUNNING at now (BEGIN). */
void mail_started(struct kaid *k, const struct kai_job *j, int64_t now);
/* j ended in state to (END or FAIL; an array's summary at its end). */
void mail_ended(struct kaid *k, const struct kai_job *j, enum kai_job_state to,
    int32_t exit_code, int32_t exit_signal, int64_t end_time);
/* j, still RUNNING or CONFIGURING, goes back to PENDING at now. */
void mail_requeued(struct kaid *k, const struct kai_job *j, int64_t now);
/* j's dependency can never be met (INVALID_DEPEND), once. */
void mail_invalid_depend(struct kaid *k, const struct kai_job *j,
    int64_t now);
/* The time limits' notices of running jobs, once per tick. */
void mail_tick(struct kaid *k, int64_t now);
/* Frees what mail.c keeps; programs still running are left to finish. */
void mail_free(struct kaid *k);

#endif /* KAID_MAIL_H */
