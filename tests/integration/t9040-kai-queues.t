#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9040-kai-queues: KAI Queue objects as the source of queues (issue 13,
# doc/k8s-native.md "Queues from KAI Queue objects") on the real-API tier,
# with queues_source: kubernetes in kaid.yaml:
#  - KAI's quick-start queues ("default" and its child "test"), applied
#    with kubectl as they are, become kaid's queues: kctl queue list and
#    kshare show them, with KAI's -1 as unlimited;
#  - an update of a quota (fractional GPUs, MB of memory) is seen, and
#    the min runtimes are read;
#  - kctl's queue writes are refused, naming the source;
#  - a bad Queue (an unknown parent; a limit below its quota) is refused
#    with a log line and a Warning event on it, naming the field, and the
#    rest apply; fixed, it is accepted;
#  - a native pod labelled kai.scheduler/queue=test runs in it; the
#    Queue's status (requested, allocated), and its parent's, say what
#    its job holds, as KAI's queue-controller writes them, and the
#    parent's childQueues name its children (after deletions and a
#    restart too);
#  - a deleted Queue's queue goes once no job uses it (at once without
#    jobs; with a running job, after it ended);
#  - a cycle of parents is refused on each of its Queues;
#  - a restarted kaid keeps the tree and sees what changed while it was
#    down.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "KAI Queue objects need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9040.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 4
    memory: 32Gi
EON
KAID_CONF_EXTRA="queues_source: kubernetes
native:
  schedulers: kaid, kai-scheduler"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-q crds/queue.yaml queues.scheduling.run.ai

qrow() { kctl queue list 2>/dev/null | awk -v q="$1" '$1 == q'; }
has_queue() { [ -n "$(qrow "$1")" ]; }
no_queue() {	# kaid answers, without queue $1
	local list
	list=$(kctl queue list 2>/dev/null) || return 1
	[ -z "$(printf '%s\n' "$list" | awk -v q="$1" '$1 == q')" ]
}
row_like() { [[ "$(qrow "$1")" =~ $2 ]]; }
qevents() {
	kc -n default get events --field-selector \
	    "involvedObject.kind=Queue,involvedObject.name=$1" \
	    -o jsonpath='{range .items[*]}{.type}|{.reason}|{.message}{"\n"}{end}'
}

# -- KAI's quick-start queues, as they are ------------------------------------
kc apply -f - >/dev/null <<'EOY' || bail_out "could not apply the queues"
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default
spec:
  resources:
    cpu:
      quota: -1
      limit: -1
      overQuotaWeight: 1
    gpu:
      quota: -1
      limit: -1
      overQuotaWeight: 1
    memory:
      quota: -1
      limit: -1
      overQuotaWeight: 1
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: test
spec:
  parentQueue: default
  resources:
    cpu:
      quota: -1
      limit: -1
      overQuotaWeight: 1
    gpu:
      quota: -1
      limit: -1
      overQuotaWeight: 1
    memory:
      quota: -1
      limit: -1
      overQuotaWeight: 1
EOY
# The watch may have started before the CRD existed: its retry backs
# off up to 30 s.
ok "the quick-start queue \"test\" becomes kaid's queue" \
    wait_for 60 has_queue test
like "\"default\" is top level, priority 100, all unlimited" "$(qrow default)" \
    '^default +- +100 +-1/-1/1 +-1/-1/1 +-1/-1/1 '
like "\"test\" is under \"default\"" "$(qrow test)" \
    '^test +default +100 +-1/-1/1 +-1/-1/1 +-1/-1/1 '
ok "kshare shows the queue test" wait_for 20 eval \
    '[ -n "$(kshare --parsable2 --noheader 2>/dev/null | awk -F"|" "\$1 == \"test\"")" ]'

# -- An update of a quota ------------------------------------------------------
kc patch queue test --type merge -p '{"spec": {"priority": 120,
 "preemptMinRuntime": "90s", "resources": {"gpu": {"quota": 1.5, "limit": 4},
 "memory": {"quota": 1000, "limit": -1, "overQuotaWeight": 2}}}}' \
    >/dev/null || bail_out "could not patch queue test"
ok "the new GPU quota and priority are seen" wait_for 20 row_like test \
    '^test +default +120 +1.5/4/1 '
like "memory in MB becomes MiB (1000 MB = 953 MiB), weight 2" "$(qrow test)" \
    ' 953/-1/2 '
is "preemptMinRuntime 90s is the queue's min runtime" \
    "$(stack_psql "select preempt_min_runtime_s from queues where name = 'test'" 2>/dev/null)" \
    90

# -- kctl does not write the tree ----------------------------------------------
out=$(kctl queue create other 2>&1)
rc=$?
ok "kctl queue create is refused" [ "$rc" != 0 ]
like "naming the source" "$out" \
    'queues come from KAI Queue objects \(queues_source: kubernetes in kaid.yaml\)'
is "in one line" "$(printf '%s\n' "$out" | wc -l)" 1
out=$(kctl queue delete test 2>&1)
ok "kctl queue delete is refused" [ "$?" != 0 ]
ok "and the queue is still there" has_queue test

