-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 003-job-scheduling.sql: a job's scheduling options (issue 3) and the
-- GPU devices of its allocations.
--
-- priority_class is one of KAI's classes (train, build-preemptible,
-- build, inference); jobs.priority keeps its number (0 while held, as
-- squeue shows).  preemptible is settled at submission (the class's
-- default unless the job said otherwise).  requeue false: a preempted job
-- ends PREEMPTED instead of waiting again.  min_tasks 0 means every task
-- (a plain gang).  gpu_fraction is in micro-GPUs of one GPU (500000 =
-- half), gpu_memory_mb in MiB of one GPU; both 0 for whole-GPU jobs.
-- The topology levels are node label keys, '' for none.
--
-- allocations.gpu_mask names the node's GPU devices the scheduler chose
-- (bit i = device i) and gpu_fraction the share of that device a
-- fractional task holds; kaid rebuilds its view of shared GPUs from them
-- after a restart.  Rows written before this migration have 0: kaid lets
-- the scheduler lay those out again, as it did before.

ALTER TABLE jobs
	ADD COLUMN priority_class text NOT NULL DEFAULT 'train',
	ADD COLUMN preemptible boolean NOT NULL DEFAULT true,
	ADD COLUMN requeue boolean NOT NULL DEFAULT true,
	ADD COLUMN min_tasks int NOT NULL DEFAULT 0,
	ADD COLUMN gpu_fraction bigint NOT NULL DEFAULT 0,
	ADD COLUMN gpu_memory_mb bigint NOT NULL DEFAULT 0,
	ADD COLUMN topology text NOT NULL DEFAULT '',
	ADD COLUMN topology_preferred text NOT NULL DEFAULT '';

ALTER TABLE jobs
	ADD CONSTRAINT jobs_sched_check CHECK (min_tasks >= 0 AND
	    gpu_fraction >= 0 AND gpu_fraction < 1000000 AND
	    gpu_memory_mb >= 0);

ALTER TABLE allocations
	ADD COLUMN gpu_mask bigint NOT NULL DEFAULT 0,
	ADD COLUMN gpu_fraction bigint NOT NULL DEFAULT 0;
