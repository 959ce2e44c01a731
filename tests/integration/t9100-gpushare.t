#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9100-gpushare: GPU sharing of Kubernetes-native pods (issue 13,
# doc/k8s-native.md "GPU sharing") on the real-API tier: the real
# kube-apiserver calls kaid's admission webhook over HTTPS on loopback,
# registered from contrib/kubernetes/webhook.yaml (its Service reference
# swapped for the loopback URL), with a CA and certificate made by
# contrib/kubernetes/webhook-cert.sh.
#  - KAI's quick-start pair of pods with gpu-memory share one GPU;
#  - three pods with gpu-fraction 0.5 share two GPUs;
#  - the webhook gives each sharing pod's container NVIDIA_VISIBLE_DEVICES,
#    GPU_PORTION and RUNAI_NUM_OF_GPUS from its ConfigMap, named in an
#    annotation, and kaid makes that ConfigMap at bind, owned by the pod,
#    with the device and portion it chose;
#  - a malformed annotation is refused at creation with a message naming
#    it; another scheduler's pod is never refused;
#  - a sharing pod created while the webhook is not registered gets no
#    job and a FailedScheduling event saying why;
#  - a renewed certificate is served after SIGHUP, one that does not
#    load is said and the one in use stays;
#  - kaid refuses to start with a certificate its key does not match.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"
. "$top_srcdir/tests/lib/webhook.sh"

stack_tiers real -- "the webhook is called by a real API server"
stack_require
command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

