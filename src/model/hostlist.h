/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hostlist.h: Slurm's compact form of a list of host names, as
 * SLURM_JOB_NODELIST carries it: "kai-12-[0-3,7],login1".  The one
 * implementation of the grammar: kaid folds a job's pod names with it,
 * kinfo and kctl fold node names and kinfo -n expands them; the pod's
 * `scontrol show hostnames` (pod/scontrol.sh, awk, since it runs inside
 * the job) is held to the same cases by tests/lib/hostlist-cases.txt.
 *
 * Folding keeps the order given, as a job's node list does in Slurm
 * (squeue, SLURM_JOB_NODELIST: task i's host is the i-th name, and
 * scripts take the first as MASTER_ADDR), so expanding a folded list
 * gives back the names in their order: "n1,n3,n2" folds to "n[1,3,2]".
 * A caller that shows a set of nodes sorts first, as sinfo does
 * (kai_hostlist_sort: "n[1-3]").
 *
 * Names that end in a decimal number of at most KAI_HOSTLIST_DIGITS
 * digits and share what comes before it are folded into one bracket of
 * ranges; a number written with leading zeros keeps its width and shares
 * a bracket only with numbers of that width ("node[01-03]", "n08,n[9-10]").
 * Expansion reads any number of brackets in a name ("r[1-2]-g[1-2]").
 */
#ifndef KAI_MODEL_HOSTLIST_H
#define KAI_MODEL_HOSTLIST_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

/* The most names a list may expand to. */
#define KAI_HOSTLIST_MAX 100000
/* The longest number a bracket holds (and folding folds). */
#define KAI_HOSTLIST_DIGITS 9

/* The compact form of names[0..n), in their order; "" when n is 0.
 * Caller frees. */
char *kai_hostlist_compress(const char *const *names, size_t n);

/* Sorts names[0..n) as sinfo shows nodes: by the text before the
 * number, then by the number ("n2" before "n10"). */
void kai_hostlist_sort(const char **names, size_t n);

/*
 * The names of a host list, in order: "gpu-a[1-3,7],cpu-1" -> gpu-a1
 * gpu-a2 gpu-a3 gpu-a7 cpu-1.  KAI_EINVAL "invalid host list \"%s\": ..."
 * for an empty name, an unbalanced bracket, a bad range or more than
 * KAI_HOSTLIST_MAX names; *names and *n are then NULL and 0.  Caller
 * frees with kai_hostlist_free().
 */
int kai_hostlist_expand(const char *list, char ***names, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_hostlist_free(char **names, size_t n);

#endif /* KAI_MODEL_HOSTLIST_H */
