/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_qos.c: kctl show qos (KAI_MSG_QOS_LIST): the QoS of kaid.yaml as
 * kaid loaded them (the default one marked), which anyone may read, as
 * sacctmgr show qos lets any user.
 */
#include "config.h"

#include <stdlib.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "proto/proto_qos.h"

bool
rpc_qos_list(struct kaid *k, const struct rpc_req *req)
{
	const struct kai_conf *c = k->conf;
	struct kai_qos_info *v;
	struct kai_buf b;
	size_t i;

	if (req->len != 0) {
		server_reply_error(k, req->conn, KAI_EPROTO,
		    "a QoS list request has no body", NULL);
		return false;
	}
	v = kai_xcalloc(c->nqos + 1, sizeof(*v));
	for (i = 0; i < c->nqos; i++) {
		v[i].name = c->qos[i].name; /* borrowed: not freed below */
		v[i].is_default = c->qos[i].is_default;
		v[i].priority = c->qos[i].priority;
		v[i].preemptible = (uint32_t)c->qos[i].preemptible;
		v[i].max_wall_s = c->qos[i].max_wall_s;
		v[i].max_gpus_user = c->qos[i].max_gpus_user;
	}
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_qos_encode(&b, v, c->nqos) == 0)
		server_reply(k, req->conn, KAI_MSG_QOS_LIST_REPLY, 0, &b);
	else
		server_reply_error(k, req->conn, KAI_EINTERNAL,
		    "could not encode the QoS list", NULL);
	kai_buf_fini(&b);
	free(v);
	return false;
}
