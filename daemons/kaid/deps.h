/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * deps.h: dependencies and array throttles, evaluated each tick (deps.c).
 *
 * struct deps (the finished targets read once each) is defined in deps.c
 * alone.
 */
#ifndef KAID_DEPS_H
#define KAID_DEPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
struct kaid;
struct kai_job;

/*
 * Sets j->gate of every pending job: NULL when the scheduler may see it,
 * else "Dependency", "DependencyNeverSatisfied" or "JobArrayTaskLimit".
 * Finished targets are read from PostgreSQL in one query per tick, and
 * only once each (kept by deps.c).  now: the tick's clock (--begin, after:
 * +minutes).
 */
void deps_update(struct kaid *k, int64_t now);
/* The sentence for j->gate, Slurm's code of why deps.c holds j back. */
char *deps_gate_text(const struct kai_job *j);
void deps_init(struct kaid *k);
void deps_free(struct kaid *k);

#endif /* KAID_DEPS_H */
