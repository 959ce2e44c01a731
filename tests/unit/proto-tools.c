/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-tools: the messages of kinfo, kctl's job verbs and klog
 * (msg_tools.h): each round-trips field by field, every proper prefix of
 * a valid body and the body plus a byte are refused, and the values the
 * codec promises to refuse (unknown ops, unknown bits, no ids, a
 * negative time limit, a partition without its bit) are refused on both
 * sides.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/msg_tools.h"
#include "proto/proto.h"
#include "tap.h"

#define BIG ((size_t)4 << 20)

typedef int decode_fn(const void *p, size_t n, struct kai_err *err);

static void
check_prefixes(const char *what, const struct kai_buf *b, decode_fn *dec)
{
	struct kai_err err;
	uint8_t *p = kai_xmalloc(b->len + 1);
	size_t n, bad = 0;

	memcpy(p, b->data, b->len);
	p[b->len] = 0;
	for (n = 0; n < b->len; n++)
		if (dec(p, n, &err) != KAI_EPROTO)
			bad++;
	if (dec(p, b->len + 1, &err) != KAI_EPROTO ||
	    strstr(err.msg, "trailing") == NULL)
		bad++;
	is_int((int64_t)bad, 0,
	    "%s: all %zu prefixes and a trailing byte "
	    "refused",
	    what, b->len);
	free(p);
}

static int
dec_nodes(const void *p, size_t n, struct kai_err *err)
{
	struct kai_partinfo *pi;
	struct kai_nodeinfo *ni;
	size_t np, nn;
	int r = kai_msg_nodes_decode(p, n, &pi, &np, &ni, &nn, err);

	kai_partinfos_free(pi, np);
	kai_nodeinfos_free(ni, nn);
	return r;
}

static int
dec_control(const void *p, size_t n, struct kai_err *err)
{
	struct kai_job_control c;
	int r = kai_msg_job_control_decode(p, n, &c, err);

	kai_job_control_fini(&c);
	return r;
}

static int
dec_update(const void *p, size_t n, struct kai_err *err)
{
	struct kai_job_update u;
	int r = kai_msg_job_update_decode(p, n, &u, err);

	kai_job_update_fini(&u);
	return r;
}

static int
dec_log(const void *p, size_t n, struct kai_err *err)
{
	struct kai_log_req l;

	return kai_msg_log_decode(p, n, &l, err);
}

