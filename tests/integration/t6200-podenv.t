#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6200-podenv: what a Slurm script finds inside its pods: the SLURM_*
# variables, MASTER_ADDR / RANK / WORLD_SIZE for torch.distributed, a
# scontrol that answers `show hostnames` and `show job`, an srun that runs
# a command as the pod's task, and the headless Service that gives a
# multi-task job's pods their DNS names.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t6200.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
# Each task writes its own file: every pod runs the script (SPMD).
cat >"$W/env.sh" <<'EOS'
#!/bin/sh
#SBATCH -J envjob
#SBATCH -n 2
#SBATCH -c 1
#SBATCH -t 5
f=$SLURM_SUBMIT_DIR/env-$SLURM_JOB_ID-$SLURM_PROCID.txt
{
	for v in SLURM_JOB_ID SLURM_JOB_NAME SLURM_NTASKS SLURM_PROCID \
	    SLURM_NODEID SLURM_LOCALID SLURM_JOB_NUM_NODES SLURM_JOB_NODELIST \
	    SLURM_CPUS_PER_TASK SLURM_GPUS_ON_NODE SLURM_SUBMIT_DIR \
	    SLURM_TASKS_PER_NODE SLURMD_NODENAME MASTER_ADDR MASTER_PORT RANK \
	    WORLD_SIZE LOCAL_RANK; do
		eval "echo $v=\$$v"
	done
	echo "hostnames: $(scontrol show hostnames | tr '\n' ' ')"
	echo "given: $(scontrol show hostnames 'n[08-10],login,r[1-2]-g[1-2]' | tr '\n' ' ')"
	scontrol show job | head -n 1
	srun --ntasks-per-node 1 -l echo "srun ran as task $SLURM_PROCID"
	srun -n 1 echo "srun -n 1 ran on task $SLURM_PROCID"
	scontrol show partition >/dev/null 2>&1 || echo "scontrol show partition refused"
	scontrol show hostnames 'x[3-' >/dev/null 2>&1 || echo "bad host list refused"
} >"$f" 2>&1
echo "task $SLURM_PROCID done"
EOS
chown "$A:" "$W/env.sh"

out=$(cd "$W" && as_user "$A" ksubmit env.sh 2>&1)
like "ksubmit accepts a two-task job" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
ok "the job completes" wait_state "$id" COMPLETED

for t in 0 1; do
	f=$W/env-$id-$t.txt
	ok "task $t wrote its file" test -s "$f"
	e=$(tr "\n" " " <"$f" 2>/dev/null)
	like "task $t: job id, name and task count" "$e" \
	    "SLURM_JOB_ID=$id.*SLURM_JOB_NAME=envjob.*SLURM_NTASKS=2"
	like "task $t: its own rank" "$e" \
	    "SLURM_PROCID=$t.*SLURM_NODEID=$t.*SLURM_LOCALID=0"
	like "task $t: the node list names the job's pods" "$e" \
	    "SLURM_JOB_NUM_NODES=2.*SLURM_JOB_NODELIST=kai-$id-\\[0-1\\]"
	like "task $t: cpus, gpus, submit dir, tasks per node" "$e" \
	    "SLURM_CPUS_PER_TASK=1.*SLURM_GPUS_ON_NODE=0.*SLURM_SUBMIT_DIR=$W.*SLURM_TASKS_PER_NODE=1\\(x2\\)"
	like "task $t: its pod's name" "$e" "SLURMD_NODENAME=kai-$id-$t"
	like "task $t: torch.distributed's variables" "$e" \
	    "MASTER_ADDR=kai-$id-0.*MASTER_PORT=29500.*RANK=$t.*WORLD_SIZE=2.*LOCAL_RANK=0"
	like "task $t: scontrol show hostnames" "$e" \
	    "hostnames: kai-$id-0 kai-$id-1 "
	like "task $t: scontrol expands ranges, padding and two brackets" "$e" \
	    "given: n08 n09 n10 login r1-g1 r1-g2 r2-g1 r2-g2 "
	like "task $t: scontrol show job" "$e" "JobId=$id JobName=envjob"
	like "task $t: srun runs the command as this task" "$e" \
	    "srun ran as task $t"
	like "task $t: other scontrol commands are refused" "$e" \
	    "scontrol show partition refused"
	like "task $t: a bad host list is refused" "$e" "bad host list refused"
