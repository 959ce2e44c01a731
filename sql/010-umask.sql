-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 010-umask.sql: the submitter's umask (issue 10), as sbatch keeps it.
--
-- umask is 512 (octal 01000) plus the umask ksubmit ran with, so that 0
-- says "not known": the rows already here, and a client that does not
-- send it.  kaid exposes a known one to the job as SLURM_UMASK (and
-- KAI_UMASK), four octal digits.  Array tasks copy it with the rest of
-- the row (005-arrays.sql).

ALTER TABLE jobs
	ADD COLUMN umask int NOT NULL DEFAULT 0
		CHECK (umask = 0 OR umask BETWEEN 512 AND 1023);
