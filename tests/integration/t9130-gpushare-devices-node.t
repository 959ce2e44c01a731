#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9130-gpushare-devices-node: a Deployment whose pods each ask for 0.5 of
# a GPU on 2 devices (KAI's gpu-fraction-num-devices; issue 13,
# doc/k8s-native.md "GPU sharing"), on a real node: the real
# kube-apiserver calls kaid's webhook, the controller-manager's
# ReplicaSet makes the pods, a real kubelet runs them (the node tier's
# node has 8 fake GPUs and this machine's two CPUs: two replicas fit).
#  - each container sees both of its devices in NVIDIA_VISIBLE_DEVICES
#    ("0,1": kaid packs the second replica onto the first one's devices)
#    and the portion of each in GPU_PORTION; its ConfigMap has the
#    memory of each in CUDA_DEVICE_MEMORY_LIMIT (half of the node's
#    80 GiB GPUs);
#  - a deleted replica's successor is placed on the same two devices,
#    whose halves its predecessor freed.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"
. "$top_srcdir/tests/lib/webhook.sh"

stack_tiers node -- "a Deployment's pods on a real kubelet (KAI_STACK_API=node)"
stack_require
command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

T=$(mktemp -d /tmp/kai-t9130.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
webhook_prepare "$T" || bail_out "webhook-cert.sh failed"
KAID_CONF_EXTRA="native:
  schedulers: kaid
  default_queue: batch
$WEBHOOK_CONF"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

native_setup serve ""
webhook_register "$T" || bail_out "could not register the webhook"

kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create the Deployment"
{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "wide"},
 "spec": {"replicas": 2,
  "selector": {"matchLabels": {"app": "wide"}},
  "template": {
   "metadata": {"labels": {"app": "wide"},
    "annotations": {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "2"}},
   "spec": {"schedulerName": "kaid", "terminationGracePeriodSeconds": 1,
    "containers": [{"name": "server", "image": "$NODETIER_IMAGE",
     "imagePullPolicy": "Never",
     "command": ["/bin/sh", "-c",
      "echo \"dev=\$NVIDIA_VISIBLE_DEVICES portion=\$GPU_PORTION\"; exec sleep 600"],
     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}}
EOJ

pods() {	# the Deployment's pods, not being deleted
	kc -n "$NS" get pods -l app=wide -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' |
	    awk 'NF == 1 { print $1 }'
}
running() {	# running N: N pods of the Deployment run
	[ "$(kc -n "$NS" get pods -l app=wide \
	    -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' |
	    grep -c '^Running$')" -ge "$1" ] && [ "$(pods | wc -l)" -eq "$1" ]
}
said() { kc -n "$NS" logs "$1" 2>/dev/null | head -n 1; }
logged() { [ -n "$(said "$1")" ]; }
cm_of() { kc -n "$NS" get pod "$1" -o jsonpath='{.metadata.annotations.kaibatch\.io/gpu-share-configmap}'; }
cm_key() { kc -n "$NS" get configmap "$(cm_of "$1")" -o jsonpath="{.data.$2}" 2>/dev/null; }
WANT="dev=0,1 portion=0.50"

ok "the two replicas run" wait_for 180 running 2
for p in $(pods); do
	wait_for 30 logged "$p"
	is "pod $p's container sees both devices and the portion of each" \
	    "$(said "$p")" "$WANT"
	is "its ConfigMap has the memory of each (half of 80 GiB)" \
	    "$(cm_key "$p" CUDA_DEVICE_MEMORY_LIMIT)" 40960m
done

before=$(pods)
victim=$(echo "$before" | head -n 1)
kc -n "$NS" delete pod "$victim" --wait=false >/dev/null ||
    bail_out "could not delete pod $victim"
ok "the ReplicaSet's new pod runs" wait_for 120 running 2
new=$(pods | grep -vxF "$before" | head -n 1)
wait_for 30 logged "$new"
is "on the same two devices" "$(said "$new")" "$WANT"

done_testing
