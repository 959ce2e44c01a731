#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9020-native-gangs: gangs of Kubernetes-native workloads (issue 13,
# doc/k8s-native.md "Owners and gangs") on the real-API tier.  The CRDs
# of contrib/kubernetes/crds/ and the role of rbac-native.yaml are
# installed; owners are made as objects and their pods with
# ownerReferences as the controllers and operators would make them (no
# controller runs on this tier).  One node of 4 CPUs; each pod asks 1.
#  - a PodGroup of 4 (pods naming it by pod-group-name) is one job of 4
#    tasks, named after the PodGroup, in its spec.queue; it waits,
#    "waiting for N of 4 pods of the group", while fewer pods exist (a
#    member deleted before its gang started counts out again); with room
#    for 3 it binds none; with room for 4 it binds all and completes;
#    its PodGroup's status says why it waits (schedulingConditions) and
#    what its pods request and are allocated (resourcesStatus);
#  - a restarted kaid finds a pending gang (its members join again) and
#    a started one (by its allocations) and keeps one job for each; it
#    reads the PodGroup's condition back, so its transitionID goes on
#    from the one before the restart, not from 1;
#  - a StatefulSet of 2 replicas (podManagementPolicy Parallel) is one
#    job of 2 tasks; a member deleted
#    after the start ends the gang and its other pod goes (a stale gang);
#    the pods made again are a new job that binds both;
#  - a batch/v1 Job with kai.scheduler/batch-min-member 2 is one job of
#    2 tasks, its queue the Job's label (the top owner's first);
#  - a JobSet (pods of its child Jobs: a chain of two owners) of 2
#    replicas is one job of 2 tasks named after the JobSet;
#  - a PyTorchJob of a master and 2 workers is one job of 3 tasks, with
#    the topology annotation of the PyTorchJob as its constraint;
#  - a PyTorchJob's minAvailable makes its gang, the pods beyond it are
#    jobs of their own; kcancel of a gang deletes every member;
#  - pods naming a PodGroup not made yet wait (one FailedScheduling
#    event) and become its job once it is made;
#  - without the PodGroup CRD kaid says once (at info) that it cannot
#    list PodGroups; with it, it lists and watches them, and a PodGroup
#    made after its pods is seen at once;
#  - every task of a gang is as large as its largest member asks;
#  - a PodGroup of KAI subgroups (no minMember of its own) is a gang of
#    their minMembers' sum, each subgroup taking only its minMember of
#    the pods;
#  - a RayCluster is a gang of its head and workers, a LeaderWorkerSet a
#    gang per group;
#  - a Deployment's pods (through its ReplicaSet) are a job each, named
#    after the Deployment, priority inference (KAI's per-kind default).

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "owners and CRDs need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9020.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 4
    memory: 32Gi
    labels: {kaibatch.io/rack: r1}
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-g crds/ podgroups.scheduling.run.ai \
    jobsets.jobset.x-k8s.io pytorchjobs.kubeflow.org rayclusters.ray.io \
    leaderworkersets.leaderworkerset.x-k8s.io

# mkpod NAME SECONDS OWNER_JSON [ANNOTATIONS_JSON [LABELS_JSON]]: a pod
# of 1 CPU as a controller makes it ("" = no owner).
mkpod() { native_pod "$1" "$2" 1 0 "$3" "${5:-}" "${4:-}"; }
why_is() { [ "$(why_of "$1")" = "$2" ]; }

# -- A PodGroup of 4 --------------------------------------------------------
mkpod blocker 600 "" || bail_out "could not create the blocker"
ok "a bare pod takes one of the node's 4 CPUs" wait_for 20 bound blocker
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "pg4"}, "spec": {"minMember": 4, "queue": "gpu"}}' \
    >/dev/null || bail_out "could not create PodGroup pg4"
PG='{"pod-group-name": "pg4"}'
mkpod pg4-a 3 "" "$PG" && mkpod pg4-b 3 "" "$PG" ||
    bail_out "could not create the PodGroup's first pods"
ok "the PodGroup's first pod makes its job" wait_for 20 has_job pg4
pg=$(job_of pg4)
is "one job of 4 tasks for the group, in the PodGroup's queue" \
    "$(col "$pg" "ntasks || ' ' || queue || ' ' || workload")" \
    "4 gpu team-g/PodGroup:pg4"
ok "with 2 pods it waits for 2 of 4" \
    wait_for 20 why_is "$pg" "waiting for 2 of 4 pods of the group"
