/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msg_nodes.c: KAI_MSG_NODE_LIST_REPLY, the partitions and nodes kinfo and
 * kctl show print.  See msg_tools.h; the field order is in
 * doc/design/PROTOCOL.md.
 *
 * Both lists go in one frame: a cluster of KAI_NODEINFO_MAX nodes is well
 * under the body limit, and one frame keeps the two lists consistent (the
 * counts of one tick, not of two).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "proto/codec.h"
#include "proto/msg_tools.h"
#include "proto/proto.h"

/* clang-format off */
#define P(m) offsetof(struct kai_partinfo, m)
#define N(m) offsetof(struct kai_nodeinfo, m)
#define NAME_MAX_LEN 1024

static const struct kai_codec_field part_fields[] = {
	{"partition name", KAI_CODEC_STR, P(name), 0, NAME_MAX_LEN, 0},
	{"is_default", KAI_CODEC_BOOL, P(is_default), 0, 0, 0},
	{"max_time_s", KAI_CODEC_I64, P(max_time_s), 0, 0, 0},
	{"default_time_s", KAI_CODEC_I64, P(default_time_s), 0, 0, 0},
	{"pending_jobs", KAI_CODEC_U32, P(pending_jobs), 0, 0, 0},
	{"running_jobs", KAI_CODEC_U32, P(running_jobs), 0, 0, 0},
};

static const struct kai_codec_field node_fields[] = {
	{"node name", KAI_CODEC_STR, N(name), 0, NAME_MAX_LEN, 0},
	{"node state", KAI_CODEC_STR, N(state), 0, 16, 0},
	{"node reason", KAI_CODEC_STR, N(reason), 0, NAME_MAX_LEN, 0},
	{"cpu_milli", KAI_CODEC_I64, N(cpu_milli), 0, 0, 0},
	{"cpu_alloc_milli", KAI_CODEC_I64, N(cpu_alloc_milli), 0, 0, 0},
	{"mem_mb", KAI_CODEC_U64, N(mem_mb), 0, 0, 0},
	{"mem_alloc_mb", KAI_CODEC_U64, N(mem_alloc_mb), 0, 0, 0},
	{"gpus", KAI_CODEC_I64, N(gpus), 0, 0, 0},
	{"gpus_alloc", KAI_CODEC_I64, N(gpus_alloc), 0, 0, 0},
	{"gpu_product", KAI_CODEC_STR, N(gpu_product), 0, NAME_MAX_LEN, 0},
	{"gpu_mem_mb", KAI_CODEC_U64, N(gpu_mem_mb), 0, 0, 0},
	{"jobs", KAI_CODEC_U32, N(jobs), 0, 0, 0},
	{"partitions", KAI_CODEC_STR, N(partitions), 0, 64 * 1024, 0},
	{"features", KAI_CODEC_STR, N(features), 0, 64 * 1024, 0},
};
/* clang-format on */

void
kai_partinfo_fini(struct kai_partinfo *p)
{
	free(p->name);
	memset(p, 0, sizeof(*p));
}

void
kai_nodeinfo_fini(struct kai_nodeinfo *n)
{
	free(n->name);
	free(n->state);
	free(n->reason);
	free(n->gpu_product);
	free(n->partitions);
	free(n->features);
	memset(n, 0, sizeof(*n));
}

bool
kai_nodeinfo_serves(const struct kai_nodeinfo *n, const char *part)
{
	const char *s = n->partitions != NULL ? n->partitions : "*";
	size_t len = strlen(part), k;

	if (strcmp(s, "*") == 0)
		return true;
	while (*s != '\0') {
		k = strcspn(s, ",");
		if (k == len && strncmp(s, part, len) == 0)
			return true;
		s += k + (s[k] == ',');
	}
	return false;
}

void
kai_partinfos_free(struct kai_partinfo *p, size_t n)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < n; i++)
		kai_partinfo_fini(&p[i]);
	free(p);
}

void
kai_nodeinfos_free(struct kai_nodeinfo *n, size_t count)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < count; i++)
		kai_nodeinfo_fini(&n[i]);
	free(n);
}

int
kai_msg_nodes_encode(struct kai_buf *b, const struct kai_partinfo *p, size_t np,
    const struct kai_nodeinfo *n, size_t nn)
{
	size_t start = b->len, i;
	int r;

	if ((np > 0 && p == NULL) || (nn > 0 && n == NULL))
		return KAI_EINVAL;
	r = kai_codec_put_count(b, np, KAI_PARTINFO_MAX);
	for (i = 0; r == 0 && i < np; i++)
		r = kai_codec_put_record(b, part_fields, KAI_NELEM(part_fields),
		    &p[i]);
	if (r == 0)
		r = kai_codec_put_count(b, nn, KAI_NODEINFO_MAX);
	for (i = 0; r == 0 && i < nn; i++)
		r = kai_codec_put_record(b, node_fields, KAI_NELEM(node_fields),
		    &n[i]);
	if (r != 0) {
		kai_codec_rollback(b, start);
		return KAI_EINVAL;
	}
	return 0;
}

/* A count, then that many records of size sz into a new array at *out. */
static int
get_list(struct kai_codec_rd *r, const char *what, size_t max,
    const struct kai_codec_field *f, size_t nf, size_t sz, void **out,
    size_t *n)
{
	size_t c, i;
	char *a;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = kai_codec_get_count(r, what, max,
		 KAI_CODEC_RECORD_MIN, &c)) != 0)
		return rc;
	if (c == 0)
		return 0;
	a = kai_xcalloc(c, sz);
	*out = a;
	for (i = 0; i < c; i++) {
		*n = i + 1; /* the record being read is freed on failure too */
		if ((rc = kai_codec_get_record(r, f, nf, a + i * sz)) != 0)
			return rc;
	}
	return 0;
}

int
kai_msg_nodes_decode(const void *buf, size_t len, struct kai_partinfo **p,
    size_t *np, struct kai_nodeinfo **n, size_t *nn, struct kai_err *err)
{
	struct kai_codec_rd r;
	void *pa = NULL, *na = NULL;
	size_t pc = 0, nc = 0;
	int rc;

	*p = NULL;
	*n = NULL;
	*np = *nn = 0;
	kai_codec_rd_init(&r, buf, len, err);
	rc = get_list(&r, "partition", KAI_PARTINFO_MAX, part_fields,
	    KAI_NELEM(part_fields), sizeof(struct kai_partinfo), &pa, &pc);
	if (rc == 0)
		rc = get_list(&r, "node", KAI_NODEINFO_MAX, node_fields,
		    KAI_NELEM(node_fields), sizeof(struct kai_nodeinfo), &na,
		    &nc);
	if (rc == 0)
		rc = kai_codec_rd_end(&r);
	if (rc != 0) {
		kai_partinfos_free(pa, pc);
		kai_nodeinfos_free(na, nc);
		return rc;
	}
	*p = pa;
	*np = pc;
	*n = na;
	*nn = nc;
	return 0;
}
