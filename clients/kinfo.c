/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kinfo: partitions and nodes, the way sinfo shows them.
 *
 *	kinfo [options]
 *
 * The default view is sinfo's ("%#P %.5a %.10l %.6D %.6t %N": PARTITION
 * AVAIL TIMELIMIT NODES STATE NODELIST), one line per partition and node
 * state; -N is sinfo's node view ("%#N %.6D %#P %6t").  As in sinfo, the
 * lines are the groups of (partition, node) pairs that print the same in
 * every column but the summing ones (%D, %N, %C, %F and our %k), so -o
 * decides the grouping; -s is sinfo's summary ("%#P %.5a %.10l %.16F %N").  --gpus adds GPUS(A/I/T), allocated / idle /
 * total GPUs with fractions, to either view.  kaid answers from memory.
 */
#include "config.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "model/hostlist.h"
#include "kinfo_layout.h"
#include "nodequery.h"
#include "output.h"

static const char *const prog = "kinfo";

#define FMT_DEFAULT "%#P %.5a %.10l %.6D %.6t"
#define FMT_NODE    "%#N %.6D %#P %6t"
#define FMT_SUMMARY "%#P %.5a %.10l %.16F"
#define FMT_GPUS    " %.13k"
#define FMT_REASONS "%20E %9u %19H %N"
#define FMT_LONG    "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T"
#define FMT_LONG_N  "%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
#define CELL_MAX    4096

enum {
	K_JSON = CLIOPT_LONG,
	K_GPUS,
	K_HELP,
};

