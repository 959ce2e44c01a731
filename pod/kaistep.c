/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep.c: the clients inside a job pod, one static program.
 *
 * A job's pod has its image's libc and nothing of kaibatch, and no
 * munged: kaid ships this program in the pods' helpers ConfigMap, once
 * under each name (ksubmit and sbatch, kqueue and squeue, kcancel and
 * scancel, kctl), and it runs the very code of those clients (clients/),
 * linked with the job-credential auth backend (clients/client_jobcred.c)
 * instead of MUNGE.  Which client runs is the name it was called by, as
 * busybox does; `kaistep NAME ARGS...` also works, for the tests.
 */
#include "config.h"

#include "kaistep.h"

#include <stdio.h>
#include <string.h>

typedef int step_main_fn(int argc, char **argv);

static const struct {
	const char *name;
	step_main_fn *fn;
} progs[] = {
	{"ksubmit", kaistep_ksubmit},
	{"sbatch", kaistep_ksubmit},
	{"kqueue", kaistep_kqueue},
	{"squeue", kaistep_kqueue},
	{"kcancel", kaistep_kcancel},
	{"scancel", kaistep_kcancel},
	{"kctl", kaistep_kctl},
	{"srun", kaistep_srun},
	{"step-agent", kaistep_agent},
	{"step-end", kaistep_step_end},
	{"pty-serve", kaistep_ptyserve},
};

static step_main_fn *
find(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (strcmp(progs[i].name, base) == 0)
			return progs[i].fn;
	return NULL;
}

int
main(int argc, char **argv)
{
	step_main_fn *fn;
	size_t i;

	if (argc < 1)
		return 2;
	if ((fn = find(argv[0])) != NULL)
		return fn(argc, argv);
	if (argc >= 2 && (fn = find(argv[1])) != NULL)
		return fn(argc - 1, argv + 1);
	(void)fprintf(stderr, "kaistep: error: call it as one of");
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		(void)fprintf(stderr, " %s", progs[i].name);
	(void)fprintf(stderr, " (or kaistep NAME ARGS...)\n");
	return 2;
}
