#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# kube-client.t: runs tests/unit/kube-client against kubesim, a stand-in
# Kubernetes API server (HTTPS, bearer token, list/watch, a kubelet that
# runs pods as local processes).  kubesim is started in a temporary
# directory with a nodes file written here, validates created objects
# against the Kubernetes OpenAPI schema when it is found, and is stopped
# by the pid this script started.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
sim="$top_srcdir/contrib/kubesim/kubesim"
prog="$top_builddir/tests/unit/kube-client"
schema=${KAI_K8S_SCHEMA:-$top_srcdir/../shared/k8s-openapi/swagger.json}

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
if [ ! -x "$sim" ]; then
	echo "1..0 # SKIP kubesim not found at $sim"
	exit 0
fi
if [ ! -x "$prog" ]; then
	echo "1..0 # SKIP $prog is not built"
	exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/kube-client.XXXXXX") || exit 1
simpid=
# shellcheck disable=SC2317 # called through trap
cleanup() {
	if [ -n "$simpid" ]; then
		kill "$simpid" 2>/dev/null
		wait "$simpid" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

cat >"$dir/nodes.yaml" <<'NODES'
nodes:
  - name: gpu-1
    cpu: 32
    memory: 256Gi
    gpus: 8
    gpu_product: NVIDIA-H100-80GB-HBM3
    gpu_memory: 81559
  - name: cpu-1
    cpu: 7500m
    memory: 64Gi
NODES

set --
use_schema=no
if [ -f "$schema" ]; then
	set -- --schema "$schema"
	use_schema=yes
fi
"$sim" --listen 127.0.0.1:0 --port-file "$dir/port" --tls-dir "$dir/tls" \
    --token "kube-client-token" --nodes "$dir/nodes.yaml" \
    --kubeconfig-out "$dir/kubeconfig" --record "$dir/record.jsonl" \
    "$@" 2>"$dir/kubesim.log" &
simpid=$!

i=0
while [ ! -s "$dir/port" ]; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$simpid" 2>/dev/null; then
		echo "Bail out! kubesim did not start"
		sed 's/^/# /' "$dir/kubesim.log"
		exit 1
	fi
	sleep 0.1
done

"$prog" "$dir/kubeconfig" "$use_schema"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "# kubesim log:"
	tail -n 40 "$dir/kubesim.log" | sed 's/^/# /'
fi
exit "$rc"
