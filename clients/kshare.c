/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kshare: fair share as the scheduler saw it at its last pass, like
 * Slurm's sshare.
 *
 *	kshare [-u USER[,USER...]] [-A QUEUE[,QUEUE...]] [--noheader]
 *	       [--parsable2] [--json]
 *
 * One row per queue, indented under its parent as sshare indents
 * accounts, with per resource (GPU, CPU, memory) the quota, limit and
 * over-quota weight, the fair share, what is allocated and requested,
 * and the decayed usage, then for each GPU type of the pass (doc/
 * scheduler.md, "GPU types") the queue's quota, limit, weight, fair share,
 * allocation and request of that type; then, under each leaf queue, one
 * row per user with that user's decayed usage and allocation.  Units: GPUs as
 * decimals, CPU in millicores, memory in MiB; usage in GPU-seconds,
 * core-seconds and MiB-seconds.  kaid answers from memory.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "output.h"
#include "proto/proto.h"

static const char *const prog = "kshare";

enum { K_JSON = CLIOPT_LONG, K_NOHEADER, K_PARSABLE2 };

static const struct cliopt table[] = {
    CLIOPT("queue", 'A', CLIOPT_ARG, "QUEUE[,...]",
	"only these queues and the queues below them"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("json", K_JSON, CLIOPT_NOARG, NULL, "print JSON"),
    CLIOPT("noheader", K_NOHEADER, CLIOPT_NOARG, NULL, "no header line"),
    CLIOPT("parsable2", K_PARSABLE2, CLIOPT_NOARG, NULL,
	"fields separated by \"|\", nothing cut"),
    CLIOPT("users", 'u', CLIOPT_ARG, "USER[,...]",
	"only the rows of these users"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {
    "kshare [-u USER[,...]] [-A QUEUE[,...]] [--noheader] [--parsable2] "
    "[--json]", NULL};

struct opts {
	struct kai_share_req q;
	bool json, noheader, parsable2, help, version;
};

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;
	size_t i;

	switch (c) {
	case 'A':
		if (filter_parse_names("queue", arg, &o->q.queues,
		    &o->q.nqueues, err) != 0)
			return KAI_EINVAL;
		for (i = 0; i < o->q.nqueues; i++)
			if (kai_queue_name_check(o->q.queues[i], err) != 0)
				return KAI_EINVAL;
		return 0;
	case 'u':
		return filter_parse_names("user", arg, &o->q.users,
		    &o->q.nusers, err);
	case 'h':
		o->help = true;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	case K_JSON:
		o->json = true;
		return 0;
	case K_NOHEADER:
		o->noheader = true;
		return 0;
	case K_PARSABLE2:
		o->parsable2 = true;
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

/*
 * The table
 */

#define PER_RES	 7
#define PER_TYPE 6
#define NFIXED	 (2 + PER_RES * KAI_QUEUE_NRES)
#define CELL	 96

static const char *const res_head[KAI_QUEUE_NRES] = {"GPU", "CPU", "Mem"};
static const char *const col_head[PER_RES] = {"Quota", "Limit", "Weight",
    "FairShare", "Alloc", "Req", "Usage"};
static const int64_t unit[KAI_QUEUE_NRES] = {KAI_QUEUE_GPU_UNIT, 1, 1};
static const int64_t usage_unit[KAI_QUEUE_NRES] = {1000000, 1000, 1};

/*
 * The rows' cells: the fixed columns, then PER_TYPE columns for each GPU
 * type of the pass ("gpu:A100:Quota" ... "gpu:A100:Req"), so a cluster
 * with one type of GPU or none sees the table it always saw.
 */
struct tab {
	size_t ncols;
	char (*cell)[CELL];
	struct kai_share_type *types; /* the types of the columns, in order */
	size_t ntypes;
};

static void
fmt(int64_t v, int64_t u, char *buf)
{
	kai_queue_fmt_units(v, u, buf, CELL);
}

/* Usage in resource-seconds, whole. */
static void
fmt_usage(int64_t v, int r, char *buf)
{
	(void)snprintf(buf, CELL, "%" PRId64,
	    (v + usage_unit[r] / 2) / usage_unit[r]);
}

static int
depth(const struct kai_share *s, size_t i)
{
	int d = 0;
	size_t p;

	while (s->queues[i].parent != NULL && d < 64) {
		for (p = 0; p < s->nqueues && strcmp(s->queues[p].name,
		    s->queues[i].parent) != 0; p++)
			;
		if (p == s->nqueues)
			break;
		i = p;
		d++;
	}
	return d;
}

/* The queue's figures for type t of the columns; zero when it has none. */
static void
queue_type(const struct kai_share_queue *q, const char *type,
    struct kai_share_type *x)
{
	size_t k;

	for (k = 0; k < q->ngpu_types; k++)
		if (kai_share_type_parse(q->gpu_types[k], x, NULL) == 0 &&
		    strcmp(x->type, type) == 0)
			return;
	memset(x, 0, sizeof(*x));
	x->limit = x->weight = -1;
}

static void
queue_cells(const struct kai_share *s, size_t i, bool indent, struct tab *tb)
{
	const struct kai_share_queue *q = &s->queues[i];
	char (*cell)[CELL] = tb->cell;
	int r, c = 2, d = indent ? depth(s, i) : 0;
	struct kai_share_type x;
	size_t t;

	(void)snprintf(cell[0], CELL, "%*s%s", d, "", q->name);
	cell[1][0] = '\0';
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		const struct kai_share_res *y = &q->res[r];

		fmt(y->quota, unit[r], cell[c++]);
		fmt(y->limit, unit[r], cell[c++]);
		fmt(y->weight, KAI_QUEUE_WEIGHT_UNIT, cell[c++]);
		fmt(y->fair_share, unit[r], cell[c++]);
		fmt(y->allocated, unit[r], cell[c++]);
		fmt(y->requested, unit[r], cell[c++]);
		fmt_usage(y->usage, r, cell[c++]);
	}
	for (t = 0; t < tb->ntypes; t++) {
		queue_type(q, tb->types[t].type, &x);
		fmt(x.quota, KAI_QUEUE_GPU_UNIT, cell[c++]);
		fmt(x.limit, KAI_QUEUE_GPU_UNIT, cell[c++]);
		if (x.weight < 0)
			(void)snprintf(cell[c++], CELL, "-");
		else
			fmt(x.weight, KAI_QUEUE_WEIGHT_UNIT, cell[c++]);
		fmt(x.fair_share, KAI_QUEUE_GPU_UNIT, cell[c++]);
		fmt(x.allocated, KAI_QUEUE_GPU_UNIT, cell[c++]);
		fmt(x.requested, KAI_QUEUE_GPU_UNIT, cell[c++]);
	}
}

static void
user_cells(const struct kai_share *s, const struct kai_share_user *u,
    bool indent, struct tab *tb)
{
	char (*cell)[CELL] = tb->cell;
	size_t i;
	int r, c = 2, d = 0;

	for (i = 0; indent && i < s->nqueues; i++)
		if (strcmp(s->queues[i].name, u->queue) == 0)
			d = depth(s, i) + 1;
	(void)snprintf(cell[0], CELL, "%*s%s", d, "", u->queue);
	(void)snprintf(cell[1], CELL, "%s", u->user);
	for (i = 2; i < tb->ncols; i++)
		cell[i][0] = '\0';
	if (u->account != NULL && u->account[0] != '\0') {
		/* An account: its weight and part of the queue's GPUs. */
		(void)snprintf(cell[1], CELL, "account:%.80s", u->account);
		(void)snprintf(cell[c + 2], CELL, "%" PRId64, u->shares);
		fmt(u->fair_share_gpu, unit[0], cell[c + 3]);
		for (r = 0; r < KAI_QUEUE_NRES; r++, c += PER_RES)
			fmt(u->allocated[r], unit[r], cell[c + 4]);
		return;
	}
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		fmt(u->allocated[r], unit[r], cell[c + 4]);
		fmt_usage(u->usage[r], r, cell[c + 6]);
		c += PER_RES;
	}
}

static void
emit(struct out_table *t, const struct tab *tb)
{
	size_t c;

	for (c = 0; c < tb->ncols; c++)
		out_table_cell(t, tb->cell[c]);
	out_table_end_row(t);
}

/* Visits the rows in order: each queue, then its users. */
static void
walk(const struct kai_share *s, bool indent, struct tab *tb,
    void (*fn)(const struct tab *tb, void *ctx), void *ctx)
{
	size_t i, j;

	for (i = 0; i < s->nqueues; i++) {
		queue_cells(s, i, indent, tb);
		fn(tb, ctx);
		for (j = 0; j < s->nusers; j++) {
			if (strcmp(s->users[j].queue, s->queues[i].name) != 0)
				continue;
			user_cells(s, &s->users[j], indent, tb);
			fn(tb, ctx);
		}
	}
}

static void
widen(const struct tab *tb, void *ctx)
{
	struct out_col *cols = ctx;
	size_t c;

	for (c = 0; c < tb->ncols; c++)
		if ((int)strlen(tb->cell[c]) > cols[c].width)
			cols[c].width = (int)strlen(tb->cell[c]);
}

static void
print_row(const struct tab *tb, void *ctx)
{
	emit(ctx, tb);
}

/* Every GPU type any queue has, in the order they first appear. */
static void
tab_types(const struct kai_share *s, struct tab *tb)
{
	struct kai_share_type x;
	size_t i, k, t;

	for (i = 0; i < s->nqueues; i++)
		for (k = 0; k < s->queues[i].ngpu_types; k++) {
			if (kai_share_type_parse(s->queues[i].gpu_types[k], &x,
				NULL) != 0)
				continue;
			for (t = 0; t < tb->ntypes &&
			     strcmp(tb->types[t].type, x.type) != 0;
			     t++)
				;
			if (t < tb->ntypes || tb->ntypes >= KAI_SHARE_TYPES_MAX)
				continue;
			tb->types = kai_xreallocarray(tb->types,
			    tb->ntypes + 1, sizeof(*tb->types));
			tb->types[tb->ntypes++] = x;
		}
	tb->ncols = NFIXED + PER_TYPE * tb->ntypes;
	tb->cell = kai_xcalloc(tb->ncols, sizeof(*tb->cell));
}

static void
print_table(const struct opts *o, const struct kai_share *s)
{
	static const char *const type_head[PER_TYPE] = {"Quota", "Limit",
	    "Weight", "FairShare", "Alloc", "Req"};
	struct tab tb = {0, NULL, NULL, 0};
	char (*head)[CELL];
	struct out_col *cols;
	struct out_table t;
	size_t c;
	int r;

	tab_types(s, &tb);
	head = kai_xcalloc(tb.ncols, sizeof(*head));
	cols = kai_xcalloc(tb.ncols, sizeof(*cols));
	(void)snprintf(head[0], CELL, "Queue");
	(void)snprintf(head[1], CELL, "User");
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		for (c = 0; c < PER_RES; c++)
			(void)snprintf(head[2 + r * PER_RES + c], CELL, "%s%s",
			    res_head[r], col_head[c]);
	for (c = NFIXED; c < tb.ncols; c++)
		(void)snprintf(head[c], CELL, "gpu:%s:%s",
		    tb.types[(c - NFIXED) / PER_TYPE].type,
		    type_head[(c - NFIXED) % PER_TYPE]);
	for (c = 0; c < tb.ncols; c++) {
		cols[c].header = head[c];
		cols[c].width = (int)strlen(head[c]);
		cols[c].right = c >= 2;
	}
	if (!o->parsable2)
		walk(s, true, &tb, widen, cols);
	out_table_init(&t, stdout, cols, tb.ncols, o->parsable2 ?
	    OUT_MODE_PARSABLE2 : OUT_MODE_TABLE, OUT_TRUNC_CUT);
	if (!o->noheader)
		out_table_header(&t, false);
	walk(s, !o->parsable2, &tb, print_row, &t);
	free(head);
	free(cols);
	free(tb.cell);
	free(tb.types);
}

/*
 * JSON
 */

static struct json_object *
json_units(int64_t v, int64_t u)
{
	char buf[CELL];

	if (u == 1)
		return json_object_new_int64(v);
	kai_queue_fmt_units(v, u, buf, sizeof(buf));
	return json_object_new_double_s((double)v / (double)u, buf);
}

/* {"A100": {quota, limit, over_quota_weight, fair_share, ...}, ...} */
static struct json_object *
json_types(const struct kai_share_queue *q)
{
	struct json_object *o = json_object_new_object(), *b;
	struct kai_share_type x;
	size_t k;

	for (k = 0; k < q->ngpu_types; k++) {
		if (kai_share_type_parse(q->gpu_types[k], &x, NULL) != 0)
			continue;
		b = json_object_new_object();
		(void)json_object_object_add(b, "quota",
		    json_units(x.quota, KAI_QUEUE_GPU_UNIT));
		(void)json_object_object_add(b, "limit",
		    json_units(x.limit, KAI_QUEUE_GPU_UNIT));
		/* null: the queue's GPU weight. */
		(void)json_object_object_add(b, "over_quota_weight",
		    x.weight < 0 ? NULL
				 : json_units(x.weight, KAI_QUEUE_WEIGHT_UNIT));
		(void)json_object_object_add(b, "fair_share",
		    json_units(x.fair_share, KAI_QUEUE_GPU_UNIT));
		(void)json_object_object_add(b, "allocated",
		    json_units(x.allocated, KAI_QUEUE_GPU_UNIT));
		(void)json_object_object_add(b, "requested",
		    json_units(x.requested, KAI_QUEUE_GPU_UNIT));
		(void)json_object_object_add(o, x.type, b);
	}
	return o;
}

static struct json_object *
json_queue(const struct kai_share_queue *q)
{
	static const char *const rn[KAI_QUEUE_NRES] = {"gpu", "cpu", "memory"};
	struct json_object *o = json_object_new_object(), *b;
	int r;

	out_json_add_str(o, "name", q->name);
	(void)json_object_object_add(o, "parent", q->parent != NULL ?
	    json_object_new_string(q->parent) : NULL);
	out_json_add_int(o, "priority", q->priority);
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		const struct kai_share_res *x = &q->res[r];

		b = json_object_new_object();
		(void)json_object_object_add(b, "quota",
		    json_units(x->quota, unit[r]));
		(void)json_object_object_add(b, "limit",
		    json_units(x->limit, unit[r]));
		(void)json_object_object_add(b, "over_quota_weight",
		    json_units(x->weight, KAI_QUEUE_WEIGHT_UNIT));
		(void)json_object_object_add(b, "fair_share",
		    json_units(x->fair_share, unit[r]));
		(void)json_object_object_add(b, "allocated",
		    json_units(x->allocated, unit[r]));
		(void)json_object_object_add(b, "requested",
		    json_units(x->requested, unit[r]));
		(void)json_object_object_add(b, "usage",
		    json_units(x->usage, usage_unit[r]));
		(void)json_object_object_add(b, "usage_share",
		    json_units(x->usage_share, 1000000));
		(void)json_object_object_add(o, rn[r], b);
	}
	(void)json_object_object_add(o, "gpu_types", json_types(q));
	return o;
}

static struct json_object *
json_user(const struct kai_share_user *u)
{
	static const char *const rn[KAI_QUEUE_NRES] = {"gpu", "cpu", "memory"};
	struct json_object *o = json_object_new_object(), *b;
	int r;

	out_json_add_str(o, "queue", u->queue);
	out_json_add_str(o, "user", u->user);
	if (u->account != NULL && u->account[0] != '\0') {
		out_json_add_str(o, "account", u->account);
		(void)json_object_object_add(o, "fairshare",
		    json_object_new_int64(u->shares));
		(void)json_object_object_add(o, "gpu_fair_share",
		    json_units(u->fair_share_gpu, unit[0]));
	}
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		b = json_object_new_object();
		(void)json_object_object_add(b, "allocated",
		    json_units(u->allocated[r], unit[r]));
		(void)json_object_object_add(b, "usage",
		    json_units(u->usage[r], usage_unit[r]));
		(void)json_object_object_add(o, rn[r], b);
	}
	return o;
}

