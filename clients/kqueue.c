/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kqueue: show the jobs kaid holds, the way squeue does.
 *
 *	kqueue [options]
 *
 * The default view is squeue's ("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R":
 * JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)), sorted as
 * squeue sorts (partition, state, priority descending; then job id).
 * -o takes squeue's %-specifiers, -O a few of its named fields.  NODES is
 * the task count: kaibatch runs one pod per task.  Selection is done by
 * kaid (ids, users, partitions, states) and again here (names, accounts,
 * states), so the output never shows a job the options exclude.
 * --start shows pending jobs only, with the scheduler's estimate of
 * their start, earliest first, as squeue --start does.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "model/hostlist.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "filters.h"
#include "jobfields.h"
#include "jobarray.h"
#include "jobquery.h"
#include "jobsort.h"
#include "kqueue_layout.h"
#include "output.h"
#include "slurmjson.h"

static const char *const prog = "kqueue";

#define FMT_DEFAULT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define FMT_LONG    "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define FMT_GPUS    " %.5b"
#define FMT_START   "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
/* squeue keeps finished jobs visible for MinJobAge, 300 s by default. */
#define FINISHED_VISIBLE_S 300
/* Widest column -o and -O take (print_line's buffer is 4096). */

enum {
	K_ME = CLIOPT_LONG,
	K_JSON,
	K_GPUS,
	K_HELP,
	K_START,
	K_WHY,
};