ok "and its pods are told so" wait_for 20 eval \
    '[[ "$(events pg4-a)" == *"FailedScheduling|waiting for 2 of 4 pods of the group"* ]]'
# pgstat PODGROUP JSONPATH: a field of its status, as KAI writes it.
pgstat() { kc -n "$NS" get podgroup "$1" -o jsonpath="{.status.$2}"; }
pgstat_is() { [ "$(pgstat "$1" "$2")" = "$3" ]; }
pgcond() { pgstat pg4 "schedulingConditions[0].$1"; }
ok "its PodGroup's condition says so too" wait_for 20 eval \
    '[ "$(pgcond reasons[0].reason)|$(pgcond message)" = "PodGroup|waiting for 2 of 4 pods of the group" ]'
is "its deprecated reason is KAI's one word" "$(pgcond reason)" Unschedulable
tid=$(pgcond transitionID)
since=$(pgcond lastTransitionTime)
ok "its transitionID counts its changes from 1" \
    eval '[ "$tid" -ge 1 ] 2>/dev/null'
# A restarted kaid finds the pending gang again: its members join it
# again as the watch lists them (it is not swept as empty meanwhile).
kaid_stop
# A mark on the status while kaid is down, so that its next write shows.
kc -n "$NS" patch podgroup pg4 --subresource=status --type merge \
    -p '{"status": {"resourcesStatus": {"requested": {"cpu": "1m"}}}}' \
    >/dev/null || bail_out "could not patch the status of pg4"
kaid_start || bail_out "kaid did not restart"
ok "after a restart the members join the same job again" \
    wait_for 20 why_is "$pg" "waiting for 2 of 4 pods of the group"
is "still one job for the group, pending" \
    "$(jobs_named pg4 | grep -c .) $(col "$pg" state)" "1 PENDING"
ok "kaid, restarted, writes the PodGroup's status again" \
    wait_for 20 pgstat_is pg4 resourcesStatus.requested.cpu 2000m
is "the same condition keeps its transitionID and time after the restart" \
    "$(pgcond transitionID) $(pgcond lastTransitionTime)" "$tid $since"
kc -n "$NS" delete pod pg4-b --wait=false >/dev/null
ok "a member deleted before the start counts out: 3 of 4" \
    wait_for 20 why_is "$pg" "waiting for 3 of 4 pods of the group"
ok "the new condition's transitionID follows the one before the restart" \
    wait_for 20 eval '[ "$(pgcond message)|$(pgcond transitionID)" = "waiting for 3 of 4 pods of the group|$((tid + 1))" ]'
mkpod pg4-b 3 "" "$PG" && mkpod pg4-c 3 "" "$PG" && mkpod pg4-d 3 "" "$PG" ||
    bail_out "could not create the PodGroup's other pods"
ok "with 4 pods and room for 3 it waits for resources" \
    wait_for 20 eval '[ "$(kqueue -j "$pg" --noheader -o %r)" = Resources ]'
ok "its PodGroup's status says why it waits, as KAI's scheduler writes it" \
    wait_for 20 pgstat_is pg4 'schedulingConditions[0].reasons[0].reason' Resources
is "the condition UnschedulableOnNodePool" \
    "$(pgstat pg4 'schedulingConditions[0].type')" UnschedulableOnNodePool
ok "with kqueue's words as its message" \
    test -n "$(pgstat pg4 'schedulingConditions[0].message')"
ok "and what its 4 pods request, none of it allocated" wait_for 20 eval \
    '[ "$(pgstat pg4 resourcesStatus.requested.cpu) $(pgstat pg4 resourcesStatus.allocated.cpu)" = "4000m 0m" ]'
sleep 2
is "and binds none of them" "$(nbound pg4-a pg4-b pg4-c pg4-d)" 0
is "the group is still one job" "$(jobs_named pg4 | grep -c .)" 1
kc -n "$NS" delete pod blocker --wait=false >/dev/null
ok "with room for 4 it binds all 4" wait_for 30 all_bound pg4-a pg4-b pg4-c pg4-d
ok "its PodGroup's status: 4 CPUs allocated, no condition" wait_for 20 eval \
    '[ "$(pgstat pg4 resourcesStatus.allocated.cpu)|$(pgstat pg4 schedulingConditions)" = "4000m|" ]'
is "task t is the t-th pod by name" \
    "$(stack_psql "select string_agg(task || '=' || pod, ' ' order by task) from allocations where job_id = $pg")" \
    "0=team-g/pg4-a 1=team-g/pg4-b 2=team-g/pg4-c 3=team-g/pg4-d"
