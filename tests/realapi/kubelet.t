#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# kubelet.t: kubesim --kubelet-only runs the pods of a real kube-apiserver.
# Starts the apiserver (contrib/k8s/start-apiserver.sh; skipped when
# contrib/k8s/build-apiserver.sh has not cached the binary), applies
# contrib/kubernetes/rbac.yaml, starts the simulated kubelets with the
# kubelet-sim token, and then acts as kaid does, with curl and kaid's
# token (only what RBAC grants it): create a pod, bind it, watch it run,
# read its log (which the apiserver proxies to the simulated kubelet),
# delete a running pod.

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${top_srcdir:-$HERE/../..}
SRC=$(cd "$SRC" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$SRC/tests/lib/tap.sh"

[ -n "${KAI_SKIP_REALAPI:-}" ] && skip_all "real API tests disabled (KAI_SKIP_REALAPI)"
CACHE=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-1.20.2}
APISERVER=${KAI_K8S_APISERVER:-$CACHE/kube-apiserver}
[ -x "$APISERVER" ] ||
    skip_all "no kube-apiserver at $APISERVER (run contrib/k8s/build-apiserver.sh)"
command -v etcd >/dev/null 2>&1 || [ -n "${KAI_K8S_ETCD:-}" ] ||
    skip_all "etcd not installed (apt-get install etcd-server)"
for t in curl python3 openssl pgrep; do
	command -v $t >/dev/null 2>&1 || skip_all "$t not installed"
done
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

