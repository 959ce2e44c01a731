/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rpc_submit.c: job submission and the group commit.
 *
 * A submission is decoded and checked at once; a refusal is answered at
 * once and nothing is written.  An accepted one waits in the batch until
 * the loop has handled every ready event, then submit_commit() inserts the
 * whole batch in one transaction and only after the commit answers
 * "Submitted batch job N".  Many clients submitting together therefore
 * share one fsync, and no client is told of a job that is not durable.
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "base/xmalloc.h"
#include "kaid.h"
#include "mail.h"
#include "policy.h"
#include "queues.h"
#include "sys/log.h"
#include "tick.h"

/* The user name of uid, or its number when the host does not know it. */
static char *
user_name(uint32_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL)
		return kai_xstrdup(pw.pw_name);
	return kai_xasprintf("%" PRIu32, uid);
}

/* Whether queue name exists and is a leaf of the queue tree. */
static int
submit_queue(struct kaid *k, const char *name, struct kai_err *err)
{
	char kids[256];
	long qi;

	if ((qi = queues_find(k, name)) < 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid partition specified: \"%s\"", name);
	if (queues_is_parent(k, qi)) {
		queues_children(k, (size_t)qi, kids, sizeof(kids));
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\" is not a leaf: submit to one of its "
		    "children (%s)", name, kids);
	}
	return 0;
}

/*
 * Whether partition queue can run the job: a leaf queue whose time limit
 * allows the job's, whose filesystems hold its paths and one of whose
 * nodes could hold a task.  *tl is the job's -t on entry and its limit
 * in queue on success (the partition's default when it gave none).  A
 * queue made with kctl that is no partition of kaid.yaml has no time
 * limit of its own.
 */
static int
submit_partition(struct kaid *k, const struct kai_jobspec *js,
    const char *queue, int64_t *tl, uint64_t mem_mb, struct kai_err *err)
{
	const struct kai_conf_partition *p;

	if (submit_queue(k, queue, err) != 0 ||
	    pools_check_paths(k, js, queue, err) != 0)
		return err->code;
	p = kai_conf_partition(k->conf, queue);
	if (*tl == KAI_TIME_UNSET)
		*tl = p != NULL ? p->default_time_s : KAI_TIME_UNLIMITED;
	if (p != NULL && p->max_time_s > 0 &&
	    (*tl == KAI_TIME_UNLIMITED || *tl > p->max_time_s))
		return kai_err_set(err, KAI_EINVAL,
		    "requested time limit exceeds the limit of partition "
		    "\"%s\"", p->name);
	if (pools_check_fits(k, js, queue, mem_mb, err) != 0)
		return err->code;
	return nodefeat_check_submit(k, js, queue, err);
}

/*
 * The partition of the job: the one it names, else kaid.yaml's default;
 * of a list (-p a,b), the first that can run it, in the order given.
 * Slurm takes the one that would start it first; the first that can run
 * it is a rule the user can predict and kaid decides once, at
 * submission.  When none can, the first one's reason is the answer: it
 * is the partition the user wanted most.  Sets *queue (a copy the
 * caller owns) and *tl.
 */
static int
submit_partitions(struct kaid *k, const struct kai_jobspec *js,
    uint64_t mem_mb, char **queue, int64_t *tl, struct kai_err *err)
{
	const char *list = js->queue, *p, *end;
	struct kai_err first;
	int64_t t;
	char *name;

	if (list == NULL)
		list = kai_conf_partition(k->conf, NULL)->name;
	memset(&first, 0, sizeof(first));
	for (p = list;; p = end + 1) {
		end = p + strcspn(p, ",");
		name = kai_xstrndup(p, (size_t)(end - p));
		t = *tl;
		if (submit_partition(k, js, name, &t, mem_mb, err) == 0) {
			*queue = name;
			*tl = t;
			return 0;
		}
		free(name);
		if (first.code == 0)
			first = *err;
		if (*end == '\0')
			break;
	}
	*err = first;
	return err->code;
}

