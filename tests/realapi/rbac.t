#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# rbac.t: contrib/kubernetes/rbac.yaml gives kaid exactly what it needs, on
# a real kube-apiserver (contrib/k8s/start-apiserver.sh; skipped when
# contrib/k8s/build-apiserver.sh has not cached the binary: this test
# never builds it).  With the static token of user "kaid" (no groups):
#   1. every granted verb works (the real call, answered 2xx);
#   2. every granted verb is needed: with that one verb taken out of the
#      ClusterRole, the same call is refused with 403;
#   3. nothing more is granted: SelfSubjectRulesReview lists exactly the
#      role's rules, and calls kaid must never make (read secrets, write
#      pods/status whole, delete or create nodes, patch pods, ...) get 403.

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
for t in curl python3 openssl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t not installed"
done
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"

D=$(mktemp -d "${TMPDIR:-/tmp}/kai-rbac.XXXXXX")
cleanup() {
	"$SRC/contrib/k8s/stop-apiserver.sh" "$D" >/dev/null 2>&1
	[ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$D"
}
trap cleanup EXIT
"$SRC/contrib/k8s/start-apiserver.sh" "$D" >/dev/null 2>"$D/start.err" ||
    bail_out "start-apiserver.sh: $(head -n 1 "$D/start.err")"
URL=$(cat "$D/apiserver.url")
ADMIN=$(cat "$D/token-admin")
KAID=$(cat "$D/token-kaid")
NS=/api/v1/namespaces/default
KAPPLY=$SRC/contrib/k8s/kapply
RBAC=$SRC/contrib/kubernetes/rbac.yaml

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
as_admin() { api "$ADMIN" "$@" >/dev/null; }

pod_json() {
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},' "$1"
	printf '"spec":{"schedulerName":"kaid","restartPolicy":"Never",'
	printf '"containers":[{"name":"main","image":"x","command":["true"]}]}}'
}
# The Event as kaid posts it (src/kube/kube_event.c).
event_json() {
	printf '{"apiVersion":"v1","kind":"Event","metadata":{"name":"%s","namespace":"default"},' "$1"
	printf '"involvedObject":{"apiVersion":"v1","kind":"Pod","name":"fx","namespace":"default"},'
	printf '"reason":"Scheduled","message":"Successfully assigned default/fx to n1",'
	printf '"type":"Normal","source":{"component":"kaid"},'
	printf '"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z",'
	printf '"count":1,"reportingComponent":"kaid","reportingInstance":"kaid-test"}'
}
svc_json() {
	printf '{"apiVersion":"v1","kind":"Service","metadata":{"name":"%s"},' "$1"
	printf '"spec":{"clusterIP":"None","selector":{"a":"b"},'
	printf '"ports":[{"port":6000}]}}'
}

# Fixtures, made by admin.
"$KAPPLY" --kubeconfig "$D/kubeconfig-admin" \
    "$SRC/contrib/kubernetes/namespace.yaml" "$RBAC" >"$D/apply.log" 2>&1 ||
    bail_out "kapply rbac.yaml: $(tail -n 1 "$D/apply.log")"
as_admin POST $NS/pods "$(pod_json fx)"
as_admin POST /api/v1/nodes \
    '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}'
as_admin POST $NS/events "$(event_json ev1)"
as_admin POST $NS/services "$(svc_json svc1)"

