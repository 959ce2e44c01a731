-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 017-job-steps.sql: the steps srun starts inside a job (issue 12,
-- daemons/kaid/steps.c), for kacct's N.0, N.1... rows.  A row is written
-- when the step starts and completed when its last task ended; a job
-- run again after a requeue numbers its steps from 0 again and replaces
-- the rows, as Slurm's do.  Step -1 is the batch script (N.batch),
-- recorded for the jobs whose script ran once, in task 0's pod, beside
-- the step agent (pod/wrapper.sh).  Times are unix seconds, 0 = not yet (001-initial.sql);
-- exit_status is the worst task's wait(2) status; max_rss_kb the
-- largest task's peak resident set, ave_rss_kb the mean of the tasks'
-- peaks and cpu_usec their user + system CPU time (sacct's MaxRSS,
-- AveRSS and TotalCPU), from each task's wait4(2) rusage.

CREATE TABLE job_steps (
	job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	step integer NOT NULL CHECK (step >= -1),
	name text NOT NULL,
	state text NOT NULL
	    CHECK (state IN ('RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
	exit_status integer NOT NULL DEFAULT 0,
	ntasks integer NOT NULL CHECK (ntasks > 0),
	nodelist text NOT NULL,
	start_time bigint NOT NULL,
	end_time bigint NOT NULL DEFAULT 0,
	max_rss_kb bigint NOT NULL DEFAULT 0,
	ave_rss_kb bigint NOT NULL DEFAULT 0,
	cpu_usec bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (job_id, step)
);
