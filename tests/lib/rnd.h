/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rnd.h: the numbers of the scheduler's random worlds (tests/unit/
 * sched-*.c), xorshift64: one stream per test program, the same worlds
 * on every machine.  A program that wants a stream of its own sets rng
 * first thing in main().  Included by one file of a program.
 */
#ifndef KAI_TESTS_RND_H
#define KAI_TESTS_RND_H

#include <stdint.h>

static uint64_t rng = 0x2545f4914f6cdd1dULL;

/* A number in [0, n), n > 0. */
static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

#endif
