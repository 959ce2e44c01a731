/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl_qos.c: kctl show qos [NAME] -- the QoS of kaid.yaml, as kaid
 * loaded them (KAI_MSG_QOS_LIST), in kctl show's Key=value layout, with
 * the names Slurm's sacctmgr uses for the same limits (MaxWall,
 * MaxTRESPerUser).  Anyone may look.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "kctl.h"
#include "output.h"
#include "proto/proto_qos.h"

struct qos_list {
	const char *prog;
	struct kai_qos_info *v;
	size_t n;
};

static int
on_qos(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct qos_list *l = ctx;
	struct kai_err err;

	kai_err_clear(&err);
	if (type != KAI_MSG_QOS_LIST_REPLY || l->v != NULL) {
		client_error(l->prog, NULL,
		    "invalid reply from kaid: unexpected message type %u",
		    (unsigned)type);
		return CLIENT_EXIT_CONNECT;
	}
	if (kai_msg_qos_decode(body, len, &l->v, &l->n, &err) != 0) {
		client_error(l->prog, NULL, "invalid reply from kaid: %s",
		    kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

static void
show_one(const struct kai_qos_info *q)
{
	static const char *const preempt[] = {"auto", "true", "false"};
	char wall[OUT_TIME_LEN], prio[32], gpus[48];

	if (q->priority >= 0)
		(void)snprintf(prio, sizeof(prio), "%" PRId64, q->priority);
	else
		(void)snprintf(prio, sizeof(prio), "N/A");
	if (q->max_gpus_user >= 0)
		(void)snprintf(gpus, sizeof(gpus), "gres/gpu=%" PRId64,
		    q->max_gpus_user);
	else
		(void)snprintf(gpus, sizeof(gpus), "N/A");
	(void)printf("QOS=%s\n", q->name);
	(void)printf("   Default=%s Priority=%s Preemptible=%s\n",
	    q->is_default ? "YES" : "NO", prio,
	    q->preemptible < 3 ? preempt[q->preemptible] : "auto");
	(void)printf("   MaxWall=%s MaxTRESPerUser=%s\n",
	    out_limit(q->max_wall_s, true, wall), gpus);
}

int
kctl_show_qos(const char *prog, const char *name)
{
	struct qos_list l;
	size_t i, shown = 0;
	int rc;

	memset(&l, 0, sizeof(l));
	l.prog = prog;
	rc = client_request(prog, KAI_MSG_QOS_LIST, "", 0, on_qos, &l);
	for (i = 0; rc == CLIENT_EXIT_OK && i < l.n; i++) {
		if (name != NULL && strcmp(name, l.v[i].name) != 0)
			continue;
		if (shown++ > 0)
			(void)fputc('\n', stdout);
		show_one(&l.v[i]);
	}
	if (rc == CLIENT_EXIT_OK && shown == 0 && name != NULL) {
		client_error(prog, NULL, "QOS %s not found", name);
		rc = CLIENT_EXIT_REFUSED;
	}
	kai_qos_info_free(l.v, l.n);
	return rc;
}
