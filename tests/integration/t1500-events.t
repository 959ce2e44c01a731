#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1500-events: kaid posts a Kubernetes Event "Scheduled" on each pod it
# binds, so that `kubectl describe pod` tells the story kqueue tells.
# Against the API server the stack started (kubesim, or the real
# kube-apiserver with KAI_STACK_API=real), listed with curl by the pod's
# name: one event, type Normal, reason Scheduled, "Successfully assigned
# default/POD to NODE" with the node the job runs on, the pod's uid,
# source kaid.  kubesim checks it against the official OpenAPI schema
# (strict) when it has the schema; the real server validates it itself.
# Events are best-effort: when the server refuses them (an injected 503
# on kubesim; the events rule taken out of kaid's ClusterRole on the real
# server), jobs still run, and kaid warns once, not once per event.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t1500.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
# The job waits for a flag file, so that its pod is there to be looked at.
cat >"$W/wait.sh" <<'EOS'
#!/bin/sh
#SBATCH -J waiter
#SBATCH -t 5
while [ ! -e "$SLURM_SUBMIT_DIR/go-$SLURM_JOB_ID" ]; do sleep 0.2; done
echo done
EOS
cat >"$W/quick.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
true
EOS
chown "$A:" "$W/wait.sh" "$W/quick.sh"

# pod_events POD: the events whose involvedObject is POD, one per line:
# type|reason|message|source.component|count|reportingComponent|uid
pod_events() {
	kubesim_ctl "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D$1" |
	    python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    print("|".join(str(x) for x in (e.get("type"), e.get("reason"),
        e.get("message"), (e.get("source") or {}).get("component"),
        e.get("count"), e.get("reportingComponent"),
        e["involvedObject"].get("uid"))))'
}
pod_uid() {
	kubesim_ctl "/api/v1/namespaces/default/pods/$1" |
	    python3 -c 'import json, sys; print(json.load(sys.stdin)["metadata"]["uid"])'
}
# wait_events POD N: until POD has N events (5 s at most).
wait_events() {
	for _ in $(seq 1 50); do
		[ "$(pod_events "$1" | grep -c .)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

out=$(cd "$W" && as_user "$A" ksubmit wait.sh 2>&1)
like "ksubmit prints the job id" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
pod=kai-$id-0
ok "job starts running" wait_state "$id" RUNNING
node=$(stack_psql "select node from allocations where job_id = $id")
uid=$(pod_uid "$pod")
ok "the event is there" wait_events "$pod" 1
is "one Scheduled event, Normal, naming the node, from kaid" \
    "$(pod_events "$pod")" \
    "Normal|Scheduled|Successfully assigned default/$pod to $node|kaid|1|kaid|$uid"
like "kqueue names the same node" \
    "$(as_user "$A" kqueue -j "$id" --noheader -o '%N')" "^ *$node *$"
if command -v kubectl >/dev/null 2>&1; then
	kc=$T/kubeconfig
	[ "$STACK_API" = real ] && kc=$T/k8s/kubeconfig-admin
	like "kubectl describe pod shows it" \
	    "$(kubectl --kubeconfig "$kc" -n default describe pod "$pod" 2>&1)" \
	    "Normal +Scheduled +.* +kaid +Successfully assigned default/$pod to $node"
else
	diag "no kubectl: describe pod not tried"
fi
touch "$W/go-$id"
ok "the job completes" wait_state "$id" COMPLETED

if [ "$STACK_API" = real ]; then
	diag "real kube-apiserver: the server itself validated the event"
elif [ -f "${KAI_K8S_SCHEMA:-$top_srcdir/../shared/k8s-openapi/swagger.json}" ]; then
	like "kubesim validated the event against the OpenAPI schema" \
	    "$(kubesim_ctl /kubesim/stats)" '"schema_validation": *true'
	is "kaid posted exactly one event" \
	    "$(grep -c '"method": *"POST", *"path": *"/api/v1/namespaces/default/events"' "$T/kubesim.record")" 1
else
	diag "no OpenAPI schema beside the tree: the event was not schema-checked"
fi

# -- best-effort: refused events change nothing for jobs ---------------------
if [ "$STACK_API" = real ]; then
	# kaid's role without "events: create": the server answers 403.
	python3 - "$top_srcdir/contrib/kubernetes/rbac.yaml" >"$T/role-minus.json" <<'EOF'
import json, sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc["kind"] == "ClusterRole":
        for r in doc["rules"]:
            if "events" in r["resources"]:
                r["verbs"] = [v for v in r["verbs"] if v != "create"]
        print(json.dumps(doc))
EOF
	"$top_srcdir/contrib/k8s/kapply" --kubeconfig "$T/k8s/kubeconfig-admin" \
	    "$T/role-minus.json" >/dev/null 2>&1 || bail_out "could not apply the role"
	sleep 1	# the authorizer's cache follows the role within a moment
	want='HTTP 403'
else
	kubesim_ctl "/kubesim/fail?verb=create&resource=events&code=503" POST >/dev/null
	want='HTTP 503'
fi
ids=
for _ in 1 2 3; do
	out=$(cd "$W" && as_user "$A" ksubmit quick.sh 2>&1)
	ids="$ids ${out##* }"
done
for j in $ids; do
	ok "job $j completes while events are refused" wait_state "$j" COMPLETED
done
for j in $ids; do
	is "job $j's pod has no event" "$(pod_events "kai-$j-0")" ""
done
n=$(grep -c 'could not post event Scheduled for pod' "$T/kaid.log")
is "kaid warned once for the refused events" \
    "$(grep 'could not post event Scheduled for pod' "$T/kaid.log" |
    grep -c "$want")" 1
diag "$n line(s) about refused events in kaid.log (log level info)"
if [ "$STACK_API" != real ]; then
	kubesim_ctl "/kubesim/fail" DELETE >/dev/null
fi

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
