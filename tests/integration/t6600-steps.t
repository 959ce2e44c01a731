#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6600-steps: Slurm's job model inside the pods (daemons/kaid/steps.c,
# pod/kaistep_srun.c, pod/kaistep_agent.c).  The batch script of a
# two-task job runs once, in task 0's pod, and `srun` in it starts a
# step whose tasks the step agent of each pod runs, with SLURM_PROCID,
# SLURM_LOCALID, SLURM_NODEID and SLURM_STEP_ID of their own; -l labels
# the lines; srun exits with the worst task status; a refused step says
# why; `srun CMD >file` writes the tasks' output to that file.  kubesim
# gives its pods their ConfigMap (the wrapper and kaistep) and the job
# key's Secret (KUBESIM_VOLUMES); t6610 is the node tier's.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers kubesim -- "kubesim's pods get their volumes here; t6610 is the node tier's"
stack_require
stack_require_kubesim
[ -x "$STACK_BIN/pod/kaistep" ] ||
	skip_all "pod/kaistep not built (configure: no static libraries)"

T=$(mktemp -d /tmp/kai-t6600.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KUBESIM_VOLUMES=1 KAID_POD_HELPERS=configmap \
    KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" ||
    bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

# A torchrun-style script: set-up and post-processing once, the launch
# on every task.
cat >"$W/two.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 5
echo "pre once $SLURM_PROCID"
export MASTER_PORT=29500
srun -l sh -c 'echo "rank $SLURM_PROCID local $SLURM_LOCALID node $SLURM_NODEID step $SLURM_STEP_ID port $MASTER_PORT"'
echo "launch: $?"
srun -n 1 sh -c 'echo "one task $SLURM_PROCID of $SLURM_STEP_NUM_TASKS step $SLURM_STEPID"'
srun --ntasks=2 sh -c 'exit $((SLURM_PROCID * 3))'
echo "worst: $?"
srun -n 3 true
echo "too many: $?"
srun sh -c 'echo "file $SLURM_PROCID"' >"$SLURM_SUBMIT_DIR/step.out"
srun -l sh -c 'echo "piped $SLURM_PROCID"' | sort >"$SLURM_SUBMIT_DIR/piped.out"
echo "post once"
EOS
chown "$A:" "$W/two.sh"

id=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/two-%j.out" two.sh)
like "ksubmit takes the two-task job" "$id" '^[0-9]+$'
ok "the job completes" wait_state "$id" COMPLETED 600
out=$W/two-$id.out
diag "$(cat "$out" 2>/dev/null)"
is "the set-up line ran once, in task 0" \
    "$(grep -c '^pre once' "$out")" 1
is "... as task 0" "$(grep '^pre once' "$out")" "pre once 0"
is "the post-processing line ran once" "$(grep -c '^post once' "$out")" 1
is "srun -l ran task 0 of step 0, labelled" \
    "$(grep '^0: rank' "$out")" "0: rank 0 local 0 node 0 step 0 port 29500"
is "... and task 1, on the other pod (node 1), labelled" \
    "$(grep '^1: rank' "$out")" "1: rank 1 local 0 node 1 step 0 port 29500"
is "srun exits 0 when every task did" "$(grep "^launch:" "$out")" "launch: 0"
is "srun -n 1 runs one task, as step 1" \
    "$(grep '^one task' "$out")" "one task 0 of 1 step 1"
is "srun exits with the worst task status" \
    "$(grep '^worst:' "$out")" "worst: 3"
like "... and says which task failed" "$(cat "$out")" \
    "srun: error: task 1: Exited with exit code 3"
like "a step larger than the job is refused, with the reason" \
    "$(cat "$out")" "srun: error: unable to create step for job $id: more processors requested than permitted"
is "... and srun exits 1" "$(grep '^too many:' "$out")" "too many: 1"
is "srun CMD >file: both tasks wrote to the file" \
    "$(sort "$W/step.out" 2>/dev/null | tr '\n' ' ')" "file 0 file 1 "
is "... and nothing of it to the job's output" "$(grep -c '^file' "$out")" 0
is "srun CMD | sort: both tasks' output came through the pipe" \
    "$(cat "$W/piped.out" 2>/dev/null | tr '\n' ' ')" "0: piped 0 1: piped 1 "
is "... none of it in the job's output, no spool file left" \
    "$(grep -c 'piped' "$out") $(find "$W" -name '.kaistep-srun.*' | wc -l)" "0 0"


# kacct: the job, its batch step and the steps srun started (the refused
# one is none), as sacct shows them; -X the job alone.
acct=$(as_user "$A" kacct -j "$id" -P -n -o JobID,JobName,State,ExitCode,NTasks)
diag "$acct"
is "kacct shows the job, N.batch and the steps N.0 to N.4" "$acct" \
"$id|two.sh|COMPLETED|0:0|2
$id.batch|batch|COMPLETED|0:0|1
$id.0|sh|COMPLETED|0:0|2
$id.1|sh|COMPLETED|0:0|1
$id.2|sh|FAILED|3:0|2
$id.3|sh|COMPLETED|0:0|2
$id.4|sh|COMPLETED|0:0|2"
is "kacct -X shows the job alone" \
    "$(as_user "$A" kacct -X -j "$id" -P -n -o JobID,State)" "$id|COMPLETED"
is "DerivedExitCode: the highest exit code of the steps" \
    "$(as_user "$A" kacct -j "$id" -P -n -o JobID,DerivedExitCode | head -n 1)" \
    "$id|3:0"
json=$(as_user "$A" kacct -j "$id" --json)
jq_py() { printf '%s' "$json" | python3 -c "import json, sys; j = json.load(sys.stdin)['jobs'][0]; $1"; }
is "kacct --json: the steps as sacct --json lists them" \
    "$(jq_py 'print(" ".join("%s:%s:%s:%s:%s" % (s["step"]["id"], s["step"]["name"], s["state"], s["exit_code"]["return_code"], s["tasks"]["count"]) for s in j["steps"]))')" \
    "batch:batch:COMPLETED:0:1 0:sh:COMPLETED:0:2 1:sh:COMPLETED:0:1 2:sh:FAILED:3:2 3:sh:COMPLETED:0:2 4:sh:COMPLETED:0:2"
is "... and derived_exit_code from them" \
    "$(jq_py 'print(j["derived_exit_code"]["status"], j["derived_exit_code"]["return_code"])')" \
    "ERROR 3"
nodes=$(as_user "$A" kacct -j "$id" -P -n -o JobID,NodeList)
is "a step of one task ran on one node" \
    "$(printf '%s\n' "$nodes" | awk -F'|' -v j="$id.1" '($1 "") == j { print gsub(/,/, ",") }')" 0
is "... a step of two on the job's nodes" \
    "$(printf '%s\n' "$nodes" | awk -F'|' -v j="$id.0" '($1 "") == j { print $2 }')" \
    "$(printf '%s\n' "$nodes" | awk -F'|' -v j="$id" '($1 "") == j { print $2 }')"
start=$(as_user "$A" kacct -j "$id" -P -n -o JobID,Start,End,Elapsed)
like "a step has its own start, end and elapsed time" \
    "$(printf '%s\n' "$start" | grep "^$id\.0|")" \
    "^$id\.0\|[0-9]{4}-[0-9-]+T[0-9:]+\|[0-9]{4}-[0-9-]+T[0-9:]+\|00:00:0[0-9]$"

# kcancel --signal: to the steps' tasks by default (their trap runs and
# the step ends), to the batch shell alone with -b, through the agents.
cat >"$W/sig.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 5
trap 'echo "batch got USR1"; touch "$SLURM_SUBMIT_DIR/batch.done"' USR1
srun -l sh -c 'trap "echo task \$SLURM_PROCID got USR1; exit 0" USR1; echo ready; while :; do sleep 0.1; done'
echo "steps: $?"
while [ ! -e "$SLURM_SUBMIT_DIR/batch.done" ]; do sleep 0.1; done
echo "batch end"
EOS
chown "$A:" "$W/sig.sh"
sid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/sig-%j.out" sig.sh)
sout=$W/sig-$sid.out
waitfor() {	# PATTERN: until the job's output has it (30 s)
	for _ in $(seq 1 300); do
		grep -q "$1" "$sout" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
ok "the signal job's step runs on both pods" \
    eval 'waitfor "^0: ready" && waitfor "^1: ready"'
out=$(as_user "$STACK_BOB" kcancel --signal=USR1 "$sid" 2>&1)
is "another user's kcancel --signal is refused" "$?:$out" \
    "1:kcancel: error: Kill job error on job id $sid: permission denied"
is "kcancel --signal=USR1 exits 0" \
    "$(as_user "$A" kcancel --signal=USR1 "$sid" 2>&1; echo $?)" 0
ok "... the tasks' trap caught it and the step ended" waitfor "^steps: 0"
is "... in both tasks" "$(grep -c '^[01]: task [01] got USR1' "$sout")" 2
is "... and the batch shell did not get it" \
    "$(grep -c 'batch got USR1' "$sout")" 0
is "kcancel -s USR1 -b exits 0" \
    "$(as_user "$A" kcancel -s USR1 -b "$sid" 2>&1; echo $?)" 0
ok "the job completes" wait_state "$sid" COMPLETED 300
is "the batch shell's trap caught it" \
    "$(grep -c '^batch got USR1' "$sout")" 1
diag "$(cat "$sout")"
out=$(as_user "$A" kcancel -b "$sid" 2>&1)
is "kcancel -b without --signal is refused" "$?:$out" \
    '2:kcancel: error: option "--batch" needs "--signal"'

# sbatch --signal=USR1@55 (5 s into a 1-minute job): the steps' tasks in
# both pods get it (in task 0's pod through the agent's processes), srun
# outlives it and reports the step's status.
cat >"$W/timer.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 1
#SBATCH --signal=USR1@55
srun -l sh -c 'trap "echo task \$SLURM_PROCID got USR1; exit 0" USR1; while :; do sleep 0.1; done'
echo "srun after the signal: $?"
EOS
chown "$A:" "$W/timer.sh"
xid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/timer-%j.out" timer.sh)
ok "the --signal job completes" wait_state "$xid" COMPLETED 600
is "both tasks caught the --signal timer's USR1" \
    "$(grep -c '^[01]: task [01] got USR1' "$W/timer-$xid.out")" 2
is "... and srun reported the step's end" \
    "$(grep '^srun after' "$W/timer-$xid.out")" "srun after the signal: 0"

# kcancel of a running job: SIGTERM reaches the steps' tasks in every
# pod (their trap runs, within KillWait) and Slurm's line is written.
cat >"$W/term.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 5
srun -l sh -c 'trap "echo task \$SLURM_PROCID got TERM; exit 0" TERM; echo ready; while :; do sleep 0.1; done'
EOS
chown "$A:" "$W/term.sh"
tid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/term-%j.out" term.sh)
sout=$W/term-$tid.out
ok "the TERM job's step runs on both pods" \
    eval 'waitfor "^0: ready" && waitfor "^1: ready"'
as_user "$A" kcancel "$tid"
ok "the job ends CANCELLED" wait_state "$tid" CANCELLED 300
ok "... with Slurm's line" waitfor "CANCELLED AT"
# The traps' lines come after the wrapper's (it writes before it signals).
ok "... and both tasks' TERM trap ran" \
    eval 'waitfor "^0: task 0 got TERM" && waitfor "^1: task 1 got TERM"'

# Placement: a job of two nodes of two tasks (-N 2 --ntasks-per-node=2);
# srun -N 1 keeps to the first node, --ntasks-per-node=1 takes one task
# of each, and the default fills both in blocks.
cat >"$W/place.sh" <<'EOS'
#!/bin/sh
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH -t 5
srun -N 1 sh -c 'echo "a $SLURM_PROCID node $SLURM_NODEID local $SLURM_LOCALID of $SLURM_STEP_NUM_TASKS"'
srun --ntasks-per-node=1 sh -c 'echo "b $SLURM_PROCID node $SLURM_NODEID local $SLURM_LOCALID of $SLURM_STEP_NUM_TASKS"'
srun sh -c 'echo "c $SLURM_PROCID node $SLURM_NODEID local $SLURM_LOCALID of $SLURM_STEP_NUM_TASKS"'
EOS
chown "$A:" "$W/place.sh"
pid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/place-%j.out" place.sh)
ok "the two-node job completes" wait_state "$pid" COMPLETED 300
pout=$W/place-$pid.out
is "srun -N 1: the first node's two tasks" "$(grep '^a' "$pout" | sort)" \
"a 0 node 0 local 0 of 2
a 1 node 0 local 1 of 2"
is "srun --ntasks-per-node=1: one task on each node" \
    "$(grep '^b' "$pout" | sort)" \
"b 0 node 0 local 0 of 2
b 1 node 1 local 0 of 2"
is "srun: the job's four tasks, in blocks" "$(grep '^c' "$pout" | sort)" \
"c 0 node 0 local 0 of 4
c 1 node 0 local 1 of 4
c 2 node 1 local 0 of 4
c 3 node 1 local 1 of 4"

# A job that requeues itself: its second run numbers its steps from 0
# again, and kacct keeps the last run's.
cat >"$W/rq.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH --open-mode=append
srun sh -c 'echo "run $SLURM_RESTART_COUNT step $SLURM_STEP_ID"'
if [ "$SLURM_RESTART_COUNT" = 0 ]; then
	kctl requeue "$SLURM_JOB_ID"
	sleep 60
fi
EOS
chown "$A:" "$W/rq.sh"
rid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/rq-%j.out" rq.sh)
ok "the requeued job completes" wait_state "$rid" COMPLETED 600
is "each run's srun was step 0" "$(grep '^run' "$W/rq-$rid.out")" \
"run 0 step 0
run 1 step 0"
is "kacct: the last run's steps" \
    "$(as_user "$A" kacct -j "$rid" -P -n -o JobID,State | tr '\n' ' ')" \
    "$rid|COMPLETED $rid.batch|COMPLETED $rid.0|COMPLETED "

# Usage per step: a task that holds 200 MiB and burns a second of CPU.
cat >"$W/mem.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 1
#SBATCH -t 5
#SBATCH --mem=1G
srun python3 -c '
import time
x = b"a" * (200 << 20)
t = time.process_time()
while time.process_time() - t < 1:
    pass
'
EOS
chown "$A:" "$W/mem.sh"
mid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/mem-%j.out" mem.sh)
ok "the memory job completes" wait_state "$mid" COMPLETED 300
use=$(as_user "$A" kacct -j "$mid" -P -n -o JobID,MaxRSS,AveRSS,TotalCPU)
diag "$use"
rss=$(printf '%s\n' "$use" | awk -F'|' -v j="$mid.0" '($1 "") == j { sub(/K$/, "", $2); print $2 }')
ok "kacct MaxRSS of the step is 200 MiB within 20% ($rss K)" \
    test "${rss:-0}" -ge $((204800 * 8 / 10)) -a "${rss:-0}" -le $((204800 * 12 / 10))
is "... AveRSS of its one task the same" \
    "$(printf '%s\n' "$use" | awk -F'|' -v j="$mid.0" '($1 "") == j { print $3 }')" "${rss}K"
like "... TotalCPU at least the second it burnt" \
    "$(printf '%s\n' "$use" | awk -F'|' -v j="$mid.0" '($1 "") == j { print $4 }')" \
    '^00:0[1-9]\.[0-9]{3}$'
eff=$(as_user "$A" kseff "$mid")
diag "$eff"
like "kseff: the job's CPU used" "$eff" "CPU Utilized: 00:00:0[1-9]"
like "kseff: its memory" "$eff" \
    "Memory Utilized: (1[6-9][0-9]|2[0-4][0-9])\.[0-9]{2} MB"
like "... against the 1 GiB it asked" "$eff" \
    "Memory Efficiency: [12][0-9]\.[0-9]{2}% of 1\.00 GB \(1\.00 GB/node\)"
like "kseff: the seff header" "$eff" "^Job ID: $mid
Cluster: kaibatch
User/Group: $A/"
out=$(as_user "$STACK_BOB" kseff "$mid" 2>&1)
is "kseff of another user's job: not found, exit 1" "$?:$out" \
    "1:kseff: error: job $mid not found"

# kaid restarts between two steps: the agents find the new kaid and the
# second srun runs on both pods, numbered after the first (kaid reads
# the job's steps back from the database).
cat >"$W/restart.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 5
srun -l sh -c 'echo "before $SLURM_PROCID"'
while [ ! -e "$SLURM_SUBMIT_DIR/go" ]; do sleep 0.1; done
srun -l sh -c 'echo "after $SLURM_PROCID"'
echo "second srun: $?"
EOS
chown "$A:" "$W/restart.sh"
zid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/restart-%j.out" restart.sh)
sout=$W/restart-$zid.out
ok "the first step ran on both pods" \
    eval 'waitfor "^0: before 0" && waitfor "^1: before 1"'
kaid_stop
kaid_start || bail_out "kaid did not start again"
touch "$W/go"
ok "after kaid's restart the job completes" wait_state "$zid" COMPLETED 600
diag "$(cat "$sout"; grep -v 'GET\|watch' "$T/kaid.log" | tail -n 25)"
is "... and its second srun ran on both pods" \
    "$(grep -c '^[01]: after [01]' "$sout")" 2
is "... and exited 0" "$(grep '^second srun' "$sout")" "second srun: 0"
is "... as step 1: kacct keeps both" \
    "$(as_user "$A" kacct -j "$zid" -P -n -o JobID,State | grep -v batch)" \
    "$zid|COMPLETED
$zid.0|COMPLETED
$zid.1|COMPLETED"

# kaid restarts while a step runs, one task ended before and one after:
# srun waits through it, gets both ends (the first sent again by its
# pod's agent) and the worst status; the next step goes on from there.
cat >"$W/across.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 2
#SBATCH -t 5
srun -l sh -c 'if [ "$SLURM_PROCID" = 1 ]; then
	while [ ! -e "$SLURM_SUBMIT_DIR/go2" ]; do sleep 0.1; done; exit 3; fi
	echo early; exit 2'
echo "first srun: $?"
srun true
echo "second srun: $?"
EOS
chown "$A:" "$W/across.sh"
xid=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/across-%j.out" across.sh)
sout=$W/across-$xid.out
ok "a step's first task ends" waitfor "^0: early"
sleep 1
kaid_stop
kaid_start || bail_out "kaid did not start again"
touch "$W/go2"
ok "after kaid's restart the job completes" wait_state "$xid" COMPLETED 600
diag "$(cat "$sout"; grep -v 'GET\|watch' "$T/kaid.log" | tail -n 40)"
is "... srun waited through it, with the worst task's status" \
    "$(grep '^first srun' "$sout")" "first srun: 3"
like "... both tasks' ends known" "$(cat "$sout")" \
    "task 0: Exited with exit code 2"
unlike "... and kaid's restart left no error in the job's output" \
    "$(cat "$sout")" "no reply from kaid|gave up"
is "... the next srun ran" "$(grep '^second srun' "$sout")" "second srun: 0"
is "... kacct: the step across the restart and the next" \
    "$(as_user "$A" kacct -j "$xid" -P -n -o JobID,State,ExitCode |
	grep -v batch)" "$xid|COMPLETED|0:0
$xid.0|FAILED|3:0
$xid.1|COMPLETED|0:0"

done_testing
