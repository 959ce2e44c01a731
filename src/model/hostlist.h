/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hostlist.h: Slurm's compact form of a list of host names, as
 * SLURM_JOB_NODELIST carries it: "kai-12-[0-3,7],login1".
 *
 * Names that end in a decimal number and share what comes before it are
 * folded into one bracket of ranges, in the order given; a number written
 * with leading zeros keeps its width ("node[01-03]").  The inverse,
 * `scontrol show hostnames`, is the pod shim's (daemons/kaid/podshim.c),
 * because it runs inside the job, not in kaid.
 */
#ifndef KAI_MODEL_HOSTLIST_H
#define KAI_MODEL_HOSTLIST_H

#include <stddef.h>

/* The compact form of names[0..n); "" when n is 0.  Caller frees. */
char *kai_hostlist_compress(const char *const *names, size_t n);

#endif /* KAI_MODEL_HOSTLIST_H */
