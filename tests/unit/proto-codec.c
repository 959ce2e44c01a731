/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto-codec: the wire protocol as a peer sees it.
 *
 * Every message round-trips with edge values (empty lists, NULL strings,
 * the largest script); every prefix of a valid body or frame is refused
 * with KAI_EPROTO and a "truncated" message, never a crash or a partial
 * struct; counts over their limit are refused with a message naming the
 * field before anything is allocated; trailing bytes are refused; a
 * version mismatch names both versions; and a long job list reassembles
 * from a chain of frames.  Run it under --enable-sanitizers: the loops
 * over every truncation point are where a leak or an over-read would show.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/sha256.h"
#include "base/xmalloc.h"
#include "model/jobfields.h"
#include "proto/codec.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "proto/proto_report.h"
#include "tap.h"

#define BIG (4 * 1024 * 1024)
#define N   1000 /* jobs in the chunked reply */

typedef int decode_fn(const void *p, size_t n, void *out, struct kai_err *err);
typedef void fini_fn(void *out);

/*
 * Decodes every proper prefix of body (and body plus one byte) and checks
 * each is refused cleanly: KAI_EPROTO, a "truncated" (or "trailing")
 * message, and an output the fini function can release.
 */
static void
check_prefixes(const char *what, const struct kai_buf *body, decode_fn *dec,
    fini_fn *fini, size_t outsz)
{
	struct kai_err err;
	void *out = kai_xcalloc(1, outsz);
	uint8_t *copy = kai_xmalloc(body->len + 1);
	size_t n, bad = 0;
	int r;

	memcpy(copy, body->data, body->len);
	copy[body->len] = 0x5a;
	for (n = 0; n < body->len; n++) {
		/* A fresh allocation of exactly n bytes lets ASan catch any
		 * read past the prefix. */
		uint8_t *p = kai_xmalloc(n == 0 ? 1 : n);

		memcpy(p, copy, n);
		kai_err_clear(&err);
		r = dec(p, n, out, &err);
		if (r != KAI_EPROTO || err.code != KAI_EPROTO ||
		    strstr(err.msg, "truncated") == NULL) {
			if (bad++ == 0)
				diag("%s prefix %zu: r=%d \"%s\"", what, n, r,
				    err.msg);
		}
		fini(out);
		free(p);
	}
	is_int((int64_t)bad, 0, "%s: all %zu prefixes refused as truncated",
	    what, body->len);
	kai_err_clear(&err);
	r = dec(copy, body->len + 1, out, &err);
	ok(r == KAI_EPROTO &&
		strcmp(err.msg, "trailing bytes after the last field: 1") == 0,
	    "%s: trailing byte refused (\"%s\")", what, err.msg);
	fini(out);
	free(copy);
	free(out);
}

/* Hand-made bodies: a failed append is a bug in the test itself. */
static void
hand(int r)
{
	if (r != 0)
		diag("hand encode failed");
}

/*
 * Makes the hand-encoded fields in b one record: prefixes their length,
 * as kai_codec_put_record() does.
 */
static void
as_record(struct kai_buf *b)
{
	struct kai_buf r;

	kai_buf_init(&r, b->max);
	hand(kai_codec_put_u32(&r, (uint32_t)b->len));
	hand(kai_buf_add(&r, b->data, b->len));
	kai_buf_reset(b);
	hand(kai_buf_add(b, r.data, r.len));
	kai_buf_fini(&r);
}

static int
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static int
strv_eq(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (!str_eq(a[i], b[i]))
			return 0;
	return 1;
}

/*
 * Frame header
 */

static void
test_header(void)
{
	struct kai_frame_hdr h = {KAI_PROTO_MAGIC, KAI_PROTO_VERSION,
	    KAI_MSG_SUBMIT, KAI_FRAME_MORE, 17, 4242};
	struct kai_frame_hdr g;
	uint8_t x[KAI_PROTO_HDR_LEN];
	struct kai_err err;
	size_t n;
	int bad = 0;

	kai_frame_hdr_encode(&h, x);
	is_int(x[0], 0x4b, "magic is big-endian \"KAIb\"");
	is_int(x[3], 0x62, "magic last byte");
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), 0,
	    "header round-trips");
	ok(g.magic == h.magic && g.version == h.version && g.type == h.type &&
		g.flags == h.flags && g.cred_len == h.cred_len &&
		g.body_len == h.body_len,
	    "every header field survives");

	for (n = 0; n < KAI_PROTO_HDR_LEN; n++)
		if (kai_frame_hdr_decode(x, n, &g, &err) != KAI_EPROTO ||
		    strstr(err.msg, "truncated frame header") == NULL)
			bad++;
	is_int(bad, 0, "every short header is refused as truncated");
	is_str(err.msg, "truncated frame header: 19 of 20 bytes",
	    "short header message");
}

/* Each refusal, with the message a user would read. */
static void
test_header_refusals(void)
{
	struct kai_frame_hdr h = {0x47455420 /* "GET " */, KAI_PROTO_VERSION,
	    KAI_MSG_SUBMIT, 0, 17, 4242};
	struct kai_frame_hdr g;
	uint8_t x[KAI_PROTO_HDR_LEN];
	struct kai_err err;

	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "bad magic refused");
	is_str(err.msg, "bad magic 0x47455420: not a kaibatch peer",
	    "bad magic message");

	/* A wrong version with a wrong magic still says "bad magic". */
	h.version = 7;
	kai_frame_hdr_encode(&h, x);
	ok(kai_frame_hdr_decode(x, sizeof(x), &g, &err) == KAI_EPROTO &&
		strncmp(err.msg, "bad magic", 9) == 0,
	    "magic is checked before the version");

	h.magic = KAI_PROTO_MAGIC;
	h.version = KAI_PROTO_VERSION + 1;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "version mismatch refused");
	is_str(err.msg,
	    "protocol version mismatch: client speaks 4, kaid "
	    "speaks 3",
	    "request from a newer client names both");
	ok(err.hint != NULL, "version mismatch carries a hint");
	h.type = KAI_MSG_SUBMIT_REPLY;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "reply version mismatch refused");
	is_str(err.msg,
	    "protocol version mismatch: client speaks 3, kaid "
	    "speaks 4",
	    "reply from a newer kaid names both");

	h.version = KAI_PROTO_VERSION;
	h.flags = 0x80;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "unknown flags refused");
	is_str(err.msg, "unrecognized frame flags 0x80", "flags message");

	h.flags = 0;
	h.cred_len = KAI_PROTO_CRED_MAX + 1;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "oversized cred_len refused");
	is_str(err.msg, "frame field \"cred_len\" too large: 4097 > 4096 bytes",
	    "cred_len message names field and limit");
	h.cred_len = KAI_PROTO_CRED_MAX;
	h.body_len = UINT32_MAX;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), KAI_EPROTO,
	    "oversized body_len refused");
	is_str(err.msg,
	    "frame field \"body_len\" too large: 4294967295 > 1048576 bytes",
	    "body_len message names field and limit");
	h.body_len = KAI_PROTO_BODY_MAX;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &g, &err), 0,
	    "lengths exactly at the limits are accepted");
}

