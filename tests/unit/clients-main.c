/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-main: client_main(), the main() of every client program: a
 * fault is one line on stderr and exit 2, -h the table's usage and -V
 * the version on stdout with exit 0, otherwise run's status; what
 * parsing took is released on every path.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "client.h"
#include "client_main.h"
#include "tap.h"

struct fake {
	const char *mode; /* what parse does: "fail", "help", "version", "run" */
	int runs, finis;
	char *taken; /* allocated by parse, released by fini */
};

static const struct cliopt table[] = {
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version"),
};
static const char *const synopsis[] = {"kfake [options]", NULL};

static int
fake_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct fake *f = ctx;

	(void)argc;
	(void)argv;
	f->taken = strdup("taken");
	if (strcmp(f->mode, "fail") == 0) {
		(void)kai_err_set(err, KAI_EINVAL, "invalid thing \"x\"");
		kai_err_hint(err, "try harder");
		return KAI_EINVAL;
	}
	*act = client_action_of(strcmp(f->mode, "help") == 0,
	    strcmp(f->mode, "version") == 0);
	return 0;
}

static int
fake_run(void *ctx)
{
	struct fake *f = ctx;

	f->runs++;
	return CLIENT_EXIT_REFUSED;
}

static void
fake_fini(void *ctx)
{
	struct fake *f = ctx;

	f->finis++;
	free(f->taken);
	f->taken = NULL;
}

/* Runs client_main in mode; its stdout and stderr into out and err. */
static int
call(struct fake *f, const char *mode, char *out, char *errs, size_t size)
{
	const struct client_prog p = {"kfake", synopsis, table,
	    KAI_NELEM(table), fake_parse, fake_run, fake_fini};
	char name[] = "kfake";
	char *argv[] = {name, NULL};
	FILE *o = tmpfile(), *e = tmpfile();
	int so = dup(1), se = dup(2), rc;
	size_t n;

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	(void)fflush(stdout);
	(void)fflush(stderr);
	(void)dup2(fileno(o), 1);
	(void)dup2(fileno(e), 2);
	rc = client_main(&p, f, 1, argv);
	(void)fflush(stdout);
	(void)fflush(stderr);
	(void)dup2(so, 1);
	(void)dup2(se, 2);
	(void)close(so);
	(void)close(se);
	rewind(o);
	rewind(e);
	n = fread(out, 1, size - 1, o);
	out[n] = '\0';
	n = fread(errs, 1, size - 1, e);
	errs[n] = '\0';
	(void)fclose(o);
	(void)fclose(e);
	return rc;
}

int
main(void)
{
	struct fake f;
	char out[1024], err[1024];

	is_int(call(&f, "fail", out, err, sizeof(out)), CLIENT_EXIT_USAGE,
	    "a fault exits 2");
	is_str(err, "kfake: error: invalid thing \"x\"\nhint: try harder\n",
	    "one line naming the fault, and the hint");
	is_str(out, "", "nothing on stdout");
	ok(f.runs == 0 && f.finis == 1 && f.taken == NULL,
	    "not run; released");

	is_int(call(&f, "help", out, err, sizeof(out)), CLIENT_EXIT_OK,
	    "-h exits 0");
	ok(strncmp(out, "usage: kfake [options]\n", 23) == 0 &&
		strstr(out, "--version") != NULL,
	    "-h prints the synopsis and the table");
	is_str(err, "", "nothing on stderr");
	ok(f.runs == 0 && f.finis == 1, "not run; released");

	is_int(call(&f, "version", out, err, sizeof(out)), CLIENT_EXIT_OK,
	    "-V exits 0");
	is_str(out, "kfake (kaibatch) " PACKAGE_VERSION "\n", "-V");
	ok(f.runs == 0 && f.finis == 1, "not run; released");

	is_int(call(&f, "run", out, err, sizeof(out)), CLIENT_EXIT_REFUSED,
	    "otherwise run's status is the exit status");
	ok(f.runs == 1 && f.finis == 1 && f.taken == NULL, "run once; released");

	is_int(client_action_of(true, true), CLIENT_HELP, "-h wins over -V");
	is_int(client_action_of(false, true), CLIENT_VERSION, "-V");
	is_int(client_action_of(false, false), CLIENT_RUN, "neither");
	return done_testing();
}
