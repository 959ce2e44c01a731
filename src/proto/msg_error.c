/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_error.c: KAI_MSG_ERROR, the reply to any request kaid refuses.  See
 * proto.h; the field order is in doc/design/PROTOCOL.md.
 *
 * The code is a KAI_E* value and travels as a signed 32-bit integer; a
 * code this build does not know still decodes (kai_strerror() names it
 * "unrecognized error"), so an older client can print a newer kaid's
 * refusal.  The message is never NULL on the wire (a NULL message is sent
 * as the code's static text); the hint may be.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"

int
kai_msg_error_encode(struct kai_buf *b, int32_t code, const char *msg,
    const char *hint)
{
	size_t start = b->len;

	if (msg == NULL)
		msg = kai_strerror(code);
	if (kai_codec_put_i32(b, code) != 0 ||
	    kai_codec_put_str(b, msg, KAI_PROTO_STR_MAX) != 0 ||
	    kai_codec_put_str(b, hint, KAI_PROTO_STR_MAX) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_error_decode(const void *p, size_t n, struct kai_msg_error *m,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(m, 0, sizeof(*m));
	kai_codec_rd_init(&r, p, n, err);
	if ((rc = kai_codec_get_i32(&r, "code", &m->code)) != 0 ||
	    (rc = kai_codec_get_text(&r, "msg", KAI_PROTO_STR_MAX, false,
		 &m->msg)) != 0 ||
	    (rc = kai_codec_get_text(&r, "hint", KAI_PROTO_STR_MAX, true,
		 &m->hint)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0) {
		kai_msg_error_fini(m);
		return rc;
	}
	return 0;
}

void
kai_msg_error_fini(struct kai_msg_error *m)
{
	if (m == NULL)
		return;
	KAI_FREE(m->msg);
	KAI_FREE(m->hint);
	m->code = 0;
}
