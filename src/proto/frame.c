/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * frame.c: the 20-byte frame header, frame assembly and the request
 * digest.  See proto.h.
 *
 * The header is checked field by field in the order a confused peer is
 * most likely to get wrong: the magic first (a web browser or an SSH
 * client pointed at kaid's port must hear "not a kaibatch peer", not a
 * version number), then the version, then the flags and the two lengths
 * against their hard limits.  Only after all of that may the reader
 * allocate cred_len + body_len bytes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/sha256.h"
#include "proto/codec.h"
#include "proto/proto.h"

#define KAI_FRAME_FLAGS_KNOWN KAI_FRAME_MORE

static uint32_t
rd32(const uint8_t *x)
{
	return (uint32_t)x[0] << 24 | (uint32_t)x[1] << 16 |
	    (uint32_t)x[2] << 8 | (uint32_t)x[3];
}

static uint16_t
rd16(const uint8_t *x)
{
	return (uint16_t)(x[0] << 8 | x[1]);
}

static void
wr32(uint8_t *x, uint32_t v)
{
	x[0] = (uint8_t)(v >> 24);
	x[1] = (uint8_t)(v >> 16);
	x[2] = (uint8_t)(v >> 8);
	x[3] = (uint8_t)v;
}

/*
 * Requests have even type numbers and replies odd ones (PROTOCOL.md), so
 * the side that sent a frame is known even when its version is not ours:
 * the message can then say which program is the old one.
 */
static int
version_mismatch(const struct kai_frame_hdr *h, struct kai_err *err)
{
	char ours[32], theirs[16];

	if (KAI_PROTO_VERSION_MIN == KAI_PROTO_VERSION)
		(void)snprintf(ours, sizeof(ours), "%u", KAI_PROTO_VERSION);
	else
		(void)snprintf(ours, sizeof(ours), "%u to %u",
		    KAI_PROTO_VERSION_MIN, KAI_PROTO_VERSION);
	(void)snprintf(theirs, sizeof(theirs), "%u", h->version);
	kai_err_set(err, KAI_EPROTO,
	    "protocol version mismatch: client speaks %s, kaid speaks %s",
	    h->type % 2 == 0 ? theirs : ours, h->type % 2 == 0 ? ours : theirs);
	kai_err_hint(err,
	    "install the same kaibatch release on the clients "
	    "and the controller");
	return KAI_EPROTO;
}

int
kai_frame_hdr_decode(const void *p, size_t n, struct kai_frame_hdr *h,
    struct kai_err *err)
{
	const uint8_t *x = p;

	if (p == NULL || n < KAI_PROTO_HDR_LEN)
		return kai_err_set(err, KAI_EPROTO,
		    "truncated frame header: %zu of %d bytes",
		    p == NULL ? 0 : n, KAI_PROTO_HDR_LEN);
	h->magic = rd32(x);
	h->version = rd16(x + 4);
	h->type = rd16(x + 6);
	h->flags = rd32(x + 8);
	h->cred_len = rd32(x + 12);
	h->body_len = rd32(x + 16);
	if (h->magic != KAI_PROTO_MAGIC)
		return kai_err_set(err, KAI_EPROTO,
		    "bad magic 0x%08x: not a kaibatch peer", h->magic);
	if ((h->version < KAI_PROTO_VERSION_MIN ||
	    h->version > KAI_PROTO_VERSION) &&
	    !(h->type == KAI_MSG_ERROR && h->version >= 1))
		return version_mismatch(h, err);
	if ((h->flags & ~(uint32_t)KAI_FRAME_FLAGS_KNOWN) != 0)
		return kai_err_set(err, KAI_EPROTO,
		    "unrecognized frame flags 0x%x", h->flags);
	if (h->cred_len > KAI_PROTO_CRED_MAX)
		return kai_err_set(err, KAI_EPROTO,
		    "frame field \"cred_len\" too large: %u > %d bytes",
		    h->cred_len, KAI_PROTO_CRED_MAX);
	if (h->body_len > KAI_PROTO_BODY_MAX)
		return kai_err_set(err, KAI_EPROTO,
		    "frame field \"body_len\" too large: %u > %d bytes",
		    h->body_len, KAI_PROTO_BODY_MAX);
	return 0;
}

void
kai_frame_hdr_encode(const struct kai_frame_hdr *h,
    uint8_t out[KAI_PROTO_HDR_LEN])
{
	wr32(out, h->magic);
	out[4] = (uint8_t)(h->version >> 8);
	out[5] = (uint8_t)h->version;
	out[6] = (uint8_t)(h->type >> 8);
	out[7] = (uint8_t)h->type;
	wr32(out + 8, h->flags);
	wr32(out + 12, h->cred_len);
	wr32(out + 16, h->body_len);
}

int
kai_frame_build(struct kai_buf *out, uint16_t type, uint32_t flags,
    const char *cred, const void *body, size_t body_len)
{
	return kai_frame_build_version(out, KAI_PROTO_VERSION, type, flags,
	    cred, body, body_len);
}

int
kai_frame_build_version(struct kai_buf *out, uint16_t version, uint16_t type,
    uint32_t flags, const char *cred, const void *body, size_t body_len)
{
	struct kai_frame_hdr h;
	uint8_t x[KAI_PROTO_HDR_LEN];
	size_t cred_len = cred == NULL ? 0 : strlen(cred);
	size_t start = out->len;

	if (cred_len > KAI_PROTO_CRED_MAX || body_len > KAI_PROTO_BODY_MAX ||
	    (body == NULL && body_len > 0) ||
	    (flags & ~(uint32_t)KAI_FRAME_FLAGS_KNOWN) != 0)
		return KAI_EINVAL;
	h.magic = KAI_PROTO_MAGIC;
	h.version = version;
	h.type = type;
	h.flags = flags;
	h.cred_len = (uint32_t)cred_len;
	h.body_len = (uint32_t)body_len;
	kai_frame_hdr_encode(&h, x);
	if (kai_buf_add(out, x, sizeof(x)) != 0 ||
	    kai_buf_add(out, cred, cred_len) != 0 ||
	    kai_buf_add(out, body, body_len) != 0) {
		kai_codec_rollback(out, start);
		return KAI_EINVAL;
	}
	return 0;
}

void
kai_frame_digest(uint16_t version, uint16_t type, const void *body,
    size_t body_len, uint8_t out[KAI_PROTO_DIGEST_LEN])
{
	struct kai_sha256 c;
	uint8_t x[4] = {(uint8_t)(version >> 8), (uint8_t)version,
	    (uint8_t)(type >> 8), (uint8_t)type};

	kai_sha256_init(&c);
	kai_sha256_update(&c, x, sizeof(x));
	kai_sha256_update(&c, body, body_len);
	kai_sha256_final(&c, out);
}
