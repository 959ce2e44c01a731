/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-directives.c: a batch script through ksubmit: the #SBATCH / #KSUB
 * directive scanner, the option parser and value syntaxes behind it, the
 * final checks and the job spec (fuzz_submit.c).
 */
#include "config.h"

#include <stdlib.h>

#include "directives.h"
#include "fuzz.h"
#include "fuzz_submit.h"
#include "submit_opts.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct submit_opts o;
	struct directives d;
	struct kai_err err;
	char *script = fuzz_strdup(data, size);

	directives_scan(script, "job.sh", &d);
	submit_opts_init(&o, FUZZ_NOW);
	if (submit_opts_directives(&o, &d, FUZZ_CWD, &err) == 0)
		fuzz_submit_finish(&o);
	submit_opts_fini(&o);
	directives_fini(&d);
	free(script);
	return 0;
}
