/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kai-podtext: print the shell kaid puts in job pods, as compiled into
 * kaid from pod/ by build-aux/pod2c.sh (a test tool).
 *
 *	kai-podtext wrapper|signal|scontrol|srun
 *
 * tests/pod/shims.t runs what it prints, so the tests exercise the bytes
 * a pod gets (comments left out) and not only the source files.
 * Exit status: 0 printed, 2 usage.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

/* pod/podshim.c (generated); kaid declares them in daemons/kaid/kaid.h. */
extern const char podshim_wrapper[];
extern const char podshim_signal[];
extern const char podshim_scontrol[];
extern const char podshim_srun[];

static const struct {
	const char *name;
	const char *text;
} texts[] = {
	{"wrapper", podshim_wrapper},
	{"signal", podshim_signal},
	{"scontrol", podshim_scontrol},
	{"srun", podshim_srun},
};

int
main(int argc, char **argv)
{
	if (argc == 2) {
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			if (strcmp(argv[1], texts[i].name) == 0) {
				fputs(texts[i].text, stdout);
				return fflush(stdout) == 0 ? 0 : 1;
			}
		}
	}
	fprintf(stderr, "usage: kai-podtext wrapper|signal|scontrol|srun\n");
	return 2;
}
