/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reasons.c: why a job is pending or was evicted, in words a user can act
 * on, and the short Slurm-style names kaid stores and kqueue shows.
 *
 * The phases record a small struct per job (a code, the queue or job
 * concerned, a few numbers); the text is only made here, when somebody
 * asks, so the hot loops never format strings.  Wording follows the house
 * style: one line, lower case, no final period, names in double quotes,
 * the subject first, and numbers that say what is missing.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sched/sched_int.h"

void
kai_sched_why_clear(struct kai_sched_why_info *w)
{
	memset(w, 0, sizeof(*w));
	w->queue = -1;
	w->job = -1;
}

/* Every field of a reason is compared: one added to the struct must be
 * added here (and to incr_record.c's hash of a reason). */
_Static_assert(sizeof(struct kai_sched_why_info) == 40,
    "kai_sched_why_equal() compares every field of a reason");

bool
kai_sched_why_equal(const struct kai_sched_why_info *a,
    const struct kai_sched_why_info *b)
{
	return a->why == b->why && a->res == b->res && a->queue == b->queue &&
	    a->job == b->job && a->a == b->a && a->b == b->b && a->c == b->c;
}

void
kai_sched_set_why(struct sess *S, uint32_t j,
    const struct kai_sched_why_info *why, bool override)
{
	struct kai_sched_why_info *w = &S->r->jobs[j].why;

	if (why->why == KAI_SCHED_WHY_NONE)
		return;
	if (override || w->why == KAI_SCHED_WHY_NONE)
		*w = *why;
}

