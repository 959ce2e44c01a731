/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-plan: the first placement policy, driven with literal snapshots.
 */
#include "config.h"

#include <string.h>

#include "sched/sched.h"
#include "tap.h"

static const struct kai_sched_decision *
find(const struct kai_sched_output *o, uint64_t id)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->decisions[i].job_id == id)
			return &o->decisions[i];
	return NULL;
}

static void
test_binpack_and_order(void)
{
	struct kai_sched_node nodes[] = {
		{"a", 32000, 256000, 8, 8, true},
		{"b", 32000, 256000, 2, 8, true},
		{"c", 32000, 256000, 8, 8, false},
	};
	struct kai_sched_job jobs[] = {
		{1, 0, 100, 1, 1000, 1024, 2, false},	/* fits b exactly */
		{2, 0, 101, 2, 1000, 1024, 4, false},	/* two tasks on a */
		{3, 0, 102, 1, 1000, 1024, 1, false},	/* nothing left */
		{4, 10, 200, 1, 1000, 1024, 0, true},	/* held */
		{5, 0, 103, 1, 1000, 1024, 9, false},	/* never fits */
	};
	struct kai_sched_input in = {nodes, 3, jobs, 5, 1000};
	struct kai_sched_output out;
	const struct kai_sched_decision *d;

	kai_sched_plan(&in, &out);
	is_int((int64_t)out.n, 5, "one decision per job");
	is_int((int64_t)out.nplaced, 2, "two jobs placed");
	d = find(&out, 1);
	ok(d != NULL && d->reason == KAI_SCHED_PLACED && d->task_node[0] == 1,
	    "2-GPU job packed onto the node with 2 free GPUs");
	d = find(&out, 2);
	ok(d != NULL && d->reason == KAI_SCHED_PLACED && d->ntasks == 2 &&
		d->task_node[0] == 0 && d->task_node[1] == 0,
	    "both tasks of job 2 on node a");
	d = find(&out, 3);
	is_str(kai_sched_reason_name(d->reason), "Resources",
	    "first job that does not fit waits for Resources");
	d = find(&out, 4);
	is_str(kai_sched_reason_name(d->reason), "JobHeldUser",
	    "held job is not placed");
	d = find(&out, 5);
	is_str(kai_sched_reason_name(d->reason), "ReqNodeNotAvail",
	    "job needing more GPUs than any node has");
	kai_sched_output_fini(&out);
}

static void
test_priority_and_gang(void)
{
	struct kai_sched_node nodes[] = {
		{"a", 8000, 64000, 4, 4, true},
	};
	struct kai_sched_job jobs[] = {
		{1, 0, 100, 1, 1000, 1024, 4, false},
		{2, 5, 200, 1, 1000, 1024, 4, false}, /* higher priority */
		{3, 0, 50, 3, 1000, 1024, 1, false},  /* 3 tasks, older */
	};
	struct kai_sched_input in = {nodes, 1, jobs, 3, 1000};
	struct kai_sched_output out;
	const struct kai_sched_decision *d;

	kai_sched_plan(&in, &out);
	d = find(&out, 2);
	ok(d->reason == KAI_SCHED_PLACED, "higher priority placed first");
	is_int((int64_t)out.decisions[0].job_id, 2, "plan order starts with it");
	d = find(&out, 3);
	is_str(kai_sched_reason_name(d->reason), "Resources",
	    "a job is all-or-nothing over its tasks");
	d = find(&out, 1);
	is_str(kai_sched_reason_name(d->reason), "Priority",
	    "later jobs wait behind a blocked one");
	kai_sched_output_fini(&out);
}

static void
test_no_nodes(void)
{
	struct kai_sched_job jobs[] = {{1, 0, 1, 1, 1000, 1, 0, false}};
	struct kai_sched_input in = {NULL, 0, jobs, 1, 0};
	struct kai_sched_output out;

	kai_sched_plan(&in, &out);
	is_str(kai_sched_reason_name(out.decisions[0].reason),
	    "Nodes_not_ready", "no nodes: a reason, no placement");
	kai_sched_output_fini(&out);
}

int
main(void)
{
	test_binpack_and_order();
	test_priority_and_gang();
	test_no_nodes();
	return done_testing();
}
