/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * metrics.c: kaid's counters and the page GET /metrics answers.
 *
 * Every metric on the page is described in doc/metrics.md; a metric added
 * here gets its line there.  Names follow Prometheus practice: a
 * "kaibatch_" prefix, "_total" on counters, base units (seconds, bytes,
 * cores, GPUs) in the name.  Label sets are fixed and small: a series for
 * every queue, state and resource is written even at zero, so a
 * dashboard sees a job move from one state to the next instead of a
 * series appearing and vanishing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "metrics.h"
#include "proto/prom.h"
#include "queues.h"

static const double cycle_bounds[METRICS_CYCLE_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
};

static const int http_codes[METRICS_HTTP_CODES] = {
	200, 400, 404, 405, 408, 414, 431, 500, 503, 505
};

static const char *const verb_names[KAI_KUBE_NVERBS] = {
	"create", "bind", "delete", "watch", "service", "configmap", "status",
	"secret"
};

static const char *const res_names[KAI_SCHED_NRES] = {
	"gpu", "cpu", "memory"
};

/* Scheduler units (micro-GPUs, millicores, MiB) per base unit. */
static const double res_scale[KAI_SCHED_NRES] = {
	1.0 / KAI_SCHED_GPU_UNIT, 1.0 / 1000, 1024.0 * 1024
};

void
metrics_init(struct metrics *m, int64_t now)
{
	memset(m, 0, sizeof(*m));
	m->start_time = now;
}

static void
free_queues(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->nqueues; i++)
		free(m->queues[i].name);
	KAI_FREE(m->queues);
	m->nqueues = 0;
}

void
metrics_fini(struct metrics *m)
{
	free_queues(m);
}

void
metrics_tick_begin(struct metrics *m)
{
	(void)clock_gettime(CLOCK_MONOTONIC, &m->tick_t0);
}

void
metrics_tick_result(struct metrics *m, const struct kai_sched_snapshot *s,
    const struct kai_sched_result *r)
{
	size_t i;

	m->cycles_ok++;
	m->tasks_placed += r->placed;
	free_queues(m);
	m->queues = kai_xcalloc(r->nqueues + 1, sizeof(*m->queues));
	for (i = 0; i < r->nqueues && i < s->nqueues; i++) {
		struct metrics_queue *q = &m->queues[m->nqueues++];

		q->name = kai_xstrdup(s->queues[i].name);
		memcpy(q->fair, r->queues[i].fair_share, sizeof(q->fair));
		memcpy(q->alloc, r->queues[i].allocated, sizeof(q->alloc));
		memcpy(q->req, r->queues[i].requested, sizeof(q->req));
	}
}

void
metrics_tick_end(struct metrics *m)
{
	struct timespec t1;
	double s;
	size_t b;

	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - m->tick_t0.tv_sec) +
	    (double)(t1.tv_nsec - m->tick_t0.tv_nsec) / 1e9;
	for (b = 0; b < METRICS_CYCLE_BUCKETS && s > cycle_bounds[b]; b++)
		continue;
	m->cycle_counts[b]++;
	m->cycle_sum_s += s;
	m->last_cycle_s = s;
	m->ticks++;
}

void
metrics_kube_call(struct metrics *m, enum metrics_call c, int code)
{
	if (code == 0)
		m->calls_ok[c]++;
	else if (code != KAI_EEXIST && code != KAI_EAGAIN)
		m->calls_failed[c]++;
}

void
metrics_job_finished(struct metrics *m, enum kai_job_state to)
{
	if ((unsigned)to < KAI_JOB_NSTATES)
		m->jobs_finished[to]++;
}

void
metrics_http_answer(struct metrics *m, int status)
{
	size_t i;

	for (i = 0; i < METRICS_HTTP_CODES && http_codes[i] != status; i++)
		continue;
	m->http_answers[i]++;
}

/* A family with one unlabelled sample. */
static void
single(struct kai_prom *w, const char *name, const char *type,
    const char *help, double v)
{
	kai_prom_family(w, name, type, help);
	kai_prom_sample(w, name, NULL, 0, v);
}

