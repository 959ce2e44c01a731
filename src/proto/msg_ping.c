/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_ping.c: KAI_MSG_PING_REPLY, the identity kaid decoded from the
 * request's credential (the ping request itself has an empty body).  It
 * lets a user, and the integration tests, see what uid and gid kaid
 * believes it is talking to.
 */
#include "config.h"

#include "proto/codec.h"
#include "proto/proto.h"

int
kai_msg_ping_reply_encode(struct kai_buf *b, uint32_t uid, uint32_t gid)
{
	size_t start = b->len;

	if (kai_codec_put_u32(b, uid) != 0 || kai_codec_put_u32(b, gid) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_ping_reply_decode(const void *p, size_t n, uint32_t *uid, uint32_t *gid,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	uint32_t u, g;
	int rc;

	kai_codec_rd_init(&r, p, n, err);
	if ((rc = kai_codec_get_u32(&r, "uid", &u)) != 0 ||
	    (rc = kai_codec_get_u32(&r, "gid", &g)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	*uid = u;
	*gid = g;
	return 0;
}