# try PERM: the call kaid makes with permission PERM (resource:verb),
# with kaid's token; prints the HTTP status.
try() {
	case $1 in
	pods:create)
		as_admin DELETE "$NS/pods/tc?gracePeriodSeconds=0"
		api "$KAID" POST $NS/pods "$(pod_json tc)" ;;
	pods:get) api "$KAID" GET $NS/pods/fx ;;
	pods:list) api "$KAID" GET /api/v1/pods ;;
	pods:watch) api "$KAID" GET "/api/v1/pods?watch=1&timeoutSeconds=1" ;;
	pods:delete)
		as_admin POST $NS/pods "$(pod_json td)"
		api "$KAID" DELETE $NS/pods/td ;;
	pods/binding:create)
		as_admin DELETE "$NS/pods/tb?gracePeriodSeconds=0"
		as_admin POST $NS/pods "$(pod_json tb)"
		api "$KAID" POST $NS/pods/tb/binding \
		    '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"tb"},"target":{"kind":"Node","name":"n1"}}' ;;
	pods/status:patch)
		api "$KAID" PATCH $NS/pods/fx/status \
		    '{"status":{"conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler","message":"t"}]}}' \
		    application/strategic-merge-patch+json ;;
	pods/log:get) api "$KAID" GET $NS/pods/fx/log ;;
	nodes:get) api "$KAID" GET /api/v1/nodes/n1 ;;
	nodes:list) api "$KAID" GET /api/v1/nodes ;;
	nodes:watch) api "$KAID" GET "/api/v1/nodes?watch=1&timeoutSeconds=1" ;;
	events:create)
		as_admin DELETE $NS/events/te
		api "$KAID" POST $NS/events "$(event_json te)" ;;
	events:patch)
		api "$KAID" PATCH $NS/events/ev1 "{\"count\":$RANDOM}" \
		    application/merge-patch+json ;;
	services:create)
		as_admin DELETE $NS/services/ts
		api "$KAID" POST $NS/services "$(svc_json ts)" ;;
	services:get) api "$KAID" GET $NS/services/svc1 ;;
	services:delete)
		as_admin POST $NS/services "$(svc_json tsd)"
		api "$KAID" DELETE $NS/services/tsd ;;
	configmaps:create)
		as_admin DELETE $NS/configmaps/tcm
		api "$KAID" POST $NS/configmaps \
		    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"tcm"},"data":{"wrapper.sh":"exit 0"}}' ;;
	*) echo "try: no call for $1" >&2; echo 000 ;;
	esac
}

# The answer each granted call gets (a log of an unbound pod is 204).
declare -A WANT=(
	[pods:create]=201 [pods:get]=200 [pods:list]=200 [pods:watch]=200
	[pods:delete]=200 [pods/binding:create]=201 [pods/status:patch]=200
	[pods/log:get]=204
	[nodes:get]=200 [nodes:list]=200 [nodes:watch]=200
	[events:create]=201 [events:patch]=200
	[services:create]=201 [services:get]=200 [services:delete]=200
	[configmaps:create]=201)

# The role's rules as resource:verb lines, straight from rbac.yaml.
GRANTED=$(python3 - "$RBAC" <<'EOF'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc["kind"] == "ClusterRole":
        for r in doc["rules"]:
            for res in r["resources"]:
                for v in r["verbs"]:
                    print("%s:%s" % (res, v))
EOF
)
is "rbac.yaml grants exactly the brief's verbs" \
    "$(echo "$GRANTED" | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "${!WANT[@]}" | sort | tr '\n' ' ')"

