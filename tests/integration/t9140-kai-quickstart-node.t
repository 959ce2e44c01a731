#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9140-kai-quickstart-node: a site's KAI workloads pointed at kaid as
# they are (issue 13, "Tests"), on the node tier: two real nodes of 4
# fake GPUs each (contrib/k8s/nodes-node2.yaml), the real
# controller-manager, kaid's admission webhook registered with the real
# API server, queues_source: kubernetes and kai-scheduler in
# native.schedulers.
#  - KAI's quick-start manifests, applied unchanged (docs/quickstart/
#    default-queues.yaml, pods/cpu-only-pod.yaml, pods/gpu-pod.yaml and
#    docs/gpu-sharing/gpu-memory.yaml, the last in two namespaces): the
#    queues are kaid's, the CPU-only pod and the 1-GPU pod become jobs
#    of queue default-queue and are bound, the two gpu-memory pods are
#    bound to one GPU of one node (their images are not on this
#    machine, so their containers do not start: binding is kaid's part);
#  - a Deployment of 3 replicas with gpu-fraction "0.5" (in a queue with
#    GPU quota: its pods are of priority inference, not preemptible,
#    which KAI's rules keep within quota) runs its 3 pods on shared GPUs,
#    each container seeing its device and half of it;
#  - a malformed annotation is refused at creation: kubectl's pod with
#    the admission webhook's message naming it, and a Deployment's pods
#    at their ReplicaSet's every try (FailedCreate events), none made;
#  - a PodGroup of 4 is all or nothing: with room for 3 pods it binds
#    none, with room for 4 all, and they run.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/webhook.sh"

stack_tiers node -- "KAI's manifests on real nodes (KAI_STACK_API=node)"
stack_require
command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