static void
test_nodes(void)
{
	char batch[] = "batch", gpu[] = "gpu", a1[] = "gpu-a1", mix[] = "mix";
	char none[] = "", prod[] = "NVIDIA-A100-SXM4-80GB";
	struct kai_partinfo parts[2] = {
	    {batch, true, 86400, 3600, 2, 1},
	    {gpu, false, 0, 0, 0, 0},
	};
	char served[] = "batch,gpu-b", feats[] = "a100,ib";
	struct kai_nodeinfo nodes[1] = {{a1, mix, none, 32000, 4000, 257000,
	    8192, 8000000, 1500000, prod, 81920, 2, served, feats}};
	struct kai_partinfo *p;
	struct kai_nodeinfo *n;
	struct kai_err err;
	struct kai_buf b;
	size_t np, nn;

	kai_buf_init(&b, BIG);
	ok(kai_msg_nodes_encode(&b, parts, 2, nodes, 1) == 0, "nodes encode");
	ok(kai_msg_nodes_decode(b.data, b.len, &p, &np, &n, &nn, &err) == 0,
	    "nodes decode");
	is_int((int64_t)np, 2, "two partitions");
	is_int((int64_t)nn, 1, "one node");
	is_str(p[0].name, "batch", "partition name");
	ok(p[0].is_default && !p[1].is_default, "default flag");
	is_int(p[0].max_time_s, 86400, "max time");
	is_int(p[0].default_time_s, 3600, "default time");
	is_int(p[0].pending_jobs, 2, "pending jobs");
	is_int(p[0].running_jobs, 1, "running jobs");
	is_str(n[0].name, "gpu-a1", "node name");
	is_str(n[0].state, "mix", "node state");
	is_str(n[0].reason, "", "node reason");
	is_int(n[0].cpu_milli, 32000, "cpu");
	is_int(n[0].cpu_alloc_milli, 4000, "cpu alloc");
	is_int((int64_t)n[0].mem_mb, 257000, "mem");
	is_int((int64_t)n[0].mem_alloc_mb, 8192, "mem alloc");
	is_int(n[0].gpus, 8000000, "gpus in micro-GPUs");
	is_int(n[0].gpus_alloc, 1500000, "a fractional allocation survives");
	is_str(n[0].gpu_product, "NVIDIA-A100-SXM4-80GB", "gpu product");
	is_int((int64_t)n[0].gpu_mem_mb, 81920, "gpu memory");
	is_int(n[0].jobs, 2, "jobs on the node");
	is_str(n[0].partitions, "batch,gpu-b", "the partitions it serves");
	is_str(n[0].features, "a100,ib", "its features");
	ok(kai_nodeinfo_serves(&n[0], "batch") &&
		kai_nodeinfo_serves(&n[0], "gpu-b") &&
		!kai_nodeinfo_serves(&n[0], "gpu") &&
		!kai_nodeinfo_serves(&n[0], "b"),
	    "serves: whole names of the list only");
	n[0].partitions[0] = '*';
	n[0].partitions[1] = '\0';
	ok(kai_nodeinfo_serves(&n[0], "gpu"), "serves: * is every one");
	kai_partinfos_free(p, np);
	kai_nodeinfos_free(n, nn);
	check_prefixes("nodes", &b, dec_nodes);
	kai_buf_reset(&b);
	ok(kai_msg_nodes_encode(&b, NULL, 0, NULL, 0) == 0 &&
		kai_msg_nodes_decode(b.data, b.len, &p, &np, &n, &nn, &err) ==
		    0 &&
		np == 0 && nn == 0 && p == NULL && n == NULL,
	    "empty lists");
	kai_buf_reset(&b);
	ok(kai_msg_nodes_encode(&b, NULL, 1, NULL, 0) == KAI_EINVAL &&
		b.len == 0,
	    "a count without records is refused, nothing written");
	/* a count over the limit */
	ok(kai_codec_put_u32(&b, KAI_PARTINFO_MAX + 1) == 0, "count written");
	ok(dec_nodes(b.data, b.len, &err) == KAI_EPROTO &&
		strstr(err.msg, "partition") != NULL,
	    "too many partitions: %s", err.msg);
	kai_buf_fini(&b);
}

static void
test_control(void)
{
	uint64_t ids[3] = {7, 8, 9};
	struct kai_job_control c = {KAI_JOB_OP_RELEASE, ids, 3}, d;
	struct kai_err err;
	struct kai_buf b;

	kai_buf_init(&b, BIG);
	ok(kai_msg_job_control_encode(&b, &c) == 0, "control encode");
	ok(kai_msg_job_control_decode(b.data, b.len, &d, &err) == 0 &&
		d.op == KAI_JOB_OP_RELEASE && d.nids == 3 && d.ids[2] == 9,
	    "control round trip");
	kai_job_control_fini(&d);
	check_prefixes("control", &b, dec_control);
	is_str(kai_job_op_name(KAI_JOB_OP_HOLD), "hold", "op name hold");
	is_str(kai_job_op_name(KAI_JOB_OP_RELEASE), "release", "op name rel");
	kai_buf_reset(&b);
	c.nids = 0;
	ok(kai_msg_job_control_encode(&b, &c) == KAI_EINVAL && b.len == 0,
	    "no ids: refused by the encoder");
	ok(kai_codec_put_u32(&b, 0) == 0 && kai_codec_put_u32(&b, 0) == 0,
	    "hand-made body with no ids");
	ok(dec_control(b.data, b.len, &err) == KAI_EPROTO &&
		strcmp(err.msg, "no job ids") == 0,
	    "no ids: %s", err.msg);
	kai_buf_reset(&b);
	ok(kai_codec_put_u32(&b, KAI_JOB_NOPS) == 0 &&
		kai_codec_put_u64v(&b, ids, 1, 10) == 0,
	    "unknown op body");
	ok(dec_control(b.data, b.len, &err) == KAI_EPROTO &&
		strstr(err.msg, "\"op\"") != NULL,
	    "unknown op: %s", err.msg);
	kai_buf_fini(&b);
}

