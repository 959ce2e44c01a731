/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * policy.h: what kaid.yaml's qos: and accounts: decide about a job at
 * submission (policy.c).
 */
#ifndef KAID_POLICY_H
#define KAID_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "model/job.h"

struct kaid;

/* What the job gets from its QoS, beside the names written into its spec. */
struct policy {
	uint32_t priority;	/* the scheduler's, before a hold */
	bool preemptible;
	int64_t time_limit_s;	/* the limit after the QoS's MaxWall */
};

/*
 * Resolves js's QoS and account for user uid, and the job's priority,
 * preemptibility and time limit.  tl is the limit after the partition's
 * default (KAI_TIME_UNLIMITED or seconds); given says whether the user
 * gave it (-t) or the partition did.  On success js->qos holds the
 * QoS's name (the default's when the job named none) and js->account
 * the account's (Slurm's default account when it named none and
 * kaid.yaml lists accounts).  KAI_EINVAL with Slurm's message for an
 * unknown QoS, an account the user may not charge, or a -t over the
 * QoS's MaxWall; a bad --priority class too.
 */
int policy_submit(struct kaid *k, uint32_t uid, struct kai_jobspec *js,
    int64_t tl, bool given, struct policy *out, struct kai_err *err)
    KAI_MUST_CHECK;

/*
 * The scheduler priority of a job of QoS qos (NULL or "": none) and
 * priority class cls (NULL: not given): the class's when given, else the
 * QoS's when it sets one, else the default class's.  What a held job gets
 * back when it is released.
 */
uint32_t policy_priority(const struct kaid *k, const char *qos,
    const char *cls);

/*
 * Whether time limit tl (KAI_TIME_UNLIMITED or seconds) keeps the MaxWall
 * of QoS qos (NULL, "" or one no longer in kaid.yaml: no limit), for
 * kctl update job TimeLimit=; KAI_EINVAL with the message of a submission
 * otherwise.
 */
int policy_check_wall(const struct kaid *k, const char *qos, int64_t tl,
    struct kai_err *err) KAI_MUST_CHECK;

struct snap;

/*
 * Gives every job of the snapshot whose QoS limits a user's GPUs
 * (qos[].max_gpus_per_user) the cap of its (user, QoS) pair, which the
 * core holds in every phase (src/sched/qoslimit.c).  The caps are
 * sn->gpu_limits, freed by snap_fini().  A QoS removed from kaid.yaml
 * since the job was submitted limits nothing.
 */
void policy_snap(const struct kaid *k, struct snap *sn);

#endif /* KAID_POLICY_H */
