#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9110-gpushare-node: GPU sharing of a Deployment on a real node (issue
# 13, doc/k8s-native.md "GPU sharing"): the real kube-apiserver calls
# kaid's webhook, the controller-manager's ReplicaSet makes the pods, a
# real kubelet runs them.
#  - a Deployment of 2 replicas with gpu-fraction 0.5 shares one GPU (the
#    node tier's node has this machine's CPUs, two: kaid gives each job
#    whole CPUs, so two replicas is what fits);
#  - each container sees, in its environment, the device and portion kaid
#    chose and wrote into the pod's ConfigMap (the kubelet resolved the
#    configMapKeyRef that the webhook added);
#  - a deleted replica's ConfigMap goes with it (the garbage collector,
#    by its owner reference), and the ReplicaSet's new pod is mutated,
#    placed and given a ConfigMap of its own.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"
. "$top_srcdir/tests/lib/webhook.sh"

stack_tiers node -- "a Deployment's pods on a real kubelet (KAI_STACK_API=node)"
stack_require
command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

T=$(mktemp -d /tmp/kai-t9110.XXXXXX)
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
 "metadata": {"name": "infer"},
 "spec": {"replicas": 2,
  "selector": {"matchLabels": {"app": "infer"}},
  "template": {
   "metadata": {"labels": {"app": "infer"},
    "annotations": {"gpu-fraction": "0.5"}},
   "spec": {"schedulerName": "kaid", "terminationGracePeriodSeconds": 1,
    "containers": [{"name": "server", "image": "$NODETIER_IMAGE",
     "imagePullPolicy": "Never",
     "command": ["/bin/sh", "-c",
      "echo \"dev=\$NVIDIA_VISIBLE_DEVICES portion=\$GPU_PORTION\"; exec sleep 600"],
     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}}
EOJ

pods() {	# the Deployment's pods, not being deleted
	kc -n "$NS" get pods -l app=infer -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' |
	    awk 'NF == 1 { print $1 }'
}
running() {	# running N: N pods of the Deployment run
	[ "$(kc -n "$NS" get pods -l app=infer \
	    -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' |
	    grep -c '^Running$')" -ge "$1" ] && [ "$(pods | wc -l)" -eq "$1" ]
}
cm_of() { kc -n "$NS" get pod "$1" -o jsonpath='{.metadata.annotations.kaibatch\.io/gpu-share-configmap}'; }
cm_line() {	# what the pod's ConfigMap says, as the container prints it
	local cm
	cm=$(cm_of "$1")
	echo "dev=$(kc -n "$NS" get configmap "$cm" -o jsonpath='{.data.NVIDIA_VISIBLE_DEVICES}') portion=$(kc -n "$NS" get configmap "$cm" -o jsonpath='{.data.GPU_PORTION}')"
}
says() { [ "$(kc -n "$NS" logs "$1" 2>/dev/null | head -n 1)" = "$2" ]; }

ok "the two replicas run" wait_for 180 running 2
devs=
for p in $(pods); do
	want=$(cm_line "$p")
	like "pod $p's ConfigMap holds a device and half of it" "$want" \
	    '^dev=[0-9]+ portion=0\.50$'
	ok "pod $p's container sees them in its environment" \
	    wait_for 30 says "$p" "$want"
	devs="$devs ${want%% *}"
done
is "two halves on one GPU" "$(echo "$devs" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)" 1

before=$(pods)
victim=$(echo "$before" | head -n 1)
vcm=$(cm_of "$victim")
kc -n "$NS" delete pod "$victim" --wait=false >/dev/null ||
    bail_out "could not delete pod $victim"
gone() { ! kc -n "$NS" get configmap "$vcm" >/dev/null 2>&1; }
ok "the deleted replica's ConfigMap is garbage-collected" wait_for 60 gone
ok "the ReplicaSet's new pod runs" wait_for 120 running 2
new=$(pods | grep -vxF "$before" | head -n 1)
ok "it has a ConfigMap of its own" test -n "$(cm_of "$new")"
ok "and its container sees its device" wait_for 30 says "$new" "$(cm_line "$new")"

done_testing
