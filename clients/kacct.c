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
 * Under each job that started come its steps (kacct_steps.c): N.batch
 * and the N.0, N.1... that srun started; -X leaves them out.
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
#include "kacct_fields.h"
#include "kacct_steps.h"
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

enum {
	K_JSON = CLIOPT_LONG,
	K_NAME,
	K_HELP,
	K_REPORT,
};

static const struct cliopt table[] = {
    CLIOPT("accounts", 'A', CLIOPT_ARG, "LIST", "only jobs of these accounts"),
    CLIOPT("allocations", 'X', CLIOPT_NOARG, NULL,
	"the jobs alone, not their steps"),
    CLIOPT("allusers", 'a', CLIOPT_NOARG, NULL,
	"jobs of all users (if kaid allows it)"),
    CLIOPT("duplicates", 'D', CLIOPT_NOARG, NULL,
	"each run of a requeued job, the earlier ones REQUEUED"),
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
	bool allocations; /* -X */
	enum out_mode mode;
};

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
	case 'D':
		o->q.flags |= KAI_QUERY_DUPLICATES;
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
		o->allocations = true;
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

/* One row; a step's JobID and JobIDRaw take its suffix. */
static void
print_row(struct out_table *t, const struct columns *c,
    const struct kai_jobinfo *j, const char *suffix, int64_t now)
{
	char buf[4096];
	size_t k, l;

	for (k = 0; k < c->n; k++) {
		c->f[k]->fn(j, now, buf, sizeof(buf));
		if (suffix != NULL && (c->f[k]->fn == jf_id ||
		    c->f[k]->fn == jf_id_raw) &&
		    (l = strlen(buf)) + strlen(suffix) < sizeof(buf))
			memcpy(buf + l, suffix, strlen(suffix) + 1);
		out_table_cell(t, buf);
	}
	out_table_end_row(t);
}

static void
print_table(const struct opts *o, const struct columns *c,
    const struct kai_jobinfo *const *v, size_t n,
    const struct kacct_steps *steps, int64_t now)
{
	struct out_table t;
	size_t i, r, nr;

	out_table_init(&t, stdout, c->cols, c->n, o->mode, OUT_TRUNC_PLUS);
	if (!o->noheader)
		out_table_header(&t, true);
	for (i = 0; i < n; i++) {
		struct kai_jobinfo *rows;
		struct kacct_usage ju, *u;
		char **sfx;

		if (steps != NULL) {
			kacct_job_usage(v[i], steps, &ju);
			kacct_fields_usage(&ju);
		}
		print_row(&t, c, v[i], NULL, now);
		kacct_fields_usage(NULL);
		if (steps == NULL)
			continue;
		nr = kacct_step_rows(v[i], steps, &rows, &sfx, &u);
		for (r = 0; r < nr; r++) {
			kacct_fields_usage(&u[r]);
			print_row(&t, c, &rows[r], sfx[r], now);
		}
		kacct_fields_usage(NULL);
		kacct_rows_free(rows, sfx, u, nr);
	}
}

static int
show(const struct opts *o, const struct columns *c, struct kai_jobinfo *jobs,
    size_t n, int64_t now)
{
	const struct kai_jobinfo **v;
	struct kacct_steps steps;
	struct json_object *root;
	size_t i, k = 0;
	int rc;

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
	memset(&steps, 0, sizeof(steps));
	if (!o->allocations &&
	    (rc = kacct_steps_fetch(prog, v, k, &steps)) != CLIENT_EXIT_OK) {
		free(v);
		jobquery_free(jobs, k);
		return rc;
	}
	if (o->json) {
		root = slurmjson_jobs(SLURMJSON_SACCT, v, k, now);
		kacct_fields_json(root, v, k, now);
		kacct_steps_json(root, v, k, &steps, now);
		out_json_print(stdout, root);
		(void)json_object_put(root);
	} else {
		print_table(o, c, v, k, o->allocations ? NULL : &steps, now);
	}
	kacct_steps_fini(&steps);
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
	    (r = kacct_fields_parse(k->o.format != NULL ? k->o.format
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
		kacct_fields_help();
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
