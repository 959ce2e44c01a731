-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 022-job-constraint.sql: the nodes a job chose for itself, as sbatch
-- writes them: features, -C/--constraint as written (Slurm's grammar:
-- a100, a100&ib, v100|a100, [a100|h100]; doc/scheduler.md "Node
-- constraints"), and node_req, -w/--nodelist and -x/--exclude as two
-- host lists in one value, "NODELIST;EXCLUDE", either part empty.  Stored
-- so that a job loaded after a restart or by a new leader keeps them;
-- NULL (none) for the rows already here.  Array tasks copy them with the
-- rest of the row (005-arrays.sql).

ALTER TABLE jobs ADD COLUMN features text;
ALTER TABLE jobs ADD COLUMN node_req text;
