/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_report.c: kacct --report, one row per (partition, user) over a
 * period: how many jobs ran or ended in it, how they ended, and the
 * core-hours and GPU-hours they used inside it, as sreport's cluster
 * utilization reports count (only the part of a run inside the period).
 * kaid adds the rows up in PostgreSQL (KAI_MSG_REPORT); this file only
 * asks and prints: a table under a title with a TOTAL row, -P/-p rows
 * without the total, or --json.
 */
#include "config.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "client.h"
#include "kacct_report.h"
#include "proto/proto.h"
#include "proto/proto_report.h"

static const char dashes[] =
    "----------------------------------------"
    "----------------------------------------";

struct answer {
	const char *prog;
	struct kai_report_row *v;
	size_t n;
};

static const struct out_col cols[] = {
    {"Partition", 10, false}, {"User", 10, false}, {"Jobs", 8, true},
    {"Completed", 9, true}, {"Failed", 8, true}, {"Cancelled", 9, true},
    {"Timeout", 8, true}, {"Preempted", 9, true}, {"Running", 8, true},
    {"CPUHours", 12, true}, {"GPUHours", 12, true},
};

static int
on_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct answer *a = ctx;
	struct kai_err err;

	kai_err_clear(&err);
	if (type != KAI_MSG_REPORT_REPLY ||
	    kai_msg_report_decode(body, len, &a->v, &a->n, &err) != 0) {
		client_error(a->prog, NULL, "invalid reply from kaid: %s",
		    type != KAI_MSG_REPORT_REPLY ? "unexpected message type"
						 : kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

static void
add_up(struct kai_report_row *t, const struct kai_report_row *r)
{
	t->jobs += r->jobs;
	t->completed += r->completed;
	t->failed += r->failed;
	t->cancelled += r->cancelled;
	t->timeout += r->timeout;
	t->preempted += r->preempted;
	t->running += r->running;
	t->cpu_s += r->cpu_s;
	t->gpu_ms += r->gpu_ms;
}

static void
print_row(struct out_table *t, const struct kai_report_row *r)
{
	out_table_cell(t, r->queue != NULL ? r->queue : "");
	out_table_cell(t, r->user != NULL ? r->user : "");
	out_table_cellf(t, "%" PRIu64, r->jobs);
	out_table_cellf(t, "%" PRIu64, r->completed);
	out_table_cellf(t, "%" PRIu64, r->failed);
	out_table_cellf(t, "%" PRIu64, r->cancelled);
	out_table_cellf(t, "%" PRIu64, r->timeout);
	out_table_cellf(t, "%" PRIu64, r->preempted);
	out_table_cellf(t, "%" PRIu64, r->running);
	out_table_cellf(t, "%.2f", (double)r->cpu_s / 3600.0);
	out_table_cellf(t, "%.2f", (double)r->gpu_ms / 3600000.0);
	out_table_end_row(t);
}

static void
print_table(const struct kacct_report *o, const struct answer *a)
{
	struct kai_report_row total;
	char s[OUT_TIME_LEN], e[OUT_TIME_LEN];
	struct out_table t;
	size_t i;

	memset(&total, 0, sizeof(total));
	total.queue = (char *)"TOTAL";
	if (o->mode == OUT_MODE_TABLE && !o->noheader)
		(void)printf("%s\nJob usage by partition and user %s - %s "
		    "(%" PRId64 " secs)\n%s\n", dashes,
		    out_timestamp(o->start, s), out_timestamp(o->end, e),
		    o->end - o->start, dashes);
	out_table_init(&t, stdout, cols, KAI_NELEM(cols), o->mode,
	    OUT_TRUNC_PLUS);
	if (!o->noheader)
		out_table_header(&t, true);
	for (i = 0; i < a->n; i++) {
		print_row(&t, &a->v[i]);
		add_up(&total, &a->v[i]);
	}
	if (o->mode == OUT_MODE_TABLE)
		print_row(&t, &total);
}

static struct json_object *
row_json(const struct kai_report_row *r)
{
	struct json_object *j = json_object_new_object();

	if (r->queue != NULL)
		out_json_add_str(j, "partition", r->queue);
	if (r->user != NULL) {
		out_json_add_str(j, "user", r->user);
		out_json_add_int(j, "uid", r->uid);
	}
	out_json_add_int(j, "jobs", (int64_t)r->jobs);
	out_json_add_int(j, "completed", (int64_t)r->completed);
	out_json_add_int(j, "failed", (int64_t)r->failed);
	out_json_add_int(j, "cancelled", (int64_t)r->cancelled);
	out_json_add_int(j, "timeout", (int64_t)r->timeout);
	out_json_add_int(j, "preempted", (int64_t)r->preempted);
	out_json_add_int(j, "running", (int64_t)r->running);
	out_json_add_int(j, "cpu_seconds", r->cpu_s);
	json_object_object_add(j, "gpu_seconds",
	    json_object_new_double((double)r->gpu_ms / 1000.0));
	return j;
}

static void
print_json(const struct kacct_report *o, const struct answer *a)
{
	struct json_object *root = json_object_new_object();
	struct json_object *rows = json_object_new_array();
	struct kai_report_row total;
	size_t i;

	memset(&total, 0, sizeof(total));
	out_json_add_int(root, "start", o->start);
	out_json_add_int(root, "end", o->end);
	for (i = 0; i < a->n; i++) {
		json_object_array_add(rows, row_json(&a->v[i]));
		add_up(&total, &a->v[i]);
	}
	json_object_object_add(root, "rows", rows);
	json_object_object_add(root, "totals", row_json(&total));
	out_json_print(stdout, root);
	(void)json_object_put(root);
}

int
kacct_report_run(const char *prog, const struct kacct_report *o)
{
	struct kai_report_req q;
	struct answer a = {prog, NULL, 0};
	struct kai_buf b;
	int rc;

	memset(&q, 0, sizeof(q));
	q.start = o->start;
	q.end = o->end;
	q.uids = o->uids;
	q.nuids = o->nuids;
	q.queues = o->queues;
	q.nqueues = o->nqueues;
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_report_req_encode(&b, &q) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL, "request is too large to send");
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_REPORT, b.data, b.len, on_reply, &a);
	kai_buf_fini(&b);
	if (rc == CLIENT_EXIT_OK) {
		if (o->json)
			print_json(o, &a);
		else
			print_table(o, &a);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			client_error(prog, NULL, "could not write the output");
			rc = CLIENT_EXIT_REFUSED;
		}
	}
	kai_report_rows_free(a.v, a.n);
	return rc;
}
