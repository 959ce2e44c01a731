#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6410-pernode: the tasks of a node share a node, as Slurm users expect
# of -N and --ntasks-per-node (issue 12, doc/scheduler.md "Node groups").
# Two nodes of 8 GPUs of different types.  With 4 GPUs taken on one,
# -N 1 --ntasks-per-node=8 --gres=gpu:8 runs its 8 tasks on the other
# (it used to be split over both, mixing GPU types); -N 2
# --ntasks-per-node=2 runs two tasks on each node, never four on one; a
# second 8-task node group waits while no node has 8 GPUs free, and
# starts on the node that frees them.  The tasks' SLURM_NNODES,
# SLURM_TASKS_PER_NODE, SLURM_NODEID, SLURM_LOCALID and SLURM_GPUS_ON_NODE
# follow the placement.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6410.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: a100-1
    cpu: 32
    memory: 64Gi
    gpus: 8
    gpu_product: A100
    gpu_memory: 81920
  - name: h100-1
    cpu: 32
    memory: 64Gi
    gpus: 8
    gpu_product: H100
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# nodes_of JOBID: the Kubernetes node of each of the job's tasks, in order.
nodes_of()
{
	stack_psql "select node from allocations where job_id = $1 order by task"
}

j1=$(submit --gres=gpu:4 --wrap "sleep 300")
ok "a 4-GPU job runs" wait_state "$j1" RUNNING
n1=$(nodes_of "$j1")
case $n1 in a100-1) other=h100-1 ;; *) other=a100-1 ;; esac

j2=$(submit -N 1 --ntasks-per-node=8 --gres=gpu:8 --wrap "sleep 300")
ok "-N 1 --ntasks-per-node=8 --gres=gpu:8 runs" wait_state "$j2" RUNNING
is "all 8 tasks on the node with 8 free GPUs, one GPU type" \
    "$(nodes_of "$j2" | sort | uniq -c | awk '{print $1, $2}')" "8 $other"

j3=$(submit -N 2 --ntasks-per-node=2 -c 1 --wrap "sleep 300")
ok "-N 2 --ntasks-per-node=2 runs" wait_state "$j3" RUNNING
is "two tasks on each of two nodes, in task order" \
    "$(nodes_of "$j3" | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 "
is "the two nodes differ" "$(nodes_of "$j3" | sort -u | wc -l)" 2

j4=$(submit -N 1 --ntasks-per-node=8 --gres=gpu:8 --wrap "sleep 300")
sleep 2
is "a second node group of 8 waits: 4 GPUs are free, on one node" \
    "$(stack_psql "select state from jobs where id = $j4")" PENDING
is "its grouping is stored with it" \
    "$(stack_psql "select ntasks_per_node from jobs where id = $j4")" 8
# A restarted kaid loads it with its grouping (placed below).
kaid_stop
kaid_start || bail_out "kaid did not restart"
as_user "$A" kcancel "$j1"
ok "it starts once a node has 8 free GPUs" wait_state "$j4" RUNNING
is "all 8 tasks on that node" \
    "$(nodes_of "$j4" | sort | uniq -c | awk '{print $1, $2}')" "8 $n1"

# --- What the tasks of a node see: Slurm's view of the real placement.
as_user "$A" kcancel "$j2" "$j3" "$j4"
cat >"$T/work/env.sh" <<'EOS'
#!/bin/sh
f=$SLURM_SUBMIT_DIR/env-$SLURM_JOB_ID-$SLURM_PROCID.txt
for v in SLURM_NNODES SLURM_JOB_NUM_NODES SLURM_TASKS_PER_NODE \
    SLURM_NODEID SLURM_LOCALID SLURM_GPUS_ON_NODE; do
	eval "echo $v=\$$v"
done >"$f"
EOS
chown "$A:" "$T/work/env.sh"
j5=$(submit -N 2 --ntasks-per-node=2 --gres=gpu:2 -t 5 env.sh)
ok "-N 2 --ntasks-per-node=2 --gres=gpu:2 completes" wait_state "$j5" COMPLETED
for t in 0 1 2 3; do
	e=$(tr '\n' ' ' <"$T/work/env-$j5-$t.txt" 2>/dev/null)
	is "task $t: 2 nodes of 2 tasks, its node and rank on it, 2 GPUs a node" \
	    "$e" "SLURM_NNODES=2 SLURM_JOB_NUM_NODES=2 SLURM_TASKS_PER_NODE=2(x2) SLURM_NODEID=$((t / 2)) SLURM_LOCALID=$((t % 2)) SLURM_GPUS_ON_NODE=2 "
done
is "tasks 0-1 on one node, 2-3 on the other" \
    "$(nodes_of "$j5" | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 "

done_testing
