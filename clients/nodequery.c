/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodequery.c: the node list round trip and the words and lists kinfo
 * and kctl print (nodequery.h).
 */
#include "config.h"

#include "nodequery.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "client.h"
#include "filters.h"

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

/* A name as prefix + trailing digits. */
struct hname {
	const char *name;
	size_t plen;   /* prefix length */
	bool numbered; /* a number follows the prefix */
	unsigned long num;
	int width; /* zero-padded width ("n007": 3); 0 = none */
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
	(void)fprintf(f, "%.*s%s", (int)h[i].plen, h[i].name, c > 1 ? "[" : "");
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

static void
names_add(char ***names, size_t *n, char *s)
{
	*names = kai_xreallocarray(*names, *n + 1, sizeof(**names));
	(*names)[(*n)++] = s;
}

/* "1-3" or "7" (digits only) of a bracket, expanded onto prefix/suffix. */
static int
expand_range(const char *list, const char *pre, size_t plen, const char *r,
    size_t rlen, const char *suf, size_t slen, char ***names, size_t *n,
    struct kai_err *err)
{
	const char *dash = memchr(r, '-', rlen);
	size_t alen = dash != NULL ? (size_t)(dash - r) : rlen;
	unsigned long lo, hi, v;
	char *end;
	int width;

	if (alen == 0 || alen > 9 || strspn(r, "0123456789") != alen ||
	    (dash != NULL &&
		(rlen - alen - 1 == 0 || rlen - alen - 1 > 9 ||
		    strspn(dash + 1, "0123456789") != rlen - alen - 1)))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid host list \"%s\": bad range \"%.*s\"", list,
		    (int)rlen, r);
	lo = strtoul(r, &end, 10);
	hi = dash != NULL ? strtoul(dash + 1, &end, 10) : lo;
	width = r[0] == '0' && alen > 1 ? (int)alen : 0;
	if (hi < lo || hi - lo >= NQ_HOSTLIST_MAX - *n)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid host list \"%s\": bad range \"%.*s\"", list,
		    (int)rlen, r);
	for (v = lo; v <= hi; v++)
		names_add(names, n,
		    kai_xasprintf("%.*s%0*lu%.*s", (int)plen, pre, width, v,
			(int)slen, suf));
	return 0;
}

/* One name of the list: "n[1-3,5]x" or "login". */
static int
expand_one(const char *list, const char *s, size_t len, char ***names,
    size_t *n, struct kai_err *err)
{
	const char *open = memchr(s, '[', len), *close, *r, *end;
	int rc;

	if (open == NULL) {
		if (memchr(s, ']', len) != NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid host list \"%s\": unbalanced \"]\"", list);
		names_add(names, n, kai_xstrndup(s, len));
		return 0;
	}
	close = memchr(open, ']', len - (size_t)(open - s));
	if (close == NULL ||
	    memchr(close + 1, '[', len - (size_t)(close + 1 - s)) != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid host list \"%s\": expected one [...] per name",
		    list);
	for (r = open + 1; r <= close; r = end + 1) {
		end = memchr(r, ',', (size_t)(close - r));
		if (end == NULL)
			end = close;
		if ((rc = expand_range(list, s, (size_t)(open - s), r,
			 (size_t)(end - r), close + 1,
			 len - (size_t)(close + 1 - s), names, n, err)) != 0)
			return rc;
	}
	return 0;
}

int
nodequery_hostlist_expand(const char *list, char ***names, size_t *n,
    struct kai_err *err)
{
	const char *p = list;
	size_t len;
	int depth, rc;

	*names = NULL;
	*n = 0;
	for (;;) {
		/* a comma inside brackets separates ranges, not names */
		for (len = 0, depth = 0;
		     p[len] != '\0' && (p[len] != ',' || depth > 0); len++)
			depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
		if (len == 0)
			rc = kai_err_set(err, KAI_EINVAL,
			    "invalid host list \"%s\": empty name", list);
		else
			rc = expand_one(list, p, len, names, n, err);
		if (rc != 0) {
			filter_free_names(*names, *n);
			*names = NULL;
			*n = 0;
			return rc;
		}
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}
