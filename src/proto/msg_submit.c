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

/* clang-format off */
#define J(m)		   offsetof(struct kai_jobspec, m)
#define STR(name, m, max)  {name, KAI_CODEC_STR, J(m), 0, max, 0}

/* A jobspec on the wire, in order (PROTOCOL.md "SUBMIT"). */
static const struct kai_codec_field spec_fields[] = {
	STR("name", name, KAI_JOB_NAME_MAX),
	STR("queue", queue, KAI_JOB_NAME_MAX),
	STR("account", account, KAI_JOB_NAME_MAX),
	STR("script", script, KAI_JOB_SCRIPT_MAX),
	{"argv", KAI_CODEC_STRV, J(argv), J(argc), KAI_JOB_PATH_MAX,
	    KAI_JOB_ARGS_MAX},
	{"env", KAI_CODEC_STRV, J(env), J(nenv), KAI_JOB_ENV_BYTES,
	    KAI_JOB_ENV_MAX},
	STR("workdir", workdir, KAI_JOB_PATH_MAX),
	STR("stdout_pattern", stdout_pattern, KAI_JOB_PATH_MAX),
	STR("stderr_pattern", stderr_pattern, KAI_JOB_PATH_MAX),
	STR("image", image, KAI_JOB_PATH_MAX),
	{"ntasks", KAI_CODEC_U32, J(ntasks), 0, 0, 0},
	{"cpus_per_task", KAI_CODEC_U32, J(cpus_per_task), 0, 0, 0},
	{"mem_mb", KAI_CODEC_U64, J(mem_mb), 0, 0, 0},
	{"gpus_per_task", KAI_CODEC_U32, J(gpus_per_task), 0, 0, 0},
	{"time_limit_s", KAI_CODEC_I64, J(time_limit_s), 0, 0, 0},
	{"hold", KAI_CODEC_BOOL, J(hold), 0, 0, 0},
	STR("priority_class", priority_class, KAI_JOB_NAME_MAX),
	{"preempt", KAI_CODEC_U32, J(preempt), 0, 0, 0},
	{"requeue", KAI_CODEC_U32, J(requeue), 0, 0, 0},
	{"min_tasks", KAI_CODEC_U32, J(min_tasks), 0, 0, 0},
	{"gpu_fraction", KAI_CODEC_U32, J(gpu_fraction), 0, 0, 0},
	{"gpu_memory_mb", KAI_CODEC_U64, J(gpu_memory_mb), 0, 0, 0},
	STR("topology", topology, KAI_JOB_NAME_MAX),
	STR("topology_preferred", topology_preferred, KAI_JOB_NAME_MAX),
	{"signal_number", KAI_CODEC_U32, J(signal_number), 0, 0, 0},
	{"signal_secs", KAI_CODEC_U32, J(signal_secs), 0, 0, 0},
	{"signal_batch", KAI_CODEC_BOOL, J(signal_batch), 0, 0, 0},
	{"open_mode", KAI_CODEC_U32, J(open_mode), 0, 0, 0},
};
/* clang-format on */
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
