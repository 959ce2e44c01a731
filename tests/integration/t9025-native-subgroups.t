#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9025-native-subgroups: KAI subgroup trees of Kubernetes-native gangs
# (issue 13, doc/k8s-native.md "Subgroups") on the real-API tier, with
# the CRDs of contrib/kubernetes/crds/ and pods made with ownerReferences
# and labels as the operators make them.  One node of 6 CPUs.
#  - a JobSet of 2 replicatedJobs (driver: 1 replica of 1 pod; workers:
#    2 replicas of 2 pods) is one job whose tree needs every replica
#    whole: with 4 CPUs free none of its 5 pods is bound, and the reason
#    names the replica that does not fit; with room for all it binds 5;
#  - a PodGroup with minSubGroup 1 of subgroups a and b (minMember 2
#    each) starts with 2 CPUs free: one subgroup's 2 pods are bound, the
#    other's wait; kaid restarted, the started job gets its tree again
#    and the waiting pods join it again (no jobs of their own); when
#    room frees, the other subgroup is placed whole in that job;
#  - a PyTorchJob (Master 1, Worker 3, minAvailable 3) is KAI's master
#    and worker subgroups (1 and 2): its pods are routed by the label
#    training.kubeflow.org/replica-type, so 3 workers do not make a gang
#    without the master (as a flat gang of 3 would), the third worker is
#    a job of its own, and with the master the gang binds;
#  - a JobSet with kai.scheduler/batch-min-member 1 needs one replicated
#    job whole: with 3 CPUs free its small one (2 pods) starts, its big
#    one (4 pods) waits, and is placed whole once room frees.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "owners and CRDs need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9025.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 6
    memory: 32Gi
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-s crds/ podgroups.scheduling.run.ai \
    jobsets.jobset.x-k8s.io pytorchjobs.kubeflow.org

# mkpod NAME SECONDS CPUS OWNER_JSON [ANNOTATIONS_JSON [LABELS_JSON]]
mkpod() { native_pod "$1" "$2" "$3" 0 "$4" "${6:-}" "${5:-}"; }
why_has() { [[ "$(why_of "$1")" == *"$2"* ]]; }