static const struct cliopt table[] = {
    CLIOPT("Node", 'N', CLIOPT_NOARG, NULL, "one line per node"),
    CLIOPT("exact", 'e', CLIOPT_NOARG, NULL,
	"group nodes only when their resources are the same too"),
    CLIOPT("format", 'o', CLIOPT_ARG, "FORMAT",
	"sinfo-style %-specifiers (see kinfo(1))"),
    CLIOPT("Format", 'O', CLIOPT_ARG, "FIELDS",
	"sinfo-style named fields: NodeList,StateLong:.12,CPUs"),
    CLIOPT("gpus", K_GPUS, CLIOPT_NOARG, NULL,
	"add a GPUS(A/I/T) column to the default or node view"),
    CLIOPT("help", K_HELP, CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("json", K_JSON, CLIOPT_NOARG, NULL, "print JSON"),
    CLIOPT("nodes", 'n', CLIOPT_ARG, "LIST",
	"only these nodes (names or host lists: gpu-a[1-2])"),
    CLIOPT("noheader", 'h', CLIOPT_NOARG, NULL, "print no header line"),
    CLIOPT("partition", 'p', CLIOPT_ARG, "LIST", "only these partitions"),
    CLIOPT("long", 'l', CLIOPT_NOARG, NULL,
	"more fields: sinfo -l's columns"),
    CLIOPT("list-reasons", 'R', CLIOPT_NOARG, NULL,
	"why nodes are down or drained, grouped by reason"),
    CLIOPT("summarize", 's', CLIOPT_NOARG, NULL,
	"one line per partition, with NODES(A/I/O/T)"),
    CLIOPT("states", 't', CLIOPT_ARG, "LIST",
	"only nodes in these states (idle, mix, alloc, down, drain, drng)"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {"kinfo [options]", NULL};

struct opts {
	char **parts; /* -p */
	size_t nparts;
	char **nodes; /* -n */
	size_t nnodes;
	uint32_t states; /* -t; 0 = all */
	const char *format;
	const char *Format; /* -O */
	bool node_view, summary, noheader, json, gpus, help, version;
	bool reasons; /* -R */
	bool exact; /* -e */
	bool lng; /* -l */
};

/*
 * Rows and groups
 */

static bool
row_wanted(const struct opts *o, const struct kai_partinfo *p,
    const struct kai_nodeinfo *n)
{
	return kai_nodeinfo_serves(n, p->name) &&
	    filter_match_name(o->parts, o->nparts, p->name) &&
	    filter_match_name(o->nodes, o->nnodes, n->name) &&
	    (o->states != 0 ? (o->states & nodequery_state_bit(n->state)) != 0
		: !o->reasons || (nodequery_state_bit(n->state) &
		    (nodequery_state_bit("down") | nodequery_state_bit("drain") |
		    nodequery_state_bit("drng"))) != 0);
}

/* Partitions in kaid's order, nodes by name within each (sinfo -N: by node). */
static struct row *
build_rows(const struct opts *o, const struct nodequery *q, size_t *nrows)
{
	struct row *rows =
	    kai_xcalloc(q->nparts * q->nnodes + 1, sizeof(*rows));
	size_t i, j, n = 0;

	if (o->reasons) {
		/* a node once, under the first partition it serves */
		for (j = 0; j < q->nnodes; j++)
			for (i = 0; i < q->nparts; i++)
				if (row_wanted(o, &q->parts[i], &q->nodes[j])) {
					rows[n++] = (struct row){&q->parts[i],
					    &q->nodes[j]};
					break;
				}
	} else if (o->node_view) {
		for (j = 0; j < q->nnodes; j++)
			for (i = 0; i < q->nparts; i++)
				if (row_wanted(o, &q->parts[i], &q->nodes[j]))
					rows[n++] = (struct row){&q->parts[i],
					    &q->nodes[j]};
	} else {
		for (i = 0; i < q->nparts; i++)
			for (j = 0; j < q->nnodes; j++)
				if (row_wanted(o, &q->parts[i], &q->nodes[j]))
					rows[n++] = (struct row){&q->parts[i],
					    &q->nodes[j]};
	}
	*nrows = n;
	return rows;
}

/*
 * What the non-summing fields print, which is what groups rows; with
 * exact (-e) also the node's resources, printed or not (sinfo -e).
 */
static char *
row_key(const struct layout *l, const struct row *r, bool node_view,
    bool exact)
{
	struct group g;
	struct kai_buf b;
	char cell[CELL_MAX];
	size_t i;

	memset(&g, 0, sizeof(g));
	g.first = r;
	kai_buf_init(&b, (size_t)64 * 1024);
	/* Cells are bounded by CELL_MAX, so the key always fits. */
	if (node_view && kai_buf_addf(&b, "%s\x1f", r->n->name) != 0)
		return kai_buf_detach(&b, NULL);
	if (exact && kai_buf_addf(&b, "%" PRId64 "/%" PRIu64 "/%" PRId64
	    "/%s/%" PRIu64 "\x1f", r->n->cpu_milli, r->n->mem_mb, r->n->gpus,
	    r->n->gpu_product, r->n->gpu_mem_mb) != 0)
		return kai_buf_detach(&b, NULL);
	for (i = 0; i < l->n; i++) {
		if (l->segs[i].f == NULL || l->segs[i].f->sums)
			continue;
		l->segs[i].f->fn(&g, cell, sizeof(cell));
		if (kai_buf_addf(&b, "%s\x1f", cell) != 0)
			break;
	}
	return kai_buf_detach(&b, NULL);
}

static void
group_add(struct group *g, const struct row *r)
{
	const struct kai_nodeinfo *n = r->n;
	bool other = strcmp(n->state, "down") == 0 ||
	    strcmp(n->state, "drain") == 0 || strcmp(n->state, "drng") == 0;

	g->names = kai_xreallocarray(g->names, g->n + 1, sizeof(*g->names));
	g->names[g->n++] = n->name;
	g->gpus += n->gpus;
	g->gpus_alloc += n->gpus_alloc < n->gpus ? n->gpus_alloc : n->gpus;
	g->cpus += n->cpu_milli;
	g->cpus_alloc += n->cpu_alloc_milli < n->cpu_milli ? n->cpu_alloc_milli
							   : n->cpu_milli;
	if (other)
		g->nother++;
	else if (strcmp(n->state, "idle") == 0)
		g->nidle++;
	else
		g->nalloc++;
	if (other)
		g->cpus_other += n->cpu_milli -
		    (n->cpu_alloc_milli < n->cpu_milli ? n->cpu_alloc_milli
						       : n->cpu_milli);
}

static struct group *
build_groups(const struct layout *l, const struct row *rows, size_t nrows,
    bool node_view, bool exact, size_t *ngroups)
{
	struct group *g = kai_xcalloc(nrows + 1, sizeof(*g));
	size_t i, k, n = 0;

	for (i = 0; i < nrows; i++) {
		char *key = row_key(l, &rows[i], node_view, exact);

		for (k = 0; k < n; k++)
			if (strcmp(g[k].key, key) == 0)
				break;
		if (k == n) {
			g[n].first = &rows[i];
			g[n].key = key;
			n++;
		} else
			free(key);
		group_add(&g[k], &rows[i]);
	}
	*ngroups = n;
	return g;
}

static void
groups_free(struct group *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(g[i].key);
		free(g[i].names);
	}
	free(g);
}

/*
 * Output
 */

static void
print_table(const struct opts *o, struct layout *l, const struct group *g,
    size_t n)
{
	char cell[CELL_MAX];
	size_t i, s;

	for (s = 0; s < l->n; s++) { /* '#': the widest value sets it */
		struct seg *sg = &l->segs[s];

		if (sg->f == NULL || !sg->widest)
			continue;
		sg->width = (int)strlen(sg->f->header);
		for (i = 0; i < n; i++) {
			sg->f->fn(&g[i], cell, sizeof(cell));
			if ((int)strlen(cell) > sg->width)
				sg->width = (int)strlen(cell);
		}
	}
	for (i = o->noheader ? 1 : 0; i <= n; i++) {
		for (s = 0; s < l->n; s++) {
			const struct seg *sg = &l->segs[s];

			if (sg->f == NULL) {
				(void)fputs(sg->text, stdout);
				continue;
			}
			if (i > 0)
				sg->f->fn(&g[i - 1], cell, sizeof(cell));
			out_field(stdout, i > 0 ? cell : sg->f->header,
			    sg->width, sg->right, OUT_TRUNC_CUT);
		}
		(void)fputc('\n', stdout);
	}
}

static struct json_object *
json_gpus(int64_t micro)
{
	if (micro % KAI_QUEUE_GPU_UNIT == 0)
		return json_object_new_int64(micro / KAI_QUEUE_GPU_UNIT);
	return json_object_new_double(
	    (double)micro / (double)KAI_QUEUE_GPU_UNIT);
}

static struct json_object *
json_node(const struct kai_nodeinfo *n, const struct row *rows, size_t nrows)
{
	struct json_object *o = json_object_new_object();
	struct json_object *g = json_object_new_object(), *parts;
	int64_t alloc = n->gpus_alloc < n->gpus ? n->gpus_alloc : n->gpus;
	size_t i;

	out_json_add_str(o, "name", n->name);
	out_json_add_str(o, "state", nodequery_state_long(n->state));
	out_json_add_str(o, "reason", n->reason);
	parts = json_object_new_array();
	for (i = 0; i < nrows; i++)
		if (rows[i].n == n)
			(void)json_object_array_add(parts,
			    json_object_new_string(rows[i].p->name));
	(void)json_object_object_add(o, "partitions", parts);
	out_json_add_int(o, "cpus", n->cpu_milli / 1000);
	out_json_add_int(o, "cpus_allocated", n->cpu_alloc_milli / 1000);
	out_json_add_int(o, "memory_mb", (int64_t)n->mem_mb);
	out_json_add_int(o, "memory_allocated_mb", (int64_t)n->mem_alloc_mb);
	(void)json_object_object_add(g, "total", json_gpus(n->gpus));
	(void)json_object_object_add(g, "allocated", json_gpus(alloc));
	(void)json_object_object_add(g, "idle", json_gpus(n->gpus - alloc));
	out_json_add_str(g, "type", n->gpu_product);
	out_json_add_int(g, "memory_mb", (int64_t)n->gpu_mem_mb);
	(void)json_object_object_add(o, "gpus", g);
	out_json_add_int(o, "jobs", n->jobs);
	return o;
}

static struct json_object *
json_part(const struct kai_partinfo *p, const struct row *rows, size_t nrows)
{
	struct json_object *o = json_object_new_object();
	struct json_object *nodes = json_object_new_array();
	size_t i;

	out_json_add_str(o, "name", p->name);
	out_json_add_bool(o, "default", p->is_default);
	out_json_add_str(o, "state", "up");
	if (p->max_time_s > 0)
		out_json_add_int(o, "max_time_s", p->max_time_s);
	else
		(void)json_object_object_add(o, "max_time_s", NULL);
	if (p->default_time_s > 0)
		out_json_add_int(o, "default_time_s", p->default_time_s);
	else
		(void)json_object_object_add(o, "default_time_s", NULL);
	for (i = 0; i < nrows; i++)
		if (rows[i].p == p)
			(void)json_object_array_add(nodes,
			    json_object_new_string(rows[i].n->name));
	(void)json_object_object_add(o, "nodes", nodes);
	out_json_add_int(o, "pending_jobs", p->pending_jobs);
	out_json_add_int(o, "running_jobs", p->running_jobs);
	return o;
}

/* {"partitions": [...], "nodes": [...]}, the filters applied. */
static void
print_json(const struct opts *o, const struct nodequery *q,
    const struct row *rows, size_t nrows)
{
	struct json_object *root = json_object_new_object();
	struct json_object *parts = json_object_new_array();
	struct json_object *nodes = json_object_new_array();
	size_t i, r;

	for (i = 0; i < q->nparts; i++)
		if (filter_match_name(o->parts, o->nparts, q->parts[i].name))
			(void)json_object_array_add(parts,
			    json_part(&q->parts[i], rows, nrows));
	for (i = 0; i < q->nnodes; i++) {
		for (r = 0; r < nrows && rows[r].n != &q->nodes[i]; r++)
			;
		if (r < nrows)
			(void)json_object_array_add(nodes,
			    json_node(&q->nodes[i], rows, nrows));
	}
	(void)json_object_object_add(root, "partitions", parts);
	(void)json_object_object_add(root, "nodes", nodes);
	out_json_print(stdout, root);
	(void)json_object_put(root);
}

/*
 * Options
 */

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;

	switch (c) {
	case 'N':
		o->node_view = true;
		return 0;
	case 'o':
		o->format = arg;
		return 0;
	case 'O':
		o->Format = arg;
		return 0;
	case 'h':
		o->noheader = true;
		return 0;
	case 'n':
		filter_free_names(o->nodes, o->nnodes);
		return kai_hostlist_expand(arg, &o->nodes, &o->nnodes, err);
	case 'p':
		return filter_parse_names("partition", arg, &o->parts,
		    &o->nparts, err);
	case 't':
		return nodequery_parse_states(arg, &o->states, err);
	case 's':
		o->summary = true;
		return 0;
	case 'R':
		o->reasons = true;
		return 0;
	case 'e':
		o->exact = true;
		return 0;
	case 'l':
		o->lng = true;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	case K_GPUS:
		o->gpus = true;
		return 0;
	case K_HELP:
		o->help = true;
		return 0;
	case K_JSON:
		o->json = true;
		return 0;
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", c);
	}
}

static int
parse_args(struct opts *o, int argc, char **argv, struct kai_err *err)
{
	return cliopt_parse(table, KAI_NELEM(table), argc, argv, set_opt, NULL,
	    o, err);
}

static int
build_layout(const struct opts *o, struct layout *l, struct kai_err *err)
{
	char fmt[256];

	if (o->Format != NULL)
		return kinfo_layout_Format(o->Format, l, err);
	if (o->format != NULL)
		return kinfo_layout_format(o->format, l, err);
	if (o->reasons)
		return kinfo_layout_format(FMT_REASONS, l, err);
	(void)snprintf(fmt, sizeof(fmt), "%s%s%s",
	    o->node_view     ? (o->lng ? FMT_LONG_N : FMT_NODE)
		: o->summary ? FMT_SUMMARY
		: o->lng     ? FMT_LONG
			     : FMT_DEFAULT,
	    o->gpus ? FMT_GPUS : "", o->node_view ? "" : " %N");
	return kinfo_layout_format(fmt, l, err);
}

static void
print_date(void)
{
	char stamp[64];
	time_t t = time(NULL);
	struct tm tm;

	if (localtime_r(&t, &tm) != NULL &&
	    strftime(stamp, sizeof(stamp), "%a %b %d %H:%M:%S %Y", &tm) > 0)
		(void)printf("%s\n", stamp);
}

static int
run(const struct opts *o, struct layout *l)
{
	struct nodequery q;
	struct group *g;
	struct row *rows;
	size_t nrows, ng;
	int rc;

	if ((rc = nodequery_run(prog, &q)) != CLIENT_EXIT_OK)
		return rc;
	rows = build_rows(o, &q, &nrows);
	if (o->json) {
		print_json(o, &q, rows, nrows);
	} else {
		/* sinfo: the date over -l, unless -h */
		if (o->lng && !o->noheader)
			print_date();
		g = build_groups(l, rows, nrows, o->node_view, o->exact, &ng);
		print_table(o, l, g, ng);
		groups_free(g, ng);
	}
	free(rows);
	nodequery_fini(&q);
	return fflush(stdout) == 0 && !ferror(stdout) ? CLIENT_EXIT_OK
						      : CLIENT_EXIT_REFUSED;
}

/* kinfo's state, from its command line to its exit. */
struct kinfo {
	struct opts o;
	struct layout l;
};

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct kinfo *k = ctx;
	int r;

	if ((r = parse_args(&k->o, argc, argv, err)) != 0)
		return r;
	*act = client_action_of(k->o.help, k->o.version);
	return *act == CLIENT_RUN ? build_layout(&k->o, &k->l, err) : 0;
}

static int
main_run(void *ctx)
{
	struct kinfo *k = ctx;

	return run(&k->o, &k->l);
}

static void
main_fini(void *ctx)
{
	struct kinfo *k = ctx;

	kinfo_layout_free(&k->l);
	filter_free_names(k->o.parts, k->o.nparts);
	filter_free_names(k->o.nodes, k->o.nnodes);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, main_fini};
	struct kinfo k;

	memset(&k, 0, sizeof(k));
	return client_main(&p, &k, argc, argv);
}
