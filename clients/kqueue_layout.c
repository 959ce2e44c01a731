/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kqueue_layout.c: kqueue's output line.  The squeue fields kqueue
 * knows, each a letter of -o and a name of -O with its header and the
 * function that writes it; a format parsed into a layout of fields and
 * literal text; a job (or the header) printed by a layout.
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
#include "model/jobstate.h"
#include "model/nodelists.h"
#include "jobfields.h"
#include "jobquery.h"
#include "kqueue_layout.h"
#include "output.h"

#define FIELD_WIDTH_MAX 1024

/*
 * Fields
 */

#define STR_FIELD(fn, expr)                                                    \
	static void fn(const struct kai_jobinfo *j, int64_t now, char *b,      \
	    size_t n)                                                          \
	{                                                                      \
		const char *s = (expr);                                        \
		(void)now;                                                     \
		out_copy(b, n, s);                                             \
	}

STR_FIELD(f_code, kai_jobstate_code(j->state))
STR_FIELD(f_nodes, j->nodelist)
STR_FIELD(f_reason, j->reason != NULL && *j->reason ? j->reason : "None")
/* -C as written; squeue's "(null)" when none */
STR_FIELD(f_features,
    j->features != NULL && *j->features ? j->features : "(null)")

/* -w (%n, ReqNodes) and -x (%x, ExcNodes) as written; "" when none */
static void
f_nodereq(const struct kai_jobinfo *j, enum kai_node_req_part part, char *b,
    size_t n)
{
	char t[KAI_JOB_NODE_REQ_MAX + 1];

	out_copy(b, n, kai_node_req_text(j->node_req, part, t, sizeof(t)));
}

static void
f_reqnodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	f_nodereq(j, KAI_NODE_REQ_ONLY, b, n);
}

static void
f_excnodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	f_nodereq(j, KAI_NODE_REQ_NEVER, b, n);
}

static void
f_used(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	out_copy(b, n, out_elapsed_squeue(jobquery_elapsed(j, now), t));
}

static void
f_limit(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	(void)now;
	out_copy(b, n, out_limit(j->time_limit_s, false, t));
}

static void
f_ntasks(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->ntasks > 0 ? j->ntasks : 1);
}

static void
f_reasonlist(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	const char *r = j->reason != NULL && *j->reason ? j->reason : "None";
	size_t len;

	if (j->state != KAI_JOB_PENDING && j->nodelist != NULL &&
	    *j->nodelist != '\0') {
		out_copy(b, n, j->nodelist);
		return;
	}
	/* "(reason)" without printf: this is every line of a kqueue */
	if (n < 3) {
		out_copy(b, n, "");
		return;
	}
	b[0] = '(';
	out_copy(b + 1, n - 2, r);
	len = strlen(b);
	b[len] = ')';
	b[len + 1] = '\0';
}

static void
f_prio(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, j->priority);
}

/* A pending job's start is the scheduler's estimate (--start). */
static void
f_start(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];
	int64_t s = j->state == KAI_JOB_PENDING ? j->est_start : j->start_time;

	(void)now;
	out_copy(b, n, s > 0 ? out_timestamp(s, t) : "N/A");
}

/* squeue's SCHEDNODES: kaid does not say where a job would go. */
static void
f_schednodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	out_copy(b, n, "(null)");
}

static void
f_submit(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	(void)now;
	out_copy(b, n, out_timestamp(j->submit_time, t));
}

static void
f_cpus(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, jobquery_cpus(j));
}

static void
f_mem(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)jobquery_mem(j->mem_mb, b, n);
}

static void
f_gpus(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	out_u64(b, n, jobquery_gpus(j));
}

/* squeue's %p: the priority as a fraction of the largest, "%16.14f". */
static void
f_prio_float(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%16.14f", (double)j->priority / 4294967295.0);
}

/*
 * The squeue letters for what ksubmit ignores (--comment,
 * --nodelist, --exclude, --contiguous, --reservation, --nice, -B) and
 * kaid therefore never has: each prints what squeue prints for a job
 * submitted without the option.
 */
#define CONST_FIELD(fn, text)                                                  \
	static void fn(const struct kai_jobinfo *j, int64_t now, char *b,      \
	    size_t n)                                                          \
	{                                                                      \
		(void)j;                                                       \
		(void)now;                                                     \
		out_copy(b, n, text);                                          \
	}

CONST_FIELD(f_null, "(null)")
CONST_FIELD(f_zero, "0")
CONST_FIELD(f_sct, "*:*:*")