done
like "srun -n 1 runs on task 0" "$(cat "$W/env-$id-0.txt")" \
    "srun -n 1 ran on task 0"
unlike "srun -n 1 does not run on task 1" "$(cat "$W/env-$id-1.txt")" \
    "srun -n 1 ran"
o=$(cat "$W/slurm-$id.out" 2>/dev/null)
like "both tasks' output is in the job's output file" "$o" "task 0 done"
like "(task 1 appended, did not erase task 0)" "$o" "task 1 done"

if [ "$STACK_API" = kubesim ]; then
	rec=$T/kubesim.record
	like "a headless Service was created for the job" \
	    "$(grep '"path": *"/api/v1/namespaces/default/services"' "$rec")" POST
	like "and deleted with its pods" \
	    "$(grep "\"path\": *\"/api/v1/namespaces/default/services/kai-$id\"" "$rec")" DELETE
else
	svc=$(kubesim_ctl "/api/v1/namespaces/default/services/kai-$id")
	like "the job's Service is gone after it ended" "$svc" '"code": *404'
fi

# A one-task job has no Service and MASTER_ADDR is its own pod.
cat >"$W/one.sh" <<'EOS'
#!/bin/sh
echo "MASTER_ADDR=$MASTER_ADDR WORLD_SIZE=$WORLD_SIZE list=$SLURM_JOB_NODELIST"
EOS
chown "$A:" "$W/one.sh"
out=$(cd "$W" && as_user "$A" ksubmit -o one-%j.out one.sh 2>&1)
id1=${out##* }
ok "a one-task job completes" wait_state "$id1" COMPLETED
is "one task: MASTER_ADDR is its own pod" "$(cat "$W/one-$id1.out")" \
    "MASTER_ADDR=kai-$id1-0 WORLD_SIZE=1 list=kai-$id1-0"
if [ "$STACK_API" = kubesim ]; then
	is "no Service for a one-task job" \
	    "$(grep -c "/services/kai-$id1\"" "$T/kubesim.record")" 0
fi

# Slurm's other variables: QoS, cluster, restarts, dependency, GPUs.
cat >"$W/more.sh" <<'EOS'
#!/bin/sh
for v in SLURM_JOB_QOS SLURM_CLUSTER_NAME SLURM_RESTART_COUNT \
    SLURM_JOB_DEPENDENCY SLURM_JOB_GPUS; do
	eval "echo $v=\${$v-unset}"
done
EOS
chown "$A:" "$W/more.sh"
out=$(cd "$W" && as_user "$A" ksubmit --parsable -o more-%j.out \
    --dependency=afterok:$id1 --gres=gpu:2 more.sh 2>&1)
ok "a GPU job that depends on another completes" wait_state "$out" COMPLETED
is "it sees Slurm's QoS, cluster name, restarts, dependency and GPUs" \
    "$(cat "$W/more-$out.out" 2>/dev/null)" "SLURM_JOB_QOS=normal
SLURM_CLUSTER_NAME=kaibatch
SLURM_RESTART_COUNT=0
SLURM_JOB_DEPENDENCY=afterok:$id1
SLURM_JOB_GPUS=0,1"
out=$(cd "$W" && as_user "$A" ksubmit --parsable -o more-%j.out more.sh 2>&1)
ok "a job without them completes" wait_state "$out" COMPLETED
like "it has no dependency and no GPUs" "$(cat "$W/more-$out.out" 2>/dev/null)" \
    "SLURM_JOB_DEPENDENCY=unset
SLURM_JOB_GPUS=unset$"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