ok "and the job completes when they all do" wait_state "$pg" COMPLETED

# -- A StatefulSet of 2 -----------------------------------------------------
sts=$(mkobj '{"apiVersion": "apps/v1", "kind": "StatefulSet",
 "metadata": {"name": "db"},
 "spec": {"replicas": 2, "serviceName": "db",
  "podManagementPolicy": "Parallel",
  "selector": {"matchLabels": {"app": "db"}},
  "template": {"metadata": {"labels": {"app": "db"}},
   "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}') ||
    bail_out "could not create StatefulSet db"
O=$(owner apps/v1 StatefulSet db "$sts")
mkpod db-0 600 "$O" && mkpod db-1 600 "$O" ||
    bail_out "could not create the StatefulSet's pods"
ok "the StatefulSet's pods are one job" wait_for 20 has_job db
db=$(job_of db)
is "of 2 tasks (its replicas)" "$(col "$db" ntasks)" 2
ok "both pods are bound" wait_for 30 all_bound db-0 db-1
ok "and the job runs" wait_state "$db" RUNNING
# A restarted kaid finds a started gang by its allocations.
kaid_stop
kaid_start || bail_out "kaid did not restart"
sleep 2
is "after a restart, still one job for the StatefulSet, RUNNING" \
    "$(jobs_named db | grep -c .) $(col "$db" state)" "1 RUNNING"
kc -n "$NS" delete pod db-1 --grace-period=0 --force >/dev/null 2>&1
ok "a member deleted after the start ends the gang" wait_state "$db" FAILED
ok "and its other pod goes too (a gang below its minMember)" \
    wait_for 30 eval '! kc -n "$NS" get pod db-0 >/dev/null 2>&1'
# What the StatefulSet controller does then: the same pods again.
wait_for 30 eval '! kc -n "$NS" get pod db-1 >/dev/null 2>&1'
mkpod db-0 1 "$O" && mkpod db-1 1 "$O" ||
    bail_out "could not create the StatefulSet's pods again"
ok "the pods made again are a new job" \
    wait_for 20 eval '[ "$(jobs_named db | grep -c .)" = 2 ]'
db2=$(job_of db)
ok "which binds both" wait_for 30 all_bound db-0 db-1
ok "and completes" wait_state "$db2" COMPLETED

# An OrderedReady StatefulSet (the default) makes pod 1 only once pod 0
# is ready: its pods are not one gang, or pod 0 would wait forever.
seq=$(mkobj '{"apiVersion": "apps/v1", "kind": "StatefulSet",
 "metadata": {"name": "seq"},
 "spec": {"replicas": 2, "serviceName": "seq",
  "selector": {"matchLabels": {"app": "seq"}},
  "template": {"metadata": {"labels": {"app": "seq"}},
   "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}') ||
    bail_out "could not create StatefulSet seq"
mkpod seq-0 1 "$(owner apps/v1 StatefulSet seq "$seq")" ||
    bail_out "could not create pod seq-0"
ok "an OrderedReady StatefulSet's first pod is a job" wait_for 20 has_job seq
is "of one task" "$(col "$(job_of seq)" ntasks)" 1
ok "which completes alone" wait_state "$(job_of seq)" COMPLETED

# -- A batch/v1 Job with kai.scheduler/batch-min-member ---------------------
jb=$(mkobj '{"apiVersion": "batch/v1", "kind": "Job",
 "metadata": {"name": "train", "labels": {"kai.scheduler/queue": "gpu"},
  "annotations": {"kai.scheduler/batch-min-member": "2"}},
 "spec": {"parallelism": 2, "completions": 2, "template": {"spec": {
  "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox"}]}}}}') ||
    bail_out "could not create Job train"
O=$(owner batch/v1 Job train "$jb")
mkpod train-x1 1 "$O" && mkpod train-x2 1 "$O" ||
    bail_out "could not create the Job's pods"
ok "the Job's pods are one job" wait_for 20 has_job train
train=$(job_of train)
is "of 2 tasks, in the queue the Job's label names" \
    "$(col "$train" "ntasks || ' ' || queue")" "2 gpu"
ok "it completes" wait_state "$train" COMPLETED

# -- A JobSet: pod -> Job -> JobSet -----------------------------------------
js=$(mkobj '{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
 "metadata": {"name": "sweep"},
 "spec": {"replicatedJobs": [{"name": "w", "replicas": 2,
  "template": {"spec": {"parallelism": 1}}}]}}') ||
    bail_out "could not create JobSet sweep"
JO=$(owner jobset.x-k8s.io/v1alpha2 JobSet sweep "$js")
for i in 0 1; do
	cj=$(mkobj "{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\",
 \"metadata\": {\"name\": \"sweep-w-$i\", \"ownerReferences\": [$JO]},
 \"spec\": {\"template\": {\"spec\": {\"restartPolicy\": \"Never\",
  \"containers\": [{\"name\": \"c\", \"image\": \"busybox\"}]}}}}") ||
	    bail_out "could not create the JobSet's Job $i"
	mkpod "sweep-w-$i-p" 1 "$(owner batch/v1 Job "sweep-w-$i" "$cj")" ||
	    bail_out "could not create the JobSet's pod $i"
done
ok "the JobSet's pods are one job named after the JobSet" \
    wait_for 20 has_job sweep
sweep=$(job_of sweep)
is "of 2 tasks (replicas x parallelism)" "$(col "$sweep" ntasks)" 2
ok "it completes" wait_state "$sweep" COMPLETED
is "no job is named after the child Jobs" \
    "$(stack_psql "select count(*) from jobs where name like 'sweep-w-%'")" 0

# -- A PyTorchJob with a topology annotation --------------------------------
pt=$(mkobj '{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
 "metadata": {"name": "bert", "annotations":
  {"kai.scheduler/topology-required-placement": "kaibatch.io/rack"}},
 "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1},
  "Worker": {"replicas": 2}}}}') || bail_out "could not create PyTorchJob bert"
O=$(owner kubeflow.org/v1 PyTorchJob bert "$pt")
mkpod bert-master-0 1 "$O" && mkpod bert-worker-0 1 "$O" &&
    mkpod bert-worker-1 1 "$O" || bail_out "could not create the PyTorchJob's pods"
ok "the PyTorchJob's pods are one job" wait_for 20 has_job bert
bert=$(job_of bert)
is "of 3 tasks (the replicas' sum), in one rack" \
    "$(col "$bert" "ntasks || ' ' || topology")" "3 kaibatch.io/rack"
ok "it completes" wait_state "$bert" COMPLETED

# minAvailable 2 of 3 replicas: a gang of 2, the third pod alone (KAI
# schedules pods beyond minMember one by one).
mini=$(mkobj '{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
 "metadata": {"name": "mini"},
 "spec": {"runPolicy": {"schedulingPolicy": {"minAvailable": 2}},
  "pytorchReplicaSpecs": {"Master": {"replicas": 1},
  "Worker": {"replicas": 2}}}}') || bail_out "could not create PyTorchJob mini"
O=$(owner kubeflow.org/v1 PyTorchJob mini "$mini")
mkpod mini-master-0 1 "$O" && mkpod mini-worker-0 1 "$O" &&
    mkpod mini-worker-1 1 "$O" || bail_out "could not create mini's pods"
mini_tasks() {
	stack_psql "select string_agg(ntasks::text, ' ' order by ntasks) from jobs where name = 'mini'"
}
mini_done() {
	[ "$(stack_psql "select count(*) from jobs where name = 'mini' and state = 'COMPLETED'")" = 2 ]
}
ok "minAvailable 2 of 3: a gang of 2 tasks and the third pod alone" \
    wait_for 20 eval '[ "$(mini_tasks)" = "1 2" ]'
ok "both complete" wait_for 30 mini_done

# kcancel of a gang deletes every member.
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "pg2"}, "spec": {"minMember": 2}}' >/dev/null ||
    bail_out "could not create PodGroup pg2"
