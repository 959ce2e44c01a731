/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksim.h: the parts of the ksim program -- printing a cycle's result as
 * JSON (ksim_json.c) and comparing it with a scenario's expectations
 * (ksim_check.c).
 */
#ifndef KAI_CLIENTS_KSIM_H
#define KAI_CLIENTS_KSIM_H

#include <stdio.h>

#include "scenario.h"
#include "sched/sched_model.h"

enum {
	KSIM_EXIT_OK = 0,
	KSIM_EXIT_FAILED = 1, /* a check did not hold */
	KSIM_EXIT_USAGE = 2   /* bad usage or an invalid scenario */
};

/* The result as FORMAT.md's JSON, keys in a fixed order. */
void
ksim_json(FILE *f, const struct scenario *sc, const struct kai_sched_result *r);

/*
 * Prints one line per expectation that does not hold, each starting with
 * "FILE: "; returns how many.
 */
int ksim_check(FILE *f, const char *file, const struct scenario *sc,
    const struct kai_sched_result *r);

/* Writes micro-GPUs as a decimal number of GPUs: 2, 0.5, -1. */
void ksim_gpu(FILE *f, int64_t ugpu);

#endif /* KAI_CLIENTS_KSIM_H */
