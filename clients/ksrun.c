/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksrun, ksalloc: a command or a shell in a new job, on this terminal.
 *
 *	ksrun [options] [--pty] [--quit-on-interrupt] [-X] CMD [ARGS...]
 *	ksalloc [options] [CMD [ARGS...]]
 *
 * One program under two names.  It takes ksubmit's options (the same
 * table and parser, clients/submit_*.c), submits a job whose script is
 * `exec kaistep pty-serve [--pty] -- CMD...` (pod/ptyserve.c), and
 * attaches to the job's terminal through kaid as the session's owner
 * (PTY_ATTACH, daemons/kaid/ptyrelay.c): when the command ends its status
 * is ours, and when we go the command is hung up and the job ends,
 * which is Slurm's srun --pty.  ksalloc is `ksrun --pty $SHELL` with
 * salloc's messages: with Slurm's use_interactive_step the shell runs
 * on the allocation's first node, and that is the one way it works
 * here (no shell on the login node: a job's srun needs its pods).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_pty.h"
#include "model/job.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "pty_term.h"
#include "submit_env.h"
#include "submit_opts.h"

extern char **environ;

static const char *prog = "ksrun";
static bool alloc_mode;

static const char *const synopsis_run[] = {
    "ksrun [options] [--pty] [--quit-on-interrupt] [-X] CMD [ARGS...]",
    NULL,
};
static const char *const synopsis_alloc[] = {
    "ksalloc [options] [CMD [ARGS...]]",
    NULL,
};

/* Appends s to b quoted for sh: 'it'\''s'. */
static int
add_quoted(struct kai_buf *b, const char *s)
{
	int r = kai_buf_addc(b, '\'');

	for (; r == 0 && *s != '\0'; s++)
		r = *s == '\'' ? kai_buf_adds(b, "'\\''") :
		    kai_buf_addc(b, *s);
	return r == 0 ? kai_buf_addc(b, '\'') : r;
}

/* The job's script: the command under kaistep pty-serve. */
static char *
make_script(bool pty, int argc, char **argv)
{
	struct kai_buf b;
	int i, r;

	kai_buf_init(&b, (size_t)KAI_JOB_SCRIPT_MAX);
	r = kai_buf_adds(&b, "#!/bin/sh\nexec kaistep pty-serve");
	if (r == 0 && pty)
		r = kai_buf_adds(&b, " --pty");
	if (r == 0)
		r = kai_buf_adds(&b, " --");
	for (i = 0; r == 0 && i < argc; i++)
		if ((r = kai_buf_addc(&b, ' ')) == 0)
			r = add_quoted(&b, argv[i]);
	if (r == 0)
		r = kai_buf_addc(&b, '\n');
	if (r != 0) {
		kai_buf_fini(&b);
		return NULL;
	}
	return kai_buf_detach(&b, NULL);
}

static int
on_submit(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct kai_err err;

	(void)type;
	if (kai_msg_u64_decode(body, len, ctx, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

/* A plain SUBMIT, or SUBMIT_EXT around it with a dependency (-d). */
static int
send_job(const struct submit_opts *o, const struct kai_jobspec *js,
    uint64_t *id)
{
	struct kai_submit_ext x;
	struct kai_buf b;
	uint16_t type = KAI_MSG_SUBMIT;
	int r, rc;

	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (o->dep_spec == NULL) {
		r = kai_msg_submit_encode(&b, js);
	} else {
		type = KAI_MSG_SUBMIT_EXT;
		memset(&x, 0, sizeof(x));
		x.dependency = o->dep_spec;
		x.kill_on_invalid_dep = o->kill_invalid_dep;
		x.spec = *js; /* borrowed: not finished here */
		r = kai_msg_submit_ext_encode(&b, &x);
	}
	if (r != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "job is too large to send: the "
		    "request passes %d bytes", KAI_PROTO_BODY_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, type, b.data, b.len, on_submit, id);
	kai_buf_fini(&b);
	return rc;
}

/* Options of ksubmit that mean nothing for a job run on a terminal. */
static int
check_opts(const struct submit_opts *o, struct kai_err *err)
{
	const char *bad = o->array_spec != NULL ? "--array" :
	    o->wrap != NULL ? "--wrap" : o->wait ? "--wait" :
	    o->parse_only ? "--parse-only" : o->hold ? "--hold" : NULL;

	if (bad != NULL)
		return kai_err_set(err, KAI_EINVAL, "option \"%s\" is not "
		    "for %s: it runs the job on this terminal", bad, prog);
	return 0;
}

/* Parses, checks and builds the job; argv keeps the command's words. */
static int
build(struct submit_opts *o, int argc, char **argv, bool pty,
    const char *cwd, struct kai_jobspec *js, struct kai_err *err)
{
	const char *base;
	int first = argc, r;

	if ((r = submit_opts_parse(o, submit_table_len, argc, argv, NULL,
	    prog, cwd, SUBMIT_PASS_CLI, &first, err)) != 0 ||
	    (r = submit_opts_finish(o, err)) != 0)
		return r;
	if (o->help || o->version)
		return 0;
	if ((r = check_opts(o, err)) != 0)
		return r;
	if (first >= argc && !alloc_mode)
		return kai_err_set(err, KAI_EINVAL, "no command given: "
		    "ksrun [options] [--pty] CMD [ARGS...]");
	/* A terminal's output is the terminal's: no slurm-N.out files. */
	if (o->output == NULL)
		o->output = kai_xstrdup("/dev/null");
	if ((r = submit_opts_to_spec(o, cwd, js, err)) != 0)
		return r;
	if (js->name == NULL) {
		base = first < argc ? strrchr(argv[first], '/') : NULL;
		js->name = kai_xstrdup(first >= argc ? "interactive" :
		    base != NULL ? base + 1 : argv[first]);
	}
	if ((js->script = make_script(pty, argc - first, argv + first)) ==
	    NULL)
		return kai_err_set(err, KAI_EINVAL, "command too long");
	if ((r = submit_env_build(o->export, environ, &js->env, &js->nenv,
	    err)) != 0)
		return r;
	return kai_jobspec_validate(js, err);
}

static void
print_warning(const char *option, const char *msg, void *ctx)
{
	(void)option;
	(void)ctx;
	client_warn(prog, "%s", msg);
}

/* As ksubmit: options kaid cannot honour yet are refused, ignored ones
 * warned about. */
static int
refuse_or_warn(const struct submit_opts *o)
{
	const char *names[1];

	if (submit_opts_refusals(o, names, 1) > 0) {
		client_error(prog, NULL, "%s is not supported by kaid yet",
		    names[0]);
		return CLIENT_EXIT_USAGE;
	}
	if (!o->quiet)
		submit_opts_warnings(o, print_warning, NULL);
	return CLIENT_EXIT_OK;
}

/* Whether option word w (argv[i], before the command) takes the next
 * word as its value: -t 5, --time 5, -Nt 5; not -t5 or --time=5. */
static bool
takes_next(const char *w)
{
	size_t i, j, len;

	if (w[1] == '-') {
		if (strchr(w, '=') != NULL)
			return false;
		for (i = 0; i < submit_table_len; i++)
			if (submit_table[i].name != NULL &&
			    strcmp(submit_table[i].name, w + 2) == 0)
				return submit_table[i].arg == CLIOPT_ARG;
		return false;
	}
	len = strlen(w);
	for (j = 1; j < len; j++)
		for (i = 0; i < submit_table_len; i++)
			if (submit_table[i].key == (unsigned char)w[j] &&
			    submit_table[i].arg == CLIOPT_ARG)
				return j == len - 1; /* else: the rest is it */
	return false;
}

/* ksrun's own options, which ksubmit does not have. */
struct run_opts {
	bool pty;		/* --pty */
	bool quit_on_intr;	/* --quit-on-interrupt */
	bool disable_status;	/* -X, --disable-status */
};

/* Whether w is one of ksrun's own options; sets it in r. */
static bool
take_own(const char *w, struct run_opts *r)
{
	if (strcmp(w, "--pty") == 0)
		r->pty = true;
	else if (strcmp(w, "--quit-on-interrupt") == 0)
		r->quit_on_intr = true;
	else if (strcmp(w, "-X") == 0 || strcmp(w, "--disable-status") == 0)
		r->disable_status = true;
	else
		return false;
	return true;
}

/*
 * Takes ksrun's own options out (struct run_opts): any word before the
 * command, which is the first word that is neither an option nor an
 * option's value.
 */
static struct run_opts
take_own_opts(int *argc, char **argv)
{
	struct run_opts r = {false, false, false};
	int i, j;

	for (i = j = 1; i < *argc; i++) {
		if (take_own(argv[i], &r))
			continue;
		argv[j++] = argv[i];
		if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-' ||
		    argv[i][1] == '\0')
			break;
		if (takes_next(argv[i]) && i + 1 < *argc)
			argv[j++] = argv[++i];
	}
	for (i++; i < *argc; i++)
		argv[j++] = argv[i];
	*argc = j;
	argv[j] = NULL;
	return r;
}

static int
run(uint64_t id, const struct run_opts *r)
{
	struct kai_pty_open o = {id, KAI_PTY_OWNER, 0, 0};
	struct pty_term_opts t = {prog, id, r->pty, alloc_mode, true, id,
	    r->quit_on_intr, r->disable_status};
	uint64_t job;
	int fd, rc;

	(void)pty_term_winsize(&o.rows, &o.cols);
	if ((rc = client_pty_open(prog, KAI_MSG_PTY_ATTACH, &o, &fd, &job)) !=
	    CLIENT_EXIT_OK) {
		/* Nobody would ever see it run. */
		pty_term_cancel(prog, id);
		return rc;
	}
	return pty_term_run(&t, fd);
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	struct submit_opts o;
	struct kai_jobspec js;
	struct kai_err err;
	char cwd[PATH_MAX];
	uint64_t id = 0;
	struct run_opts ro;
	int rc;

	base = base != NULL ? base + 1 : argv[0];
	if (strcmp(base, "ksalloc") == 0) {
		prog = "ksalloc";
		alloc_mode = true;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		client_error(prog, NULL, "could not get the current "
		    "directory: %s", strerror(errno));
		return CLIENT_EXIT_USAGE;
	}
	ro = take_own_opts(&argc, argv);
	ro.pty = ro.pty || alloc_mode;
	memset(&js, 0, sizeof(js));
	kai_err_clear(&err);
	submit_opts_init(&o, (int64_t)time(NULL));
	if (build(&o, argc, argv, ro.pty, cwd, &js, &err) != 0) {
		client_error(prog, err.hint, "%s", kai_err_msg(&err));
		rc = CLIENT_EXIT_USAGE;
	} else if (o.help) {
		cliopt_usage(stdout, alloc_mode ? synopsis_alloc :
		    synopsis_run, submit_table, submit_table_len);
		rc = CLIENT_EXIT_OK;
	} else if (o.version) {
		(void)printf("%s (kaibatch) %s\n", prog, PACKAGE_VERSION);
		rc = CLIENT_EXIT_OK;
	} else if ((rc = refuse_or_warn(&o)) == CLIENT_EXIT_OK &&
	    (rc = send_job(&o, &js, &id)) == CLIENT_EXIT_OK) {
		if (alloc_mode)
			(void)fprintf(stderr, "%s: Pending job allocation %"
			    PRIu64 "\n", prog, id);
		rc = run(id, &ro);
		if (alloc_mode)
			(void)fprintf(stderr, "%s: Relinquishing job "
			    "allocation %" PRIu64 "\n", prog, id);
	}
	kai_jobspec_fini(&js);
	submit_opts_fini(&o);
	return rc;
}