static void
render_process(const struct kaid *k, struct kai_prom *w)
{
	const char *l[2] = {"version", PACKAGE_VERSION};
	const char *why = httpd_unready(k);

	kai_prom_family(w, "kaibatch_build_info", "gauge",
	    "Always 1; the version label is kaid's version.");
	kai_prom_sample(w, "kaibatch_build_info", l, 1, 1);
	single(w, "kaibatch_start_time_seconds", "gauge",
	    "When kaid started, in seconds since the epoch.",
	    (double)k->metrics.start_time);
	single(w, "kaibatch_uptime_seconds", "gauge",
	    "Seconds since kaid started.",
	    (double)(kaid_now() - k->metrics.start_time));
	single(w, "kaibatch_ready", "gauge",
	    "1 when kaid has its database and has synced the cluster "
	    "(GET /readyz answers 200), else 0.", why == NULL ? 1 : 0);
	kai_prom_family(w, "kaibatch_kube_synced", "gauge",
	    "1 when the node or pod list is loaded and watched, else 0.");
	l[0] = "resource";
	l[1] = "nodes";
	kai_prom_sample(w, "kaibatch_kube_synced", l, 1, k->nodes_synced);
	l[1] = "pods";
	kai_prom_sample(w, "kaibatch_kube_synced", l, 1, k->pods_synced);
	single(w, "kaibatch_nodes", "gauge",
	    "Kubernetes nodes kaid knows of.", (double)k->nodes.len);
	single(w, "kaibatch_client_connections", "gauge",
	    "Client connections open on the client port.",
	    (double)server_nconns(k));
	single(w, "kaibatch_pty_sessions", "gauge",
	    "Interactive sessions (ksrun, ksalloc, ksattach) open.",
	    (double)ptyrelay_count(k));
}

static const enum kai_job_state active_states[] = {
	KAI_JOB_PENDING, KAI_JOB_CONFIGURING, KAI_JOB_RUNNING
};

static void
render_jobs(const struct kaid *k, struct kai_prom *w)
{
	size_t na = KAI_NELEM(active_states), i, s;
	uint64_t *n = kai_xcalloc(queues_count(k) * na + 1, sizeof(*n));
	const char *l[4] = {"queue", NULL, "state", NULL};
	long q;

	for (i = 0; i < state_njobs(k); i++) {
		const struct kai_job *j = state_job_at(k, i);

		if ((q = queues_find(k, j->queue)) < 0)
			continue;
		for (s = 0; s < na; s++)
			if (j->state == active_states[s])
				n[(size_t)q * na + s]++;
	}
	kai_prom_family(w, "kaibatch_jobs", "gauge",
	    "Active jobs by queue and state.");
	for (i = 0; i < queues_count(k); i++) {
		l[1] = queues_at(k, i)->name;
		for (s = 0; s < na; s++) {
			l[3] = kai_jobstate_name(active_states[s]);
			kai_prom_sample(w, "kaibatch_jobs", l, 2,
			    (double)n[i * na + s]);
		}
	}
	free(n);
	kai_prom_family(w, "kaibatch_jobs_finished_total", "counter",
	    "Jobs that reached a terminal state, by state.");
	l[0] = "state";
	for (s = 0; s < KAI_JOB_NSTATES; s++) {
		if (s == KAI_JOB_PENDING || s == KAI_JOB_CONFIGURING ||
		    s == KAI_JOB_RUNNING || s == KAI_JOB_REQUEUED)
			continue;
		l[1] = kai_jobstate_name((enum kai_job_state)s);
		kai_prom_sample(w, "kaibatch_jobs_finished_total", l, 1,
		    (double)k->metrics.jobs_finished[s]);
	}
}

static void
render_submits(const struct metrics *m, struct kai_prom *w)
{
	const char *l[2] = {"result", "accepted"};

	kai_prom_family(w, "kaibatch_submissions_total", "counter",
	    "Job submissions by result: accepted (stored), refused (invalid "
	    "or not allowed), failed (not stored: database error).");
	kai_prom_sample(w, "kaibatch_submissions_total", l, 1,
	    (double)m->submit_accepted);
	l[1] = "refused";
	kai_prom_sample(w, "kaibatch_submissions_total", l, 1,
	    (double)m->submit_refused);
	l[1] = "failed";
	kai_prom_sample(w, "kaibatch_submissions_total", l, 1,
	    (double)m->submit_failed);
}

static void
render_sched(const struct metrics *m, struct kai_prom *w)
{
	const struct kai_prom_hist h = {cycle_bounds, m->cycle_counts,
	    METRICS_CYCLE_BUCKETS, m->cycle_sum_s};

	single(w, "kaibatch_sched_ticks_total", "counter",
	    "Scheduling cycles run (ticks with the cluster synced).",
	    (double)m->ticks);
	single(w, "kaibatch_sched_cycle_failures_total", "counter",
	    "Cycles whose snapshot the scheduler refused (nothing placed).",
	    (double)(m->ticks - m->cycles_ok));
	single(w, "kaibatch_sched_tasks_placed_total", "counter",
	    "Tasks the scheduler placed.", (double)m->tasks_placed);
	kai_prom_family(w, "kaibatch_sched_cycle_seconds", "histogram",
	    "Time of one scheduling cycle: snapshot, scheduler, database "
	    "commit, pod calls started.");
	kai_prom_histogram(w, "kaibatch_sched_cycle_seconds", NULL, 0, &h);
	single(w, "kaibatch_sched_last_cycle_seconds", "gauge",
	    "Time of the last scheduling cycle.", m->last_cycle_s);
	single(w, "kaibatch_sched_jobs_left_alone", "gauge",
	    "Waiting jobs the last cycle left alone: nothing changed for "
	    "them, so they keep their reasons.", (double)m->jobs_left_alone);
}

