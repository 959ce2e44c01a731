-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 007-usage-gpu-share.sql: the usage index covers the GPU share of
-- fractional jobs (issue 4).
--
-- The decayed usage (kai_db_usage_load()) and kacct's report count a job's
-- GPUs with their fractions: --gpu-fraction from jobs.gpu_fraction,
-- --gpu-memory from the allocations the scheduler charged (looked up by
-- jobs.id).  004's covering index lacked those columns, so each job in
-- the usage window cost a heap fetch; this one carries them, and the usage
-- aggregate stays one index-only range scan of the window.

DROP INDEX IF EXISTS jobs_usage_idx;
CREATE INDEX jobs_usage_idx ON jobs (end_time)
	INCLUDE (queue, user_name, start_time, ntasks, gpus_per_task,
	    cpus_per_task, mem_mb, gpu_fraction, gpu_memory_mb, id)
	WHERE start_time > 0 AND end_time > 0;
