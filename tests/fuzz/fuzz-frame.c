/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-frame.c: a byte stream as kaid's connection reader sees it
 * (daemons/kaid/server.c conn_process): frame headers, credentials and
 * bodies one after the other, each body through its type's decoder.
 *
 * Checked besides memory safety: a header that decodes encodes to the
 * same 20 bytes, and kai_frame_build_version() of what was read gives
 * back the same header and bytes (in any version kaid speaks).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_msg.h"
#include "proto/proto.h"

static void
check_rebuild(const struct kai_frame_hdr *h, const uint8_t *frame,
    size_t total)
{
	struct kai_frame_hdr h2;
	struct kai_buf out;
	struct kai_err err;
	char *cred = NULL;

	/* kai_frame_build() takes the credential as text: no NUL in it. */
	if (h->cred_len > 0) {
		if (memchr(frame + KAI_PROTO_HDR_LEN, '\0', h->cred_len) != NULL)
			return;
		cred = fuzz_strdup(frame + KAI_PROTO_HDR_LEN, h->cred_len);
	}
	kai_buf_init(&out, total + 1);
	if (kai_frame_build_version(&out, h->version, h->type, h->flags, cred,
	    frame + KAI_PROTO_HDR_LEN + h->cred_len, h->body_len) != 0)
		fuzz_fail("a frame that was read cannot be built");
	if (kai_frame_hdr_decode(out.data, out.len, &h2, &err) != 0 ||
	    memcmp(h, &h2, sizeof(h2)) != 0)
		fuzz_fail("a rebuilt frame has another header");
	if (out.len != total || memcmp(out.data, frame, total) != 0)
		fuzz_fail("a rebuilt frame has other bytes");
	kai_buf_fini(&out);
	free(cred);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[KAI_PROTO_HDR_LEN];
	struct kai_frame_hdr h;
	struct kai_err err;
	size_t total;

	while (size >= KAI_PROTO_HDR_LEN) {
		memset(&h, 0, sizeof(h));
		if (kai_frame_hdr_decode(data, size, &h, &err) != 0)
			break;
		kai_frame_hdr_encode(&h, again);
		if (memcmp(again, data, KAI_PROTO_HDR_LEN) != 0)
			fuzz_fail("a header encodes to other bytes");
		total = KAI_PROTO_HDR_LEN + (size_t)h.cred_len + h.body_len;
		if (size < total)
			break;
		check_rebuild(&h, data, total);
		fuzz_msg_decode(h.type, data + KAI_PROTO_HDR_LEN + h.cred_len,
		    h.body_len);
		data += total;
		size -= total;
	}
	return 0;
}