static void
test_update(void)
{
	struct kai_job_update u = {42, KAI_JOB_UPD_ALL, 7200, NULL, NULL, NULL},
			      v;
	struct kai_err err;
	struct kai_buf b;

	u.partition = kai_xstrdup("gpu");
	u.mail_type = kai_xstrdup("END,FAIL");
	u.mail_user = kai_xstrdup("a@b.c");
	kai_buf_init(&b, BIG);
	ok(kai_msg_job_update_encode(&b, &u) == 0, "update encode");
	ok(kai_msg_job_update_decode(b.data, b.len, &v, &err) == 0 &&
		v.id == 42 && v.set == KAI_JOB_UPD_ALL &&
		v.time_limit_s == 7200 && strcmp(v.partition, "gpu") == 0 &&
		strcmp(v.mail_type, "END,FAIL") == 0 &&
		strcmp(v.mail_user, "a@b.c") == 0,
	    "update round trip");
	kai_job_update_fini(&v);
	check_prefixes("update", &b, dec_update);
	kai_buf_reset(&b);
	u.set = KAI_JOB_UPD_TIME_LIMIT | KAI_JOB_UPD_MAIL_TYPE |
	    KAI_JOB_UPD_MAIL_USER; /* partition given without its bit */
	ok(kai_msg_job_update_encode(&b, &u) == KAI_EINVAL && b.len == 0,
	    "a partition without its bit is refused");
	u.set = KAI_JOB_UPD_PARTITION | KAI_JOB_UPD_MAIL_USER;
	ok(kai_msg_job_update_encode(&b, &u) == KAI_EINVAL && b.len == 0,
	    "a mail type without its bit is refused");
	u.set = 0x10 | KAI_JOB_UPD_ALL;
	ok(kai_msg_job_update_encode(&b, &u) == KAI_EINVAL, "unknown bit");
	ok(kai_codec_put_u64(&b, 1) == 0 && kai_codec_put_u32(&b, 0x11) == 0 &&
		kai_codec_put_i64(&b, 60) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0,
	    "hand-made unknown bit");
	ok(dec_update(b.data, b.len, &err) == KAI_EPROTO &&
		strstr(err.msg, "\"set\"") != NULL,
	    "unknown bit: %s", err.msg);
	kai_buf_reset(&b);
	ok(kai_codec_put_u64(&b, 1) == 0 && kai_codec_put_u32(&b, 0x1) == 0 &&
		kai_codec_put_i64(&b, -5) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0 &&
		kai_codec_put_str(&b, NULL, 10) == 0,
	    "hand-made negative limit");
	ok(dec_update(b.data, b.len, &err) == KAI_EPROTO &&
		strstr(err.msg, "time_limit_s") != NULL,
	    "negative: %s", err.msg);
	kai_job_update_fini(&u);
	kai_buf_fini(&b);
}

static void
test_log(void)
{
	struct kai_log_req l = {99, 3, true}, m;
	struct kai_err err;
	struct kai_buf b;

	kai_buf_init(&b, BIG);
	ok(kai_msg_log_encode(&b, &l) == 0, "log encode");
	ok(kai_msg_log_decode(b.data, b.len, &m, &err) == 0 && m.id == 99 &&
		m.task == 3 && m.follow,
	    "log round trip");
	check_prefixes("log", &b, dec_log);
	((uint8_t *)b.data)[b.len - 1] = 2;
	ok(dec_log(b.data, b.len, &err) == KAI_EPROTO, "a bool of 2: %s",
	    err.msg);
	kai_buf_fini(&b);
}

int
main(void)
{
	test_nodes();
	test_control();
	test_update();
	test_log();
	return done_testing();
}
