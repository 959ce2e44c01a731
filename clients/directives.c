/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * directives.c: the #SBATCH / #KSUB line scanner and word splitter.  See
 * directives.h for the rules; this file only follows them.
 */
#include "config.h"

#include "directives.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

static const struct {
	const char *word;
	size_t len;
	bool legacy; /* "#SLURM": accepted with a warning */
	bool ksub;   /* kaibatch's own directive */
} magic[] = {
    {"#SBATCH", 7, false, false},
    {"#KSUB", 5, false, true},
    {"#SLURM", 6, true, false},
};

static void
push_word(char ***words, size_t *n, const char *w, size_t len)
{
	*words = kai_xreallocarray(*words, *n + 1, sizeof(**words));
	(*words)[(*n)++] = kai_xstrndup(w, len);
}

/* Reads one word starting at text[*i] into out; false at end of line. */
static bool
next_word(const char *text, size_t len, size_t *i, char *out, size_t *olen,
    bool *eol)
{
	char quote = '\0';
	bool any = false;

	while (*i < len && isspace((unsigned char)text[*i]))
		(*i)++;
	if (*i >= len || text[*i] == '#') {
		*eol = true;
		return false;
	}
	*olen = 0;
	for (; *i < len; (*i)++) {
		char c = text[*i];

		if (quote != '\0') {
			if (c == quote)
				quote = '\0';
			else
				out[(*olen)++] = c;
		} else if (c == '\\' && *i + 1 < len) {
			out[(*olen)++] = text[++(*i)];
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '#') {
			*eol = true; /* an unquoted '#' ends the line */
			break;
		} else if (isspace((unsigned char)c)) {
			break;
		} else {
			out[(*olen)++] = c;
		}
		any = true;
	}
	return any;
}

void
directives_split(const char *text, size_t len, char ***words, size_t *n)
{
	char *buf = kai_xmalloc(len + 1);
	size_t i = 0, wlen = 0;
	bool eol = false;

	while (!eol && i < len) {
		if (next_word(text, len, &i, buf, &wlen, &eol))
			push_word(words, n, buf, wlen);
	}
	free(buf);
}

/* Whether the line is blank or a comment, so that scanning goes on. */
static bool
is_comment_or_blank(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && isspace((unsigned char)line[i]))
		i++;
	return i == len || line[i] == '#';
}

static void
add_directive(struct directives *d, const char *text, size_t len, int lineno,
    bool ksub)
{
	char **words = NULL;
	size_t n = 0, i;

	directives_split(text, len, &words, &n);
	d->argv = kai_xreallocarray(d->argv, (size_t)d->argc + n + 1,
	    sizeof(*d->argv));
	d->lines = kai_xreallocarray(d->lines, (size_t)d->argc + n + 1,
	    sizeof(*d->lines));
	d->ksub = kai_xreallocarray(d->ksub, (size_t)d->argc + n + 1,
	    sizeof(*d->ksub));
	for (i = 0; i < n; i++) {
		d->argv[d->argc] = words[i];
		d->lines[d->argc] = lineno;
		d->ksub[d->argc] = ksub;
		d->argc++;
	}
	d->argv[d->argc] = NULL;
	free(words);
}

/* Handles one line; false when it is a command and the scan must stop. */
static bool
scan_line(struct directives *d, const char *line, size_t len, int lineno)
{
	size_t k;

	for (k = 0; k < KAI_NELEM(magic); k++) {
		if (len < magic[k].len ||
		    strncmp(line, magic[k].word, magic[k].len) != 0)
			continue;
		if (magic[k].legacy && d->slurm_line == 0)
			d->slurm_line = lineno;
		add_directive(d, line + magic[k].len, len - magic[k].len,
		    lineno, magic[k].ksub);
		return true;
	}
	return is_comment_or_blank(line, len);
}

void
directives_scan(const char *script, const char *source, struct directives *d)
{
	const char *line = script, *nl;
	size_t len;
	int lineno = 1;

	memset(d, 0, sizeof(*d));
	d->argv = kai_xcalloc(2, sizeof(*d->argv));
	d->lines = kai_xcalloc(2, sizeof(*d->lines));
	d->ksub = kai_xcalloc(2, sizeof(*d->ksub));
	d->argv[0] = kai_xstrdup(source);
	d->argc = 1;
	while (*line != '\0') {
		nl = strchr(line, '\n');
		len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		if (!scan_line(d, line, len, lineno))
			break;
		if (nl == NULL)
			break;
		line = nl + 1;
		lineno++;
	}
}

void
directives_fini(struct directives *d)
{
	int i;

	for (i = 0; i < d->argc; i++)
		free(d->argv[i]);
	free(d->argv);
	free(d->lines);
	free(d->ksub);
	memset(d, 0, sizeof(*d));
}
