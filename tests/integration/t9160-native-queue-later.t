#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9160-native-queue-later: native pods whose queue is made after them
# (issue 13, doc/k8s-native.md "Which pods are kaid's") on the real-API
# tier.  A Kubernetes operator (a Helm chart, a GitOps sync) may apply a
# workload before its Queue; KAI schedules its pods as soon as the Queue
# exists.  So does kaid, without the pods changing and without a relist:
#  - a bare pod labelled with a queue that does not exist gets no job and
#    is told so once (a FailedScheduling event naming the queue, one log
#    line); `kctl queue create` of the queue binds it at once;
#  - a batch/v1 Job's gang of 2 in a missing queue: both pods wait, and
#    bind together once the queue is made;
#  - a pod labelled with a queue that is not a leaf waits, told so; once
#    the queue's only child is deleted (it is a leaf) the pod binds;
#  - with queues_source: kubernetes, a pod labelled with a queue whose KAI
#    Queue object is not applied yet, made while kaid is down, waits
#    after kaid's start and binds once the Queue is applied.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "owners and KAI Queue objects need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9160.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 4
    memory: 32Gi
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-l crds/ queues.scheduling.run.ai podgroups.scheduling.run.ai

# mkpod NAME SECONDS QUEUE [OWNER_JSON]: a pod of 1 CPU labelled with QUEUE.
mkpod() {
	native_pod "$1" "$2" 1 0 "${4:-}" "{\"kai.scheduler/queue\": \"$3\"}"
}
told() { [[ "$(events "$1")" == *"FailedScheduling|$2"* ]]; }
# nlog PATTERN: lines of kaid's log with the fixed string PATTERN.
nlog() { grep -cF -- "$1" "$T/kaid.log"; }

# -- A bare pod, its queue made by kctl afterwards --------------------------
mkpod early 600 later || bail_out "could not create pod early"
ok "a pod in a queue that does not exist is told so" wait_for 20 \
    told early 'queue "later" does not exist'
sleep 2
ok "it gets no job" eval '[ -z "$(job_of early)" ]'
ok "and is not bound" eval '! bound early'
# The pod changes meanwhile (a label): the same reason is not told again.
kc -n "$NS" label pod early touched=1 >/dev/null || bail_out "could not label"
sleep 1
is "the reason is logged once, not at every look" \
    "$(nlog 'pod "team-l/early" waits: queue "later" does not exist')" 1
kctl queue create later >/dev/null 2>&1 || bail_out "could not create queue later"
ok "once the queue is made, the pod is bound without changing" \
    wait_for 10 bound early
is "its job is in the new queue" "$(col "$(job_of early)" queue)" later

# -- A Job's gang of 2, its queue made afterwards -----------------------------
jb=$(mkobj '{"apiVersion": "batch/v1", "kind": "Job",
 "metadata": {"name": "train", "labels": {"kai.scheduler/queue": "later2"},
  "annotations": {"kai.scheduler/batch-min-member": "2"}},
 "spec": {"parallelism": 2, "completions": 2, "template": {"spec": {
  "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox"}]}}}}') ||
    bail_out "could not create Job train"
O=$(owner batch/v1 Job train "$jb")
mkpod train-a 2 later2 "$O" && mkpod train-b 2 later2 "$O" ||
    bail_out "could not create the Job's pods"
ok "both pods of the gang are told their queue is missing" wait_for 20 eval \
    'told train-a "queue \"later2\" does not exist" && told train-b "queue \"later2\" does not exist"'
ok "the gang has no job" eval '[ -z "$(job_of train)" ]'
kctl queue create later2 >/dev/null 2>&1 || bail_out "could not create queue later2"
ok "once the queue is made, both pods bind" wait_for 10 all_bound train-a train-b
train=$(job_of train)
is "as one job of 2 tasks in the new queue" \
    "$(col "$train" "ntasks || ' ' || queue")" "2 later2"
ok "which completes" wait_state "$train" COMPLETED

# -- A queue that is not a leaf, until its child goes ---------------------------
kctl queue create research >/dev/null 2>&1 &&
    kctl queue create vision --parent research >/dev/null 2>&1 ||
    bail_out "could not create queues research and vision"
mkpod deep 2 research || bail_out "could not create pod deep"
ok "a pod in a queue that is not a leaf is told so, naming its children" \
    wait_for 20 told deep 'queue "research" is not a leaf: label the workload with one of its children (vision)'
ok "and gets no job" eval '[ -z "$(job_of deep)" ]'
kctl queue delete vision >/dev/null 2>&1 || bail_out "could not delete queue vision"
ok "once the queue is a leaf, the pod is bound" wait_for 10 bound deep
is "in that queue" "$(col "$(job_of deep)" queue)" research

# -- KAI Queue objects: a pod made while kaid is down, its Queue later ---------
ok "kaid stops cleanly" kaid_stop_clean
KAID_CONF_EXTRA="queues_source: kubernetes
$KAID_CONF_EXTRA"
stack_write_conf "$T"
mkpod kpod 2 kq || bail_out "could not create pod kpod"
kaid_start || bail_out "kaid did not restart with queues_source: kubernetes"
ok "after kaid's start, a pod whose Queue is not applied waits, told so" \
    wait_for 30 eval "[ \"\$(nlog 'pod \"team-l/kpod\" waits: queue \"kq\" does not exist')\" -ge 1 ]"
ok "and gets no job" eval '[ -z "$(job_of kpod)" ]'
kc apply -f - >/dev/null <<'EOY' || bail_out "could not apply Queue kq"
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: kq
spec:
  resources:
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    gpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
EOY
ok "once the KAI Queue is applied, the pod is bound" wait_for 15 bound kpod
is "in its queue" "$(col "$(job_of kpod)" queue)" kq
ok "kaid stops cleanly at the end" kaid_stop_clean
done_testing