PG='{"pod-group-name": "pg2"}'
mkpod pg2-a 600 "" "$PG" && mkpod pg2-b 600 "" "$PG" ||
    bail_out "could not create pg2's pods"
ok "a PodGroup of 2 runs" wait_for 30 all_bound pg2-a pg2-b
pg2=$(job_of pg2)
ok "kcancel of its job" kcancel "$pg2"
gone() { ! kc -n "$NS" get pod "$1" >/dev/null 2>&1; }
ok "deletes both pods" wait_for 30 eval 'gone pg2-a && gone pg2-b'
is "and the job is CANCELLED" "$(col "$pg2" state)" CANCELLED

# Pods that name a PodGroup not made yet wait, saying so once, and
# become its job once it exists.
PG='{"pod-group-name": "late"}'
mkpod late-a 1 "" "$PG" && mkpod late-b 1 "" "$PG" ||
    bail_out "could not create late's pods"
ok "pods naming a PodGroup that does not exist wait, saying so" \
    wait_for 20 eval '[[ "$(events late-a)" == *"FailedScheduling|PodGroup \"late\" (annotation pod-group-name) does not exist or cannot be read"* ]]'
sleep 3
is "once, not at every tick" "$(events late-a | grep -c 'PodGroup "late"')" 1
ok "and they are no job" eval '! has_job late'
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "late"}, "spec": {"minMember": 2}}' >/dev/null ||
    bail_out "could not create PodGroup late"
