-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 006-signal.sql: --signal and --open-mode (issue 4).
--
-- signal_number is the signal ksubmit's --signal names (0 = none), sent
-- signal_secs seconds before the time limit, counted from the moment the
-- batch script starts in its pod; signal_batch is sbatch's "B:" (the
-- batch shell alone).  open_mode is how the pod opens the output files:
-- NULL when --open-mode was not given (truncate, Slurm's default),
-- 'truncate' or 'append'.  Array tasks copy them with the rest of the
-- row (005-arrays.sql).

ALTER TABLE jobs
	ADD COLUMN signal_number int NOT NULL DEFAULT 0
		CHECK (signal_number BETWEEN 0 AND 64),
	ADD COLUMN signal_secs int NOT NULL DEFAULT 0
		CHECK (signal_secs BETWEEN 0 AND 65535),
	ADD COLUMN signal_batch boolean NOT NULL DEFAULT false,
	ADD COLUMN open_mode text
		CHECK (open_mode IN ('truncate', 'append'));
