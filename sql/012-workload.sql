-- SPDX-License-Identifier: GPL-3.0-or-later
--
-- 012-workload.sql: Kubernetes-native workloads (issue 13,
-- doc/k8s-native.md).  A pod that another controller made and that asks
-- for one of kaid's scheduler names becomes a job whose workload is the
-- pod's "namespace/name"; kaid binds that pod instead of making one.
-- NULL for batch jobs.  At most one active job per pod, so a kaid that
-- dies after recording a pod's job and before it knows the id cannot
-- record the pod twice.

ALTER TABLE jobs ADD COLUMN workload text;

CREATE UNIQUE INDEX jobs_workload_active ON jobs (workload)
	WHERE workload IS NOT NULL
	  AND state IN ('PENDING', 'CONFIGURING', 'RUNNING');