static void
print_json(const struct kai_share *s)
{
	struct json_object *root = json_object_new_object(), *qa, *ua;
	size_t i;

	out_json_add_int(root, "time", s->time);
	out_json_add_int(root, "half_life_s", s->half_life_s);
	out_json_add_int(root, "window_s", s->window_s);
	(void)json_object_object_add(root, "k_value",
	    json_units(s->k_value, 1000000));
	qa = json_object_new_array();
	for (i = 0; i < s->nqueues; i++)
		(void)json_object_array_add(qa, json_queue(&s->queues[i]));
	ua = json_object_new_array();
	for (i = 0; i < s->nusers; i++)
		(void)json_object_array_add(ua, json_user(&s->users[i]));
	(void)json_object_object_add(root, "queues", qa);
	(void)json_object_object_add(root, "users", ua);
	out_json_print(stdout, root);
	(void)json_object_put(root);
}

/*
 * The request
 */

static int
on_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct kai_share *s = ctx;
	struct kai_err err;

	kai_err_clear(&err);
	if (type != KAI_MSG_SHARE_REPLY ||
	    kai_msg_share_decode(body, len, s, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_SHARE_REPLY ? "unexpected message type"
						: kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

static int
run(const struct opts *o)
{
	struct kai_share s;
	struct kai_buf b;
	int rc;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_share_req_encode(&b, &o->q) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "request is too large to send");
		return CLIENT_EXIT_USAGE;
	}
	memset(&s, 0, sizeof(s));
	rc = client_request(prog, KAI_MSG_SHARE, b.data, b.len, on_reply, &s);
	kai_buf_fini(&b);
	if (rc == CLIENT_EXIT_OK) {
		if (o->json)
			print_json(&s);
		else
			print_table(o, &s);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			client_error(prog, NULL, "could not write the output");
			rc = CLIENT_EXIT_REFUSED;
		}
	}
	kai_share_fini(&s);
	return rc;
}

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct opts *o = ctx;
	int r;

	if ((r = parse_args(o, argc, argv, err)) == 0)
		*act = client_action_of(o->help, o->version);
	return r;
}

static int
main_run(void *ctx)
{
	return run((struct opts *)ctx);
}

static void
main_fini(void *ctx)
{
	struct opts *o = ctx;

	kai_share_req_fini(&o->q);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, main_fini};
	struct opts o;

	memset(&o, 0, sizeof(o));
	return client_main(&p, &o, argc, argv);
}
