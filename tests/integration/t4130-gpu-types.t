#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4130-gpu-types: quotas and limits per GPU type through kaid (issue 14,
# doc/scheduler.md "GPU types").  Two nodes of 2 GPUs, one A100 and one
# H100 (the nvidia.com/gpu.product label).  A queue whose A100 limit is 1
# runs one A100 job and keeps the second pending with a reason naming the
# type, while its job of no type goes to the H100 node; a job naming a
# type no node has waits with that reason; kshare and kctl show the type's
# figures; a restart of kaid keeps the queue's and the jobs' types;
# raising the type's limit with kctl starts the held job at the next
# tick; the type a job asked for is in its record.  Bad type
# settings are one line and exit 2.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4130.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: a100-1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: A100
    gpu_memory: 81920
  - name: h100-1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: H100
    gpu_memory: 81920
EON
KAID_CONF_EXTRA='scheduling:
  phases: [allocate]'
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# wait_reason JOBID REGEX: polls kqueue until the job's line matches.
wait_reason()
{
	local line
	for _ in $(seq 1 100); do
		line=$(as_user "$A" kqueue -j "$1" --noheader --why)
		printf '%s' "$line" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$line"
}

# nodes_of JOBID: the nodes kqueue shows for a running job.
nodes_of()
{
	as_user "$A" kqueue -j "$1" --noheader -o %N
}

# share QUEUE: kshare's parsable row of a queue.
share()
{
	kshare --parsable2 | awk -F'|' -v q="$1" 'NR == 1 || ($1 == q && $2 == "")'
}

# col HEADER_AND_ROW NAME: the field of the row under the header NAME.
col()
{
	printf '%s\n' "$1" | awk -F'|' -v n="$2" \
	    'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
	     { print $c }'
}

# --- Bad type settings never reach kaid.
out=$(kctl queue create research --gpu-type 'A100:x' 2>&1)
is "a GPU type quota that is not a number: exit 2" "$?:$out" \
    '2:kctl: error: invalid GPU type quota "x": expected -1 or a number of at least 0'
out=$(kctl queue create research --gpu-type 'A 100:1' 2>&1)
is "a GPU type that is not a label value: exit 2" "$?:$out" \
    "2:kctl: error: invalid GPU type \"A 100\": expected 1 to 63 letters, digits, '-', '_' and '.'"
out=$(kctl queue create research --gpu-type 'A100:2:1' 2>&1)
is "a type's limit below its quota: exit 2" "$?:$out" \
    '2:kctl: error: queue "research": A100 limit 1 is below its quota 2'
cat >"$T/bad.yaml" <<'EOF2'
- name: research
  gpu_types:
    A100: {quota: 1, limitt: 2}
EOF2
out=$(kctl queue apply -f "$T/bad.yaml" 2>&1)
is "a misspelt key in a type's block names file:line:col" "$?:$out" \
    "2:kctl: error: $T/bad.yaml:3:22: unrecognized key \"limitt\" in a GPU type's block"
out=$(submit --gres=gpu:A100:1 --gpus=H100:1 --wrap true 2>&1)
like "two different types in one job are refused" "$?:$out" \
    '^2:ksubmit: error: options "--gpus" and "--gres" name different GPU types'

# --- A queue with an A100 limit of 1, from a queue file.
cat >"$T/queues.yaml" <<'EOF2'
- name: research
  gpu: {quota: -1, limit: -1, over_quota_weight: 1}
  gpu_types:
    A100: {quota: 0, limit: 1}
EOF2
out=$(kctl queue apply -f "$T/queues.yaml" 2>&1)
is "the queue file is applied" "$?:$out" '0:queue "research" created'
like "kctl queue list shows the type's quota/limit/weight" \
    "$(kctl queue list)" '^research +- +100 .* +0 +A100=0/1/-$'
is "and --json the type's block (weight null: the GPU weight)" \
    "$(kctl queue list --json | tr -d ' \n' | grep -o '"gpu_types":{[^}]*}}')" \
    '"gpu_types":{"A100":{"quota":0,"limit":1,"over_quota_weight":null}}'
