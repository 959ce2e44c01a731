-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 002-queues.sql: hierarchical queues with quotas, limits, weights and a
-- priority, managed with kctl (issue 3).
--
-- Units are the scheduler's: GPUs as a decimal number of GPUs (fractions
-- allowed, kept exact to the micro-GPU), CPU in millicores, memory in
-- MiB.  quota -1 is unlimited and 0 none; limit -1 is none; a weight is
-- the share of the surplus among siblings.  The queues that exist already
-- (kaid.yaml's partitions, mirrored by kai_db_queues_sync()) become
-- top-level leaf queues that guarantee and cap nothing: the column
-- defaults.
--
-- A deleted queue keeps its row (deleted = true): finished jobs still
-- name it (jobs.queue references queues), and kacct must keep answering
-- for them.  Creating it again revives the row as a new, youngest queue.
--
-- ord is the creation order, the scheduler's last tie-break ("older
-- queue first"); the queues that exist get it in the order they were
-- created.

ALTER TABLE queues
	ADD COLUMN parent text REFERENCES queues (name),
	ADD COLUMN priority bigint NOT NULL DEFAULT 100,
	ADD COLUMN gpu_quota numeric(24, 6) NOT NULL DEFAULT -1,
	ADD COLUMN gpu_limit numeric(24, 6) NOT NULL DEFAULT -1,
	ADD COLUMN gpu_weight numeric(24, 6) NOT NULL DEFAULT 1,
	ADD COLUMN cpu_quota bigint NOT NULL DEFAULT -1,
	ADD COLUMN cpu_limit bigint NOT NULL DEFAULT -1,
	ADD COLUMN cpu_weight numeric(24, 6) NOT NULL DEFAULT 1,
	ADD COLUMN mem_quota bigint NOT NULL DEFAULT -1,
	ADD COLUMN mem_limit bigint NOT NULL DEFAULT -1,
	ADD COLUMN mem_weight numeric(24, 6) NOT NULL DEFAULT 1,
	ADD COLUMN preempt_min_runtime_s bigint NOT NULL DEFAULT -1,
	ADD COLUMN reclaim_min_runtime_s bigint NOT NULL DEFAULT -1,
	ADD COLUMN deleted boolean NOT NULL DEFAULT false,
	ADD COLUMN ord bigint;

ALTER TABLE queues
	ADD CONSTRAINT queues_parent_not_self CHECK (parent <> name),
	ADD CONSTRAINT queues_gpu_check CHECK (
	    (gpu_quota = -1 OR gpu_quota >= 0) AND
	    (gpu_limit = -1 OR gpu_limit >= 0) AND gpu_weight >= 0),
	ADD CONSTRAINT queues_cpu_check CHECK (
	    cpu_quota >= -1 AND cpu_limit >= -1 AND cpu_weight >= 0),
	ADD CONSTRAINT queues_mem_check CHECK (
	    mem_quota >= -1 AND mem_limit >= -1 AND mem_weight >= 0),
	ADD CONSTRAINT queues_runtime_check CHECK (
	    preempt_min_runtime_s >= -1 AND reclaim_min_runtime_s >= -1);

CREATE SEQUENCE queues_ord_seq OWNED BY queues.ord;
UPDATE queues SET ord = o.n
	FROM (SELECT name, row_number() OVER (ORDER BY created, name) AS n
	    FROM queues) AS o
	WHERE queues.name = o.name;
SELECT setval('queues_ord_seq', coalesce(max(ord), 0) + 1, false)
	FROM queues;
ALTER TABLE queues
	ALTER COLUMN ord SET DEFAULT nextval('queues_ord_seq'),
	ALTER COLUMN ord SET NOT NULL;
CREATE UNIQUE INDEX queues_ord_idx ON queues (ord);

-- kai_db_queues_load() counts the active jobs of each queue.
CREATE INDEX jobs_active_queue_idx ON jobs (queue)
	WHERE state IN ('PENDING', 'CONFIGURING', 'RUNNING');