/*
 * What kaid and the clients do with bytes off the socket: header, then
 * exactly cred_len + body_len more bytes.
 */
static int
parse_frame(const uint8_t *p, size_t n, struct kai_frame_hdr *h,
    struct kai_err *err)
{
	int r;

	if ((r = kai_frame_hdr_decode(p, n, h, err)) != 0)
		return r;
	if (n - KAI_PROTO_HDR_LEN < (size_t)h->cred_len + h->body_len)
		return kai_err_set(err, KAI_EPROTO, "truncated frame");
	if (n - KAI_PROTO_HDR_LEN > (size_t)h->cred_len + h->body_len)
		return kai_err_set(err, KAI_EPROTO, "trailing frame bytes");
	return 0;
}

static void
test_frame(void)
{
	struct kai_buf f, body;
	struct kai_frame_hdr h;
	struct kai_err err;
	uint8_t d1[KAI_PROTO_DIGEST_LEN], d2[KAI_PROTO_DIGEST_LEN];
	uint8_t pre[4 + 3] = {0, KAI_PROTO_VERSION, 0, KAI_MSG_PING, 'a', 'b',
	    'c'};
	char *cred;
	size_t n, bad = 0;
	int r;

	kai_buf_init(&f, BIG);
	kai_buf_init(&body, BIG);
	if (kai_msg_u64_encode(&body, 42) != 0)
		diag("u64 encode failed");
	is_int(kai_frame_build(&f, KAI_MSG_SUBMIT_REPLY, 0,
		   "MUNGE:abc=:", body.data, body.len),
	    0, "frame builds");
	is_int((int64_t)f.len, KAI_PROTO_HDR_LEN + 11 + 8, "frame length");
	is_int(parse_frame((uint8_t *)f.data, f.len, &h, &err), 0,
	    "built frame parses");
	ok(h.type == KAI_MSG_SUBMIT_REPLY && h.cred_len == 11 &&
		h.body_len == 8 && h.flags == 0,
	    "header fields of a built frame");
	ok(memcmp(f.data + KAI_PROTO_HDR_LEN, "MUNGE:abc=:", 11) == 0,
	    "credential follows the header");
	for (n = 0; n < f.len; n++) {
		r = parse_frame((uint8_t *)f.data, n, &h, &err);
		if (r != KAI_EPROTO || strstr(err.msg, "truncated") == NULL)
			bad++;
	}
	is_int((int64_t)bad, 0, "every prefix of a frame is refused");

	kai_buf_reset(&f);
	cred = kai_xmalloc(KAI_PROTO_CRED_MAX + 2);
	memset(cred, 'c', KAI_PROTO_CRED_MAX + 1);
	cred[KAI_PROTO_CRED_MAX + 1] = '\0';
	is_int(kai_frame_build(&f, KAI_MSG_PING, 0, cred, NULL, 0), KAI_EINVAL,
	    "credential over the limit is not framed");
	cred[KAI_PROTO_CRED_MAX] = '\0';
	is_int(kai_frame_build(&f, KAI_MSG_PING, 0, cred, NULL, 0), 0,
	    "credential at the limit is framed");
	kai_buf_reset(&f);
	is_int(kai_frame_build(&f, KAI_MSG_PING, 0, NULL, cred,
		   KAI_PROTO_BODY_MAX + 1),
	    KAI_EINVAL, "body over the limit refused");
	is_int(kai_frame_build(&f, KAI_MSG_PING, 0x4, NULL, NULL, 0),
	    KAI_EINVAL, "unknown flag refused");
	is_int((int64_t)f.len, 0, "failed builds leave the buffer empty");
	free(cred);

	kai_frame_digest(KAI_PROTO_VERSION, KAI_MSG_PING, "abc", 3, d1);
	kai_sha256(pre, sizeof(pre), d2);
	ok(memcmp(d1, d2, sizeof(d1)) == 0,
	    "digest is sha256(version, type, body)");
	kai_frame_digest(KAI_PROTO_VERSION, KAI_MSG_SUBMIT, "abc", 3, d2);
	ok(memcmp(d1, d2, sizeof(d1)) != 0, "digest depends on the type");
	kai_frame_digest(KAI_PROTO_VERSION, KAI_MSG_PING, "abd", 3, d2);
	ok(memcmp(d1, d2, sizeof(d1)) != 0, "digest depends on the body");
	kai_buf_fini(&f);
	kai_buf_fini(&body);
}

/*
 * KAI_MSG_ERROR, u64, ping reply
 */

static int
dec_error(const void *p, size_t n, void *out, struct kai_err *err)
{
	return kai_msg_error_decode(p, n, out, err);
}

static void
fini_error(void *out)
{
	kai_msg_error_fini(out);
}

static void
test_error(void)
{
	struct kai_buf b;
	struct kai_msg_error m;
	struct kai_err err;

	kai_buf_init(&b, BIG);
	is_int(kai_msg_error_encode(&b, KAI_EAUTH, "credential replayed",
		   "get a new one"),
	    0, "error encodes");
	is_int(kai_msg_error_decode(b.data, b.len, &m, &err), 0,
	    "error decodes");
	ok(m.code == KAI_EAUTH && str_eq(m.msg, "credential replayed") &&
		str_eq(m.hint, "get a new one"),
	    "error round-trips");
	kai_msg_error_fini(&m);
	check_prefixes("error", &b, dec_error, fini_error, sizeof(m));

	kai_buf_reset(&b);
	is_int(kai_msg_error_encode(&b, KAI_ENOENT, NULL, NULL), 0,
	    "error with NULL message and hint encodes");
	is_int(kai_msg_error_decode(b.data, b.len, &m, &err), 0, "and decodes");
	ok(m.code == KAI_ENOENT && str_eq(m.msg, "not found") && m.hint == NULL,
	    "NULL message becomes the code's text, hint stays "
	    "NULL");
	kai_msg_error_fini(&m);
	kai_msg_error_fini(&m);
	ok(m.msg == NULL, "fini is idempotent");
	kai_buf_fini(&b);
}

static int
dec_u64(const void *p, size_t n, void *out, struct kai_err *err)
{
	return kai_msg_u64_decode(p, n, out, err);
}

static int
dec_ping(const void *p, size_t n, void *out, struct kai_err *err)
{
	uint32_t *v = out;

	return kai_msg_ping_reply_decode(p, n, &v[0], &v[1], err);
}

static void
fini_none(void *out)
{
	(void)out;
}

