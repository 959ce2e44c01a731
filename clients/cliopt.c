/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cliopt.c: option tables on top of getopt_long.  See cliopt.h.
 *
 * getopt reports a fault as '?' or ':' and leaves the details in optopt
 * and in the argument it was looking at; we read the argument ourselves
 * to tell an unrecognized long option from an ambiguous prefix or from an
 * argument given to a flag, because "invalid option" alone does not tell
 * a user which of the three they did.
 */
#include "config.h"

#include "cliopt.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

void
cliopt_begin(struct cliopt_parser *p, const struct cliopt *table, size_t n,
    bool in_order)
{
	size_t i, k = 0;

	memset(p, 0, sizeof(*p));
	p->table = table;
	p->n = n;
	p->longopts = kai_xcalloc(n + 1, sizeof(*p->longopts));
	if (in_order)
		p->shortopts[k++] = '+';
	p->shortopts[k++] = ':';
	for (i = 0; i < n; i++) {
		struct option *lo = &p->longopts[i];

		lo->name = table[i].name;
		lo->has_arg = (int)table[i].arg;
		lo->flag = NULL;
		lo->val = table[i].key;
		if (table[i].key >= CLIOPT_LONG)
			continue;
		KAI_ASSERT(k + 4 < sizeof(p->shortopts));
		p->shortopts[k++] = (char)table[i].key;
		if (table[i].arg != CLIOPT_NOARG)
			p->shortopts[k++] = ':';
		if (table[i].arg == CLIOPT_OPTARG)
			p->shortopts[k++] = ':';
	}
	p->shortopts[k] = '\0';
	/*
	 * struct option needs a name: a short-only entry gets an impossible
	 * one so that the array keeps the table's indexes.
	 */
	for (i = 0; i < n; i++)
		if (p->longopts[i].name == NULL)
			p->longopts[i].name = "\001";
	opterr = 0;
	optind = 0; /* glibc: 0 re-initialises the scanner completely */
}

void
cliopt_end(struct cliopt_parser *p)
{
	KAI_FREE(p->longopts);
}

int
cliopt_parse(const struct cliopt *table, size_t n, int argc, char **argv,
    cliopt_set_fn *set, cliopt_operand_fn *operand, void *ctx,
    struct kai_err *err)
{
	struct cliopt_parser p;
	const char *arg;
	int c, r = 0;

	cliopt_begin(&p, table, n, false);
	while (r == 0 &&
	    (c = cliopt_next(&p, argc, argv, &arg, err)) != CLIOPT_DONE)
		r = c < 0 ? c : set(ctx, c, arg, err);
	if (r == 0 && operand == NULL && optind < argc)
		r = kai_err_set(err, KAI_EINVAL, "unexpected argument \"%s\"",
		    argv[optind]);
	for (; r == 0 && operand != NULL && optind < argc; optind++)
		r = operand(ctx, argv[optind], err);
	cliopt_end(&p);
	return r;
}

const struct cliopt *
cliopt_find(const struct cliopt *table, size_t n, int key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (table[i].key == key)
			return &table[i];
	return NULL;
}

const char *
cliopt_label(const struct cliopt *o, char *buf, size_t size)
{
	if (o->name != NULL)
		(void)snprintf(buf, size, "--%s", o->name);
	else
		(void)snprintf(buf, size, "-%c", o->key);
	return buf;
}

/* Describes a fault in the long option spelled in elem ("--x[=v]"). */
static int
long_fault(const struct cliopt_parser *p, const char *elem, struct kai_err *err)
{
	const char *name = elem + 2, *eq = strchr(name, '=');
	size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
	char cands[200] = "";
	const struct cliopt *hit = NULL;
	size_t i, used = 0;
	int nhit = 0;

	for (i = 0; i < p->n; i++) {
		const char *ln = p->table[i].name;

		if (ln == NULL || strncmp(ln, name, len) != 0)
			continue;
		if (ln[len] == '\0') { /* exact: no ambiguity possible */
			hit = &p->table[i];
			nhit = 1;
			break;
		}
		hit = &p->table[i];
		nhit++;
		if (used + strlen(ln) + 5 < sizeof(cands))
			used +=
			    (size_t)snprintf(cands + used, sizeof(cands) - used,
				"%s--%s", used ? ", " : "", ln);
	}
	if (nhit > 1)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"--%.*s\" is ambiguous (could be %s)", (int)len,
		    name, cands);
	if (nhit == 1 && hit->arg == CLIOPT_NOARG && eq != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"--%s\" does not take an argument", hit->name);
	return kai_err_set(err, KAI_EINVAL, "unrecognized option \"--%.*s\"",
	    (int)len, name);
}

