/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kinfo_layout.c: the sinfo fields kinfo knows (each a letter of -o and
 * a name of -O, with its header and the function that writes a group's
 * value), and a format parsed into a layout of fields and literal text.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"
#include "model/job.h"
#include "kinfo_layout.h"
#include "output.h"

/*
 * Fields
 */


static void
f_part(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%s%s", g->first->p->name,
	    g->first->p->is_default ? "*" : "");
}

static void
f_partname(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%s", g->first->p->name);
}

static void
f_avail(const struct group *g, char *b, size_t n)
{
	(void)g;
	(void)snprintf(b, n, "up");
}

static void
f_limit(const struct group *g, char *b, size_t n)
{
	if (g->first->p->max_time_s <= 0)
		(void)snprintf(b, n, "infinite");
	else
		kai_time_format(g->first->p->max_time_s, b, n);
}

static void
f_count(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%zu", g->n);
}

static void
f_state(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%s", g->first->n->state);
}

static void
f_statelong(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%s", nodequery_state_long(g->first->n->state));
}

static void
f_nodelist(const struct group *g, char *b, size_t n)
{
	nodequery_hostlist(g->names, g->n, b, n);
}

static void
f_cpus(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%" PRId64, g->first->n->cpu_milli / 1000);
}

/* sinfo's CPUS(A/I/O/T): allocated, idle, other (down, drained), total. */
static void
f_cpustate(const struct group *g, char *b, size_t n)
{
	int64_t idle = g->cpus - g->cpus_alloc - g->cpus_other;

	(void)snprintf(b, n, "%" PRId64 "/%" PRId64 "/%" PRId64 "/%" PRId64,
	    g->cpus_alloc / 1000, (idle > 0 ? idle : 0) / 1000,
	    g->cpus_other / 1000, g->cpus / 1000);
}

/* sinfo's NODES(A/I/O/T): allocated or mixed, idle, other, total. */
static void
f_nodestate(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%zu/%zu/%zu/%zu", g->nalloc, g->nidle, g->nother,
	    g->n);
}

static void
f_mem(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%" PRIu64, g->first->n->mem_mb);
}

static void
f_gres(const struct group *g, char *b, size_t n)
{
	const struct kai_nodeinfo *nd = g->first->n;
	char c[32];

	nodequery_gpus(nd->gpus, c, sizeof(c));
	if (nd->gpus <= 0)
		(void)snprintf(b, n, "(null)");
	else if (*nd->gpu_product)
		(void)snprintf(b, n, "gpu:%s:%s", nd->gpu_product, c);
	else
		(void)snprintf(b, n, "gpu:%s", c);
}

static void
f_reason(const struct group *g, char *b, size_t n)
{
	const char *r = g->first->n->reason;

	(void)snprintf(b, n, "%s", *r ? r : "none");
}

static void
f_gpustate(const struct group *g, char *b, size_t n)
{
	char a[32], i[32], t[32];
	int64_t idle = g->gpus - g->gpus_alloc;

	(void)snprintf(b, n, "%s/%s/%s", nodequery_gpus(g->gpus_alloc, a, 32),
	    nodequery_gpus(idle > 0 ? idle : 0, i, 32),
	    nodequery_gpus(g->gpus, t, 32));
}

static void
f_node(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%s", g->first->n->name);
}

/*
 * sinfo -R's USER and TIMESTAMP of a reason: kaid takes a node's reason
 * from Kubernetes (the cordon, the taint), which records neither who set
 * it nor when, so they print as sinfo prints an unknown one.
 */
static void
f_unknown(const struct group *g, char *b, size_t n)
{
	(void)g;
	(void)snprintf(b, n, "%s", "Unknown");
}

/*
 * sinfo -l's columns for what a kaibatch partition or node does not
 * configure, as sinfo prints a slurm.conf that leaves them out: jobs of
 * any size (JOB_SIZE 1-infinite), RootOnly=NO, OverSubscribe=NO,
 * AllowGroups=ALL; a node given only CPUs= (S:C:T cpus:1:1), TmpDisk=0,
 * Weight=1, no Features.
 */
#define CONST_FIELD(fn, text)                                                  \
	static void fn(const struct group *g, char *b, size_t n)               \
	{                                                                      \
		(void)g;                                                       \
		(void)snprintf(b, n, "%s", text);                              \
	}

CONST_FIELD(f_jobsize, "1-infinite")
CONST_FIELD(f_no, "no")
CONST_FIELD(f_NO, "NO")
CONST_FIELD(f_all, "all")
CONST_FIELD(f_zero, "0")
CONST_FIELD(f_one, "1")

/* The node's features, as sinfo prints them: "(null)" when none. */
static void
f_features(const struct group *g, char *b, size_t n)
{
	const char *f = g->first->n->features;

	(void)snprintf(b, n, "%s", f != NULL && *f ? f : "(null)");
}

