/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_query.c: kqueue and kacct.
 *
 * A query for active jobs only (kqueue's usual question) is answered from
 * kaid's memory, which holds every active job: no database round trip,
 * and no row conversion, for the question users ask most often.  Anything
 * else (kacct, finished states) is read from PostgreSQL, with the pending
 * reasons and start estimates of active jobs taken from memory, where the
 * last tick left them.
 * Who sees what is decided in one place, query_scope(), for every path
 * that answers with job records: every user's active jobs, as squeue
 * shows them; finished jobs, with their directories and output paths,
 * only to their owner or an operator, as sacct shows them; and with
 * KAI_QUERY_HISTORY (kacct) only the caller's own jobs of any state.  A
 * request asks for states and flags, so the rule looks at what can come
 * back, not at which client is asking.  Answers are made as the client
 * reads them (server_stream()), in frames of QUERY_FRAME_BYTES: no frame
 * passes the body limit, and a listing of any length costs kaid a few
 * hundred KiB of buffer, not its size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"
#include "usage.h"

static void
overlay_reasons(struct kaid *k, struct kai_jobinfo *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct kai_job *j = state_job(k, jobs[i].id);

		if (j == NULL || j->state != KAI_JOB_PENDING)
			continue;
		free(jobs[i].reason);
		jobs[i].reason = kai_xstrdup(j->reason);
		free(jobs[i].why);
		jobs[i].why = j->why != NULL ? kai_xstrdup(j->why) : NULL;
		jobs[i].est_start = j->est_start;
		free(jobs[i].dependency);
		jobs[i].dependency = j->dep_left != NULL ?
		    kai_xstrdup(j->dep_left) : NULL;
	}
}

/*
 * Replies in frames of about QUERY_FRAME_BYTES: the client decodes and
 * kaid encodes at the same time, where one 1 MiB frame would make each
 * wait for the other.
 */
#define QUERY_FRAME_BYTES (64 * 1024)

/*
 * Sends jobs[0..n) in frames; the last one ends the reply unless more
 * is true.  Returns false when encoding failed (the error is sent).
 */
static bool
send_jobs(struct kaid *k, struct conn *conn, const struct kai_jobinfo *jobs,
    size_t n, bool more, struct kai_buf *b)
{
	size_t first = 0;

	do {
		kai_buf_reset(b);
		if (kai_msg_jobs_encode(b, jobs, n, &first,
			QUERY_FRAME_BYTES) != 0) {
			server_reply_error(k, conn, KAI_EINTERNAL,
			    "could not encode the job list", NULL);
			return false;
		}
		server_reply(k, conn, KAI_MSG_QUERY_REPLY,
		    first < n || more ? KAI_FRAME_MORE : 0, b);
	} while (first < n);
	return true;
}

/* A reply of records read from the database, sent as the client reads. */
struct job_stream {
	struct kai_jobinfo *jobs;	/* owned */
	size_t n;
	size_t first;			/* the next to send */
	struct kai_buf b;
};

static void
job_stream_free(void *ctx)
{
	struct job_stream *js = ctx;
	size_t i;

	for (i = 0; i < js->n; i++)
		kai_jobinfo_fini(&js->jobs[i]);
	free(js->jobs);
	kai_buf_fini(&js->b);
	free(js);
}

/* One frame of the records; true once the last is sent. */
static bool
job_stream_next(struct kaid *k, struct conn *conn, void *ctx)
{
	struct job_stream *js = ctx;

	kai_buf_reset(&js->b);
	if (kai_msg_jobs_encode(&js->b, js->jobs, js->n, &js->first,
	    QUERY_FRAME_BYTES) != 0) {
		server_reply_error(k, conn, KAI_EINTERNAL,
		    "could not encode the job list", NULL);
		return true;
	}
	server_reply(k, conn, KAI_MSG_QUERY_REPLY,
	    js->first < js->n ? KAI_FRAME_MORE : 0, &js->b);
	return js->first >= js->n;
}

/*
 * Jobs answered from the cache are gathered QUERY_BATCH at a time: a
 * batch stays in the CPU's cache while it is encoded, where one record
 * per active job (2 MB at 10,000) would be fresh pages on every query.
 */
#define QUERY_BATCH 256

/*
 * The node list of a job without pods: shared, never freed.  A heap ""
 * for each of 50,000 pending jobs was a malloc and a free per line.
 */
static char no_nodes[] = "";

static void
batch_free(struct kai_jobinfo *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (out[i].nodelist != no_nodes)
			free(out[i].nodelist);
		free(out[i].array_id);
	}
	memset(out, 0, n * sizeof(*out));
}

/*
 * Answers from the cache, QUERY_BATCH records per call of the stream, in
 * id order from a cursor: a job added meanwhile with a higher id is sent
 * too, one that ended is not, and none is sent twice.  The records
 * BORROW the cache's strings (only nodelist and array_id are allocated
 * here) and are encoded before the loop runs again, so they are released
 * with batch_free(), never with kai_jobinfo_fini().
 */
struct cache_stream {
	struct kai_query q;	/* owned */
	uint32_t mask;
	uint64_t next_id;	/* the cursor: the first id not looked at */
	struct kai_jobinfo out[QUERY_BATCH];
	struct kai_buf b;
};

static void
cache_stream_free(void *ctx)
{
	struct cache_stream *cs = ctx;

	kai_query_fini(&cs->q);
	kai_buf_fini(&cs->b);
	free(cs);
}

