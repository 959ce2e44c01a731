/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-msg.c: the message body decoders of src/proto.  The first byte is
 * the message type (every type number is below 256; PROTOCOL.md), the
 * rest is the body.  A type number, not an index, so that a saved input
 * keeps its meaning when types are added.
 */
#include "config.h"

#include "fuzz.h"
#include "fuzz_msg.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_msg_decode(data[0], data + 1, size - 1);
	return 0;
}
