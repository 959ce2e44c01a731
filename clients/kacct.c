/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct: accounting data of finished and running jobs, the way sacct
 * shows it.
 *
 *	kacct [options]
 *
 * Default fields are sacct's (JobID JobName Partition Account AllocCPUS
 * State ExitCode) under a header and a dashed line; -o picks others, with
 * "Field%N" setting a width.  Values longer than their column are cut and
 * end in "+", as in sacct.  The time window follows sacct's DEFAULT TIME
 * WINDOW rules: with neither -j nor -s, midnight today until now; with -j
 * all time; with -s alone the window starts now (so give -S with -s).
 * kaibatch has no job steps: one line per job, and -X changes nothing.
 */
#include "config.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/err.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "jobfields.h"
#include "jobquery.h"
#include "kacct_report.h"
#include "output.h"
#include "slurmjson.h"
#include "slurmtime.h"

static const char *const prog = "kacct";

#define FIELDS_DEFAULT                                                         \
	"JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define FIELDS_LONG                                                            \
	"JobID,JobIDRaw,JobName,Partition,Account,User,UID,State,ExitCode,"    \
	"Submit,Start,End,Elapsed,Timelimit,AllocCPUS,AllocGPUs,ReqMem,"       \
	"NNodes,NodeList,AllocTRES,GPUSeconds,WorkDir"
#define MAX_FIELDS 64

enum {
	K_JSON = CLIOPT_LONG,
	K_NAME,
	K_HELP,
	K_REPORT,
};

static const struct cliopt table[] = {
    CLIOPT("accounts", 'A', CLIOPT_ARG, "LIST", "only jobs of these accounts"),
    CLIOPT("allocations", 'X', CLIOPT_NOARG, NULL,
	"accepted: kaibatch has no job steps"),
    CLIOPT("allusers", 'a', CLIOPT_NOARG, NULL,
	"jobs of all users (if kaid allows it)"),
    CLIOPT("endtime", 'E', CLIOPT_ARG, "TIME", "jobs submitted before TIME"),
    CLIOPT("format", 'o', CLIOPT_ARG, "FIELDS",
	"fields to show, FIELD[%WIDTH],..."),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("helpformat", 'e', CLIOPT_NOARG, NULL,
	"list the fields of --format"),
    CLIOPT("jobs", 'j', CLIOPT_ARG, "LIST", "only these job ids"),
    CLIOPT("json", K_JSON, CLIOPT_NOARG, NULL, "print JSON"),
    CLIOPT("long", 'l', CLIOPT_NOARG, NULL, "show every field"),
    CLIOPT("name", K_NAME, CLIOPT_ARG, "LIST", "only jobs with these names"),
    CLIOPT("noheader", 'n', CLIOPT_NOARG, NULL, "print no header"),
    CLIOPT("parsable", 'p', CLIOPT_NOARG, NULL,
	"fields separated by |, with a trailing |"),
    CLIOPT("parsable2", 'P', CLIOPT_NOARG, NULL,
	"fields separated by |, no trailing |"),
    CLIOPT("partition", 'r', CLIOPT_ARG, "LIST",
	"only jobs in these partitions"),
    CLIOPT("qos", 'q', CLIOPT_ARG, "LIST", "only jobs of these QoS"),
    CLIOPT("report", K_REPORT, CLIOPT_NOARG, NULL,
	"usage per partition and user over -S..-E (sreport's way)"),
    CLIOPT("starttime", 'S', CLIOPT_ARG, "TIME",
	"jobs active at or after TIME"),
    CLIOPT("state", 's', CLIOPT_ARG, "LIST",
	"only jobs in these states (codes or names)"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("user", 'u', CLIOPT_ARG, "LIST",
	"only jobs of these users (names or uids)"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {"kacct [options]", NULL};

struct opts {
	struct kai_query q;
	char **names;
	size_t nnames;
	char **accounts;
	size_t naccounts;
	char **qos; /* -q */
	size_t nqos;
	const char *format;
	const char *start, *end; /* -S, -E as given */
	bool json, noheader, help, helpformat, version, lng, report;
	enum out_mode mode;
};

/*
 * Fields
 */

/* The fields sacct prints its own way; the common ones are jobfields.c's. */

static void
a_nodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%s", j->nodelist != NULL && *j->nodelist ?
	    j->nodelist : "None assigned");
}

static void
a_exit(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%d:%d", j->exit_code, j->exit_signal);
}

/*
 * Why it ended, as the node said (the container's termination reason and
 * message: "OOMKilled", "Error: <its last log lines>"), else kaid's
 * reason (a pending job's, "cancelled by user", ...).
 */
static void
a_reason(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%s", j->exit_reason != NULL &&
	    *j->exit_reason != '\0' ? j->exit_reason :
	    j->reason != NULL ? j->reason : "");
}

