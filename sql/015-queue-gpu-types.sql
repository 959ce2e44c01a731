-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 015-queue-gpu-types.sql: quotas and limits per GPU type (issue 14,
-- doc/scheduler.md "GPU types").
--
-- A queue may give, for each GPU type (a value of the node label that
-- kaid.yaml's scheduler.gpu_type_label names, nvidia.com/gpu.product by
-- default), a quota and a limit in GPUs and an over-quota weight, on top
-- of its GPU quota and limit for all types together.  A type a queue does
-- not list has quota 0, no limit and the queue's GPU weight, which is
-- what the rows that exist now mean: no row.  Units as in 002-queues.sql;
-- weight -1 means the queue's GPU weight.  The rows of a deleted queue
-- stay with it and are replaced when it is created again.
--
-- A job may name the type its GPUs must be (ksubmit --gres=gpu:TYPE:N,
-- --gpus=TYPE:N): jobs.gpu_type, NULL for any type (the jobs there now).

CREATE TABLE queue_gpu_types (
	queue text NOT NULL REFERENCES queues (name),
	type text NOT NULL,
	quota numeric(24, 6) NOT NULL DEFAULT 0,
	lim numeric(24, 6) NOT NULL DEFAULT -1,
	weight numeric(24, 6) NOT NULL DEFAULT -1,
	PRIMARY KEY (queue, type),
	CONSTRAINT queue_gpu_types_check CHECK (
	    type <> '' AND
	    (quota = -1 OR quota >= 0) AND (lim = -1 OR lim >= 0) AND
	    (weight = -1 OR weight >= 0))
);

ALTER TABLE jobs ADD COLUMN gpu_type text;
