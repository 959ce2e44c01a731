#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4126-gpu-devices: a batch job's GPU share over more than one device
# (ksubmit --gpu-devices, the job field gpu_devices; doc/scheduler.md
# "Devices").  One node with two GPUs:
#  - --gpu-fraction=0.5 --gpu-devices=2 runs on both devices, and its
#    task sees both in NVIDIA_VISIBLE_DEVICES and SLURM_JOB_GPUS, the
#    share of each in GPU_PORTION and CUDA_DEVICE_MEMORY_LIMIT;
#  - --gpu-memory=20G --gpu-devices=2 shares the same two devices;
#  - another 0.5 over 2 devices waits, with the reason that no node has
#    2 GPUs with 0.5 free; 0.1 over 3 devices is refused at submission,
#    as a job of 3 whole GPUs would be: no node has 3 GPUs;
#  - kacct counts the first job's GPUs as 2 x 0.5;
#  - the devices survive a kaid restart: the waiting job still waits.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t4126.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit() { (cd "$T/work" && as_user "$A" ksubmit --parsable "$@"); }
why() { as_user "$A" kqueue -j "$1" --noheader --why -o '%r' 2>/dev/null; }
why_has() { [[ "$(why "$1")" == *"$2"* ]]; }

envcmd='env | grep -E "^(NVIDIA_VISIBLE_DEVICES|SLURM_JOB_GPUS|GPU_PORTION|CUDA_DEVICE_MEMORY_LIMIT)=" | sort; sleep 20'
f=$(submit --gpu-fraction=0.5 --gpu-devices=2 -o f.out --wrap "$envcmd")
ok "0.5 on 2 devices runs" wait_state "$f" RUNNING 300
is "its allocation holds both devices, 0.5 of each" \
    "$(stack_psql "select gpu_mask || ' ' || gpu_fraction from allocations where job_id = $f")" \
    '3 500000'
is "and the job says 2 devices" \
    "$(stack_psql "select gpu_devices from jobs where id = $f")" 2
m=$(submit --gpu-memory=20G --gpu-devices=2 -o m.out --wrap "$envcmd")
ok "20G on 2 devices runs beside it" wait_state "$m" RUNNING 300
stack_wait_file "$T/work/f.out" 100
stack_wait_file "$T/work/m.out" 100
sleep 1
is "the first task sees both devices and its share of each" \
    "$(cat "$T/work/f.out")" \
    "$(printf 'CUDA_DEVICE_MEMORY_LIMIT=40960m\nGPU_PORTION=0.50\nNVIDIA_VISIBLE_DEVICES=0,1\nSLURM_JOB_GPUS=0,1')"
is "the second the same two devices, a quarter of each" \
    "$(cat "$T/work/m.out")" \
    "$(printf 'CUDA_DEVICE_MEMORY_LIMIT=20480m\nGPU_PORTION=0.25\nNVIDIA_VISIBLE_DEVICES=0,1\nSLURM_JOB_GPUS=0,1')"

w=$(submit --gpu-fraction=0.5 --gpu-devices=2 --wrap "sleep 60")
ok "another 0.5 on 2 devices waits: a quarter of each is left" \
    wait_for 30 why_has "$w" "no node has 2 GPUs with 0.5 free"
out=$(cd "$T/work" && as_user "$A" ksubmit --gpu-fraction=0.1 --gpu-devices=3 --wrap true 2>&1)
like "0.1 on 3 devices is refused at submission: the node has 2 GPUs" \
    "$?:$out" \
    '^1:ksubmit: error: Requested node configuration is not available: no node of partition "batch" has .* and 3 GPUs for one task \(the largest have .*, 2 GPUs\)$'

kaid_stop
kaid_start || bail_out "kaid did not restart"
sleep 3
is "after a restart the first job still holds both devices" \
    "$(stack_psql "select state || ' ' || gpu_mask from jobs j join allocations a on a.job_id = j.id where j.id = $f")" \
    'RUNNING 3'
ok "and the waiting job still waits for them" \
    wait_for 30 why_has "$w" "no node has 2 GPUs with 0.5 free"

ok "the first job ends" wait_state "$f" COMPLETED 300
like "kacct: it held 2 x 0.5 GPUs" \
    "$(kacct -j "$f" -P -n -o AllocTRES,AllocGPUs)" 'gres/gpu=1,.*\|1$'
as_user "$A" kcancel "$m" "$w"
ok "cancelled" wait_state "$w" CANCELLED

done_testing
