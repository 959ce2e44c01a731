-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 009-exit-reason: why a job's container ended, as its node said, kept
-- after the pod is deleted: the container's termination reason and its
-- termination message (kaid's pods use FallbackToLogsOnError, so a failed
-- container's last log lines), "OOMKilled" or "Error: Traceback ...".
-- kacct shows it as Reason, kctl show job as ExitReason.  '' = none (the
-- jobs that ended before this column, and those that ended well).

ALTER TABLE jobs
	ADD COLUMN exit_reason text NOT NULL DEFAULT ''
		CHECK (octet_length(exit_reason) <= 4096);
