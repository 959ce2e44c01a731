/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_env.h: --export, read into its parts, and the environment a job
 * gets as sbatch decides it.
 *
 *	ALL			everything (the default)
 *	NONE			only the SLURM_* variables
 *	A,B=1			only A (from the environment), B=1 and SLURM_*
 *	ALL,B=1			everything, with B=1 replacing an inherited B
 *
 * ALL and NONE may be written in any case.  A listed name that is not set
 * is left out.  Both functions are pure: the environment is an argument.
 */
#ifndef KAI_CLIENTS_SUBMIT_ENV_H
#define KAI_CLIENTS_SUBMIT_ENV_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

enum submit_export_mode {
	SUBMIT_EXPORT_ALL = 0,
	SUBMIT_EXPORT_NONE,
	SUBMIT_EXPORT_LIST
};

struct submit_export {
	enum submit_export_mode mode;
	char **pass; /* names passed from the environment, as listed */
	size_t npass;
	char **set; /* "NAME=value" items, as listed */
	size_t nset;
};

/*
 * Reads an --export value (NULL = "ALL") into e.  KAI_EINVAL for an empty
 * value, a list item that is not a variable name ("invalid --export
 * \"A,,B\": \"\" is not a variable name"), or NONE with a list.  The
 * caller releases e with submit_export_fini().
 */
int submit_export_parse(const char *export, struct submit_export *e,
    struct kai_err *err) KAI_MUST_CHECK;
void submit_export_fini(struct submit_export *e);

/*
 * Builds the job environment from --export and the submitter's
 * environment envp (NULL-terminated).  Caller owns *env (an array of
 * "K=V" strings).  Fails as submit_export_parse() does.
 */
int submit_env_build(const char *export, char *const *envp, char ***env,
    size_t *nenv, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Sets SLURM_SUBMIT_HOST=host in the job environment built above (sbatch
 * sets it whatever --export says), replacing one the submitter had.
 * kaid passes it to the job and trusts it for nothing: it is the
 * client's word.
 */
void submit_env_submit_host(char ***env, size_t *nenv, const char *host);

#endif /* KAI_CLIENTS_SUBMIT_ENV_H */