static void
test_small(void)
{
	struct kai_buf b;
	struct kai_err err;
	uint64_t v = 0;
	uint32_t ids[2] = {0, 0};

	kai_buf_init(&b, BIG);
	is_int(kai_msg_u64_encode(&b, UINT64_MAX - 1), 0, "u64 encodes");
	is_int(kai_msg_u64_decode(b.data, b.len, &v, &err), 0, "u64 decodes");
	ok(v == UINT64_MAX - 1, "u64 round-trips");
	check_prefixes("u64", &b, dec_u64, fini_none, sizeof(v));

	kai_buf_reset(&b);
	is_int(kai_msg_ping_reply_encode(&b, 1000, UINT32_MAX), 0,
	    "ping reply encodes");
	is_int(dec_ping(b.data, b.len, ids, &err), 0, "ping reply decodes");
	ok(ids[0] == 1000 && ids[1] == UINT32_MAX, "uid and gid round-trip");
	check_prefixes("ping reply", &b, dec_ping, fini_none, sizeof(ids));
	kai_buf_fini(&b);

	kai_buf_init(&b, 6);
	is_int(kai_msg_u64_encode(&b, 1), KAI_EINVAL,
	    "encode into a too-small buffer fails");
	is_int((int64_t)b.len, 0, "and leaves it empty");
	kai_buf_fini(&b);
}

/*
 * KAI_MSG_SUBMIT
 */

static int
dec_submit(const void *p, size_t n, void *out, struct kai_err *err)
{
	return kai_msg_submit_decode(p, n, out, err);
}

static void
fini_submit(void *out)
{
	kai_jobspec_fini(out);
}

/* Every field of model/jobfields.def in record rec, a and b alike. */
static int
fields_eq(enum kai_jf_rec rec, const void *a, const void *b)
{
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];

		if (!kai_jf_in(f, rec))
			continue;
		if (f->type == KAI_JF_T_STR ?
		    !str_eq(kai_jf_cstr(f, rec, a), kai_jf_cstr(f, rec, b)) :
		    kai_jf_get_int(f, rec, a) != kai_jf_get_int(f, rec, b))
			return 0;
	}
	return 1;
}

static int
spec_eq(const struct kai_jobspec *a, const struct kai_jobspec *b)
{
	return fields_eq(KAI_JF_REC_SPEC, a, b) && str_eq(a->name, b->name) && str_eq(a->queue, b->queue) &&
	    str_eq(a->account, b->account) && str_eq(a->script, b->script) &&
	    strv_eq(a->argv, a->argc, b->argv, b->argc) &&
	    strv_eq(a->env, a->nenv, b->env, b->nenv) &&
	    str_eq(a->workdir, b->workdir) &&
	    str_eq(a->stdout_pattern, b->stdout_pattern) &&
	    str_eq(a->stderr_pattern, b->stderr_pattern) &&
	    str_eq(a->image, b->image) && a->ntasks == b->ntasks &&
	    a->cpus_per_task == b->cpus_per_task && a->mem_mb == b->mem_mb &&
	    a->gpus_per_task == b->gpus_per_task &&
	    a->time_limit_s == b->time_limit_s && a->hold == b->hold;
}

static void
submit_roundtrip(const char *what, const struct kai_jobspec *js, bool prefixes)
{
	struct kai_buf b;
	struct kai_jobspec got;
	struct kai_err err;

	kai_buf_init(&b, BIG);
	is_int(kai_msg_submit_encode(&b, js), 0, "%s: encodes", what);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), 0,
	    "%s: decodes", what);
	ok(spec_eq(js, &got), "%s: every field round-trips", what);
	kai_jobspec_fini(&got);
	if (prefixes)
		check_prefixes(what, &b, dec_submit, fini_submit, sizeof(got));
	kai_buf_fini(&b);
}

static void
test_submit_roundtrip(void)
{
	struct kai_jobspec js = {0}, empty = {0};

	js.name = kai_xstrdup("train");
	js.queue = kai_xstrdup("gpu");
	js.account = kai_xstrdup("");
	js.script = kai_xstrdup("#!/bin/sh\n#SBATCH -n 2\nsrun hostname\n");
	js.argc = 3;
	js.argv = kai_xcalloc(js.argc, sizeof(char *));
	js.argv[0] = kai_xstrdup("--epochs");
	js.argv[1] = kai_xstrdup("10");
	js.argv[2] = kai_xstrdup("");
	js.nenv = 3;
	js.env = kai_xcalloc(js.nenv, sizeof(char *));
	js.env[0] = kai_xstrdup("PATH=/usr/bin");
	js.env[1] = kai_xstrdup("EMPTY=");
	js.env[2] = kai_xstrdup("X=a b\tc\xc3\xa9");
	js.workdir = kai_xstrdup("/home/alice");
	js.stdout_pattern = kai_xstrdup("out-%j.txt");
	js.stderr_pattern = NULL;
	js.image = kai_xstrdup("debian:bookworm-slim");
	js.ntasks = UINT32_MAX;
	js.cpus_per_task = 4;
	js.mem_mb = UINT64_MAX;
	js.gpus_per_task = 8;
	js.time_limit_s = KAI_TIME_UNSET;
	js.hold = true;
	js.priority_class = kai_xstrdup("build");
	js.preempt = KAI_TRI_NO;
	js.min_tasks = 2;
	js.topology_preferred = kai_xstrdup("zone");
	js.signal_number = 10;
	js.signal_secs = 120;
	js.signal_batch = true;
	js.open_mode = KAI_OPEN_APPEND;
	js.umask = KAI_JOB_UMASK_SET | 0077;
	js.qos = kai_xstrdup("qos_gpu-t3");
	submit_roundtrip("full spec", &js, true);
	submit_roundtrip("empty spec (NULL strings, no lists)", &empty, true);

	free(js.script);
	js.script = kai_xmalloc(KAI_JOB_SCRIPT_MAX + 1);
	memset(js.script, '#', KAI_JOB_SCRIPT_MAX);
	js.script[KAI_JOB_SCRIPT_MAX] = '\0';
	js.time_limit_s = INT64_MIN;
	submit_roundtrip("max-size script", &js, false);
	kai_jobspec_fini(&js);
}

