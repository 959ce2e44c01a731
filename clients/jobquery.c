/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobquery.c: one KAI_MSG_QUERY round trip, and the job views shared by
 * kqueue and kacct.  See jobquery.h.
 */
#include "config.h"

#include "jobquery.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xmalloc.h"
#include "model/jobfields.h"
#include "client.h"
#include "output.h"

struct collect {
	const char *prog;
	struct kai_jobinfo *jobs;
	size_t n;
};

static int
on_jobs(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct collect *c = ctx;
	struct kai_err err;

	kai_err_clear(&err);
	if (type != KAI_MSG_QUERY_REPLY) {
		client_error(c->prog, NULL,
		    "invalid reply from kaid: unexpected message type %u",
		    (unsigned)type);
		return CLIENT_EXIT_CONNECT;
	}
	if (kai_msg_jobs_decode(body, len, &c->jobs, &c->n, &err) != 0) {
		client_error(c->prog, NULL, "invalid reply from kaid: %s",
		    kai_err_msg(&err));
		return CLIENT_EXIT_CONNECT;
	}
	return CLIENT_EXIT_OK;
}

int
jobquery_run(const char *prog, const struct kai_query *q,
    struct kai_jobinfo **jobs, size_t *n)
{
	struct collect c = {prog, NULL, 0};
	struct kai_buf b;
	int rc;

	kai_buf_init(&b, (size_t)KAI_PROTO_BODY_MAX);
	if (kai_msg_query_encode(&b, q) != 0) {
		kai_buf_fini(&b);
		client_error(prog, NULL,
		    "query is too large to send: it passes %d bytes",
		    KAI_PROTO_BODY_MAX);
		return CLIENT_EXIT_USAGE;
	}
	rc = client_request(prog, KAI_MSG_QUERY, b.data, b.len, on_jobs, &c);
	kai_buf_fini(&b);
	if (rc != CLIENT_EXIT_OK) {
		jobquery_free(c.jobs, c.n);
		return rc;
	}
	*jobs = c.jobs;
	*n = c.n;
	return CLIENT_EXIT_OK;
}

void
jobquery_free(struct kai_jobinfo *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kai_jobinfo_fini(&jobs[i]);
	free(jobs);
}

int64_t
jobquery_elapsed(const struct kai_jobinfo *j, int64_t now)
{
	int64_t end;

	if (j->start_time <= 0)
		return 0;
	end = j->end_time > 0 ? j->end_time : now;
	return end > j->start_time ? end - j->start_time : 0;
}

uint64_t
jobquery_gpus(const struct kai_jobinfo *j)
{
	return kai_job_gpus(j->gpus_per_task, j->gpus_per_node,
	    j->ntasks_per_node, j->ntasks);
}

uint32_t
jobquery_nodes(const struct kai_jobinfo *j)
{
	uint32_t ntasks = j->ntasks > 0 ? j->ntasks : 1,
		 k = j->ntasks_per_node;

	/* Each pod is a node, but the tasks of a group share theirs. */
	return k > 0 && ntasks % k == 0 ? ntasks / k : ntasks;
}

uint64_t
jobquery_cpus(const struct kai_jobinfo *j)
{
	return (uint64_t)(j->ntasks > 0 ? j->ntasks : 1) *
	    (j->cpus_per_task > 0 ? j->cpus_per_task : 1);
}

const char *
jobquery_mem(uint64_t mb, char *buf, size_t size)
{
	if (mb > 0 && mb % ((uint64_t)1024 * 1024) == 0)
		(void)snprintf(buf, size, "%lluT",
		    (unsigned long long)(mb / ((uint64_t)1024 * 1024)));
	else if (mb > 0 && mb % 1024 == 0)
		(void)snprintf(buf, size, "%lluG",
		    (unsigned long long)(mb / 1024));
	else
		(void)snprintf(buf, size, "%lluM", (unsigned long long)mb);
	return buf;
}

/*
 * The rows of model/jobfields.def that have a --json key, in their order,
 * added to o where o has no such key yet (the Slurm layout's keys come
 * first and win).  The state (the one ENUM) shows as its name, and its
 * squeue code under "<key>_code".
 */
void
jobquery_json_fill(struct json_object *o, const struct kai_jobinfo *j)
{
	const enum kai_jf_rec rec = KAI_JF_REC_INFO;
	char code[64];
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];
		const char *s;

		if (f->json == NULL || !kai_jf_in(f, rec) ||
		    json_object_object_get_ex(o, f->json, NULL))
			continue;
		switch (f->type) {
		case KAI_JF_T_STR:
			s = kai_jf_cstr(f, rec, j);
			if ((f->flags & KAI_JF_OMIT_EMPTY) &&
			    (s == NULL || s[0] == '\0'))
				break;
			out_json_add_str(o, f->json, s);
			break;
		case KAI_JF_T_ENUM:
			out_json_add_str(o, f->json, kai_jobstate_name(
			    (enum kai_job_state)kai_jf_get_int(f, rec, j)));
			(void)snprintf(code, sizeof(code), "%s_code", f->json);
			out_json_add_str(o, code, kai_jobstate_code(
			    (enum kai_job_state)kai_jf_get_int(f, rec, j)));
			break;
		case KAI_JF_T_BOOL:
			(void)json_object_object_add(o, f->json,
			    json_object_new_boolean(kai_jf_get_int(f, rec, j)
			    != 0));
			break;
		default:
			out_json_add_int(o, f->json, kai_jf_get_int(f, rec, j));
			break;
		}
	}
}

const struct kai_jobinfo **
jobquery_sorted(const struct kai_jobinfo *jobs, size_t n,
    int (*cmp)(const void *, const void *))
{
	const struct kai_jobinfo **v;
	size_t i;

	if (n == 0)
		return NULL;
	v = kai_xreallocarray(NULL, n, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = &jobs[i];
	qsort(v, n, sizeof(*v), cmp);
	return v;
}
