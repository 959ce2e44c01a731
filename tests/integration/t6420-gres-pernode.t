#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6420-gres-pernode: --gres=gpu:N and --gpus-per-node=N are N GPUs on
# each node the job gets, as in Slurm (issue 12), not N per task.  A
# job's tasks each run in a pod of their own, so the N GPUs of a node are
# spread over its pods (src/model/jobgpus.c).  -n 2 --gres=gpu:1 runs both
# tasks on one node with one GPU in all (it used to get two GPUs on two
# "nodes"); -N 2 -n 4 --gpus-per-node=3 gets 3 GPUs on each of its two
# nodes.  The counts are what the user sees: the pods' SLURM_NNODES and
# SLURM_GPUS_ON_NODE, kacct's NNodes and AllocTRES, kctl show job's
# NumNodes, kqueue -O tres-per-node, and the GPUs kaid asked the API
# server for.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6420.XXXXXX)
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
for v in SLURM_NNODES SLURM_GPUS_ON_NODE; do
	eval "echo $v=\$$v"
done >"$f"
sleep 3
EOS
chown "$A:" "$T/work/env.sh"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# gpus_of JOBID: "node gpus" of each task, in task order.
gpus_of()
{
	stack_psql "select node || ' ' || gpus from allocations
	    where job_id = $1 order by task"
}

j1=$(submit -n 2 --gres=gpu:1 -t 5 env.sh)
ok "-n 2 --gres=gpu:1 runs" wait_state "$j1" RUNNING
g=$(gpus_of "$j1")
is "both tasks on one node" "$(echo "$g" | awk '{print $1}' | sort -u | wc -l)" 1
is "one GPU in all, in task 0's pod" "$(echo "$g" | awk '{print $2}' | tr '\n' ' ')" "1 0 "
is "kqueue -O tres-per-node" \
    "$(as_user "$A" kqueue -h -j "$j1" -O tres-per-node | tr -d ' ')" "gres/gpu:1"
is "kctl show job: one node, one GPU" \
    "$(as_user "$A" kctl show job "$j1" | grep -o 'NumNodes=[0-9]*\|gres/gpu=[0-9]*' | tr '\n' ' ')" \
    "NumNodes=1 gres/gpu=1 "
ok "it completes" wait_state "$j1" COMPLETED
for t in 0 1; do
	is "task $t sees one node with one GPU" \
	    "$(tr '\n' ' ' <"$T/work/env-$j1-$t.txt" 2>/dev/null)" \
	    "SLURM_NNODES=1 SLURM_GPUS_ON_NODE=1 "
done
is "kacct: NNodes 1, AllocTRES with one GPU" \
    "$(as_user "$A" kacct -n -P -X -j "$j1" -o NNodes,AllocTRES | grep -o '^[0-9]*|\|gres/gpu=[0-9]*' | tr '\n' ' ')" \
    "1| gres/gpu=1 "

j2=$(submit -N 2 -n 4 --gpus-per-node=3 -t 5 env.sh)
ok "-N 2 -n 4 --gpus-per-node=3 runs" wait_state "$j2" RUNNING
g=$(gpus_of "$j2")
is "3 GPUs on each of two nodes (2 + 1 over its pods)" \
    "$(echo "$g" | awk '{s[$1] += $2} END {for (n in s) print s[n]}' | tr '\n' ' ')" "3 3 "
is "tasks 0-1 on one node, 2-3 on the other" \
    "$(echo "$g" | awk '{print $1}' | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 "
ok "it completes" wait_state "$j2" COMPLETED
is "task 3 sees 2 nodes of 3 GPUs" \
    "$(tr '\n' ' ' <"$T/work/env-$j2-3.txt" 2>/dev/null)" \
    "SLURM_NNODES=2 SLURM_GPUS_ON_NODE=3 "
is "kacct: NNodes 2, 6 GPUs" \
    "$(as_user "$A" kacct -n -P -X -j "$j2" -o NNodes,AllocTRES | grep -o '^[0-9]*|\|gres/gpu=[0-9]*' | tr '\n' ' ')" \
    "2| gres/gpu=6 "

# A per-node request larger than any node is refused at submit, with
# Slurm's message.
out=$(submit -n 2 --gres=gpu:9 --wrap true 2>&1)
is "--gres=gpu:9 on 8-GPU nodes: ksubmit exits 1" "$?" 1
is "with Slurm's message" "${out%%:*}: ${out#*error: }" \
    "ksubmit: Requested node configuration is not available: no node of partition \"batch\" has 2 CPUs, 2048 MiB and 9 GPUs for the tasks of one node (--ntasks-per-node) (the largest have 32 CPUs, 65536 MiB, 8 GPUs)"

done_testing
