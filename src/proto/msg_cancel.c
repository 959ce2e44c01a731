/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_cancel.c: KAI_MSG_CANCEL_REPLY, one result per job a cancel request
 * named or matched.  (The request itself shares its selection with the
 * query and lives in msg_select.c.)  See proto.h; the field order is in
 * doc/design/PROTOCOL.md.
 *
 * A result's message is never NULL on the wire: NULL is sent as "", the
 * spelling of success the header promises.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"

/* id u64, code i32, msg length u32 */
#define RESULT_MIN_LEN (8 + 4 + 4)

int
kai_msg_cancel_reply_encode(struct kai_buf *b,
    const struct kai_cancel_result *r, size_t n)
{
	size_t start = b->len, i;
	int rc;

	if (n > 0 && r == NULL)
		return KAI_EINVAL;
	rc = kai_codec_put_count(b, n, KAI_PROTO_LIST_MAX);
	for (i = 0; i < n && rc == 0; i++) {
		if ((rc = kai_codec_put_u64(b, r[i].id)) == 0 &&
		    (rc = kai_codec_put_i32(b, r[i].code)) == 0)
			rc = kai_codec_put_str(b,
			    r[i].msg != NULL ? r[i].msg : "",
			    KAI_PROTO_STR_MAX);
	}
	if (rc != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_cancel_reply_decode(const void *p, size_t len,
    struct kai_cancel_result **res, size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_cancel_result *a = NULL;
	size_t c = 0, i;
	int rc;

	*res = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "result", KAI_PROTO_LIST_MAX,
		 RESULT_MIN_LEN, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c; i++) {
		if ((rc = kai_codec_get_u64(&r, "id", &a[i].id)) != 0 ||
		    (rc = kai_codec_get_i32(&r, "code", &a[i].code)) != 0 ||
		    (rc = kai_codec_get_str(&r, "msg", KAI_PROTO_STR_MAX, false,
			 &a[i].msg)) != 0)
			break;
	}
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_cancel_results_free(a, c);
		return rc;
	}
	*res = a;
	*n = c;
	return 0;
}

void
kai_cancel_results_free(struct kai_cancel_result *r, size_t n)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < n; i++)
		free(r[i].msg);
	free(r);
}
