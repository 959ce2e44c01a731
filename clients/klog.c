/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * klog: a job's pod log through kaid, for users without kubectl.
 *
 *	klog [--task N] [-f] JOBID
 *
 * What the pod log holds: kaid's batch wrapper copies the job's output
 * file (-o, which also holds stderr unless -e was given) to the
 * container's output as the script writes it, so klog shows what the
 * script printed, live with -f; the file itself stays the record.  kaid
 * streams the log back as it reads it from the apiserver; with -f the
 * answer lasts until the pod's container ends, so the usual receive time
 * limit is lifted (kaid's death still ends it: the connection closes).
 * Only the job's owner or an operator may read it.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "proto/msg_tools.h"

static const char *const prog = "klog";

enum {
	K_HELP = CLIOPT_LONG,
	K_TASK,
};

static const struct cliopt table[] = {
    CLIOPT("follow", 'f', CLIOPT_NOARG, NULL,
	"keep printing the log as it grows, until the job's task ends"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("task", K_TASK, CLIOPT_ARG, "N", "the log of task N (0 by default)"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {"klog [--task N] [-f] JOBID", NULL};

struct opts {
	struct kai_log_req req;
	bool help, version;
};

static int
parse_args(struct opts *o, int argc, char **argv, struct kai_err *err)
{
	struct cliopt_parser p;
	const char *arg;
	uint64_t *ids = NULL, v;
	size_t n = 0;
	int c, r = 0;

	cliopt_begin(&p, table, KAI_NELEM(table), false);
	while (r == 0 &&
	    (c = cliopt_next(&p, argc, argv, &arg, err)) != CLIOPT_DONE) {
		if (c < 0)
			r = c;
		else if (c == 'f')
			o->req.follow = true;
		else if (c == 'h' || c == K_HELP)
			o->help = true;
		else if (c == 'V')
			o->version = true;
		else if (c == K_TASK &&
		    (r = kai_strtou64(arg, UINT32_MAX, &v, "task", err)) == 0)
			o->req.task = (uint32_t)v;
	}
	if (r == 0 && !o->help && !o->version) {
		if (optind >= argc)
			r = kai_err_set(err, KAI_EINVAL, "missing job id");
		else if (optind + 1 < argc)
			r = kai_err_set(err, KAI_EINVAL,
			    "unexpected argument \"%s\"", argv[optind + 1]);
		else if ((r = filter_parse_ids(argv[optind], &ids, &n, err)) ==
			0 &&
		    n != 1)
			r = kai_err_set(err, KAI_EINVAL,
			    "invalid job id \"%s\": klog takes one job",
			    argv[optind]);
		if (r == 0)
			o->req.id = ids[0];
		free(ids);
	}
	cliopt_end(&p);
	return r;
}

/* The refusal in an ERROR frame, as client_request() prints it. */
static int
refused(const struct kai_buf *body)
{
	struct kai_msg_error m;
	struct kai_err err;
	int rc;

	if (kai_msg_error_decode(body->data, body->len, &m, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	client_error(prog, m.hint, "%s", m.msg);
	rc = m.code == KAI_EAUTH ? CLIENT_EXIT_CONNECT : CLIENT_EXIT_REFUSED;
	kai_msg_error_fini(&m);
	return rc;
}

/* Prints every LOG_REPLY frame's bytes until the last one. */
static int
read_log(int fd, const char *where)
{
	struct kai_frame_hdr h;
	struct kai_buf body;
	struct kai_err err;
	int rc = CLIENT_EXIT_OK;

	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	for (;;) {
		if (client_recv_frame(fd, &h, &body, &err) != 0) {
			client_error(prog, NULL,
			    "no reply from kaid at \"%s\": "
			    "%s",
			    where, err.msg);
			rc = CLIENT_EXIT_CONNECT;
			break;
		}
		if (h.type == KAI_MSG_ERROR) {
			(void)fflush(stdout);
			rc = refused(&body);
			break;
		}
		if (h.type != KAI_MSG_LOG_REPLY) {
			client_error(prog, NULL,
			    "invalid reply from kaid at "
			    "\"%s\": unexpected reply type %u",
			    where, h.type);
			rc = CLIENT_EXIT_CONNECT;
			break;
		}
		if (body.len > 0 &&
		    (fwrite(body.data, 1, body.len, stdout) != body.len ||
			fflush(stdout) != 0)) {
			rc = CLIENT_EXIT_REFUSED; /* stdout closed: stop */
			break;
		}
		if ((h.flags & KAI_FRAME_MORE) == 0)
			break;
	}
	kai_buf_fini(&body);
	return rc;
}

static int
run(const struct opts *o)
{
	struct timeval none = {0, 0};
	struct client_target t;
	struct kai_buf frame, body;
	struct kai_err err;
	int fd = -1, rc = CLIENT_EXIT_CONNECT;

	if (client_target_load(&t, &err) != 0) {
		client_error(prog, err.hint, "%s", err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	kai_buf_init(&body, 64);
	kai_buf_init(&frame, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_log_encode(&body, &o->req) != 0 ||
	    client_frame_new(&frame, KAI_MSG_LOG, body.data, body.len,
		t.munge_socket, 0, &err) != 0 ||
	    client_connect(t.controller, &fd, &err) != 0 ||
	    client_send(fd, frame.data, frame.len, &err) != 0) {
		client_error(prog, err.hint,
		    "cannot connect to kaid at \"%s\": "
		    "%s",
		    t.controller, err.msg);
	} else {
		/* A followed log may be quiet for hours. */
		if (o->req.follow)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none,
			    sizeof(none));
		rc = read_log(fd, t.controller);
	}
	if (fd != -1)
		(void)close(fd);
	kai_buf_fini(&frame);
	kai_buf_fini(&body);
	client_target_fini(&t);
	return rc;
}

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct opts *o = ctx;
	int r;

	if ((r = parse_args(o, argc, argv, err)) == 0)
		*act = client_action_of(o->help, o->version);
	return r;
}

static int
main_run(void *ctx)
{
	return run((struct opts *)ctx);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, NULL};
	struct opts o;

	memset(&o, 0, sizeof(o));
	return client_main(&p, &o, argc, argv);
}