T=$(mktemp -d /tmp/kai-t9140.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
webhook_prepare "$T" || bail_out "webhook-cert.sh failed"
KAID_CONF_EXTRA="queues_source: kubernetes
native:
  schedulers: kaid, kai-scheduler
  default_queue: default-queue
$WEBHOOK_CONF"
export KAID_CONF_EXTRA
stack_start "$T" "$top_srcdir/contrib/k8s/nodes-node2.yaml" ||
    bail_out "could not start the stack"

KC=$T/k8s/kubeconfig-admin
kc() { kubectl --kubeconfig "$KC" "$@"; }
C=$top_srcdir/contrib/kubernetes
kc apply -f "$C/crds/queue.yaml" -f "$C/crds/podgroup.yaml" \
    -f "$C/rbac-native.yaml" >/dev/null ||
    bail_out "could not install the CRDs and rbac-native.yaml"
kc wait --for condition=established --timeout=60s \
    crd/queues.scheduling.run.ai crd/podgroups.scheduling.run.ai >/dev/null ||
    bail_out "the CRDs were not established"
for ns in qs qs-b serve pg; do
	kc create namespace "$ns" >/dev/null || bail_out "could not create $ns"
done
webhook_register "$T" || bail_out "could not register the webhook"

node_of() { kc -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null; }
bound() { [ -n "$(node_of "$1" "$2")" ]; }
job_col() {	# job_col NS POD COLUMN: of the pod's latest job
	stack_psql "select $3 from jobs where workload = '$1/$2' order by id desc limit 1"
}
scheduled() {	# scheduled NS POD: the Scheduled event kaid posted
	kc -n "$1" get events --field-selector "involvedObject.name=$2" \
	    -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | grep -qx Scheduled
}
cm_key() {	# cm_key NS POD KEY: a key of the pod's GPU-share ConfigMap
	local cm
	cm=$(kc -n "$1" get pod "$2" -o jsonpath='{.metadata.annotations.kaibatch\.io/gpu-share-configmap}')
	[ -n "$cm" ] && kc -n "$1" get configmap "$cm" -o jsonpath="{.data.$3}" 2>/dev/null
}

# -- KAI's quick-start, unchanged ----------------------------------------------
# As KAI publishes them (kai-scheduler/KAI-Scheduler, docs/quickstart and
# docs/gpu-sharing, v0.17), without their licence header.
cat >"$T/default-queues.yaml" <<'EOY'
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default-parent-queue
spec:
  resources:
    cpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    gpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    memory:
      limit: -1
      overQuotaWeight: 1
      quota: 0
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default-queue
spec:
  parentQueue: default-parent-queue
  resources:
    cpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    gpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    memory:
      limit: -1
      overQuotaWeight: 1
      quota: 0
EOY
cat >"$T/cpu-only-pod.yaml" <<'EOY'
apiVersion: v1
kind: Pod
metadata:
  name: cpu-only-pod
  labels:
    kai.scheduler/queue: default-queue
spec:
  schedulerName: kai-scheduler
  containers:
    - name: main
      image: ubuntu
      args: ["sleep", "infinity"]
      resources:
        requests:
          cpu: 100m
          memory: 250M
EOY
cat >"$T/gpu-pod.yaml" <<'EOY'
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
  labels:
    kai.scheduler/queue: default-queue
spec:
  schedulerName: kai-scheduler
  containers:
    - name: main
      image: ubuntu
      command: ["bash", "-c"]
      args: ["nvidia-smi; trap 'exit 0' TERM; sleep infinity & wait"]
      resources:
        limits:
          nvidia.com/gpu: "1"
EOY
cat >"$T/gpu-memory.yaml" <<'EOY'
apiVersion: v1
kind: Pod
metadata:
  name: gpu-sharing
  labels:
    kai.scheduler/queue: default-queue
  annotations:
    gpu-memory: "2000" # in Mib
spec:
  schedulerName: kai-scheduler
  containers:
    - name: gpu-workload
      image: nvidia/cuda:13.0.2-base-ubi8
      command: ["nvidia-smi"]
      args: ["-L"]
EOY
kc apply -f "$T/default-queues.yaml" >/dev/null ||
    bail_out "could not apply KAI's default queues"
has_queue() { kctl queue list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }
ok "KAI's default queues become kaid's" wait_for 30 eval \
    'has_queue default-parent-queue && has_queue default-queue'
kc -n qs apply -f "$T/cpu-only-pod.yaml" -f "$T/gpu-pod.yaml" \
    -f "$T/gpu-memory.yaml" >/dev/null &&
    kc -n qs-b apply -f "$T/gpu-memory.yaml" >/dev/null ||
    bail_out "could not apply KAI's quick-start pods"
ok "the CPU-only pod is bound" wait_for 30 bound qs cpu-only-pod
is "its job is in queue default-queue, with no GPU" \
    "$(job_col qs cpu-only-pod "queue || ' ' || gpus_per_task")" "default-queue 0"
ok "kaid posted its Scheduled event" wait_for 20 scheduled qs cpu-only-pod
ok "the 1-GPU pod is bound" wait_for 30 bound qs gpu-pod
is "its job is in queue default-queue, with 1 GPU" \
    "$(job_col qs gpu-pod "queue || ' ' || gpus_per_task")" "default-queue 1"
ok "the first gpu-memory pod is bound" wait_for 30 bound qs gpu-sharing
ok "the second (the same manifest in another namespace) too" \
    wait_for 30 bound qs-b gpu-sharing
is "both on one node" "$(node_of qs-b gpu-sharing)" "$(node_of qs gpu-sharing)"
ok "their ConfigMaps are made" wait_for 30 eval \
    '[ -n "$(cm_key qs gpu-sharing NVIDIA_VISIBLE_DEVICES)" ] && [ -n "$(cm_key qs-b gpu-sharing NVIDIA_VISIBLE_DEVICES)" ]'
is "both on one GPU" "$(cm_key qs-b gpu-sharing NVIDIA_VISIBLE_DEVICES)" \
    "$(cm_key qs gpu-sharing NVIDIA_VISIBLE_DEVICES)"
kc -n qs delete pod --all --wait=false >/dev/null
kc -n qs-b delete pod --all --wait=false >/dev/null
gone() { [ -z "$(kc -n "$1" get pods -o name 2>/dev/null)" ]; }
ok "the quick-start pods go" wait_for 40 eval 'gone qs && gone qs-b'

# -- A Deployment of 3 sharing GPUs ---------------------------------------------
# A Deployment's pods are of priority inference, not preemptible: as in
# KAI, they may only use quota, in their queue and its parents, and
# default-queue and its parent have none.  A top-level inference queue
# with 2 GPUs of quota:
kc apply -f - >/dev/null <<'EOY' || bail_out "could not apply Queue inference"
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: inference
spec:
  resources:
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    gpu: {quota: 2, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
EOY
ok "an inference queue with GPU quota is made" wait_for 30 has_queue inference
deploy() {	# deploy NAME REPLICAS ANNOTATIONS_JSON
	kc -n serve create -f - >/dev/null <<EOJ
{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "$1", "labels": {"kai.scheduler/queue": "inference"}},
 "spec": {"replicas": $2,
  "selector": {"matchLabels": {"app": "$1"}},
  "template": {
   "metadata": {"labels": {"app": "$1"}, "annotations": $3},
   "spec": {"schedulerName": "kai-scheduler", "terminationGracePeriodSeconds": 1,
    "containers": [{"name": "server", "image": "$NODETIER_IMAGE",
     "imagePullPolicy": "Never",
     "command": ["/bin/sh", "-c",
      "echo \"dev=\$NVIDIA_VISIBLE_DEVICES portion=\$GPU_PORTION\"; exec sleep 600"],
     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}}
EOJ
}
deploy infer 3 '{"gpu-fraction": "0.5"}' || bail_out "could not create Deployment infer"
pods() {	# pods APP: its pods, not being deleted
	kc -n serve get pods -l app="$1" -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' |
	    awk 'NF == 1 { print $1 }'
}
running() {	# running APP N: N pods of it run
	[ "$(kc -n serve get pods -l app="$1" \
	    -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' |
	    grep -c '^Running$')" -ge "$2" ] && [ "$(pods "$1" | wc -l)" -eq "$2" ]
}
says() { [ "$(kc -n serve logs "$1" 2>/dev/null | head -n 1)" = "$2" ]; }
ok "the Deployment's 3 replicas run" wait_for 60 running infer 3
places=
for p in $(pods infer); do
	want="dev=$(cm_key serve "$p" NVIDIA_VISIBLE_DEVICES) portion=$(cm_key serve "$p" GPU_PORTION)"
	like "pod $p's ConfigMap holds a device and half of it" "$want" \
	    '^dev=[0-9]+ portion=0\.50$'
	ok "pod $p's container sees them in its environment" \
	    wait_for 30 says "$p" "$want"
	places="$places $(node_of serve "$p")/${want%% *}"
done
diag "the replicas' GPUs:$places"
ok "they share GPUs: 3 halves on at most 2 GPUs" test \
    "$(echo "$places" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)" -le 2
kc -n serve delete deployment infer >/dev/null
ok "its pods go with it" wait_for 40 eval '[ -z "$(kc -n serve get pods -o name)" ]'

# -- A malformed annotation, refused at creation --------------------------------
cat >"$T/bad.json" <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "bad", "annotations": {"gpu-fraction": "1.5"}},
 "spec": {"schedulerName": "kai-scheduler",
  "containers": [{"name": "c", "image": "$NODETIER_IMAGE"}]}}
EOJ
out=$(kc -n serve create -f "$T/bad.json" 2>&1)
ok "kubectl's pod with gpu-fraction 1.5 is refused" test $? -ne 0
like "by the webhook, naming the annotation and why" "$out" \
    'admission webhook "gpu-sharing\.kaibatch\.io" denied the request: annotation "gpu-fraction" "1\.5": must be above 0 and below 1'
ok "no such pod exists" eval '! kc -n serve get pod bad >/dev/null 2>&1'
deploy badfrac 2 '{"gpu-fraction": "0"}' || bail_out "could not create Deployment badfrac"
rs_refused() {
	kc -n serve get events -o jsonpath='{range .items[*]}{.involvedObject.kind}|{.reason}|{.message}{"\n"}{end}' |
	    grep '^ReplicaSet|FailedCreate|' | grep -q 'annotation "gpu-fraction" "0"'
}
ok "a Deployment's pods with gpu-fraction 0 are refused to its ReplicaSet" \
    wait_for 60 rs_refused
is "and none of them exists" "$(pods badfrac | grep -c .)" 0
kc -n serve delete deployment badfrac >/dev/null

# -- A PodGroup of 4, all or nothing --------------------------------------------
# kaid gives each job whole CPUs: the two nodes hold 4 one-CPU pods.
mkpod() {	# mkpod NAME [ANNOTATIONS_JSON]
	kc -n pg create -f - >/dev/null <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "annotations": ${2:-{\}}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "terminationGracePeriodSeconds": 1,
  "containers": [{"name": "c", "image": "$NODETIER_IMAGE",
   "imagePullPolicy": "Never", "command": ["sleep", "600"],
   "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}]}}
EOJ
}
mkpod blocker || bail_out "could not create the blocker"
ok "a bare pod takes one of the 4 places" wait_for 30 bound pg blocker
kc -n pg create -f - >/dev/null <<'EOJ' || bail_out "could not create PodGroup pg4"
{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "pg4"}, "spec": {"minMember": 4, "queue": "default-queue"}}
EOJ
for m in a b c d; do
	mkpod "pg4-$m" '{"pod-group-name": "pg4"}' ||
	    bail_out "could not create pod pg4-$m"
done
nbound() {
	local m n=0
	for m in a b c d; do bound pg "pg4-$m" && n=$((n + 1)); done
	echo "$n"
}
pgjob() { stack_psql "select id from jobs where workload = 'pg/PodGroup:pg4' order by id desc limit 1"; }
ok "the PodGroup's 4 pods are one job" wait_for 30 eval '[ -n "$(pgjob)" ]'
ok "with room for 3 it waits for resources" wait_for 30 eval \
    '[ "$(kqueue -j "$(pgjob)" --noheader -o %r)" = Resources ]'
sleep 3
is "and binds none of its pods" "$(nbound)" 0
kc -n pg delete pod blocker --wait=false >/dev/null
ok "with room for 4 it binds all 4" wait_for 40 eval '[ "$(nbound)" = 4 ]'
pgrunning() {
	[ "$(kc -n pg get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' |
	    grep -c '^pg4-.=Running$')" = 4 ]
}
ok "and the 4 run" wait_for 40 pgrunning
is "on both nodes" "$(for m in a b c d; do node_of pg "pg4-$m"; echo; done | sort -u | grep -c .)" 2

done_testing