static void
f_sct(const struct group *g, char *b, size_t n)
{
	(void)snprintf(b, n, "%" PRId64 ":1:1", g->first->n->cpu_milli / 1000);
}

static const struct field fields[] = {
    {'P', "Partition", "PARTITION", f_part, false},
    {'R', "PartitionName", "PARTITION", f_partname, false},
    {'a', "Available", "AVAIL", f_avail, false},
    {'l', "Time", "TIMELIMIT", f_limit, false},
    {'D', "Nodes", "NODES", f_count, true},
    {'t', "StateCompact", "STATE", f_state, false},
    {'T', "StateLong", "STATE", f_statelong, false},
    {'N', "NodeList", "NODELIST", f_nodelist, true},
    {'n', "NodeHost", "HOSTNAMES", f_node, false},
    {'c', "CPUs", "CPUS", f_cpus, false},
    {'C', "CPUsState", "CPUS(A/I/O/T)", f_cpustate, true},
    {'F', "NodeAIOT", "NODES(A/I/O/T)", f_nodestate, true},
    {'m', "Memory", "MEMORY", f_mem, false},
    {'G', "Gres", "GRES", f_gres, false},
    {'E', "Reason", "REASON", f_reason, false},
    {'k', "GpusState", "GPUS(A/I/T)", f_gpustate, true},
    {'s', "Size", "JOB_SIZE", f_jobsize, false},
    {'r', "Root", "ROOT", f_no, false},
    {'h', "OverSubscribe", "OVERSUBS", f_NO, false},
    {'g', "Groups", "GROUPS", f_all, false},
    {'z', "SocketCoreThread", "S:C:T", f_sct, false},
    {'d', "Disk", "TMP_DISK", f_zero, false},
    {'w', "Weight", "WEIGHT", f_one, false},
    {'f', "Features", "AVAIL_FEATURES", f_features, false},
    {'u', "User", "USER", f_unknown, false},
    {'H', "TimeStamp", "TIMESTAMP", f_unknown, false},
};

static void
layout_add(struct layout *l, const struct field *f, int width, bool right,
    bool widest, const char *text, size_t tlen)
{
	struct seg *s;

	l->segs = kai_xreallocarray(l->segs, l->n + 1, sizeof(*l->segs));
	s = &l->segs[l->n++];
	s->f = f;
	s->width = width;
	s->right = right;
	s->widest = widest;
	s->text = text != NULL ? kai_xstrndup(text, tlen) : NULL;
}

void
kinfo_layout_free(struct layout *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->segs[i].text);
	free(l->segs);
}

static const struct field *
field_by_letter(char c)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(fields); i++)
		if (fields[i].c == c)
			return &fields[i];
	return NULL;
}

/* "%[#][.][width]X" and literal text, as sinfo -o reads it. */
int
kinfo_layout_format(const char *fmt, struct layout *l, struct kai_err *err)
{
	const char *p = fmt, *lit;
	const struct field *f;
	bool right, widest;
	int width;

	while (*p != '\0') {
		for (lit = p; *p != '\0' && *p != '%'; p++)
			;
		if (p > lit)
			layout_add(l, NULL, 0, false, false, lit,
			    (size_t)(p - lit));
		if (*p++ == '\0')
			break;
		widest = *p == '#';
		p += widest;
		right = *p == '.';
		p += right;
		for (width = 0; isdigit((unsigned char)*p) && width < 1000; p++)
			width = width * 10 + (*p - '0');
		if (*p == '%') {
			layout_add(l, NULL, 0, false, false, "%", 1);
			p++;
			continue;
		}
		if (*p == '\0' || (f = field_by_letter(*p)) == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid format \"%s\": unrecognized field \"%%%.1s\"",
			    fmt, p);
		layout_add(l, f, width, right, widest, NULL, 0);
		p++;
	}
	return 0;
}

static const void *
field_by_name(const char *name, size_t len, void *ctx)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < KAI_NELEM(fields); i++)
		if (strlen(fields[i].oname) == len &&
		    strncasecmp(fields[i].oname, name, len) == 0)
			return &fields[i];
	return NULL;
}

static void
add_named(const void *f, int width, bool right, void *ctx)
{
	layout_add(ctx, f, width, right, false, NULL, 0);
}

int
kinfo_layout_Format(const char *fmt, struct layout *l, struct kai_err *err)
{
	int r;

	/* sinfo -O's default width is 20 */
	if ((r = out_format_list(fmt, 20, 1000, field_by_name, add_named, l,
	    err)) != 0)
		return r;
	if (l->n == 0)
		return kai_err_set(err, KAI_EINVAL, "invalid --Format \"%s\": "
		    "no field", fmt);
	return 0;
}
