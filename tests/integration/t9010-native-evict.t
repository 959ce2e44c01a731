#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9010-native-evict: a Kubernetes-native workload's pod evicted by the
# scheduler (doc/k8s-native.md, Lifecycle), on the real-API tier.  A bare
# pod of priority class train (preemptible) holds both GPUs of the one
# node; an inference job of ksubmit preempts it:
#  - the pod gets the condition DisruptionTarget (reason
#    PreemptionByScheduler, the scheduler's reason as its message) before
#    it is deleted, as kube-scheduler marks the pods it preempts;
#  - it is deleted with its own terminationGracePeriodSeconds (kaid asks
#    for none), not kaid's 5 s;
#  - its job ends PREEMPTED (a bare pod is gone: nothing requeues it),
#    and the preemptor runs.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "pods made outside kaid need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9010.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

native_setup team-a ""
kc create priorityclass train --value=50 >/dev/null ||
    bail_out "could not create PriorityClass train"
job_of() {	# job_of NAME: the id of the job named NAME (kacct: any state)
	kacct -a -n -P -X --name "$1" -o jobid 2>/dev/null | head -n 1
}

kc -n "$NS" create -f - >/dev/null <<'EOJ' || bail_out "could not create the pod"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "trainer"},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "priorityClassName": "train", "terminationGracePeriodSeconds": 7,
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep 600"],
   "resources": {"requests": {"cpu": "1", "memory": "64Mi"},
                 "limits": {"nvidia.com/gpu": "2"}}}]}}
EOJ
ok "the pod becomes a job" wait_for 20 has_job trainer
tr=$(job_of trainer)
ok "it runs on both GPUs" wait_state "$tr" RUNNING

hi=$(cd "$T/work" && as_user "$A" ksubmit --parsable --priority=inference \
    --gpus-per-task=2 --wrap "sleep 2")
ok "an inference job preempts it: PREEMPTED" wait_state "$tr" PREEMPTED
deleted() {
	calls=$(stack_pod_calls "$NS/trainer" | tr '\n' ';')
	case $calls in *delete*) return 0 ;; esac
	return 1
}
ok "its pod is deleted" wait_for 20 deleted
like "marked DisruptionTarget first, deleted with its own grace period" \
    "$calls" "patch/status 200 DisruptionTarget:PreemptionByScheduler;delete 200 grace=-;"
ok "the preemptor runs" wait_state "$hi" RUNNING 300
ok "and completes" wait_state "$hi" COMPLETED 300
is "the bare pod is not made again" "$(job_of trainer)" "$tr"

done_testing
