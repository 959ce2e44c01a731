-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 016-ntasks-per-node.sql: tasks that share one node (issue 12): with
-- -N/--ntasks-per-node, the scheduler places a job's tasks in groups of
-- ntasks_per_node, each group on one node (doc/scheduler.md, "Node
-- groups").  Stored so that a job loaded after a restart or by a new
-- leader keeps the rule; 0 (no groups: each task anywhere) for the rows
-- already here.  Array tasks copy it with the rest of the row
-- (005-arrays.sql).

ALTER TABLE jobs ADD COLUMN ntasks_per_node integer NOT NULL DEFAULT 0
    CHECK (ntasks_per_node >= 0);
