-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 001-initial.sql: jobs, their allocations, queues and the event log.
--
-- Applied by kai_db_migrate() in one transaction, which then records the
-- version in schema_version; never edit a released migration, add a new
-- numbered file instead.
--
-- Times are bigint unix seconds with 0 meaning "not yet" (start_time,
-- end_time): kaid works in unix seconds throughout, so there is no
-- conversion at the edge and no time zone to get wrong.  uid, gid and
-- actor_uid are bigint because a Unix uid is an unsigned 32-bit number;
-- actor_uid -1 is kaid itself.  State names are those of
-- src/model/jobstate.h.

CREATE TABLE schema_version (
	version int NOT NULL
);

-- Partitions from kaid.yaml, kept in step by kai_db_queues_sync().
CREATE TABLE queues (
	name text PRIMARY KEY,
	created timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE jobs (
	id bigserial PRIMARY KEY,
	name text,
	uid bigint NOT NULL,
	gid bigint NOT NULL,
	user_name text NOT NULL DEFAULT '',
	queue text NOT NULL REFERENCES queues (name),
	account text NOT NULL DEFAULT '',
	state text NOT NULL CHECK (state IN ('PENDING', 'CONFIGURING',
	    'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT',
	    'PREEMPTED', 'NODE_FAIL', 'OUT_OF_MEMORY')),
	reason text NOT NULL DEFAULT '',
	priority bigint NOT NULL DEFAULT 0,
	hold boolean NOT NULL DEFAULT false,
	submit_time bigint NOT NULL,
	start_time bigint NOT NULL DEFAULT 0,
	end_time bigint NOT NULL DEFAULT 0,
	time_limit_s bigint NOT NULL DEFAULT 0,
	ntasks int NOT NULL DEFAULT 1,
	cpus_per_task int NOT NULL DEFAULT 1,
	mem_mb bigint NOT NULL DEFAULT 0,
	gpus_per_task int NOT NULL DEFAULT 0,
	image text,
	workdir text NOT NULL DEFAULT '/',
	stdout_pattern text,
	stderr_pattern text,
	script text NOT NULL,
	argv text[] NOT NULL DEFAULT '{}',
	env text[] NOT NULL DEFAULT '{}',
	nodelist text NOT NULL DEFAULT '',
	exit_code int NOT NULL DEFAULT 0,
	exit_signal int NOT NULL DEFAULT 0,
	requeue_count int NOT NULL DEFAULT 0
);

-- kaid's start-up load and kqueue read the few active jobs among many
-- finished ones.
CREATE INDEX jobs_active_idx ON jobs (id)
	WHERE state IN ('PENDING', 'CONFIGURING', 'RUNNING');
-- kacct: one user's jobs in a time window, and everybody's by end time.
CREATE INDEX jobs_uid_submit_idx ON jobs (uid, submit_time);
CREATE INDEX jobs_end_idx ON jobs (end_time);
CREATE INDEX jobs_submit_idx ON jobs (submit_time);

CREATE TABLE allocations (
	job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	task int NOT NULL,
	node text NOT NULL,
	pod text NOT NULL,
	gpus int NOT NULL DEFAULT 0,
	cpus int NOT NULL DEFAULT 0,
	mem_mb bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (job_id, task)
);

-- The audit trail: every state change, the submission included
-- (from_state NULL), with who asked for it.
CREATE TABLE events (
	id bigserial PRIMARY KEY,
	job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	time bigint NOT NULL,
	from_state text,
	to_state text NOT NULL,
	reason text NOT NULL DEFAULT '',
	actor_uid bigint NOT NULL DEFAULT -1
);
CREATE INDEX events_job_idx ON events (job_id);
