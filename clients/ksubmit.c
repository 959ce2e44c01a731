/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksubmit: submit a batch script to kaid, the way sbatch does.
 *
 *	ksubmit [options] script [args...]
 *	ksubmit [options] --wrap "command"
 *	ksubmit [options] < script
 *	ksubmit --parse-only [--json] [options] script [args...]
 *
 * With -W/--wait it then waits for the job to end (submit_wait.c) and
 * exits with the job's exit code, as sbatch does.
 *
 * The work is in the order sbatch does it, so that every fault is found
 * before anything is sent: parse the command line (to find the script),
 * read and check the script, apply its #SBATCH / #KSUB directives, then
 * the SBATCH_* variables, then the command line again on top (it wins),
 * then build, check and send the job spec.  With --parse-only the request
 * is printed as JSON instead, and nothing is sent: no credential, no
 * connection.  The parsing itself is pure and lives in directives.c,
 * submit_*.c; this file does the I/O.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
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
#include "directives.h"
#include "model/job.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "submit_env.h"
#include "submit_json.h"
#include "submit_opts.h"
#include "submit_wait.h"

extern char **environ;

static const char *const prog = "ksubmit";

#define SCRIPT_MAX ((size_t)KAI_JOB_SCRIPT_MAX)

static const char *const synopsis[] = {
    "ksubmit [options] script [args...]",
    "ksubmit [options] --wrap \"command\"",
    "ksubmit [options] < script",
    "ksubmit --parse-only [--json] [options] script [args...]",
    NULL,
};

/* The script as read, and how to name it. */
struct script {
	char *text; /* NUL-terminated */
	size_t len;
	const char *source; /* path as given, "stdin" or "wrap" */
	char *default_name; /* job name when -J is not given */
};

static int
usage_error(const char *msg)
{
	client_error(prog, NULL, "%s", msg);
	return CLIENT_EXIT_USAGE;
}

/*
 * Reads at most KAI_JOB_SCRIPT_MAX bytes of fd; past that it goes on
 * counting (without keeping) so the error can give the real size.
 */
static int
read_script(int fd, struct script *s, struct kai_err *err)
{
	char chunk[8192];
	size_t cap = 0, total = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kai_err_set(err, KAI_ESYS,
			    "could not read script \"%s\": %s", s->source,
			    strerror(errno));
		if (n == 0)
			break;
		if (total + (size_t)n <= SCRIPT_MAX) {
			if (total + (size_t)n + 1 > cap) {
				cap = total + (size_t)n + 1 + cap;
				s->text = kai_xreallocarray(s->text, cap, 1);
			}
			memcpy(s->text + total, chunk, (size_t)n);
		}
		total += (size_t)n;
	}
	if (total > SCRIPT_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "script \"%s\" is too large: %zu bytes (limit %d)",
		    s->source, total, KAI_JOB_SCRIPT_MAX);
	if (s->text == NULL)
		s->text = kai_xmalloc(1);
	s->text[total] = '\0';
	s->len = total;
	return 0;
}

