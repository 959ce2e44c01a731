/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slurmjson.c: the Slurm 22.05 --json layouts of kqueue and kacct.  See
 * slurmjson.h.  The key names and nesting follow squeue(1)/sacct(1)
 * --json of 22.05 (openapi v0.0.38 and dbv0.0.38); values come from our
 * job record, and a key we cannot fill is left out rather than invented.
 */
#include "config.h"

#include "slurmjson.h"

#include <grp.h>
#include <json-c/json.h>
#include <string.h>

#include "model/jobstate.h"
#include "jobquery.h"
#include "output.h"

/* Slurm's TRES ids (cpu 1, mem 2, node 4, billing 5; the first GRES 1001). */
enum { TRES_CPU = 1, TRES_MEM = 2, TRES_NODE = 4, TRES_BILLING = 5,
	TRES_GPU = 1001 };

static struct json_object *
meta(enum slurmjson_layout l)
{
	struct json_object *m = json_object_new_object();
	struct json_object *p = json_object_new_object();
	struct json_object *s = json_object_new_object();
	struct json_object *v = json_object_new_object();
	bool db = l == SLURMJSON_SACCT;

	out_json_add_str(p, "type", db ? "openapi/dbv0.0.38" : "openapi/v0.0.38");
	out_json_add_str(p, "name",
	    db ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38");
	(void)json_object_object_add(m, "plugin", p);
	/* the Slurm release whose layout this is; "release" says who made it */
	out_json_add_int(v, "major", 22);
	out_json_add_int(v, "minor", 5);
	out_json_add_int(v, "micro", 0);
	(void)json_object_object_add(s, "version", v);
	out_json_add_str(s, "release", "kaibatch " PACKAGE_VERSION);
	(void)json_object_object_add(m, "Slurm", s);
	return m;
}

static void
add_null(struct json_object *o, const char *key)
{
	(void)json_object_object_add(o, key, NULL);
}

/* Minutes, as Slurm keeps limits (rounded up); null for no limit. */
static void
add_limit(struct json_object *o, const char *key, int64_t seconds)
{
	if (seconds <= 0)
		add_null(o, key);
	else
		out_json_add_int(o, key, (seconds + 59) / 60);
}

static int64_t
unset0(int64_t t)
{
	return t > 0 ? t : 0;
}

static bool
pending(const struct kai_jobinfo *j)
{
	return j->state == KAI_JOB_PENDING;
}

/* Distinct nodes of the allocation (kaid's node list has no repeats). */
static int64_t
node_count(const struct kai_jobinfo *j)
{
	const char *p = j->nodelist;
	int64_t n = 1;

	if (p == NULL || *p == '\0')
		return pending(j) ? 1 : 0;
	for (; *p != '\0'; p++)
		n += *p == ',';
	return n;
}

/*
 * squeue's tres_req_str: cpu=4,mem=16G,node=1,billing=4,gres/gpu=2 (the
 * order slurmctld writes it in).
 */
static void
tres_str(const struct kai_jobinfo *j, char *b, size_t n)
{
	char mem[32], gres[48] = "";
	uint64_t cpus = jobquery_cpus(j);
	uint64_t gpus = jobquery_gpus(j);

	if (gpus > 0)
		(void)snprintf(gres, sizeof(gres), ",gres/gpu=%llu",
		    (unsigned long long)gpus);
	(void)jobquery_mem((uint64_t)(j->ntasks > 0 ? j->ntasks : 1) *
	    j->mem_mb, mem, sizeof(mem));
	(void)snprintf(b, n, "cpu=%llu,mem=%s,node=1,billing=%llu%s",
	    (unsigned long long)cpus, mem, (unsigned long long)cpus, gres);
}

static struct json_object *
squeue_job(const struct kai_jobinfo *j)
{
	struct json_object *o = json_object_new_object();
	char buf[256];
	int64_t start;

	out_json_add_str(o, "account", j->account);
	out_json_add_bool(o, "batch_flag", true);
	out_json_add_int(o, "cpus_per_task",
	    j->cpus_per_task > 0 ? j->cpus_per_task : 1);
	out_json_add_int(o, "end_time", unset0(j->end_time));
	/* a wait status, as slurmctld keeps it: code << 8 | signal */
	out_json_add_int(o, "exit_code",
	    ((int64_t)(j->exit_code & 0xff) << 8) | (j->exit_signal & 0x7f));
	out_json_add_int(o, "group_id", j->gid);
	out_json_add_int(o, "job_id", (int64_t)j->id);
	out_json_add_str(o, "job_state", kai_jobstate_name(j->state));
	out_json_add_str(o, "name", j->name);
	out_json_add_str(o, "nodes", j->nodelist);
	out_json_add_int(o, "cpus", (int64_t)jobquery_cpus(j));
	out_json_add_int(o, "node_count", node_count(j));
	out_json_add_int(o, "tasks", j->ntasks > 0 ? j->ntasks : 1);
	out_json_add_str(o, "partition", j->queue);
	if (j->mem_mb > 0) {
		out_json_add_int(o, "memory_per_node", (int64_t)((uint64_t)
		    (j->ntasks > 0 ? j->ntasks : 1) * j->mem_mb));
	} else {
		add_null(o, "memory_per_node");
	}
	add_null(o, "memory_per_cpu");
	out_json_add_int(o, "priority", j->priority);
	/* squeue's start_time of a pending job is the expected start */
	start = pending(j) ? unset0(j->est_start) : unset0(j->start_time);
	out_json_add_int(o, "start_time", start);
	out_json_add_str(o, "state_reason",
	    j->reason != NULL && *j->reason ? j->reason : "None");
	out_json_add_str(o, "standard_error", j->stderr_path);
	out_json_add_str(o, "standard_output", j->stdout_path);
	out_json_add_int(o, "submit_time", unset0(j->submit_time));
	add_limit(o, "time_limit", j->time_limit_s);
	tres_str(j, buf, sizeof(buf));
	out_json_add_str(o, "tres_req_str", buf);
	out_json_add_str(o, "tres_alloc_str", pending(j) ? "" : buf);
	out_json_add_int(o, "user_id", j->uid);
	out_json_add_str(o, "user_name", j->user);
	out_json_add_str(o, "current_working_directory", j->workdir);
	return o;
}

/* sacct's exit_code object: {status, return_code[, signal]}. */
struct json_object *
slurmjson_exit_code(const struct kai_jobinfo *j)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sig;

	if (!kai_jobstate_is_terminal(j->state)) {
		out_json_add_str(o, "status", "PENDING");
		add_null(o, "return_code");
	} else if (j->exit_signal > 0) {
		out_json_add_str(o, "status", "SIGNALED");
		add_null(o, "return_code");
		sig = json_object_new_object();
		out_json_add_int(sig, "signal_id", j->exit_signal);
		out_json_add_str(sig, "name", strsignal(j->exit_signal));
		(void)json_object_object_add(o, "signal", sig);
	} else {
		out_json_add_str(o, "status",
		    j->exit_code == 0 ? "SUCCESS" : "ERROR");
		out_json_add_int(o, "return_code", j->exit_code);
	}
	return o;
}