static void
test_submit_limits(void)
{
	struct kai_jobspec js = {0}, got;
	struct kai_buf b;
	struct kai_err err;
	char *big = kai_xmalloc(KAI_JOB_SCRIPT_MAX + 2);
	int i;

	kai_buf_init(&b, BIG);
	memset(big, 'x', KAI_JOB_SCRIPT_MAX + 1);
	big[KAI_JOB_SCRIPT_MAX + 1] = '\0';
	js.script = big;
	is_int(kai_msg_submit_encode(&b, &js), KAI_EINVAL,
	    "script over KAI_JOB_SCRIPT_MAX is not encoded");
	is_int((int64_t)b.len, 0, "failed encode leaves no half message");

	/* What a hostile client could send instead. */
	for (i = 0; i < 3; i++)
		hand(kai_codec_put_str(&b, NULL, 0));
	hand(kai_codec_put_str(&b, big, BIG));
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "oversized script refused by the decoder");
	is_str(err.msg, "field \"script\" too long: 102401 > 102400 bytes",
	    "script message names field and limit");
	ok(got.script == NULL && got.name == NULL, "refused spec is empty");

	kai_buf_reset(&b);
	/* name "", then queue "a\0b" */
	if (kai_codec_put_str(&b, "", 0) != 0 ||
	    kai_codec_put_u32(&b, 3) != 0 || kai_buf_add(&b, "a\0b", 3) != 0)
		diag("hand encode failed");
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "embedded NUL refused");
	is_str(err.msg, "field \"queue\" contains a NUL byte",
	    "NUL message names the field");

	kai_buf_reset(&b);
	/* name "job\xff": what failed other users' group commit */
	if (kai_codec_put_str(&b, "job\xff", 8) != 0)
		diag("hand encode failed");
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "a name that is not UTF-8 is refused");
	is_str(err.msg,
	    "field \"name\" is not valid UTF-8 (byte 0xff at offset 3)",
	    "UTF-8 message names the field and the byte");

	kai_buf_reset(&b);
	for (i = 0; i < 4; i++)
		if (kai_codec_put_str(&b, NULL, 0) != 0)
			diag("hand encode failed");
	if (kai_codec_put_u32(&b, 0) != 0 || kai_codec_put_u32(&b, 5000) != 0)
		diag("hand encode failed");
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "env count over the limit refused");
	is_str(err.msg, "too many env entries: 5000 > 4096",
	    "count message names field, count and limit");

	kai_buf_reset(&b);
	for (i = 0; i < 4; i++)
		if (kai_codec_put_str(&b, NULL, 0) != 0)
			diag("hand encode failed");
	if (kai_codec_put_u32(&b, 0) != 0 || kai_codec_put_u32(&b, 1) != 0 ||
	    kai_codec_put_u32(&b, KAI_CODEC_NULL_STR) != 0)
		diag("hand encode failed");
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "NULL inside a list refused");
	is_str(err.msg, "field \"env\" is null", "null entry message");

	kai_buf_reset(&b);
	big[1] = '\0';
	if (kai_msg_submit_encode(&b, &js) != 0)
		diag("encode failed");
	/* hold, then the scheduling options: a NULL string (4 bytes), four
	 * u32, a u64 and two NULL strings, 36 bytes in all; then --signal,
	 * --open-mode and the umask: two u32, a bool and two u32, 17 bytes;
	 * then the workload, the QoS and the GPU type, NULL strings, 4
	 * bytes each; then ntasks_per_node, a u32; the four holes 34-37
	 * of fields of branches not merged yet, a byte each; gpus_per_node
	 * and whole_node, a u32 each; then the mail type and user, the
	 * features and node_req, NULL strings; then gpu_devices, a u32 */
	b.data[b.len - 1 - 36 - 17 - 4 - 4 - 4 - 4 - 4 - 4 - 4 - 4 - 4 - 4 -
	    4 - 4] = 2;
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "bool other than 0/1 refused");
	is_str(err.msg, "invalid value 2 for field \"hold\": must be 0 or 1",
	    "bool message");
	free(big);
	kai_buf_fini(&b);
}

/* The environment's total size is bounded as well as its entry count. */
static void
test_submit_env_bytes(void)
{
	struct kai_jobspec js = {0}, got;
	struct kai_buf b;
	struct kai_err err;
	char *env[3], x[] = "x";
	size_t each = KAI_JOB_ENV_BYTES / 2;
	int i;

	for (i = 0; i < 3; i++) {
		env[i] = kai_xmalloc(each);
		memset(env[i], 'v', each - 1);
		env[i][0] = 'A' + (char)i;
		env[i][1] = '=';
		env[i][each - 1] = '\0';
	}
	js.script = x;
	js.env = env;
	js.nenv = 2;
	kai_buf_init(&b, BIG);
	is_int(kai_msg_submit_encode(&b, &js), 0,
	    "environment of exactly KAI_JOB_ENV_BYTES encodes");
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), 0,
	    "and decodes");
	kai_jobspec_fini(&got);
	js.nenv = 3;
	kai_buf_reset(&b);
	is_int(kai_msg_submit_encode(&b, &js), KAI_EINVAL,
	    "environment over KAI_JOB_ENV_BYTES is not encoded");
	/* Hand-made: the same three entries. */
	for (i = 0; i < 4; i++)
		if (kai_codec_put_str(&b, i == 3 ? "x" : NULL, BIG) != 0)
			diag("hand encode failed");
	if (kai_codec_put_u32(&b, 0) != 0 ||
	    kai_codec_put_strv(&b, env, 3, 10, BIG) != 0)
		diag("hand encode failed");
	for (i = 0; i < 4; i++)
		if (kai_codec_put_str(&b, NULL, 0) != 0)
			diag("hand encode failed");
	hand(kai_codec_put_u32(&b, 1));
	hand(kai_codec_put_u32(&b, 1));
	hand(kai_codec_put_u64(&b, 1));
	hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_i64(&b, -1));
	hand(kai_codec_put_bool(&b, 0));
	hand(kai_codec_put_str(&b, NULL, 0));
	for (i = 0; i < 4; i++)
		hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_u64(&b, 0));
	hand(kai_codec_put_str(&b, NULL, 0));
	hand(kai_codec_put_str(&b, NULL, 0));
	hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_bool(&b, 0));
	hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_u32(&b, 0));
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "decoder refuses an oversized environment");
	is_str(err.msg, "field \"env\" too large: 786432 > 524288 bytes",
	    "environment size message");
	for (i = 0; i < 3; i++)
		free(env[i]);
	kai_buf_fini(&b);
}

/*
 * KAI_MSG_QUERY and KAI_MSG_CANCEL
 */

static int
dec_query(const void *p, size_t n, void *out, struct kai_err *err)
{
	return kai_msg_query_decode(p, n, out, err);
}

static void
fini_query(void *out)
{
	kai_query_fini(out);
}

static int
dec_cancel(const void *p, size_t n, void *out, struct kai_err *err)
{
	return kai_msg_cancel_decode(p, n, out, err);
}

static void
fini_cancel(void *out)
{
	kai_cancel_fini(out);
}

