#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9000-native-pods: Kubernetes-native workloads (issue 13,
# doc/k8s-native.md) on the real-API tier.  Pods made outside kaid, as a
# user or the Job and Deployment controllers make them (ownerReferences
# as those controllers write them), in a namespace of their own, with
# schedulerName kai-scheduler (kaid.yaml lists it):
#  - each becomes a job: user the namespace, name the owner's (a
#    ReplicaSet's pod the Deployment's), partition the kai.scheduler/queue
#    label else native.default_queue, the pod in the Workload field;
#  - kaid binds the pod (a Scheduled event in the pod's namespace), the
#    job runs and ends COMPLETED when the pod succeeds, and kacct keeps
#    it with its start, end and state;
#  - the pod is not deleted when it ends (its controller owns it);
#  - a pod of another scheduler stays unbound and is no job;
#  - a queue that does not exist, or is not a leaf, leaves the pod
#    unbound with a FailedScheduling event saying so, and no job; so
#    does a malformed kai.scheduler/preemptibility label;
#  - a pod's priorityClassName is its job's priority, and the label its
#    preemptibility;
#  - a workload that cannot be placed gets the scheduler's reason as a
#    FailedScheduling event; a restarted kaid keeps one job per pod; a
#    client cannot set the workload field;
#  - kcancel of a workload deletes its pod;
#  - with native.user_label, a pod's label of that name is its job's
#    user (fair share, kqueue, kacct); without the label, the namespace.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "pods made outside kaid need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch
  user_label: example.com/owner"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

native_setup team-a ""

# mkpod NAME SCHEDULER QUEUE OWNERKIND OWNERNAME SECONDS: a pod as a
# controller makes it ("-" = no queue label, no owner).
mkpod() {
	local labels='{}' owners='[]'
	[ "$3" != - ] && labels="{\"kai.scheduler/queue\": \"$3\"}"
	[ "$4" != - ] && owners="[{\"apiVersion\": \"$( [ "$4" = Job ] && echo batch/v1 || echo apps/v1)\",
	    \"kind\": \"$4\", \"name\": \"$5\",
	    \"uid\": \"0b1c2d3e-0000-4000-8000-00000000000$RANDOM\",
	    \"controller\": true, \"blockOwnerDeletion\": true}]"
	kc -n "$NS" create -f - >/dev/null <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "labels": $labels, "ownerReferences": $owners},
 "spec": {"schedulerName": "$2", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep $6"],
   "resources": {"requests": {"cpu": "500m", "memory": "64Mi"}}}]}}
EOJ
}
pod_gone() { ! kc -n "$NS" get pod "$1" >/dev/null 2>&1; }
job_of() {	# job_of NAME: the id of the job named NAME (kacct: any state)
	kacct -a -n -P -X --name "$1" -o jobid 2>/dev/null | head -n 1
}

mkpod solo kai-scheduler gpu - - 2 || bail_out "could not create pod solo"
mkpod train-1-x7k2p kai-scheduler - Job train-1 2 ||
    bail_out "could not create the Job's pod"
mkpod web-5d4f8c7b9-q2xzl kaid - ReplicaSet web-5d4f8c7b9 600 ||
    bail_out "could not create the Deployment's pod"
mkpod other default-scheduler gpu - - 2 || bail_out "could not create pod other"

ok "the bare pod becomes a job" wait_for 20 has_job solo
ok "the Job's pod becomes a job named after the Job" wait_for 20 has_job train-1
ok "the Deployment's pod becomes a job named after the Deployment" \
    wait_for 20 has_job web
solo=$(job_of solo)
train=$(job_of train-1)
web=$(job_of web)
ok "the bare pod's job completes" wait_state "$solo" COMPLETED
ok "the Job's pod's job completes" wait_state "$train" COMPLETED
ok "the Deployment's pod's job runs" wait_state "$web" RUNNING
is "kacct: user the namespace, partition from the label, the pod, COMPLETED" \
    "$(kacct -j "$solo" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
st = j["state"]["current"] if isinstance(j["state"], dict) else j["state"]
print(j["user"], j["partition"], j["workload"], st,
      j["start_time"] > 0, j["end_time"] >= j["start_time"])')" \
    "team-a gpu team-a/solo COMPLETED True True"
is "kacct: the Job's pod goes to native.default_queue" \
    "$(kacct -j "$train" --noheader -X -o partition | tr -d ' ')" batch
is "kqueue shows the Deployment's pod's job RUNNING in its namespace's name" \
    "$(kqueue -j "$web" --noheader -o '%u %j %T' | tr -s ' ')" \
    "team-a web RUNNING"
like "kctl show job names the pod" "$(kctl show job "$web")" \
    "Workload=team-a/web-5d4f8c7b9-q2xzl"
node=$(pod_node web-5d4f8c7b9-q2xzl)
ok "the Deployment's pod is bound" test -n "$node"
like "a Scheduled event in the pod's namespace" \
    "$(events web-5d4f8c7b9-q2xzl)" "Scheduled\|Successfully assigned team-a/web-5d4f8c7b9-q2xzl to $node"
ok "the bare pod is kept when it ends (it is the user's)" \
    kc -n "$NS" get pod solo
ok "a pod of another scheduler is left unbound" test -z "$(pod_node other)"
ok "and is no job" test -z "$(job_of other)"

