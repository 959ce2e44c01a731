/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodelists.h: a job's -w/--nodelist and -x/--exclude, kept together in
 * one job field (node_req: "NODELIST;EXCLUDE", each a Slurm host list,
 * either part empty).  Node names never hold a ';' (Kubernetes names are
 * DNS subdomains), so the separator is unambiguous.
 *
 * Slurm's -w asks that the job's nodes include every listed node, and
 * grows -N to their number; kaibatch runs one pod per task on the nodes
 * the scheduler picks, so it reads -w as "only these nodes"
 * (doc/scheduler.md, "Node constraints"): a job of as many node groups
 * (-N) as listed nodes gets each of them, as in Slurm, and ksubmit sets
 * -N to the number of names when the job gives no -N, -n or
 * --ntasks-per-node (submit_opts_nodelist_nodes()).
 */
#ifndef KAI_MODEL_NODELISTS_H
#define KAI_MODEL_NODELISTS_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

enum kai_node_req_part {
	KAI_NODE_REQ_ONLY = 0, /* -w */
	KAI_NODE_REQ_NEVER = 1 /* -x */
};

/*
 * The field for nodelist and exclude (either NULL or empty): *out is
 * NULL when both are empty, else "NODELIST;EXCLUDE" with spaces taken
 * out.  KAI_EINVAL when a list is not a valid host list ("invalid node
 * list \"x[\": ..."); *out is then NULL.
 */
int kai_node_req_make(const char *nodelist, const char *exclude, char **out,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * The names of one part of req (NULL = none): *names and *n are NULL and
 * 0 for an empty part.  KAI_EINVAL for a field that is not two valid
 * host lists.  Free with kai_hostlist_free().
 */
int kai_node_req_names(const char *req, enum kai_node_req_part part,
    char ***names, size_t *n, struct kai_err *err) KAI_MUST_CHECK;

/* One part of req as written into buf ("" when none); returns buf. */
const char *kai_node_req_text(const char *req, enum kai_node_req_part part,
    char *buf, size_t size);

#endif /* KAI_MODEL_NODELISTS_H */