/* uGPU as GPUs with no trailing zeros: 2000000 -> "2", 500000 -> "0.5". */
void
kai_sched_fmt_gpu(int64_t ugpu, char *buf, size_t size)
{
	int64_t whole = ugpu / GPU_UNIT, frac = ugpu % GPU_UNIT;
	int digits = 6;
	const char *sign = "";

	if (ugpu < 0) {
		sign = "-";
		whole = -whole;
		frac = -frac;
	}
	if (frac == 0) {
		(void)snprintf(buf, size, "%s%" PRId64, sign, whole);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	(void)snprintf(buf, size, "%s%" PRId64 ".%0*" PRId64, sign, whole,
	    digits, frac);
}

static const char *const res_name[NRES] = {"GPU", "CPU", "memory"};

/* An amount of resource r with its unit: "2", "4000 millicores", ... */
static void
fmt_amount(int r, int64_t v, char *buf, size_t size)
{
	if (r == R_GPU)
		kai_sched_fmt_gpu(v, buf, size);
	else
		(void)snprintf(buf, size, "%" PRId64 " %s", v,
		    r == R_CPU ? "millicores" : "MiB");
}

static const char *
qname(const struct kai_sched_snapshot *s, int32_t q)
{
	return q >= 0 && (size_t)q < s->nqueues ? s->queues[q].name : "?";
}

static const char *
jname(const struct kai_sched_snapshot *s, int32_t j)
{
	return j >= 0 && (size_t)j < s->njobs ? s->jobs[j].name : "?";
}

static const char *
plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

static void
never_fits(const struct kai_sched_why_info *w, char *buf, size_t size)
{
	if (w->res == R_GPU && w->c == 1)
		(void)snprintf(buf, size,
		    "a task needs %" PRId64 " MiB of GPU "
		    "memory but no GPU has more than %" PRId64 " MiB",
		    w->a, w->b);
	else if (w->res == R_GPU && w->b == 0)
		(void)snprintf(buf, size,
		    "a task needs a GPU but no node has "
		    "GPUs");
	else if (w->res == R_GPU && w->c == 2)
		(void)snprintf(buf, size,
		    "a task needs a share of %" PRId64 " GPUs but no node "
		    "has more than %" PRId64,
		    w->a, w->b);
	else if (w->res == R_GPU)
		(void)snprintf(buf, size,
		    "a task needs %" PRId64 " GPU%s but "
		    "no node has more than %" PRId64,
		    w->a, plural(w->a), w->b);
	else
		(void)snprintf(buf, size,
		    "a task needs %" PRId64 " %s of %s "
		    "but no node has more than %" PRId64,
		    w->a, w->res == R_CPU ? "millicores" : "MiB",
		    w->res == R_CPU ? "CPU" : "memory", w->b);
}

/* The GPU type the job of w asks for. */
static const char *
tname(const struct kai_sched_snapshot *s, const struct kai_sched_why_info *w)
{
	const char *t = w->job >= 0 && (size_t)w->job < s->njobs
	    ? kai_sched_job_gpu_type(s, (size_t)w->job)
	    : NULL;

	return t != NULL ? t : "?";
}

static void
type_texts(const struct kai_sched_snapshot *s,
    const struct kai_sched_why_info *w, char *buf, size_t size)
{
	char a[48], b[48], c[48];

	kai_sched_fmt_gpu(w->a, a, sizeof(a));
	kai_sched_fmt_gpu(w->b, b, sizeof(b));
	kai_sched_fmt_gpu(w->c, c, sizeof(c));
	if (w->why == KAI_SCHED_WHY_TYPE_LIMIT)
		(void)snprintf(buf, size,
		    "queue \"%s\" is at its limit of %s %s GPUs (%s in use, "
		    "the job needs %s)",
		    qname(s, w->queue), a, tname(s, w), b, c);
	else if (w->why == KAI_SCHED_WHY_TYPE_NP_QUOTA)
		(void)snprintf(buf, size,
		    "non-preemptible jobs may only use quota: queue \"%s\" "
		    "has a quota of %s %s GPUs, %s in use, the job needs %s",
		    qname(s, w->queue), a, tname(s, w), b, c);
	else
		(void)snprintf(buf, size,
		    "no schedulable node has GPUs of type %s", tname(s, w));
}

static void
resources(const struct kai_sched_why_info *w, char *buf, size_t size)
{
	char g[48];

	if (w->res == R_GPU && w->c == 0)
		(void)snprintf(buf, size,
		    "not enough free GPUs: a task needs "
		    "%" PRId64 " on one node, at most %" PRId64 " %s free on "
		    "any node",
		    w->a, w->b, w->b == 1 ? "is" : "are");
	else if (w->res == R_GPU && w->c > 1) {
		/* A share over several devices: that many on one node. */
		if (w->b == 1)
			(void)snprintf(g, sizeof(g), "%" PRId64 " MiB of memory",
			    w->a);
		else
			kai_sched_fmt_gpu(w->a, g, sizeof(g));
		(void)snprintf(buf, size,
		    "no node has %" PRId64 " GPUs with %s free", w->c, g);
	} else if (w->res == R_GPU && w->b == 1)
		(void)snprintf(buf, size,
		    "no GPU has %" PRId64 " MiB of "
		    "memory free",
		    w->a);
	else if (w->res == R_GPU) {
		kai_sched_fmt_gpu(w->a, g, sizeof(g));
		(void)snprintf(buf, size, "no GPU has %s of its capacity free",
		    g);
	} else
		(void)snprintf(buf, size,
		    "not enough free %s: a task needs "
		    "%" PRId64 " %s",
		    res_name[w->res], w->a,
		    w->res == R_CPU ? "millicores" : "MiB");
}

static void
queue_texts(const struct kai_sched_snapshot *s,
    const struct kai_sched_why_info *w, char *buf, size_t size)
{
	char a[48], b[48], c[48];

	fmt_amount(w->res, w->a, a, sizeof(a));
	fmt_amount(w->res, w->b, b, sizeof(b));
	fmt_amount(w->res, w->c, c, sizeof(c));
	if (w->why == KAI_SCHED_WHY_LIMIT)
		(void)snprintf(buf, size,
		    "queue \"%s\" is at its %s limit (%s)", qname(s, w->queue),
		    res_name[w->res], a);
	else
		(void)snprintf(buf, size,
		    "non-preemptible jobs may only use "
		    "quota: queue \"%s\" has a %s quota of %s, %s in use, the "
		    "job needs %s",
		    qname(s, w->queue), res_name[w->res], a, b, c);
}

static void
evicted(const struct kai_sched_snapshot *s, const struct kai_sched_why_info *w,
    char *buf, size_t size)
{
	char a[32], b[32], c[32];
	const char *ty;
	int32_t rq;

	switch (w->why) {
	case KAI_SCHED_WHY_PREEMPTED:
		(void)snprintf(buf, size,
		    "preempted by higher-priority job "
		    "\"%s\" in queue \"%s\"",
		    jname(s, w->job), qname(s, w->queue));
		return;
	case KAI_SCHED_WHY_RECLAIMED:
		kai_sched_fmt_gpu(w->a, a, sizeof(a));
		kai_sched_fmt_gpu(w->b, b, sizeof(b));
		kai_sched_fmt_gpu(w->c, c, sizeof(c));
		rq = w->job >= 0 ? (int32_t)s->jobs[w->job].queue : -1;
		/* A reclaimer of a GPU type took back that type's share. */
		ty = w->job >= 0 ? kai_sched_job_gpu_type(s, (size_t)w->job)
				 : NULL;
		(void)snprintf(buf, size,
		    "reclaimed by job \"%s\" of queue "
		    "\"%s\": queue \"%s\" used %s %s%sGPU%s (%s%sfair share "
		    "%s%s%s)",
		    jname(s, w->job), qname(s, rq), qname(s, w->queue), a,
		    ty != NULL ? ty : "", ty != NULL ? " " : "",
		    w->a > GPU_UNIT ? "s" : "", ty != NULL ? ty : "",
		    ty != NULL ? " " : "", b, w->c >= 0 ? ", quota " : "",
		    w->c >= 0 ? c : "");
		return;
	default:
		(void)snprintf(buf, size,
		    "gang below its minimum of %" PRId64 " tasks for %" PRId64
		    "s, longer than its %" PRId64 "s grace",
		    w->a, w->b, w->c);
		return;
	}
}

/* Unix seconds as UTC, "2026-11-24T20:00:00Z": the same every tick. */
static void
fmt_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(buf, size, "%" PRId64, t);
}