static int
fault(struct cliopt_parser *p, int c, char **argv, struct kai_err *err)
{
	const struct cliopt *o;
	const char *elem = argv[p->prev_optind];
	char label[80];

	if (c == ':') {
		o = cliopt_find(p->table, p->n, optopt);
		if (o != NULL && elem != NULL && strncmp(elem, "--", 2) == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "option \"%s\" requires an argument",
			    cliopt_label(o, label, sizeof(label)));
		return kai_err_set(err, KAI_EINVAL,
		    "option \"-%c\" requires an argument", optopt);
	}
	if (elem != NULL && strncmp(elem, "--", 2) == 0)
		return long_fault(p, elem, err);
	if (optopt > 0 && optopt < 128 && optopt != '?')
		return kai_err_set(err, KAI_EINVAL,
		    "unrecognized option \"-%c\"", optopt);
	return kai_err_set(err, KAI_EINVAL, "unrecognized option \"%s\"",
	    elem != NULL ? elem : "?");
}

int
cliopt_next(struct cliopt_parser *p, int argc, char **argv, const char **arg,
    struct kai_err *err)
{
	int c;

	/* optind is 0 before the first call: glibc's re-initialise flag */
	p->prev_optind = optind > 0 ? optind : 1;
	c = getopt_long(argc, argv, p->shortopts, p->longopts, NULL);
	*arg = optarg;
	if (c == '?' || c == ':')
		return fault(p, c, argv, err);
	return c == -1 ? CLIOPT_DONE : c;
}

int
cliopt_last_index(const struct cliopt_parser *p, char **argv, const char *arg)
{
	/*
	 * A separate argument is a whole element after the option's own; an
	 * attached one ("-t5", "--time=5") lies inside the option's element.
	 */
	if (arg != NULL && optind - 1 > p->prev_optind &&
	    arg == argv[optind - 1])
		return optind - 1;
	return p->prev_optind;
}

static void
usage_line(FILE *f, const struct cliopt *o)
{
	char left[80];
	int n = 0;

	if (o->key < CLIOPT_LONG)
		n = snprintf(left, sizeof(left), "  -%c%s", o->key,
		    o->name != NULL ? ", " : "");
	else
		n = snprintf(left, sizeof(left), "      ");
	if (o->name != NULL && n >= 0 && (size_t)n < sizeof(left))
		n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s%s%s%s",
		    o->name, o->arg == CLIOPT_OPTARG ? "[" : "",
		    o->meta != NULL ? "=" : "", o->meta != NULL ? o->meta : "");
	else if (o->meta != NULL && n >= 0 && (size_t)n < sizeof(left))
		n += snprintf(left + n, sizeof(left) - (size_t)n, " %s",
		    o->meta);
	if (o->arg == CLIOPT_OPTARG && n >= 0 && (size_t)n + 1 < sizeof(left))
		(void)snprintf(left + n, sizeof(left) - (size_t)n, "]");
	if (strlen(left) < 30)
		(void)fprintf(f, "%-30s %s\n", left, o->help);
	else
		(void)fprintf(f, "%s\n%-30s %s\n", left, "", o->help);
}

void
cliopt_usage(FILE *f, const char *const *synopsis, const struct cliopt *table,
    size_t n)
{
	size_t i;

	for (i = 0; synopsis[i] != NULL; i++)
		(void)fprintf(f, "%s %s\n", i == 0 ? "usage:" : "      ",
		    synopsis[i]);
	(void)fprintf(f, "\noptions:\n");
	for (i = 0; i < n; i++)
		if (table[i].help != NULL)
			usage_line(f, &table[i]);
}
