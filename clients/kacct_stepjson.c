/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_stepjson.c: the steps of kacct --json, as sacct --json (Slurm
 * 22.05, dbv0.0.38) lists them under each job: N.batch and N.0, N.1...
 * with their times, exit code, nodes, tasks, state and id, and the
 * measured peak and mean RSS as consumed "mem" TRES.  The job's
 * derived_exit_code comes from its steps, as sacct's DerivedExitCode.
 *
 * kaid measures each task's CPU as one sum (wait4's user + system): it is
 * the step's time/total, and time/user with time/system 0 (the two are
 * not told apart).  Keys our records cannot fill (pid, CPU frequency,
 * energy, the requested TRES) are left out.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kacct_steps.h"
#include "model/jobstate.h"
#include "output.h"
#include "slurmjson.h"

static struct json_object *
cpu_time(uint64_t usec)
{
	struct json_object *o = json_object_new_object();

	out_json_add_int(o, "seconds", (int64_t)(usec / 1000000));
	out_json_add_int(o, "microseconds", (int64_t)(usec % 1000000));
	return o;
}

/* [{"type": "mem", "name": "", "id": 2, "count": BYTES}] or []. */
static struct json_object *
mem_tres(bool known, uint64_t kb)
{
	struct json_object *a = json_object_new_array(), *t;

	if (!known)
		return a;
	t = json_object_new_object();
	out_json_add_str(t, "type", "mem");
	out_json_add_str(t, "name", "");
	out_json_add_int(t, "id", 2);
	out_json_add_int(t, "count", (int64_t)(kb * 1024));
	(void)json_object_array_add(a, t);
	return a;
}

static struct json_object *
step_times(const struct kai_jobinfo *r, const struct kacct_usage *u,
    int64_t now)
{
	struct json_object *t = json_object_new_object();
	uint64_t cpu = u->cpu ? u->cpu_usec : 0;
	int64_t end = r->end_time > 0 ? r->end_time : now;

	out_json_add_int(t, "elapsed",
	    r->start_time > 0 && end > r->start_time ? end - r->start_time : 0);
	out_json_add_int(t, "end", r->end_time);
	out_json_add_int(t, "start", r->start_time);
	out_json_add_int(t, "suspended", 0);
	(void)json_object_object_add(t, "system", cpu_time(0));
	(void)json_object_object_add(t, "total", cpu_time(cpu));
	(void)json_object_object_add(t, "user", cpu_time(cpu));
	return t;
}

/* {"count", "range", "list"}: a step's nodes, "a,b" as kaid keeps them. */
static struct json_object *
step_nodes(const char *nodelist)
{
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();
	const char *p = nodelist != NULL ? nodelist : "";
	int64_t count = 0;

	while (*p != '\0') {
		size_t len = strcspn(p, ",");

		(void)json_object_array_add(list,
		    json_object_new_string_len(p, (int)len));
		count++;
		p += len;
		if (*p == ',')
			p++;
	}
	out_json_add_int(o, "count", count);
	out_json_add_str(o, "range", nodelist != NULL ? nodelist : "");
	(void)json_object_object_add(o, "list", list);
	return o;
}

static struct json_object *
step_json(const struct kai_jobinfo *r, const char *suffix,
    const struct kacct_usage *u, int64_t now)
{
	struct json_object *o = json_object_new_object(), *d, *c;

	(void)json_object_object_add(o, "time", step_times(r, u, now));
	(void)json_object_object_add(o, "exit_code", slurmjson_exit_code(r));
	(void)json_object_object_add(o, "nodes", step_nodes(r->nodelist));
	d = json_object_new_object();
	out_json_add_int(d, "count", r->ntasks);
	(void)json_object_object_add(o, "tasks", d);
	out_json_add_str(o, "state", kai_jobstate_name(r->state));
	d = json_object_new_object();
	out_json_add_int(d, "job_id", (int64_t)r->id);
	/* The suffix is ".batch" or ".N": Slurm's id is "batch" or N. */
	if (strcmp(suffix, ".batch") == 0)
		out_json_add_str(d, "id", "batch");
	else
		out_json_add_int(d, "id", strtoll(suffix + 1, NULL, 10));
	out_json_add_str(d, "name", r->name);
	(void)json_object_object_add(o, "step", d);
	d = json_object_new_object();
	c = json_object_new_object();
	(void)json_object_object_add(c, "max", mem_tres(u->rss,
	    u->max_rss_kb));
	(void)json_object_object_add(c, "average", mem_tres(u->rss,
	    u->ave_rss_kb));
	(void)json_object_object_add(d, "consumed", c);
	(void)json_object_object_add(o, "tres", d);
	return o;
}

void
kacct_steps_json(struct json_object *root,
    const struct kai_jobinfo *const *v, size_t n,
    const struct kacct_steps *s, int64_t now)
{
	struct json_object *arr, *jo, *steps;
	struct kai_jobinfo *rows, derived;
	struct kacct_usage *usage, ju;
	char **sfx;
	size_t i, k, nr;

	if (!json_object_object_get_ex(root, "jobs", &arr))
		return;
	for (i = 0; i < n; i++) {
		jo = json_object_array_get_idx(arr, i);
		kacct_job_usage(v[i], s, &ju);
		if (ju.derived) {
			memset(&derived, 0, sizeof(derived));
			derived.state = KAI_JOB_COMPLETED;
			derived.exit_code = ju.derived_code;
			derived.exit_signal = ju.derived_signal;
			(void)json_object_object_add(jo, "derived_exit_code",
			    slurmjson_exit_code(&derived));
		}
		nr = kacct_step_rows(v[i], s, &rows, &sfx, &usage);
		steps = json_object_new_array();
		for (k = 0; k < nr; k++)
			(void)json_object_array_add(steps,
			    step_json(&rows[k], sfx[k], &usage[k], now));
		(void)json_object_object_add(jo, "steps", steps);
		kacct_rows_free(rows, sfx, usage, nr);
	}
}