static void
backfill(const struct kai_sched_snapshot *s, const struct kai_sched_why_info *w,
    char *buf, size_t size)
{
	char at[48];

	fmt_time(w->a, at, sizeof(at));
	if (w->why == KAI_SCHED_WHY_RESERVED)
		(void)snprintf(buf, size,
		    "waiting for resources: reserved to start at %s on %" PRId64
		    " node%s (running jobs' time limits)",
		    at, w->b, plural(w->b));
	else if (w->job >= 0)
		(void)snprintf(buf, size,
		    "would delay the reservation of job \"%s\" at %s: its "
		    "time limit ends after that",
		    jname(s, w->job), at);
	else
		(void)snprintf(buf, size,
		    "would take CPU or memory a reservation needs: its time "
		    "limit ends after the reservation starts");
}

static void
qos_gpus(const struct kai_sched_why_info *w, char *buf, size_t size)
{
	char a[32], b[32], c[32];

	kai_sched_fmt_gpu(w->a, a, sizeof(a));
	kai_sched_fmt_gpu(w->b, b, sizeof(b));
	kai_sched_fmt_gpu(w->c, c, sizeof(c));
	(void)snprintf(buf, size, "the QoS lets a user's jobs hold %s GPU%s: "
	    "%s in use, the job needs %s", a, w->a == GPU_UNIT ? "" : "s", b,
	    c);
}

/* A subgroup's name, from its index among all the snapshot's. */
static const char *
sgname(const struct kai_sched_snapshot *s, int64_t i)
{
	if (i < 0 || (uint64_t)i >= s->nsubgroups ||
	    s->subgroups[i].name == NULL)
		return "?";
	return s->subgroups[i].name;
}

static void
subgroup_text(const struct kai_sched_snapshot *s,
    const struct kai_sched_why_info *w, char *buf, size_t size)
{
	if (w->why == KAI_SCHED_WHY_SUBGROUP)
		(void)snprintf(buf, size,
		    "subgroup %s needs %" PRId64 " pod%s, %" PRId64 " fit",
		    sgname(s, w->c), w->a, plural(w->a), w->b);
	else if (w->why == KAI_SCHED_WHY_SUBGROUP_SHORT)
		(void)snprintf(buf, size,
		    "subgroup %s needs %" PRId64 " pod%s, it has %" PRId64,
		    sgname(s, w->c), w->a, plural(w->a), w->b);
	else if (w->c < 0)
		(void)snprintf(buf, size,
		    "needs %" PRId64 " of its subgroups placed whole, "
		    "%" PRId64 " can be",
		    w->a, w->b);
	else
		(void)snprintf(buf, size,
		    "subgroup %s needs %" PRId64 " of its subgroups placed "
		    "whole, %" PRId64 " can be",
		    sgname(s, w->c), w->a, w->b);
}

