-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 005-arrays.sql: job arrays and dependencies (issue 4).
--
-- An array is stored the way Slurm keeps it: ONE row for the tasks that
-- have not started (array_pending, a compact index set such as
-- "5-9999" or "1-9:2"), whose id is the array's id (SLURM_ARRAY_JOB_ID),
-- so a 10,000-task submission costs one row.  When the scheduler starts a
-- task, or a user cancels one that has not started, kaid splits it off:
-- a copy of the row with a new id, array_task_id set and array_pending
-- NULL, and the index taken out of the remainder, in one transaction.
-- The last task takes over the array's own row (array_pending NULL,
-- array_task_id set).  array_spec is every task of the array, for
-- SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP; array_throttle is "%N" (0 = none).
--
-- dependency is the canonical text of model/dep.h ("afterok:12,
-- singleton"); NULL is none.  It is evaluated by kaid each tick from
-- its cache and the final states of finished jobs.

ALTER TABLE jobs
	ADD COLUMN array_job_id bigint,
	ADD COLUMN array_task_id int,
	ADD COLUMN array_spec text,
	ADD COLUMN array_pending text,
	ADD COLUMN array_throttle int NOT NULL DEFAULT 0,
	ADD COLUMN dependency text,
	ADD COLUMN kill_on_invalid_dep boolean NOT NULL DEFAULT false;

-- kcancel, kacct and dependencies find an array's tasks by its id.
CREATE INDEX jobs_array_idx ON jobs (array_job_id)
	WHERE array_job_id IS NOT NULL;