D=$(mktemp -d "${TMPDIR:-/tmp}/kai-kubelet.XXXXXX")
kubelet_stop() {
	local pid
	pid=$(cat "$D/kubelet.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
}
cleanup() {
	kubelet_stop
	"$SRC/contrib/k8s/stop-apiserver.sh" "$D" >/dev/null 2>&1
	[ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$D"
}
trap cleanup EXIT
"$SRC/contrib/k8s/start-apiserver.sh" "$D" >/dev/null 2>"$D/start.err" ||
    bail_out "start-apiserver.sh: $(head -n 1 "$D/start.err")"
"$SRC/contrib/k8s/kapply" --kubeconfig "$D/kubeconfig-admin" \
    "$SRC/contrib/kubernetes/namespace.yaml" \
    "$SRC/contrib/kubernetes/rbac.yaml" >"$D/apply.log" 2>&1 ||
    bail_out "kapply rbac.yaml: $(tail -n 1 "$D/apply.log")"
URL=$(cat "$D/apiserver.url")
ADMIN=$(cat "$D/token-admin")
KAID=$(cat "$D/token-kaid")
NS=/api/v1/namespaces/default
TAG=$$          # makes this run's container commands unique for pgrep

cat >"$D/nodes.yaml" <<'EOF'
nodes:
  - name: gpu-a1
    cpu: 32
    memory: 256Gi
    gpus: 8
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
  - name: cpu-1
    cpu: 16
    memory: 64Gi
EOF

kubelet_start() {
	"$SRC/contrib/kubesim/kubesim" --kubelet-only \
	    --apiserver "$URL" --kubeconfig "$D/kubeconfig-kubelet-sim" \
	    --nodes "$D/nodes.yaml" --log-dir "$D/kubelet" \
	    --pid-file "$D/kubelet.pid" >>"$D/kubelet.log" 2>&1 &
	for _ in $(seq 1 100); do
		[ -s "$D/kubelet.pid" ] && return 0
		sleep 0.1
	done
	return 1
}

# api TOKEN METHOD PATH [BODY [CONTENT-TYPE]]: prints the HTTP status; the
# body is left in $D/out.
api() {
	# (a curl User-Agent would get pretty-printed JSON)
	local args=(-sS -A kaitest -o "$D/out" -w '%{http_code}' --cacert "$D/ca.crt"
	    -H "Authorization: Bearer $1" -X "$2")
	[ -n "${4:-}" ] && args+=(-H "Content-Type: ${5:-application/json}"
	    --data-binary "$4")
	curl "${args[@]}" "$URL$3"
}
# field EXPR: a Python expression on the last body, bound to "o".
field() {
	python3 -c 'import json,sys; o = json.load(open(sys.argv[1]))
try:
    v = eval(sys.argv[2])
except Exception:
    v = None
print(v if not isinstance(v, (dict, list)) else json.dumps(v, sort_keys=True))' "$D/out" "$1"
}
pod_json() {  # NAME COMMAND-JSON
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},' "$1"
	printf '"spec":{"schedulerName":"kaid","restartPolicy":"Never",'
	printf '"containers":[{"name":"main","image":"debian:bookworm-slim",'
	printf '"command":%s}]}}' "$2"
}
bind() {  # NAME NODE, as kaid
	api "$KAID" POST "$NS/pods/$1/binding" \
	    "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"$1\"},\"target\":{\"kind\":\"Node\",\"name\":\"$2\"}}"
}
# wait_phase NAME PHASE...: polls as kaid for up to 15 s.
wait_phase() {
	local name=$1 p
	shift
	for _ in $(seq 1 150); do
		if [ "$(api "$KAID" GET "$NS/pods/$name")" = 200 ]; then
			p=$(field 'o["status"].get("phase")')
			for want in "$@"; do
				[ "$p" = "$want" ] && return 0
			done
		fi
		sleep 0.1
	done
	return 1
}
wait_gone() {
	for _ in $(seq 1 ${2:-150}); do
		[ "$(api "$KAID" GET "$NS/pods/$1")" = 404 ] && return 0
		sleep 0.1
	done
	return 1
}

# -- the nodes --------------------------------------------------------------------
kubelet_start || bail_out "kubesim --kubelet-only did not start: $(tail -n 3 "$D/kubelet.log")"
for _ in $(seq 1 100); do
	api "$KAID" GET /api/v1/nodes >/dev/null
	[ "$(field 'len(o["items"])')" = 2 ] && break
	sleep 0.1
done
is "kaid sees the two simulated nodes" "$(field 'sorted(i["metadata"]["name"] for i in o["items"])')" \
    '["cpu-1", "gpu-a1"]'
api "$KAID" GET /api/v1/nodes/gpu-a1 >/dev/null
is "node labels: the GPU operator's" \
    "$(field '[o["metadata"]["labels"].get(k) for k in ("nvidia.com/gpu.count", "nvidia.com/gpu.product", "nvidia.com/gpu.memory")]')" \
    '["8", "NVIDIA-A100-SXM4-80GB", "81920"]'
is "node allocatable nvidia.com/gpu" "$(field 'o["status"]["allocatable"]["nvidia.com/gpu"]')" 8
is "the admission's not-ready taint is patched away" "$(field 'o["spec"].get("taints")')" None
is "node Ready" "$(field '[c["status"] for c in o["status"]["conditions"] if c["type"] == "Ready"]')" '["True"]'

# -- a pod that fails --------------------------------------------------------------
is "kaid creates a pod" "$(api "$KAID" POST $NS/pods "$(pod_json fail3 '["sh","-c","echo hi; exit 3"]')")" 201
is "kaid binds it" "$(bind fail3 gpu-a1)" 201
ok "it runs and fails" wait_phase fail3 Failed
api "$KAID" GET $NS/pods/fail3 >/dev/null
is "exit code 3, reason Error" \
    "$(field '[o["status"]["containerStatuses"][0]["state"]["terminated"][k] for k in ("exitCode", "reason")]')" \
    '[3, "Error"]'
is "conditions: Initialized, Ready=False, ContainersReady=False, PodScheduled" \
    "$(field '[(c["type"], c["status"]) for c in o["status"]["conditions"]]')" \
    '[["Initialized", "True"], ["Ready", "False"], ["ContainersReady", "False"], ["PodScheduled", "True"]]'
code=$(api "$KAID" GET $NS/pods/fail3/log)
is "its log through the apiserver (proxied to the kubelet)" "$code $(cat "$D/out")" "200 hi"
code=$(api "$KAID" GET "$NS/pods/fail3/log?container=nope")
is "log of a missing container: 400" "$code $(field 'o["message"]')" \
    "400 container nope is not valid for pod fail3"

api "$KAID" POST $NS/pods "$(pod_json follow '["sh","-c","echo a; sleep 1; echo b"]')" >/dev/null
bind follow cpu-1 >/dev/null
wait_phase follow Running Succeeded
code=$(api "$KAID" GET "$NS/pods/follow/log?follow=true")
is "log?follow=true streams until the container ends" "$code $(tr '\n' ' ' <"$D/out")" "200 a b "

# -- deleting a running pod ------------------------------------------------------------
api "$KAID" POST $NS/pods "$(pod_json run1 "[\"sleep\",\"3$TAG\"]")" >/dev/null
bind run1 gpu-a1 >/dev/null
ok "a long pod runs" wait_phase run1 Running
ok "its process runs" pgrep -f "^sleep 3$TAG\$"
is "kaid deletes it: 200" "$(api "$KAID" DELETE $NS/pods/run1)" 200
is "the answer is the Pod, Terminating with grace 30" \
    "$(field '[o["kind"], bool(o["metadata"].get("deletionTimestamp")), o["metadata"].get("deletionGracePeriodSeconds")]')" \
    '["Pod", true, 30]'
ok "the kubelet finishes the deletion (SIGTERM, then DELETE)" wait_gone run1 100
ok "the process is gone" sh -c "! pgrep -f '^sleep 3$TAG\$'"

api "$KAID" POST $NS/pods "$(pod_json run2 "[\"sleep\",\"4$TAG\"]")" >/dev/null
bind run2 gpu-a1 >/dev/null
wait_phase run2 Running
api "$KAID" DELETE "$NS/pods/run2?gracePeriodSeconds=0" >/dev/null
ok "gracePeriodSeconds=0: gone at once" wait_gone run2 20
for _ in $(seq 1 30); do pgrep -f "^sleep 4$TAG\$" >/dev/null || break; sleep 0.1; done
ok "... and its process killed" sh -c "! pgrep -f '^sleep 4$TAG\$'"

# -- a restarted kubelet takes its nodes over -------------------------------------------
api "$KAID" POST $NS/pods "$(pod_json survivor "[\"sleep\",\"6$TAG\"]")" >/dev/null
bind survivor gpu-a1 >/dev/null
wait_phase survivor Running
kubelet_stop
ok "SIGTERM: kubesim exits and removes its pid file" test ! -e "$D/kubelet.pid"
kubelet_start
sleep 1
is "restarted: it registers again (the nodes exist: 409, patched)" \
    "$(grep -c 'kubelets of 2 nodes' "$D/kubelet.log")" 2
api "$KAID" POST $NS/pods "$(pod_json again '["true"]')" >/dev/null
bind again cpu-1 >/dev/null
ok "pods run after the restart" wait_phase again Succeeded
ok "a pod whose process died with the old kubelet fails" wait_phase survivor Failed
api "$KAID" GET $NS/pods/survivor >/dev/null
is "... as a lost container (137, ContainerStatusUnknown), not run again" \
    "$(field '[o["status"]["containerStatuses"][0]["state"]["terminated"][k] for k in ("exitCode", "reason")]') $(pgrep -fc "^sleep 6$TAG\$")" \
    '[137, "ContainerStatusUnknown"] 0'

# -- node loss ------------------------------------------------------------------------
api "$KAID" POST $NS/pods "$(pod_json lost "[\"sleep\",\"5$TAG\"]")" >/dev/null
bind lost cpu-1 >/dev/null
wait_phase lost Running
api "$ADMIN" DELETE /api/v1/nodes/cpu-1 >/dev/null
ok "deleting its node fails the pod" wait_phase lost Failed
api "$KAID" GET $NS/pods/lost >/dev/null
is "reason NodeLost" "$(field 'o["status"].get("reason")')" NodeLost

done_testing
