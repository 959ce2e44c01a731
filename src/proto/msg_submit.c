/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_submit.c: KAI_MSG_SUBMIT (a struct kai_jobspec) and the u64 body of
 * KAI_MSG_SUBMIT_REPLY.  See proto.h; the field order is in
 * doc/design/PROTOCOL.md.
 *
 * The codec enforces the size limits of model/job.h (so a decoded spec
 * never holds more than a submission may carry) but not the value rules:
 * an empty script, a relative workdir or ntasks 5000 decode fine and are
 * refused by kai_jobspec_validate(), which explains them better.  Every
 * limit here is at least the one validate applies, so a spec that
 * validates always encodes.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "proto/codec.h"
#include "proto/proto.h"

/* Sum of strlen + 1 over the entries, as the job's environment block. */
static size_t
env_bytes(char *const *env, size_t n)
{
	size_t i, total = 0;

	for (i = 0; i < n; i++)
		total += strlen(env[i]) + 1;
	return total;
}

#define J(m) offsetof(struct kai_jobspec, m)

/*
 * A jobspec on the wire: the SUBMIT rows of model/jobfields.def, each at
 * the index its tag gives (PROTOCOL.md "SUBMIT").  -Woverride-init
 * (-Wextra) refuses two rows with one tag; the count below refuses a gap.
 */
#define KAI_JF_SPEC(m, t, max, st, it, col, json, label, fl)              \
	[(st) - 1] = {#m, KAI_CODEC_##t, J(m), 0, max, 0},
#define KAI_JF_BOTH KAI_JF_SPEC
#define KAI_JF_STRV(m, count, max_len, max_n, st)                         \
	[(st) - 1] = {#m, KAI_CODEC_STRV, J(m), J(count), max_len, max_n},
#define KAI_JF_HOLE_SPEC(st)                                                   \
	[(st) - 1] = {"reserved", KAI_CODEC_HOLE, 0, 0, 0, 0},
static const struct kai_codec_field spec_fields[] = {
#include "model/jobfields.def"
};

#define KAI_JF_SPEC(m, t, max, st, it, col, json, label, fl) +1
#define KAI_JF_BOTH KAI_JF_SPEC
#define KAI_JF_STRV(m, count, max_len, max_n, st) +1
#define KAI_JF_HOLE_SPEC(st) +1
enum { SPEC_ROWS = 0
#include "model/jobfields.def"
};
_Static_assert(KAI_NELEM(spec_fields) == SPEC_ROWS,
    "the SUBMIT tags of jobfields.def are not 1..n");
#define NFIELDS KAI_NELEM(spec_fields)

int
kai_msg_submit_encode(struct kai_buf *b, const struct kai_jobspec *js)
{
	size_t start = b->len;

	if ((js->nenv > 0 && js->env != NULL &&
		env_bytes(js->env, js->nenv) > KAI_JOB_ENV_BYTES) ||
	    kai_codec_put_record(b, spec_fields, NFIELDS, js) != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

int
kai_msg_submit_decode(const void *p, size_t n, struct kai_jobspec *js,
    struct kai_err *err)
{
	struct kai_codec_rd r;
	size_t total;
	int rc;

	memset(js, 0, sizeof(*js));
	kai_codec_rd_init(&r, p, n, err);
	rc = kai_codec_get_record(&r, spec_fields, NFIELDS, js);
	if (rc == 0 &&
	    (total = env_bytes(js->env, js->nenv)) > KAI_JOB_ENV_BYTES)
		rc = kai_err_set(err, KAI_EPROTO,
		    "field \"env\" too large: %zu > %d bytes", total,
		    KAI_JOB_ENV_BYTES);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_jobspec_fini(js);
		memset(js, 0, sizeof(*js));
	}
	return rc;
}

int
kai_msg_u64_encode(struct kai_buf *b, uint64_t v)
{
	return kai_codec_put_u64(b, v);
}

int
kai_msg_u64_decode(const void *p, size_t n, uint64_t *v, struct kai_err *err)
{
	struct kai_codec_rd r;
	uint64_t x;
	int rc;

	kai_codec_rd_init(&r, p, n, err);
	if ((rc = kai_codec_get_u64(&r, "value", &x)) != 0 ||
	    (rc = kai_codec_rd_end(&r)) != 0)
		return rc;
	*v = x;
	return 0;
}