static int
open_script(const char *path, struct script *s, struct kai_err *err)
{
	struct stat st;
	const char *base;
	int fd, r;

	s->source = path;
	base = strrchr(path, '/');
	s->default_name =
	    kai_xstrdup(base != NULL && base[1] != '\0' ? base + 1 : path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return kai_err_set(err, KAI_ESYS,
		    "could not open script \"%s\": %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (off_t)KAI_JOB_SCRIPT_MAX) {
		(void)close(fd);
		return kai_err_set(err, KAI_EINVAL,
		    "script \"%s\" is too large: %jd bytes (limit %d)", path,
		    (intmax_t)st.st_size, KAI_JOB_SCRIPT_MAX);
	}
	r = read_script(fd, s, err);
	(void)close(fd);
	return r;
}

/* sbatch's checks on the text itself, with its reasons. */
static int
check_script(const struct script *s, struct kai_err *err)
{
	if (s->len == 0)
		return kai_err_set(err, KAI_EINVAL, "script \"%s\" is empty",
		    s->source);
	if (strlen(s->text) != s->len)
		return kai_err_set(err, KAI_EINVAL,
		    "script \"%s\" contains a NUL byte", s->source);
	if (strncmp(s->text, "#!", 2) != 0) {
		(void)kai_err_set(err, KAI_EINVAL,
		    "script \"%s\" does not start with \"#!\"", s->source);
		kai_err_hint(err,
		    "The first line must name the interpreter, "
		    "as in \"#!/bin/bash\".");
		return KAI_EINVAL;
	}
	if (strstr(s->text, "\r\n") != NULL) {
		(void)kai_err_set(err, KAI_EINVAL,
		    "script \"%s\" has DOS line breaks (\\r\\n)", s->source);
		kai_err_hint(err, "Convert it with \"dos2unix\".");
		return KAI_EINVAL;
	}
	return 0;
}

static int
get_script(const struct submit_opts *cli, int argc, char **argv, int first,
    struct script *s, struct kai_err *err)
{
	if (cli->wrap != NULL) {
		if (first < argc)
			return kai_err_set(err, KAI_EINVAL,
			    "script arguments are not allowed with --wrap");
		s->source = "wrap";
		s->default_name = kai_xstrdup("wrap");
		s->text = kai_xasprintf("#!/bin/sh\n%s\n", cli->wrap);
		s->len = strlen(s->text);
		if (s->len > SCRIPT_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "script \"wrap\" is too large: %zu bytes (limit %d)",
			    s->len, KAI_JOB_SCRIPT_MAX);
		return 0;
	}
	if (first < argc)
		return open_script(argv[first], s, err);
	s->source = "stdin";
	s->default_name = kai_xstrdup(prog);
	return read_script(STDIN_FILENO, s, err);
}

static void
print_warning(const char *option, const char *msg, void *ctx)
{
	(void)option;
	(void)ctx;
	client_warn(prog, "%s", msg);
}

/*
 * A -w or -x value with a '/' names a file of node names, one or more a
 * line, as sbatch reads it: the names become one comma list, which the
 * host list check then reads like a value given inline.
 */
static int
read_node_file(char **val, const char *opt, struct kai_err *err)
{
	char buf[65536], *out, *w;
	size_t len = 0, i;
	ssize_t got;
	int fd;

	if (*val == NULL || strchr(*val, '/') == NULL)
		return 0;
	if ((fd = open(*val, O_RDONLY | O_CLOEXEC)) < 0)
		return kai_err_set(err, KAI_EINVAL, "option \"%s\": cannot "
		    "read node file \"%s\": %s", opt, *val, strerror(errno));
	while (len < sizeof(buf) &&
	    (got = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			(void)close(fd);
			return kai_err_set(err, KAI_EINVAL, "option \"%s\": "
			    "cannot read node file \"%s\": %s", opt, *val,
			    strerror(e));
		}
		len += (size_t)got;
	}
	(void)close(fd);
	if (len == sizeof(buf))
		return kai_err_set(err, KAI_EINVAL, "option \"%s\": node file "
		    "\"%s\" is larger than 64 KiB", opt, *val);
	out = w = kai_xmalloc(len + 1);
	for (i = 0; i < len; i++) {
		bool sep = buf[i] == ',' || buf[i] == ' ' || buf[i] == '\t' ||
		    buf[i] == '\n' || buf[i] == '\r';

		if (!sep)
			*w++ = buf[i];
		else if (w > out && w[-1] != ',')
			*w++ = ',';
	}
	if (w > out && w[-1] == ',')
		w--;
	*w = '\0';
	if (*out == '\0') {
		free(out);
		return kai_err_set(err, KAI_EINVAL, "option \"%s\": node file "
		    "\"%s\" names no node", opt, *val);
	}
	free(*val);
	*val = out;
	return 0;
}

/*
 * The options in the order sbatch applies them, so that the last value
 * wins: the script's directives, the SBATCH_* variables, the command line.
 */
static int
apply_options(struct submit_opts *o, const struct script *s, int first,
    char **argv, const char *cwd, struct kai_err *err)
{
	struct directives d;
	int r = 0;

	if (strcmp(s->source, "wrap") != 0) {
		directives_scan(s->text, s->source, &d);
		if (d.slurm_line > 0 && !o->quiet && !o->parse_only)
			client_warn(prog,
			    "%s:%d: change from #SLURM to #SBATCH", s->source,
			    d.slurm_line);
		r = submit_opts_directives(o, &d, cwd, err);
		directives_fini(&d);
	}
	if (r == 0)
		r = submit_opts_env(o, environ, cwd, err);
	if (r == 0)
		r = submit_opts_parse(o, submit_table_len, first, argv, NULL,
		    prog, cwd, SUBMIT_PASS_CLI, NULL, err);
	if (r == 0)
		r = submit_opts_finish(o, err);
	if (r == 0)
		r = read_node_file(&o->nodelist, "--nodelist", err);
	if (r == 0)
		r = read_node_file(&o->exclude, "--exclude", err);
	if (r == 0)
		submit_opts_nodelist_nodes(o);
	return r;
}

static int
build_spec(const struct submit_opts *o, struct script *s, int argc, char **argv,
    int first, struct kai_jobspec *js, struct kai_err *err)
{
	char host[256];
	int i, r;

	if (js->name == NULL)
		js->name = kai_xstrdup(s->default_name);
	js->script = s->text;
	s->text = NULL;
	if (o->wrap == NULL && first < argc - 1) {
		js->argc = (size_t)(argc - first - 1);
		js->argv = kai_xcalloc(js->argc, sizeof(char *));
		for (i = first + 1; i < argc; i++)
			js->argv[i - first - 1] = kai_xstrdup(argv[i]);
	}
	if ((r = submit_env_build(o->export, environ, &js->env, &js->nenv,
		 err)) != 0)
		return r;
	/* A name too long for the buffer is cut: it is only informative. */
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		submit_env_submit_host(&js->env, &js->nenv, host);
	}
	return kai_jobspec_validate(js, err);
}