static const struct cliopt table[] = {
    CLIOPT("account", 'A', CLIOPT_ARG, "LIST", "only jobs of these accounts"),
    CLIOPT("array", 'r', CLIOPT_NOARG, NULL,
	"one line per array task, pending ones too"),
    CLIOPT("Format", 'O', CLIOPT_ARG, "FIELDS",
	"named fields, FIELD[:[.]WIDTH],..."),
    CLIOPT("format", 'o', CLIOPT_ARG, "FORMAT",
	"squeue-style %-specifiers (see kqueue(1))"),
    CLIOPT("gpus", K_GPUS, CLIOPT_NOARG, NULL,
	"add a GPUS column to the default or long view"),
    CLIOPT("help", K_HELP, CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("iterate", 'i', CLIOPT_ARG, "SECONDS",
	"print again every SECONDS, each time after the date"),
    CLIOPT("jobs", 'j', CLIOPT_ARG, "LIST", "only these job ids"),
    CLIOPT("json", K_JSON, CLIOPT_NOARG, NULL, "print JSON"),
    CLIOPT("long", 'l', CLIOPT_NOARG, NULL,
	"long view: long state and time limit"),
    CLIOPT("me", K_ME, CLIOPT_NOARG, NULL, "only my jobs"),
    CLIOPT("name", 'n', CLIOPT_ARG, "LIST", "only jobs with these names"),
    CLIOPT("noheader", 'h', CLIOPT_NOARG, NULL, "print no header line"),
    CLIOPT("nodelist", 'w', CLIOPT_ARG, "HOSTLIST",
	"only jobs allocated to one of these nodes"),
    CLIOPT("partition", 'p', CLIOPT_ARG, "LIST",
	"only jobs in these partitions"),
    CLIOPT("qos", 'q', CLIOPT_ARG, "LIST", "only jobs of these QoS"),
    CLIOPT("sort", 'S', CLIOPT_ARG, "SPEC",
	"order by -o letters, [+|-]L,...: e.g. -t,p,i"),
    CLIOPT("start", K_START, CLIOPT_NOARG, NULL,
	"pending jobs with their estimated start, earliest first"),
    CLIOPT("states", 't', CLIOPT_ARG, "LIST",
	"only jobs in these states (codes, names or all)"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("user", 'u', CLIOPT_ARG, "LIST",
	"only jobs of these users (names or uids)"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
    CLIOPT("why", K_WHY, CLIOPT_NOARG, NULL,
	"reasons as the scheduler's sentence, not Slurm's code"),
};

static const char *const synopsis[] = {"kqueue [options]", NULL};

struct opts {
	struct kai_query q;
	char **names; /* -n */
	size_t nnames;
	char **accounts; /* -A */
	size_t naccounts;
	char **qos; /* -q */
	size_t nqos;
	const char *format; /* -o */
	const char *Format; /* -O */
	bool noheader, json, lng, gpus, help, version;
	bool array; /* -r */
	bool start; /* --start */
	bool why; /* --why */
	unsigned iterate; /* -i seconds; 0 = once */
	char **nodes; /* -w, expanded */
	size_t nnodes;
	bool sorted; /* -S */
	struct jobsort sort; /* -S */
	struct kai_task_ref *tasks; /* -j 123_4, 123_[1-3] */
	size_t ntasks;
	uint64_t *plain; /* -j's plain ids, when tasks are named too */
	size_t nplain;
};

/* squeue's default order: partition, state, priority down; then id. */
static int
cmp_jobs(const void *a, const void *b)
{
	const struct kai_jobinfo *x = *(const struct kai_jobinfo *const *)a;
	const struct kai_jobinfo *y = *(const struct kai_jobinfo *const *)b;
	int c = strcmp(x->queue != NULL ? x->queue : "",
	    y->queue != NULL ? y->queue : "");

	if (c != 0)
		return c;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* --start: earliest estimate first, jobs without one last. */
static int
cmp_start(const void *a, const void *b)
{
	const struct kai_jobinfo *x = *(const struct kai_jobinfo *const *)a;
	const struct kai_jobinfo *y = *(const struct kai_jobinfo *const *)b;

	if ((x->est_start > 0) != (y->est_start > 0))
		return x->est_start > 0 ? -1 : 1;
	if (x->est_start != y->est_start)
		return x->est_start < y->est_start ? -1 : 1;
	return cmp_jobs(a, b);
}

/* -w: whether the job holds one of the nodes named (squeue -w). */
static bool
on_nodes(const struct opts *o, const struct kai_jobinfo *j)
{
	struct kai_err err;
	char **names;
	size_t i, k, n;
	bool hit = false;

	if (o->nnodes == 0)
		return true;
	kai_err_clear(&err);
	if (j->nodelist == NULL || *j->nodelist == '\0' ||
	    kai_hostlist_expand(j->nodelist, &names, &n, &err) != 0)
		return false;
	for (i = 0; i < n && !hit; i++)
		for (k = 0; k < o->nnodes && !hit; k++)
			hit = strcmp(names[i], o->nodes[k]) == 0;
	kai_hostlist_free(names, n);
	return hit;
}

static bool
wanted(const struct opts *o, const struct kai_jobinfo *j, uint32_t mask)
{
	return (mask & KAI_JOB_STATE_BIT(j->state)) != 0 && on_nodes(o, j) &&
	    (!o->start || j->state == KAI_JOB_PENDING) &&
	    filter_match_name(o->names, o->nnames, j->name) &&
	    filter_match_name(o->accounts, o->naccounts, j->account) &&
	    filter_match_name(o->qos, o->nqos, j->qos);
}

/* "123_4" into 123 and 4; false for a job outside an array. */
static bool
task_of(const struct kai_jobinfo *j, uint64_t *array, uint32_t *task)
{
	const char *us = j->array_id != NULL ? strchr(j->array_id, '_') : NULL;
	char *end;

	if (us == NULL || !isdigit((unsigned char)us[1]))
		return false;
	*array = strtoull(j->array_id, NULL, 10);
	*task = (uint32_t)strtoul(us + 1, &end, 10);
	return *end == '\0';
}

/*
 * With array tasks in -j (squeue -j 123_4): a plain id names a job or a
 * whole array, a task reference that one task.
 */
static bool
named(const struct opts *o, const struct kai_jobinfo *j)
{
	uint64_t array = 0;
	uint32_t task = 0;
	bool is_task = task_of(j, &array, &task);
	size_t i;

	for (i = 0; i < o->nplain; i++)
		if (o->plain[i] == j->id || (is_task && o->plain[i] == array))
			return true;
	for (i = 0; is_task && i < o->ntasks; i++)
		if (o->tasks[i].array_id == array && o->tasks[i].task == task)
			return true;
	return false;
}

/*
 * --why: the reason %r and %R print becomes the scheduler's sentence
 * ("queue \"a\" is at its GPU limit ...") where kaid gave one, instead
 * of Slurm's code ("Resources") that scripts test.
 */
static void
reasons_as_sentences(struct kai_jobinfo *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (jobs[i].why == NULL || jobs[i].why[0] == '\0')
			continue;
		free(jobs[i].reason);
		jobs[i].reason = jobs[i].why;
		jobs[i].why = NULL;
	}
}

/* Keeps the jobs[0..n) that keep(o, job) wants; returns their count. */
static size_t
keep_jobs(const struct opts *o, struct kai_jobinfo *jobs, size_t n,
    uint32_t mask, bool by_name)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (by_name ? !named(o, &jobs[i]) : !wanted(o, &jobs[i], mask)) {
			kai_jobinfo_fini(&jobs[i]);
			continue;
		}
		jobs[k++] = jobs[i];
	}
	return k;
}

static int
build_layout(const struct opts *o, struct layout *l, struct kai_err *err)
{
	char fmt[256];

	if (o->Format != NULL)
		return kqueue_layout_Format(o->Format, l, err);
	if (o->format != NULL)
		return kqueue_layout_format(o->format, l, err);
	if (o->start)
		return kqueue_layout_format(FMT_START, l, err);
	(void)snprintf(fmt, sizeof(fmt), "%s%s",
	    o->lng ? FMT_LONG : FMT_DEFAULT, o->gpus ? FMT_GPUS : "");
	return kqueue_layout_format(fmt, l, err);
}

static int
show(struct opts *o, const struct layout *l, struct kai_jobinfo *jobs,
    size_t n)
{
	uint32_t mask =
	    o->q.state_mask ? o->q.state_mask : KAI_JOB_STATES_ACTIVE;
	int64_t now = (int64_t)time(NULL);
	const struct kai_jobinfo **v;
	struct json_object *root;
	char stamp[64];
	struct tm tm;
	time_t t = (time_t)now;
	size_t i, k;

	k = keep_jobs(o, jobs, n, mask, false);
	/* a pending task is inside its array's record until expanded */
	if ((o->array || o->ntasks > 0) && k > 0)
		k = jobarray_expand(&jobs, k);
	if (o->ntasks > 0)
		k = keep_jobs(o, jobs, k, mask, true);
	if (o->why)
		reasons_as_sentences(jobs, k);
	if (o->sorted) {
		o->sort.now = now;
		jobsort_use(&o->sort);
	}
	v = jobquery_sorted(jobs, k, o->sorted ? jobsort_cmp
	    : o->start ? cmp_start : cmp_jobs);
	if (o->json) {
		root = slurmjson_jobs(SLURMJSON_SQUEUE, v, k, now);
		out_json_print(stdout, root);
		(void)json_object_put(root);
	} else {
		/* squeue: the date over -l and -i, unless -h */
		if (!o->noheader && (o->lng || o->iterate > 0) &&
		    localtime_r(&t, &tm) != NULL &&
		    strftime(stamp, sizeof(stamp), "%a %b %d %H:%M:%S %Y", &tm))
			(void)printf("%s\n", stamp);
		if (!o->noheader)
			kqueue_layout_print(l, NULL, now);
		for (i = 0; i < k; i++)
			kqueue_layout_print(l, v[i], now);
	}
	free(v);
	jobquery_free(jobs, k);
	return fflush(stdout) == 0 && !ferror(stdout) ? CLIENT_EXIT_OK
						      : CLIENT_EXIT_REFUSED;
}

/*
 * Options
 */

/* -i: whole seconds, 1 to a day (squeue takes an integer). */
static int
parse_iterate(const char *arg, unsigned *secs, struct kai_err *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = isdigit((unsigned char)*arg) ? strtoul(arg, &end, 10) : 0;
	if (v == 0 || errno != 0 || *end != '\0' || v > 86400)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --iterate \"%s\": not a number of seconds "
		    "from 1 to 86400", arg);
	*secs = (unsigned)v;
	return 0;
}

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct opts *o = ctx;
	uint32_t me;

	switch (c) {
	case 'A':
		return filter_parse_names("account", arg, &o->accounts,
		    &o->naccounts, err);
	case 'q':
		return filter_parse_names("QoS", arg, &o->qos, &o->nqos, err);
	case 'O':
		o->Format = arg;
		return 0;
	case 'o':
		o->format = arg;
		return 0;
	case 'h':
		o->noheader = true;
		return 0;
	case 'i':
		return parse_iterate(arg, &o->iterate, err);
	case 'w':
		kai_hostlist_free(o->nodes, o->nnodes);
		return kai_hostlist_expand(arg, &o->nodes, &o->nnodes, err);
	case 'S':
		o->sorted = true;
		return jobsort_parse(arg, &o->sort, err);
	case 'r':
		o->array = true;
		return 0;
	case 'j':
		return filter_parse_jobrefs(arg, &o->q.ids, &o->q.nids,
		    &o->tasks, &o->ntasks, err);
	case 'l':
		o->lng = true;
		return 0;
	case 'n':
		return filter_parse_names("job name", arg, &o->names,
		    &o->nnames, err);
	case 'p':
		return filter_parse_names("partition", arg, &o->q.queues,
		    &o->q.nqueues, err);
	case 't':
		return filter_parse_states(arg, &o->q.state_mask, err);
	case 'u':
		return filter_parse_users(arg, &o->q.uids, &o->q.nuids, err);
	case 'V':
		o->version = true;
		return 0;
	case K_GPUS:
		o->gpus = true;
		return 0;
	case K_WHY:
		o->why = true;
		return 0;
	case K_HELP:
		o->help = true;
		return 0;
	case K_JSON:
		o->json = true;
		return 0;
	case K_START:
		o->start = true;
		return 0;
	case K_ME:
		me = (uint32_t)getuid();
		o->q.uids = kai_xreallocarray(o->q.uids, o->q.nuids + 1,
		    sizeof(*o->q.uids));
		o->q.uids[o->q.nuids++] = me;
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

static void
opts_fini(struct opts *o)
{
	kai_query_fini(&o->q);
	filter_free_names(o->names, o->nnames);
	filter_free_names(o->accounts, o->naccounts);
	filter_free_names(o->qos, o->nqos);
	free(o->tasks);
	free(o->plain);
	kai_hostlist_free(o->nodes, o->nnodes);
}

static bool
has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	while (n > 0)
		if (ids[--n] == id)
			return true;
	return false;
}

