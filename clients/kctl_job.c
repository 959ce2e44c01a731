/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl_job.c: kctl hold, kctl release and kctl update job, scontrol's
 * job verbs.
 *
 *	kctl hold JOBID...
 *	kctl release JOBID...
 *	kctl update job JOBID Key=Value...	(or: update JobId=JOBID ...)
 *
 * A job list is ids separated by commas or spaces.  kaid answers each job
 * on its own: the ones it could change are changed, and each one it
 * could not is one error line in scontrol's words ("Job is no longer
 * pending execution for job 42"); the exit status is then 1.  Update
 * keys are scontrol's, in any case: TimeLimit (any of Slurm's six time
 * formats, or UNLIMITED), Partition, MailType and MailUser.  Nothing is printed on success,
 * as scontrol prints nothing.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "client.h"
#include "filters.h"
#include "kctl.h"
#include "model/mail.h"
#include "proto/msg_tools.h"

struct ctl_ctx {
	const char *prog;
	int failed;
};

static int
on_results(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct ctl_ctx *c = ctx;
	struct kai_cancel_result *r;
	struct kai_err err;
	size_t n, i;

	kai_err_clear(&err);
	if (type != KAI_MSG_JOB_CONTROL_REPLY ||
	    kai_msg_cancel_reply_decode(body, len, &r, &n, &err) != 0) {
		client_error(c->prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_JOB_CONTROL_REPLY
			? "unexpected message type"
			: kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	for (i = 0; i < n; i++) {
		if (r[i].code == KAI_OK)
			continue;
		client_error(c->prog, NULL, "%s for job %" PRIu64, r[i].msg,
		    r[i].id);
		c->failed++;
	}
	kai_cancel_results_free(r, n);
	return CLIENT_EXIT_OK;
}

/* "42 43,44": every operand a comma list of ids. */
static int
parse_ids(const char *prog, int argc, char **argv, uint64_t **ids, size_t *n)
{
	struct kai_err err;
	uint64_t *one;
	size_t k, m;
	int i;

	*ids = NULL;
	*n = 0;
	for (i = 0; i < argc; i++) {
		/* filter_parse_ids() appends: start each operand empty. */
		one = NULL;
		m = 0;
		if (filter_parse_ids(argv[i], &one, &m, &err) != 0) {
			free(one);
			client_error(prog, NULL, "%s", kai_err_msg(&err));
			free(*ids);
			return CLIENT_EXIT_USAGE;
		}
		*ids = kai_xreallocarray(*ids, *n + m, sizeof(**ids));
		for (k = 0; k < m; k++)
			(*ids)[(*n)++] = one[k];
		free(one);
	}
	if (*n == 0) {
		client_error(prog, NULL, "missing job id");
		return CLIENT_EXIT_USAGE;
	}
	return CLIENT_EXIT_OK;
}

int
kctl_job_control(const char *prog, int argc, char **argv)
{
	struct kai_job_control c;
	struct ctl_ctx ctx = {prog, 0};
	struct kai_buf b;
	int rc;

	memset(&c, 0, sizeof(c));
	c.op = strcmp(argv[0], "hold") == 0	 ? KAI_JOB_OP_HOLD
	    : strcmp(argv[0], "release") == 0 ? KAI_JOB_OP_RELEASE
					      : KAI_JOB_OP_REQUEUE;
	if ((rc = parse_ids(prog, argc - 1, argv + 1, &c.ids, &c.nids)) !=
	    CLIENT_EXIT_OK)
		return rc;
	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_job_control_encode(&b, &c) != 0) {
		client_error(prog, NULL, "too many jobs at once");
		rc = CLIENT_EXIT_USAGE;
	} else {
		rc = client_request(prog, KAI_MSG_JOB_CONTROL, b.data, b.len,
		    on_results, &ctx);
	}
	kai_buf_fini(&b);
	kai_job_control_fini(&c);
	if (rc == CLIENT_EXIT_OK && ctx.failed > 0)
		rc = CLIENT_EXIT_REFUSED;
	return rc;
}

/* MailType=, kept as the canonical text kaid stores (model/mail.h). */
static int
update_mail_type(struct kai_job_update *u, const char *v,
    struct kai_err *err)
{
	char buf[KAI_MAIL_TYPE_TEXT_MAX];
	uint32_t mask;

	if (kai_mail_type_parse(v, &mask, NULL, err) != 0)
		return KAI_EINVAL;
	u->set |= KAI_JOB_UPD_MAIL_TYPE;
	free(u->mail_type);
	u->mail_type = kai_xstrdup(kai_mail_type_format(mask, buf,
	    sizeof(buf)));
	return 0;
}

/* One "Key=Value" of update; sets u or err. */
static int
update_pair(struct kai_job_update *u, const char *kv, struct kai_err *err)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq != NULL ? (size_t)(eq - kv) : strlen(kv);
	const char *v = eq != NULL ? eq + 1 : NULL;

	if (v == NULL || *v == '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid update \"%s\": expected Key=Value", kv);
	if (klen == 9 && strncasecmp(kv, "TimeLimit", 9) == 0) {
		u->set |= KAI_JOB_UPD_TIME_LIMIT;
		return kai_time_limit_parse(v, &u->time_limit_s, err);
	}
	if (klen == 9 && strncasecmp(kv, "Partition", 9) == 0) {
		if (strlen(v) > KAI_JOB_NAME_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid partition \"%.40s...\": too long", v);
		u->set |= KAI_JOB_UPD_PARTITION;
		free(u->partition);
		u->partition = kai_xstrdup(v);
		return 0;
	}
	if (klen == 8 && strncasecmp(kv, "MailType", 8) == 0)
		return update_mail_type(u, v, err);
	if (klen == 8 && strncasecmp(kv, "MailUser", 8) == 0) {
		if (kai_mail_user_check(v, err) != 0)
			return KAI_EINVAL;
		u->set |= KAI_JOB_UPD_MAIL_USER;
		free(u->mail_user);
		u->mail_user = kai_xstrdup(v);
		return 0;
	}
	if (klen == 5 && strncasecmp(kv, "JobId", 5) == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid update \"%s\": JobId given twice", kv);
	return kai_err_set(err, KAI_EINVAL,
	    "unrecognized update key \"%.*s\": expected TimeLimit, "
	    "Partition, MailType or MailUser",
	    (int)klen, kv);
}

/* "job N K=V..." or "JobId=N K=V..." into u. */
static int
update_parse(int argc, char **argv, struct kai_job_update *u,
    struct kai_err *err)
{
	const char *id;
	uint64_t *ids = NULL;
	size_t n = 0;
	int i = 2, r;

	if (argc >= 2 && strncasecmp(argv[1], "JobId=", 6) == 0)
		id = argv[1] + 6;
	else if (argc >= 3 && strcmp(argv[1], "job") == 0)
		id = argv[2], i = 3;
	else
		return kai_err_set(err, KAI_EINVAL,
		    argc < 2
			? "missing job: expected \"job JOBID\" or \"JobId=JOBID\""
			: "unrecognized update \"%s\": expected \"job JOBID\" or "
			  "\"JobId=JOBID\"",
		    argc >= 2 ? argv[1] : "");
	if ((r = filter_parse_ids(id, &ids, &n, err)) != 0)
		return r;
	u->id = ids[0];
	free(ids);
	if (n != 1)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid job id \"%s\": update takes one job", id);
	if (i >= argc)
		return kai_err_set(err, KAI_EINVAL,
		    "nothing to update: expected TimeLimit=..., "
		    "Partition=..., MailType=... or MailUser=...");
	for (; i < argc; i++)
		if ((r = update_pair(u, argv[i], err)) != 0)
			return r;
	return 0;
}

