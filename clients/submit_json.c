/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_json.c: the --parse-only report.  See submit_json.h.
 *
 * Every key is always present, null when not given, so that a consumer
 * can index the object without checking; the order of the keys is the
 * order of the man page.  json-c keeps insertion order.
 */
#include "config.h"

#include "submit_json.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "submit_env.h"

#define J_NULL NULL /* json-c stores a NULL value as null */

static void
put(struct json_object *o, const char *key, struct json_object *v)
{
	(void)json_object_object_add(o, key, v);
}

static struct json_object *
str_or_null(const char *s)
{
	return s != NULL ? json_object_new_string(s) : J_NULL;
}

static struct json_object *
int_or_null(int64_t v)
{
	return v != SUBMIT_UNSET ? json_object_new_int64(v) : J_NULL;
}

static struct json_object *
nodes_json(const struct submit_opts *o)
{
	struct json_object *n;

	if (o->nodes_min == SUBMIT_UNSET)
		return J_NULL;
	n = json_object_new_object();
	put(n, "min", json_object_new_int64(o->nodes_min));
	put(n, "max", json_object_new_int64(o->nodes_max));
	return n;
}

static struct json_object *
memory_json(const struct submit_opts *o)
{
	static const char *const per[] = {"node", "cpu", "gpu"};
	int k = submit_opts_mem_kind(o);
	struct json_object *m;

	if (k < 0)
		return J_NULL;
	m = json_object_new_object();
	put(m, "per", json_object_new_string(per[k]));
	if (o->mem[k].mib == 0)
		put(m, "all", json_object_new_boolean(1));
	else
		put(m, "mib", json_object_new_int64((int64_t)o->mem[k].mib));
	return m;
}

static struct json_object *
gpus_json(const struct submit_opts *o)
{
	const struct {
		const char *per;
		const struct submit_gpu *g;
	} g[] = {{"job", &o->gpus_job}, {"node", &o->gpus_node},
	    {"task", &o->gpus_task}};
	struct json_object *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < KAI_NELEM(g); i++) {
		if (g[i].g->count == SUBMIT_UNSET)
			continue;
		e = json_object_new_object();
		put(e, "per", json_object_new_string(g[i].per));
		put(e, "count", json_object_new_int64(g[i].g->count));
		put(e, "type", str_or_null(g[i].g->type));
		(void)json_object_array_add(a, e);
	}
	return a;
}

static struct json_object *
array_json(const struct submit_opts *o)
{
	struct json_object *a, *idx;
	const struct kai_array_range *r;
	uint32_t x;
	size_t i;

	if (o->array_spec == NULL)
		return J_NULL;
	a = json_object_new_object();
	idx = json_object_new_array_ext((int)kai_array_count(&o->array));
	for (i = 0; i < o->array.n; i++) {
		r = &o->array.r[i];
		for (x = r->lo; x <= r->hi; x += r->step)
			(void)json_object_array_add(idx,
			    json_object_new_int64(x));
	}
	put(a, "spec", json_object_new_string(o->array_spec));
	put(a, "indices", idx);
	/* "%0" (no limit) is shown as given; no "%" is null */
	put(a, "throttle", strchr(o->array_spec, '%') != NULL ?
	    json_object_new_int64(o->array.throttle) : J_NULL);
	return a;
}

/* "123", or "123_4" for an array task. */
static struct json_object *
dep_job_json(const struct kai_dep_item *it)
{
	char buf[48];

	if (it->task == KAI_DEP_TASK_ALL)
		(void)snprintf(buf, sizeof(buf), "%" PRIu64, it->job);
	else
		(void)snprintf(buf, sizeof(buf), "%" PRIu64 "_%" PRIu32,
		    it->job, it->task);
	return json_object_new_string(buf);
}

/*
 * One entry of "items" per "type:job:job" group as written, split where
 * the "+minutes" of after changes (kai_dep_parse() makes an item of each job).
 */
static struct json_object *
dependency_json(const struct submit_opts *o)
{
	struct json_object *d, *items, *it, *jobs;
	const struct kai_dep_item *di;
	size_t i, j;

	if (o->dep_spec == NULL)
		return J_NULL;
	d = json_object_new_object();
	items = json_object_new_array();
	put(d, "spec", json_object_new_string(o->dep_spec));
	put(d, "combine", json_object_new_string(o->dep.any ? "any" : "all"));
	put(d, "kill_on_invalid",
	    json_object_new_boolean(o->kill_invalid_dep));
	for (i = 0; i < o->dep.n; i = j) {
		di = &o->dep.items[i];
		it = json_object_new_object();
		jobs = json_object_new_array();
		for (j = i; j < o->dep.n && o->dep.items[j].group == di->group &&
		    o->dep.items[j].delay_min == di->delay_min; j++)
			if (di->type != KAI_DEP_SINGLETON)
				(void)json_object_array_add(jobs,
				    dep_job_json(&o->dep.items[j]));
		put(it, "type",
		    json_object_new_string(kai_dep_type_name(di->type)));
		put(it, "jobs", jobs);
		if (di->type == KAI_DEP_AFTER)
			put(it, "delay_min",
			    json_object_new_int64(di->delay_min));
		(void)json_object_array_add(items, it);
	}
	put(d, "items", items);
	return d;
}

