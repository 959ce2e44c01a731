/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kcancel: cancel jobs, the way scancel does.
 *
 *	kcancel [options] [JOBID...]
 *
 * Job ids and filters combine with AND, as in scancel: "kcancel -u ann 42"
 * cancels job 42 only if it is ann's.  With no job id a filter must be
 * given; scancel refuses to guess too.  kaid answers with one result per
 * job it named or matched, and every refusal is printed the way scancel
 * prints it ("Kill job error on job id 42: ..."); the exit status is 1 if
 * any job was refused.  A job that has already finished, or never
 * existed, is not refused: scancel says nothing of it (but with -v) and
 * exits 0.  --name has no field in the cancel request, so it
 * first asks kaid for the matching active jobs and cancels those by id.
 * "123" names a whole job array; "123_4" and "123_[1-3,7]" name array
 * tasks and go in a request of their own (KAI_MSG_CANCEL_TASKS).
 * --signal=SIG sends SIG instead, as scancel does, to the running jobs'
 * steps (-b the batch shell alone, --full both): kaid passes it to the
 * step agents in the jobs' pods (KAI_MSG_STEP_SIGNAL, proto_step.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "jobquery.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "proto/proto_step.h"
#include "submit_values.h"

static const char *const prog = "kcancel";

enum {
	K_ME = CLIOPT_LONG,
	K_HELP,
};

