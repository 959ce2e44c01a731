/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_json.h: the job request of "ksubmit --parse-only" as one JSON
 * object, the parsed options in Slurm's own terms.
 *
 * The keys are stable (doc/man/ksubmit.1 lists them): "valid", "error",
 * the request ("job_name", "partition", "nodes", "memory", "gpus",
 * "array", "dependency", ...; null where the option was not given and
 * Slurm has no default), "warnings" (the options that a submission drops
 * with a warning), "refused" (the options kaid cannot honour yet, which
 * make a submission fail) and "spec" (the per-task request kaid would
 * get).  An invalid request is {"valid": false, "error": "<message>"}.
 */
#ifndef KAI_CLIENTS_SUBMIT_JSON_H
#define KAI_CLIENTS_SUBMIT_JSON_H

#include "model/job.h"
#include "submit_opts.h"

struct json_object;

/*
 * The report for o, after submit_opts_finish(): default_name is the job
 * name when -J is not given, cwd the submit directory, js the per-task
 * request from submit_opts_to_spec().  Caller releases the result with
 * json_object_put().
 */
struct json_object *submit_json_new(const struct submit_opts *o,
    const char *default_name, const char *cwd, const struct kai_jobspec *js);

/* {"valid": false, "error": msg}; caller releases it. */
struct json_object *submit_json_invalid_new(const char *msg);

#endif /* KAI_CLIENTS_SUBMIT_JSON_H */
