#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9165-native-member-sizes: each pod of a Kubernetes-native gang is
# placed as it asks, not as the gang's largest member (issue 13,
# doc/k8s-native.md "Owners and gangs") on the real-API tier.  One node
# of 8 CPUs and 8 GPUs; owners are made as objects and their pods with
# ownerReferences and labels as the operators make them.
#  - a PyTorchJob of a master of 1 GPU and 2 workers of 3 GPUs (KAI's
#    master and worker subgroups) needs 7 GPUs, not 9: it binds on the
#    node of 8, and its allocations hold 1, 3 and 3 GPUs;
#  - a RayCluster of a head without GPUs and 2 workers of 4 GPUs binds on
#    8 GPUs (sized as its largest it would need 12);
#  - a LeaderWorkerSet group of a leader without GPUs and a worker of 8;
#  - a flat PodGroup of 2 whose members ask 1 and 6 CPUs binds with 7 of
#    the node's CPUs free, each allocation its pod's CPUs; kqueue's
#    figures per task stay the largest member's;
#  - kacct's AllocTRES counts what the pods hold (7 GPUs for the
#    PyTorchJob).

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "owners and CRDs need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9165.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 8
    memory: 64Gi
    gpus: 8
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-m crds/ podgroups.scheduling.run.ai \
    pytorchjobs.kubeflow.org rayclusters.ray.io \
    leaderworkersets.leaderworkerset.x-k8s.io

# mkpod NAME SECONDS CPUS GPUS OWNER_JSON [LABELS_JSON [ANNOTATIONS_JSON]]
mkpod() { native_pod "$@"; }
# held JOB: each allocation's pod and what it holds, by pod name.
held() {
	stack_psql "select string_agg(pod || '=' || cpus || 'c' || gpus || 'g', ' ' order by pod) from allocations where job_id = $1"
}

# -- A PyTorchJob: a master of 1 GPU, workers of 3 --------------------------
pt=$(mkobj '{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
 "metadata": {"name": "bert"},
 "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1},
  "Worker": {"replicas": 2}}}}') || bail_out "could not create PyTorchJob bert"
O=$(owner kubeflow.org/v1 PyTorchJob bert "$pt")
M='{"training.kubeflow.org/replica-type": "master"}'
W='{"training.kubeflow.org/replica-type": "worker"}'
mkpod bert-master-0 3 1 1 "$O" "$M" && mkpod bert-worker-0 3 1 3 "$O" "$W" &&
    mkpod bert-worker-1 3 1 3 "$O" "$W" ||
    bail_out "could not create the PyTorchJob's pods"
ok "a PyTorchJob of 1 + 3 + 3 GPUs binds on a node of 8" \
    wait_for 30 all_bound bert-master-0 bert-worker-0 bert-worker-1
bert=$(job_of bert)
is "one job of 3 tasks; per task it says its largest member's 3 GPUs" \
    "$(col "$bert" "ntasks || ' ' || gpus_per_task")" "3 3"
is "each allocation holds what its pod asks" "$(held "$bert")" \
    "team-m/bert-master-0=1c1g team-m/bert-worker-0=1c3g team-m/bert-worker-1=1c3g"
ok "it completes" wait_state "$bert" COMPLETED
like "kacct counts the 7 GPUs its pods held" \
    "$(kacct -j "$bert" -P -n -o AllocTRES 2>&1 | head -n 1)" \
    'gres/gpu=7'

# -- A RayCluster: a head without GPUs, workers of 4 -------------------------
ray=$(mkobj '{"apiVersion": "ray.io/v1", "kind": "RayCluster",
 "metadata": {"name": "ray"},
 "spec": {"headGroupSpec": {}, "workerGroupSpecs": [{"groupName": "w",
  "replicas": 2, "minReplicas": 0}]}}') || bail_out "could not create RayCluster ray"
O=$(owner ray.io/v1 RayCluster ray "$ray")
H='{"ray.io/group": "headgroup"}'
G='{"ray.io/group": "w"}'
mkpod ray-head 3 1 0 "$O" "$H" && mkpod ray-w-a 3 1 4 "$O" "$G" &&
    mkpod ray-w-b 3 1 4 "$O" "$G" || bail_out "could not create ray's pods"
ok "a RayCluster's head without GPUs and 2 workers of 4 bind on 8 GPUs" \
    wait_for 30 all_bound ray-head ray-w-a ray-w-b
is "the head holds no GPU" "$(held "$(job_of ray)")" \
    "team-m/ray-head=1c0g team-m/ray-w-a=1c4g team-m/ray-w-b=1c4g"
ok "it completes" wait_state "$(job_of ray)" COMPLETED

# -- A LeaderWorkerSet group: a leader without GPUs, a worker of 8 -----------
lws=$(mkobj '{"apiVersion": "leaderworkerset.x-k8s.io/v1",
 "kind": "LeaderWorkerSet", "metadata": {"name": "lws"},
 "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2}}}') ||
    bail_out "could not create LeaderWorkerSet lws"
O=$(owner leaderworkerset.x-k8s.io/v1 LeaderWorkerSet lws "$lws")
mkpod lws-0 3 1 0 "$O" \
    '{"leaderworkerset.sigs.k8s.io/group-index": "0", "leaderworkerset.sigs.k8s.io/worker-index": "0"}' &&
mkpod lws-0-1 3 1 8 "$O" \
    '{"leaderworkerset.sigs.k8s.io/group-index": "0", "leaderworkerset.sigs.k8s.io/worker-index": "1"}' ||
    bail_out "could not create lws's pods"
ok "a LeaderWorkerSet's leader without GPUs and its worker of 8 bind" \
    wait_for 30 all_bound lws-0 lws-0-1
is "the leader holds no GPU" "$(held "$(job_of lws)")" \
    "team-m/lws-0=1c0g team-m/lws-0-1=1c8g"
ok "it completes" wait_state "$(job_of lws)" COMPLETED

# -- A flat PodGroup of 2 whose members ask 1 and 6 CPUs ---------------------
mkpod blocker 600 1 0 "" || bail_out "could not create the blocker"
ok "a bare pod takes 1 of the 8 CPUs" wait_for 20 bound blocker
mkobj '{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "mixed"}, "spec": {"minMember": 2}}' >/dev/null ||
    bail_out "could not create PodGroup mixed"
PG='{"pod-group-name": "mixed"}'
mkpod mixed-a 3 1 0 "" "" "$PG" && mkpod mixed-b 3 6 0 "" "" "$PG" ||
    bail_out "could not create mixed's pods"
ok "a PodGroup of 1 + 6 CPUs binds with 7 CPUs free (not 12)" \
    wait_for 30 all_bound mixed-a mixed-b
mixed=$(job_of mixed)
is "kqueue says per task its largest member's 6 CPUs" \
    "$(col "$mixed" "ntasks || ' ' || cpus_per_task")" "2 6"
is "each allocation holds its pod's CPUs" "$(held "$mixed")" \
    "team-m/mixed-a=1c0g team-m/mixed-b=6c0g"
ok "it completes" wait_state "$mixed" COMPLETED
ok "kaid stops cleanly" kaid_stop_clean
done_testing