is "the settings are rows of queue_gpu_types" \
    "$(stack_psql "select queue || ' ' || type || ' ' || quota::int || ' ' || lim::int from queue_gpu_types")" \
    'research A100 0 1'

j1=$(submit -p research --gres=gpu:A100:1 --wrap "sleep 300")
ok "an A100 job runs" wait_state "$j1" RUNNING
is "on the A100 node" "$(nodes_of "$j1")" "a100-1"
j2=$(submit -p research --gres=gpu:A100:1 --wrap "sleep 300")
line=$(wait_reason "$j2" 'A100 GPUs')
like "a second A100 job waits for the type's limit, though an A100 is free" \
    "$line" "^ +$j2 +research .* PD .*\\(queue \"research\" is at its limit of 1 A100 GPUs \\(1 in use, the job needs 1\\)\\)\$"
is "Slurm's code for it" "$(stack_psql "select reason from jobs where id = $j2")" \
    'QOSGrpGRES'
j3=$(submit -p research --gres=gpu:1 --wrap "sleep 300")
ok "a job of no type runs" wait_state "$j3" RUNNING
is "on the H100 node: the queue is at its A100 limit" "$(nodes_of "$j3")" \
    "h100-1"
j4=$(submit -p research --gres=gpu:B200:1 --wrap "sleep 300")
like "a type no node has: pending, with that reason" \
    "$(wait_reason "$j4" 'B200')" \
    "\\(no schedulable node has GPUs of type B200\\)\$"
is "the job's type is in its record" \
    "$(as_user "$A" kqueue -j "$j2" --json | tr -d ' \n' | grep -o '"gpu_type":"[^"]*"')" \
    '"gpu_type":"A100"'
like "and kctl show job" "$(as_user "$A" kctl show job "$j2")" '^   GpuType=A100$'

# --- kshare: a column group per GPU type of the cluster.
row=$(share research)
like "kshare has a column group per type of the nodes and the jobs" \
    "$(printf '%s' "$row" | head -n 1)" \
    '\|MemUsage\|gpu:A100:Quota\|gpu:A100:Limit\|gpu:A100:Weight\|gpu:A100:FairShare\|gpu:A100:Alloc\|gpu:A100:Req\|gpu:B200:Quota\|.*\|gpu:H100:Req$'
is "B200, which no node has, is requested only" \
    "$(col "$row" gpu:B200:Req):$(col "$row" gpu:B200:FairShare)" '1:0'
is "the queue's A100 limit" "$(col "$row" gpu:A100:Limit)" 1
is "its A100 allocation" "$(col "$row" gpu:A100:Alloc)" 1
is "its A100 request: the running job and the one waiting" \
    "$(col "$row" gpu:A100:Req)" 2
is "its H100 allocation: the job of no type" "$(col "$row" gpu:H100:Alloc)" 1
is "the GPU total still counts every type" "$(col "$row" GPUAlloc)" 2
like "kshare --json has the types" \
    "$(kshare --json | tr -d ' \n')" '"gpu_types":\{"A100":\{"quota":0,"limit":1,"over_quota_weight":null,"fair_share":[0-9.]+,"allocated":1,"requested":2\}'

# --- A restart of kaid keeps the types of the queue and of the jobs.
kaid_stop
kaid_start || bail_out "kaid did not restart"
like "after a restart the A100 job still waits for the type's limit" \
    "$(wait_reason "$j2" 'A100 GPUs')" \
    'queue "research" is at its limit of 1 A100 GPUs'
like "and the B200 job for its type" "$(wait_reason "$j4" 'B200')" \
    'no schedulable node has GPUs of type B200'

# --- Raising the type's limit starts the held job.
out=$(kctl queue update research --gpu-type A100:0:2 2>&1)
is "kctl raises the A100 limit" "$?:$out" '0:queue "research" updated'
ok "the second A100 job starts at the next tick" wait_state "$j2" RUNNING
is "on the A100 node" "$(nodes_of "$j2")" "a100-1"
out=$(kctl queue update research --no-gpu-types 2>&1)
is "--no-gpu-types drops the settings" "$?:$out:$(stack_psql "select count(*) from queue_gpu_types")" \
    '0:queue "research" updated:0'

done_testing
