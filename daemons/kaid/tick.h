/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tick.h: the scheduling tick, owned by tick.c.
 *
 * struct tick (the timer, "soon" and "again", the reasons kept between
 * ticks) is defined in tick.c alone; other files ask for a tick here.
 * The tick reads the clock once and passes it down (doc/architecture.md).
 */
#ifndef KAID_TICK_H
#define KAID_TICK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
struct kaid;

void tick_start(struct kaid *k);
/* Frees what tick.c keeps between ticks. */
void tick_free(struct kaid *k);
/* A tick soon: something changed that a decision waits for. */
void tick_soon(struct kaid *k);
/* More cycles now, in this tick: array tasks are left to start. */
void tick_again(struct kaid *k);

#endif /* KAID_TICK_H */