static void
test_query(void)
{
	uint64_t ids[] = {1, 0, UINT64_MAX};
	uint32_t uids[] = {0, 1000};
	char q1[] = "gpu", q2[] = "";
	char *queues[] = {q1, q2};
	struct kai_query q = {ids, 3, uids, 2, queues, 2, KAI_JOB_STATES_ACTIVE,
	    -5, INT64_MAX, KAI_QUERY_ALL_USERS | KAI_QUERY_HISTORY};
	struct kai_query e = {0}, got;
	struct kai_buf b;
	struct kai_err err;
	size_t k;

	kai_buf_init(&b, BIG);
	is_int(kai_msg_query_encode(&b, &q), 0, "query encodes");
	is_int(kai_msg_query_decode(b.data, b.len, &got, &err), 0,
	    "query decodes");
	ok(got.nids == 3 && got.ids[2] == UINT64_MAX && got.nuids == 2 &&
		got.uids[1] == 1000 &&
		strv_eq(got.queues, got.nqueues, queues, 2) &&
		got.state_mask == KAI_JOB_STATES_ACTIVE && got.start == -5 &&
		got.end == INT64_MAX && got.flags == q.flags,
	    "query round-trips");
	kai_query_fini(&got);
	check_prefixes("query", &b, dec_query, fini_query, sizeof(got));

	kai_buf_reset(&b);
	is_int(kai_msg_query_encode(&b, &e), 0, "empty query encodes");
	is_int(kai_msg_query_decode(b.data, b.len, &got, &err), 0,
	    "empty query decodes");
	ok(got.ids == NULL && got.nids == 0 && got.uids == NULL &&
		got.queues == NULL && got.flags == 0,
	    "empty lists stay empty");
	kai_query_fini(&got);

	kai_buf_reset(&b);
	e.flags = 0x100;
	is_int(kai_msg_query_encode(&b, &e), KAI_EINVAL,
	    "unknown query flag not encoded");
	e.flags = 0;
	e.state_mask = KAI_JOB_STATE_BIT(KAI_JOB_NSTATES);
	is_int(kai_msg_query_encode(&b, &e), KAI_EINVAL,
	    "unknown state bit not encoded");

	/* Counts: over the limit, and within it but more than the body. */
	kai_buf_reset(&b);
	if (kai_codec_put_u32(&b, UINT32_MAX) != 0)
		diag("hand encode failed");
	is_int(kai_msg_query_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "id count over the limit refused");
	is_str(err.msg, "too many id entries: 4294967295 > 100000",
	    "id count message");
	kai_buf_reset(&b);
	if (kai_codec_put_u32(&b, KAI_PROTO_LIST_MAX) != 0 ||
	    kai_codec_put_u64(&b, 7) != 0)
		diag("hand encode failed");
	is_int(kai_msg_query_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "count larger than the body refused");
	is_str(err.msg,
	    "truncated field \"id\": 100000 entries need at least "
	    "800000 bytes, 8 left",
	    "checked before allocating");

	kai_buf_reset(&b);
	for (k = 0; k < 3; k++)
		hand(kai_codec_put_u32(&b, 0));
	hand(kai_codec_put_u32(&b, 0xffff0000));
	is_int(kai_msg_query_decode(b.data, b.len, &got, &err), KAI_EPROTO,
	    "unknown state bits refused");
	is_str(err.msg,
	    "invalid value 0xffff0000 for field \"state_mask\": "
	    "unrecognized state bits",
	    "state mask message");
	kai_buf_fini(&b);
}

static void
test_cancel(void)
{
	uint64_t ids[] = {42};
	char q1[] = "cpu", m0[] = "", m1[] = "job 43 belongs to uid 1001";
	char *queues[] = {q1};
	struct kai_cancel c = {ids, 1, NULL, 0, queues, 1,
			      KAI_JOB_STATE_BIT(KAI_JOB_PENDING)},
			  got;
	struct kai_cancel_result res[] = {{42, KAI_OK, m0}, {43, KAI_EPERM, m1},
	    {44, KAI_ENOENT, NULL}};
	struct kai_cancel_result *rgot = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t n = 0, k, bad = 0;
	int r;

	kai_buf_init(&b, BIG);
	is_int(kai_msg_cancel_encode(&b, &c), 0, "cancel encodes");
	is_int(kai_msg_cancel_decode(b.data, b.len, &got, &err), 0,
	    "cancel decodes");
	ok(got.nids == 1 && got.ids[0] == 42 && got.nuids == 0 &&
		got.uids == NULL &&
		strv_eq(got.queues, got.nqueues, queues, 1) &&
		got.state_mask == c.state_mask,
	    "cancel round-trips");
	kai_cancel_fini(&got);
	check_prefixes("cancel", &b, dec_cancel, fini_cancel, sizeof(got));

	kai_buf_reset(&b);
	is_int(kai_msg_cancel_reply_encode(&b, res, 3), 0,
	    "cancel reply encodes");
	is_int(kai_msg_cancel_reply_decode(b.data, b.len, &rgot, &n, &err), 0,
	    "cancel reply decodes");
	ok(n == 3 && rgot[0].id == 42 && rgot[0].code == KAI_OK &&
		str_eq(rgot[0].msg, "") && rgot[1].code == KAI_EPERM &&
		str_eq(rgot[1].msg, "job 43 belongs to uid 1001") &&
		str_eq(rgot[2].msg, ""),
	    "cancel reply round-trips (NULL -> \"\")");
	kai_cancel_results_free(rgot, n);
	for (k = 0; k < b.len; k++) {
		rgot = NULL;
		n = 99;
		r = kai_msg_cancel_reply_decode(b.data, k, &rgot, &n, &err);
		if (r != KAI_EPROTO || rgot != NULL || n != 0 ||
		    strstr(err.msg, "truncated") == NULL)
			bad++;
	}
	is_int((int64_t)bad, 0, "every cancel reply prefix refused, no output");

	kai_buf_reset(&b);
	is_int(kai_msg_cancel_reply_encode(&b, NULL, 0), 0,
	    "empty cancel reply encodes");
	is_int(kai_msg_cancel_reply_decode(b.data, b.len, &rgot, &n, &err), 0,
	    "empty cancel reply decodes");
	ok(rgot == NULL && n == 0, "empty cancel reply is empty");
	kai_buf_fini(&b);
}

/*
 * KAI_MSG_QUERY_REPLY
 */

