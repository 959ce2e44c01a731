#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t5100-kinfo: kinfo shows the partitions of kaid.yaml and the simulated
# nodes the way sinfo does (PARTITION AVAIL TIMELIMIT NODES STATE
# NODELIST), with their GPUs; the node that runs a GPU job turns mixed
# with its GPUs counted allocated; -N, -o, --json, -p, -n, -t select and
# shape the output; every bad option or value is one error line, exit 2.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t5100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# Until kaid's node watch has synced, the node list may be short.
for _ in $(seq 1 50); do
	[ "$(as_user "$A" kinfo -N -h | wc -l)" -ge 12 ] && break
	sleep 0.2
done

out=$(as_user "$A" kinfo)
is "the default view has sinfo's header" "$(echo "$out" | head -n 1)" \
    "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"
like "the default partition is starred, all nodes idle, time infinite" \
    "$out" '^batch\*  +up +infinite +4 +idle cpu-1,gpu-a\[1-2\],gpu-h1$'
like "gpu shows its max_time of one day" "$out" \
    '^gpu +up +1-00:00:00 +4 +idle '
like "short shows 10 minutes" "$out" '^short +up +10:00 +4 +idle '

out=$(as_user "$A" kinfo --gpus -p gpu)
is "--gpus adds GPUS(A/I/T)" "$out" \
"PARTITION AVAIL  TIMELIMIT  NODES  STATE   GPUS(A/I/T) NODELIST
gpu          up 1-00:00:00      4   idle       0/24/24 cpu-1,gpu-a[1-2],gpu-h1"

out=$(as_user "$A" kinfo -N -p batch)
is "-N prints one line per node" "$out" \
"NODELIST  NODES PARTITION STATE 
cpu-1         1 batch*    idle  
gpu-a1        1 batch*    idle  
gpu-a2        1 batch*    idle  
gpu-h1        1 batch*    idle  "

is "-N -o %N: each node's own name, never a one-name range (gpu-a[1-1])" \
    "$(as_user "$A" kinfo -h -N -p batch -o %N | tr '\n' ' ')" \
    "cpu-1 gpu-a1 gpu-a2 gpu-h1 "

is "-n takes Slurm's host lists" \
    "$(as_user "$A" kinfo -h -p batch -n 'gpu-a[1-2],cpu-1' -o '%D %N')" \
    "3 cpu-1,gpu-a[1-2]"
out=$(as_user "$A" kinfo -l -p batch)
like "-l: the date first, as sinfo -l" "$(printf '%s\n' "$out" | head -1)" \
    '^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'
is "-l: sinfo's long columns" "$(printf '%s\n' "$out" | tail -n +2)" \
"PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST
batch*       up   infinite 1-infinite   no       NO        all      4        idle cpu-1,gpu-a[1-2],gpu-h1"
is "-N -l -h: a node's long line (S:C:T of a node given only CPUs; its GPU product a feature, cut to 8 as sinfo cuts it)" \
    "$(as_user "$A" kinfo -N -l -h -p batch -n gpu-a1)" \
    "gpu-a1        1 batch*           idle   32   32:1:1 262144        0      1 NVIDIA-A none                "
is "without -e, nodes that print the same are one line" \
    "$(as_user "$A" kinfo -h -p batch -o '%D %N')" "4 cpu-1,gpu-a[1-2],gpu-h1"
is "-e: only nodes with the same resources share a line" \
    "$(as_user "$A" kinfo -h -e -p batch -o '%D %N')" "1 cpu-1
2 gpu-a[1-2]
1 gpu-h1"
out=$(as_user "$A" kinfo -h -N -p batch -o '%n|%c|%m|%G|%t|%T|%E|%k')
like "-o: cpus, memory, GRES with the GPU type" "$out" \
    '^gpu-a1\|32\|262144\|gpu:NVIDIA-A100-SXM4-80GB:8\|idle\|idle\|none\|0/8/8$'
like "-o: a node without GPUs has GRES (null)" "$out" \
    '^cpu-1\|16\|65536\|\(null\)\|idle\|idle\|none\|0/0/0$'
out=$(as_user "$A" kinfo -N -p batch -n gpu-a1 -O 'NodeList:10,CPUs:.5,StateLong,Gres:30')
is "-O: sinfo's named fields, their widths, the header" "$out" \
"NODELIST   CPUSSTATE               GRES                          
gpu-a1       32idle                gpu:NVIDIA-A100-SXM4-80GB:8   "
out=$(as_user "$A" kinfo -O 'NodeList,Bogus' 2>&1)
is "-O with an unknown field: one line, exit 2 (a usage error)" "$?:$out" \
    '2:kinfo: error: invalid --Format field "Bogus"'

# A job that holds two GPUs for a while.
cat >"$W/gpu.sh" <<'EOS'
#!/bin/sh
#SBATCH -p gpu
#SBATCH --gres=gpu:2
#SBATCH -t 5
sleep 60
EOS
chown "$A:" "$W/gpu.sh"
id=$(cd "$W" && as_user "$A" ksubmit --parsable gpu.sh)
ok "the GPU job runs" wait_state "$id" RUNNING
node=$(as_user "$A" kqueue -h -j "$id" -o %N)
out=$(as_user "$A" kinfo -h -N -p gpu -n "$node" -o '%n %t %T %k')
is "its node is mixed with 2 GPUs allocated" "$out" \
    "$node mix mixed 2/6/8"
