/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proto_qos.h: kctl show qos (types 30-31; see proto.h for the frame and
 * doc/design/PROTOCOL.md for the order of the fields).
 *
 *	KAI_MSG_QOS_LIST	empty body.
 *	KAI_MSG_QOS_LIST_REPLY	u32 count, then count QoS records, in
 *				kaid.yaml's order.
 *
 * The QoS live in kaid.yaml (qos:), which clients never read: kaid says
 * what it loaded, so what a user sees is what it applies.
 */
#ifndef KAI_PROTO_PROTO_QOS_H
#define KAI_PROTO_PROTO_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"
#include "proto/msgtype.h"

#define KAI_QOS_MAX	 256 /* QoS in an answer (kaid.yaml's bound) */
#define KAI_QOS_NAME_MAX 63

/* One QoS, as kaid.yaml's qos[] sets it (conf.h, struct kai_conf_qos). */
struct kai_qos_info {
	char *name;
	bool is_default;
	int64_t priority;	/* -1: the job's priority class decides */
	uint32_t preemptible;	/* 0 auto, 1 always, 2 only jobs that ask */
	int64_t max_wall_s;	/* 0 (KAI_TIME_UNLIMITED): none */
	int64_t max_gpus_user;	/* -1: no limit */
};

/* The whole list in one frame (it is small: 256 QoS at most). */
int kai_msg_qos_encode(struct kai_buf *b, const struct kai_qos_info *v,
    size_t n) KAI_MUST_CHECK;
/* Caller owns *v (kai_qos_info_free()); on failure *v is NULL. */
int kai_msg_qos_decode(const void *p, size_t len, struct kai_qos_info **v,
    size_t *n, struct kai_err *err) KAI_MUST_CHECK;
void kai_qos_info_free(struct kai_qos_info *v, size_t n);

#endif /* KAI_PROTO_PROTO_QOS_H */
