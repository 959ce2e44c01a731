#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6430-exclusive: --exclusive and --mem=0 as Slurm means them (issue 12:
# "--exclusive --mem=0 gave 1 CPU, 1 GiB, 0 GPUs").  An exclusive job
# runs only on nodes no other job uses, no other job joins it there, and
# its pods get the whole node (all its CPUs, memory and GPUs, split among
# the job's tasks on it), which SLURM_CPUS_ON_NODE, SLURM_MEM_PER_NODE,
# SLURM_GPUS_ON_NODE and kacct's AllocTRES show.  --mem=0 is all of a
# node's memory: the job waits for a node nobody else uses.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t6430.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-1
    cpu: 32
    memory: 64Gi
    gpus: 8
  - name: gpu-2
    cpu: 32
    memory: 64Gi
    gpus: 8
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"
cat >"$T/work/env.sh" <<'EOS'
#!/bin/sh
f=$SLURM_SUBMIT_DIR/env-$SLURM_JOB_ID-$SLURM_PROCID.txt
for v in SLURM_CPUS_ON_NODE SLURM_MEM_PER_NODE SLURM_GPUS_ON_NODE; do
	eval "echo $v=\$$v"
done >"$f"
sleep 4
EOS
chown "$A:" "$T/work/env.sh"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# allocs JOBID: "node cpus mem_mb gpus" of each task, in task order.
allocs()
{
	stack_psql "select node || ' ' || cpus || ' ' || mem_mb || ' ' || gpus
	    from allocations where job_id = $1 order by task"
}

j1=$(submit -c 1 --wrap "sleep 300")
ok "a one-CPU job runs" wait_state "$j1" RUNNING
n1=$(allocs "$j1" | awk '{print $1}')
case $n1 in gpu-1) other=gpu-2 ;; *) other=gpu-1 ;; esac

j2=$(submit --exclusive -n 2 -t 5 env.sh)
ok "--exclusive -n 2 runs" wait_state "$j2" RUNNING
is "on the node nobody else uses, its tasks splitting it whole" \
    "$(allocs "$j2" | tr '\n' ' ')" \
    "$other 16 32768 4 $other 16 32768 4 "
j3=$(submit -c 1 --wrap "sleep 300")
ok "another one-CPU job runs" wait_state "$j3" RUNNING
is "beside the first, not on the exclusive job's node" \
    "$(allocs "$j3" | awk '{print $1}')" "$n1"

j4=$(submit --mem=0 -t 5 env.sh)
sleep 2
is "--mem=0 waits while every node has another job" \
    "$(stack_psql "select state from jobs where id = $j4")" PENDING

ok "the exclusive job completes" wait_state "$j2" COMPLETED
for t in 0 1; do
	is "task $t sees the whole node" \
	    "$(tr '\n' ' ' <"$T/work/env-$j2-$t.txt" 2>/dev/null)" \
	    "SLURM_CPUS_ON_NODE=32 SLURM_MEM_PER_NODE=65536 SLURM_GPUS_ON_NODE=8 "
done
is "kacct: AllocTRES with the node's 8 GPUs" \
    "$(as_user "$A" kacct -n -P -X -j "$j2" -o AllocTRES | grep -o 'gres/gpu=[0-9]*')" \
    "gres/gpu=8"

ok "--mem=0 runs once a node is free" wait_state "$j4" RUNNING
is "on that node, with all its memory" \
    "$(allocs "$j4" | awk '{print $1, $3}')" "$other 65536"
ok "it completes" wait_state "$j4" COMPLETED
is "and saw the node's memory" \
    "$(grep -o 'SLURM_MEM_PER_NODE=[0-9]*' "$T/work/env-$j4-0.txt" 2>/dev/null)" \
    "SLURM_MEM_PER_NODE=65536"

out=$(submit --exclusive=user --wrap true 2>&1)
is "--exclusive=user is refused" "$?" 2
is "with the reason" "$out" \
    'ksubmit: error: invalid exclusive "user": only whole nodes (--exclusive without a value) are supported'

as_user "$A" kcancel "$j1" "$j3"
done_testing