static int
on_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	bool ours = type == KAI_MSG_SUBMIT_REPLY ||
	    type == KAI_MSG_SUBMIT_EXT_REPLY;
	struct kai_err err;

	kai_err_clear(&err);
	if (!ours || kai_msg_u64_decode(body, len, ctx, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    !ours ? "unexpected message type" : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

/*
 * The request: a plain KAI_MSG_SUBMIT, or KAI_MSG_SUBMIT_EXT around it
 * when the job is an array or has a dependency.
 */
static int
encode_spec(struct kai_buf *b, const struct submit_opts *o,
    const struct kai_jobspec *js, uint16_t *type)
{
	struct kai_submit_ext x;
	int r;

	*type = KAI_MSG_SUBMIT;
	if (o->array_spec == NULL && o->dep_spec == NULL)
		return kai_msg_submit_encode(b, js);
	*type = KAI_MSG_SUBMIT_EXT;
	memset(&x, 0, sizeof(x));
	x.array = o->array_spec;
	x.dependency = o->dep_spec;
	x.kill_on_invalid_dep = o->kill_invalid_dep;
	x.spec = *js;	/* borrowed: not finished here */
	r = kai_msg_submit_ext_encode(b, &x);
	return r;
}

static int
send_spec(const struct submit_opts *o, const struct kai_jobspec *js,
    bool parsable, uint64_t *idp)
{
	struct kai_buf b;
	uint64_t id = 0;
	uint16_t type;
	int rc;

	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (encode_spec(&b, o, js, &type) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL,
		    "job is too large to send: the request passes %d bytes",
		    KAI_PROTO_BODY_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, type, b.data, b.len, on_reply, &id);
	kai_buf_fini(&b);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	if (parsable)
		(void)printf("%" PRIu64 "\n", id);
	else
		(void)printf("Submitted batch job %" PRIu64 "\n", id);
	*idp = id;
	return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
}

/* --parse-only: the request as JSON on stdout, one line with --json. */
static int
print_json(struct json_object *j, bool compact, int rc)
{
	(void)puts(json_object_to_json_string_ext(j,
	    (compact ? JSON_C_TO_STRING_PLAIN
		     : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	if (fflush(stdout) != 0)
		return CLIENT_EXIT_USAGE;
	return rc;
}

/* A fault found before anything is sent: one line, and the JSON too. */
static int
fault(const struct submit_opts *cli, const struct kai_err *err)
{
	client_error(prog, err->hint, "%s", kai_err_msg(err));
	if (!cli->parse_only)
		return CLIENT_EXIT_USAGE;
	return print_json(submit_json_invalid_new(kai_err_msg(err)), cli->json,
	    CLIENT_EXIT_USAGE);
}

/* kaid would not do what these options ask: say so instead of sending. */
static int
refuse_later(const struct submit_opts *o)
{
	const char *names[1];

	if (submit_opts_refusals(o, names, KAI_NELEM(names)) == 0)
		return CLIENT_EXIT_OK;
	client_error(prog, NULL, "%s is not supported by kaid yet", names[0]);
	return CLIENT_EXIT_USAGE;
}

/* Everything after the first command-line pass; returns the exit code. */
static int
submit(const struct submit_opts *cli, struct submit_opts *o, int argc,
    char **argv, int first, const char *cwd)
{
	struct script s = {NULL, 0, "", NULL};
	struct kai_jobspec js;
	struct kai_err err;
	uint64_t id = 0;
	int rc;

	memset(&js, 0, sizeof(js));
	kai_err_clear(&err);
	if (get_script(cli, argc, argv, first, &s, &err) != 0 ||
	    (strcmp(s.source, "wrap") != 0 && check_script(&s, &err) != 0) ||
	    apply_options(o, &s, first, argv, cwd, &err) != 0 ||
	    submit_opts_to_spec(o, cwd, &js, &err) != 0) {
		rc = fault(cli, &err);
		goto out;
	}
	if (cli->parse_only) {
		rc = print_json(submit_json_new(o, s.default_name, cwd, &js),
		    cli->json, CLIENT_EXIT_OK);
		goto out;
	}
	if ((rc = refuse_later(o)) != CLIENT_EXIT_OK)
		goto out;
	if (!o->quiet)
		submit_opts_warnings(o, print_warning, NULL);
	if (build_spec(o, &s, argc, argv, first, &js, &err) != 0) {
		client_error(prog, err.hint, "%s", kai_err_msg(&err));
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	rc = send_spec(o, &js, o->parsable, &id);
	/* sbatch -W: the job's exit code is ksubmit's */
	if (rc == CLIENT_EXIT_OK && o->wait)
		rc = submit_wait(prog, id);
out:
	kai_jobspec_fini(&js);
	free(s.text);
	free(s.default_name);
	return rc;
}

static int
help_or_version(const struct submit_opts *cli)
{
	if (cli->help) {
		cliopt_usage(stdout, synopsis, submit_table, submit_table_len);
		(void)printf("\nOther sbatch options are accepted and ignored, "
			     "or refused: see ksubmit(1).\n");
	} else {
		(void)printf("%s (kaibatch) %s\n", prog, PACKAGE_VERSION);
	}
	return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_USAGE;
}

/*
 * Whether the command line asked for JSON before the fault at optind, so
 * that a bad option still gets its {"valid": false} answer.
 */
static void
json_wanted(struct submit_opts *cli, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && i < optind; i++) {
		if (strcmp(argv[i], "--parse-only") == 0)
			cli->parse_only = true;
		else if (strcmp(argv[i], "--json") == 0)
			cli->json = true;
	}
}

int
main(int argc, char **argv)
{
	struct submit_opts cli, o;
	struct kai_err err;
	char cwd[PATH_MAX];
	int64_t now = (int64_t)time(NULL);
	int first = argc, rc;

	kai_err_clear(&err);
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		client_error(prog, NULL,
		    "could not get the current directory: %s", strerror(errno));
		return CLIENT_EXIT_USAGE;
	}
	submit_opts_init(&cli, now);
	if (submit_opts_parse(&cli, submit_table_len, argc, argv, NULL, prog,
		cwd, SUBMIT_PASS_CLI, &first, &err) != 0) {
		json_wanted(&cli, argc, argv);
		rc = fault(&cli, &err);
	} else if (cli.help || cli.version) {
		rc = help_or_version(&cli);
	} else if (cli.json && !cli.parse_only) {
		rc = usage_error("option \"--json\" needs \"--parse-only\"");
	} else {
		/* the script is found with the first pass; options start over */
		submit_opts_init(&o, now);
		o.quiet = cli.quiet;
		o.parse_only = cli.parse_only;
		rc = submit(&cli, &o, argc, argv, first, cwd);
		submit_opts_fini(&o);
	}
	submit_opts_fini(&cli);
	return rc;
}