static void
make_job(struct kai_jobinfo *j, uint64_t id)
{
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->name = kai_xasprintf("job-%llu", (unsigned long long)id);
	j->uid = 1000 + (uint32_t)(id % 3);
	j->gid = 100;
	j->user = kai_xstrdup("alice");
	j->queue = kai_xstrdup("gpu");
	j->account = id % 2 ? kai_xstrdup("") : NULL;
	j->state = (enum kai_job_state)(id % KAI_JOB_NSTATES);
	j->reason = kai_xstrdup("Resources");
	j->submit_time = 1700000000 + (int64_t)id;
	j->start_time = id % 2 ? 0 : 1700000100;
	j->end_time = -1;
	j->time_limit_s = 3600;
	j->ntasks = 2;
	j->cpus_per_task = 8;
	j->mem_mb = 64 * 1024;
	j->gpus_per_task = 1;
	j->nodelist = kai_xstrdup("gpu-a1,gpu-a2");
	j->exit_code = 255;
	j->exit_signal = -9;
	j->workdir = kai_xstrdup("/home/alice");
	j->stdout_path = kai_xstrdup("/home/alice/slurm-1.out");
	j->stderr_path = NULL;
	j->hold = id % 5 == 0;
	j->priority = UINT32_MAX - (uint32_t)id;
	j->tasks_run = (uint32_t)id % 9;
	j->array_id = id % 2 == 0 ? kai_xstrdup("7_[3-9%2]") : NULL;
	j->est_start = id % 3 == 0 ? 0 : 1700000200 + (int64_t)id;
	j->gpu_micro = id * 250000;
	j->signal_number = id % 2 ? 10 : 0;
	j->signal_secs = 65535;
	j->signal_batch = id % 3 == 0;
	j->open_mode = KAI_OPEN_APPEND;
	j->umask = id % 2 ? KAI_JOB_UMASK_SET | 027 : 0;
	j->qos = id % 2 ? kai_xstrdup("debug") : NULL;
}

static int
job_eq(const struct kai_jobinfo *a, const struct kai_jobinfo *b)
{
	return a->id == b->id && str_eq(a->name, b->name) && a->uid == b->uid &&
	    a->gid == b->gid && str_eq(a->user, b->user) &&
	    str_eq(a->queue, b->queue) && str_eq(a->account, b->account) &&
	    a->state == b->state && str_eq(a->reason, b->reason) &&
	    a->submit_time == b->submit_time &&
	    a->start_time == b->start_time && a->end_time == b->end_time &&
	    a->time_limit_s == b->time_limit_s && a->ntasks == b->ntasks &&
	    a->cpus_per_task == b->cpus_per_task && a->mem_mb == b->mem_mb &&
	    a->gpus_per_task == b->gpus_per_task &&
	    str_eq(a->nodelist, b->nodelist) && a->exit_code == b->exit_code &&
	    a->exit_signal == b->exit_signal &&
	    str_eq(a->workdir, b->workdir) &&
	    str_eq(a->stdout_path, b->stdout_path) &&
	    str_eq(a->stderr_path, b->stderr_path) && a->hold == b->hold &&
	    a->priority == b->priority && str_eq(a->array_id, b->array_id) &&
	    a->tasks_run == b->tasks_run && a->est_start == b->est_start &&
	    a->gpu_micro == b->gpu_micro &&
	    a->signal_number == b->signal_number &&
	    a->signal_secs == b->signal_secs &&
	    a->signal_batch == b->signal_batch && a->open_mode == b->open_mode &&
	    fields_eq(KAI_JF_REC_INFO, a, b);
}

static void
free_jobs(struct kai_jobinfo *j, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&j[i]);
	free(j);
}

/* The chain of frames kaid would send, reassembled as a client would. */
static void
test_jobs_chunked(void)
{
	struct kai_jobinfo *jobs = kai_xcalloc(N, sizeof(*jobs)), *got = NULL;
	struct kai_buf body, frame;
	struct kai_frame_hdr h;
	struct kai_err err;
	size_t i, first = 0, ngot = 0, frames = 0, bad = 0, maxlen = 0;
	uint32_t flags;
	int r;

	for (i = 0; i < N; i++)
		make_job(&jobs[i], i + 1);
	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	kai_buf_init(&frame, BIG);
	do {
		kai_buf_reset(&body);
		if (kai_msg_jobs_encode(&body, jobs, N, &first, 8192) != 0) {
			bad++;
			break;
		}
		if (body.len > maxlen)
			maxlen = body.len;
		flags = first < N ? KAI_FRAME_MORE : 0;
		kai_buf_reset(&frame);
		if (kai_frame_build(&frame, KAI_MSG_QUERY_REPLY, flags, NULL,
			body.data, body.len) != 0)
			bad++;
		frames++;
		/* the receiving side */
		r = kai_frame_hdr_decode(frame.data, frame.len, &h, &err);
		if (r == 0)
			r = kai_msg_jobs_decode(frame.data + KAI_PROTO_HDR_LEN,
			    h.body_len, &got, &ngot, &err);
		if (r != 0)
			bad++;
	} while (bad == 0 && (h.flags & KAI_FRAME_MORE));
	is_int((int64_t)bad, 0, "every chunk encodes, frames and decodes");
	ok(frames > 10, "1000 jobs span several 8 KiB frames (%zu)", frames);
	ok(maxlen <= 8192, "no chunk passes max_body (largest %zu)", maxlen);
	is_int((int64_t)ngot, N, "every job arrives once");
	for (i = 0, bad = 0; i < N && i < ngot; i++)
		if (!job_eq(&jobs[i], &got[i]))
			bad++;
	is_int((int64_t)bad, 0,
	    "reassembled jobs equal the originals, in order");
	free_jobs(got, ngot);

	/* An empty list is one frame with a zero count. */
	first = 0;
	kai_buf_reset(&body);
	is_int(kai_msg_jobs_encode(&body, NULL, 0, &first, 8192), 0,
	    "empty job list encodes");
	is_int((int64_t)body.len, 4, "as just a zero count");
	got = NULL;
	ngot = 0;
	is_int(kai_msg_jobs_decode(body.data, body.len, &got, &ngot, &err), 0,
	    "empty job list decodes");
	ok(got == NULL && ngot == 0, "and adds nothing");

	/*
	 * A record larger than max_body goes alone, in a frame of up to
	 * KAI_PROTO_BODY_MAX (issue 15: one job with a long path made every
	 * query fail); one larger than that can never be sent.
	 */
	first = 0;
	kai_buf_reset(&body);
	is_int(kai_msg_jobs_encode(&body, jobs, N, &first, 64), 0,
	    "a job bigger than max_body is encoded");
	ok(first == 1 && body.len > 64, "alone in its frame (%zu bytes)",
	    body.len);
	free(jobs[1].workdir);
	jobs[1].workdir = kai_xmalloc(KAI_PROTO_STR_MAX + 1);
	memset(jobs[1].workdir, 'w', KAI_PROTO_STR_MAX);
	jobs[1].workdir[KAI_PROTO_STR_MAX] = '\0';
	free(jobs[1].stdout_path);
	jobs[1].stdout_path = kai_xstrdup(jobs[1].workdir);
	free(jobs[1].stderr_path);
	jobs[1].stderr_path = kai_xstrdup(jobs[1].workdir);
	kai_buf_reset(&body);
	is_int(kai_msg_jobs_encode(&body, jobs, N, &first, 8192), 0,
	    "a job of three 256 KiB strings still encodes");
	ok(first == 2 && body.len > 8192 &&
	    body.len <= KAI_PROTO_BODY_MAX, "alone in a frame of %zu bytes",
	    body.len);
	got = NULL;
	ngot = 0;
	is_int(kai_msg_jobs_decode(body.data, body.len, &got, &ngot, &err), 0,
	    "and decodes");
	ok(ngot == 1 && job_eq(&jobs[1], &got[0]), "as it was");
	free_jobs(got, ngot);
	free(jobs[1].reason);
	jobs[1].reason = kai_xstrdup(jobs[1].workdir); /* a fourth: > 1 MiB */
	kai_buf_reset(&body);
	first = 1;
	is_int(kai_msg_jobs_encode(&body, jobs, N, &first, 8192), KAI_EINVAL,
	    "a record over KAI_PROTO_BODY_MAX is an error, not an endless loop");
	ok(first == 1 && body.len == 0, "and changes nothing");

	free_jobs(jobs, N);
	kai_buf_fini(&body);
	kai_buf_fini(&frame);
}

