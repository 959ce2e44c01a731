/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaid_away.h: what the programs of a job pod do while kaid is away (a
 * restart): retry quietly, and keep the ends of their step tasks to send
 * them again to the new kaid (kaid_away.c).
 */
#ifndef KAI_POD_KAID_AWAY_H
#define KAI_POD_KAID_AWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"

#define KAID_AWAY_S 30 /* how long kaid may be away */

/* Standard error to /dev/null while on (the retries' messages), back as
 * it was when off. */
void kaid_away_quiet(bool on);

/*
 * client_request(), tried again once a second for up to KAID_AWAY_S
 * while kaid cannot be reached; the first failure's message is said,
 * the retries' are not.  For a request that is harmless to repeat.
 */
int kaid_away_request(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *on_reply, void *ctx);

/* Keeps one STEP_DONE body that was sent (or given up on). */
void kaid_away_keep(const void *body, size_t len);

/* Sends every kept body again, once each, whatever kaid answers (a
 * step it knows ended, or does not know, is refused and left so). */
void kaid_away_resend(void);

#endif /* KAI_POD_KAID_AWAY_H */
