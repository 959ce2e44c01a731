#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9060-native-reclaim-node: a reclaim takes a Deployment's GPUs back for
# a queue under its quota (issue 13, doc/k8s-native.md "Lifecycle"), on
# the node tier, where the real controller-manager makes the pods:
#  - a Deployment of one preemptible 8-GPU replica in queue dep (quota 0)
#    runs on the node's 8 GPUs;
#  - a batch job of queue own (quota 8) asks for them: kaid marks the
#    Deployment's pod DisruptionTarget and deletes it, its job ends
#    PREEMPTED;
#  - the ReplicaSet makes a new pod, which is a new job waiting in queue
#    dep with a reason while the batch job runs, and runs once it is done.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers node -- "the controller-manager makes the pods (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t9060.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
chmod 755 "$T"

native_setup team-r ""
kc apply -f "$top_srcdir/contrib/kubernetes/rbac-native.yaml" >/dev/null ||
    bail_out "could not apply rbac-native.yaml"
kctl queue create dep --gpu-quota 0 >/dev/null || bail_out "could not create dep"
kctl queue create own --gpu-quota 8 >/dev/null || bail_out "could not create own"

pods() { kc -n "$NS" get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'; }
job_of_pod() { stack_psql "select id from jobs where workload = '$NS/$1' order by id desc limit 1"; }
has_job_pod() { [ -n "$(job_of_pod "$1")" ]; }
running() { [ "$(kc -n "$NS" get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }

kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create Deployment web"
{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
 "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
  "template": {"metadata": {"labels": {"app": "web", "kai.scheduler/queue": "dep",
     "kai.scheduler/preemptibility": "preemptible"}},
   "spec": {"schedulerName": "kai-scheduler", "terminationGracePeriodSeconds": 3,
    "containers": [{"name": "c", "image": "$NODETIER_IMAGE", "command": ["sleep", "3600"],
     "resources": {"requests": {"cpu": "100m", "memory": "32Mi"},
                   "limits": {"nvidia.com/gpu": "8"}}}]}}}}
EOJ
first_pod() { p1=$(pods | head -n 1); [ -n "$p1" ]; }
ok "the Deployment's controllers make its pod" wait_for 60 first_pod
ok "it is a job" wait_for 30 has_job_pod "$p1"
j1=$(job_of_pod "$p1")
ok "it runs on the node's 8 GPUs" wait_for 120 running "$p1"

b=$(cd "$W" && as_user "$A" ksubmit --parsable -p own --gpus-per-task=8 \
    -o "$W/b.out" --wrap "sleep 8")
ok "a batch job of a queue under its quota reclaims them: PREEMPTED" \
    wait_state "$j1" PREEMPTED 120
deleted() {
	calls=$(stack_pod_calls "$NS/$p1" | tr '\n' ';')
	case $calls in *delete*) return 0 ;; esac
	return 1
}
ok "the Deployment's pod is deleted" wait_for 30 deleted
like "after the condition DisruptionTarget, with its own grace period" \
    "$calls" "patch/status 200 DisruptionTarget:PreemptionByScheduler;delete 200 grace=-;"
second_pod() { p2=$(pods | grep -v "^$p1\$" | head -n 1); [ -n "$p2" ]; }
ok "its ReplicaSet makes a new pod" wait_for 60 second_pod
ok "which is a new job" wait_for 30 has_job_pod "$p2"
j2=$(job_of_pod "$p2")
ok "  not the old one" test "$j2" != "$j1"
ok "the batch job runs" wait_state "$b" RUNNING 120
like "the new pod's job waits in queue dep with a reason" \
    "$(kqueue -h -j "$j2" -o '%P %t %r')" "^dep PD [A-Za-z]+"
ok "the batch job completes" wait_state "$b" COMPLETED 120
ok "then the new pod runs" wait_for 120 running "$p2"

done_testing