mkpod lost kai-scheduler nosuch - - 2 || bail_out "could not create pod lost"
ok "a pod whose queue does not exist waits with an event saying why" \
    wait_for 20 eval '[[ "$(events lost)" == *"FailedScheduling|queue \"nosuch\" does not exist"* ]]'
ok "unbound" test -z "$(pod_node lost)"
ok "and no job" test -z "$(job_of lost)"

# A malformed preemptibility label or an unknown priority class is
# refused as the pod's reason, never guessed.
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create pod odd"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "odd", "labels": {"kai.scheduler/preemptibility": "maybe"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}}
EOJ
ok "a pod with a malformed preemptibility label waits with an event saying why" \
    wait_for 20 eval '[[ "$(events odd)" == *"FailedScheduling|label kai.scheduler/preemptibility \"maybe\" is neither preemptible nor non-preemptible"* ]]'
ok "and is no job" test -z "$(job_of odd)"

# A valid class and label: priorityClassName build (100, not preemptible
# by KAI's rule) with kai.scheduler/preemptibility: preemptible.
kc create priorityclass build --value=100 >/dev/null ||
    bail_out "could not create PriorityClass build"
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create pod ranked"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "ranked", "labels": {"kai.scheduler/preemptibility": "preemptible"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "priorityClassName": "build",
  "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "1"],
   "resources": {"requests": {"cpu": "100m", "memory": "16Mi"}}}]}}
EOJ
ok "a pod with a priority class becomes a job" wait_for 20 has_job ranked
ranked=$(job_of ranked)
like "its priorityClassName is the job's priority" \
    "$(kctl show job "$ranked")" 'Priority=100 '
is "and its label makes it preemptible, where the class alone would not" \
    "$(stack_psql "select preemptible from jobs where id = $ranked")" t
# (Done before kshare's figures below, which count what runs.)
ok "and it completes" wait_state "$ranked" COMPLETED

# kshare: the running workload counts in its queue under its namespace
# (Queue|User|GPU x7|CPUQuota|CPULimit|CPUWeight|CPUFairShare|CPUAlloc...).
share_row() { kshare --parsable2 --noheader | awk -F'|' '$1 == "batch" && $2 == "team-a"'; }
has_share() { [ -n "$(share_row)" ]; }
ok "kshare has a row for the workload's namespace" wait_for 20 has_share
# The figures are the last tick's: the pod that just completed leaves
# them at the next (a loaded host showed it still there).
cpu_alloc() { [ "$(share_row | cut -d'|' -f14)" = "$1" ]; }
wait_for 20 cpu_alloc 1000
is "its CPU allocated is the pod's 500m rounded up to a CPU (millicores)" \
    "$(share_row | cut -d'|' -f14)" 1000

# A workload that cannot be placed waits with the scheduler's reason
# as a FailedScheduling event on its pod.
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create pod huge"
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge"},
 "spec": {"schedulerName": "kaid", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox", "command": ["true"],
   "resources": {"requests": {"cpu": "4000"}}}]}}
EOJ
ok "an unplaceable workload's pod gets a FailedScheduling event" \
    wait_for 20 eval '[[ "$(events huge)" == *"FailedScheduling|a task needs 4000000 millicores of CPU but no node has more than"* ]]'
ok "and stays unbound" test -z "$(pod_node huge)"

# A restarted kaid finds the workload's job again: still one job for the
# pod, still RUNNING (the job's workload column and the unique index).
kaid_stop
kaid_start || bail_out "kaid did not restart"
sleep 2
is "after a restart, one job for the Deployment's pod" \
    "$(kacct -a -n -P -X --name web -o jobid | grep -c .)" 1
ok "and it is still RUNNING" wait_state "$web" RUNNING

# A client cannot name a pod for kaid to bind and account as its job.
A=$STACK_ALICE
printf '#!/bin/sh\ntrue\n' >"$T/s.sh"
chmod 644 "$T/s.sh"
(cd /tmp && KAI_RAWREQ_WORKLOAD=team-a/other kai-rawreq --make-submit-body \
    "$T/s.sh" "$T/body.bin") || bail_out "kai-rawreq --make-submit-body failed"
like "a submission naming a workload pod is refused" \
    "$(as_user "$A" kai-rawreq --type 2 --body-file "$T/body.bin" 2>&1)" \
    'field "workload" is set by kaid only'
ok "the pod stays unbound" test -z "$(pod_node other)"

ok "kcancel of the Deployment's pod's job" kcancel "$web"
ok "deletes its pod" wait_for 30 pod_gone web-5d4f8c7b9-q2xzl
ok "the job is CANCELLED" wait_state "$web" CANCELLED

# native.user_label: the pod's label of that name is the job's user.
kc -n "$NS" create -f - >/dev/null <<'EOJ' || bail_out "could not create pod owned"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "owned", "labels": {"example.com/owner": "ann"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep 1"],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
EOJ
ok "a pod labelled with native.user_label becomes a job" \
    wait_for 20 has_job owned
owned=$(job_of owned)
is "whose user is the label's value, not the namespace" \
    "$(kacct -j "$owned" --noheader -X -o user | tr -d ' ')" ann
is "kqueue says so too" "$(kqueue -j "$owned" -h -o %u | tr -d ' ')" ann
is "a pod without the label keeps its namespace as user" \
    "$(kacct -j "$solo" --noheader -X -o user | tr -d ' ')" team-a

done_testing
