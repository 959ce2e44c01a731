/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl: the operator's tool, and scontrol's job verbs for everyone.
 *
 *	kctl show job|node|partition|qos [NAME]	(kctl_show.c)
 *	kctl hold|release|requeue JOBID...	(kctl_job.c)
 *	kctl update job JOBID Key=Value...	(kctl_job.c)
 *
 * and the queue tree:
 *
 *	kctl queue list [--json]
 *	kctl queue create NAME [options]
 *	kctl queue update NAME [options]
 *	kctl queue delete NAME...
 *	kctl queue apply -f FILE
 *
 * Anyone may list the queues; kaid lets only operators change them.  A
 * create sets the options given and leaves the rest at the defaults of a
 * queue that guarantees and caps nothing; an update changes only the
 * options given; an apply makes each queue of the file exactly what the
 * file says (kctl_apply.c).  Every change is one request that kaid
 * applies in one transaction, all or nothing, and it takes effect at
 * kaid's next tick.  Units are the scheduler's: GPUs as decimals (0.5),
 * CPU in millicores, memory in MiB; -1 is "unlimited" for a quota and
 * "none" for a limit.
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
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "kctl.h"
#include "output.h"
#include "proto/proto.h"

static const char *const prog = "kctl";

enum {
	K_JSON = CLIOPT_LONG,
	K_PARENT,
	K_PRIORITY,
	K_PREEMPT,
	K_RECLAIM,
	K_GPU_TYPE,
	K_NO_GPU_TYPES,
	K_QUOTA,		  /* + 3 * resource */
	K_LIMIT = K_QUOTA + 1,	  /* + 3 * resource */
	K_WEIGHT = K_QUOTA + 2,	  /* + 3 * resource */
	K_LAST = K_QUOTA + 3 * KAI_QUEUE_NRES
};

#define RES_OPTS(r, p, what, unit)                                             \
	CLIOPT(p "-quota", K_QUOTA + 3 * (r), CLIOPT_ARG, unit,                \
	    what " guaranteed to the queue; -1 unlimited, 0 none"),            \
	    CLIOPT(p "-limit", K_LIMIT + 3 * (r), CLIOPT_ARG, unit,            \
		"most " what " the queue may use; -1 no limit"),               \
	    CLIOPT(p "-weight", K_WEIGHT + 3 * (r), CLIOPT_ARG, "W",           \
		"share of spare " what " (over_quota_weight)")

