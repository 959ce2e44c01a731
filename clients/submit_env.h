/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_env.h: the environment a job gets, as sbatch --export decides it.
 */
#ifndef KAI_CLIENTS_SUBMIT_ENV_H
#define KAI_CLIENTS_SUBMIT_ENV_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

/*
 * Builds the job environment from --export (NULL = "ALL") and the
 * submitter's environment envp (NULL-terminated): ALL exports everything,
 * NONE only SLURM_* variables, a list "A,B=1" only those plus SLURM_*,
 * "ALL,B=1" everything plus those (a listed value replaces the inherited
 * one).  A listed name that is not set is left out.  KAI_EINVAL for a
 * list item that is not a variable name or for NONE with a list.  Caller
 * owns *env (an array of "K=V" strings).
 */
int submit_env_build(const char *export, char *const *envp, char ***env,
    size_t *nenv, struct kai_err *err) KAI_MUST_CHECK;

#endif /* KAI_CLIENTS_SUBMIT_ENV_H */