static void
tres_add(struct json_object *arr, const char *type, const char *name, int id,
    struct json_object *count)
{
	struct json_object *t = json_object_new_object();

	out_json_add_str(t, "type", type);
	out_json_add_str(t, "name", name);
	out_json_add_int(t, "id", id);
	(void)json_object_object_add(t, "count", count);
	(void)json_object_array_add(arr, t);
}

/*
 * A TRES list [{type, name, id, count}]: cpu, mem (MB), node, billing,
 * gres/gpu (a fraction of a GPU shows as a number with a point).
 */
static struct json_object *
tres_list(const struct kai_jobinfo *j, uint64_t gpu_micro, int64_t nodes)
{
	struct json_object *a = json_object_new_array();
	int64_t cpus = (int64_t)jobquery_cpus(j);

	tres_add(a, "cpu", "", TRES_CPU, json_object_new_int64(cpus));
	tres_add(a, "mem", "", TRES_MEM, json_object_new_int64((int64_t)
	    ((uint64_t)(j->ntasks > 0 ? j->ntasks : 1) * j->mem_mb)));
	tres_add(a, "node", "", TRES_NODE, json_object_new_int64(nodes));
	tres_add(a, "billing", "", TRES_BILLING, json_object_new_int64(cpus));
	if (gpu_micro % KAI_GPU_MICRO == 0 && gpu_micro > 0)
		tres_add(a, "gres", "gpu", TRES_GPU, json_object_new_int64(
		    (int64_t)(gpu_micro / KAI_GPU_MICRO)));
	else if (gpu_micro > 0)
		tres_add(a, "gres", "gpu", TRES_GPU, json_object_new_double(
		    (double)gpu_micro / KAI_GPU_MICRO));
	return a;
}