static void
a_elapsed(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	(void)snprintf(b, n, "%s",
	    out_elapsed_sacct(jobquery_elapsed(j, now), t));
}

static void
a_elapsed_raw(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)snprintf(b, n, "%" PRId64, jobquery_elapsed(j, now));
}

#define TIME_AFIELD(fn, field)                                                 \
	static void fn(const struct kai_jobinfo *j, int64_t now, char *b,      \
	    size_t n)                                                          \
	{                                                                      \
		char t[OUT_TIME_LEN];                                          \
		(void)now;                                                     \
		(void)snprintf(b, n, "%s", out_timestamp(j->field, t));        \
	}

TIME_AFIELD(a_submit, submit_time)
TIME_AFIELD(a_start, start_time)
TIME_AFIELD(a_end, end_time)

static void
a_limit(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	(void)now;
	(void)snprintf(b, n, "%s", out_limit(j->time_limit_s, true, t));
}

/*
 * Allocations exist only once a job has started, and are those of the
 * tasks that ran: an elastic job (--min-tasks) may run fewer than asked.
 */
static uint64_t
alloc_share(const struct kai_jobinfo *j, uint64_t all)
{
	uint32_t n = j->ntasks > 0 ? j->ntasks : 1;

	if (j->start_time == 0)
		return 0;
	if (j->tasks_run == 0 || j->tasks_run >= n)
		return all;
	return all / n * j->tasks_run;
}

static void
a_cpus(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%" PRIu64, alloc_share(j, jobquery_cpus(j)));
}

/* Micro-GPUs as GPUs: "2", "0.5", "1.25"; at most six decimals. */
static void
gpu_text(uint64_t micro, char *b, size_t n)
{
	char frac[8];
	size_t len;

	if (micro % KAI_GPU_MICRO == 0) {
		(void)snprintf(b, n, "%" PRIu64, micro / KAI_GPU_MICRO);
		return;
	}
	(void)snprintf(frac, sizeof(frac), "%06" PRIu64,
	    micro % KAI_GPU_MICRO);
	for (len = strlen(frac); len > 0 && frac[len - 1] == '0'; len--)
		frac[len - 1] = '\0';
	(void)snprintf(b, n, "%" PRIu64 ".%s", micro / KAI_GPU_MICRO, frac);
}

static uint64_t
alloc_gpu_micro(const struct kai_jobinfo *j)
{
	return j->start_time > 0 ? j->gpu_micro : 0;
}

static void
a_gpus(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	gpu_text(alloc_gpu_micro(j), b, n);
}

/* Elapsed seconds x GPUs held, fractions counting, rounded to a second. */
static void
a_gpu_seconds(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	uint64_t e = (uint64_t)jobquery_elapsed(j, now);
	uint64_t g = alloc_gpu_micro(j);

	/* e * g would overflow only past 584,000 GPU-years: split it. */
	(void)snprintf(b, n, "%" PRIu64, e * (g / KAI_GPU_MICRO) +
	    (e * (g % KAI_GPU_MICRO) + KAI_GPU_MICRO / 2) / KAI_GPU_MICRO);
}

/* Distinct nodes of the allocation (kaid's node list has no repeats). */
static unsigned
alloc_nodes(const struct kai_jobinfo *j)
{
	const char *p = j->nodelist;
	unsigned count = 1;

	if (p == NULL || *p == '\0')
		return j->ntasks > 0 ? j->ntasks : 1;
	for (; *p != '\0'; p++)
		count += *p == ',';
	return count;
}

/*
 * sacct's AllocTRES: billing=4,cpu=4,gres/gpu=2,mem=16G,node=1, keys in
 * sacct's order; billing is the cores (Slurm's default weights), gres/gpu
 * is left out without GPUs and may be a fraction (gres/gpu=0.5); mem is
 * the job's total.  Empty before the job starts, as in sacct.
 */