/*
 * Resolves the partition, and what kaid.yaml decides: time limit, memory,
 * QoS and account.
 */
static int
submit_resolve(struct kaid *k, const struct rpc_req *req, struct submit *s,
    struct kai_err *err)
{
	struct kai_jobspec *js = &s->spec;
	int64_t tl = js->time_limit_s;
	struct policy pol;

	if (kai_jobspec_validate(js, err) != 0)
		return err->code;
	/* Only native.c names a pod for a job to bind: a client that could
	 * would have kaid bind (and account) a pod that is not its own. */
	if (js->workload != NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "field \"workload\" is set by kaid only");
	if (strlen(js->script) > (size_t)k->conf->max_script_bytes)
		return kai_err_set(err, KAI_EINVAL,
		    "script is too large: %zu bytes (limit %" PRId64 ")",
		    strlen(js->script), k->conf->max_script_bytes);
	if (req->uid == 0 && !k->conf->allow_root_jobs)
		return kai_err_set(err, KAI_EPERM,
		    "jobs may not run as root on this cluster");
	s->nj.mem_mb = js->mem_mb > 0 ? js->mem_mb :
	    (uint64_t)k->conf->default_mem_mb;
	if (submit_partitions(k, js, s->nj.mem_mb, &s->queue, &tl, err) != 0)
		return err->code;
	s->user = user_name(req->uid);
	if (kai_jobspec_check_output(js, s->user, err) != 0)
		return err->code;
	mail_submit_defaults(js, s->user);
	s->nj.spec = js;
	s->nj.uid = req->uid;
	s->nj.gid = req->gid;
	s->nj.user = s->user;
	s->nj.queue = s->queue;
	if (policy_submit(k, req->uid, js, tl,
	    js->time_limit_s != KAI_TIME_UNSET, &pol, err) != 0)
		return err->code;
	s->nj.time_limit_s = pol.time_limit_s;
	s->nj.preemptible = pol.preemptible;
	s->nj.priority = js->hold ? 0 : pol.priority;
	s->nj.submit_time = req->now;
	return 0;
}

static bool submit_enqueue(struct kaid *k, const struct rpc_req *req,
    struct submit *sp);

static void
submit_fini(struct submit *s)
{
	arrays_submit_fini(s);
	kai_jobspec_fini(&s->spec);
	free(s->user);
	free(s->queue);
	memset(s, 0, sizeof(*s));
}

static void
submit_refuse(struct kaid *k, const struct rpc_req *req, struct submit *s,
    const struct kai_err *err)
{
	kai_log_info("audit: uid=%u action=submit result=refused: %s",
	    req->uid, err->msg);
	k->metrics.submit_refused++;
	server_reply_error(k, req->conn, err->code, err->msg, err->hint);
	submit_fini(s);
}

/* A submission with --array or --dependency (KAI_MSG_SUBMIT_EXT). */
bool
rpc_submit_ext(struct kaid *k, const struct rpc_req *req)
{
	struct kai_submit_ext x;
	struct submit s;
	struct kai_err err;
	int r;

	memset(&s, 0, sizeof(s));
	if (kai_msg_submit_ext_decode(req->body, req->len, &x, &err) != 0) {
		submit_refuse(k, req, &s, &err);
		return false;
	}
	s.spec = x.spec;
	memset(&x.spec, 0, sizeof(x.spec));
	r = submit_resolve(k, req, &s, &err);
	if (r == 0)
		r = arrays_submit_check(k, &s, &x, &err);
	kai_submit_ext_fini(&x);
	if (r != 0) {
		submit_refuse(k, req, &s, &err);
		return false;
	}
	s.reply_type = KAI_MSG_SUBMIT_EXT_REPLY;
	return submit_enqueue(k, req, &s);
}

bool
rpc_submit(struct kaid *k, const struct rpc_req *req)
{
	struct submit s;
	struct kai_err err;

	memset(&s, 0, sizeof(s));
	if (kai_msg_submit_decode(req->body, req->len, &s.spec, &err) != 0 ||
	    submit_resolve(k, req, &s, &err) != 0) {
		submit_refuse(k, req, &s, &err);
		return false;
	}
	return submit_enqueue(k, req, &s);
}

