#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4120-kacct-gpu: kacct's GPU accounting over finished jobs whose times
# are known (rows written straight into the stack's PostgreSQL, as kaid
# leaves them): AllocTRES, AllocGPUs and GPUSeconds with whole GPUs,
# --gpu-fraction and --gpu-memory (the fraction of the device the
# scheduler charged, from the allocation row); kacct --report's rows per
# partition and user over a period, counting only the part of each run
# inside it, who may see which rows; the decayed usage (kshare) counting
# fractional GPUs as their fraction; and --report's bad values.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t4120.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
# No decay: the usage is the plain GPU-seconds of the runs.
KAID_CONF_EXTRA='scheduling:
  usage_half_life: 0
  usage_window: 1d
  usage_refresh: 1s'
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
AU=$(id -u "$A")
BU=$(id -u "$B")

# An hour that ended at least an hour ago: the report's period.
T0=$(( $(date +%s) / 3600 * 3600 - 7200 ))
T1=$((T0 + 3600))
S=$(date -d "@$T0" +%Y-%m-%dT%H:%M:%S)
E=$(date -d "@$T1" +%Y-%m-%dT%H:%M:%S)

# job USER UID QUEUE STATE START END NTASKS CPUS MEM GPUS FRACTION GPUMEM
job()
{
	stack_psql "insert into jobs (name, uid, gid, user_name, queue, state,
	    submit_time, start_time, end_time, ntasks, cpus_per_task, mem_mb,
	    gpus_per_task, gpu_fraction, gpu_memory_mb, nodelist, script)
	    values ('acct', $2, $2, '$1', '$3', '$4', $5 - 10, $5, $6, $7, $8,
	    $9, ${10}, ${11}, ${12}, 'gpu-1', '#!/bin/sh') returning id"
}

# Alice, in partition gpu, inside the period:
j1=$(job "$A" "$AU" gpu COMPLETED "$T0" $((T0 + 100)) 2 2 1024 1 0 0)
j2=$(job "$A" "$AU" gpu FAILED "$T0" $((T0 + 100)) 1 1 1024 0 500000 0)
j3=$(job "$A" "$AU" gpu CANCELLED "$T0" $((T0 + 100)) 1 1 1024 0 0 20480)
# --gpu-memory 20480 of an 81920 MiB device: the scheduler charged 1/4.
stack_psql "insert into allocations (job_id, task, node, pod, gpus, cpus,
    mem_mb, gpu_mask, gpu_fraction) values ($j3, 0, 'gpu-1', 'kai-$j3-0',
    0, 1, 1024, 1, 250000)"
# Straddling the period's start: 50 of its 100 seconds are inside.
j4=$(job "$A" "$AU" gpu COMPLETED $((T0 - 50)) $((T0 + 50)) 1 1 1024 1 0 0)
# Bob, in partition batch: the whole hour on 4 cores, no GPU.  It ends at
# E, outside [S, E): it counts among the jobs, not among the completed.
j5=$(job "$B" "$BU" batch COMPLETED "$T0" "$T1" 1 4 4096 0 0 0)
# Ended before the period: in no row.
job "$A" "$AU" gpu COMPLETED $((T0 - 500)) $((T0 - 400)) 1 1 1024 1 0 0 \
    >/dev/null

acct()
{
	kacct -j "$1" -P -n -o AllocTRES,AllocGPUs,GPUSeconds
}

# --- AllocTRES, AllocGPUs and GPUSeconds.
is "whole GPUs: sacct's AllocTRES, GPUs x elapsed" "$(acct "$j1")" \
    'billing=4,cpu=4,gres/gpu=2,mem=2G,node=1|2|200'
is "--gpu-fraction 0.5: gres/gpu=0.5, half the GPU-seconds" \
    "$(acct "$j2")" 'billing=1,cpu=1,gres/gpu=0.5,mem=1G,node=1|0.5|50'
is "--gpu-memory: the device's fraction the scheduler charged" \
    "$(acct "$j3")" 'billing=1,cpu=1,gres/gpu=0.25,mem=1G,node=1|0.25|25'
is "no GPU: no gres/gpu in AllocTRES" "$(acct "$j5")" \
    'billing=4,cpu=4,mem=4G,node=1|0|0'
