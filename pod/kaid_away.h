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

/*
 * One try of client_request() with its messages held back: said unless
 * the try could not reach kaid and may be made again (*tries, counted
 * here, still under KAID_AWAY_S), when *again is set and the caller
 * tries again after a second.  A kaid restart thus leaves nothing in
 * the job's error file; kaid away for good is said once, at the end.
 */
int kaid_away_try(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *on_reply, void *ctx, int *tries,
    bool *again);

/*
 * kaid_away_try() until it need not be tried again.  For a request
 * that is harmless to repeat.
 */
int kaid_away_request(const char *prog, uint16_t type, const void *body,
    size_t len, client_reply_fn *on_reply, void *ctx);

/* Keeps one STEP_DONE body that was sent (or given up on). */
void kaid_away_keep(const void *body, size_t len);

/* Sends every kept body again, once each, whatever kaid answers (a
 * step it knows ended, or does not know, is refused and left so), and
 * says nothing.  False when kaid could not be reached. */
bool kaid_away_resend(void);

#endif /* KAI_POD_KAID_AWAY_H */