out=$(as_user "$A" kinfo -h -p gpu -t mix -o '%P %D %t %N %k')
is "-t mix selects that node; GPUs summed over the line" "$out" \
    "gpu 1 mix $node 2/6/8"
is "-s: one line per partition, NODES(A/I/O/T)" \
    "$(as_user "$A" kinfo -s -p gpu)" \
"PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST
gpu          up 1-00:00:00          1/3/0/4 cpu-1,gpu-a[1-2],gpu-h1"
out=$(as_user "$A" kinfo -h -p gpu -o '%D %t %k' -t idle)
is "the other nodes stay idle" "$out" "3 idle 0/16/16"

j=$(as_user "$A" kinfo --json -n "$node")
is "--json: the node's GPUs" \
    "$(echo "$j" | jq -c '.nodes[0] | [.name, .state, .gpus.total, .gpus.allocated, .gpus.idle, .gpus.type, .jobs]')" \
    "[\"$node\",\"mixed\",8,2,6,\"NVIDIA-A100-SXM4-80GB\",1]"
is "--json: partitions with their limits and jobs" \
    "$(echo "$j" | jq -c '[.partitions[] | select(.name == "gpu") | .max_time_s, .running_jobs, .default][]' | tr '\n' ' ')" \
    "86400 1 false "
is "--json: the default partition's limit is null" \
    "$(echo "$j" | jq -c '.partitions[] | select(.default) | [.name, .max_time_s]')" \
    '["batch",null]'

# An administrator cordons the job's node and taints another (kubesim
# and the real apiserver alike take a merge patch from the admin token).
node_patch()
{
	curl -sS -o /dev/null -w '%{http_code}' \
	    --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "@$KUBESIM_AUTH" \
	    -H 'Content-Type: application/merge-patch+json' -X PATCH \
	    -d "$2" "$KUBESIM_URL/api/v1/nodes/$1"
}
# wait_node NODE REGEX: the node's kinfo line once it matches.
wait_node()
{
	local out
	for _ in $(seq 1 50); do
		out=$(as_user "$A" kinfo -h -N -p gpu -n "$1" -o '%n %t %T %E')
		printf '%s' "$out" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$out"
}
is "the node is cordoned" "$(node_patch "$node" '{"spec":{"unschedulable":true}}')" 200
is "a cordoned node with a job is draining" "$(wait_node "$node" drng)" \
    "$node drng draining cordoned (spec.unschedulable)"
is "cpu-1 gets a NoSchedule taint" \
    "$(node_patch cpu-1 '{"spec":{"taints":[{"key":"kaibatch.io/maint","effect":"NoSchedule"}]}}')" 200
is "a tainted node without jobs is drained, the taint is the reason" \
    "$(wait_node cpu-1 drain)" \
    "cpu-1 drain drained taint kaibatch.io/maint:NoSchedule"
is "-t drain selects drained and draining nodes" \
    "$(as_user "$A" kinfo -h -p gpu -t drain -o '%t %D')" "drain 1
drng 1"
is "-R: sinfo's reasons list (%20E cuts), a line per reason, each node once" \
    "$(as_user "$A" kinfo -R)" \
    "$(printf '%-20s %-9s %-19s %s\n' REASON USER TIMESTAMP NODELIST \
    'taint kaibatch.io/ma' Unknown Unknown cpu-1 \
    'cordoned (spec.unsch' Unknown Unknown "$node")"
is "kctl show node gives the reason" \
    "$(as_user "$A" kctl show node cpu-1 | grep -E 'State=|Reason=')" \
    "   State=IDLE+DRAIN Jobs=0
   Reason=taint kaibatch.io/maint:NoSchedule"
node_patch "$node" '{"spec":{"unschedulable":null}}' >/dev/null
node_patch cpu-1 '{"spec":{"taints":null}}' >/dev/null
is "uncordoned, the node is mixed again" "$(wait_node "$node" mix)" \
    "$node mix mixed none"
is "and cpu-1 idle" "$(wait_node cpu-1 idle)" "cpu-1 idle idle none"

as_user "$A" kcancel "$id"
ok "the job is cancelled" wait_state "$id" CANCELLED

# Bad options and values: one error line, exit 2.
bad()
{
	local what=$1 want=$2
	shift 2
	local err rc
	err=$(as_user "$A" kinfo "$@" 2>&1 >/dev/null)
	rc=$?
	is "$what: exit 2" "$rc" 2
	is "$what: one line" "$(echo "$err" | wc -l)" 1
	like "$what: says why" "$err" "$want"
}
bad "an unknown option" '^kinfo: error: unrecognized option "--bogus"' --bogus
bad "an unknown state" '^kinfo: error: invalid node state "sleepy"' -t idle,sleepy
bad "an empty state" '^kinfo: error: invalid node state list' -t idle,
bad "an unknown format field" '^kinfo: error: invalid format "%P %Q"' -o '%P %Q'
bad "a missing argument" '^kinfo: error: option "--partition" requires an argument' --partition
bad "a broken host list" '^kinfo: error: invalid host list "gpu-a\[1-"' -n 'gpu-a[1-'
bad "an operand" '^kinfo: error: unexpected argument "gpu"' gpu
is "an unknown partition prints only the header" \
    "$(as_user "$A" kinfo -p nosuch)" \
    "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
