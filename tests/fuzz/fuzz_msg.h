/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_msg.h: one message body through the decoder of its type
 * (fuzz_msg.c), shared by the message harness and the frame harness.
 */
#ifndef KAI_TESTS_FUZZ_FUZZ_MSG_H
#define KAI_TESTS_FUZZ_FUZZ_MSG_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes body as a message of this type, as kaid (requests) or a client
 * (replies) would, then checks what kaid checks next (a job spec is
 * validated, queue changes are checked).  A body that decodes is encoded
 * again; that encoding must decode, and encode to the same bytes (the
 * round trip), or the harness aborts.  Types without a body decoder are
 * ignored.
 */
void fuzz_msg_decode(uint16_t type, const uint8_t *body, size_t len);

#endif /* KAI_TESTS_FUZZ_FUZZ_MSG_H */
