/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_qos.c: kctl show qos's answer (KAI_MSG_QOS_LIST_REPLY;
 * proto_qos.h).  The record is described once by a field table, so the
 * encoder, the decoder and the minimum size cannot drift.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_qos.h"

/* clang-format off */
#define Q(m) offsetof(struct kai_qos_info, m)

static const struct kai_codec_field qos_fields[] = {
	{"name", KAI_CODEC_STR, Q(name), 0, KAI_QOS_NAME_MAX, 0},
	{"default", KAI_CODEC_BOOL, Q(is_default), 0, 0, 0},
	{"priority", KAI_CODEC_I64, Q(priority), 0, 0, 0},
	{"preemptible", KAI_CODEC_ENUM, Q(preemptible), 0, 3, 0},
	{"max_wall_s", KAI_CODEC_I64, Q(max_wall_s), 0, 0, 0},
	{"max_gpus_user", KAI_CODEC_I64, Q(max_gpus_user), 0, 0, 0},
};
/* clang-format on */
#define NFIELDS KAI_NELEM(qos_fields)

int
kai_msg_qos_encode(struct kai_buf *b, const struct kai_qos_info *v, size_t n)
{
	size_t start = b->len, first = 0;

	if (n > KAI_QOS_MAX || (n > 0 && v == NULL) ||
	    kai_codec_put_records(b, qos_fields, NFIELDS, v, sizeof(*v), n,
	    &first, start, KAI_QOS_MAX, KAI_PROTO_BODY_MAX) != 0 ||
	    first < n) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_qos_decode(const void *p, size_t len, struct kai_qos_info **v,
    size_t *n, struct kai_err *err)
{
	struct kai_codec_rd r;
	size_t c = 0, i;
	int rc;

	*v = NULL;
	*n = 0;
	kai_codec_rd_init(&r, p, len, err);
	if ((rc = kai_codec_get_count(&r, "qos", KAI_QOS_MAX,
	    KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return kai_codec_rd_end(&r);
	*v = kai_xcalloc(c, sizeof(**v));
	for (i = 0; i < c && rc == 0; i++)
		rc = kai_codec_get_record(&r, qos_fields, NFIELDS, &(*v)[i]);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		/* The records decoded, a failed one half-filled: all freed. */
		kai_qos_info_free(*v, c);
		*v = NULL;
		return rc;
	}
	*n = c;
	return 0;
}

void
kai_qos_info_free(struct kai_qos_info *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i].name);
	free(v);
}
