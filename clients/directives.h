/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * directives.h: finding the #SBATCH and #KSUB lines of a batch script and
 * splitting them into arguments, exactly as sbatch does.
 *
 * The rules (sbatch(1) DESCRIPTION, and src/sbatch/opt.c of Slurm 22.05):
 *
 *  - A directive is a line that starts with "#SBATCH" or "#KSUB" in column
 *    one, case-sensitive.  "# SBATCH", "##SBATCH", "#sbatch" and an
 *    indented "  #SBATCH" are comments.  A "#SLURM" line counts too, but
 *    earns a warning, as in sbatch.
 *  - Blank lines and comment lines (first non-blank character '#', the
 *    shebang included) are skipped; the first other line ends the scan,
 *    and every later directive is plain text.
 *  - The rest of a directive line is split like a shell word list, minus
 *    expansion: whitespace separates, '...' and "..." group (the quotes go),
 *    a backslash escapes the next character, and an unquoted '#' ends the
 *    line even inside a word ("--job-name=exp#3" gives "exp").  $VARS stay
 *    literal.
 *
 * The arguments of all directive lines form one argument vector, so that
 * "--time" on one line and its value on the next behave as they do in
 * sbatch.  ksubmit hands each run of arguments from lines of one kind to
 * one getopt pass: #SBATCH runs with sbatch's options alone, #KSUB runs
 * with kaibatch's as well.
 */
#ifndef KAI_CLIENTS_DIRECTIVES_H
#define KAI_CLIENTS_DIRECTIVES_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"

struct directives {
	int argc;    /* argv[0] is the source name, then the arguments */
	char **argv; /* argc + 1 entries, NULL-terminated; owned */
	int *lines;  /* lines[i]: 1-based script line of argv[i] */
	unsigned char *ksub; /* ksub[i]: argv[i] came from a #KSUB line */
	int slurm_line;      /* first "#SLURM" directive line, 0 = none */
};

/*
 * Scans the NUL-terminated script text.  source names the script in
 * messages and becomes argv[0].  Never fails on content; the caller owns
 * d and releases it with directives_fini().
 */
void
directives_scan(const char *script, const char *source, struct directives *d);
void directives_fini(struct directives *d);

/*
 * Splits one directive's text (after the magic word) into words, appending
 * each with kai_xstrdup-owned storage to *words / *n.  Exposed for tests.
 */
void directives_split(const char *text, size_t len, char ***words, size_t *n);

#endif /* KAI_CLIENTS_DIRECTIVES_H */
