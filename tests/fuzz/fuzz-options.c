/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-options.c: ksubmit's command line.  The input is one argument a
 * line (argv[0] is "ksubmit"); the lines after a line "%env" are SBATCH_*
 * style environment entries instead, applied first as ksubmit does.  Then
 * the rest of ksubmit's pipeline (fuzz_submit.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_submit.h"
#include "submit_opts.h"

#define MAX_WORDS 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char prog[] = "ksubmit";
	char *argv[MAX_WORDS + 1], *envp[MAX_WORDS + 1];
	char *text = fuzz_strdup(data, size), *line, *nl;
	struct submit_opts o;
	struct kai_err err;
	int argc = 0, envc = 0, first = 0, r;
	int in_env = 0;

	argv[argc++] = prog;
	for (line = text; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (strcmp(line, "%env") == 0)
			in_env = 1;
		else if (in_env && envc < MAX_WORDS)
			envp[envc++] = line;
		else if (!in_env && argc < MAX_WORDS)
			argv[argc++] = line;
	}
	argv[argc] = NULL;
	envp[envc] = NULL;
	submit_opts_init(&o, FUZZ_NOW);
	r = submit_opts_env(&o, envp, FUZZ_CWD, &err);
	if (r == 0)
		r = submit_opts_parse(&o, submit_table_len, argc, argv, NULL,
		    "ksubmit", FUZZ_CWD, SUBMIT_PASS_CLI, &first, &err);
	if (r == 0)
		fuzz_submit_finish(&o);
	submit_opts_fini(&o);
	free(text);
	return 0;
}