# -- Bad Queues are refused, the rest apply ------------------------------------
kc apply -f - >/dev/null <<'EOY' || bail_out "could not apply the bad queues"
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: orphan
spec:
  parentQueue: nowhere
  resources:
    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: tight
spec:
  parentQueue: default
  resources:
    gpu: {quota: 2, limit: 1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: fine
spec:
  parentQueue: default
  priority: 50
  resources:
    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}
    cpu: {quota: 0, limit: -1, overQuotaWeight: 1}
    memory: {quota: 0, limit: -1, overQuotaWeight: 1}
EOY
ok "a good Queue applied with bad ones is taken" wait_for 20 has_queue fine
ok "a Queue with an unknown parent is not" no_queue orphan
ok "nor one with a limit below its quota" no_queue tight
ok "the unknown parent is said on the Queue as a Warning event" \
    wait_for 20 eval '[[ "$(qevents orphan)" == *"Warning|QueueRefused|spec.parentQueue: no Queue \"nowhere\""* ]]'
ok "the bad limit too, naming the field" \
    wait_for 20 eval '[[ "$(qevents tight)" == *"Warning|QueueRefused|spec.resources.gpu.limit: is below the quota"* ]]'
like "and in kaid's log" "$(cat "$T/kaid.log")" \
    'KAI Queue "orphan" refused: spec.parentQueue: no Queue "nowhere"'
kc patch queue tight --type merge -p \
    '{"spec": {"resources": {"gpu": {"limit": 2}}}}' >/dev/null ||
    bail_out "could not fix queue tight"
ok "fixed, the Queue is taken" wait_for 20 has_queue tight

# -- A native pod labelled with the queue runs in it ---------------------------
kc -n "$NS" create -f - >/dev/null <<'EOJ' || bail_out "could not create the pod"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "in-test", "labels": {"kai.scheduler/queue": "test"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep 15"],
   "resources": {"requests": {"cpu": "1", "memory": "64Mi"}}}]}}
EOJ
ok "a pod labelled kai.scheduler/queue=test is bound" wait_for 30 bound in-test
is "its job is in queue test" \
    "$(stack_psql "select queue from jobs where name = 'in-test' order by id desc limit 1")" \
    test
# qstat QUEUE JSONPATH: a field of the Queue's status.
qstat() { kc get queue "$1" -o jsonpath="{.status.$2}"; }
qstat_is() { [ "$(qstat "$1" "$2")" = "$3" ]; }
ok "Queue test's status: what its job holds, as KAI's queue-controller writes it" \
    wait_for 20 qstat_is test allocated.cpu 1000m
is "requested, allocated (CPU, memory, GPUs)" \
    "$(qstat test requested.cpu) $(qstat test allocated.memory) $(qstat test allocated.nvidia\\.com/gpu)" \
    "1000m 64Mi 0"
ok "its parent's status sums its children's" \
    wait_for 20 qstat_is default allocated.cpu 1000m
ok "and its childQueues name its children, by name" \
    wait_for 20 qstat_is default 'childQueues[*]' "fine test tight"
is "a leaf has none" "$(qstat test childQueues)" ""

# -- Deletion ------------------------------------------------------------------
kc delete queue fine >/dev/null || bail_out "could not delete queue fine"
ok "a deleted Queue with no jobs is no queue any more" wait_for 20 no_queue fine
kc delete queue test >/dev/null || bail_out "could not delete queue test"
ok "a deleted Queue whose queue has a running job: kaid says it waits" \
    wait_for 20 grep -q 'KAI Queue "test" deleted; its queue stays for now' \
    "$T/kaid.log"
ok "and the queue stays while the job runs" has_queue test
ok "once the job ended, the queue goes" wait_for 60 no_queue test
ok "the others stay" has_queue default
ok "and the parent's status holds nothing once the job ended" \
    wait_for 20 qstat_is default allocated.cpu 0m
ok "its childQueues lose the deleted ones" \
    wait_for 20 qstat_is default 'childQueues[*]' tight

# -- A cycle of parents ----------------------------------------------------------
kc apply -f - >/dev/null <<'EOY' || bail_out "could not apply the cycle"
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: cyc-a
spec:
  parentQueue: cyc-b
  resources: {}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: cyc-b
spec:
  parentQueue: cyc-a
  resources: {}
EOY
ok "a cycle of parents is refused on each Queue of it" wait_for 20 eval \
    '[[ "$(qevents cyc-a)" == *"spec.parentQueue: \"cyc-b\" makes a cycle of parents"* ]]'
ok "neither is a queue" eval 'no_queue cyc-a && no_queue cyc-b'

# -- A restart: the tree stays; what changed meanwhile is seen -----------------
ok "kaid stops cleanly" kaid_stop_clean
kc delete queue tight >/dev/null || bail_out "could not delete queue tight"
kc patch queue default --type merge -p '{"spec": {"priority": 130}}' \
    >/dev/null || bail_out "could not patch queue default"
kaid_start || bail_out "kaid did not restart"
ok "after a restart, a Queue deleted while kaid was down is no queue" \
    wait_for 30 no_queue tight
ok "and a change made meanwhile is seen" wait_for 20 row_like default \
    '^default +- +130 '
ok "its status says it has no child any more" \
    wait_for 20 qstat_is default childQueues ""
done_testing
