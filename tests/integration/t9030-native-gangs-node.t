#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9030-native-gangs-node: gangs of Kubernetes-native workloads (issue
# 13, doc/k8s-native.md "Owners and gangs") on the node tier, where the
# real kube-controller-manager makes the pods of a StatefulSet, a
# batch/v1 Job and a Deployment (with schedulerName kai-scheduler) and
# makes them again when they go:
#  - a StatefulSet of 2 (podManagementPolicy Parallel) is one job of 2
#    tasks, both pods bound and running; a pod deleted ends the gang, kaid
#    deletes the other (a gang below its minMember), the controller makes
#    both again and they are a new job that runs both;
#  - a Job of parallelism 2 with kai.scheduler/batch-min-member 2 is one
#    job of 2 tasks that completes;
#  - a Deployment of 2 replicas is a job per pod, named after it.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers node -- "the controller-manager makes the pods (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t9030.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

native_setup team-n ""
kc apply -f "$top_srcdir/contrib/kubernetes/rbac-native.yaml" >/dev/null ||
    bail_out "could not apply rbac-native.yaml"

njobs() { jobs_named "$1" | grep -c .; }
running() {	# running POD...: each is bound and Running
	local p
	for p in "$@"; do
		[ "$(kc -n "$NS" get pod "$p" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ] ||
		    return 1
	done
}
uid_of() { kc -n "$NS" get pod "$1" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
# template NAME SECONDS: a pod template for kaid, 100m of CPU.
template() {
	printf '{"metadata": {"labels": {"app": "%s"}}, "spec": {"schedulerName": "kai-scheduler", "terminationGracePeriodSeconds": 2, "restartPolicy": "%s", "containers": [{"name": "c", "image": "%s", "command": ["sleep", "%s"], "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}]}}' \
	    "$1" "${3:-Always}" "$NODETIER_IMAGE" "$2"
}

# -- A StatefulSet of 2, Parallel --------------------------------------------
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create StatefulSet db"
{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
 "spec": {"replicas": 2, "serviceName": "db", "podManagementPolicy": "Parallel",
  "selector": {"matchLabels": {"app": "db"}}, "template": $(template db 600)}}
EOJ
ok "the StatefulSet's pods are one job" wait_for 60 has_job db
db=$(job_of db)
is "of 2 tasks" "$(col "$db" ntasks)" 2
ok "both pods run" wait_for 120 running db-0 db-1
ok "and the job runs" wait_state "$db" RUNNING
old0=$(uid_of db-0)
kc -n "$NS" delete pod db-1 --wait=false >/dev/null
ok "a member deleted ends the gang" wait_state "$db" FAILED
replaced() { [ "$(uid_of "$1")" != "$2" ]; }
ok "its other pod is deleted too (and made again by the controller)" \
    wait_for 60 replaced db-0 "$old0"
ok "the pods made again are a new job" wait_for 60 eval '[ "$(njobs db)" = 2 ]'
db2=$(job_of db)
ok "which runs both" wait_for 120 running db-0 db-1
ok "RUNNING" wait_state "$db2" RUNNING
kc -n "$NS" delete statefulset db --wait=false >/dev/null

# -- A batch/v1 Job with batch-min-member 2 -----------------------------------
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create Job train"
{"apiVersion": "batch/v1", "kind": "Job",
 "metadata": {"name": "train", "annotations": {"kai.scheduler/batch-min-member": "2"}},
 "spec": {"parallelism": 2, "completions": 2, "template": $(template train 2 Never)}}
EOJ
ok "the Job's pods are one job" wait_for 60 has_job train
train=$(job_of train)
is "of 2 tasks" "$(col "$train" ntasks)" 2
ok "which completes" wait_state "$train" COMPLETED 600

# -- A Deployment of 2 -----------------------------------------------------------
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create Deployment web"
{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
 "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
  "template": $(template web 600)}}
EOJ
ok "the Deployment's pods are a job each, named after it" \
    wait_for 60 eval '[ "$(njobs web)" = 2 ]'
is "of one task each, priority inference (125)" \
    "$(stack_psql "select distinct ntasks || ' ' || priority from jobs where name = 'web'")" \
    "1 125"

done_testing
