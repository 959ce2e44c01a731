/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-seeds.c: writes the seed inputs of the frame and message harnesses
 * (`make fuzz-seeds`), made by the encoders of src/proto, so that the
 * seeds follow the wire format whenever it changes.
 *
 *	fuzz-seeds DIR	writes DIR/msg/seed-NAME (type byte, body) and
 *			DIR/frame/seed-NAME (whole request or reply frames)
 *
 * Crash inputs saved beside the seeds (crash-*) are left alone.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg_tools.h"
#include "proto/proto.h"
#include "proto/proto_array.h"
#include "proto/proto_pty.h"
#include "proto/proto_qos.h"
#include "proto/proto_step.h"
#include "proto/proto_report.h"

/* Looks like a MUNGE credential; the harnesses never verify it. */
#define CRED "MUNGE:AwQFAAB0ZXN0IGNyZWRlbnRpYWwgZm9yIHRoZSBmdXp6ZXI=:"

static const char *dir;

static void
die(const char *what)
{
	fprintf(stderr, "fuzz-seeds: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
put(const char *sub, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s/seed-%s", dir, sub, name);
	if ((f = fopen(path, "wb")) == NULL)
		die(path);
	if ((n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		die(path);
}

/* Writes body as a message seed and as a frame seed; empties body. */
static void
emit(const char *name, uint16_t type, struct kai_buf *body)
{
	struct kai_buf out;
	uint8_t t = (uint8_t)type;

	kai_buf_init(&out, 2 * KAI_PROTO_BODY_MAX);
	if (kai_buf_add(&out, &t, 1) != 0 ||
	    kai_buf_add(&out, body->data, body->len) != 0)
		die("message too long");
	put("msg", name, out.data, out.len);
	kai_buf_reset(&out);
	if (kai_frame_build(&out, type, 0, type % 2 == 0 ? CRED : NULL,
	    body->data, body->len) != 0)
		die("frame too long");
	put("frame", name, out.data, out.len);
	kai_buf_fini(&out);
	kai_buf_reset(body);
}

static void
ok(int r, const char *what)
{
	if (r != 0) {
		fprintf(stderr, "fuzz-seeds: cannot encode %s\n", what);
		exit(1);
	}
}

static void
seeds_jobs(struct kai_buf *b)
{
	static char *argv[] = {"--epochs", "3"};
	static char *env[] = {"HOME=/home/ann", "SLURM_X=1"};
	struct kai_jobspec js;
	struct kai_submit_ext x;
	struct kai_jobinfo ji;
	size_t first = 0;

	memset(&js, 0, sizeof(js));
	js.name = "train";
	js.queue = "gpu";
	js.script = "#!/bin/sh\n#SBATCH -n 2\nsrun python train.py\n";
	js.argv = argv;
	js.argc = 2;
	js.env = env;
	js.nenv = 2;
	js.workdir = "/home/ann/run";
	js.stdout_pattern = "out-%j.txt";
	js.ntasks = 2;
	js.cpus_per_task = 4;
	js.mem_mb = 16384;
	js.gpus_per_task = 1;
	js.time_limit_s = 3600;
	js.signal_number = 10;
	js.signal_secs = 60;
	js.open_mode = KAI_OPEN_APPEND;
	ok(kai_msg_submit_encode(b, &js), "submit");
	emit("submit", KAI_MSG_SUBMIT, b);

	memset(&x, 0, sizeof(x));
	x.array = "0-15%4";
	x.dependency = "afterok:12:13";
	x.spec = js;
	ok(kai_msg_submit_ext_encode(b, &x), "submit_ext");
	emit("submit-ext", KAI_MSG_SUBMIT_EXT, b);
	ok(kai_msg_u64_encode(b, 42), "submit reply");
	emit("submit-reply", KAI_MSG_SUBMIT_REPLY, b);

	memset(&ji, 0, sizeof(ji));
	ji.id = 42;
	ji.name = "train";
	ji.uid = 1000;
	ji.gid = 1000;
	ji.user = "ann";
	ji.queue = "gpu";
	ji.account = "";
	ji.state = KAI_JOB_RUNNING;
	ji.reason = "";
	ji.submit_time = 1767225600;
	ji.start_time = 1767225660;
	ji.time_limit_s = 3600;
	ji.ntasks = 2;
	ji.cpus_per_task = 4;
	ji.mem_mb = 16384;
	ji.gpus_per_task = 1;
	ji.nodelist = "gpu-a1,gpu-a2";
	ji.workdir = "/home/ann/run";
	ji.stdout_path = "/home/ann/run/out-42.txt";
	ji.stderr_path = "/home/ann/run/out-42.txt";
	ji.array_id = "42_3";
	ok(kai_msg_jobs_encode(b, &ji, 1, &first, KAI_PROTO_BODY_MAX),
	    "jobs");
	emit("query-reply", KAI_MSG_QUERY_REPLY, b);
}

static void
seeds_select(struct kai_buf *b)
{
	static uint64_t ids[] = {42, 43};
	static uint32_t uids[] = {1000};
	static char *queues[] = {"gpu", "cpu"};
	struct kai_query q;
	struct kai_cancel c;
	struct kai_cancel_result res[2] = {
		{42, KAI_OK, ""}, {43, KAI_EPERM, "job 43 is not yours"}};
	struct kai_job_control jc = {KAI_JOB_OP_HOLD, ids, 2};
	struct kai_job_update u = {42, KAI_JOB_UPD_ALL, 7200, "gpu", "END,FAIL",
	    "a@b.c"};
	struct kai_log_req l = {42, 1, true};
	struct kai_task_ref t[2] = {{40, 3}, {40, 7}};

	memset(&q, 0, sizeof(q));
	q.ids = ids;
	q.nids = 2;
	q.uids = uids;
	q.nuids = 1;
	q.queues = queues;
	q.nqueues = 2;
	q.state_mask = 0x3;
	q.start = 1767225600;
	q.flags = KAI_QUERY_HISTORY;
	ok(kai_msg_query_encode(b, &q), "query");
	emit("query", KAI_MSG_QUERY, b);
	memset(&c, 0, sizeof(c));
	c.ids = ids;
	c.nids = 2;
	c.queues = queues;
	c.nqueues = 1;
	ok(kai_msg_cancel_encode(b, &c), "cancel");
	emit("cancel", KAI_MSG_CANCEL, b);
	ok(kai_msg_cancel_reply_encode(b, res, 2), "cancel reply");
	emit("cancel-reply", KAI_MSG_CANCEL_REPLY, b);
	ok(kai_msg_job_control_encode(b, &jc), "job control");
	emit("job-control", KAI_MSG_JOB_CONTROL, b);
	ok(kai_msg_job_update_encode(b, &u), "job update");
	emit("job-update", KAI_MSG_JOB_UPDATE, b);
	ok(kai_msg_log_encode(b, &l), "log");
	emit("log", KAI_MSG_LOG, b);
	ok(kai_msg_cancel_tasks_encode(b, t, 2), "cancel tasks");
	emit("cancel-tasks", KAI_MSG_CANCEL_TASKS, b);
	ok(kai_msg_ping_reply_encode(b, 1000, 1000), "ping reply");
	emit("ping-reply", KAI_MSG_PING_REPLY, b);
	emit("ping", KAI_MSG_PING, b);
	ok(kai_msg_error_encode(b, KAI_EINVAL, "invalid time limit \"x\"",
	    "see ksubmit(1)"), "error");
	emit("error", KAI_MSG_ERROR, b);
}

static void
seeds_queues(struct kai_buf *b)
{
	static char *names[] = {"research", "gpu"};
	static char a100[] = "A100";
	static struct kai_queue_gtype types[] = {
		{a100, 2 * KAI_QUEUE_GPU_UNIT, 4 * KAI_QUEUE_GPU_UNIT, -1}};
	struct kai_queue q[2];
	struct kai_queue_change c;
	struct kai_queue_outcome o[2] = {
		{"research", KAI_QUEUE_CREATED}, {"gpu", KAI_QUEUE_UPDATED}};

	kai_queue_init(&q[0]);
	q[0].name = "research";
	q[0].res[KAI_QUEUE_GPU].quota = 4 * KAI_QUEUE_GPU_UNIT;
	kai_queue_init(&q[1]);
	q[1].name = "gpu";
	q[1].parent = "research";
	q[1].res[KAI_QUEUE_GPU].limit = 8 * KAI_QUEUE_GPU_UNIT;
	q[1].types = types;
	q[1].ntypes = 1;
	ok(kai_msg_queues_encode(b, q, 2), "queues");
	emit("queue-list-reply", KAI_MSG_QUEUE_LIST_REPLY, b);
	memset(&c, 0, sizeof(c));
	c.op = KAI_QUEUE_REPLACE;
	c.set = KAI_QUEUE_SET_PARENT | KAI_QUEUE_SET_QUOTA(KAI_QUEUE_GPU) |
	    KAI_QUEUE_SET_GPU_TYPES;
	c.q = q[1];
	ok(kai_msg_queue_apply_encode(b, &c, 1), "queue apply");
	emit("queue-apply", KAI_MSG_QUEUE_APPLY, b);
	ok(kai_msg_queue_outcomes_encode(b, o, 2), "queue outcomes");
	emit("queue-apply-reply", KAI_MSG_QUEUE_APPLY_REPLY, b);
	ok(kai_msg_queue_delete_encode(b, names, 2), "queue delete");
	emit("queue-delete", KAI_MSG_QUEUE_DELETE, b);
	ok(kai_msg_u32_encode(b, 2), "u32");
	emit("queue-delete-reply", KAI_MSG_QUEUE_DELETE_REPLY, b);
}

/* kctl show qos: a default QoS and one with every limit. */
static void
seeds_qos(struct kai_buf *b)
{
	struct kai_qos_info q[2] = {
		{"normal", true, -1, 0, 0, -1},
		{"qos_gpu-t3", false, 125, 2, 3600, 8},
	};

	ok(kai_msg_qos_encode(b, q, 2), "qos list");
	emit("qos-reply", KAI_MSG_QOS_LIST_REPLY, b);
}

/* kacct's steps of a job: its batch script and one srun step. */
static void
seeds_step_list(struct kai_buf *b)
{
	static uint64_t ids[] = {41, 42};
	struct kai_step_info v[2] = {
		{42, KAI_STEP_BATCH, "batch", KAI_JOB_COMPLETED, 0, 1,
		    "gpu-a1", 1767225600, 1767225700, 0, 0, 0},
		{42, 0, "python3", KAI_JOB_FAILED, 768, 2, "gpu-a1,gpu-a2",
		    1767225610, 1767225690, 524288, 262144, 150000000},
	};
	size_t n = 2;

	ok(kai_msg_step_ids_encode(b, ids, 2), "step ids");
	emit("step-list", KAI_MSG_STEP_LIST, b);
	ok(kai_msg_step_list_encode(b, v, &n), "step list");
	emit("step-list-reply", KAI_MSG_STEP_LIST_REPLY, b);
	ok(kai_msg_step_signal_encode(b, ids, 2, 10, KAI_STEP_SIG_BATCH),
	    "step signal");
	emit("step-signal", KAI_MSG_STEP_SIGNAL, b);
}

/* srun's step of two tasks on two pods, and what the agents hear. */
static void
seeds_steps(struct kai_buf *b)
{
	static char *argv[] = {"python3", "train.py"};
	static char *env[] = {"MASTER_PORT=29500", "PATH=/usr/bin:/bin"};
	static uint32_t status[] = {0, 768}, pod[] = {0, 1}, node[] = {0, 1},
			local[] = {0, 0};
	struct kai_step_req r = {0, 2, 2, 0, true, true, "/home/ann", NULL,
	    "/home/ann/err.txt", argv, 2, env, 2};
	struct kai_step_result res = {0, true, status, 2};
	struct kai_step_event ev[2];
	const struct kai_step_event *pv[2] = {&ev[0], &ev[1]};
	struct kai_step_done done = {0, 1, 768, 524288, 2500000};
	size_t n = 2;

	memset(ev, 0, sizeof(ev));
	ev[0].seq = 1;
	ev[0].kind = KAI_STEP_EV_RUN;
	ev[0].label = true;
	ev[0].cwd = "/home/ann";
	ev[0].argv = argv;
	ev[0].argc = 2;
	ev[0].env = env;
	ev[0].nenv = 2;
	ev[0].pod = pod;
	ev[0].node = node;
	ev[0].local = local;
	ev[0].ntasks = 2;
	ev[1].seq = 2;
	ev[1].kind = KAI_STEP_EV_SIGNAL;
	ev[1].sig = 10;
	ok(kai_msg_step_req_encode(b, &r), "step request");
	emit("step-run", KAI_MSG_STEP_RUN, b);
	ok(kai_msg_step_result_encode(b, &res), "step result");
	emit("step-run-reply", KAI_MSG_STEP_RUN_REPLY, b);
	ok(kai_msg_step_agent_encode(b, 1, 0), "step agent");
	emit("step-agent", KAI_MSG_STEP_AGENT, b);
	ok(kai_msg_step_events_encode(b, pv, &n), "step events");
	emit("step-agent-reply", KAI_MSG_STEP_AGENT_REPLY, b);
	ok(kai_msg_step_done_encode(b, &done), "step done");
	emit("step-done", KAI_MSG_STEP_DONE, b);
	ok(kai_msg_step_end_encode(b, 0), "step end");
	emit("step-end", KAI_MSG_STEP_END, b);
	seeds_step_list(b);
}

/* An interactive session: its two openings and a frame of each kind. */
static void
seeds_pty(struct kai_buf *b)
{
	struct kai_pty_open o = {42, KAI_PTY_OWNER, 24, 80};
	struct kai_pty_io io;

	ok(kai_msg_pty_attach_encode(b, &o), "pty attach");
	emit("pty-attach", KAI_MSG_PTY_ATTACH, b);
	o.job = 0;
	o.flags = KAI_PTY_TERMINAL;
	ok(kai_msg_pty_serve_encode(b, &o), "pty serve");
	emit("pty-serve", KAI_MSG_PTY_SERVE, b);
	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_DATA;
	io.data = "ls -l\r";
	io.len = 6;
	ok(kai_msg_pty_io_encode(b, &io), "pty data");
	emit("pty-io-data", KAI_MSG_PTY_IO, b);
	io.kind = KAI_PTY_WINSIZE;
	io.rows = 40;
	io.cols = 120;
	ok(kai_msg_pty_io_encode(b, &io), "pty winsize");
	emit("pty-io-winsize", KAI_MSG_PTY_IO, b);
	io.kind = KAI_PTY_EXIT;
	io.status = 130;
	ok(kai_msg_pty_io_encode(b, &io), "pty exit");
	emit("pty-io-exit", KAI_MSG_PTY_IO_OUT, b);
	io.kind = KAI_PTY_SIGNAL;
	io.signo = 2;
	ok(kai_msg_pty_io_encode(b, &io), "pty signal");
	emit("pty-io-signal", KAI_MSG_PTY_IO, b);
	io.kind = KAI_PTY_NOTICE;
	io.data = "job 42 ended: TIMEOUT";
	io.len = strlen(io.data);
	ok(kai_msg_pty_io_encode(b, &io), "pty notice");
	emit("pty-io-notice", KAI_MSG_PTY_IO_OUT, b);
}

static void
seeds_tools(struct kai_buf *b)
{
	static char *users[] = {"ann"};
	static char *queues[] = {"gpu"};
	static char share_type[] = "A100 0 -1 -1 2000000 1000000 3000000";
	static char *share_types[] = {share_type};
	static uint32_t uids[] = {1000, 1001};
	struct kai_partinfo p = {"gpu", true, 86400, 3600, 3, 1};
	struct kai_nodeinfo n;
	struct kai_share_req sr = {users, 1, queues, 1};
	struct kai_share s;
	struct kai_share_queue sq;
	struct kai_share_user su;
	struct kai_report_req rr = {1767225600, 1767312000, uids, 2, queues, 1};
	struct kai_report_row row;
	size_t qf = 0, uf = 0, first = 0;

	memset(&n, 0, sizeof(n));
	n.name = "gpu-a1";
	n.state = "mix";
	n.reason = "";
	n.cpu_milli = 64000;
	n.mem_mb = 512000;
	n.gpus = 8 * KAI_QUEUE_GPU_UNIT;
	n.gpus_alloc = KAI_QUEUE_GPU_UNIT / 2;
	n.gpu_product = "NVIDIA-A100-SXM4-80GB";
	n.gpu_mem_mb = 81920;
	n.jobs = 1;
	ok(kai_msg_nodes_encode(b, &p, 1, &n, 1), "nodes");
	emit("node-list-reply", KAI_MSG_NODE_LIST_REPLY, b);
	ok(kai_msg_share_req_encode(b, &sr), "share request");
	emit("share", KAI_MSG_SHARE, b);

	memset(&s, 0, sizeof(s));
	memset(&sq, 0, sizeof(sq));
	memset(&su, 0, sizeof(su));
	s.time = 1767225600;
	s.half_life_s = 604800;
	s.window_s = 2592000;
	s.k_value = 1000000;
	sq.name = "gpu";
	sq.priority = 100;
	sq.res[KAI_QUEUE_GPU].quota = KAI_QUEUE_GPU_UNIT;
	sq.res[KAI_QUEUE_GPU].fair_share = -1;
	su.queue = "gpu";
	su.user = "ann";
	su.usage[KAI_QUEUE_GPU] = 3600 * KAI_QUEUE_GPU_UNIT;
	sq.gpu_types = share_types;
	sq.ngpu_types = 1;
	s.queues = &sq;
	s.nqueues = 1;
	s.users = &su;
	s.nusers = 1;
	ok(kai_msg_share_encode(b, &s, &qf, &uf, KAI_PROTO_BODY_MAX), "share");
	emit("share-reply", KAI_MSG_SHARE_REPLY, b);

	ok(kai_msg_report_req_encode(b, &rr), "report request");
	emit("report", KAI_MSG_REPORT, b);
	memset(&row, 0, sizeof(row));
	row.queue = "gpu";
	row.user = "ann";
	row.uid = 1000;
	row.jobs = 3;
	row.completed = 2;
	row.failed = 1;
	row.cpu_s = 7200;
	row.gpu_ms = 3600000;
	ok(kai_msg_report_encode(b, &row, 1, &first, KAI_PROTO_BODY_MAX),
	    "report");
	emit("report-reply", KAI_MSG_REPORT_REPLY, b);
	seeds_qos(b);
	seeds_steps(b);
	seeds_pty(b);
}

int
main(int argc, char **argv)
{
	struct kai_buf b;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	seeds_jobs(&b);
	seeds_select(&b);
	seeds_queues(&b);
	seeds_tools(&b);
	kai_buf_fini(&b);
	return 0;
}