static int
run(struct opts *o, const struct layout *l)
{
	struct kai_jobinfo *jobs = NULL;
	size_t i, n = 0;
	int rc;

	o->q.flags |= KAI_QUERY_ALL_USERS;
	if (o->start && o->q.state_mask == 0) /* wanted(): pending only */
		o->q.state_mask = KAI_JOB_STATE_BIT(KAI_JOB_PENDING);
	if (o->ntasks > 0) {
		/* kaid sends the tasks' arrays; named() picks the tasks */
		o->plain = kai_xcalloc(o->q.nids + 1, sizeof(*o->plain));
		if (o->q.nids > 0)
			memcpy(o->plain, o->q.ids,
			    o->q.nids * sizeof(*o->plain));
		o->nplain = o->q.nids;
		o->q.ids = kai_xreallocarray(o->q.ids,
		    o->q.nids + o->ntasks, sizeof(*o->q.ids));
		for (i = 0; i < o->ntasks; i++)
			if (!has_id(o->q.ids, o->q.nids, o->tasks[i].array_id))
				o->q.ids[o->q.nids++] = o->tasks[i].array_id;
	}
	/*
	 * Finished jobs stay visible for a while, as in squeue.  No
	 * KAI_QUERY_HISTORY: that is kacct's question, which kaid answers
	 * with the caller's jobs only; without it kaid answers with every
	 * user's active jobs and the caller's finished ones.
	 */
	for (;;) {
		if ((o->q.state_mask & ~KAI_JOB_STATES_ACTIVE) != 0)
			o->q.start = (int64_t)time(NULL) - FINISHED_VISIBLE_S;
		rc = jobquery_run(prog, &o->q, &jobs, &n);
		if (rc == CLIENT_EXIT_OK)
			rc = show(o, l, jobs, n);
		/* -i: until interrupted; a failed round is reported, as in
		 * squeue, and the next one tried */
		if (o->iterate == 0)
			return rc;
		(void)putchar('\n');
		(void)fflush(stdout);
		(void)sleep(o->iterate);
	}
}

/* kqueue's state, from its command line to its exit. */
struct kqueue {
	struct opts o;
	struct layout l;
};

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct kqueue *k = ctx;
	int r;

	if ((r = parse_args(&k->o, argc, argv, err)) != 0)
		return r;
	*act = client_action_of(k->o.help, k->o.version);
	return *act == CLIENT_RUN ? build_layout(&k->o, &k->l, err) : 0;
}

static int
main_run(void *ctx)
{
	struct kqueue *k = ctx;

	return run(&k->o, &k->l);
}

static void
main_fini(void *ctx)
{
	struct kqueue *k = ctx;

	kqueue_layout_free(&k->l);
	opts_fini(&k->o);
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, main_fini};
	struct kqueue k;

	memset(&k, 0, sizeof(k));
	return client_main(&p, &k, argc, argv);
}