static void
a_tres(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char gpus[32], gres[48] = "", mem[32];
	uint64_t cpus = jobquery_cpus(j);

	(void)now;
	if (j->start_time <= 0) {
		(void)snprintf(b, n, "%s", "");
		return;
	}
	if (j->gpu_micro > 0) {
		gpu_text(j->gpu_micro, gpus, sizeof(gpus));
		(void)snprintf(gres, sizeof(gres), "gres/gpu=%s,", gpus);
	}
	(void)jobquery_mem((uint64_t)(j->ntasks > 0 ? j->ntasks : 1) *
	    j->mem_mb, mem, sizeof(mem));
	(void)snprintf(b, n, "billing=%" PRIu64 ",cpu=%" PRIu64
	    ",%smem=%s,node=%u", cpus, cpus, gres, mem, alloc_nodes(j));
}

static void
a_ntasks(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%u", j->ntasks > 0 ? j->ntasks : 1);
}

static void
a_mem(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)jobquery_mem(j->mem_mb, b, n);
}

static void
a_req_cpus(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%" PRIu64, jobquery_cpus(j));
}

static void
a_prio(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%u", j->priority);
}

/* CPU time reserved: elapsed x AllocCPUS (sacct's CPUTime/CPUTimeRAW). */
static int64_t
cpu_seconds(const struct kai_jobinfo *j, int64_t now)
{
	return jobquery_elapsed(j, now) *
	    (int64_t)alloc_share(j, jobquery_cpus(j));
}

static void
a_cputime(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char t[OUT_TIME_LEN];

	(void)snprintf(b, n, "%s", out_elapsed_sacct(cpu_seconds(j, now), t));
}

static void
a_cputime_raw(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)snprintf(b, n, "%" PRId64, cpu_seconds(j, now));
}

/*
 * What sacct prints for a job with no steps: kaibatch runs no srun steps,
 * so DerivedExitCode (the highest step exit) is 0:0, TotalCPU (the steps'
 * measured CPU) 00:00:00 and MaxRSS (a step's peak) empty.
 */
#define A_CONST(fn, text)                                                      \
	static void fn(const struct kai_jobinfo *j, int64_t now, char *b,      \
	    size_t n)                                                          \
	{                                                                      \
		(void)j;                                                       \
		(void)now;                                                     \
		(void)snprintf(b, n, "%s", text);                              \
	}

A_CONST(a_derived_exit, "0:0")
A_CONST(a_total_cpu, "00:00:00")
A_CONST(a_max_rss, "")

/*
 * sacct's ReqTRES: what was asked, known from submission on (AllocTRES
 * is empty until the start): billing, cpu, gres/gpu, mem, node=1.
 */
static void
a_req_tres(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	char gres[48] = "", mem[32];
	uint64_t cpus = jobquery_cpus(j), gpus = jobquery_gpus(j);

	(void)now;
	if (gpus > 0)
		(void)snprintf(gres, sizeof(gres), "gres/gpu=%" PRIu64 ",",
		    gpus);
	(void)jobquery_mem((uint64_t)(j->ntasks > 0 ? j->ntasks : 1) *
	    j->mem_mb, mem, sizeof(mem));
	(void)snprintf(b, n, "billing=%" PRIu64 ",cpu=%" PRIu64
	    ",%smem=%s,node=1", cpus, cpus, gres, mem);
}

