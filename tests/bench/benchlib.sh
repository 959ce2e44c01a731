# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# benchlib.sh: what the stack benchmarks share, sourced after
# tests/lib/stack.sh.  The ones on a real API server (bench-dispatch.sh,
# bench-native.sh) set T to their run directory first: the control plane
# lives in $T/k8s.

# median: the median of the numbers on standard input, one a line.
median()
{
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# admin METHOD PATH [BODY]: one call as the cluster's admin; prints the
# HTTP status.
admin()
{
	curl -sS -o /dev/null -w '%{http_code}' --cacert "$T/k8s/ca.crt" \
	    -H "Authorization: Bearer $(cat "$T/k8s/token-admin")" \
	    -H "Content-Type: ${ADMIN_TYPE:-application/json}" -X "$1" \
	    ${3:+--data-binary "$3"} "$(cat "$T/k8s/apiserver.url")$2"
}

# apiserver_fresh: a new kube-apiserver and etcd in $T/k8s with the
# namespace and RBAC of contrib/kubernetes; exits on failure.
apiserver_fresh()
{
	"$top/contrib/k8s/stop-apiserver.sh" "$T/k8s" >/dev/null 2>&1
	rm -rf "$T/k8s"
	mkdir -p "$T/k8s"
	"$top/contrib/k8s/start-apiserver.sh" "$T/k8s" >"$T/start.log" 2>&1 ||
	    { tail -n 5 "$T/start.log" >&2; exit 1; }
	"$top/contrib/k8s/kapply" --kubeconfig "$T/k8s/kubeconfig-admin" \
	    "$top/contrib/kubernetes/namespace.yaml" \
	    "$top/contrib/kubernetes/rbac.yaml" >/dev/null || exit 1
}

# node_post NAME RESOURCES: a node posted Ready with RESOURCES (the
# members of a JSON object, e.g. "cpu":"2000","memory":"8Ti") as its
# capacity and allocatable.  The API server's TaintNodesByCondition
# admission gives a new node the not-ready taint, which only a node
# lifecycle controller would take off: it is taken off here.
node_post()
{
	admin POST /api/v1/nodes "{\"apiVersion\":\"v1\",\"kind\":\"Node\",
	    \"metadata\":{\"name\":\"$1\"},\"status\":{
	    \"capacity\":{$2},\"allocatable\":{$2},
	    \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}" >/dev/null
	ADMIN_TYPE=application/merge-patch+json admin PATCH \
	    "/api/v1/nodes/$1" '{"spec":{"taints":null}}' >/dev/null
}