static const struct field {
	char c;            /* -o letter */
	const char *oname; /* -O name */
	const char *header;
	jobfield_fn *fn;
} fields[] = {
    {'i', "JobID", "JOBID", jf_id},
    {'A', "JobArrayID", "JOBID", jf_id_raw},
    {'j', "Name", "NAME", jf_name},
    {'u', "UserName", "USER", jf_user},
    {'T', "State", "STATE", jf_state},
    {'t', "StateCompact", "ST", f_code},
    {'M', "TimeUsed", "TIME", f_used},
    {'l', "TimeLimit", "TIME_LIMIT", f_limit},
    {'D', "NumNodes", "NODES", f_ntasks},
    {'R', "ReasonList", "NODELIST(REASON)", f_reasonlist},
    {'P', "Partition", "PARTITION", jf_queue},
    {'a', "Account", "ACCOUNT", jf_account},
    {'Q', "PriorityLong", "PRIORITY", f_prio},
    {'p', "Priority", "PRIORITY", f_prio_float},
    {'q', "QOS", "QOS", jf_qos},
    {'E', "Dependency", "DEPENDENCY", jf_dependency},
    {'k', "Comment", "COMMENT", f_null},
    {'n', "ReqNodes", "REQ_NODES", f_reqnodes},
    {'x', "ExcNodes", "EXC_NODES", f_excnodes},
    {'f', "Feature", "FEATURES", f_features},
    {'O', "Contiguous", "CONTIGUOUS", f_zero},
    {'v', "Reservation", "RESERVATION", f_null},
    {'y', "Nice", "NICE", f_zero},
    {'z', "SCT", "S:C:T", f_sct},
    {'S', "StartTime", "START_TIME", f_start},
    {'V', "SubmitTime", "SUBMIT_TIME", f_submit},
    {'C', "NumCPUs", "CPUS", f_cpus},
    {'m', "MinMemory", "MIN_MEMORY", f_mem},
    {'b', "Gpus", "GPUS", f_gpus},
    {'N', "NodeList", "NODELIST", f_nodes},
    {'r', "Reason", "REASON", f_reason},
    {'Z', "WorkDir", "WORK_DIR", jf_workdir},
    {'Y', "SchedNodes", "SCHEDNODES", f_schednodes},
    {'L', "TimeLeft", "TIME_LEFT", jf_time_left},
    {'e', "EndTime", "END_TIME", jf_end},
    {'c', "MinCpus", "MIN_CPUS", jf_cpus_per_task},
    {'F', "ArrayJobID", "ARRAY_JOB_ID", jf_array_job},
    {'K', "ArrayTaskID", "ARRAY_TASK_ID", jf_array_task},
    {'U', "UserID", "UID", jf_uid},
    {'G', "GroupID", "GROUP", jf_gid},
    /* -O only: squeue has no letter for these */
    {0, "NumTasks", "TASKS", f_ntasks},
    {0, "cpus-per-task", "CPUS_PER_TASK", jf_cpus_per_task},
    {0, "tres-per-task", "TRES_PER_TASK", jf_tres_task},
    {0, "tres-per-node", "TRES_PER_NODE", jf_tres_node},
    {0, "PendingTime", "PENDING_TIME", jf_pending_time},
};

/* One piece of the output line: a field, or literal text when f == NULL. */
struct seg {
	const struct field *f;
	int width; /* 0 = natural */
	bool right;
	char *text; /* literal text, owned */
	size_t tlen;
};


static void
layout_add(struct layout *l, const struct field *f, int width, bool right,
    const char *text, size_t tlen)
{
	struct seg *s;

	l->segs = kai_xreallocarray(l->segs, l->n + 1, sizeof(*l->segs));
	s = &l->segs[l->n++];
	s->f = f;
	s->width = width;
	s->right = right;
	s->text = text != NULL ? kai_xstrndup(text, tlen) : NULL;
	s->tlen = text != NULL ? strlen(s->text) : 0;
}

void
kqueue_layout_free(struct layout *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->segs[i].text);
	free(l->segs);
	l->segs = NULL;
	l->n = 0;
}

static const struct field *
field_by_letter(char c)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(fields); i++)
		if (fields[i].c != 0 && fields[i].c == c)
			return &fields[i];
	return NULL;
}

/* "%[.][width]X" and literal text, as squeue -o reads it. */
int
kqueue_layout_format(const char *fmt, struct layout *l, struct kai_err *err)
{
	const char *p = fmt, *lit;
	const struct field *f;
	bool right;
	int width;

	while (*p != '\0') {
		lit = p;
		while (*p != '\0' && *p != '%')
			p++;
		if (p > lit)
			layout_add(l, NULL, 0, false, lit, (size_t)(p - lit));
		if (*p == '\0')
			break;
		p++;
		/* "." right-justifies; "-" (left, the default) is accepted */
		right = *p == '.';
		p += right || *p == '-';
		for (width = 0; isdigit((unsigned char)*p); p++)
			if ((width = width * 10 + (*p - '0')) > FIELD_WIDTH_MAX)
				return kai_err_set(err, KAI_EINVAL,
				    "invalid format \"%s\": field width "
				    "above %d", fmt, FIELD_WIDTH_MAX);
		if (*p == '%') {
			layout_add(l, NULL, 0, false, "%", 1);
			p++;
			continue;
		}
		if (*p == '\0' || (f = field_by_letter(*p)) == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid format \"%s\": unrecognized field \"%%%.1s\"",
			    fmt, p);
		layout_add(l, f, width, right, NULL, 0);
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
	layout_add(ctx, f, width, right, NULL, 0);
}

/* "JobID,UserName:10,State:.8": squeue -O, 20 wide by default. */
int
kqueue_layout_Format(const char *fmt, struct layout *l, struct kai_err *err)
{
	return out_format_list(fmt, 20, FIELD_WIDTH_MAX, field_by_name,
	    add_named, l, err);
}

/*
 * Output
 */

void
kqueue_layout_print(const struct layout *l, const struct kai_jobinfo *j,
    int64_t now)
{
	static struct out_line ln;
	char buf[4096];
	const struct seg *s;
	size_t i;

	out_line_begin(&ln);
	for (i = 0; i < l->n; i++) {
		s = &l->segs[i];
		if (s->f == NULL) {
			out_line_put(&ln, s->text, s->tlen);
			continue;
		}
		if (j != NULL)
			s->f->fn(j, now, buf, sizeof(buf));
		out_line_cell(&ln, j != NULL ? buf : s->f->header, s->width,
		    s->right);
	}
	out_line_end(&ln, stdout);
}