const char *
kai_sched_why_text(const struct kai_sched_snapshot *s,
    const struct kai_sched_why_info *w, char *buf, size_t size)
{
	const char *t = NULL;

	switch (w->why) {
	case KAI_SCHED_WHY_NONE:
		t = "";
		break;
	case KAI_SCHED_WHY_HELD:
		t = "job is held";
		break;
	case KAI_SCHED_WHY_NO_NODES:
		t = "no schedulable node";
		break;
	case KAI_SCHED_WHY_NEVER_FITS:
		never_fits(w, buf, size);
		break;
	case KAI_SCHED_WHY_LIMIT:
	case KAI_SCHED_WHY_NP_QUOTA:
		queue_texts(s, w, buf, size);
		break;
	case KAI_SCHED_WHY_RESOURCES:
		resources(w, buf, size);
		break;
	case KAI_SCHED_WHY_PRIORITY:
		(void)snprintf(buf, size,
		    "%" PRId64 " job%s ahead of it in "
		    "queue \"%s\" %s waiting for resources",
		    w->a, plural(w->a), qname(s, w->queue),
		    w->a == 1 ? "is" : "are");
		break;
	case KAI_SCHED_WHY_GANG:
		(void)snprintf(buf, size,
		    "gang needs %" PRId64 " tasks but "
		    "only %" PRId64 " %s",
		    w->a, w->b,
		    w->c ? "can run (the "
			   "others failed)"
			 : "fit");
		break;
	case KAI_SCHED_WHY_TOPOLOGY:
		(void)snprintf(buf, size,
		    "topology \"%s\": no \"%s\" domain can "
		    "hold all %" PRId64 " tasks",
		    s->topologies[w->a].name, s->topologies[w->a].levels[w->b],
		    w->c);
		break;
	case KAI_SCHED_WHY_EXCLUSIVE:
		(void)snprintf(buf, size,
		    "exclusive: no node without other jobs has room for a "
		    "task of the job");
		break;
	case KAI_SCHED_WHY_NODE_GROUP:
		if (w->b == 0)
			(void)snprintf(buf, size,
			    "no node can hold %" PRId64
			    " task%s of the job together",
			    w->a, plural(w->a));
		else
			(void)snprintf(buf, size,
			    "needs %" PRId64
			    " nodes that can each hold %" PRId64
			    " task%s of the job but only %" PRId64 " can",
			    w->c, w->a, plural(w->a), w->b);
		break;
	case KAI_SCHED_WHY_HIGHER_PRIO:
		(void)snprintf(buf, size,
		    "waiting for GPUs held by %" PRId64
		    " higher-priority job%s",
		    w->a, plural(w->a));
		break;
	case KAI_SCHED_WHY_PREEMPTED:
	case KAI_SCHED_WHY_RECLAIMED:
	case KAI_SCHED_WHY_STALE:
		evicted(s, w, buf, size);
		break;
	case KAI_SCHED_WHY_RESERVED:
	case KAI_SCHED_WHY_BACKFILL:
		backfill(s, w, buf, size);
		break;
	case KAI_SCHED_WHY_NO_POOL_NODES:
		(void)snprintf(buf, size, "no schedulable node matches the "
		    "nodeSelector and tolerations of partition \"%s\"",
		    w->a >= 0 && (size_t)w->a < s->npools ?
		    s->pools[w->a].name : "?");
		break;
	case KAI_SCHED_WHY_NO_FEATURE_NODES:
		(void)snprintf(buf, size, "no node has the "
		    "features \"%s\"", w->a >= 0 &&
		    (size_t)w->a < s->nnodereqs &&
		    s->nodereqs[w->a].text != NULL ? s->nodereqs[w->a].text :
		    "?");
		break;
	case KAI_SCHED_WHY_NO_REQ_NODES:
		t = "no schedulable node is left by its --constraint, "
		    "--nodelist and --exclude";
		break;
	case KAI_SCHED_WHY_QOS_GPUS:
		qos_gpus(w, buf, size);
		break;
	case KAI_SCHED_WHY_TYPE_LIMIT:
	case KAI_SCHED_WHY_TYPE_NP_QUOTA:
	case KAI_SCHED_WHY_NO_TYPE_NODES:
		type_texts(s, w, buf, size);
		break;
	case KAI_SCHED_WHY_SUBGROUP:
	case KAI_SCHED_WHY_SUBGROUP_SHORT:
	case KAI_SCHED_WHY_SUBGROUPS:
		subgroup_text(s, w, buf, size);
		break;
	case KAI_SCHED_WHY_NCODES:
		t = "";
		break;
	}
	if (t != NULL)
		(void)snprintf(buf, size, "%s", t);
	return buf;
}

