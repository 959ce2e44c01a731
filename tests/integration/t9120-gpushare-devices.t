#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9120-gpushare-devices: a GPU share over more than one device (KAI's
# gpu-fraction-num-devices; issue 13, doc/k8s-native.md "GPU sharing") on
# the real-API tier, with kaid's admission webhook registered as in
# t9100.  One node of 2 GPUs and one of 1:
#  - a pod with gpu-fraction 0.5 and gpu-fraction-num-devices 2 binds to
#    the node with 2 GPUs; its ConfigMap names both devices in
#    NVIDIA_VISIBLE_DEVICES ("0,1") and the portion of each, as KAI's
#    binder writes them;
#  - a second such pod shares the same two devices;
#  - a third waits, unbound, with the scheduler's reason as a
#    FailedScheduling event ("no node has 2 GPUs with 0.5 free");
#  - one asking for 3 devices is admitted and waits with the reason that
#    no node has that many GPUs; 0 or a non-integer is refused at
#    creation, naming the annotation;
#  - kshare and kacct count a pod's GPUs as 2 x 0.5;
#  - deleting the first two pods frees both devices: the third binds.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"
. "$top_srcdir/tests/lib/webhook.sh"

stack_tiers real -- "the webhook is called by a real API server"
stack_require
command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

T=$(mktemp -d /tmp/kai-t9120.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-two
    cpu: 32
    memory: 128Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
  - name: gpu-one
    cpu: 32
    memory: 128Gi
    gpus: 1
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
webhook_prepare "$T" || bail_out "webhook-cert.sh failed"
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch
$WEBHOOK_CONF"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup infer ""
webhook_register "$T" || bail_out "could not register the webhook"

# pod NAME ANNOTATIONS(JSON members): a bare pod of kaid's, queue gpu.
pod_json() {
	cat <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "labels": {"kai.scheduler/queue": "gpu"},
  "annotations": {$2}},
 "spec": {"schedulerName": "kaid", "restartPolicy": "Never",
  "containers": [{"name": "main", "image": "ubuntu",
   "command": ["/bin/sh", "-c", "sleep 600"],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
EOJ
}
# shellcheck disable=SC2069 # stderr to the output, stdout dropped
mkpod() { pod_json "$@" | kc -n "$NS" create -f - 2>&1 >/dev/null; }
field() { kc -n "$NS" get pod "$1" -o jsonpath="$2" 2>/dev/null; }
cm_of() { field "$1" '{.metadata.annotations.kaibatch\.io/gpu-share-configmap}'; }
cm_key() { kc -n "$NS" get configmap "$(cm_of "$1")" -o jsonpath="{.data.$2}" 2>/dev/null; }
has_event() { [[ "$(events "$1")" == *"FailedScheduling|"*"$2"* ]]; }
TWO='"gpu-fraction": "0.5", "gpu-fraction-num-devices": "2"'

mkpod pair-0 "$TWO" >/dev/null || bail_out "could not create pod pair-0"
ok "a pod with 0.5 on 2 devices is bound" wait_for 30 bound pair-0
is "to the node with 2 GPUs" "$(field pair-0 '{.spec.nodeName}')" gpu-two
is "its ConfigMap names both devices" \
    "$(cm_key pair-0 NVIDIA_VISIBLE_DEVICES)" "0,1"
is "and the portion of each" "$(cm_key pair-0 GPU_PORTION)" 0.50
is "in RUNAI_NUM_OF_GPUS too" "$(cm_key pair-0 RUNAI_NUM_OF_GPUS)" 0.50
is "and both in SLURM_JOB_GPUS" "$(cm_key pair-0 SLURM_JOB_GPUS)" "0,1"
is "its container reads NVIDIA_VISIBLE_DEVICES from that ConfigMap" \
    "$(field pair-0 '{range .spec.containers[0].env[*]}{.name}={.valueFrom.configMapKeyRef.name},{end}' |
      sed "s|$(cm_of pair-0)|CM|g")" \
    "NVIDIA_VISIBLE_DEVICES=CM,GPU_PORTION=CM,RUNAI_NUM_OF_GPUS=CM,"

mkpod pair-1 "$TWO" >/dev/null || bail_out "could not create pod pair-1"
ok "a second such pod is bound" wait_for 30 bound pair-1
is "to the same node" "$(field pair-1 '{.spec.nodeName}')" gpu-two
is "on the same two devices" "$(cm_key pair-1 NVIDIA_VISIBLE_DEVICES)" "0,1"

mkpod pair-2 "$TWO" >/dev/null || bail_out "could not create pod pair-2"
ok "a third waits with the reason as an event" \
    wait_for 30 has_event pair-2 "no node has 2 GPUs with 0.5 free"
ok "unbound" eval '! bound pair-2'
like "kqueue says it too" "$(kqueue -n pair-2 --why -h -o '%r' 2>/dev/null)" \
    "no node has 2 GPUs with 0.5 free"

mkpod three '"gpu-fraction": "0.25", "gpu-fraction-num-devices": "3"' >/dev/null ||
    bail_out "could not create pod three"
ok "3 devices is admitted, and waits: no node has 3 GPUs" \
    wait_for 30 has_event three \
    "a task needs a share of 3 GPUs but no node has more than 2"
ok "unbound" eval '! bound three'

out=$(mkpod zero '"gpu-fraction": "0.5", "gpu-fraction-num-devices": "0"')
like "0 devices is refused at creation" "$out" \
    'denied the request: annotation "gpu-fraction-num-devices" "0": must be a positive whole number'
out=$(mkpod half '"gpu-memory": "100", "gpu-fraction-num-devices": "1.5"')
like "1.5 devices too" "$out" \
    'annotation "gpu-fraction-num-devices" "1.5": must be a positive whole number'
ok "neither pod exists" \
    eval '! kc -n "$NS" get pod zero 2>/dev/null && ! kc -n "$NS" get pod half 2>/dev/null'

# kshare's parsable row of queue gpu, user infer (the namespace): GPUAlloc
# is field 7.
alloc_row() {
	kshare --parsable2 --noheader | awk -F'|' '$1 == "gpu" && $2 == "infer"' |
	    cut -d'|' -f7
}
ok "kshare: the namespace holds 2 GPUs in queue gpu (2 pods x 2 x 0.5)" \
    wait_for 20 eval '[ "$(alloc_row)" = 2 ]'

job=$(kacct -a -n -P -X --name pair-0 -o jobid 2>/dev/null | head -n 1)
like "kacct: a pod's job holds 2 x 0.5 GPUs" \
    "$(kacct -j "$job" -n -P -X -o AllocTRES)" "gres/gpu=1,"

kc -n "$NS" delete pod pair-0 pair-1 --grace-period=0 >/dev/null 2>&1 ||
    bail_out "could not delete pair-0 and pair-1"
ok "once both leave, the third binds" wait_for 60 bound pair-2
is "on the two freed devices" "$(cm_key pair-2 NVIDIA_VISIBLE_DEVICES)" "0,1"

done_testing