struct jobs_out {
	struct kai_jobinfo *j;
	size_t n;
};

static int
dec_jobs(const void *p, size_t n, void *out, struct kai_err *err)
{
	struct jobs_out *o = out;

	return kai_msg_jobs_decode(p, n, &o->j, &o->n, err);
}

static void
fini_jobs(void *out)
{
	struct jobs_out *o = out;

	free_jobs(o->j, o->n);
	o->j = NULL;
	o->n = 0;
}

static void
test_jobs_edges(void)
{
	struct kai_jobinfo jobs[2], nul = {0}, *got = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t first = 0, n = 0;

	make_job(&jobs[0], 7);
	make_job(&jobs[1], 8);
	kai_buf_init(&b, BIG);
	is_int(kai_msg_jobs_encode(&b, jobs, 2, &first, KAI_PROTO_BODY_MAX), 0,
	    "two jobs encode");
	is_int((int64_t)first, 2, "first advances past the last job");
	check_prefixes("jobs", &b, dec_jobs, fini_jobs,
	    sizeof(struct jobs_out));

	kai_buf_reset(&b);
	first = 0;
	is_int(kai_msg_jobs_encode(&b, &nul, 1, &first, KAI_PROTO_BODY_MAX), 0,
	    "an all-NULL job encodes");
	/* 186, then four holes (a byte each), gpus_per_node and
	 * whole_node (a u32 each), the mail type and user, the features
	 * and node_req (NULL strings, 4 bytes each) */
	is_int((int64_t)b.len, 4 + 4 + 214,
	    "smallest record is its length and 214 bytes");
	is_int(kai_msg_jobs_decode(b.data, b.len, &got, &n, &err), 0,
	    "and decodes");
	ok(n == 1 && job_eq(&nul, &got[0]), "NULL strings stay NULL");
	free_jobs(got, n);

	kai_buf_reset(&b);
	if (kai_codec_put_u32(&b, KAI_PROTO_LIST_MAX + 1) != 0)
		diag("hand encode failed");
	got = NULL;
	n = 0;
	is_int(kai_msg_jobs_decode(b.data, b.len, &got, &n, &err), KAI_EPROTO,
	    "job count over the limit refused");
	is_str(err.msg, "too many job entries: 100001 > 100000",
	    "job count message");
	ok(got == NULL && n == 0, "nothing allocated for a refused count");

	kai_buf_reset(&b);
	nul.state = KAI_JOB_NSTATES;
	first = 0;
	is_int(kai_msg_jobs_encode(&b, &nul, 1, &first, KAI_PROTO_BODY_MAX),
	    KAI_EINVAL, "out-of-range state not encoded");
	kai_jobinfo_fini(&jobs[0]);
	kai_jobinfo_fini(&jobs[1]);
	kai_buf_fini(&b);
}

/* SUBMIT_EXT wraps a SUBMIT body; CANCEL_TASKS round-trips. */
static void
test_array_msgs(void)
{
	struct kai_submit_ext x, y;
	struct kai_task_ref t[2] = {{42, 7}, {42, 99999}}, *u = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t n = 0;
	char arr[] = "0-9999%10", dep[] = "afterok:12?singleton";
	char script[] = "#!/bin/sh\ntrue\n", wd[] = "/tmp";

	memset(&x, 0, sizeof(x));
	x.array = arr;
	x.dependency = dep;
	x.spec.script = script;
	x.spec.workdir = wd;
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	ok(kai_msg_submit_ext_encode(&b, &x) == 0, "SUBMIT_EXT encodes");
	ok(kai_msg_submit_ext_decode(b.data, b.len, &y, &err) == 0,
	    "and decodes");
	is_str(y.array, "0-9999%10", "the array text travels as written");
	is_str(y.dependency, "afterok:12?singleton", "so does the dependency");
	is_str(y.spec.script, "#!/bin/sh\ntrue\n", "then the jobspec");
	kai_submit_ext_fini(&y);
	is_int(kai_msg_submit_ext_decode(b.data, b.len - 1, &y, &err),
	    KAI_EPROTO, "a short SUBMIT_EXT is refused");
	kai_buf_fini(&b);

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	ok(kai_msg_cancel_tasks_encode(&b, t, 2) == 0, "CANCEL_TASKS encodes");
	ok(kai_msg_cancel_tasks_decode(b.data, b.len, &u, &n, &err) == 0 &&
	    n == 2 && u[1].array_id == 42 && u[1].task == 99999,
	    "and decodes");
	free(u);
	is_int(kai_msg_cancel_tasks_decode(b.data, b.len - 3, &u, &n,
	    &err), KAI_EPROTO, "a short CANCEL_TASKS is refused");
	kai_buf_fini(&b);
}