static int
on_updated(uint16_t type, const void *body, size_t len, void *ctx)
{
	const char *prog = ctx;
	struct kai_err err;
	uint32_t n;

	kai_err_clear(&err);
	if (type != KAI_MSG_JOB_UPDATE_REPLY ||
	    kai_msg_u32_decode(body, len, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_JOB_UPDATE_REPLY ? "unexpected message type"
						     : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

int
kctl_job_update(const char *prog, int argc, char **argv)
{
	struct kai_job_update u;
	struct kai_err err;
	struct kai_buf b;
	int rc;

	memset(&u, 0, sizeof(u));
	kai_err_clear(&err);
	if (update_parse(argc, argv, &u, &err) != 0) {
		client_error(prog, NULL, "%s", kai_err_msg(&err));
		kai_job_update_fini(&u);
		return CLIENT_EXIT_USAGE;
	}
	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_job_update_encode(&b, &u) != 0) {
		client_error(prog, NULL, "could not encode the update");
		rc = CLIENT_EXIT_USAGE;
	} else {
		rc = client_request(prog, KAI_MSG_JOB_UPDATE, b.data, b.len,
		    on_updated, (void *)(uintptr_t)prog);
	}
	kai_buf_fini(&b);
	kai_job_update_fini(&u);
	return rc;
}
