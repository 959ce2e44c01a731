/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * share.h: the last pass's figures per queue and user, for kshare (share.c).
 *
 * share.c keeps a copy of the last scheduling pass's shares; struct
 * kai_share is the scheduler's (sched/sched_model.h).
 */
#ifndef KAID_SHARE_H
#define KAID_SHARE_H
#include <stdbool.h>
#include <stdint.h>
#include "sched/sched_model.h"
struct kaid;
struct snap;

void share_keep(struct kaid *k, const struct snap *sn,
    const struct kai_sched_result *r);
/* What share_keep() kept last (empty before the first pass). */
const struct kai_share *share_last(const struct kaid *k);
void share_free(struct kaid *k);

#endif /* KAID_SHARE_H */
