/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_array.c: KAI_MSG_SUBMIT_EXT and KAI_MSG_CANCEL_TASKS (see
 * proto_array.h).  The extended submission wraps the plain submit body
 * rather than repeating its fields, so a field added to the jobspec codec
 * reaches array jobs without a change here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/array.h"
#include "model/dep.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_array.h"

int
kai_msg_submit_ext_encode(struct kai_buf *b, const struct kai_submit_ext *x)
{
	size_t start = b->len;

	if (kai_codec_put_str(b, x->array, KAI_ARRAY_TEXT_MAX) != 0 ||
	    kai_codec_put_str(b, x->dependency, KAI_DEP_TEXT_MAX) != 0 ||
	    kai_codec_put_bool(b, x->kill_on_invalid_dep) != 0 ||
	    kai_msg_submit_encode(b, &x->spec) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_submit_ext_decode(const void *p, size_t n, struct kai_submit_ext *x,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	int rc;

	memset(x, 0, sizeof(*x));
	kai_codec_rd_init(&r, p, n, err);
	if ((rc = kai_codec_get_str(&r, "array", KAI_ARRAY_TEXT_MAX, true,
		 &x->array)) != 0 ||
	    (rc = kai_codec_get_str(&r, "dependency", KAI_DEP_TEXT_MAX, true,
		 &x->dependency)) != 0 ||
	    (rc = kai_codec_get_bool(&r, "kill_on_invalid_dep",
		 &x->kill_on_invalid_dep)) != 0 ||
	    (rc = kai_msg_submit_decode(r.p + r.off, r.len - r.off, &x->spec,
		 err)) != 0) {
		kai_submit_ext_fini(x);
		return rc;
	}
	return 0;
}

void
kai_submit_ext_fini(struct kai_submit_ext *x)
{
	free(x->array);
	free(x->dependency);
	kai_jobspec_fini(&x->spec);
	memset(x, 0, sizeof(*x));
}

int
kai_msg_cancel_tasks_encode(struct kai_buf *b, const struct kai_task_ref *t,
    size_t n)
{
	size_t start = b->len, i;
	int rc;

	if (n > 0 && t == NULL)
		return KAI_EINVAL;
	rc = kai_codec_put_count(b, n, KAI_PROTO_TASKS_MAX);
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = kai_codec_put_u64(b, t[i].array_id)) == 0)
			rc = kai_codec_put_u32(b, t[i].task);
	if (rc != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_cancel_tasks_decode(const void *p, size_t len,
    struct kai_task_ref **t, size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	struct kai_task_ref *a = NULL;
	size_t c = 0, i;
	int rc;

	*t = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "task", KAI_PROTO_TASKS_MAX, 12,
		 &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c && rc == 0; i++)
		if ((rc = kai_codec_get_u64(&r, "array_id", &a[i].array_id)) ==
		    0)
			rc = kai_codec_get_u32(&r, "task", &a[i].task);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		free(a);
		return rc;
	}
	*t = a;
	*n = c;
	return 0;
}
