-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 011-leader.sql: which kaid leads, and the fencing token of its reign.
--
-- Several kaid may run against one database; the one holding the
-- session advisory lock KAI_DB_LEADER_LOCK leads (schedules, creates
-- pods), the others wait for it.  Each new leader raises epoch in the
-- same breath as it takes the lock, and every commit that dispatches
-- starts with kai_fence(its epoch): a kaid that lost the lead without
-- knowing it (its connection died and another took over) has its commit
-- refused with SQLSTATE KAI01 instead of placing jobs twice.

CREATE TABLE leader (
	id int PRIMARY KEY CHECK (id = 1),
	epoch bigint NOT NULL,
	holder text NOT NULL,
	since bigint NOT NULL
);
INSERT INTO leader (id, epoch, holder, since) VALUES (1, 0, '', 0);

CREATE FUNCTION kai_fence(e bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM leader WHERE id = 1 AND epoch = e) THEN
		RAISE EXCEPTION 'kaid of epoch % is no longer the leader', e
		    USING ERRCODE = 'KAI01';
	END IF;
END
$$;