# allowed PERM: kaid's SelfSubjectAccessReview says true or false.
allowed() {
	local res=${1%%:*} verb=${1#*:} sub=
	case $res in */*) sub=${res#*/}; res=${res%%/*} ;; esac
	api "$KAID" POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews \
	    "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectAccessReview\",\"spec\":{\"resourceAttributes\":{\"namespace\":\"default\",\"verb\":\"$verb\",\"resource\":\"$res\",\"subresource\":\"$sub\"}}}" >/dev/null
	python3 -c 'import json,sys; print(str(json.load(open(sys.argv[1]))["status"].get("allowed", False)).lower())' "$D/out"
}
# wait_allowed PERM true|false: the authorizer's cache follows role
# changes within a moment; wait for it (5 s at most).
wait_allowed() {
	for _ in $(seq 1 50); do
		[ "$(allowed "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# -- 1. every granted verb works -------------------------------------------
for p in $GRANTED; do
	is "kaid can $p" "$(try "$p")" "${WANT[$p]}"
done

# -- 2. every granted verb is needed ------------------------------------------
for p in $GRANTED; do
	python3 - "$RBAC" "$p" >"$D/role-minus.json" <<'EOF'
import json, sys, yaml
res, verb = sys.argv[2].split(":")
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc["kind"] == "ClusterRole":
        for r in doc["rules"]:
            if res in r["resources"]:
                r["verbs"] = [v for v in r["verbs"] if v != verb]
        doc["rules"] = [r for r in doc["rules"] if r["verbs"]]
        print(json.dumps(doc))
EOF
	"$KAPPLY" --kubeconfig "$D/kubeconfig-admin" "$D/role-minus.json" \
	    >/dev/null 2>&1 && wait_allowed "$p" false
	is "without $p in the role, that call is refused" "$(try "$p")" 403
	"$KAPPLY" --kubeconfig "$D/kubeconfig-admin" "$RBAC" >/dev/null 2>&1 &&
	    wait_allowed "$p" true || diag "the role did not come back for $p"
done

# -- 3. nothing more -------------------------------------------------------------
for ns in default kube-system; do
	api "$KAID" POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews \
	    "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\",\"spec\":{\"namespace\":\"$ns\"}}" >/dev/null
	got=$(python3 - "$D/out" <<'EOF'
import json, sys
out = set()
for r in json.load(open(sys.argv[1]))["status"]["resourceRules"]:
    if r.get("apiGroups") == ["authorization.k8s.io"]:
        continue        # every user's own access reviews (system:basic-user)
    for g in r.get("apiGroups") or [""]:
        for res in r.get("resources") or []:
            for v in r.get("verbs") or []:
                out.add("%s%s:%s" % (g + "/" if g else "", res, v))
print(" ".join(sorted(out)))
EOF
)
	is "SelfSubjectRulesReview in $ns: only the role's rules" "$got" \
	    "$(echo "$GRANTED" | sort | tr '\n' ' ' | sed 's/ $//')"
done

refused() {
	local title=$1
	shift
	is "kaid cannot $title" "$(api "$KAID" "$@")" 403
}
refused "get secrets" GET $NS/secrets
refused "list secrets cluster-wide" GET /api/v1/secrets
refused "get configmaps" GET $NS/configmaps
refused "update configmaps" PUT $NS/configmaps/tcm \
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"tcm"},"data":{}}'
refused "delete configmaps" DELETE $NS/configmaps/tcm
refused "update pods/status" PUT $NS/pods/fx/status "$(pod_json fx)"
refused "patch pods" PATCH $NS/pods/fx '{"metadata":{"labels":{"a":"b"}}}' \
    application/merge-patch+json
refused "update pods" PUT $NS/pods/fx "$(pod_json fx)"
refused "deletecollection pods" DELETE "$NS/pods?labelSelector=a%3Db"
refused "create pods/exec" POST "$NS/pods/fx/exec?command=true"
refused "create pods/eviction" POST $NS/pods/fx/eviction \
    '{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"fx"}}'
refused "delete nodes" DELETE /api/v1/nodes/n1
refused "create nodes" POST /api/v1/nodes \
    '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"}}'
refused "patch nodes" PATCH /api/v1/nodes/n1 '{"spec":{"unschedulable":true}}' \
    application/merge-patch+json
refused "patch nodes/status" PATCH /api/v1/nodes/n1/status '{"status":{}}' \
    application/merge-patch+json
refused "list services" GET $NS/services
refused "patch services" PATCH $NS/services/svc1 '{"metadata":{"labels":{"a":"b"}}}' \
    application/merge-patch+json
refused "list events" GET $NS/events
refused "delete events" DELETE $NS/events/ev1
refused "create namespaces" POST /api/v1/namespaces \
    '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}'
refused "read its own ClusterRole" GET \
    /apis/rbac.authorization.k8s.io/v1/clusterroles/kaibatch-kaid
refused "list deployments" GET /apis/apps/v1/namespaces/default/deployments

done_testing
