-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 021-job-mail.sql: Slurm's job mail (sbatch --mail-type, --mail-user).
-- mail_type is the canonical text of model/mail.c ("NONE", "BEGIN,END"),
-- mail_user where the notices go (kaid stores the submitter's name when
-- the job names nobody).  NULL: no mail (the rows already here, and the
-- jobs of Kubernetes-native workloads, which no sbatch option made).
--
-- mail_sent holds the notices that are not a state change and must not
-- go twice, whoever leads: a time limit's 50/80/90/100% (the KAI_MAIL_TIME*
-- bits of model/mail.h) and, on an array's own row, its one BEGIN and its
-- summary at the end.  kaid sets a bit with a guarded UPDATE before it
-- runs the mail program, so a restart or a new leader never sends one
-- again.  Array tasks copy it with the rest of the row (005-arrays.sql).

ALTER TABLE jobs ADD COLUMN mail_type text;
ALTER TABLE jobs ADD COLUMN mail_user text;
ALTER TABLE jobs ADD COLUMN mail_sent integer NOT NULL DEFAULT 0;