/* kacct --report: the request, the rows over several frames, gpu_micro. */
static void
test_report_msgs(void)
{
	uint32_t uids[2] = {1001, 0};
	char qa[] = "gpu", *queues[1] = {qa}, ua[] = "alice", ub[] = "bob";
	struct kai_report_req q = {100, 200, uids, 2, queues, 1}, r;
	struct kai_report_row rows[3], *v = NULL;
	struct kai_jobinfo ji, *jv = NULL;
	struct kai_buf b;
	struct kai_err err;
	size_t first = 0, n = 0, frames = 0, i;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	ok(kai_msg_report_req_encode(&b, &q) == 0, "REPORT encodes");
	ok(kai_msg_report_req_decode(b.data, b.len, &r, &err) == 0 &&
	    r.start == 100 && r.end == 200 && r.nuids == 2 &&
	    r.uids[0] == 1001 && r.nqueues == 1 &&
	    strcmp(r.queues[0], "gpu") == 0, "and decodes as sent");
	kai_report_req_fini(&r);
	is_int(kai_msg_report_req_decode(b.data, b.len - 1, &r, &err),
	    KAI_EPROTO, "a short REPORT is refused");
	kai_buf_reset(&b);
	q.end = 99;
	is_int(kai_msg_report_req_encode(&b, &q), KAI_EINVAL,
	    "a period ending before its start is not sent");
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 3; i++) {
		rows[i].queue = qa;
		rows[i].user = i == 1 ? ub : ua;
		rows[i].jobs = i + 1;
		rows[i].gpu_ms = (int64_t)i * 1000000007;
	}
	do {
		kai_buf_reset(&b);
		if (kai_msg_report_encode(&b, rows, 3, &first, 200) != 0 ||
		    kai_msg_report_decode(b.data, b.len, &v, &n, &err) != 0)
			break;
		frames++;
	} while (first < 3);
	ok(n == 3 && frames > 1 && v[1].jobs == 2 &&
	    strcmp(v[1].user, "bob") == 0 && v[2].gpu_ms == 2000000014,
	    "three rows cross small frames intact (%zu frames)", frames);
	kai_report_rows_free(v, n);

	memset(&ji, 0, sizeof(ji));
	ji.id = 7;
	ji.gpu_micro = 1500000;
	first = 0;
	n = 0;
	kai_buf_reset(&b);
	ok(kai_msg_jobs_encode(&b, &ji, 1, &first, KAI_PROTO_BODY_MAX) == 0 &&
	    kai_msg_jobs_decode(b.data, b.len, &jv, &n, &err) == 0 &&
	    n == 1 && jv[0].gpu_micro == 1500000,
	    "jobinfo carries gpu_micro (1.5 GPUs)");
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jv[i]);
	free(jv);
	kai_buf_fini(&b);
}

/*
 * Evolution: records of an older peer (fields missing at the end) and of
 * a newer one (fields this build does not know) both decode; a field cut
 * by its record's length is still an error; a peer's version outside the
 * range is refused naming both, but an ERROR frame of any version is
 * read, so a client hears an old kaid's mismatch message.
 */
static void
test_evolution(void)
{
	struct kai_jobinfo *got = NULL;
	struct kai_jobspec js;
	struct kai_frame_hdr h = {KAI_PROTO_MAGIC, 1, KAI_MSG_ERROR, 0, 0, 0};
	struct kai_buf b;
	struct kai_err err;
	uint8_t x[KAI_PROTO_HDR_LEN];
	size_t n = 0;

	kai_buf_init(&b, BIG);
	/* A SUBMIT record of an older client: name and queue only. */
	hand(kai_codec_put_str(&b, "old", 255));
	hand(kai_codec_put_str(&b, "gpu", 255));
	as_record(&b);
	is_int(kai_msg_submit_decode(b.data, b.len, &js, &err), 0,
	    "an older peer's shorter record decodes");
	ok(strcmp(js.name, "old") == 0 && strcmp(js.queue, "gpu") == 0 &&
	    js.script == NULL && js.umask == 0 && js.ntasks == 0,
	    "its fields are read, the ones it lacks stay zero");
	kai_jobspec_fini(&js);

	/* A QUERY_REPLY of a newer kaid: two fields past ours, then a job. */
	{
		struct kai_jobinfo j[2];
		struct kai_buf r;
		size_t first = 0, len;

		memset(j, 0, sizeof(j));
		j[0].id = 41;
		j[0].name = (char *)"new";
		j[1].id = 42;
		j[1].umask = KAI_JOB_UMASK_SET | 022;
		kai_buf_init(&r, BIG);
		kai_buf_reset(&b);
		hand(kai_msg_jobs_encode(&b, &j[0], 1, &first,
		    KAI_PROTO_BODY_MAX));
		len = b.len - 8; /* the count, the record's length */
		hand(kai_codec_put_u32(&r, 2));
		hand(kai_codec_put_u32(&r, (uint32_t)(len + 12)));
		hand(kai_buf_add(&r, b.data + 8, len));
		hand(kai_codec_put_u64(&r, UINT64_MAX));
		hand(kai_codec_put_u32(&r, 7));
		kai_buf_reset(&b);
		first = 0;
		hand(kai_msg_jobs_encode(&b, &j[1], 1, &first,
		    KAI_PROTO_BODY_MAX));
		hand(kai_buf_add(&r, b.data + 4, b.len - 4));
		is_int(kai_msg_jobs_decode(r.data, r.len, &got, &n, &err), 0,
		    "a record with fields this build does not know decodes");
		ok(n == 2 && got[0].id == 41 && strcmp(got[0].name, "new") == 0,
		    "the known fields are read");
		ok(n == 2 && got[1].id == 42 &&
		    got[1].umask == (KAI_JOB_UMASK_SET | 022),
		    "the unknown ones are skipped: the next record is intact");
		free_jobs(got, n);
		kai_buf_fini(&r);
	}

	/* A field cut by its record's length. */
	kai_buf_reset(&b);
	hand(kai_codec_put_u32(&b, 6));
	hand(kai_codec_put_str(&b, "abcdef", 255));
	is_int(kai_msg_submit_decode(b.data, b.len, &js, &err), KAI_EPROTO,
	    "a field cut by its record's end is refused");
	is_str(err.msg, "truncated field \"name\"", "the field is named");
	kai_buf_reset(&b);
	hand(kai_codec_put_u32(&b, 100));
	hand(kai_codec_put_str(&b, NULL, 0));
	is_int(kai_msg_submit_decode(b.data, b.len, &js, &err), KAI_EPROTO,
	    "a record longer than the body is refused");
	is_str(err.msg, "truncated record: 100 bytes announced, 4 left",
	    "the message says both lengths");
	kai_buf_fini(&b);

	/* Versions. */
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &h, &err), 0,
	    "an ERROR of protocol 1 (an old kaid's refusal) is read");
	h.type = KAI_MSG_QUERY_REPLY;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &h, &err), KAI_EPROTO,
	    "any other reply of protocol 1 is refused");
	is_str(err.msg, "protocol version mismatch: client speaks 3, kaid "
	    "speaks 1", "naming both versions");
	h.type = KAI_MSG_QUERY;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &h, &err), KAI_EPROTO,
	    "a request of protocol 1 is refused");
	is_str(err.msg, "protocol version mismatch: client speaks 1, kaid "
	    "speaks 3", "naming both versions, the client's first");
	h.type = KAI_MSG_ERROR;
	h.version = 0;
	kai_frame_hdr_encode(&h, x);
	is_int(kai_frame_hdr_decode(x, sizeof(x), &h, &err), KAI_EPROTO,
	    "an ERROR of version 0 is not a kaibatch frame");
}

int
main(void)
{
	test_header();
	test_header_refusals();
	test_frame();
	test_error();
	test_small();
	test_submit_roundtrip();
	test_submit_limits();
	test_submit_env_bytes();
	test_query();
	test_cancel();
	test_jobs_chunked();
	test_jobs_edges();
	test_array_msgs();
	test_report_msgs();
	test_evolution();
	return done_testing();
}