static void
render_kube(const struct kaid *k, struct kai_prom *w)
{
	const struct metrics *m = &k->metrics;
	const char *l[2] = {"verb", NULL};
	size_t v;

	single(w, "kaibatch_pods_created_total", "counter",
	    "Job pods kaid created.", (double)m->calls_ok[METRICS_CREATE]);
	single(w, "kaibatch_pods_bound_total", "counter",
	    "Job pods kaid bound to a node.", (double)m->calls_ok[METRICS_BIND]);
	single(w, "kaibatch_pods_failed_total", "counter",
	    "Job pods whose create or bind call failed.",
	    (double)(m->calls_failed[METRICS_CREATE] +
	    m->calls_failed[METRICS_BIND]));
	kai_prom_family(w, "kaibatch_kube_api_errors_total", "counter",
	    "Failed Kubernetes API calls by verb (watch: a failed list or "
	    "watch of nodes or pods, retried with backoff).");
	for (v = 0; v < KAI_KUBE_NVERBS; v++) {
		l[1] = verb_names[v];
		kai_prom_sample(w, "kaibatch_kube_api_errors_total", l, 1,
		    k->kube != NULL ? (double)kai_kube_errors(k->kube,
		    (enum kai_kube_verb)v) : 0);
	}
	single(w, "kaibatch_kube_requests_total", "counter",
	    "Kubernetes API requests completed (any outcome).",
	    k->kube != NULL ? (double)kai_kube_requests(k->kube) : 0);
}

/* One of fair share, allocated, requested for every queue and resource. */
static void
render_queue_res(const struct metrics *m, struct kai_prom *w,
    const char *name, const char *help, size_t which)
{
	const char *l[4] = {"queue", NULL, "resource", NULL};
	size_t i, r;

	kai_prom_family(w, name, "gauge", help);
	for (i = 0; i < m->nqueues; i++) {
		const struct metrics_queue *q = &m->queues[i];
		const int64_t *v = which == 0 ? q->fair :
		    which == 1 ? q->alloc : q->req;

		l[1] = q->name;
		for (r = 0; r < KAI_SCHED_NRES; r++) {
			if (v[r] < 0)
				continue;	/* not tracked */
			l[3] = res_names[r];
			kai_prom_sample(w, name, l, 2,
			    (double)v[r] * res_scale[r]);
		}
	}
}

static void
render_queues(const struct metrics *m, struct kai_prom *w)
{
	render_queue_res(m, w, "kaibatch_queue_fair_share",
	    "The queue's fair share at the last cycle (gpu: GPUs, cpu: "
	    "cores, memory: bytes).", 0);
	render_queue_res(m, w, "kaibatch_queue_allocated",
	    "What the queue's jobs held at the end of the last cycle.", 1);
	render_queue_res(m, w, "kaibatch_queue_requested",
	    "What the queue's jobs asked for at the start of the last "
	    "cycle (running and pending).", 2);
}

static void
render_http(const struct metrics *m, struct kai_prom *w)
{
	const char *l[2] = {"code", NULL};
	char code[16];
	size_t i;

	kai_prom_family(w, "kaibatch_http_requests_total", "counter",
	    "Answers of the HTTP endpoint by status (\"other\": any other).");
	for (i = 0; i <= METRICS_HTTP_CODES; i++) {
		if (i < METRICS_HTTP_CODES)
			(void)snprintf(code, sizeof(code), "%d", http_codes[i]);
		l[1] = i < METRICS_HTTP_CODES ? code : "other";
		kai_prom_sample(w, "kaibatch_http_requests_total", l, 1,
		    (double)m->http_answers[i]);
	}
	single(w, "kaibatch_http_connections_refused_total", "counter",
	    "HTTP connections refused or displaced: too many were open.",
	    (double)m->http_refused);
}

int
metrics_render(const struct kaid *k, struct kai_buf *out)
{
	struct kai_prom w;

	kai_prom_init(&w, out);
	render_process(k, &w);
	render_jobs(k, &w);
	render_submits(&k->metrics, &w);
	render_sched(&k->metrics, &w);
	render_kube(k, &w);
	render_queues(&k->metrics, &w);
	render_http(&k->metrics, &w);
	return kai_prom_finish(&w);
}