static const struct afield {
	const char *name;
	int width;
	bool right;
	jobfield_fn *fn;
} afields[] = {
    {"JobID", 12, false, jf_id},
    {"JobIDRaw", 12, false, jf_id_raw},
    {"JobName", 10, true, jf_name},
    {"Partition", 10, true, jf_queue},
    {"Account", 10, true, jf_account},
    {"User", 9, true, jf_user},
    {"UID", 6, true, jf_uid},
    {"State", 10, true, jf_state},
    {"ExitCode", 8, true, a_exit},
    {"Elapsed", 10, true, a_elapsed},
    {"ElapsedRaw", 10, true, a_elapsed_raw},
    {"Submit", 19, true, a_submit},
    {"Start", 19, true, a_start},
    {"End", 19, true, a_end},
    {"Timelimit", 10, true, a_limit},
    {"AllocCPUS", 10, true, a_cpus},
    {"AllocGPUs", 9, true, a_gpus},
    {"AllocTRES", 40, false, a_tres},
    {"GPUSeconds", 10, true, a_gpu_seconds},
    {"NNodes", 8, true, a_ntasks},
    {"NodeList", 15, false, a_nodes},
    {"ReqMem", 10, true, a_mem},
    {"WorkDir", 30, false, jf_workdir},
    {"Reason", 30, false, a_reason},
    {"ReqCPUS", 8, true, a_req_cpus},
    {"ReqTRES", 40, false, a_req_tres},
    {"NTasks", 8, true, a_ntasks},
    {"QOS", 10, true, jf_qos},
    {"Priority", 10, true, a_prio},
    {"CPUTime", 10, true, a_cputime},
    {"CPUTimeRAW", 10, true, a_cputime_raw},
    {"TotalCPU", 10, true, a_total_cpu},
    {"MaxRSS", 10, true, a_max_rss},
    {"DerivedExitCode", 15, true, a_derived_exit},
};

struct columns {
	struct out_col cols[MAX_FIELDS];
	const struct afield *f[MAX_FIELDS];
	size_t n;
};

static const struct afield *
afield_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(afields); i++)
		if (strlen(afields[i].name) == len &&
		    strncasecmp(afields[i].name, name, len) == 0)
			return &afields[i];
	return NULL;
}

/* "JobID,JobName%30,state": names in any case, %N sets the width. */
static int
parse_fields(const char *list, struct columns *c, struct kai_err *err)
{
	const char *p = list, *end, *pct;
	const struct afield *f;
	int64_t width;
	char num[16];
	size_t len;

	for (c->n = 0; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = p + strcspn(p, ",");
		pct = memchr(p, '%', (size_t)(end - p));
		len = (size_t)((pct != NULL ? pct : end) - p);
		if ((f = afield_find(p, len)) == NULL) {
			(void)kai_err_set(err, KAI_EINVAL,
			    "invalid field \"%.*s\"", (int)len, p);
			kai_err_hint(err, "\"kacct -e\" lists the fields.");
			return KAI_EINVAL;
		}
		if (c->n == MAX_FIELDS)
			return kai_err_set(err, KAI_EINVAL,
			    "too many fields in \"%s\" (limit %d)", list,
			    MAX_FIELDS);
		width = f->width;
		if (pct != NULL) {
			len = (size_t)(end - pct - 1);
			if (len == 0 || len >= sizeof(num))
				return kai_err_set(err, KAI_EINVAL,
				    "invalid width in \"%.*s\"", (int)(end - p),
				    p);
			memcpy(num, pct + 1, len);
			num[len] = '\0';
			if (kai_strtoi64(num, 1, 1000, &width, "width", NULL) !=
			    0)
				return kai_err_set(err, KAI_EINVAL,
				    "invalid width in \"%.*s\"", (int)(end - p),
				    p);
		}
		c->f[c->n] = f;
		c->cols[c->n].header = f->name;
		c->cols[c->n].width = (int)width;
		c->cols[c->n].right = f->right;
		c->n++;
	}
	return 0;
}

static void
print_helpformat(void)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(afields); i++)
		(void)printf("%-14s%s", afields[i].name,
		    i % 5 == 4 || i + 1 == KAI_NELEM(afields) ? "\n" : "");
}

/*
 * Options
 */

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;

	switch (c) {
	case 'A':
		return filter_parse_names("account", arg, &o->accounts,
		    &o->naccounts, err);
	case 'q':
		return filter_parse_names("QoS", arg, &o->qos, &o->nqos, err);
	case 'a':
		o->q.flags |= KAI_QUERY_ALL_USERS;
		return 0;
	case 'E':
		o->end = arg;
		return 0;
	case 'e':
		o->helpformat = true;
		return 0;
	case 'h':
	case K_HELP:
		o->help = true;
		return 0;
	case 'j':
		return filter_parse_ids(arg, &o->q.ids, &o->q.nids, err);
	case 'l':
		o->lng = true;
		return 0;
	case 'n':
		o->noheader = true;
		return 0;
	case 'o':
		o->format = arg;
		return 0;
	case 'p':
		o->mode = OUT_MODE_PARSABLE;
		return 0;
	case 'P':
		o->mode = OUT_MODE_PARSABLE2;
		return 0;
	case 'r':
		return filter_parse_names("partition", arg, &o->q.queues,
		    &o->q.nqueues, err);
	case 'S':
		o->start = arg;
		return 0;
	case 's':
		return filter_parse_states(arg, &o->q.state_mask, err);
	case 'u':
		return filter_parse_users(arg, &o->q.uids, &o->q.nuids, err);
	case 'V':
		o->version = true;
		return 0;
	case 'X':
		return 0;
	case K_JSON:
		o->json = true;
		return 0;
	case K_NAME:
		return filter_parse_names("job name", arg, &o->names,
		    &o->nnames, err);
	case K_REPORT:
		o->report = true;
		return 0;
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", c);
	}
}

