-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 014-qos.sql: a job's quality of service (issue 12), as sbatch -q names
-- it.  kaid stores the QoS it resolved at submission (the one asked for,
-- else kaid.yaml's default QoS), so the record keeps it when kaid.yaml
-- changes later.  NULL for the rows already here and for
-- Kubernetes-native workloads, which have none.  Array tasks copy it with
-- the rest of the row (005-arrays.sql).

ALTER TABLE jobs ADD COLUMN qos text;
