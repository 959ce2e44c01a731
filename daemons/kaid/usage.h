/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * usage.h: decayed usage and the scheduling: section (usage.c).
 *
 * struct usage (per queue and user resource-seconds, carried forward
 * each tick) is defined in usage.c alone.
 */
#ifndef KAID_USAGE_H
#define KAID_USAGE_H
#include <stdbool.h>
#include <stdint.h>
#include "sched/sched_model.h"
struct kaid;
struct kai_job;
struct snap;

/* Carries usage forward to now, re-reads finished jobs when due. */
void usage_update(struct kaid *k, int64_t now);
/* Normalised usage into the snapshot's queues and users. */
void usage_apply(struct kaid *k, struct snap *sn);
/* Per snapshot queue (rolled up) resource-seconds; cluster capacity. */
void usage_totals(const struct kaid *k, const struct snap *sn,
    double (*tot)[KAI_SCHED_NRES], double cap[KAI_SCHED_NRES]);
bool usage_of(const struct kaid *k, const char *queue, const char *user,
    double out[KAI_SCHED_NRES]);
void usage_each(const struct kaid *k,
    void (*fn)(const char *queue, const char *user, void *ctx), void *ctx);
void usage_config(const struct kaid *k, struct kai_sched_config *c);
/* The GPUs a job holds (its allocations), in micro-GPUs; fractions count. */
uint64_t usage_gpu_micro(const struct kai_job *j);
void usage_free(struct kaid *k);

#endif /* KAID_USAGE_H */