T=$(mktemp -d /tmp/kai-t9100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
webhook_prepare "$T" || bail_out "webhook-cert.sh failed"
WH_PORT=$WEBHOOK_PORT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch
$WEBHOOK_CONF"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

native_setup infer ""
webhook_register "$T" || bail_out "could not register the webhook"

# pod NAME SCHEDULER ANNOTATIONS(JSON members): a pod as KAI's quick-start
# writes it (queue label, a sleeping container).
pod_json() {
	cat <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "labels": {"kai.scheduler/queue": "gpu"},
  "annotations": {$3}},
 "spec": {"schedulerName": "$2", "restartPolicy": "Never",
  "containers": [{"name": "ubuntu", "image": "ubuntu",
   "command": ["/bin/sh", "-c", "sleep 600"],
   "env": [{"name": "MODEL", "value": "m"}],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
EOJ
}
# mkpod ...: creates the pod; prints only the error, if any.
# shellcheck disable=SC2069 # stderr to the output, stdout dropped
mkpod() { pod_json "$@" | kc -n "$NS" create -f - 2>&1 >/dev/null; }
field() { kc -n "$NS" get pod "$1" -o jsonpath="$2" 2>/dev/null; }
cm_of() { field "$1" '{.metadata.annotations.kaibatch\.io/gpu-share-configmap}'; }
cm_key() { kc -n "$NS" get configmap "$(cm_of "$1")" -o jsonpath="{.data.$2}" 2>/dev/null; }
mutated() { webhook_mutated "$NS"; }

# KAI's quick-start pair: two pods with gpu-memory share one GPU.
for p in gpu-memory-1 gpu-memory-2; do
	mkpod "$p" kai-scheduler '"gpu-memory": "2000"' >/dev/null ||
	    bail_out "could not create pod $p"
done
ok "the first gpu-memory pod is bound" wait_for 30 bound gpu-memory-1
ok "the second gpu-memory pod is bound" wait_for 30 bound gpu-memory-2
is "both on one node" "$(field gpu-memory-2 '{.spec.nodeName}')" \
    "$(field gpu-memory-1 '{.spec.nodeName}')"
dev1=$(cm_key gpu-memory-1 NVIDIA_VISIBLE_DEVICES)
ok "the first pod's ConfigMap names its device" test -n "$dev1"
is "both on one device" "$(cm_key gpu-memory-2 NVIDIA_VISIBLE_DEVICES)" "$dev1"
# 2000 MiB of an 80 GiB A100 (kubesim's nodes): 0.02 of it.
is "the ConfigMap holds the portion" "$(cm_key gpu-memory-1 GPU_PORTION)" 0.02
is "and the memory limit" "$(cm_key gpu-memory-1 CUDA_DEVICE_MEMORY_LIMIT)" 2000m

is "the webhook gives the container the three env refs after its own" \
    "$(field gpu-memory-1 '{range .spec.containers[0].env[*]}{.name}={.valueFrom.configMapKeyRef.name}/{.valueFrom.configMapKeyRef.key},{end}' |
      sed "s|$(cm_of gpu-memory-1)|CM|g")" \
    "MODEL=/,NVIDIA_VISIBLE_DEVICES=CM/NVIDIA_VISIBLE_DEVICES,GPU_PORTION=CM/GPU_PORTION,RUNAI_NUM_OF_GPUS=CM/RUNAI_NUM_OF_GPUS,"
is "the refs are not optional: the kubelet waits for the ConfigMap" \
    "$(field gpu-memory-1 '{.spec.containers[0].env[1].valueFrom.configMapKeyRef.optional}')" ""
is "the ConfigMap is owned by its pod" \
    "$(kc -n "$NS" get configmap "$(cm_of gpu-memory-1)" -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].uid}')" \
    "Pod/$(field gpu-memory-1 '{.metadata.uid}')"

# A pod set of three with gpu-fraction 0.5: two GPUs for three pods.
for i in 0 1 2; do
	mkpod "half-$i" kaid '"gpu-fraction": "0.5"' >/dev/null ||
	    bail_out "could not create pod half-$i"
done
for i in 0 1 2; do
	ok "pod half-$i is bound" wait_for 30 bound "half-$i"
	is "pod half-$i's ConfigMap holds its portion" \
	    "$(cm_key "half-$i" GPU_PORTION)" 0.50
	is "and the same in RUNAI_NUM_OF_GPUS" \
	    "$(cm_key "half-$i" RUNAI_NUM_OF_GPUS)" 0.50
done
is "the three halves take two GPUs" "$(for i in 0 1 2; do
	echo "$(field "half-$i" '{.spec.nodeName}')/$(cm_key "half-$i" NVIDIA_VISIBLE_DEVICES)"
done | sort -u | wc -l)" 2
job=$(kacct -a -n -P -X --name half-0 -o jobid 2>/dev/null | head -n 1)
like "kacct: the job holds half a GPU" \
    "$(kacct -j "$job" -n -P -X -o AllocTRES)" "gres/gpu=0.5,"

# Malformed annotations are refused at creation, naming the annotation.
out=$(mkpod bad-frac kaid '"gpu-fraction": "1.5"')
ok "gpu-fraction 1.5 is refused" eval '! kc -n "$NS" get pod bad-frac 2>/dev/null'
like "with the annotation and why" "$out" \
    'denied the request: annotation "gpu-fraction" "1.5": must be above 0 and below 1'
out=$(mkpod bad-both kai-scheduler '"gpu-fraction": "0.5", "gpu-memory": "100"')
like "gpu-memory beside gpu-fraction is refused" "$out" \
    'annotation "gpu-memory" "100": excludes annotation "gpu-fraction"'
out=$(mkpod other default-scheduler '"gpu-fraction": "1.5"')
is "another scheduler's pod is never refused" "$out" ""
is "nor changed" "$(cm_of other)" ""

# Whatever a client sends, kaid answers or closes, and stays up.
wh() { curl -sS --cacert "$T/tls/ca.crt" -o /dev/null -w '%{http_code}' \
    "$@" 2>/dev/null; }
URL=https://127.0.0.1:$WH_PORT
is "GET: 405" "$(wh "$URL/mutate-pods")" 405
is "another path: 404" "$(wh -X POST --data '{}' "$URL/other")" 404
is "a body that is no AdmissionReview: 400" \
    "$(wh -X POST -H 'Content-Type: application/json' --data '{"kind": 1}' "$URL/mutate-pods")" 400
is "a body over 8 MiB: 413" \
    "$(wh -X POST -H 'Content-Length: 99999999' --data x "$URL/mutate-pods")" 413
is "chunked: 501" \
    "$(wh -X POST -H 'Transfer-Encoding: chunked' --data '{}' "$URL/mutate-pods")" 501
printf '%s' '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
 "request": {"uid": "u", "operation": "CREATE", "object": {},
  "kind": {"group": "apps", "version": "v1", "kind": "Deployment"}}}' >"$T/review.json"