/*
 * --report: sreport's period, yesterday (midnight to midnight) unless -S
 * and -E say otherwise; the options that pick jobs, not rows, are refused.
 */
static int
report_window(struct opts *o, int64_t midnight, struct kai_err *err)
{
	const char *bad = o->q.nids > 0 ? "--jobs" :
	    o->q.state_mask != 0 ? "--state" : o->nnames > 0 ? "--name" :
	    o->naccounts > 0 ? "--accounts" : o->nqos > 0 ? "--qos" :
	    o->format != NULL ? "--format" :
	    o->lng ? "--long" : NULL;

	if (bad != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "option \"%s\" does not go with \"--report\"", bad);
	o->q.start = midnight - 86400;
	o->q.end = midnight;
	return 0;
}

/* sacct's DEFAULT TIME WINDOW (or --report's), with -S/-E on top. */
static int
set_window(struct opts *o, int64_t now, struct kai_err *err)
{
	char a[OUT_TIME_LEN], b[OUT_TIME_LEN];
	int64_t midnight;

	if (slurmtime_parse("midnight", now, &midnight, err) != 0)
		return KAI_EINVAL;
	if (o->report) {
		if (report_window(o, midnight, err) != 0)
			return KAI_EINVAL;
	} else if (o->q.nids > 0)
		o->q.start = 0;
	else if (o->q.state_mask != 0)
		o->q.start = now;
	else
		o->q.start = midnight;
	if (!o->report)
		o->q.end = now;
	if (o->start != NULL &&
	    slurmtime_parse(o->start, now, &o->q.start, err) != 0)
		return kai_err_prefix(err, "option \"--starttime\"");
	if (o->end != NULL && slurmtime_parse(o->end, now, &o->q.end, err) != 0)
		return kai_err_prefix(err, "option \"--endtime\"");
	if (o->q.end < o->q.start || (o->report && o->q.end == o->q.start))
		return kai_err_set(err, KAI_EINVAL,
		    "start time %s is %s end time %s", out_timestamp(o->q.start,
		    a), o->report ? "not before" : "after",
		    out_timestamp(o->q.end, b));
	return 0;
}

static int
parse_args(struct opts *o, int argc, char **argv, int64_t now,
    struct kai_err *err)
{
	int r = cliopt_parse(table, KAI_NELEM(table), argc, argv, set_opt,
	    NULL, o, err);

	return r != 0 ? r : set_window(o, now, err);
}

/*
 * Output
 */