static const struct cliopt set_table[] = {
    RES_OPTS(KAI_QUEUE_CPU, "cpu", "CPU", "MILLICORES"),
    RES_OPTS(KAI_QUEUE_GPU, "gpu", "GPUs", "GPUS"),
    CLIOPT("gpu-type", K_GPU_TYPE, CLIOPT_ARG, "TYPE:QUOTA[:LIMIT[:W]]",
	"GPUs of one type: quota, limit (-1), weight (the GPU one)"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    RES_OPTS(KAI_QUEUE_MEM, "mem", "memory", "MIB"),
    CLIOPT("no-gpu-types", K_NO_GPU_TYPES, CLIOPT_NOARG, NULL,
	"drop every GPU type setting of the queue"),
    CLIOPT("parent", K_PARENT, CLIOPT_ARG, "QUEUE",
	"the parent queue; \"\" for a top-level queue"),
    CLIOPT("preempt-min-runtime", K_PREEMPT, CLIOPT_ARG, "SECONDS",
	"protect jobs from preemption this long; -1 inherit"),
    CLIOPT("priority", K_PRIORITY, CLIOPT_ARG, "N",
	"higher-priority queues get spare resources first (100)"),
    CLIOPT("reclaim-min-runtime", K_RECLAIM, CLIOPT_ARG, "SECONDS",
	"protect jobs from reclaim this long; -1 inherit"),
};

static const struct cliopt list_table[] = {
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("json", K_JSON, CLIOPT_NOARG, NULL, "print JSON"),
};


static const struct cliopt apply_table[] = {
    CLIOPT("filename", 'f', CLIOPT_ARG, "FILE",
	"the queues, as a YAML list (the scenario format's queues:)"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
};

static const struct cliopt plain_table[] = {
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
};

static const struct cliopt top_table[] = {
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const top_synopsis[] = {
    "kctl show job|node|partition|qos [NAME]", "kctl hold JOBID...",
    "kctl release JOBID...", "kctl requeue JOBID...",
    "kctl update job JOBID [TimeLimit=TIME] [Partition=NAME] "
    "[MailType=TYPES] [MailUser=ADDRESS]",
    "kctl queue list [--json]",
    "kctl queue create NAME [options]", "kctl queue update NAME [options]",
    "kctl queue delete NAME...", "kctl queue apply -f FILE", NULL};

/* A verb's command line after "kctl queue": options, then operands. */
struct cmd {
	const char *verb;
	const struct cliopt *table;
	size_t ntable;
	struct kai_queue_change ch; /* create, update */
	const char *file;	    /* apply */
	bool json, help;
	char **operands;	    /* borrowed from argv */
	int noperands;
};

/*
 * Option values
 */

static int
set_value(struct cmd *c, int key, const char *arg, struct kai_err *err)
{
	struct kai_queue *q = &c->ch.q;
	int r = (key - K_QUOTA) / 3, what = (key - K_QUOTA) % 3;
	int64_t unit = r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1;
	char label[48];
	int64_t *dst;

	(void)snprintf(label, sizeof(label), "%s %s", kai_queue_res_name(
	    (enum kai_queue_res)r), what == 0 ? "quota" : what == 1 ? "limit"
	    : "weight");
	if (what == 2) {
		dst = &q->res[r].weight;
		c->ch.set |= KAI_QUEUE_SET_WEIGHT(r);
		unit = KAI_QUEUE_WEIGHT_UNIT;
	} else {
		dst = what == 0 ? &q->res[r].quota : &q->res[r].limit;
		c->ch.set |= what == 0 ? KAI_QUEUE_SET_QUOTA(r)
				       : KAI_QUEUE_SET_LIMIT(r);
	}
	if (kai_queue_parse_units(arg, unit, what == 2 ? KAI_QUEUE_WEIGHT_MAX
	    : KAI_QUEUE_VALUE_MAX, label, dst, err) != 0)
		return KAI_EINVAL;
	if (what == 2 && *dst < 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s \"%s\": expected a number of at least 0", label,
		    arg);
	return 0;
}

static int
set_opt(struct cmd *c, int key, const char *arg, struct kai_err *err)
{
	struct kai_queue *q = &c->ch.q;

	switch (key) {
	case 'h':
		c->help = true;
		return 0;
	case 'f':
		c->file = arg;
		return 0;
	case K_JSON:
		c->json = true;
		return 0;
	case K_PARENT:
		free(q->parent);
		q->parent = *arg != '\0' ? kai_xstrdup(arg) : NULL;
		c->ch.set |= KAI_QUEUE_SET_PARENT;
		return q->parent != NULL ? kai_queue_name_check(arg, err) : 0;
	case K_GPU_TYPE:
		/* Sets this type, keeps the queue's others (but after
		 * --no-gpu-types, which makes the list the one given). */
		c->ch.set |= KAI_QUEUE_SET_GPU_TYPE_EACH;
		return kai_queue_type_parse(q, arg, err);
	case K_NO_GPU_TYPES:
		c->ch.set |= KAI_QUEUE_SET_GPU_TYPES;
		kai_queue_types_clear(q);
		return 0;
	case K_PRIORITY:
		c->ch.set |= KAI_QUEUE_SET_PRIORITY;
		return kai_strtoi64(arg, KAI_QUEUE_PRIO_MIN, KAI_QUEUE_PRIO_MAX,
		    &q->priority, "priority", err);
	case K_PREEMPT:
	case K_RECLAIM:
		c->ch.set |= key == K_PREEMPT ? KAI_QUEUE_SET_PREEMPT_MIN
					      : KAI_QUEUE_SET_RECLAIM_MIN;
		return kai_strtoi64(arg, -1, KAI_QUEUE_RUNTIME_MAX,
		    key == K_PREEMPT ? &q->preempt_min_runtime_s
				     : &q->reclaim_min_runtime_s,
		    "minimum runtime", err);
	default:
		if (key >= K_QUOTA && key < K_LAST)
			return set_value(c, key, arg, err);
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", key);
	}
}

/* Parses argv (argv[0] is the verb) against c->table. */
static int
parse_cmd(struct cmd *c, int argc, char **argv, struct kai_err *err)
{
	struct cliopt_parser p;
	const char *arg;
	int k, r = 0;

	cliopt_begin(&p, c->table, c->ntable, false);
	while (r == 0 &&
	    (k = cliopt_next(&p, argc, argv, &arg, err)) != CLIOPT_DONE)
		r = k < 0 ? k : set_opt(c, k, arg, err);
	if (r == 0) {
		c->operands = argv + optind;
		c->noperands = argc - optind;
	}
	cliopt_end(&p);
	return r;
}

/*
 * kctl queue list
 */

static void
fmt_res(const struct kai_queue_qres *x, int64_t unit, char *buf, size_t size)
{
	char q[32], l[32], w[32];

	kai_queue_fmt_units(x->quota, unit, q, sizeof(q));
	kai_queue_fmt_units(x->limit, unit, l, sizeof(l));
	kai_queue_fmt_units(x->weight, KAI_QUEUE_WEIGHT_UNIT, w, sizeof(w));
	(void)snprintf(buf, size, "%s/%s/%s", q, l, w);
}

#define NCOLS 8
#define CELL  1024

/*
 * "A100=2/4/1,H100=0/-1/-": each GPU type's quota/limit/weight, "-" for
 * the queue's GPU weight; "-" for none.
 */
static void
types_cell(const struct kai_queue *q, char *buf, size_t size)
{
	char a[32], b[32], w[32];
	size_t i, len = 0;

	(void)snprintf(buf, size, "-");
	for (i = 0; i < q->ntypes && len + 1 < size; i++) {
		const struct kai_queue_gtype *x = &q->types[i];

		kai_queue_fmt_units(x->quota, KAI_QUEUE_GPU_UNIT, a, sizeof(a));
		kai_queue_fmt_units(x->limit, KAI_QUEUE_GPU_UNIT, b, sizeof(b));
		if (x->weight < 0)
			(void)snprintf(w, sizeof(w), "-");
		else
			kai_queue_fmt_units(x->weight, KAI_QUEUE_WEIGHT_UNIT,
			    w, sizeof(w));
		(void)snprintf(buf + len, size - len, "%s%s=%s/%s/%s",
		    i > 0 ? "," : "", x->type, a, b, w);
		len = strlen(buf);
	}
}

/* The cells of one queue's row. */
static void
row_cells(const struct kai_queue *q, char cell[NCOLS][CELL])
{
	int r;

	(void)snprintf(cell[0], CELL, "%s", q->name);
	(void)snprintf(cell[1], CELL, "%s", q->parent != NULL ? q->parent : "-");
	(void)snprintf(cell[2], CELL, "%" PRId64, q->priority);
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		fmt_res(&q->res[r], r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1,
		    cell[3 + r], CELL);
	(void)snprintf(cell[6], CELL, "%" PRIu32, q->active_jobs);
	types_cell(q, cell[7], CELL);
}

static void
print_table(const struct kai_queue *q, size_t n)
{
	struct out_col cols[NCOLS] = {{"NAME", 0, false},
	    {"PARENT", 0, false}, {"PRIORITY", 0, true},
	    {"GPU(QUOTA/LIMIT/WEIGHT)", 0, false},
	    {"CPU(QUOTA/LIMIT/WEIGHT)", 0, false},
	    {"MEM(QUOTA/LIMIT/WEIGHT)", 0, false}, {"JOBS", 0, true},
	    {"GPUTYPES(QUOTA/LIMIT/WEIGHT)", 0, false}};
	static char cell[NCOLS][CELL];
	struct out_table t;
	size_t i, c;

	/* Natural widths: the widest cell or header of each column. */
	for (c = 0; c < NCOLS; c++)
		cols[c].width = (int)strlen(cols[c].header);
	for (i = 0; i < n; i++) {
		row_cells(&q[i], cell);
		for (c = 0; c < NCOLS; c++)
			if ((int)strlen(cell[c]) > cols[c].width)
				cols[c].width = (int)strlen(cell[c]);
	}
	cols[NCOLS - 1].width = 0;
	out_table_init(&t, stdout, cols, NCOLS, OUT_MODE_TABLE, OUT_TRUNC_CUT);
	out_table_header(&t, false);
	for (i = 0; i < n; i++) {
		row_cells(&q[i], cell);
		for (c = 0; c < NCOLS; c++)
			out_table_cell(&t, cell[c]);
		out_table_end_row(&t);
	}
}

static struct json_object *
json_units(int64_t v, int64_t unit)
{
	char buf[32];

	kai_queue_fmt_units(v, unit, buf, sizeof(buf));
	if (unit == 1)
		return json_object_new_int64(v);
	/* The decimal as typed, not a double's nearest neighbour. */
	return json_object_new_double_s((double)v / (double)unit, buf);
}

static struct json_object *
json_queue(const struct kai_queue *q)
{
	static const char *const res[KAI_QUEUE_NRES] = {"gpu", "cpu",
	    "memory"};
	struct json_object *o = json_object_new_object(), *b;
	size_t i;
	int r;

	out_json_add_str(o, "name", q->name);
	(void)json_object_object_add(o, "parent", q->parent != NULL
	    ? json_object_new_string(q->parent) : NULL);
	out_json_add_int(o, "priority", q->priority);
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		int64_t unit = r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1;

		b = json_object_new_object();
		(void)json_object_object_add(b, "quota",
		    json_units(q->res[r].quota, unit));
		(void)json_object_object_add(b, "limit",
		    json_units(q->res[r].limit, unit));
		(void)json_object_object_add(b, "over_quota_weight",
		    json_units(q->res[r].weight, KAI_QUEUE_WEIGHT_UNIT));
		(void)json_object_object_add(o, res[r], b);
	}
	b = json_object_new_object();
	for (i = 0; i < q->ntypes; i++) {
		const struct kai_queue_gtype *x = &q->types[i];
		struct json_object *t = json_object_new_object();

		(void)json_object_object_add(t, "quota",
		    json_units(x->quota, KAI_QUEUE_GPU_UNIT));
		(void)json_object_object_add(t, "limit",
		    json_units(x->limit, KAI_QUEUE_GPU_UNIT));
		/* null: the queue's GPU weight. */
		(void)json_object_object_add(t, "over_quota_weight",
		    x->weight < 0 ? NULL
				  : json_units(x->weight, KAI_QUEUE_WEIGHT_UNIT));
		(void)json_object_object_add(b, x->type, t);
	}
	(void)json_object_object_add(o, "gpu_types", b);
	out_json_add_int(o, "preempt_min_runtime_s", q->preempt_min_runtime_s);
	out_json_add_int(o, "reclaim_min_runtime_s", q->reclaim_min_runtime_s);
	out_json_add_int(o, "active_jobs", q->active_jobs);
	return o;
}

struct listing {
	bool json;
};

static int
on_list(uint16_t type, const void *body, size_t len, void *ctx)
{
	const struct listing *l = ctx;
	struct kai_queue *q = NULL;
	struct json_object *root, *arr;
	struct kai_err err;
	size_t n = 0, i;

	kai_err_clear(&err);
	if (type != KAI_MSG_QUEUE_LIST_REPLY ||
	    kai_msg_queues_decode(body, len, &q, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_QUEUE_LIST_REPLY ? "unexpected message type"
						     : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	if (l->json) {
		root = json_object_new_object();
		arr = json_object_new_array();
		for (i = 0; i < n; i++)
			(void)json_object_array_add(arr, json_queue(&q[i]));
		(void)json_object_object_add(root, "queues", arr);
		out_json_print(stdout, root);
		(void)json_object_put(root);
	} else {
		print_table(q, n);
	}
	kai_queues_free(q, n);
	return CLIENT_EXIT_OK;
}

static int
q_list(struct cmd *c)
{
	static const char empty[1] = "";
	struct listing l = {c->json};

	if (c->noperands > 0) {
		client_error(prog, NULL, "unexpected argument \"%s\"",
		    c->operands[0]);
		return CLIENT_EXIT_USAGE;
	}
	return client_request(prog, KAI_MSG_QUEUE_LIST, empty, 0, on_list,
	    &l);
}

/*
 * Changes: create, update, apply; delete
 */

static int
on_outcomes(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct kai_queue_outcome *o = NULL;
	struct kai_err err;
	size_t n = 0, i;

	(void)ctx;
	kai_err_clear(&err);
	if (type != KAI_MSG_QUEUE_APPLY_REPLY ||
	    kai_msg_queue_outcomes_decode(body, len, &o, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_QUEUE_APPLY_REPLY ? "unexpected message type"
						      : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	for (i = 0; i < n; i++)
		(void)printf("queue \"%s\" %s\n", o[i].name,
		    kai_queue_result_name(o[i].result));
	kai_queue_outcomes_free(o, n);
	return CLIENT_EXIT_OK;
}

static int
send_changes(const struct kai_queue_change *ch, size_t n)
{
	struct kai_buf b;
	int rc;

	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_queue_apply_encode(&b, ch, n) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL,
		    "request is too large to send: it passes %d bytes",
		    KAI_PROTO_BODY_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_QUEUE_APPLY, b.data, b.len,
	    on_outcomes, NULL);
	kai_buf_fini(&b);
	return rc;
}

static int
q_set(struct cmd *c)
{
	struct kai_err err;

	if (c->noperands == 0) {
		client_error(prog, NULL, "missing queue name");
		return CLIENT_EXIT_USAGE;
	}
	if (c->noperands > 1) {
		client_error(prog, NULL, "one queue at a time: unexpected "
		    "argument \"%s\"", c->operands[1]);
		return CLIENT_EXIT_USAGE;
	}
	c->ch.q.name = kai_xstrdup(c->operands[0]);
	c->ch.op = strcmp(c->verb, "create") == 0 ? KAI_QUEUE_CREATE
						  : KAI_QUEUE_UPDATE;
	kai_err_clear(&err);
	if (kai_queue_name_check(c->ch.q.name, &err) != 0 ||
	    (c->ch.op == KAI_QUEUE_CREATE &&
		kai_queue_check(&c->ch.q, &err) != 0)) {
		client_error(prog, NULL, "%s", kai_err_msg(&err));
		return CLIENT_EXIT_USAGE;
	}
	if (c->ch.op == KAI_QUEUE_UPDATE && c->ch.set == 0) {
		client_error(prog, NULL, "nothing to update: give at least one "
		    "option");
		return CLIENT_EXIT_USAGE;
	}
	return send_changes(&c->ch, 1);
}

static int
q_apply(struct cmd *c)
{
	struct kai_queue_change *ch = NULL;
	struct kai_err err;
	size_t n = 0;
	int rc;

	if (c->noperands > 0) {
		client_error(prog, NULL, "unexpected argument \"%s\"",
		    c->operands[0]);
		return CLIENT_EXIT_USAGE;
	}
	if (c->file == NULL) {
		client_error(prog, NULL, "missing -f FILE: the queues to apply");
		return CLIENT_EXIT_USAGE;
	}
	kai_err_clear(&err);
	if (kctl_queue_file(c->file, &ch, &n, &err) != 0) {
		client_error(prog, NULL, "%s", kai_err_msg(&err));
		return CLIENT_EXIT_USAGE;
	}
	rc = send_changes(ch, n);
	kai_queue_changes_free(ch, n);
	return rc;
}

static int
on_deleted(uint16_t type, const void *body, size_t len, void *ctx)
{
	const struct cmd *c = ctx;
	struct kai_err err;
	uint32_t n = 0;
	int i;

	kai_err_clear(&err);
	if (type != KAI_MSG_QUEUE_DELETE_REPLY ||
	    kai_msg_u32_decode(body, len, &n, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_QUEUE_DELETE_REPLY
			? "unexpected message type" : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	for (i = 0; i < c->noperands; i++)
		(void)printf("queue \"%s\" deleted\n", c->operands[i]);
	return CLIENT_EXIT_OK;
}

static int
q_delete(struct cmd *c)
{
	struct kai_err err;
	struct kai_buf b;
	int i, rc;

	if (c->noperands == 0) {
		client_error(prog, NULL, "missing queue name");
		return CLIENT_EXIT_USAGE;
	}
	kai_err_clear(&err);
	for (i = 0; i < c->noperands; i++)
		if (kai_queue_name_check(c->operands[i], &err) != 0) {
			client_error(prog, NULL, "%s", kai_err_msg(&err));
			return CLIENT_EXIT_USAGE;
		}
	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_queue_delete_encode(&b, c->operands,
		(size_t)c->noperands) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "too many queues to delete at once");
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_QUEUE_DELETE, b.data, b.len,
	    on_deleted, c);
	kai_buf_fini(&b);
	return rc;
}

/*
 * main
 */

static const struct verb {
	const char *name;
	const char *synopsis;
	const struct cliopt *table;
	size_t ntable;
	int (*run)(struct cmd *c);
} verbs[] = {
	{"list", "kctl queue list [--json]", list_table,
	    KAI_NELEM(list_table), q_list},
	{"create", "kctl queue create NAME [options]", set_table,
	    KAI_NELEM(set_table), q_set},
	{"update", "kctl queue update NAME [options]", set_table,
	    KAI_NELEM(set_table), q_set},
	{"delete", "kctl queue delete NAME...", plain_table,
	    KAI_NELEM(plain_table), q_delete},
	{"apply", "kctl queue apply -f FILE", apply_table,
	    KAI_NELEM(apply_table), q_apply},
};

/* A queue command, from its arguments to its exit. */
struct verb_run {
	const struct verb *v;
	struct cmd c;
};

static int
verb_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct verb_run *vr = ctx;
	int r;

	if ((r = parse_cmd(&vr->c, argc, argv, err)) == 0)
		*act = client_action_of(vr->c.help, false);
	return r;
}

static int
verb_exec(void *ctx)
{
	struct verb_run *vr = ctx;

	return vr->v->run(&vr->c);
}

static void
verb_fini(void *ctx)
{
	struct verb_run *vr = ctx;

	kai_queue_fini(&vr->c.ch.q);
}

static int
run_verb(const struct verb *v, int argc, char **argv)
{
	const char *syn[2] = {v->synopsis, NULL};
	const struct client_prog p = {prog, syn, v->table, v->ntable,
	    verb_parse, verb_exec, verb_fini};
	struct verb_run vr;

	memset(&vr, 0, sizeof(vr));
	vr.v = v;
	vr.c.verb = v->name;
	vr.c.table = v->table;
	vr.c.ntable = v->ntable;
	kai_queue_init(&vr.c.ch.q);
	return client_main(&p, &vr, argc, argv);
}

/* "kctl [-hV] queue VERB ..." */
static int
run_top(int argc, char **argv, int *first)
{
	struct cliopt_parser p;
	struct kai_err err;
	const char *arg;
	int k, rc = -1;

	kai_err_clear(&err);
	cliopt_begin(&p, top_table, KAI_NELEM(top_table), true);
	while (rc < 0 &&
	    (k = cliopt_next(&p, argc, argv, &arg, &err)) != CLIOPT_DONE) {
		if (k < 0) {
			client_error(prog, NULL, "%s", kai_err_msg(&err));
			rc = CLIENT_EXIT_USAGE;
		} else if (k == 'h') {
			cliopt_usage(stdout, top_synopsis, top_table,
			    KAI_NELEM(top_table));
			rc = CLIENT_EXIT_OK;
		} else {
			(void)printf("%s (kaibatch) %s\n", prog,
			    PACKAGE_VERSION);
			rc = CLIENT_EXIT_OK;
		}
	}
	*first = optind;
	cliopt_end(&p);
	return rc;
}

#define HINT  KCTL_HINT
#define VERBS "list, create, update, delete or apply"
#define CMDS  "show, hold, release, requeue, update or queue"

/* scontrol's verbs, or -1 when argv[0] is not one of them. */
static int
run_job_verb(int argc, char **argv)
{
	if (strcmp(argv[0], "show") == 0)
		return kctl_show(prog, argc, argv);
	if (strcmp(argv[0], "hold") == 0 || strcmp(argv[0], "release") == 0 ||
	    strcmp(argv[0], "requeue") == 0)
		return kctl_job_control(prog, argc, argv);
	if (strcmp(argv[0], "update") == 0)
		return kctl_job_update(prog, argc, argv);
	return -1;
}

int
main(int argc, char **argv)
{
	int first, rc;
	size_t i;

	if ((rc = run_top(argc, argv, &first)) >= 0)
		return rc;
	if (first >= argc) {
		client_error(prog, HINT, "missing command: expected " CMDS);
		return CLIENT_EXIT_USAGE;
	}
	if ((rc = run_job_verb(argc - first, argv + first)) >= 0)
		return rc;
	if (strcmp(argv[first], "queue") != 0) {
		client_error(prog, HINT, "unrecognized command \"%s\": "
		    "expected " CMDS, argv[first]);
		return CLIENT_EXIT_USAGE;
	}
	if (++first >= argc) {
		client_error(prog, HINT, "missing queue command: expected "
		    VERBS);
		return CLIENT_EXIT_USAGE;
	}
	for (i = 0; i < KAI_NELEM(verbs); i++)
		if (strcmp(argv[first], verbs[i].name) == 0)
			return run_verb(&verbs[i], argc - first, argv + first);
	client_error(prog, HINT, "unrecognized queue command \"%s\": "
	    "expected " VERBS, argv[first]);
	return CLIENT_EXIT_USAGE;
}
