#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4120-elastic: gangs are all-or-nothing up to --min-tasks; the tasks
# beyond it are elastic.  On a cluster with room for 4 one-GPU tasks, a
# job of 8 with --min-tasks=4 starts with 4 pods (RUNNING, its node list
# the nodes of those pods), and when a blocking job ends the other 4
# start, with the job's task count, not the started one, in their
# environment.  A job whose started tasks all end completes and its
# unstarted tasks are dropped; --min-tasks equal to -n still waits whole;
# kcancel ends every started task.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4120.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-e1
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_memory: 81920
  - name: gpu-e2
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

# row ID: kqueue's state, task count and node list of job ID.
row()
{
	as_user "$A" kqueue -j "$1" --noheader -o '%t %D %N'
}

nallocs()
{
	stack_psql "select count(*) from allocations where job_id = $1"
}

# pods ID PHASE: how many pods of job ID are in PHASE.
pods()
{
	kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io%2Fjob-id%3D$1" |
	    grep -o "\"phase\": *\"$2\"" | wc -l
}

wait_pods()
{
	local i
	for i in $(seq 1 150); do
		[ "$(pods "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "# job $1 has $(pods "$1" "$2") pods $2, not $3" >&2
	return 1
}

# --- A blocker holds one node.
b=$(submit --gpus-per-task=4 --wrap "sleep 300")
ok "a blocking job holds the 4 GPUs of one node" wait_state "$b" RUNNING

# --- --min-tasks equal to -n: all or nothing.
g=$(submit -n 8 --min-tasks=8 --gpus-per-task=1 --wrap "true")
sleep 2
is "a gang of 8 with --min-tasks=8 waits whole" \
    "$(stack_psql "select state from jobs where id = $g")/$(nallocs "$g")" \
    'PENDING/0'
like "with a reason" "$(as_user "$A" kqueue -j "$g" --noheader -o '%t %D %r')" \
    '^PD 8 .*[a-z]'
as_user "$A" kcancel "$g"
ok "cancelled" wait_state "$g" CANCELLED

# --- Elastic: starts with 4 of its 8 tasks, grows when room frees.
cat >"$W/el.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 8
#KSUB --min-tasks=4
#SBATCH --gpus-per-task=1
#SBATCH -t 10
echo "$SLURM_PROCID $SLURM_NTASKS $WORLD_SIZE $RANK $MASTER_ADDR $SLURM_JOB_NODELIST" \
    >"$SLURM_SUBMIT_DIR/el-$SLURM_JOB_ID-$SLURM_PROCID.txt"
while [ ! -e "$SLURM_SUBMIT_DIR/stop-$SLURM_JOB_ID" ]; do sleep 0.2; done
EOS
chown "$A:" "$W/el.sh"
e=$(submit el.sh)
ok "the elastic job runs with 4 tasks" wait_state "$e" RUNNING
ok "4 of its pods run" wait_pods "$e" Running 4
is "4 allocations, no more" "$(nallocs "$e")" 4
is "kqueue: RUNNING, 8 tasks asked, on the free node" "$(row "$e")" \
    'R 8 gpu-e2'
is "tasks 0-3 are the ones started" \
    "$(stack_psql "select string_agg(task::text, ',' order by task) from allocations where job_id = $e")" \
    '0,1,2,3'
sleep 1
is "the others wait: still 4" "$(nallocs "$e")" 4

as_user "$A" kcancel "$b"
ok "the blocker is cancelled" wait_state "$b" CANCELLED
ok "the other 4 tasks start once its GPUs are free" wait_pods "$e" Running 8
is "8 allocations, tasks 0-7" \
    "$(stack_psql "select string_agg(task::text, ',' order by task) from allocations where job_id = $e")" \
    '0,1,2,3,4,5,6,7'
like "kqueue lists both nodes" "$(row "$e")" \
    '^R 8 (gpu-e2,gpu-e1|gpu-e1,gpu-e2)$'
for _ in $(seq 1 50); do
	[ -s "$W/el-$e-7.txt" ] && break
	sleep 0.1
done
is "a late task sees the job's size, its own rank, the first pod" \
    "$(cat "$W/el-$e-7.txt" 2>/dev/null)" \
    "7 8 8 7 kai-$e-0 kai-$e-[0-7]"
deadline()
{
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$e-$1" |
	    grep -o '"activeDeadlineSeconds": *[0-9]*' | grep -o '[0-9]*$'
}
# (The deadline is the limit plus KillWait, 30 s, plus 10 s: t3220.)
is "task 0's pod has the job's whole time limit" "$(deadline 0)" 640
d7=$(deadline 7)
ok "a late task's pod has what is left of it ($d7 s)" \
    test "${d7:-0}" -gt 40 -a "${d7:-640}" -lt 640
is "an early task saw the same node list" \
    "$(cat "$W/el-$e-0.txt" 2>/dev/null)" \
    "0 8 8 0 kai-$e-0 kai-$e-[0-7]"
touch "$W/stop-$e"
ok "the job completes when its 8 tasks end" wait_state "$e" COMPLETED

# --- Unstarted tasks are dropped when the started ones end.
b=$(submit --gpus-per-task=4 --wrap "sleep 300")
ok "another blocker runs" wait_state "$b" RUNNING
e2=$(submit el.sh)
ok "a second elastic job runs with 4 tasks" wait_pods "$e2" Running 4
touch "$W/stop-$e2"
ok "it completes when its 4 started tasks end" wait_state "$e2" COMPLETED
is "it ran 4 tasks" "$(nallocs "$e2")" 4
is "kacct: allocated CPUs and GPUs are those of the 4 tasks that ran" \
    "$(as_user "$A" kacct -j "$e2" -P -n --format=State,AllocCPUS,AllocGPUs,NNodes)" \
    'COMPLETED|4|4|8'
is "kacct: the job that grew had all 8" \
    "$(as_user "$A" kacct -j "$e" -P -n --format=State,AllocCPUS,AllocGPUs)" \
    'COMPLETED|8|8'
as_user "$A" kcancel "$b"
ok "the blocker is cancelled" wait_state "$b" CANCELLED

# --- kcancel ends every started task.
b=$(submit --gpus-per-task=4 --wrap "sleep 300")
ok "a third blocker runs" wait_state "$b" RUNNING
e3=$(submit el.sh)
ok "a third elastic job runs with 4 tasks" wait_pods "$e3" Running 4
is "kqueue's CPUs and GPUs while it runs: what it asked for" \
    "$(as_user "$A" kqueue -j "$e3" --noheader -o '%t %C %b')" 'R 8 8'
is "kacct while it runs: what its 4 tasks hold" \
    "$(as_user "$A" kacct -j "$e3" -P -n --format=State,AllocCPUS,AllocGPUs)" \
    'RUNNING|4|4'
as_user "$A" kcancel "$e3"
ok "kcancel cancels it" wait_state "$e3" CANCELLED
ok "and its pods go" wait_pods "$e3" Running 0
sleep 1
is "no task of it starts later" "$(nallocs "$e3")" 4
as_user "$A" kcancel "$b"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