# -- A JobSet: a tree of replicatedJobs and replicas ------------------------
mkpod blocker 15 2 "" || bail_out "could not create the blocker"
ok "a bare pod takes 2 of the node's 6 CPUs" wait_for 20 bound blocker
js=$(mkobj '{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
 "metadata": {"name": "js"},
 "spec": {"replicatedJobs": [
  {"name": "driver", "replicas": 1, "template": {"spec": {"parallelism": 1}}},
  {"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 2}}}]}}') ||
    bail_out "could not create JobSet js"
JO=$(owner jobset.x-k8s.io/v1alpha2 JobSet js "$js")
JSPODS=""
# mkjob RJ INDEX PODS: the child Job of replica INDEX and its pods, with
# the labels the JobSet controller puts on them.
mkjob() {
	local cj p
	cj=$(mkobj "{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\",
 \"metadata\": {\"name\": \"js-$1-$2\", \"ownerReferences\": [$JO]},
 \"spec\": {\"template\": {\"spec\": {\"restartPolicy\": \"Never\",
  \"containers\": [{\"name\": \"c\", \"image\": \"busybox\"}]}}}}") ||
	    return 1
	for p in $(seq 0 $(($3 - 1))); do
		mkpod "js-$1-$2-$p" 3 1 "$(owner batch/v1 Job "js-$1-$2" "$cj")" "" \
		    "{\"jobset.sigs.k8s.io/replicatedjob-name\": \"$1\", \"jobset.sigs.k8s.io/job-index\": \"$2\"}" ||
		    return 1
		JSPODS="$JSPODS js-$1-$2-$p"
	done
}
mkjob driver 0 1 && mkjob workers 0 2 && mkjob workers 1 2 ||
    bail_out "could not create the JobSet's Jobs and pods"
ok "the JobSet's pods are one job" wait_for 20 has_job js
J=$(job_of js)
is "of 5 tasks (its leaves' minimums)" "$(col "$J" ntasks)" 5
# shellcheck disable=SC2086
ok "with 4 CPUs free the reason names the replica that does not fit" \
    wait_for 20 why_has "$J" "subgroup workers-replica-1 needs 2 pods, 1 fit"
# shellcheck disable=SC2086
is "and none of its pods is bound" "$(nbound $JSPODS)" 0
# shellcheck disable=SC2086
ok "once the blocker ends it binds all 5" wait_for 40 all_bound $JSPODS
ok "and completes" wait_state "$J" COMPLETED

# -- A PodGroup of minSubGroup 1 of 2 ---------------------------------------
mkpod blocker2 30 4 "" || bail_out "could not create the second blocker"
ok "a bare pod takes 4 of the 6 CPUs" wait_for 20 bound blocker2
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "any"}, "spec": {"minSubGroup": 1, "subGroups": [
  {"name": "a", "minMember": 2}, {"name": "b", "minMember": 2}]}}' \
    >/dev/null || bail_out "could not create PodGroup any"
PG='{"pod-group-name": "any"}'
for s in a b; do
	for i in 0 1; do
		mkpod "any-$s-$i" 20 1 "" "$PG" \
		    "{\"kai.scheduler/subgroup-name\": \"$s\"}" ||
		    bail_out "could not create any's pods"
	done
done
ok "the PodGroup's pods are one job" wait_for 20 has_job any
A=$(job_of any)
is "of 4 tasks" "$(col "$A" ntasks)" 4
ok "with 2 CPUs free one subgroup's 2 pods are bound" \
    wait_for 30 eval '[ "$(nbound any-a-0 any-a-1 any-b-0 any-b-1)" = 2 ]'
one_whole() {
	[ "$(nbound any-a-0 any-a-1)" = 2 ] || [ "$(nbound any-b-0 any-b-1)" = 2 ]
}
ok "both of one subgroup, none of the other" one_whole
sleep 2
is "the other subgroup still waits" \
    "$(nbound any-a-0 any-a-1 any-b-0 any-b-1)" 2
# The tree lives in kaid's memory: a restarted kaid derives it again from
# the group, and the waiting subgroup's pods join the started job again
# (not jobs of their own, placed one by one).
ok "kaid stops cleanly with a started tree waiting for a subgroup" \
    kaid_stop_clean
kaid_start || bail_out "kaid did not restart"
ok "after the restart, the started job reads its tree again" wait_for 20 \
    grep -q "job $A: its subgroup tree read again from its group" "$T/kaid.log"
ok "and the waiting subgroup's pods join it again" wait_for 20 eval \
    '[ "$(grep -c "joins started job $A in its waiting subgroup" "$T/kaid.log")" = 2 ]'
sleep 2
is "they are no jobs of their own" \
    "$(stack_psql "select count(*) from jobs where name = 'any'")" 1
ok "once the blocker ends the other subgroup is placed whole" \
    wait_for 60 all_bound any-a-0 any-a-1 any-b-0 any-b-1
is "in the started job: its 4 pods are its allocations" \
    "$(stack_psql "select count(*) from allocations where job_id = $A")" 4
ok "and the job completes" wait_state "$A" COMPLETED

# -- A PyTorchJob's master and workers --------------------------------------
pt=$(mkobj '{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
 "metadata": {"name": "bert"},
 "spec": {"runPolicy": {"schedulingPolicy": {"minAvailable": 3}},
  "pytorchReplicaSpecs": {"Master": {"replicas": 1},
  "Worker": {"replicas": 3}}}}') || bail_out "could not create PyTorchJob bert"
O=$(owner kubeflow.org/v1 PyTorchJob bert "$pt")
RT() { printf '{"training.kubeflow.org/replica-type": "%s"}' "$1"; }
for i in 0 1 2; do
	mkpod "bert-worker-$i" 3 1 "$O" "" "$(RT worker)" ||
	    bail_out "could not create bert's workers"
done
bert_tasks() {
	stack_psql "select string_agg(ntasks::text, ' ' order by ntasks) from jobs where name = 'bert'"
}
ok "3 workers: a gang of 3 (master and 2 workers) and a worker alone" \
    wait_for 20 eval '[ "$(bert_tasks)" = "1 3" ]'
B=$(stack_psql "select id from jobs where name = 'bert' and ntasks = 3")
ok "the gang waits for its master, not for any third pod" \
    wait_for 20 eval '[ "$(why_of "$B")" = "waiting for 1 of 3 pods of the group" ]'
is "none of the gang's workers is bound" \
    "$(stack_psql "select count(*) from allocations where job_id = $B")" 0
mkpod bert-master-0 3 1 "$O" "" "$(RT Master)" ||
    bail_out "could not create bert's master"
ok "with its master the gang binds" wait_for 30 eval \
    '[ "$(stack_psql "select count(*) from allocations where job_id = $B")" = 3 ]'
is "its pods: the master and two workers" \
    "$(stack_psql "select string_agg(pod, ' ' order by pod) from allocations where job_id = $B" |
        sed 's/team-s\/bert-worker-[0-9]/W/g')" "team-s/bert-master-0 W W"
ok "and completes" wait_state "$B" COMPLETED

# -- A JobSet that needs 1 of its 2 replicated jobs ---------------------------
mkpod blocker3 12 3 "" || bail_out "could not create the third blocker"
ok "a bare pod takes 3 of the 6 CPUs" wait_for 20 bound blocker3
hs=$(mkobj '{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
 "metadata": {"name": "half",
  "annotations": {"kai.scheduler/batch-min-member": "1"}},
 "spec": {"replicatedJobs": [
  {"name": "big", "replicas": 1, "template": {"spec": {"parallelism": 4}}},
  {"name": "small", "replicas": 1, "template": {"spec": {"parallelism": 2}}}]}}') ||
    bail_out "could not create JobSet half"
HO=$(owner jobset.x-k8s.io/v1alpha2 JobSet half "$hs")
# mkhalf RJ PODS SECONDS
mkhalf() {
	local cj p
	cj=$(mkobj "{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\",
 \"metadata\": {\"name\": \"half-$1-0\", \"ownerReferences\": [$HO]},
 \"spec\": {\"template\": {\"spec\": {\"restartPolicy\": \"Never\",
  \"containers\": [{\"name\": \"c\", \"image\": \"busybox\"}]}}}}") ||
	    return 1
	for p in $(seq 0 $(($2 - 1))); do
		mkpod "half-$1-0-$p" "$3" 1 "$(owner batch/v1 Job "half-$1-0" "$cj")" "" \
		    "{\"jobset.sigs.k8s.io/replicatedjob-name\": \"$1\", \"jobset.sigs.k8s.io/job-index\": \"0\"}" ||
		    return 1
	done
}
mkhalf big 4 3 && mkhalf small 2 25 ||
    bail_out "could not create JobSet half's Jobs and pods"
ok "the JobSet's 6 pods are one job" wait_for 20 eval \
    'has_job half && [ "$(col "$(job_of half)" ntasks)" = 6 ]'
H=$(job_of half)
ok "with 3 CPUs free its small replicated job starts whole" \
    wait_for 30 all_bound half-small-0-0 half-small-0-1
is "and its big one waits" \
    "$(nbound half-big-0-0 half-big-0-1 half-big-0-2 half-big-0-3)" 0
ok "once room frees the big one is placed whole" wait_for 40 all_bound \
    half-big-0-0 half-big-0-1 half-big-0-2 half-big-0-3
ok "and the job completes" wait_state "$H" COMPLETED 600

done_testing