static struct json_object *
export_json(const struct submit_opts *o)
{
	static const char *const modes[] = {"ALL", "NONE", "LIST"};
	struct submit_export ex;
	struct json_object *e, *pass, *set;
	size_t i, klen;

	if (submit_export_parse(o->export, &ex, NULL) != 0)
		return J_NULL; /* submit_opts_finish() rejected it already */
	e = json_object_new_object();
	pass = json_object_new_array();
	set = json_object_new_object();
	for (i = 0; i < ex.npass; i++)
		(void)json_object_array_add(pass,
		    json_object_new_string(ex.pass[i]));
	for (i = 0; i < ex.nset; i++) {
		klen = strcspn(ex.set[i], "=");
		ex.set[i][klen] = '\0';
		put(set, ex.set[i],
		    json_object_new_string(ex.set[i] + klen + 1));
	}
	put(e, "mode", json_object_new_string(modes[ex.mode]));
	put(e, "pass", pass);
	put(e, "set", set);
	submit_export_fini(&ex);
	return e;
}

static struct json_object *
signal_json(const struct submit_opts *o)
{
	struct json_object *s;

	if (!o->signal_set)
		return J_NULL;
	s = json_object_new_object();
	put(s, "number", json_object_new_int(o->signal.number));
	put(s, "name", str_or_null(submit_signal_name(o->signal.number)));
	put(s, "seconds_before_end", json_object_new_int64(o->signal.secs));
	put(s, "batch_only", json_object_new_boolean(o->signal.batch_only));
	return s;
}

static struct json_object *
tristate(int v)
{
	return v < 0 ? J_NULL : json_object_new_boolean(v);
}

static void
add_slurm(struct json_object *r, const struct submit_opts *o,
    const char *default_name, const char *cwd)
{
	const char *out = o->output != NULL ? o->output
	    : o->array_spec != NULL         ? "slurm-%A_%a.out"
					    : "slurm-%j.out";

	put(r, "job_name",
	    json_object_new_string(o->name != NULL ? o->name : default_name));
	put(r, "partition", str_or_null(o->partition));
	put(r, "account", str_or_null(o->account));
	put(r, "qos", str_or_null(o->qos));
	put(r, "mail_type", str_or_null(o->mail_type));
	put(r, "mail_user", str_or_null(o->mail_user));
	put(r, "time_limit_s",
	    o->time_limit_s == KAI_TIME_UNSET
		? J_NULL
		: json_object_new_int64(o->time_limit_s));
	put(r, "nodes", nodes_json(o));
	put(r, "ntasks", int_or_null(o->ntasks));
	put(r, "ntasks_per_node", int_or_null(o->ntasks_per_node));
	put(r, "cpus_per_task", int_or_null(o->cpus_per_task));
	put(r, "cpus_per_gpu", int_or_null(o->cpus_per_gpu));
	put(r, "memory", memory_json(o));
	put(r, "gpus", gpus_json(o));
	put(r, "array", array_json(o));
	put(r, "dependency", dependency_json(o));
	put(r, "stdout_pattern", json_object_new_string(out));
	put(r, "stderr_pattern",
	    json_object_new_string(o->error != NULL ? o->error : out));
	put(r, "stdin_pattern", str_or_null(o->input));
	put(r, "chdir",
	    json_object_new_string(o->chdir != NULL ? o->chdir : cwd));
	put(r, "export", export_json(o));
	put(r, "hold", json_object_new_boolean(o->hold));
	put(r, "requeue", tristate(o->requeue));
	put(r, "signal", signal_json(o));
	put(r, "open_mode",
	    o->open_mode == 0
		? J_NULL
		: json_object_new_string(
		      o->open_mode == 'a' ? "append" : "truncate"));
}

