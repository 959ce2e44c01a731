-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 019-gpus-per-node.sql: Slurm's meaning of per-node requests (issue 12).
-- --gres=gpu:N and --gpus-per-node=N mean N GPUs
-- on each node the job gets, as in Slurm (issue 12), not N per task.  The
-- count is kept per node group (ntasks_per_node, sql/016) and spread over
-- the group's tasks (src/model/jobgpus.c); 0 (no per-node request: the
-- job's gpus_per_task says all) for the rows already here.

ALTER TABLE jobs ADD COLUMN gpus_per_node integer NOT NULL DEFAULT 0
    CHECK (gpus_per_node >= 0);

-- --exclusive and --mem=0 (whole_node, KAI_JOB_WHOLE_* bits): what of its
-- nodes a job takes whole; 0 (shares them by its requests) for the rows
-- already here.
ALTER TABLE jobs ADD COLUMN whole_node integer NOT NULL DEFAULT 0
    CHECK (whole_node BETWEEN 0 AND 3);