is "two reviews on one connection (keep-alive)" \
    "$(curl -sS --cacert "$T/tls/ca.crt" -o /dev/null -o /dev/null -w '%{http_code}/%{num_connects} ' \
      -H 'Content-Type: application/json' --data "@$T/review.json" \
      "$URL/mutate-pods" "$URL/mutate-pods")" "200/1 200/0 "
printf 'POST /mutate-pods HTTP/1.1\r\n\r\n' | timeout 5 \
    python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); s.settimeout(4)
try:
    s.recv(100)
except OSError:
    pass' "$WH_PORT"
ok "plain HTTP on the TLS port is dropped, and kaid lives" \
    kill -0 "$(cat "$T/kaid.pid")"
ok "and still answers" mutated

# Without the webhook, a sharing pod gets a reason and no job.
kc delete mutatingwebhookconfiguration kaibatch-gpu-sharing >/dev/null ||
    bail_out "could not remove the webhook"
unmutated() { pod_json probe kaid '"gpu-fraction": "0.5"' |
	kc -n "$NS" create --dry-run=server -o json -f - 2>/dev/null |
	    grep -q '"gpu-fraction"' && ! mutated; }
wait_for 30 unmutated || bail_out "the apiserver kept calling the webhook"
mkpod late kaid '"gpu-fraction": "0.5"' >/dev/null || bail_out "could not create pod late"
ok "a sharing pod the webhook did not see waits with an event saying why" \
    wait_for 20 eval '[[ "$(events late)" == *"FailedScheduling|the pod asks for a share of a GPU (annotation \"gpu-fraction\") but has no annotation \"kaibatch.io/gpu-share-configmap\""* ]]'
ok "unbound" eval '! bound late'
is "and no job" "$(kacct -a -n -P -X --name late -o jobid 2>/dev/null)" ""

# A renewed certificate (here from another CA) is taken on SIGHUP; one
# that does not load leaves the one in use.
"$top_srcdir/contrib/kubernetes/webhook-cert.sh" "$T/tls2" IP:127.0.0.1 \
    >/dev/null || bail_out "webhook-cert.sh failed"
new_ca() { curl -sS --cacert "$T/tls2/ca.crt" -o /dev/null -w '%{http_code}' \
    -H 'Content-Type: application/json' --data "@$T/review.json" \
    "$URL/mutate-pods" 2>/dev/null; }
is "the new CA is not trusted yet" "$(new_ca)" 000
sed -i "s|webhook_cert: .*|webhook_cert: $T/tls2/webhook.crt|; s|webhook_key: .*|webhook_key: $T/tls2/webhook.key|" "$T/kaid.yaml"
kill -HUP "$(cat "$T/kaid.pid")"
ok "after SIGHUP kaid serves the new certificate" \
    wait_for 10 eval '[ "$(new_ca)" = 200 ]'
sed -i "s|webhook_cert: .*|webhook_cert: $T/nosuch.crt|" "$T/kaid.yaml"
kill -HUP "$(cat "$T/kaid.pid")"
ok "a certificate that does not load is said" \
    wait_for 10 grep -q "webhook certificate not reloaded: native.webhook_cert \"$T/nosuch.crt\"" "$T/kaid.log"
is "and the one in use stays" "$(new_ca)" 200

# A certificate that does not go with the key: kaid refuses to start,
# naming the key and why.
kaid_stop
sed "s|webhook_cert: .*|webhook_cert: $T/tls/ca.crt|; s|webhook_key: .*|webhook_key: $T/tls/webhook.key|" "$T/kaid.yaml" >"$T/bad.yaml"
out=$(timeout 30 "$STACK_BIN/daemons/kaid/kaid" -F -f "$T/bad.yaml" 2>&1)
is "kaid with a mismatched certificate exits 1" "$?" 1
like "saying which key and why" "$out" \
    "native.webhook_key \"$T/tls/webhook.key\": does not match the certificate"

done_testing
