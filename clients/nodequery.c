/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodequery.c: the node list round trip and the words and lists kinfo
 * and kctl print (nodequery.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "client.h"
#include "nodequery.h"

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
	    "drain, drng or all", (int)len, w);
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

/* A name as prefix + trailing digits. */
struct hname {
	const char *name;
	size_t plen;		/* prefix length */
	bool numbered;		/* a number follows the prefix */
	unsigned long num;
	int width;		/* zero-padded width ("n007": 3); 0 = none */
	bool used;
};

static void
hname_split(const char *s, struct hname *h)
{
	size_t len = strlen(s), i = len;

	while (i > 0 && isdigit((unsigned char)s[i - 1]) && len - i < 9)
		i--;
	h->name = s;
	h->plen = i;
	h->numbered = i < len;
	h->width = len - i > 1 && s[i] == '0' ? (int)(len - i) : 0;
	h->num = i < len ? strtoul(s + i, NULL, 10) : 0;
	h->used = false;
}

static bool
same_group(const struct hname *a, const struct hname *b)
{
	return a->numbered && b->numbered && a->plen == b->plen &&
	    a->width == b->width && strncmp(a->name, b->name, a->plen) == 0;
}

static int
cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Appends "prefix[1-3,5]" for the group of h[i]; marks its members used. */
static void
emit_group(struct hname *h, size_t n, size_t i, FILE *f)
{
	unsigned long *nums = kai_xcalloc(n, sizeof(*nums));
	size_t k, c = 0;

	for (k = i; k < n; k++)
		if (!h[k].used && same_group(&h[i], &h[k])) {
			nums[c++] = h[k].num;
			h[k].used = true;
		}
	qsort(nums, c, sizeof(*nums), cmp_ulong);
	(void)fprintf(f, "%.*s%s", (int)h[i].plen, h[i].name,
	    c > 1 ? "[" : "");
	for (k = 0; k < c; k++) {
		size_t e = k;

		while (e + 1 < c && nums[e + 1] <= nums[e] + 1)
			e++;
		(void)fprintf(f, "%s%0*lu", k > 0 ? "," : "", h[i].width,
		    nums[k]);
		if (e > k)
			(void)fprintf(f, "-%0*lu", h[i].width, nums[e]);
		k = e;
	}
	(void)fputs(c > 1 ? "]" : "", f);
	free(nums);
}

void
nodequery_hostlist(char *const *names, size_t n, char *buf, size_t size)
{
	struct hname *h = kai_xcalloc(n + 1, sizeof(*h));
	FILE *f = fmemopen(buf, size, "w");
	size_t i;
	bool first = true;

	if (size > 0)
		buf[0] = '\0';
	if (f == NULL) {
		free(h);
		return;
	}
	(void)setvbuf(f, NULL, _IONBF, 0);
	for (i = 0; i < n; i++)
		hname_split(names[i], &h[i]);
	for (i = 0; i < n; i++) {
		if (h[i].used)
			continue;
		(void)fputs(first ? "" : ",", f);
		first = false;
		if (!h[i].numbered) {
			(void)fputs(h[i].name, f);
			h[i].used = true;
		} else
			emit_group(h, n, i, f);
	}
	(void)fclose(f);
	if (size > 0)
		buf[size - 1] = '\0';
	free(h);
}
