/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched-bounds: the snapshot's narrow fields (issue 14) take every value
 * up to their bounds and refuse the next one by name, never wrapping:
 * kai_sched_task_request() for a task's request, the cycle itself for
 * topology levels and the number of jobs.  A task at its bounds goes
 * through a cycle and comes back with the figures it asked for.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sched/sched_model.h"
#include "tap.h"

#define MAXREQ ((uint64_t)KAI_SCHED_MAX_TASK_REQ)

/* Each field at its bound, then one above it. */
static void
test_request(void)
{
	static const struct {
		const char *field;
		uint64_t v[5]; /* gpus, fraction, GPU memory, CPU, memory */
	} over[] = {
	    {"gpus", {KAI_SCHED_MAX_TASK_GPUS + 1, 0, 0, 0, 0}},
	    {"gpu_fraction", {0, MAXREQ + 1, 0, 0, 0}},
	    {"gpu_memory_mib", {0, 0, MAXREQ + 1, 0, 0}},
	    {"cpu_millis", {0, 0, 0, MAXREQ + 1, 0}},
	    {"memory_mib", {0, 0, 0, 0, MAXREQ + 1}},
	    {"memory_mib", {0, 0, 0, 0, UINT64_MAX}},
	};
	struct kai_sched_snap_task t;
	struct kai_err err;
	char want[128];
	size_t i;

	kai_sched_task_init(&t);
	is_int(kai_sched_task_request(&t, KAI_SCHED_MAX_TASK_GPUS, MAXREQ,
		   MAXREQ, MAXREQ, MAXREQ, &err),
	    0, "every field at its bound is taken");
	is_int(t.gpus, KAI_SCHED_MAX_TASK_GPUS, "gpus kept as given");
	is_int(t.gpu_fraction, INT32_MAX, "gpu_fraction kept as given");
	is_int(t.gpu_memory_mib, INT32_MAX, "gpu_memory_mib kept as given");
	is_int(t.cpu_millis, INT32_MAX, "cpu_millis kept as given");
	is_int(t.memory_mib, INT32_MAX, "memory_mib kept as given");
	for (i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		kai_sched_task_init(&t);
		t.cpu_millis = 7;
		is_int(kai_sched_task_request(&t, over[i].v[0], over[i].v[1],
			   over[i].v[2], over[i].v[3], over[i].v[4], &err),
		    KAI_EINVAL, "%s above its bound is refused", over[i].field);
		(void)snprintf(want, sizeof(want),
		    "%s %llu is above the scheduler's limit of %llu",
		    over[i].field,
		    (unsigned long long)(over[i].v[0] + over[i].v[1] +
			over[i].v[2] + over[i].v[3] + over[i].v[4]),
		    (unsigned long long)(i == 0 ? KAI_SCHED_MAX_TASK_GPUS
						: MAXREQ));
		is_str(err.msg, want, "%s: the message names it", over[i].field);
		is_int(t.cpu_millis, 7, "%s: the task is left as it was",
		    over[i].field);
	}
}

/* One node, one queue, one job of one task asking for what t asks. */
struct world {
	struct kai_sched_snap_node node;
	struct kai_sched_snap_queue q;
	struct kai_sched_snap_job job;
	struct kai_sched_snap_task task;
	struct kai_sched_snapshot s;
};

static void
world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	kai_sched_config_init(&w->s.config);
	w->node.name = "n0";
	w->node.gpus = 8;
	w->node.cpu_millis = -1;
	w->node.memory_mib = -1;
	kai_sched_queue_init(&w->q);
	w->q.name = "q";
	kai_sched_job_init(&w->job);
	w->job.name = "j";
	w->job.ntasks = 1;
	kai_sched_task_init(&w->task);
	w->s.nodes = &w->node;
	w->s.nnodes = 1;
	w->s.queues = &w->q;
	w->s.nqueues = 1;
	w->s.jobs = &w->job;
	w->s.njobs = 1;
	w->s.tasks = &w->task;
	w->s.ntasks = 1;
}

