-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 008-why.sql: a pending job's reason as Slurm's code and as a sentence.
--
-- reason keeps the short code that squeue's %r and %R print and scripts
-- test ("Resources", "Priority", "Dependency", "JobHeldUser", ...); why
-- is the scheduler's sentence that says what is missing ("queue \"a\"
-- is at its GPU limit: ..."), shown by kctl show job and kqueue --why.
-- The reasons of waiting jobs are written again on the next tick; rows
-- already there keep their reason as it was and an empty why.

ALTER TABLE jobs
	ADD COLUMN why text NOT NULL DEFAULT '';
