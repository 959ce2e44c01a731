/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * constraint.c: Slurm's --constraint grammar into alternatives of
 * feature sets (constraint.h).
 *
 *	expr   = term { "|" term }
 *	term   = factor { ("&" | ",") factor }
 *	factor = NAME | "(" expr ")" | "[" expr "]"
 *
 * A recursive descent that builds the disjunctive normal form as it goes:
 * "|" joins two lists of alternatives, "&" takes their product.  Each
 * alternative is a 64-bit set over the names met so far, so a product is
 * a few ORs; both are bounded (KAI_CONSTRAINT_MAX_ALTS), so a text built
 * to explode, (a|b)&(c|d)&..., is refused rather than expanded.  One
 * bracket may appear, not inside another, as in Slurm.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/constraint.h"

#define MAX_DEPTH 16

struct dnf {
	uint64_t m[KAI_CONSTRAINT_MAX_ALTS];
	size_t n;
};

struct cparse {
	const char *text;
	const char *p;
	struct kai_constraint *c;
	unsigned depth;
	bool in_bracket;
	struct kai_err *err;
};

static int
fail(struct cparse *P, const char *why)
{
	return kai_err_set(P->err, KAI_EINVAL, "invalid constraint \"%s\": %s",
	    P->text, why);
}

static bool
name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' ||
	    ch == ':' || ch == '/' || ch == '=' || ch == '+';
}

static bool
has(const struct dnf *d, uint64_t m)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->m[i] == m)
			return true;
	return false;
}

static int
add(struct cparse *P, struct dnf *d, uint64_t m)
{
	if (has(d, m))
		return 0;
	if (d->n == KAI_CONSTRAINT_MAX_ALTS)
		return fail(P, "it expands to more than 64 alternatives");
	d->m[d->n++] = m;
	return 0;
}

static int
intern(struct cparse *P, const char *s, size_t len, uint64_t *bit)
{
	struct kai_constraint *c = P->c;
	size_t i;

	if (len > KAI_CONSTRAINT_NAME_MAX)
		return fail(P, "a feature name is longer than 63 bytes");
	for (i = 0; i < c->nnames; i++)
		if (strlen(c->names[i]) == len &&
		    memcmp(c->names[i], s, len) == 0)
			break;
	if (i == c->nnames) {
		if (c->nnames == KAI_CONSTRAINT_MAX_NAMES)
			return fail(P, "it names more than 64 features");
		c->names = kai_xreallocarray(c->names, c->nnames + 1,
		    sizeof(*c->names));
		c->names[c->nnames++] = kai_xstrndup(s, len);
	}
	*bit = UINT64_C(1) << i;
	return 0;
}

static void
skip_space(struct cparse *P)
{
	while (*P->p == ' ' || *P->p == '\t')
		P->p++;
}

static int expr(struct cparse *P, struct dnf *out);

static int
factor(struct cparse *P, struct dnf *out)
{
	const char *s;
	uint64_t bit = 0;
	int rc;

	skip_space(P);
	out->n = 0;
	if (*P->p == '(' || *P->p == '[') {
		char close = *P->p == '(' ? ')' : ']';

		if (close == ']') {
			if (P->in_bracket || P->c->match)
				return fail(P, "only one [...] is allowed");
			P->in_bracket = true;
			P->c->match = true;
		}
		if (++P->depth > MAX_DEPTH)
			return fail(P, "it nests too deep");
		P->p++;
		if ((rc = expr(P, out)) != 0)
			return rc;
		skip_space(P);
		if (*P->p != close)
			return fail(P, close == ')' ? "a \"(\" is not closed"
						    : "a \"[\" is not closed");
		P->p++;
		P->depth--;
		if (close == ']')
			P->in_bracket = false;
		return 0;
	}
	for (s = P->p; name_char(*P->p); P->p++)
		;
	if (P->p == s)
		return fail(P, *P->p == '\0' ? "a feature name is missing at "
					       "the end"
					     : "a feature name is missing");
	if (*P->p == '*')
		return fail(P, "feature counts (NAME*N) are not supported");
	if ((rc = intern(P, s, (size_t)(P->p - s), &bit)) != 0)
		return rc;
	return add(P, out, bit);
}

static int
term(struct cparse *P, struct dnf *out)
{
	struct dnf rhs, prod;
	size_t i, k;
	int rc;

	if ((rc = factor(P, out)) != 0)
		return rc;
	for (;;) {
		skip_space(P);
		if (*P->p != '&' && *P->p != ',')
			return 0;
		P->p++;
		if ((rc = factor(P, &rhs)) != 0)
			return rc;
		prod.n = 0;
		for (i = 0; i < out->n; i++)
			for (k = 0; k < rhs.n; k++)
				if ((rc = add(P, &prod, out->m[i] | rhs.m[k])) !=
				    0)
					return rc;
		*out = prod;
	}
}

static int
expr(struct cparse *P, struct dnf *out)
{
	struct dnf rhs;
	size_t i;
	int rc;

	if ((rc = term(P, out)) != 0)
		return rc;
	for (;;) {
		skip_space(P);
		if (*P->p != '|')
			return 0;
		P->p++;
		if ((rc = term(P, &rhs)) != 0)
			return rc;
		for (i = 0; i < rhs.n; i++)
			if ((rc = add(P, out, rhs.m[i])) != 0)
				return rc;
	}
}

int
kai_constraint_parse(const char *text, struct kai_constraint *c,
    struct kai_err *err)
{
	struct cparse P = {text, text, c, 0, false, err};
	struct dnf *d;
	int rc;

	memset(c, 0, sizeof(*c));
	skip_space(&P);
	if (*P.p == '\0')
		return 0;
	d = kai_xmalloc(sizeof(*d));
	if ((rc = expr(&P, d)) == 0 && *P.p != '\0')
		rc = fail(&P, *P.p == ')' || *P.p == ']'
			? "a closing bracket has no opening one"
			: "unexpected character");
	if (rc == 0) {
		c->alts = kai_xcalloc(d->n, sizeof(*c->alts));
		memcpy(c->alts, d->m, d->n * sizeof(*c->alts));
		c->nalts = d->n;
	}
	free(d);
	if (rc != 0)
		kai_constraint_fini(c);
	return rc;
}

void
kai_constraint_fini(struct kai_constraint *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->alts);
	memset(c, 0, sizeof(*c));
}

bool
kai_constraint_satisfied(const struct kai_constraint *c, long a,
    const char *const *hasv, size_t nhas)
{
	uint64_t got = 0;
	size_t i, k;

	for (i = 0; i < c->nnames; i++)
		for (k = 0; k < nhas; k++)
			if (strcmp(c->names[i], hasv[k]) == 0) {
				got |= UINT64_C(1) << i;
				break;
			}
	for (i = 0; i < c->nalts; i++)
		if ((a < 0 || (size_t)a == i) && (c->alts[i] & ~got) == 0)
			return true;
	return false;
}