const char *
kai_sched_why_name(enum kai_sched_why w)
{
	static const char *const names[KAI_SCHED_WHY_NCODES] = {
	    [KAI_SCHED_WHY_NONE] = "None",
	    [KAI_SCHED_WHY_HELD] = "JobHeldUser",
	    [KAI_SCHED_WHY_NO_NODES] = "Nodes_not_ready",
	    [KAI_SCHED_WHY_NEVER_FITS] = "ReqNodeNotAvail",
	    [KAI_SCHED_WHY_LIMIT] = "QOSGrpGRES",
	    [KAI_SCHED_WHY_NP_QUOTA] = "NonPreemptibleOverQuota",
	    [KAI_SCHED_WHY_RESOURCES] = "Resources",
	    [KAI_SCHED_WHY_PRIORITY] = "Priority",
	    [KAI_SCHED_WHY_GANG] = "Resources",
	    [KAI_SCHED_WHY_TOPOLOGY] = "Resources",
	    [KAI_SCHED_WHY_HIGHER_PRIO] = "Priority",
	    [KAI_SCHED_WHY_PREEMPTED] = "Preempted",
	    [KAI_SCHED_WHY_RECLAIMED] = "Reclaimed",
	    [KAI_SCHED_WHY_STALE] = "GangBelowMinimum",
	    [KAI_SCHED_WHY_RESERVED] = "Resources",
	    [KAI_SCHED_WHY_BACKFILL] = "Priority",
	    [KAI_SCHED_WHY_NO_POOL_NODES] = "ReqNodeNotAvail",
	    [KAI_SCHED_WHY_QOS_GPUS] = "QOSMaxGRESPerUser",
	    [KAI_SCHED_WHY_TYPE_LIMIT] = "QOSGrpGRES",
	    [KAI_SCHED_WHY_TYPE_NP_QUOTA] = "NonPreemptibleOverQuota",
	    [KAI_SCHED_WHY_NO_TYPE_NODES] = "ReqNodeNotAvail",
	    [KAI_SCHED_WHY_NODE_GROUP] = "Resources",
	    [KAI_SCHED_WHY_NO_REQ_NODES] = "ReqNodeNotAvail",
	    [KAI_SCHED_WHY_NO_FEATURE_NODES] = "BadConstraints",
	    [KAI_SCHED_WHY_EXCLUSIVE] = "Resources",
	    [KAI_SCHED_WHY_SUBGROUP] = "Resources",
	    [KAI_SCHED_WHY_SUBGROUP_SHORT] = "PodGroup",
	    [KAI_SCHED_WHY_SUBGROUPS] = "Resources",
	};

	if ((unsigned)w >= KAI_SCHED_WHY_NCODES)
		return "None";
	return names[w];
}

const char *
kai_sched_task_state_name(enum kai_sched_task_state s)
{
	static const char *const names[] = {"pending", "running", "releasing",
	    "failed", "pipelined", "evicted"};

	return (unsigned)s < KAI_NELEM(names) ? names[s] : "pending";
}

const char *
kai_sched_job_state_name(enum kai_sched_job_state s)
{
	static const char *const names[] = {"pending", "running", "evicted",
	    "failed"};

	return (unsigned)s < KAI_NELEM(names) ? names[s] : "pending";
}

const char *
kai_sched_action_name(enum kai_sched_action a)
{
	static const char *const names[KAI_SCHED_NACTIONS] = {
	    [KAI_SCHED_ALLOCATE] = "allocate",
	    [KAI_SCHED_CONSOLIDATE] = "consolidation",
	    [KAI_SCHED_RECLAIM] = "reclaim",
	    [KAI_SCHED_PREEMPT] = "preempt",
	    [KAI_SCHED_STALEGANG] = "stalegangeviction",
	};

	return (unsigned)a < KAI_SCHED_NACTIONS ? names[a] : NULL;
}
