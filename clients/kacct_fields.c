/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_fields.c: sacct's fields as kacct prints them (the common ones
 * are jobfields.c's), a -o list parsed into columns, and what --json
 * adds for accounting.
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/strconv.h"
#include "base/xmalloc.h"
#include "jobfields.h"
#include "jobquery.h"
#include "kacct_fields.h"
#include "output.h"

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
a_nnodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%" PRIu32, jobquery_nodes(j));
}

/* AllocNodes: the nodes of a job that started, 0 before. */
static void
a_alloc_nodes(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%" PRIu32,
	    j->start_time > 0 ? jobquery_nodes(j) : 0);
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
 * DerivedExitCode: the highest exit of the job's srun steps (kacct sets
 * row_usage->derived from them for a job's row); 0:0 for a job without
 * steps, as sacct prints it.
 */
static const struct kacct_usage *row_usage;

static void
a_derived_exit(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	if (row_usage != NULL && row_usage->derived)
		(void)snprintf(b, n, "%d:%d", row_usage->derived_code,
		    row_usage->derived_signal);
	else
		(void)snprintf(b, n, "0:0");
}

/*
 * row_usage (above): the usage of the row being printed.  The field
 * writers take a job record alone, and usage is no job field: kacct's
 * loop sets it for each row (kacct_fields_usage()), NULL between.
 */

void
kacct_fields_usage(const struct kacct_usage *u)
{
	row_usage = u;
}

void
kacct_cpu_text(uint64_t usec, char *b, size_t n)
{
	uint64_t s = usec / 1000000;

	if (s < 3600)
		(void)snprintf(b, n, "%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64,
		    s / 60, s % 60, usec / 1000 % 1000);
	else if (s < 86400)
		(void)snprintf(b, n, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
		    s / 3600, s / 60 % 60, s % 60);
	else
		(void)snprintf(b, n, "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64
		    ":%02" PRIu64, s / 86400, s / 3600 % 24, s / 60 % 60,
		    s % 60);
}

static void
a_total_cpu(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	if (row_usage != NULL && row_usage->cpu)
		kacct_cpu_text(row_usage->cpu_usec, b, n);
	else
		(void)snprintf(b, n, "00:00:00");
}

/* sacct's RSS: KiB with a K. */
static void
a_max_rss(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	if (row_usage != NULL && row_usage->rss)
		(void)snprintf(b, n, "%" PRIu64 "K", row_usage->max_rss_kb);
	else
		b[0] = '\0';
}

static void
a_ave_rss(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	if (row_usage != NULL && row_usage->rss)
		(void)snprintf(b, n, "%" PRIu64 "K", row_usage->ave_rss_kb);
	else
		b[0] = '\0';
}

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

/* Group: the name of the job's gid where this machine knows it. */
static void
a_group(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	const struct group *g = getgrgid((gid_t)j->gid);

	(void)now;
	if (g != NULL)
		(void)snprintf(b, n, "%s", g->gr_name);
	else
		(void)snprintf(b, n, "%u", j->gid);
}

/* Constraints: -C as written. */
static void
a_constraints(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)now;
	(void)snprintf(b, n, "%s", j->features != NULL ? j->features : "");
}

/* Suspended: kaibatch suspends no job. */
static void
a_suspended(const struct kai_jobinfo *j, int64_t now, char *b, size_t n)
{
	(void)j;
	(void)now;
	(void)snprintf(b, n, "00:00:00");
}

static const struct afield afields[] = {
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
    {"NNodes", 8, true, a_nnodes},
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
    {"AveRSS", 10, true, a_ave_rss},
    {"DerivedExitCode", 15, true, a_derived_exit},
    /* sacct's other names for the same values, and a few more */
    {"NCPUS", 10, true, a_cpus},
    {"AllocNodes", 10, true, a_alloc_nodes},
    {"Group", 9, true, a_group},
    {"GID", 6, true, jf_gid},
    {"Constraints", 19, true, a_constraints},
    {"Suspended", 10, true, a_suspended},
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
int
kacct_fields_parse(const char *list, struct columns *c, struct kai_err *err)
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

void
kacct_fields_help(void)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(afields); i++)
		(void)printf("%-14s%s", afields[i].name,
		    i % 5 == 4 || i + 1 == KAI_NELEM(afields) ? "\n" : "");
}

/*
 * kqueue's JSON keys, plus the accounting ones: alloc_gpus (a number, a
 * fraction for part of a GPU), alloc_tres and gpu_seconds as printed.
 */
void
kacct_fields_json(struct json_object *root,
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