ok "the PodGroup made after its pods is found" wait_for 30 has_job late
late=$(job_of late)
is "one job of 2 tasks" "$(col "$late" ntasks)" 2
ok "which completes" wait_state "$late" COMPLETED

# Members that ask for different sizes: each task as the largest asks.
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "big"}, "spec": {"minMember": 2}}' >/dev/null ||
    bail_out "could not create PodGroup big"
mkpod big-a 1 "" '{"pod-group-name": "big"}' || bail_out "could not create big-a"
ok "a PodGroup's first member (1 CPU) makes its job" wait_for 20 has_job big
big=$(job_of big)
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create big-b"
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "big-b", "annotations": {"pod-group-name": "big"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep 1"],
   "resources": {"requests": {"cpu": "2", "memory": "256Mi"}}}]}}
EOJ
big_size() { [ "$(col "$big" "cpus_per_task || ' ' || mem_mb")" = "2 256" ]; }
ok "a larger member grows every task to its size" wait_for 20 big_size
ok "and the gang completes" wait_state "$big" COMPLETED

# -- A RayCluster and a LeaderWorkerSet --------------------------------------
ray=$(mkobj '{"apiVersion": "ray.io/v1", "kind": "RayCluster",
 "metadata": {"name": "ray"},
 "spec": {"headGroupSpec": {}, "workerGroupSpecs": [{"groupName": "w",
  "replicas": 2, "minReplicas": 0}]}}') || bail_out "could not create RayCluster ray"
O=$(owner ray.io/v1 RayCluster ray "$ray")
mkpod ray-head 1 "$O" && mkpod ray-w-a 1 "$O" && mkpod ray-w-b 1 "$O" ||
    bail_out "could not create ray's pods"
ok "the RayCluster's pods are one job" wait_for 20 has_job ray
is "of 3 tasks (the head and its workers)" "$(col "$(job_of ray)" ntasks)" 3
ok "it completes" wait_state "$(job_of ray)" COMPLETED