static void
add_later(struct json_object *r, const struct submit_opts *o)
{
	struct json_object *b = J_NULL, *t = J_NULL;

	if (o->begin != NULL) {
		b = json_object_new_object();
		put(b, "spec", json_object_new_string(o->begin));
		put(b, "epoch", json_object_new_int64(o->begin_t));
	}
	put(r, "begin", b);
	put(r, "wait", json_object_new_boolean(o->wait));
	put(r, "image", str_or_null(o->image));
	put(r, "gpu_fraction",
	    o->gpu_fraction == NULL
		? J_NULL
		: json_object_new_double_s(o->gpu_fraction_v, o->gpu_fraction));
	put(r, "gpu_memory_mib",
	    o->gpu_memory_mib == 0
		? J_NULL
		: json_object_new_int64((int64_t)o->gpu_memory_mib));
	put(r, "gpu_devices", int_or_null(o->gpu_devices));
	put(r, "min_tasks", int_or_null(o->min_tasks));
	if (o->topo_required != NULL || o->topo_preferred != NULL) {
		t = json_object_new_object();
		put(t, "name", str_or_null(o->topo_name));
		put(t, "required", str_or_null(o->topo_required));
		put(t, "preferred", str_or_null(o->topo_preferred));
	}
	put(r, "topology", t);
	put(r, "priority_class", str_or_null(o->priority_class));
	put(r, "preemptible", tristate(o->preemptible));
}

static void
add_warning(const char *option, const char *msg, void *ctx)
{
	struct json_object *a = ctx;
	size_t i, n = json_object_array_length(a);

	(void)msg;
	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(a, i)),
			option) == 0)
			return;
	(void)json_object_array_add(a, json_object_new_string(option));
}

static struct json_object *
spec_json(const struct kai_jobspec *js)
{
	struct json_object *s = json_object_new_object();

	put(s, "ntasks", json_object_new_int64(js->ntasks));
	put(s, "cpus_per_task", json_object_new_int64(js->cpus_per_task));
	put(s, "mem_mib_per_task", json_object_new_int64((int64_t)js->mem_mb));
	put(s, "gpus_per_node", json_object_new_int64(js->gpus_per_node));
	put(s, "gpus_per_task", json_object_new_int64(js->gpus_per_task));
	put(s, "ntasks_per_node", json_object_new_int64(js->ntasks_per_node));
	put(s, "exclusive",
	    json_object_new_boolean(js->whole_node & KAI_JOB_WHOLE_EXCL));
	put(s, "mem_whole_node",
	    json_object_new_boolean((js->whole_node & KAI_JOB_WHOLE_MEM) != 0));
	return s;
}

/* The scheduling options as kaid receives them (PROTOCOL.md SUBMIT). */
static struct json_object *
sched_json(const struct kai_jobspec *js)
{
	struct json_object *s = json_object_new_object();

	put(s, "priority_class", str_or_null(js->priority_class));
	put(s, "preempt", json_object_new_int64(js->preempt));
	put(s, "requeue", json_object_new_int64(js->requeue));
	put(s, "min_tasks", json_object_new_int64(js->min_tasks));
	put(s, "gpu_fraction", json_object_new_int64(js->gpu_fraction));
	put(s, "gpu_memory_mb", json_object_new_int64((int64_t)js->gpu_memory_mb));
	put(s, "gpu_devices", json_object_new_int64(js->gpu_devices));
	put(s, "topology", str_or_null(js->topology));
	put(s, "topology_preferred", str_or_null(js->topology_preferred));
	put(s, "gpu_type", str_or_null(js->gpu_type));
	put(s, "features", str_or_null(js->features));
	put(s, "node_req", str_or_null(js->node_req));
	return s;
}

struct json_object *
submit_json_new(const struct submit_opts *o, const char *default_name,
    const char *cwd, const struct kai_jobspec *js)
{
	struct json_object *r = json_object_new_object();
	struct json_object *warn = json_object_new_array();
	struct json_object *refused = json_object_new_array();
	const char *names[32];
	size_t i, n;

	put(r, "valid", json_object_new_boolean(1));
	put(r, "error", J_NULL);
	add_slurm(r, o, default_name, cwd);
	add_later(r, o);
	submit_opts_warnings(o, add_warning, warn);
	put(r, "warnings", warn);
	n = submit_opts_refusals(o, names, KAI_NELEM(names));
	for (i = 0; i < n && i < KAI_NELEM(names); i++)
		(void)json_object_array_add(refused,
		    json_object_new_string(names[i]));
	put(r, "refused", refused);
	put(r, "spec", spec_json(js));
	put(r, "sched", sched_json(js));
	return r;
}

struct json_object *
submit_json_invalid_new(const char *msg)
{
	struct json_object *r = json_object_new_object();

	put(r, "valid", json_object_new_boolean(0));
	put(r, "error", json_object_new_string(msg));
	return r;
}