/* The group commit's batch: accepted submissions of this iteration. */
struct submits {
	struct submit *v;
	size_t n;
	size_t cap;
};

static struct submits *
sb(struct kaid *k)
{
	if (k->submits == NULL)
		k->submits = kai_xcalloc(1, sizeof(*k->submits));
	return k->submits;
}

void
submit_free(struct kaid *k)
{
	if (k->submits == NULL)
		return;
	free(k->submits->v);
	KAI_FREE(k->submits);
}

/* Queues an accepted submission for the group commit. */
static bool
submit_enqueue(struct kaid *k, const struct rpc_req *req, struct submit *sp)
{
	struct submits *b = sb(k);
	struct submit s = *sp;

	s.conn = req->conn;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->v = kai_xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	b->v[b->n++] = s;
	return true;
}

void
submit_forget_conn(struct kaid *k, struct conn *conn)
{
	size_t i;

	for (i = 0; i < sb(k)->n; i++)
		if (sb(k)->v[i].conn == conn)
			sb(k)->v[i].conn = NULL;
}

/* The scheduler's copy of a freshly inserted job. */
static struct kai_job *
job_from_submit(const struct submit *s, uint64_t id)
{
	struct kai_job *j = kai_xcalloc(1, sizeof(*j));
	const struct kai_jobspec *js = &s->spec;

	j->id = id;
	j->uid = s->nj.uid;
	j->gid = s->nj.gid;
	j->user = kai_xstrdup(s->user);
	j->name = kai_xstrdup(js->name != NULL ? js->name : "");
	j->queue = kai_xstrdup(s->queue);
	j->account = kai_job_optstr(js->account);
	j->qos = kai_job_optstr(js->qos);
	j->workdir = kai_xstrdup(js->workdir != NULL ? js->workdir : "/");
	j->state = KAI_JOB_PENDING;
	j->priority = s->nj.priority;
	j->submit_time = s->nj.submit_time;
	j->ntasks = js->ntasks > 0 ? js->ntasks : 1;
	j->cpus_per_task = js->cpus_per_task > 0 ? js->cpus_per_task : 1;
	j->mem_mb = s->nj.mem_mb;
	j->gpus_per_task = js->gpus_per_task;
	j->time_limit_s = s->nj.time_limit_s;
	j->hold = js->hold;
	j->reason = kai_xstrdup(js->hold ? "JobHeldUser" : "None");
	j->why = kai_xstrdup("");
	j->preemptible = s->nj.preemptible;
	j->requeue = js->requeue != KAI_TRI_NO;
	j->min_tasks = js->min_tasks;
	j->ntasks_per_node = js->ntasks_per_node;
	j->gpus_per_node = js->gpus_per_node;
	j->whole_node = js->whole_node;
	j->gpu_fraction = js->gpu_fraction;
	j->gpu_memory_mb = js->gpu_memory_mb;
	j->gpu_devices = js->gpu_devices;
	j->topology = kai_job_optstr(js->topology);
	j->topology_preferred = kai_job_optstr(js->topology_preferred);
	j->gpu_type = kai_job_optstr(js->gpu_type);
	j->mail_mask = kai_mail_type_mask(js->mail_type);
	j->mail_user = kai_job_optstr(js->mail_user);
	j->features = kai_job_optstr(js->features);
	j->node_req = kai_job_optstr(js->node_req);
	arrays_job_init(j, s);
	return j;
}

static void
submit_answer(struct kaid *k, struct submit *s, uint64_t id,
    const struct kai_err *err)
{
	struct kai_buf b;

	if (err != NULL) {
		server_reply_error(k, s->conn, err->code, err->msg, err->hint);
	} else {
		kai_buf_init(&b, 64);
		if (kai_msg_u64_encode(&b, id) == 0)
			server_reply(k, s->conn, s->reply_type != 0 ?
			    s->reply_type : KAI_MSG_SUBMIT_REPLY, 0, &b);
		kai_buf_fini(&b);
	}
	server_resume(k, s->conn);
}