lws=$(mkobj '{"apiVersion": "leaderworkerset.x-k8s.io/v1",
 "kind": "LeaderWorkerSet", "metadata": {"name": "lws"},
 "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 2}}}') ||
    bail_out "could not create LeaderWorkerSet lws"
O=$(owner leaderworkerset.x-k8s.io/v1 LeaderWorkerSet lws "$lws")
for g in 0 1; do
	L="{\"leaderworkerset.sigs.k8s.io/group-index\": \"$g\"}"
	mkpod "lws-$g" 1 "$O" "" "$L" && mkpod "lws-$g-1" 1 "$O" "" "$L" ||
	    bail_out "could not create the pods of LWS group $g"
done
lws_jobs() {
	stack_psql "select string_agg(ntasks || ' ' || workload, ',' order by workload) from jobs where name = 'lws'"
}
ok "a LeaderWorkerSet is a gang of its group size per group" \
    wait_for 20 eval '[ "$(lws_jobs)" = "2 team-g/LeaderWorkerSet:lws-group-0,2 team-g/LeaderWorkerSet:lws-group-1" ]'
lws_done() {
	[ "$(stack_psql "select count(*) from jobs where name = 'lws' and state = 'COMPLETED'")" = 2 ]
}
ok "both complete" wait_for 30 lws_done

# -- A Deployment: a job per pod --------------------------------------------
dp=$(mkobj '{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "web"},
 "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
  "template": {"metadata": {"labels": {"app": "web"}},
   "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}') ||
    bail_out "could not create Deployment web"
rs=$(mkobj "{\"apiVersion\": \"apps/v1\", \"kind\": \"ReplicaSet\",
 \"metadata\": {\"name\": \"web-6c9f\", \"labels\": {\"app\": \"web\"},
  \"ownerReferences\": [$(owner apps/v1 Deployment web "$dp")]},
 \"spec\": {\"replicas\": 2, \"selector\": {\"matchLabels\": {\"app\": \"web\"}},
  \"template\": {\"metadata\": {\"labels\": {\"app\": \"web\"}},
   \"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"busybox\"}]}}}}") ||
    bail_out "could not create ReplicaSet web-6c9f"
O=$(owner apps/v1 ReplicaSet web-6c9f "$rs")
mkpod web-6c9f-a 1 "$O" && mkpod web-6c9f-b 1 "$O" ||
    bail_out "could not create the Deployment's pods"
ok "the Deployment's pods are a job each" \
    wait_for 20 eval '[ "$(jobs_named web | grep -c .)" = 2 ]'
is "of one task each, priority inference (125)" \
    "$(stack_psql "select distinct ntasks || ' ' || priority from jobs where name = 'web'")" \
    "1 125"


# -- KAI subgroups -------------------------------------------------------------
# A PodGroup of subgroups alone, as KAI's podgrouper writes a PyTorchJob's
# (master, minMember 1; worker, minMember 2; no spec.minMember): the gang
# is their sum, each subgroup takes its minMember of the pods (the label
# kai.scheduler/subgroup-name says which), a worker beyond it is a job of
# its own.
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "sg"}, "spec": {"subGroups": [
  {"name": "master", "minMember": 1}, {"name": "worker", "minMember": 2}]}}' \
    >/dev/null || bail_out "could not create PodGroup sg"
PG='{"pod-group-name": "sg"}'
W='{"kai.scheduler/subgroup-name": "worker"}'
mkpod sg-worker-0 2 "" "$PG" "$W" && mkpod sg-worker-1 2 "" "$PG" "$W" &&
    mkpod sg-worker-2 2 "" "$PG" "$W" || bail_out "could not create sg's workers"
sg_tasks() {
	stack_psql "select string_agg(ntasks::text, ' ' order by ntasks) from jobs where name = 'sg'"
}
ok "3 workers, a subgroup of 2: a gang of 3 (its sum) and a worker alone" \
    wait_for 20 eval '[ "$(sg_tasks)" = "1 3" ]'
sg=$(stack_psql "select id from jobs where name = 'sg' and ntasks = 3")
ok "the gang waits for its master" \
    wait_for 20 why_is "$sg" "waiting for 1 of 3 pods of the group"
mkpod sg-master-0 2 "" "$PG" '{"kai.scheduler/subgroup-name": "master"}' ||
    bail_out "could not create sg's master"
ok "with its master the gang binds" wait_for 30 eval \
    '[ "$(stack_psql "select count(*) from allocations where job_id = $sg")" = 3 ]'
is "its pods: the master and two workers" \
    "$(stack_psql "select string_agg(pod, ' ' order by pod) from allocations where job_id = $sg" |
        sed 's/team-g\/sg-worker-[0-9]/W/g')" "team-g/sg-master-0 W W"
ok "and completes" wait_state "$sg" COMPLETED

# -- PodGroups listed and watched --------------------------------------------
# The CRD came after kaid started: kaid said once that it could not list
# PodGroups (and read them by GET meanwhile); a restarted kaid lists and
# watches them, and a PodGroup made after its pods is seen at once, not
# at the next read (every 10 s without the watch).
is "without the CRD, kaid said so once, at info" \
    "$(grep -c 'info: kubernetes KAI PodGroup watch: cannot list them (HTTP 40[34])' "$T/kaid.log")" 1
is "and gave no warning for it" \
    "$(grep -c 'warn: kubernetes KAI PodGroup watch' "$T/kaid.log")" 0
kaid_stop
kaid_start || bail_out "kaid did not restart"
pg_synced() { grep -q 'PodGroup list synced' "$T/kaid.log"; }
ok "a kaid started with the CRD lists and watches PodGroups" \
    wait_for 20 pg_synced
PG='{"pod-group-name": "soon"}'
mkpod soon-a 1 "" "$PG" && mkpod soon-b 1 "" "$PG" ||
    bail_out "could not create soon's pods"
ok "pods naming a PodGroup not made yet wait, saying so" \
    wait_for 20 eval '[[ "$(events soon-a)" == *"PodGroup \"soon\" (annotation pod-group-name) does not exist"* ]]'
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "soon"}, "spec": {"minMember": 2}}' >/dev/null ||
    bail_out "could not create PodGroup soon"
ok "the PodGroup made after its pods is seen at once (3 s)" \
    wait_for 3 has_job soon
is "one job of 2 tasks" "$(col "$(job_of soon)" ntasks)" 2

done_testing
