/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_jobctl.c: kctl's job verbs: KAI_MSG_JOB_CONTROL (hold, release),
 * KAI_MSG_JOB_UPDATE (update job N Key=Value...) and KAI_MSG_LOG (klog's
 * request).  See msg_tools.h; the field order is in
 * doc/design/PROTOCOL.md.  The control reply has the shape of the cancel
 * reply (kai_msg_cancel_reply_encode()): one result per job named.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/job.h"
#include "proto/codec.h"
#include "proto/msg_tools.h"
#include "proto/proto.h"

const char *
kai_job_op_name(enum kai_job_op op)
{
	switch (op) {
	case KAI_JOB_OP_HOLD:
		return "hold";
	case KAI_JOB_OP_RELEASE:
		return "release";
	case KAI_JOB_OP_REQUEUE:
		return "requeue";
	default:
		return "?";
	}
}

void
kai_job_control_fini(struct kai_job_control *c)
{
	free(c->ids);
	memset(c, 0, sizeof(*c));
}

int
kai_msg_job_control_encode(struct kai_buf *b, const struct kai_job_control *c)
{
	size_t start = b->len;

	if ((unsigned)c->op >= KAI_JOB_NOPS || c->nids == 0 ||
	    kai_codec_put_u32(b, (uint32_t)c->op) != 0 ||
	    kai_codec_put_u64v(b, c->ids, c->nids, KAI_PROTO_LIST_MAX) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_job_control_decode(const void *p, size_t len, struct kai_job_control *c,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	uint32_t op;
	int rc;

	memset(c, 0, sizeof(*c));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u32(&r, "op", &op)) != 0)
		return rc;
	if (op >= KAI_JOB_NOPS)
		return kai_err_set(err, KAI_EPROTO, "invalid field \"op\": %u",
		    (unsigned)op);
	c->op = (enum kai_job_op)op;
	if ((rc = kai_codec_get_u64v(&r, "id", KAI_PROTO_LIST_MAX, &c->ids,
		 &c->nids)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0) {
		kai_job_control_fini(c);
		return rc;
	}
	if (c->nids == 0) {
		kai_job_control_fini(c);
		return kai_err_set(err, KAI_EPROTO, "no job ids");
	}
	return 0;
}

void
kai_job_update_fini(struct kai_job_update *u)
{
	free(u->partition);
	free(u->mail_type);
	free(u->mail_user);
	memset(u, 0, sizeof(*u));
}

/* Each string is given exactly when its bit is set. */
static bool
update_set_ok(const struct kai_job_update *u)
{
	return u->set != 0 && (u->set & ~(uint32_t)KAI_JOB_UPD_ALL) == 0 &&
	    ((u->set & KAI_JOB_UPD_PARTITION) != 0) == (u->partition != NULL) &&
	    ((u->set & KAI_JOB_UPD_MAIL_TYPE) != 0) == (u->mail_type != NULL) &&
	    ((u->set & KAI_JOB_UPD_MAIL_USER) != 0) == (u->mail_user != NULL);
}

int
kai_msg_job_update_encode(struct kai_buf *b, const struct kai_job_update *u)
{
	size_t start = b->len;

	if (!update_set_ok(u) || kai_codec_put_u64(b, u->id) != 0 ||
	    kai_codec_put_u32(b, u->set) != 0 ||
	    kai_codec_put_i64(b, u->time_limit_s) != 0 ||
	    kai_codec_put_str(b, u->partition, KAI_JOB_NAME_MAX) != 0 ||
	    kai_codec_put_str(b, u->mail_type, KAI_MAIL_TYPE_TEXT_MAX) != 0 ||
	    kai_codec_put_str(b, u->mail_user, KAI_MAIL_USER_MAX) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_job_update_decode(const void *p, size_t len, struct kai_job_update *u,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(u, 0, sizeof(*u));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u64(&r, "id", &u->id)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "set", &u->set)) != 0 ||
	    (rc = kai_codec_get_i64(&r, "time_limit_s", &u->time_limit_s)) !=
		0 ||
	    (rc = kai_codec_get_str(&r, "partition", KAI_JOB_NAME_MAX, true,
		 &u->partition)) != 0 ||
	    (rc = kai_codec_get_str(&r, "mail_type", KAI_MAIL_TYPE_TEXT_MAX,
		 true, &u->mail_type)) != 0 ||
	    (rc = kai_codec_get_str(&r, "mail_user", KAI_MAIL_USER_MAX, true,
		 &u->mail_user)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0) {
		kai_job_update_fini(u);
		return rc;
	}
	if (!update_set_ok(u)) {
		kai_job_update_fini(u);
		return kai_err_set(err, KAI_EPROTO,
		    "invalid field \"set\": 0x%x", (unsigned)u->set);
	}
	if ((u->set & KAI_JOB_UPD_TIME_LIMIT) && u->time_limit_s < 0) {
		kai_job_update_fini(u);
		return kai_err_set(err, KAI_EPROTO,
		    "invalid field \"time_limit_s\": negative");
	}
	return 0;
}

int
kai_msg_log_encode(struct kai_buf *b, const struct kai_log_req *l)
{
	size_t start = b->len;

	if (kai_codec_put_u64(b, l->id) != 0 ||
	    kai_codec_put_u32(b, l->task) != 0 ||
	    kai_codec_put_bool(b, l->follow) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_log_decode(const void *p, size_t len, struct kai_log_req *l,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(l, 0, sizeof(*l));
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_u64(&r, "id", &l->id)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "task", &l->task)) != 0 ||
	    (rc = kai_codec_get_bool(&r, "follow", &l->follow)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	return 0;
}
