#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6900-constraint: node features and a job's own nodes (sbatch -C, -w,
# -x; doc/scheduler.md "Node constraints").  Three nodes of 2 GPUs: a1
# and a2 are A100 nodes (the nvidia.com/gpu.product label, one of
# kaid.yaml's default scheduling.node_feature_labels), a1 with the label
# kaibatch.io/feature.ib=true; h1 an H100 node with the labels
# kaibatch.io/feature.hbm3 and kaibatch.io/feature.ib.  kinfo and kctl show the features; jobs go only where their
# constraint, node list and exclusions allow; a constraint no node meets
# and a node that does not exist are refused at submission as sbatch
# refuses them; kqueue and kctl show what the job asked for; a restart of
# kaid keeps it; -w alone gives the job a task on each listed node.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6900.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: a1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: A100
    labels: {kaibatch.io/feature.ib: "true"}
  - name: a2
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: A100
  - name: h1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: H100
    labels: {kaibatch.io/feature.hbm3: "true", kaibatch.io/feature.ib: "true"}
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

# nodes_of JOBID: the nodes of a running job, sorted, comma-separated.
nodes_of()
{
	as_user "$A" kqueue -j "$1" --noheader -o %N | tr ',' '\n' | sort |
	    paste -sd, -
}

# --- The nodes' features, from their labels (once kaid's node watch has
# synced: until then the list may be short).
for _ in $(seq 1 50); do
	[ "$(as_user "$A" kinfo -N -h -o '%n' | sort -u | wc -l)" -ge 3 ] && break
	sleep 0.2
done
feat=$(as_user "$A" kinfo -N --noheader -o '%n %f' | sort -u)
like "kinfo %f: a1 has A100 (gpu.product) and ib (feature.NAME)" \
    "$(printf '%s\n' "$feat" | grep '^a1 ')" '^a1 (A100,ib|ib,A100)$'
is "kinfo %f: a2 has A100 only" "$(printf '%s\n' "$feat" | grep '^a2 ')" \
    'a2 A100'
like "kinfo %f: h1 has H100 and its feature.NAME labels" \
    "$(printf '%s\n' "$feat" | grep '^h1 ')" '^h1 .*H100'
like "... hbm3" "$(printf '%s\n' "$feat" | grep '^h1 ')" '^h1 .*hbm3'
like "... and ib" "$(printf '%s\n' "$feat" | grep '^h1 ')" '^h1 (.*,)?ib(,|$)'
like "kctl show node: AvailableFeatures" "$(as_user "$A" kctl show node a2)" \
    '^   AvailableFeatures=A100 ActiveFeatures=A100$'
is "the header of %f is sinfo's" "$(as_user "$A" kinfo -N -o '%f' | head -n 1)" \
    'AVAIL_FEATURES'

# --- Refusals at submission, as sbatch's.
out=$(submit -C v100 --gpus-per-task=1 --wrap true 2>&1)
is "a constraint no node meets is refused (exit 1)" "$?:$out" \
    '1:ksubmit: error: Requested node configuration is not available: no node of partition "batch" has the features "v100"'
out=$(submit -w a1,nosuch --wrap true 2>&1)
is "-w naming a node that does not exist is refused" "$?:$out" \
    '1:ksubmit: error: Invalid node name specified: no node "nosuch"'
out=$(submit -x gone --wrap true 2>&1)
is "-x too" "$?:$out" \
    '1:ksubmit: error: Invalid node name specified: no node "gone"'
out=$(submit -C hbm3 -w a1,a2 --wrap true 2>&1)
is "a constraint none of the listed nodes meets is refused" "$?:$out" \
    '1:ksubmit: error: Requested node configuration is not available: no node of partition "batch" has the features "hbm3" among those --nodelist and --exclude leave'
out=$(submit -C '[A100' --wrap true 2>&1)
is "a constraint that does not parse never reaches kaid (exit 2)" \
    "$?:$out" '2:ksubmit: error: invalid constraint "[A100": a "[" is not closed'
is "nothing refused was recorded" "$(stack_psql 'select count(*) from jobs')" 0

# --- Jobs go where they asked to.
j1=$(submit -C 'A100&ib' --gpus-per-task=1 --wrap 'sleep 300')
ok "-C A100&ib runs" wait_state "$j1" RUNNING
is "on a1, the one A100 node with ib" "$(nodes_of "$j1")" a1
j2=$(submit -C ib -x a1 --gpus-per-task=1 --wrap 'sleep 300')
ok "-C ib -x a1 runs" wait_state "$j2" RUNNING
is "on h1, the other node with ib" "$(nodes_of "$j2")" h1
j3=$(submit -w a2 --gpus-per-task=1 --wrap 'sleep 300')
ok "-w a2 runs" wait_state "$j3" RUNNING
is "on a2, though binpack would take the fuller a1 or h1" \
    "$(nodes_of "$j3")" a2
j4=$(submit -C '[A100|H100]' -n 2 --gpus-per-task=1 --wrap 'sleep 300')
ok "a matching OR of two tasks runs" wait_state "$j4" RUNNING
is "on the two A100 nodes, not one A100 and h1" "$(nodes_of "$j4")" a1,a2

# --- What the job asked for, as squeue and scontrol show it.
is "kqueue %f %n %x" "$(as_user "$A" kqueue -j "$j2" --noheader -o '%f|%n|%x')" \
    'ib||a1'
is "kqueue -O Feature,ReqNodes,ExcNodes headers" \
    "$(as_user "$A" kqueue -j "$j3" -O 'Feature:10,ReqNodes:10,ExcNodes:10' | head -n 1 | tr -s ' ')" \
    'FEATURES REQ_NODES EXC_NODES '
like "kctl show job: ReqNodeList and ExcNodeList" \
    "$(as_user "$A" kctl show job "$j2")" '^   ReqNodeList=\(null\) ExcNodeList=a1$'
like "kctl show job: Features" "$(as_user "$A" kctl show job "$j2")" \
    '^   Features=ib$'
like "kqueue --json: features" \
    "$(as_user "$A" kqueue -j "$j4" --json | tr -d ' \n')" \
    '"features":"\[A100\|H100\]"'
is "the job's row keeps both" \
    "$(stack_psql "select features || ' ' || coalesce(node_req, '-') from jobs where id = $j2")" \
    'ib ;a1'

# --- A constraint outlives a restart of kaid.
j5=$(submit -C hbm3 --gpus-per-task=2 --wrap 'sleep 300')
like "-C hbm3 for 2 GPUs waits: h1 has one free" \
    "$(as_user "$A" kqueue -j "$j5" --noheader -o '%T %r')" '^PENDING '
kaid_stop
kaid_start || bail_out "kaid did not restart"
kcancel "$j1" "$j4" >/dev/null 2>&1 || as_user "$A" kcancel "$j1" "$j4"
ok "the A100 jobs end" wait_state "$j4" CANCELLED
sleep 2
like "after a restart, freed A100 GPUs do not start the hbm3 job" \
    "$(as_user "$A" kqueue -j "$j5" --noheader -o '%T')" '^PENDING'
as_user "$A" kcancel "$j2"
ok "h1 freed: the hbm3 job starts" wait_state "$j5" RUNNING
is "on h1" "$(nodes_of "$j5")" h1

# --- -w alone gives the job every listed node, a task on each, as sbatch.
j6=$(submit -w a1,a2 --gpus-per-task=1 --wrap 'sleep 300')
ok "-w a1,a2 without -N runs" wait_state "$j6" RUNNING
is "a task on each listed node" "$(nodes_of "$j6")" a1,a2

done_testing