/*
 * Submissions first..first+n of the batch in one transaction; with
 * arrays.c's columns if any needs them.
 */
static int
submit_insert(struct kaid *k, const struct kai_db_newjob *nj, size_t first,
    size_t n, uint64_t *ids, struct kai_err *err)
{
	struct kai_db_jobext *ext;
	size_t i;
	bool any = false;
	int r;

	for (i = first; i < first + n; i++)
		any |= sb(k)->v[i].ext.array_spec != NULL ||
		    sb(k)->v[i].ext.dependency != NULL;
	if (!any)
		return kai_db_jobs_insert(k->db, nj + first, n, ids + first,
		    err);
	ext = kai_xcalloc(n, sizeof(*ext));
	for (i = 0; i < n; i++)
		ext[i] = sb(k)->v[first + i].ext;
	r = kai_db_jobs_insert_ext(k->db, nj + first, ext, n, ids + first,
	    err);
	free(ext);
	return r;
}

/* Answers submission i: its job is stored as ids[i], or err says why not. */
static void
submit_settle(struct kaid *k, size_t i, uint64_t id,
    const struct kai_err *err)
{
	struct submit *s = &sb(k)->v[i];
	struct kai_err e;

	if (err != NULL) {
		kai_log_err("could not store the submission of uid %u: %s",
		    s->nj.uid, err->msg);
		k->metrics.submit_failed++;
		e = *err;
		kai_err_prefix(&e, "could not store the job");
		submit_answer(k, s, 0, &e);
		return;
	}
	state_job_add(k, job_from_submit(s, id));
	kai_log_info("audit: uid=%u action=submit job=%" PRIu64 " result=ok",
	    s->nj.uid, id);
	submit_answer(k, s, id, NULL);
	k->metrics.submit_accepted++;
}

void
submit_commit(struct kaid *k)
{
	struct kai_db_newjob *nj;
	struct kai_err err;
	uint64_t *ids;
	size_t i, n = sb(k)->n;
	bool stored = false, down = false;

	if (n == 0)
		return;
	nj = kai_xcalloc(n, sizeof(*nj));
	ids = kai_xcalloc(n, sizeof(*ids));
	for (i = 0; i < n; i++) {
		/* The batch array may have moved since the spec was decoded. */
		nj[i] = sb(k)->v[i].nj;
		nj[i].spec = &sb(k)->v[i].spec;
	}
	if (submit_insert(k, nj, 0, n, ids, &err) == 0) {
		for (i = 0; i < n; i++)
			submit_settle(k, i, ids[i], NULL);
		stored = true;
	} else if (n == 1) {
		submit_settle(k, 0, 0, &err);
	} else {
		/*
		 * The batch is one transaction, so one row the database
		 * refuses undoes all of them; the batch holds many users'
		 * jobs, and one user's bad row must not refuse the others.
		 * Each goes in alone, and only the row at fault is refused.
		 * Rare (the checks at submission catch what they can), so
		 * the extra round trips cost nothing in the common case.
		 */
		kai_log_warn("the group commit of %zu submissions failed (%s); "
		    "storing them one by one", n, err.msg);
		for (i = 0; i < n; i++) {
			/* Without a database, the rest fail as the batch did. */
			if (down || (!kai_db_connected(k->db) &&
			    kai_db_reconnect(k->db, &err) != 0)) {
				down = true;
				submit_settle(k, i, 0, &err);
				continue;
			}
			if (submit_insert(k, nj, i, 1, ids, &err) != 0) {
				submit_settle(k, i, 0, &err);
				continue;
			}
			submit_settle(k, i, ids[i], NULL);
			stored = true;
		}
	}
	if (stored)
		tick_soon(k);
	for (i = 0; i < n; i++)
		submit_fini(&sb(k)->v[i]);
	sb(k)->n = 0;
	free(nj);
	free(ids);
}