static struct json_object *
sacct_job(const struct kai_jobinfo *j, int64_t now)
{
	struct json_object *o = json_object_new_object();
	struct json_object *d, *t;
	struct group *gr = getgrgid((gid_t)j->gid);
	char gid[16];
	bool started = j->start_time > 0;

	out_json_add_str(o, "account", j->account);
	out_json_add_int(o, "allocation_nodes", started ? node_count(j) : 0);
	d = json_object_new_object();
	out_json_add_str(d, "status", "SUCCESS");
	out_json_add_int(d, "return_code", 0);
	/* no srun steps: sacct's DerivedExitCode is 0:0 */
	(void)json_object_object_add(o, "derived_exit_code", d);
	t = json_object_new_object();
	out_json_add_int(t, "elapsed", jobquery_elapsed(j, now));
	out_json_add_int(t, "eligible", unset0(j->submit_time));
	out_json_add_int(t, "end", unset0(j->end_time));
	out_json_add_int(t, "start", unset0(j->start_time));
	out_json_add_int(t, "submission", unset0(j->submit_time));
	out_json_add_int(t, "suspended", 0);
	add_limit(t, "limit", j->time_limit_s);
	(void)json_object_object_add(o, "time", t);
	(void)json_object_object_add(o, "exit_code", slurmjson_exit_code(j));
	(void)snprintf(gid, sizeof(gid), "%u", j->gid);
	out_json_add_str(o, "group", gr != NULL ? gr->gr_name : gid);
	out_json_add_int(o, "job_id", (int64_t)j->id);
	out_json_add_str(o, "name", j->name);
	out_json_add_str(o, "nodes", started && j->nodelist != NULL &&
	    *j->nodelist ? j->nodelist : "None assigned");
	out_json_add_str(o, "partition", j->queue);
	out_json_add_int(o, "priority", j->priority);
	d = json_object_new_object();
	out_json_add_int(d, "CPUs", (int64_t)jobquery_cpus(j));
	out_json_add_int(d, "memory", (int64_t)((uint64_t)
	    (j->ntasks > 0 ? j->ntasks : 1) * j->mem_mb));
	(void)json_object_object_add(o, "required", d);
	d = json_object_new_object();
	out_json_add_str(d, "current", kai_jobstate_name(j->state));
	out_json_add_str(d, "reason",
	    j->reason != NULL && *j->reason ? j->reason : "None");
	(void)json_object_object_add(o, "state", d);
	(void)json_object_object_add(o, "steps", json_object_new_array());
	d = json_object_new_object();
	(void)json_object_object_add(d, "allocated", started
	    ? tres_list(j, j->gpu_micro, node_count(j))
	    : json_object_new_array());
	(void)json_object_object_add(d, "requested", tres_list(j,
	    jobquery_gpus(j) * KAI_GPU_MICRO, 1));
	(void)json_object_object_add(o, "tres", d);
	out_json_add_str(o, "user", j->user);
	out_json_add_str(o, "working_directory", j->workdir);
	return o;
}

struct json_object *
slurmjson_jobs(enum slurmjson_layout l, const struct kai_jobinfo *const *v,
    size_t n, int64_t now)
{
	struct json_object *root = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct json_object *o;
	size_t i;

	(void)json_object_object_add(root, "meta", meta(l));
	(void)json_object_object_add(root, "errors", json_object_new_array());
	for (i = 0; i < n; i++) {
		o = l == SLURMJSON_SACCT ? sacct_job(v[i], now)
					 : squeue_job(v[i]);
		jobquery_json_fill(o, v[i]);
		(void)json_object_array_add(arr, o);
	}
	(void)json_object_object_add(root, "jobs", arr);
	return root;
}
