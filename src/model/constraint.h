/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * constraint.h: Slurm's --constraint grammar (sbatch(1)), the one parser
 * of it: ksubmit checks a constraint with it, kaid and ksim compile it
 * for the scheduler core.
 *
 * A constraint names node features:
 *	a100            a node with feature a100
 *	a100&ib         both (also written a100,ib)
 *	v100|a100       either; each node may have either one
 *	[v100|a100]     matching OR: either, but all the job's nodes the
 *	                same one
 *	(a|b)&ib        parentheses group
 * It is read into disjunctive normal form: alternatives, each the set of
 * features a node must all have.  A node satisfies the constraint when it
 * has every feature of one alternative.  Feature counts (a100*2) are
 * refused: they ask for a mix of nodes kaibatch cannot place.
 */
#ifndef KAI_MODEL_CONSTRAINT_H
#define KAI_MODEL_CONSTRAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_CONSTRAINT_MAX_NAMES 64 /* features one constraint names */
#define KAI_CONSTRAINT_MAX_ALTS  64 /* alternatives after expansion */
#define KAI_CONSTRAINT_NAME_MAX  63 /* bytes of one feature name */

struct kai_constraint {
	char **names;	 /* the features named, in order of first mention */
	size_t nnames;
	uint64_t *alts;	 /* bit i = names[i]; no alternative repeats */
	size_t nalts;	 /* 0: no constraint (the text was empty) */
	bool match;	 /* [..]: all nodes satisfy the same alternative */
};

/*
 * Parses text into c (zeroed first).  Returns 0, or KAI_EINVAL with err
 * naming the constraint and what is wrong; c is then empty.  Release
 * with kai_constraint_fini() in both cases.
 */
int kai_constraint_parse(const char *text, struct kai_constraint *c,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_constraint_fini(struct kai_constraint *c);

/*
 * Whether a node with the features has[0..nhas) satisfies alternative a
 * of c (a < c->nalts), or any alternative when a < 0.
 */
bool kai_constraint_satisfied(const struct kai_constraint *c, long a,
    const char *const *has, size_t nhas);

#endif /* KAI_MODEL_CONSTRAINT_H */