static const struct cliopt table[] = {
    CLIOPT("batch", 'b', CLIOPT_NOARG, NULL,
	"with --signal: the batch shell alone"),
    CLIOPT("full", 'f', CLIOPT_NOARG, NULL,
	"with --signal: the batch shell and the steps"),
    CLIOPT("signal", 's', CLIOPT_ARG, "SIG",
	"send SIG to the running jobs' steps instead of cancelling"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("me", K_ME, CLIOPT_NOARG, NULL, "only my jobs"),
    CLIOPT("name", 'n', CLIOPT_ARG, "LIST", "only jobs with these names"),
    CLIOPT("partition", 'p', CLIOPT_ARG, "LIST",
	"only jobs in these partitions"),
    CLIOPT("quiet", 'Q', CLIOPT_NOARG, NULL,
	"say nothing about jobs that have already finished"),
    CLIOPT("state", 't', CLIOPT_ARG, "LIST",
	"only jobs in these states (PENDING, CONFIGURING, RUNNING)"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("user", 'u', CLIOPT_ARG, "LIST",
	"only jobs of these users (names or uids)"),
    CLIOPT("verbose", 'v', CLIOPT_NOARG, NULL,
	"print a line for every job cancelled"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {"kcancel [options] [JOBID...]", NULL};

struct opts {
	struct kai_cancel c;
	struct kai_task_ref *tasks; /* "123_4", "123_[1-3]" */
	size_t ntasks;
	char **names; /* -n */
	size_t nnames;
	bool quiet, verbose, help, version;
	int sig;	    /* --signal; 0 = cancel */
	uint32_t sigflags;  /* KAI_STEP_SIG_* */
};

static int
add_me(struct kai_cancel *c)
{
	c->uids = kai_xreallocarray(c->uids, c->nuids + 1, sizeof(*c->uids));
	c->uids[c->nuids++] = (uint32_t)getuid();
	return 0;
}

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;

	switch (c) {
	case 'b':
		o->sigflags |= KAI_STEP_SIG_BATCH;
		return 0;
	case 'f':
		o->sigflags |= KAI_STEP_SIG_FULL;
		return 0;
	case 's': {
		struct submit_signal sg;

		if (strpbrk(arg, ":@") != NULL ||
		    submit_signal_parse(arg, &sg, err) != 0)
			return kai_err_set(err, KAI_EINVAL, "invalid signal "
			    "\"%s\": expected a name (USR1, SIGTERM) or a "
			    "number from 1 to 64", arg);
		o->sig = sg.number;
		return 0;
	}
	case 'n':
		return filter_parse_names("job name", arg, &o->names,
		    &o->nnames, err);
	case 'p':
		return filter_parse_names("partition", arg, &o->c.queues,
		    &o->c.nqueues, err);
	case 'Q':
		o->quiet = true;
		return 0;
	case 't':
		if (filter_parse_states(arg, &o->c.state_mask, err) != 0)
			return KAI_EINVAL;
		if ((o->c.state_mask & ~KAI_JOB_STATES_ACTIVE) != 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid job state list \"%s\": only pending, "
			    "configuring and running jobs can be cancelled",
			    arg);
		return 0;
	case 'u':
		return filter_parse_users(arg, &o->c.uids, &o->c.nuids, err);
	case 'v':
		o->verbose = true;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	case 'h':
	case K_HELP:
		o->help = true;
		return 0;
	case K_ME:
		return add_me(&o->c);
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", c);
	}
}

/* An operand: a job id list, or an array task ("123_4", "123_[1-3]"). */
static int
set_operand(void *ctx, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;

	if (strchr(arg, '_') != NULL)
		return filter_parse_task(arg, &o->tasks, &o->ntasks, err);
	return filter_parse_ids(arg, &o->c.ids, &o->c.nids, err);
}

static int
parse_args(struct opts *o, int argc, char **argv, struct kai_err *err)
{
	int r = cliopt_parse(table, KAI_NELEM(table), argc, argv, set_opt,
	    set_operand, o, err);

	if (r == 0 && o->quiet && o->verbose)
		r = kai_err_set(err, KAI_EINVAL,
		    "options \"--quiet\" and \"--verbose\" exclude each other");
	if (r == 0 && o->sigflags != 0 && o->sig == 0)
		r = kai_err_set(err, KAI_EINVAL, "option \"--%s\" needs "
		    "\"--signal\"", o->sigflags & KAI_STEP_SIG_BATCH ? "batch"
		    : "full");
	if (r == 0 && o->sigflags == KAI_STEP_SIG_FLAGS)
		r = kai_err_set(err, KAI_EINVAL,
		    "options \"--batch\" and \"--full\" exclude each other");
	if (r == 0 && o->sig != 0 && o->ntasks > 0)
		r = kai_err_set(err, KAI_EINVAL, "option \"--signal\" takes "
		    "whole jobs, not array tasks such as \"%" PRIu64 "_%" PRIu32
		    "\"", o->tasks[0].array_id, o->tasks[0].task);
	if (r == 0 && !o->help && !o->version && o->c.nids == 0 &&
	    o->ntasks == 0 &&
	    o->c.nuids == 0 && o->c.nqueues == 0 && o->c.state_mask == 0 &&
	    o->nnames == 0)
		r = kai_err_set(err, KAI_EINVAL,
		    "no job id and no filter given: nothing to cancel");
	return r;
}

struct results {
	const struct opts *o;
	int refused;
};

static int
on_results(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct results *res = ctx;
	struct kai_cancel_result *r = NULL;
	bool ours = type == KAI_MSG_CANCEL_REPLY ||
	    type == KAI_MSG_CANCEL_TASKS_REPLY ||
	    type == KAI_MSG_STEP_SIGNAL_REPLY;
	struct kai_err err;
	size_t n = 0, i;

	kai_err_clear(&err);
	if (!ours ||
	    kai_msg_cancel_reply_decode(body, len, &r, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    !ours ? "unexpected message type" : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	for (i = 0; i < n; i++) {
		if (r[i].code == KAI_OK) {
			if (res->o->verbose && res->o->sig != 0)
				(void)fprintf(stderr,
				    "%s: Signal %d to job %" PRIu64 "\n", prog,
				    res->o->sig, r[i].id);
			else if (res->o->verbose)
				(void)fprintf(stderr,
				    "%s: Terminating job %" PRIu64 "\n", prog,
				    r[i].id);
			continue;
		}
		/*
		 * A job that has finished or never was is not an error, as
		 * with scancel: cancelling twice, or a job that ended a
		 * moment ago, must not fail a user's cleanup script.  -v
		 * still says so, -Q never does.
		 */
		if (r[i].code == KAI_ENOENT) {
			if (res->o->verbose && !res->o->quiet)
				client_error(prog, NULL,
				    "Kill job error on job id %" PRIu64 ": %s",
				    r[i].id, r[i].msg != NULL && *r[i].msg
					? r[i].msg : kai_strerror(r[i].code));
			continue;
		}
		res->refused++;
		client_error(prog, NULL,
		    "Kill job error on job id %" PRIu64 ": %s", r[i].id,
		    r[i].msg != NULL && *r[i].msg ? r[i].msg
						  : kai_strerror(r[i].code));
	}
	kai_cancel_results_free(r, n);
	return CLIENT_EXIT_OK;
}

/* --name: find the matching active jobs, then cancel them by id. */
static int
resolve_names(struct opts *o)
{
	struct kai_query q;
	struct kai_jobinfo *jobs = NULL;
	size_t n = 0, i;
	int rc;

	memset(&q, 0, sizeof(q));
	q.ids = o->c.ids, q.nids = o->c.nids;
	q.uids = o->c.uids, q.nuids = o->c.nuids;
	q.queues = o->c.queues, q.nqueues = o->c.nqueues;
	q.state_mask =
	    o->c.state_mask ? o->c.state_mask : KAI_JOB_STATES_ACTIVE;
	q.flags = KAI_QUERY_ALL_USERS;
	rc = jobquery_run(prog, &q, &jobs, &n);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	free(o->c.ids);
	o->c.ids = NULL;
	o->c.nids = 0;
	for (i = 0; i < n; i++) {
		if (!filter_match_name(o->names, o->nnames, jobs[i].name) ||
		    (q.state_mask & KAI_JOB_STATE_BIT(jobs[i].state)) == 0)
			continue;
		o->c.ids = kai_xreallocarray(o->c.ids, o->c.nids + 1,
		    sizeof(*o->c.ids));
		o->c.ids[o->c.nids++] = jobs[i].id;
	}
	jobquery_free(jobs, n);
	return CLIENT_EXIT_OK;
}

/* The array tasks named as "123_4": one request for all of them. */
static int
cancel_tasks(struct opts *o, struct results *res)
{
	struct kai_buf b;
	int rc;

	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_tasks_encode(&b, o->tasks, o->ntasks) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "too many array tasks: at most %d",
		    KAI_PROTO_TASKS_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_CANCEL_TASKS, b.data, b.len,
	    on_results, res);
	kai_buf_fini(&b);
	return rc;
}

/* --signal: the jobs named, or those the filters match, signalled. */
static int
send_signal(struct opts *o)
{
	struct results res = {o, 0};
	struct kai_buf b;
	int rc;

	if ((o->nnames > 0 || o->c.nids == 0) &&
	    (rc = resolve_names(o)) != CLIENT_EXIT_OK)
		return rc;
	if (o->c.nids == 0)
		return CLIENT_EXIT_OK;
	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_step_signal_encode(&b, o->c.ids, o->c.nids,
	    (uint32_t)o->sig, o->sigflags) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "too many jobs: at most %d",
		    KAI_STEP_IDS_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_STEP_SIGNAL, b.data, b.len,
	    on_results, &res);
	kai_buf_fini(&b);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	return res.refused > 0 ? CLIENT_EXIT_REFUSED : CLIENT_EXIT_OK;
}

static int
cancel(struct opts *o)
{
	struct results res = {o, 0};
	struct kai_buf b;
	int rc;

	if (o->ntasks > 0 && (rc = cancel_tasks(o, &res)) != CLIENT_EXIT_OK)
		return rc;
	if (o->ntasks > 0 && o->c.nids == 0 && o->c.nuids == 0 &&
	    o->c.nqueues == 0 && o->c.state_mask == 0 && o->nnames == 0) {
		(void)fflush(stdout);
		return res.refused > 0 ? CLIENT_EXIT_REFUSED : CLIENT_EXIT_OK;
	}

	if (o->nnames > 0) {
		if ((rc = resolve_names(o)) != CLIENT_EXIT_OK)
			return rc;
		if (o->c.nids == 0) /* scancel: no match is not an error */
			return CLIENT_EXIT_OK;
	}
	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_cancel_encode(&b, &o->c) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL,
		    "request is too large to send: it passes %d bytes",
		    KAI_PROTO_BODY_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_CANCEL, b.data, b.len, on_results,
	    &res);
	kai_buf_fini(&b);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	(void)fflush(stdout);
	return res.refused > 0 ? CLIENT_EXIT_REFUSED : CLIENT_EXIT_OK;
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
	struct opts *o = ctx;

	return o->sig != 0 ? send_signal(o) : cancel(o);
}

static void
main_fini(void *ctx)
{
	struct opts *o = ctx;

	kai_cancel_fini(&o->c);
	free(o->tasks);
	filter_free_names(o->names, o->nnames);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, main_fini};
	struct opts o;

	memset(&o, 0, sizeof(o));
	return client_main(&p, &o, argc, argv);
}
