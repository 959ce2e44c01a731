#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t5110-pools: partitions as node pools.  Partition gpu selects the
# nodes labelled kaibatch.io/rack=r2 and tolerates dedicated=gpu:
# NoSchedule, the taint that keeps everyone else off gpu-h1.  No job of
# another partition lands on the tainted node, even with GPUs idle there;
# gpu's jobs do, and their pods carry its nodeSelector, tolerations,
# image and imagePullSecrets; kinfo and kctl show list each partition's
# own nodes.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t5110.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$T"

node_patch()
{
	curl -sS -o /dev/null -w '%{http_code}' \
	    --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "Authorization: Bearer $KUBESIM_TOKEN" \
	    -H 'Content-Type: application/merge-patch+json' -X PATCH \
	    -d "$2" "$KUBESIM_URL/api/v1/nodes/$1"
}
submit()
{
	local out
	out=$(cd "$W" && as_user "$A" ksubmit "$@" 2>&1) || { echo "$out" >&2; return 1; }
	echo "${out##* }"
}
node_of()
{
	stack_psql "select node from allocations where job_id = $1"
}

is "gpu-h1 is tainted for the gpu pool" \
    "$(node_patch gpu-h1 '{"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}}')" 200
kaid_stop
python3 - "$T/kaid.yaml" <<'EOP'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("  - name: gpu\n", """  - name: gpu
    image: registry.example/cuda:12
    nodeSelector: {kaibatch.io/rack: r2}
    tolerations:
      - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
    imagePullSecrets: [regcred]
""", 1)
open(p, "w").write(s)
EOP
kaid_start || bail_out "kaid did not restart"

# kinfo: each partition's own nodes (the node list settles once the
# taint is in the node cache).
for _ in $(seq 1 50); do
	out=$(as_user "$A" kinfo -h -o '%R %N')
	printf '%s' "$out" | grep -q '^gpu gpu-h1$' && break
	sleep 0.1
done
is "kinfo: gpu has only its selected, tolerated node; the others not it" \
    "$out" "batch cpu-1,gpu-a[1-2]
gpu gpu-h1
short cpu-1,gpu-a[1-2]"
like "kctl show partition gpu lists gpu-h1 alone" \
    "$(as_user "$A" kctl show partition gpu)" "Nodes=gpu-h1
   State=UP TotalCPUs=64 TotalNodes=1"
like "kctl show node gpu-h1: its partition" \
    "$(as_user "$A" kctl show node gpu-h1)" "Partitions=gpu
"
like "the tolerated taint does not drain it" \
    "$(as_user "$A" kinfo -h -N -n gpu-h1 -o '%n %t')" '^gpu-h1 idle$'

# batch: three 8-GPU jobs, two nodes it may use.
b1=$(submit -p batch --gpus-per-task=8 --wrap "sleep 300")
b2=$(submit -p batch --gpus-per-task=8 --wrap "sleep 300")
b3=$(submit -p batch --gpus-per-task=8 --wrap "sleep 300")
ok "two batch jobs run" wait_state "$b2" RUNNING
ok "on the untainted nodes" test "$(node_of "$b1") $(node_of "$b2")" != "" -a \
    "$(node_of "$b1")" != gpu-h1 -a "$(node_of "$b2")" != gpu-h1
sleep 1
is "the third waits though gpu-h1 is idle" \
    "$(stack_psql "select state from jobs where id = $b3")" PENDING
is "no pod of batch on the tainted node" \
    "$(stack_psql "select count(*) from allocations where node = 'gpu-h1'")" 0

g=$(submit -p gpu --gpus-per-task=4 --wrap "sleep 300")
ok "the gpu job runs" wait_state "$g" RUNNING
is "on its pool's node" "$(node_of "$g")" gpu-h1
P=$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$g-0")
spec()
{
	printf '%s' "$P" | python3 -c "import json, sys; p = json.load(sys.stdin); print(json.dumps($1, sort_keys=True))"
}
is "its pod: the partition's nodeSelector" "$(spec "p['spec']['nodeSelector']")" \
    '{"kaibatch.io/rack": "r2"}'
# (The API server's admission adds the not-ready/unreachable ones.)
is "its tolerations" \
    "$(spec "[t for t in p['spec']['tolerations'] if 'node.kubernetes.io/' not in t['key']]")" \
    '[{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "gpu"}]'
is "its image" "$(spec "p['spec']['containers'][0]['image']")" \
    '"registry.example/cuda:12"'
is "its imagePullSecrets" "$(spec "p['spec']['imagePullSecrets']")" \
    '[{"name": "regcred"}]'
P=$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$b1-0")
is "batch's pod has none of it" \
    "$(spec "[p['spec'].get('nodeSelector'), p['spec'].get('imagePullSecrets'), [t for t in p['spec'].get('tolerations', []) if 'node.kubernetes.io/' not in t['key']]]")" \
    '[null, null, []]'

done_testing
