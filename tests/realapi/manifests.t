#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# manifests.t: contrib/kubernetes/*.yaml are valid and a real server takes
# them.  Always: every document passes the strict OpenAPI check against
# ../shared/k8s-openapi/swagger.json (contrib/k8s/kapply --validate), a
# typo is caught, and the kaid.yaml inside the ConfigMap passes `kaid -n`
# (when kaid is built).  With the cached kube-apiserver
# (contrib/k8s/build-apiserver.sh; never built here): all of them apply
# as admin, a second apply replaces them, and the objects read back as
# written (the probes on /healthz and /readyz:6821, the Secrets, the
# service port).

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${top_srcdir:-$HERE/../..}
SRC=$(cd "$SRC" && pwd)
BIN=${top_builddir:-$SRC}
# shellcheck source=tests/lib/tap.sh
. "$SRC/tests/lib/tap.sh"

python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
SWAGGER=${KAI_K8S_SCHEMA:-$SRC/../shared/k8s-openapi/swagger.json}
[ -f "$SWAGGER" ] || skip_all "no OpenAPI spec at $SWAGGER"
M=$SRC/contrib/kubernetes
KAPPLY=$SRC/contrib/k8s/kapply
MANIFESTS=("$M/namespace.yaml" "$M/rbac.yaml" "$M/rbac-native.yaml"
    "$M/kaid-deployment.yaml" "$M/kaid-service.yaml")
D=$(mktemp -d "${TMPDIR:-/tmp}/kai-manifests.XXXXXX")
cleanup() {
	[ -d "$D/k8s" ] && "$SRC/contrib/k8s/stop-apiserver.sh" "$D/k8s" >/dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT

out=$("$KAPPLY" --validate "$SWAGGER" "${MANIFESTS[@]}" 2>&1)
is "every manifest is valid against the OpenAPI spec" "$out" "kapply: 9 documents valid"
out=$("$KAPPLY" --validate "$SWAGGER" "$M"/crds/*.yaml 2>&1)
is "the minimal CRDs (PodGroup, JobSet, PyTorchJob, RayCluster, LWS, Queue) are valid" \
    "$out" "kapply: 6 documents valid"

sed 's/containerPort: 6820/containerPrt: 6820/' "$M/kaid-deployment.yaml" >"$D/typo.yaml"
out=$("$KAPPLY" --validate "$SWAGGER" "$D/typo.yaml" 2>&1)
like "a typo is caught, naming file, object and field" "$out" \
    'typo.yaml: Deployment "kaid": spec.template.spec.containers\[0\].ports\[0\].containerPrt: unknown field'

python3 - "$M/kaid-deployment.yaml" >"$D/kaid.yaml" <<'EOF'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc["kind"] == "ConfigMap":
        sys.stdout.write(doc["data"]["kaid.yaml"])
EOF
if [ -x "$BIN/daemons/kaid/kaid" ]; then
	out=$("$BIN/daemons/kaid/kaid" -n -f "$D/kaid.yaml" 2>&1)
	is "the ConfigMap's kaid.yaml passes kaid -n" "$out" "configuration OK"
else
	tap_result 0 "the ConfigMap's kaid.yaml passes kaid -n # SKIP kaid not built"
fi

# What the Deployment must say, whatever else changes.
is "deployment: probes on GET /healthz and /readyz:6821, secrets, socket, SA" "$(python3 - "$M/kaid-deployment.yaml" <<'EOF'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc["kind"] != "Deployment":
        continue
    spec = doc["spec"]["template"]["spec"]
    c = {x["name"]: x for x in spec["containers"]}
    ports = {p["name"]: p["containerPort"] for p in c["kaid"]["ports"]}
    probes = [(c["kaid"][p]["httpGet"]["path"], ports[c["kaid"][p]["httpGet"]["port"]])
              for p in ("livenessProbe", "readinessProbe")]
    env = {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in c["kaid"]["env"]}
    vols = {v["name"]: v for v in spec["volumes"]}
    shared = {m["name"] for m in c["kaid"]["volumeMounts"]} & \
        {m["name"] for m in c["munged"]["volumeMounts"]}
    print(probes, ports["kaid"], env, vols["munge-key"]["secret"]["secretName"],
          sorted(shared), "emptyDir" in vols["munge-socket"],
          spec["serviceAccountName"], doc["spec"]["replicas"],
          doc["spec"]["strategy"]["type"])
EOF
)" "[('/healthz', 6821), ('/readyz', 6821)] 6820 {'PGPASSWORD': 'kaid-postgres'} kaid-munge-key ['munge-socket'] True kaid 2 RollingUpdate"

# -- on a real apiserver ----------------------------------------------------------
. "$SRC/contrib/k8s/realapi.sh"
why=$(realapi_missing)
[ -n "${KAI_SKIP_REALAPI:-}" ] && why="real API tests disabled (KAI_SKIP_REALAPI)"
if [ -n "$why" ]; then
	for t in "apply" "apply again" "read back"; do
		tap_result 0 "real apiserver: $t # SKIP $why"
	done
	done_testing
fi
"$SRC/contrib/k8s/start-apiserver.sh" "$D/k8s" >/dev/null 2>"$D/start.err" ||
    bail_out "start-apiserver.sh: $(head -n 1 "$D/start.err")"
out=$("$KAPPLY" --kubeconfig "$D/k8s/kubeconfig-admin" "${MANIFESTS[@]}" 2>&1)
is "real apiserver: every object created" "$(echo "$out" | grep -c ' created$')" 9
ok "real apiserver: apply again patches them" \
    "$KAPPLY" --kubeconfig "$D/k8s/kubeconfig-admin" "${MANIFESTS[@]}"
ADMIN=$(cat "$D/k8s/token-admin")
URL=$(cat "$D/k8s/apiserver.url")
get() {
	curl -sS -A kaitest --cacert "$D/k8s/ca.crt" -H "Authorization: Bearer $ADMIN" "$URL$1"
}
is "real apiserver: read back" "$(
	get /apis/apps/v1/namespaces/kaibatch/deployments/kaid |
	    python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["spec"]["template"]["spec"]["containers"]; print(d["spec"]["template"]["spec"]["serviceAccountName"], [x["name"] for x in c], c[0]["readinessProbe"]["httpGet"])'
	get /api/v1/namespaces/kaibatch/services/kaid |
	    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["spec"]["ports"][0]["port"], d["spec"]["type"])'
	get /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kaibatch-kaid |
	    python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted((s["kind"], s["name"]) for s in d["subjects"]))'
)" "kaid ['kaid', 'munged'] {'path': '/readyz', 'port': 'health', 'scheme': 'HTTP'}
6820 ClusterIP
[('ServiceAccount', 'kaid'), ('User', 'kaid')]"
done_testing