static void
fill(struct kai_jobinfo *o, const struct kai_job *j)
{
	o->id = j->id;
	o->name = j->name;
	o->uid = j->uid;
	o->gid = j->gid;
	o->user = j->user;
	o->queue = j->queue;
	o->account = j->account;
	o->state = j->state;
	o->reason = j->reason;
	o->why = j->why;
	o->workload = j->workload;
	o->qos = j->qos;
	o->dependency = j->state == KAI_JOB_PENDING ? j->dep_left : NULL;
	o->gpu_type = j->gpu_type;
	o->features = j->features;
	o->node_req = j->node_req;
	o->submit_time = j->submit_time;
	o->start_time = j->start_time;
	o->time_limit_s = j->time_limit_s;
	o->ntasks = j->ntasks;
	o->cpus_per_task = j->cpus_per_task;
	o->mem_mb = j->mem_mb;
	o->gpus_per_task = j->gpus_per_task;
	o->gpus_per_node = j->gpus_per_node;
	o->ntasks_per_node = j->ntasks_per_node;
	o->nodelist = j->nallocs > 0 ?
	    state_nodelist(j->allocs, j->nallocs) : no_nodes;
	o->tasks_run = (uint32_t)j->nallocs;
	o->workdir = j->workdir;
	o->hold = j->hold;
	o->priority = j->priority;
	o->array_id = arrays_display(j);
	o->est_start = j->state == KAI_JOB_PENDING ? j->est_start : 0;
	o->gpu_micro = j->start_time > 0 ? usage_gpu_micro(j) : 0;
}

/* The next batch; true once the last frame is sent. */
static bool
cache_stream_next(struct kaid *k, struct conn *conn, void *ctx)
{
	struct cache_stream *cs = ctx;
	const struct kai_query *q = &cs->q;
	size_t i = state_job_from(k, cs->next_id), n = 0, end = state_njobs(k);
	bool last, ok;

	for (; i < end && n < QUERY_BATCH; i++) {
		const struct kai_job *j = state_job_at(k, i);

		if (state_job_matches(j, q->ids, q->nids, q->uids, q->nuids,
		    q->queues, q->nqueues, cs->mask))
			fill(&cs->out[n++], j);
	}
	last = i >= end;
	cs->next_id = last ? UINT64_MAX : state_job_at(k, i)->id;
	ok = send_jobs(k, conn, cs->out, n, !last, &cs->b);
	batch_free(cs->out, n);
	return last || !ok;
}

/* Takes q (the stream frees it); true while the reply goes on. */
static bool
query_cache(struct kaid *k, struct conn *conn, struct kai_query *q)
{
	struct cache_stream *cs = kai_xcalloc(1, sizeof(*cs));

	cs->q = *q;
	memset(q, 0, sizeof(*q));
	cs->mask = cs->q.state_mask != 0 ? cs->q.state_mask :
	    KAI_JOB_STATES_ACTIVE;
	kai_buf_init(&cs->b, KAI_PROTO_BODY_MAX);
	return server_stream(k, conn, cache_stream_next, cache_stream_free,
	    cs);
}

enum kai_db_scope
query_scope(struct kaid *k, uint32_t uid, const struct kai_query *q)
{
	if (rpc_is_operator(k, uid))
		return KAI_DB_SCOPE_ALL;
	if (q->flags & KAI_QUERY_HISTORY)
		return KAI_DB_SCOPE_OWN;
	return KAI_DB_SCOPE_OWN_ENDED;
}

/* The answer of the database (reads.c, on its own connection). */
static void
query_done(int code, const struct kai_err *err, struct kai_jobinfo *jobs,
    size_t n, void *ctx)
{
	struct read_call *c = ctx;
	struct conn *conn = reads_call_conn(c);
	struct kaid *k = reads_call_kaid(c);
	size_t i;

	if (code != 0) {
		if (code != KAI_EAGAIN)
			kai_log_err("could not query jobs: %s", err->msg);
		server_reply_error(k, conn, code, err->msg, NULL);
	} else if (conn != NULL) {
		struct job_stream *js = kai_xcalloc(1, sizeof(*js));

		overlay_reasons(k, jobs, n);
		js->jobs = jobs;
		js->n = n;
		kai_buf_init(&js->b, KAI_PROTO_BODY_MAX);
		/* The stream owns the records now, and resumes the client. */
		reads_call_done(c, !server_stream(k, conn, job_stream_next,
		    job_stream_free, js));
		return;
	}
	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
	reads_call_done(c, true);
}

bool
rpc_query(struct kaid *k, const struct rpc_req *req)
{
	struct read_call *c;
	struct kai_query q;
	struct kai_err err;
	int r;

	memset(&q, 0, sizeof(q));
	if (kai_msg_query_decode(req->body, req->len, &q, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if (!(q.flags & KAI_QUERY_HISTORY) &&
	    (q.state_mask & ~KAI_JOB_STATES_ACTIVE) == 0)
		return query_cache(k, req->conn, &q);
	/* Finished jobs: the database, without holding up the loop. */
	c = reads_call_new(k, req);
	r = kai_db_jobs_query_send(reads_db(k), &q, query_scope(k, req->uid, &q),
	    req->uid, query_done, c, &err);
	reads_sent(k);
	kai_query_fini(&q);
	if (r != 0) {
		kai_log_err("could not query jobs: %s", err.msg);
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		reads_call_done(c, false);
		return false;
	}
	return true;	/* query_done() answers */
}
