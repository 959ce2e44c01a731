/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cliopt.h: one declarative option table per client program.
 *
 * Each program lists its options once (long name, short letter, argument
 * kind, help); the table drives getopt_long(3) (the struct option array
 * and the short-option string are generated from it), the -h text and the
 * error messages.  getopt's own messages are switched off: cliopt_next()
 * turns every fault into one line that names the option and the reason,
 * in the house wording ("unrecognized option \"--foo\"", "option \"--cpus\"
 * is ambiguous (could be --cpus-per-gpu, --cpus-per-task)", "option
 * \"--time\" requires an argument").
 *
 * getopt_long keeps global state, so only one parser may be active at a
 * time; cliopt_begin() resets that state, which lets one program parse
 * its command line twice (ksubmit: once to find the script, once more
 * over the directives' arguments).
 */
#ifndef KAI_CLIENTS_CLIOPT_H
#define KAI_CLIENTS_CLIOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

enum cliopt_arg {
	CLIOPT_NOARG = 0, /* a flag: --hold */
	CLIOPT_ARG = 1,   /* --time=VALUE or --time VALUE */
	CLIOPT_OPTARG = 2 /* --exclusive[=VALUE]: only with '=' */
};

/* Keys of long-only options start here, above every short letter. */
#define CLIOPT_LONG 256

struct cliopt {
	const char *name; /* long name without "--"; NULL = short only */
	int key;          /* short letter, or CLIOPT_LONG + n */
	enum cliopt_arg arg;
	const char *meta; /* argument name in -h ("TIME"); NULL = none */
	const char *help; /* one line for -h; NULL = not listed */
	const char *note; /* for the program's own use; may be NULL */
	unsigned flags;   /* for the program's own use; 0 by default */
};

/* A table entry without a note. */
#define CLIOPT(name, key, arg, meta, help)                                     \
	{                                                                      \
		name, key, arg, meta, help, NULL, 0                            \
	}

struct cliopt_parser {
	const struct cliopt *table;
	size_t n;
	struct option *longopts; /* n + 1 entries, owned */
	char shortopts[128];     /* "+:" or ":" then the letters */
	int prev_optind;         /* optind before the last call */
};

/*
 * Sets p up for table[0..n) and resets getopt's state.  With in_order,
 * parsing stops at the first argument that is not an option (ksubmit:
 * the script and its arguments follow); otherwise GNU permutation lets
 * options and operands mix (kcancel 42 -u ann).
 */
void cliopt_begin(struct cliopt_parser *p, const struct cliopt *table, size_t n,
    bool in_order);
void cliopt_end(struct cliopt_parser *p);

/*
 * Returns the key of the next option (> 0) and sets *arg to its argument
 * (NULL when none), CLIOPT_DONE when the options are over (optind is then
 * the first operand), or KAI_EINVAL with err describing the fault.
 */
#define CLIOPT_DONE 0
int cliopt_next(struct cliopt_parser *p, int argc, char **argv,
    const char **arg, struct kai_err *err);

/*
 * A whole command line in one call, for the programs whose options are
 * set one at a time: set(ctx, key, arg, err) for each option in order,
 * then operand(ctx, arg, err) for each operand (NULL: an operand is an
 * error, "unexpected argument \"x\""); stops at the first fault and
 * returns it.  Options and operands may mix (GNU permutation).
 */
typedef int cliopt_set_fn(void *ctx, int key, const char *arg,
    struct kai_err *err);
typedef int cliopt_operand_fn(void *ctx, const char *arg, struct kai_err *err);
int cliopt_parse(const struct cliopt *table, size_t n, int argc, char **argv,
    cliopt_set_fn *set, cliopt_operand_fn *operand, void *ctx,
    struct kai_err *err);

/*
 * Index in argv of the element the last option (or its argument, when
 * given as a separate element) came from: for error messages that name a
 * place, such as a directive's line.
 */
int
cliopt_last_index(const struct cliopt_parser *p, char **argv, const char *arg);

/* The entry for key, or NULL. */
const struct cliopt *cliopt_find(const struct cliopt *table, size_t n, int key);

/* "--time" (or "-t" for a short-only option) into buf. */
const char *cliopt_label(const struct cliopt *o, char *buf, size_t size);

/*
 * Prints "usage: <synopsis lines>" and the option list to f, one line per
 * option that has help text: "  -t, --time=TIME   time limit ...".
 */
void cliopt_usage(FILE *f, const char *const *synopsis,
    const struct cliopt *table, size_t n);

#endif /* KAI_CLIENTS_CLIOPT_H */
