/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * msgtype.h: every message type of the wire protocol, in one enum.
 *
 * Requests have even numbers and their replies the next odd one, so the
 * side that sent a frame is known from its type alone (frame.c names the
 * older program in a version mismatch that way).  The numbers travel in
 * every frame header and are documented in doc/design/PROTOCOL.md:
 * append only, never renumbered, never reused.
 */
#ifndef KAI_PROTO_MSGTYPE_H
#define KAI_PROTO_MSGTYPE_H

enum kai_msg_type {
	KAI_MSG_ERROR = 1,	  /* reply: struct kai_msg_error; its layout,
				   * like the header's, is the same in every
				   * protocol version */
	KAI_MSG_SUBMIT = 2,	  /* request: struct kai_jobspec */
	KAI_MSG_SUBMIT_REPLY = 3, /* reply: u64 job id */
	KAI_MSG_QUERY = 4,	  /* request: struct kai_query */
	KAI_MSG_QUERY_REPLY = 5,  /* reply: jobinfo list, may span frames */
	KAI_MSG_CANCEL = 6,	  /* request: struct kai_cancel */
	KAI_MSG_CANCEL_REPLY = 7, /* reply: cancel results */
	KAI_MSG_PING = 8,	  /* request: empty body */
	KAI_MSG_PING_REPLY = 9,	  /* reply: u32 uid, u32 gid as kaid saw them */
	/* Queues (proto.h) */
	KAI_MSG_QUEUE_LIST = 10,	 /* request: empty body */
	KAI_MSG_QUEUE_LIST_REPLY = 11,	 /* reply: queue list */
	KAI_MSG_QUEUE_APPLY = 12,	 /* request: queue changes */
	KAI_MSG_QUEUE_APPLY_REPLY = 13,	 /* reply: one result per change */
	KAI_MSG_QUEUE_DELETE = 14,	 /* request: queue names */
	KAI_MSG_QUEUE_DELETE_REPLY = 15, /* reply: u32 queues deleted */
	KAI_MSG_SHARE = 16,		 /* request: struct kai_share_req */
	KAI_MSG_SHARE_REPLY = 17,	 /* reply: struct kai_share, may span
					    frames; 18-19 are reserved */
	/* The Slurm tools (proto/msg_tools.h) */
	KAI_MSG_NODE_LIST = 20,		 /* request: empty body */
	KAI_MSG_NODE_LIST_REPLY = 21,	 /* reply: partitions and nodes */
	KAI_MSG_JOB_CONTROL = 22,	 /* request: hold/release job ids */
	KAI_MSG_JOB_CONTROL_REPLY = 23,	 /* reply: cancel results' shape */
	KAI_MSG_JOB_UPDATE = 24,	 /* request: struct kai_job_update */
	KAI_MSG_JOB_UPDATE_REPLY = 25,	 /* reply: u32 fields changed */
	KAI_MSG_LOG = 26,		 /* request: struct kai_log_req */
	KAI_MSG_LOG_REPLY = 27,		 /* reply: log bytes, may span frames */
	/* kacct --report (proto/proto_report.h) */
	KAI_MSG_REPORT = 28,		 /* request: struct kai_report_req */
	KAI_MSG_REPORT_REPLY = 29,	 /* reply: rows, may span frames */
	/* kctl show qos (proto/proto_qos.h) */
	KAI_MSG_QOS_LIST = 30,		 /* request: empty body */
	KAI_MSG_QOS_LIST_REPLY = 31,	 /* reply: QoS list; 32-39 are
					    reserved */
	/* Job arrays and dependencies (proto/proto_array.h) */
	KAI_MSG_SUBMIT_EXT = 40,	 /* request: array, dependency, spec */
	KAI_MSG_SUBMIT_EXT_REPLY = 41,	 /* reply: u64 job id, as SUBMIT's */
	KAI_MSG_CANCEL_TASKS = 42,	 /* request: array tasks */
	KAI_MSG_CANCEL_TASKS_REPLY = 43, /* reply: cancel results */
	/* Job steps, srun inside a job (proto/proto_step.h) */
	KAI_MSG_STEP_RUN = 44,		 /* request: struct kai_step_req */
	KAI_MSG_STEP_RUN_REPLY = 45,	 /* reply: struct kai_step_result */
	KAI_MSG_STEP_AGENT = 46,	 /* request: u32 pod, u64 seq */
	KAI_MSG_STEP_AGENT_REPLY = 47,	 /* reply: step events */
	KAI_MSG_STEP_DONE = 48,		 /* request: step, task, status */
	KAI_MSG_STEP_DONE_REPLY = 49,	 /* reply: empty */
	KAI_MSG_STEP_END = 50,		 /* request: i32 batch status */
	KAI_MSG_STEP_END_REPLY = 51,	 /* reply: empty */
	KAI_MSG_STEP_LIST = 52,		 /* request: u64v job ids (kacct) */
	KAI_MSG_STEP_LIST_REPLY = 53,	 /* reply: step records */
	KAI_MSG_STEP_SIGNAL = 54,	 /* request: kcancel --signal */
	KAI_MSG_STEP_SIGNAL_REPLY = 55,	 /* reply: cancel results */
	/* Interactive sessions (proto/proto_pty.h) */
	KAI_MSG_PTY_ATTACH = 56,	 /* request: a client asks for a job's
					    terminal */
	KAI_MSG_PTY_ATTACH_REPLY = 57,	 /* reply: u64 job; IO follows */
	KAI_MSG_PTY_SERVE = 58,		 /* request: a pod offers its terminal */
	KAI_MSG_PTY_SERVE_REPLY = 59,	 /* reply: u64 job; IO follows */
	KAI_MSG_PTY_IO = 60,		 /* stream frame to kaid */
	KAI_MSG_PTY_IO_OUT = 61		 /* stream frame from kaid; 62-63 are
					    reserved */
};

#endif /* KAI_PROTO_MSGTYPE_H */
