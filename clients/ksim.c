/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksim: the scheduler simulator.  Runs one cycle of the scheduler core on
 * a scenario file and prints the outcome as JSON, or checks it against
 * the file's `expect:` block.
 *
 *	ksim [options] FILE
 *	ksim --check FILE...
 *
 * The core is the very library kaid links (src/sched); ksim adds only
 * the file format (scenario.c) and the printing and comparing here, so a
 * scenario that passes is a statement about kaid's scheduler.  Exit
 * status: 0 ok, 1 a check failed, 2 usage or an invalid scenario.
 */
#include "config.h"

#include "ksim.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "scenario.h"

static const char *const prog = "ksim";

static void error(const char *fmt, ...) KAI_PRINTF(1, 2);

static void
error(const char *fmt, ...)
{
	va_list ap;

	(void)fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
}

static void
usage(FILE *f)
{
	(void)fprintf(f,
	    "usage: ksim [options] FILE\n"
	    "       ksim --check FILE...\n"
	    "\n"
	    "Runs one scheduling cycle on a scenario and prints the result "
	    "as JSON.\n"
	    "\n"
	    "  -c, --check     compare each FILE with its expect: block\n"
	    "  -h, --help      print this help and exit\n"
	    "  -V, --version   print the version and exit\n");
}

/* Loads and runs one file; 0, or 2 with the reason printed. */
static int
simulate(const char *path, struct scenario *sc, struct kai_sched_result *r)
{
	struct kai_err err;

	kai_err_clear(&err);
	if (scenario_load(path, sc, &err) != 0) {
		error("%s", kai_err_msg(&err));
		return KSIM_EXIT_USAGE;
	}
	if (kai_sched_cycle(&sc->snap, r, &err) != 0) {
		error("%s: %s", path, kai_err_msg(&err));
		scenario_fini(sc);
		return KSIM_EXIT_USAGE;
	}
	return KSIM_EXIT_OK;
}

static int
print_one(const char *path)
{
	struct scenario sc;
	struct kai_sched_result r;
	int rc;

	if ((rc = simulate(path, &sc, &r)) != KSIM_EXIT_OK)
		return rc;
	ksim_json(stdout, &sc, &r);
	kai_sched_result_fini(&r);
	scenario_fini(&sc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error("could not write the result");
		return KSIM_EXIT_USAGE;
	}
	return KSIM_EXIT_OK;
}

static int
check_all(int n, char **files)
{
	int i, worst = KSIM_EXIT_OK;

	for (i = 0; i < n; i++) {
		struct scenario sc;
		struct kai_sched_result r;
		int rc;

		if ((rc = simulate(files[i], &sc, &r)) == KSIM_EXIT_OK) {
			if (!sc.expect.present) {
				error("%s: no expect: block to check",
				    files[i]);
				rc = KSIM_EXIT_USAGE;
			} else if (ksim_check(stdout, files[i], &sc, &r) > 0) {
				rc = KSIM_EXIT_FAILED;
			} else {
				(void)printf("ok %s\n", files[i]);
			}
			kai_sched_result_fini(&r);
			scenario_fini(&sc);
		}
		/* Invalid input outranks a failed check. */
		if (rc == KSIM_EXIT_USAGE || worst == KSIM_EXIT_OK)
			worst = rc > worst ? rc : worst;
		(void)fflush(stdout);
	}
	return worst;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"check", no_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	bool check = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":chV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return KSIM_EXIT_OK;
		case 'V':
			(void)printf("%s (kaibatch) %s\n", prog,
			    PACKAGE_VERSION);
			return KSIM_EXIT_OK;
		default:
			if (optopt != 0)
				error("unrecognized option \"-%c\"", optopt);
			else
				error("unrecognized option \"%s\"",
				    argv[optind - 1]);
			usage(stderr);
			return KSIM_EXIT_USAGE;
		}
	}
	if (optind == argc || (!check && argc - optind != 1)) {
		error(check
			? "no scenario file given"
			: "give exactly one scenario file (or use --check)");
		usage(stderr);
		return KSIM_EXIT_USAGE;
	}
	if (check)
		return check_all(argc - optind, argv + optind);
	return print_one(argv[optind]);
}
