/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kseff: a finished job's efficiency, the report of Slurm's seff.
 *
 *	kseff JOBID
 *
 * From the job's record (kacct's, KAI_QUERY_HISTORY) and its steps'
 * usage (KAI_MSG_STEP_LIST, kacct_steps.c): the CPU time its steps'
 * tasks used against its core-walltime (elapsed time x allocated CPUs),
 * and the largest step's peak memory, counted for every task of that
 * step as seff estimates it, against the memory the job asked for.  A
 * job that ran no step (its script ran in every pod, or it ran nothing
 * under srun) has nothing measured, and says so.
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "client.h"
#include "client_main.h"
#include "cliopt.h"
#include "jobquery.h"
#include "kacct_steps.h"
#include "model/jobstate.h"
#include "output.h"

static const char *const prog = "kseff";

enum {
	K_HELP = CLIOPT_LONG,
};

static const struct cliopt table[] = {
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("usage", K_HELP, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
};

static const char *const synopsis[] = {"kseff [options] JOBID", NULL};

struct kseff {
	uint64_t id;
	bool have_id, help, version;
	int64_t now;
};

static int
set_opt(void *ctx, int c, const char *arg, struct kai_err *err)
{
	struct kseff *s = ctx;

	(void)arg;
	switch (c) {
	case 'h':
	case K_HELP:
		s->help = true;
		return 0;
	case 'V':
		s->version = true;
		return 0;
	default:
		return kai_err_set(err, KAI_EINTERNAL, "option key %d", c);
	}
}

static int
set_operand(void *ctx, const char *arg, struct kai_err *err)
{
	struct kseff *s = ctx;

	if (s->have_id)
		return kai_err_set(err, KAI_EINVAL,
		    "one job id only: \"%s\" is a second", arg);
	if (kai_strtou64(arg, UINT64_MAX, &s->id, "job id", NULL) != 0 ||
	    s->id == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid job id \"%s\": expected a number", arg);
	s->have_id = true;
	return 0;
}

static int
main_parse(void *ctx, int argc, char **argv, enum client_action *act,
    struct kai_err *err)
{
	struct kseff *s = ctx;
	int r = cliopt_parse(table, KAI_NELEM(table), argc, argv, set_opt,
	    set_operand, s, err);

	if (r == 0 && !s->help && !s->version && !s->have_id)
		r = kai_err_set(err, KAI_EINVAL, "no job id given");
	if (r == 0)
		*act = client_action_of(s->help, s->version);
	return r;
}

/* seff's sizes: KiB as "512.00 KB", "1.50 MB", "2.00 GB"... */
static const char *
size_text(double kb, char *b, size_t n)
{
	static const char *const units[] = {"KB", "MB", "GB", "TB", "PB"};
	size_t u = 0;

	while (kb >= 1024 && u + 1 < KAI_NELEM(units)) {
		kb /= 1024;
		u++;
	}
	(void)snprintf(b, n, "%.2f %s", kb, units[u]);
	return b;
}

/* seff's times: [D-]HH:MM:SS. */
static const char *
time_text(int64_t s, char *b, size_t n)
{
	if (s >= 86400)
		(void)snprintf(b, n, "%" PRId64 "-%02" PRId64 ":%02" PRId64
		    ":%02" PRId64, s / 86400, s / 3600 % 24, s / 60 % 60,
		    s % 60);
	else
		(void)snprintf(b, n, "%02" PRId64 ":%02" PRId64 ":%02" PRId64,
		    s / 3600, s / 60 % 60, s % 60);
	return b;
}

static void
report(const struct kai_jobinfo *j, const struct kacct_steps *st,
    int64_t now)
{
	const struct group *g = getgrgid(j->gid);
	uint64_t cpus = jobquery_cpus(j), cpu_usec = 0, mem_kb = 0;
	uint32_t nodes = 1;
	int64_t wall = jobquery_elapsed(j, now);
	double req_kb = (double)j->mem_mb * 1024.0 *
	    (j->ntasks > 0 ? j->ntasks : 1);
	char a[48], b[48], c[48];
	bool measured = false;
	const char *p;
	size_t i;

	for (p = j->nodelist; p != NULL && *p != '\0'; p++)
		nodes += *p == ',';
	for (i = 0; i < st->n; i++) {
		const struct kai_step_info *s = &st->v[i];

		if (s->job != j->id || s->step == KAI_STEP_BATCH || s->end == 0)
			continue;
		measured = true;
		cpu_usec += s->cpu_usec;
		if (s->max_rss_kb * s->ntasks > mem_kb)
			mem_kb = s->max_rss_kb * s->ntasks;
	}
	(void)printf("Job ID: %" PRIu64 "\n", j->id);
	(void)printf("Cluster: kaibatch\n");
	if (g != NULL)
		(void)printf("User/Group: %s/%s\n", j->user, g->gr_name);
	else
		(void)printf("User/Group: %s/%u\n", j->user, j->gid);
	if (j->exit_signal != 0)
		(void)printf("State: %s (signal %d)\n",
		    kai_jobstate_name(j->state), j->exit_signal);
	else
		(void)printf("State: %s (exit code %d)\n",
		    kai_jobstate_name(j->state), j->exit_code);
	if (nodes > 1) {
		(void)printf("Nodes: %u\n", nodes);
		(void)printf("Cores per node: %" PRIu64 "\n", cpus / nodes);
	} else {
		(void)printf("Cores: %" PRIu64 "\n", cpus);
	}
	(void)printf("CPU Utilized: %s\n",
	    time_text((int64_t)(cpu_usec / 1000000), a, sizeof(a)));
	(void)printf("CPU Efficiency: %.2f%% of %s core-walltime\n",
	    wall > 0 && cpus > 0 ? 100.0 * (double)cpu_usec / 1e6 /
	    ((double)wall * (double)cpus) : 0.0,
	    time_text(wall * (int64_t)cpus, b, sizeof(b)));
	(void)printf("Job Wall-clock time: %s\n", time_text(wall, c,
	    sizeof(c)));
	(void)printf("Memory Utilized: %s%s\n",
	    size_text((double)mem_kb, a, sizeof(a)),
	    nodes > 1 || j->ntasks > 1 ? " (estimated maximum)" : "");
	(void)printf("Memory Efficiency: %.2f%% of %s (%s/node)\n",
	    req_kb > 0 ? 100.0 * (double)mem_kb / req_kb : 0.0,
	    size_text(req_kb, b, sizeof(b)),
	    size_text(req_kb / nodes, c, sizeof(c)));
	if (j->state == KAI_JOB_RUNNING || j->state == KAI_JOB_CONFIGURING)
		(void)printf("WARNING: Efficiency statistics may be "
		    "misleading for RUNNING jobs.\n");
	if (!measured)
		(void)printf("WARNING: no step of this job was measured: only "
		    "the tasks srun starts are (kseff(1)).\n");
}

static int
main_run(void *ctx)
{
	struct kseff *s = ctx;
	struct kai_query q;
	struct kai_jobinfo *jobs = NULL;
	const struct kai_jobinfo *v;
	struct kacct_steps st;
	size_t n = 0;
	int rc;

	memset(&q, 0, sizeof(q));
	q.ids = &s->id;
	q.nids = 1;
	q.start = 0;
	q.end = s->now;
	q.flags = KAI_QUERY_HISTORY;
	if ((rc = jobquery_run(prog, &q, &jobs, &n)) != CLIENT_EXIT_OK)
		return rc;
	if (n == 0) {
		client_error(prog, NULL, "job %" PRIu64 " not found", s->id);
		return CLIENT_EXIT_REFUSED;
	}
	if (jobs[0].state == KAI_JOB_PENDING) {
		client_error(prog, NULL, "job %" PRIu64 " has not started",
		    s->id);
		jobquery_free(jobs, n);
		return CLIENT_EXIT_REFUSED;
	}
	v = &jobs[0];
	if ((rc = kacct_steps_fetch(prog, &v, 1, &st)) == CLIENT_EXIT_OK) {
		report(v, &st, s->now);
		kacct_steps_fini(&st);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = CLIENT_EXIT_REFUSED;
	}
	jobquery_free(jobs, n);
	return rc;
}

int
main(int argc, char **argv)
{
	const struct client_prog p = {prog, synopsis, table, KAI_NELEM(table),
	    main_parse, main_run, NULL};
	struct kseff s;

	memset(&s, 0, sizeof(s));
	s.now = (int64_t)time(NULL);
	return client_main(&p, &s, argc, argv);
}