/* Requests at their bounds reach the core unwrapped: the reason says. */
static void
test_cycle_at_bounds(void)
{
	struct world w;
	struct kai_sched_result r;
	struct kai_err err;
	char buf[256];

	world_init(&w);
	w.node.cpu_millis = 1000;
	if (kai_sched_task_request(&w.task, 1, 0, 0, MAXREQ, 0, &err) != 0)
		diag("%s", err.msg);
	is_int(kai_sched_cycle(&w.s, &r, &err), 0, "a cycle at the bounds");
	is_int(r.jobs[0].state, KAI_SCHED_JOB_PENDING, "the job waits");
	is_str(kai_sched_why_text(&w.s, &r.jobs[0].why, buf, sizeof(buf)),
	    "a task needs 2147483647 millicores of CPU but no node has more "
	    "than 1000",
	    "its reason gives the CPU it asked for");
	kai_sched_result_fini(&r);

	world_init(&w);
	w.task.gpus = KAI_SCHED_MAX_TASK_GPUS;
	is_int(kai_sched_cycle(&w.s, &r, &err), 0, "255 GPUs: a cycle");
	is_str(kai_sched_why_text(&w.s, &r.jobs[0].why, buf, sizeof(buf)),
	    "a task needs 255 GPUs but no node has more than 8",
	    "255 GPUs: the reason gives them");
	kai_sched_result_fini(&r);
}

/* A topology deeper than a level index holds, job GPU types out of
 * range or unnamed, and too many jobs. */
static void
test_validate(void)
{
	static const char *levels[KAI_SCHED_MAX_LEVELS + 1];
	static const char *const types[] = {"A100"}, *const empty[] = {""};
	struct kai_sched_topology tp = {"deep", levels, 0};
	struct kai_sched_result r;
	struct kai_err err;
	struct world w;
	size_t i;

	for (i = 0; i < KAI_SCHED_MAX_LEVELS + 1; i++)
		levels[i] = "level";
	world_init(&w);
	w.task.gpus = 1;
	w.s.topologies = &tp;
	w.s.ntopologies = 1;
	tp.nlevels = KAI_SCHED_MAX_LEVELS;
	is_int(kai_sched_cycle(&w.s, &r, &err), 0, "127 levels are taken");
	kai_sched_result_fini(&r);
	tp.nlevels = KAI_SCHED_MAX_LEVELS + 1;
	is_int(kai_sched_cycle(&w.s, &r, &err), KAI_EINVAL,
	    "128 levels are refused");
	is_str(err.msg,
	    "topology \"deep\": 128 levels, more than the 127 supported",
	    "... by name");

	world_init(&w);
	w.task.gpus = 1;
	w.job.gpu_type = 2;
	w.s.gpu_types = types;
	w.s.ngpu_types = 1;
	is_int(kai_sched_cycle(&w.s, &r, &err), KAI_EINVAL,
	    "a job type past the snapshot's is refused");
	is_str(err.msg, "job \"j\": no such GPU type", "... naming the job");
	w.job.gpu_type = 1;
	is_int(kai_sched_cycle(&w.s, &r, &err), 0, "type 1 is the first");
	is_str(kai_sched_job_gpu_type(&w.s, 0), "A100", "... and named so");
	kai_sched_result_fini(&r);
	w.s.gpu_types = empty;
	is_int(kai_sched_cycle(&w.s, &r, &err), KAI_EINVAL,
	    "an empty type name is refused");
	is_str(err.msg, "job GPU type 0 has no name", "... by its index");

	world_init(&w);
	w.s.njobs = (size_t)KAI_SCHED_MAX_JOBS + 1; /* never read */
	is_int(kai_sched_cycle(&w.s, &r, &err), KAI_EINVAL,
	    "2^30 jobs are refused");
	is_str(err.msg, "1073741824 jobs: more than the 1073741823 supported",
	    "... saying how many");
}

int
main(void)
{
	test_request();
	test_cycle_at_bounds();
	test_validate();
	return done_testing();
}