static int
cmp_id(const void *a, const void *b)
{
	const struct kai_jobinfo *x = *(const struct kai_jobinfo *const *)a;
	const struct kai_jobinfo *y = *(const struct kai_jobinfo *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void
print_table(const struct opts *o, const struct columns *c,
    const struct kai_jobinfo *const *v, size_t n, int64_t now)
{
	struct out_table t;
	char buf[4096];
	size_t i, k;

	out_table_init(&t, stdout, c->cols, c->n, o->mode, OUT_TRUNC_PLUS);
	if (!o->noheader)
		out_table_header(&t, true);
	for (i = 0; i < n; i++) {
		for (k = 0; k < c->n; k++) {
			c->f[k]->fn(v[i], now, buf, sizeof(buf));
			out_table_cell(&t, buf);
		}
		out_table_end_row(&t);
	}
}

/*
 * kqueue's JSON keys, plus the accounting ones: alloc_gpus (a number, a
 * fraction for part of a GPU), alloc_tres and gpu_seconds as printed.
 */
static void
add_json_accounting(struct json_object *root,
    const struct kai_jobinfo *const *v, size_t n, int64_t now)
{
	struct json_object *arr, *j;
	char buf[256];
	size_t i;

	if (!json_object_object_get_ex(root, "jobs", &arr))
		return;
	for (i = 0; i < n; i++) {
		j = json_object_array_get_idx(arr, i);
		(void)json_object_object_add(j, "alloc_gpus",
		    json_object_new_double((double)alloc_gpu_micro(v[i]) /
		    KAI_GPU_MICRO));
		a_tres(v[i], now, buf, sizeof(buf));
		out_json_add_str(j, "alloc_tres", buf);
		a_gpu_seconds(v[i], now, buf, sizeof(buf));
		out_json_add_int(j, "gpu_seconds", strtoll(buf, NULL, 10));
	}
}

static int
show(const struct opts *o, const struct columns *c, struct kai_jobinfo *jobs,
    size_t n, int64_t now)
{
	const struct kai_jobinfo **v;
	struct json_object *root;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (!filter_match_name(o->names, o->nnames, jobs[i].name) ||
		    !filter_match_name(o->accounts, o->naccounts,
			jobs[i].account) ||
		    !filter_match_name(o->qos, o->nqos, jobs[i].qos)) {
			kai_jobinfo_fini(&jobs[i]);
			continue;
		}
		jobs[k++] = jobs[i];
	}
	v = jobquery_sorted(jobs, k, cmp_id);
	if (o->json) {
		root = slurmjson_jobs(SLURMJSON_SACCT, v, k, now);
		add_json_accounting(root, v, k, now);
		out_json_print(stdout, root);
		(void)json_object_put(root);
	} else {
		print_table(o, c, v, k, now);
	}
	free(v);
	jobquery_free(jobs, k);
	return fflush(stdout) == 0 && !ferror(stdout) ? CLIENT_EXIT_OK
						      : CLIENT_EXIT_REFUSED;
}

static int
run(struct opts *o, const struct columns *c, int64_t now)
{
	struct kai_jobinfo *jobs = NULL;
	size_t n = 0;
	int rc;

	o->q.flags |= KAI_QUERY_HISTORY;
	if ((rc = jobquery_run(prog, &o->q, &jobs, &n)) != CLIENT_EXIT_OK)
		return rc;
	return show(o, c, jobs, n, now);
}

static int
run_report(const struct opts *o)
{
	struct kacct_report r;

	memset(&r, 0, sizeof(r));
	r.start = o->q.start;
	r.end = o->q.end;
	r.uids = o->q.uids;
	r.nuids = o->q.nuids;
	r.queues = o->q.queues;
	r.nqueues = o->q.nqueues;
	r.mode = o->mode;
	r.json = o->json;
	r.noheader = o->noheader;
	return kacct_report_run(prog, &r);
}

/* kacct's state, from its command line to its exit. */
struct kacct {
	struct opts o;
	struct columns c;
	int64_t now;
};

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct kacct *k = ctx;
	int r;

	if ((r = parse_args(&k->o, argc, argv, k->now, err)) != 0 ||
	    (r = parse_fields(k->o.format != NULL ? k->o.format
		    : k->o.lng                  ? FIELDS_LONG
						: FIELDS_DEFAULT,
		 &k->c, err)) != 0)
		return r;
	/* --helpformat, like -h, comes before -V */
	*act = client_action_of(k->o.help, k->o.version && !k->o.helpformat);
	return 0;
}

static int
main_run(void *ctx)
{
	struct kacct *k = ctx;

	if (k->o.helpformat) {
		print_helpformat();
		return CLIENT_EXIT_OK;
	}
	return k->o.report ? run_report(&k->o) : run(&k->o, &k->c, k->now);
}

static void
main_fini(void *ctx)
{
	struct kacct *k = ctx;

	kai_query_fini(&k->o.q);
	filter_free_names(k->o.names, k->o.nnames);
	filter_free_names(k->o.accounts, k->o.naccounts);
	filter_free_names(k->o.qos, k->o.nqos);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, main_fini};
	struct kacct k;

	memset(&k, 0, sizeof(k));
	k.now = (int64_t)time(NULL);
	return client_main(&p, &k, argc, argv);
}
