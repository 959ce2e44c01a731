/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodequery.c: the node list round trip and the words and lists kinfo
 * and kctl print (nodequery.h).
 */
#include "config.h"

#include "nodequery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "client.h"
#include "filters.h"
#include "model/hostlist.h"

struct collect {
	const char *prog;
	struct nodequery *q;
};

static int
on_nodes(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct collect *c = ctx;
	struct kai_err err;

	kai_err_clear(&err);
	if (type != KAI_MSG_NODE_LIST_REPLY || c->q->nodes != NULL ||
	    c->q->parts != NULL) {
		client_error(c->prog, NULL,
		    "invalid reply from kaid: unexpected message type %u",
		    (unsigned)type);
		return CLIENT_EXIT_CONNECT;
	}
	if (kai_msg_nodes_decode(body, len, &c->q->parts, &c->q->nparts,
		&c->q->nodes, &c->q->nnodes, &err) != 0) {
		client_error(c->prog, NULL, "invalid reply from kaid: %s",
		    kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

int
nodequery_run(const char *prog, struct nodequery *q)
{
	struct collect c;

	memset(q, 0, sizeof(*q));
	c.prog = prog;
	c.q = q;
	return client_request(prog, KAI_MSG_NODE_LIST, "", 0, on_nodes, &c);
}

void
nodequery_fini(struct nodequery *q)
{
	kai_partinfos_free(q->parts, q->nparts);
	kai_nodeinfos_free(q->nodes, q->nnodes);
	memset(q, 0, sizeof(*q));
}

static const struct {
	const char *shrt, *lng;
	uint32_t bit;
} states[] = {
    {"idle", "idle", NQ_STATE_IDLE},
    {"mix", "mixed", NQ_STATE_MIX},
    {"alloc", "allocated", NQ_STATE_ALLOC},
    {"down", "down", NQ_STATE_DOWN},
    {"drain", "drained", NQ_STATE_DRAIN},
    {"drng", "draining", NQ_STATE_DRNG},
};

const char *
nodequery_state_long(const char *shrt)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(states); i++)
		if (strcmp(states[i].shrt, shrt) == 0)
			return states[i].lng;
	return shrt;
}

uint32_t
nodequery_state_bit(const char *shrt)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(states); i++)
		if (strcmp(states[i].shrt, shrt) == 0)
			return states[i].bit;
	return 0;
}

static int
state_word(const char *w, size_t len, uint32_t *mask, struct kai_err *err)
{
	size_t i;

	if (len == 3 && strncasecmp(w, "all", 3) == 0) {
		*mask |= NQ_STATE_ALL;
		return 0;
	}
	for (i = 0; i < KAI_NELEM(states); i++) {
		if ((strlen(states[i].shrt) == len &&
			strncasecmp(states[i].shrt, w, len) == 0) ||
		    (strlen(states[i].lng) == len &&
			strncasecmp(states[i].lng, w, len) == 0)) {
			*mask |= states[i].bit;
			/* sinfo: "drain" is drained and draining nodes */
			if (states[i].bit == NQ_STATE_DRAIN)
				*mask |= NQ_STATE_DRNG;
			return 0;
		}
	}
	return kai_err_set(err, KAI_EINVAL,
	    "invalid node state \"%.*s\": expected idle, mix, alloc, down, "
	    "drain, drng or all",
	    (int)len, w);
}

int
nodequery_parse_states(const char *list, uint32_t *mask, struct kai_err *err)
{
	const char *p = list;
	size_t len;
	int r;

	*mask = 0;
	for (;;) {
		len = strcspn(p, ",");
		if (len == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid node state list \"%s\": empty state",
			    list);
		if ((r = state_word(p, len, mask, err)) != 0)
			return r;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

const char *
nodequery_gpus(int64_t micro, char *buf, size_t size)
{
	kai_queue_fmt_units(micro, KAI_QUEUE_GPU_UNIT, buf, size);
	return buf;
}

void
nodequery_hostlist(char *const *names, size_t n, char *buf, size_t size)
{
	const char **sorted = kai_xcalloc(n + 1, sizeof(*sorted));
	char *list;
	size_t i;

	for (i = 0; i < n; i++)
		sorted[i] = names[i];
	kai_hostlist_sort(sorted, n);
	list = kai_hostlist_compress(sorted, n);
	if (size > 0)
		(void)snprintf(buf, size, "%s", list);
	free(list);
	free(sorted);
}