like "--json has alloc_gpus, alloc_tres and gpu_seconds" \
    "$(kacct -j "$j2" --json | tr -d ' \n')" \
    '"alloc_gpus":0\.5,"alloc_tres":"billing=1,cpu=1,gres/gpu=0\.5,mem=1G,node=1","gpu_seconds":50}'
like "-e lists the new fields" "$(kacct -e)" 'AllocTRES .*GPUSeconds'

# --- kacct --report over [S, E), as root (an operator): both users.
rep=$(kacct --report -S "$S" -E "$E" -P -n)
is "--report -P: a row per partition and user, no total" "$rep" \
"batch|$B|1|0|0|0|0|0|0|4.00|0.00
gpu|$A|4|2|1|1|0|0|0|0.18|0.09"
json=$(kacct --report -S "$S" -E "$E" --json | tr -d ' \n')
like "--json: alice's GPU-seconds inside the period (200+50+25+50)" "$json" \
    "\"partition\":\"gpu\",\"user\":\"$A\",\"uid\":$AU,\"jobs\":4,\"completed\":2,\"failed\":1,\"cancelled\":1,\"timeout\":0,\"preempted\":0,\"running\":0,\"cpu_seconds\":650,\"gpu_seconds\":325(\\.0)?}"
like "--json: the totals" "$json" \
    '"totals":\{"jobs":5,"completed":2,"failed":1,"cancelled":1,"timeout":0,"preempted":0,"running":0,"cpu_seconds":15050,"gpu_seconds":325(\.0)?}'
tbl=$(kacct --report -S "$S" -E "$E")
like "the table has sreport's title with the period" "$tbl" \
    "Job usage by partition and user $S - $E \\(3600 secs\\)"
like "and a TOTAL row" "$tbl" 'TOTAL +5 +2 +1 +1 +0 +0 +0 +4\.18 +0\.09'
is "-r keeps to the partitions named" \
    "$(kacct --report -S "$S" -E "$E" -P -n -r batch | cut -d'|' -f1,2)" \
    "batch|$B"
is "-u keeps to the users named" \
    "$(kacct --report -S "$S" -E "$E" -P -n -u "$B" | cut -d'|' -f1,2)" \
    "batch|$B"
half=$(date -d "@$((T0 + 50))" +%Y-%m-%dT%H:%M:%S)
like "a period that cuts runs counts only the part inside it" \
    "$(kacct --report -S "$half" -E "$E" --json -r gpu | tr -d ' \n')" \
    '"jobs":4,"completed":2,"failed":1,"cancelled":1,"timeout":0,"preempted":0,"running":0,"cpu_seconds":300,"gpu_seconds":137\.5}'

# --- A user who is no operator sees only their own row.
is "alice sees her row only" \
    "$(as_user "$A" kacct --report -S "$S" -E "$E" -P -n | cut -d'|' -f1,2)" \
    "gpu|$A"
is "bob asking for alice's gets nothing" \
    "$(as_user "$B" kacct --report -S "$S" -E "$E" -P -n -u "$A")" ""

# --- The decayed usage counts fractions: 200 + 50 + 25 + 100 GPU-s, and
# the 100 of the job that ended before the period (inside the window).
sleep 2 # past a usage refresh
user_json=$(kshare --json -A gpu -u "$A" | tr -d ' \n')
like "kshare --json: alice's GPU usage counts the fractions" "$user_json" \
    "\"user\":\"$A\",\"gpu\":\\{\"allocated\":0,\"usage\":475[,}]"

# --- Bad values: one line, exit 2.
out=$(kacct --report -S bogus 2>&1)
is "a bad -S: one line, exit 2" "$?:$out" \
    '2:kacct: error: option "--starttime": invalid time "bogus": unexpected "bogus"'
out=$(kacct --report -S "$E" -E "$S" 2>&1)
is "a period that ends before it starts: exit 2" "$?:$out" \
    "2:kacct: error: start time $E is not before end time $S"
out=$(kacct --report -j 1 2>&1)
is "--report with -j: exit 2" "$?:$out" \
    '2:kacct: error: option "--jobs" does not go with "--report"'
out=$(kacct -o GPUSecs 2>&1)
like "a misspelt field: exit 2" "$?:$out" \
    '^2:kacct: error: invalid field "GPUSecs"'

done_testing
