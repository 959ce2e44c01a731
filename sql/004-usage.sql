-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 004-usage.sql: an index for the decayed usage of finished jobs (time-based
-- fair share, issue 3).
--
-- kaid re-reads the usage of the jobs that ended inside the usage window
-- every scheduling.usage_refresh (one aggregate, kai_db_usage_load()).
-- This partial index holds exactly the jobs that ever ran and ended, by
-- end time, with every column the aggregate reads, so the query is one
-- range scan of the window that can be answered from the index (an
-- index-only scan once the pages are all-visible): its cost grows with
-- the jobs inside the window, never with the whole history.  Until this
-- migration is applied, 001's jobs_end_idx serves the same range scan,
-- with one heap fetch per job in the window.

CREATE INDEX jobs_usage_idx ON jobs (end_time)
	INCLUDE (queue, user_name, start_time, ntasks, gpus_per_task,
	    cpus_per_task, mem_mb)
	WHERE start_time > 0 AND end_time > 0;
