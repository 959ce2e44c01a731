#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6000-arrays: job arrays.  An array of 5 tasks runs every task, each
# writing slurm-%A_%a.out with its own SLURM_ARRAY_* values; a throttle
# of %1 keeps the rest pending, which kqueue shows in squeue's compact
# form (123_[1-4%1]) beside the running task (123_0); kcancel cancels one
# task (123_4), several (123_[2-3]) or the whole array (123); a
# 10,000-task array is one request and one row.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit "$@")
}

# wait_q REGEX [ARGS...]: polls kqueue until its output matches.
wait_q()
{
	local re=$1 out
	shift
	for _ in $(seq 1 150); do
		out=$(as_user "$A" kqueue --noheader "$@")
		printf '%s' "$out" | grep -Eq -- "$re" && break
		sleep 0.1
	done
	printf '%s' "$out"
}

# array_done ID N: N records of array ID are COMPLETED.
array_done()
{
	local n
	for _ in $(seq 1 300); do
		n=$(stack_psql "select count(*) from jobs where array_job_id = $1
		    and state = 'COMPLETED'")
		[ "$n" = "$2" ] && return 0
		sleep 0.1
	done
	echo "# array $1: $n of $2 tasks completed" >&2
	return 1
}

cat >"$W/arr.sh" <<'EOS'
#!/bin/sh
#SBATCH -J arr
#SBATCH -t 5
echo "task=$SLURM_ARRAY_TASK_ID array=$SLURM_ARRAY_JOB_ID job=$SLURM_JOB_ID"
echo "count=$SLURM_ARRAY_TASK_COUNT min=$SLURM_ARRAY_TASK_MIN max=$SLURM_ARRAY_TASK_MAX step=$SLURM_ARRAY_TASK_STEP"
EOS
chown "$A:" "$W/arr.sh"

# --- An array of 5 tasks runs every task.
out=$(submit --array=0-4 arr.sh 2>&1)
like "ksubmit prints one job id for the array" "$out" \
    '^Submitted batch job [0-9]+$'
id=${out##* }
ok "all 5 tasks complete" array_done "$id" 5
for t in 0 1 2 3 4; do
	f=$W/slurm-${id}_$t.out
	stack_wait_file "$f" 50
	like "task $t wrote slurm-%A_%a.out with its own index" \
	    "$(cat "$f" 2>/dev/null)" "^task=$t array=$id job=[0-9]+"
done
like "SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP describe the array" \
    "$(cat "$W/slurm-${id}_3.out")" 'count=5 min=0 max=4 step=1'
ids=$(stack_psql "select count(distinct id) from jobs where array_job_id = $id")
is "each task has its own job id" "$ids" 5
span=$(stack_psql "select max(id) - min(id) from jobs where array_job_id = $id")
is "the tasks' job ids are consecutive, as Slurm numbers them" "$span" 4
is "the array's first id is SLURM_ARRAY_JOB_ID" \
    "$(stack_psql "select min(id) from jobs where array_job_id = $id")" "$id"
a=$(as_user "$A" kacct -j "$id" --parsable2 --noheader --format=JobID,State)
like "kacct shows the tasks as ID_INDEX" "$a" "^${id}_2\|COMPLETED"
n=$(stack_psql "select count(*) from events e join jobs j on j.id = e.job_id
    where j.array_job_id = $id and e.to_state = 'COMPLETED'")
is "one COMPLETED event per task" "$n" 5

# --- A stepped array with %1: one task at a time, the rest pending.
cat >"$W/slow.sh" <<'EOS'
#!/bin/sh
#SBATCH -J slow
#SBATCH -o slow-%A_%a.out
echo "task=$SLURM_ARRAY_TASK_ID step=$SLURM_ARRAY_TASK_STEP"
sleep 30
EOS
chown "$A:" "$W/slow.sh"
out=$(submit --parsable --array=0-8:2%1 slow.sh)
sid=$out
wait_q "^ *${sid}_0 .* R " -j "$sid" >/dev/null
q=$(wait_q "JobArrayTaskLimit" -j "$sid")
like "the first task runs as ${sid}_0" "$q" "^ *${sid}_0 +batch +slow .* R "
like "the rest pends as ${sid}_[2-8:2%1] with JobArrayTaskLimit" "$q" \
    "^ *${sid}_\[2-8:2%1\] +batch +slow .* PD .*\(JobArrayTaskLimit\)"
is "only one task was split off" \
    "$(stack_psql "select count(*) from jobs where array_job_id = $sid")" 2
q=$(as_user "$A" kqueue -r --noheader -j "$sid" -o "%i %t" | sort | tr '\n' ' ')
is "kqueue -r shows one line per task" "$q" \
    "${sid}_0 R ${sid}_2 PD ${sid}_4 PD ${sid}_6 PD ${sid}_8 PD "
stack_wait_file "$W/slow-${sid}_0.out" 50
like "%A_%a in -o name the task's file; step is 2" \
    "$(cat "$W/slow-${sid}_0.out" 2>/dev/null)" '^task=0 step=2$'

# --- kcancel one task, then a range, then the whole array.
out=$(as_user "$A" kcancel "${sid}_4" 2>&1)
is "kcancel ID_4 cancels a pending task silently" "$?:$out" "0:"
q=$(wait_q "^ *${sid}_\[2,6-8:2%1\]" -j "$sid")
like "kqueue no longer lists task 4" "$q" "^ *${sid}_\[2,6-8:2%1\] "
is "the cancelled task has a CANCELLED record" \
    "$(stack_psql "select state from jobs where array_job_id = $sid
        and array_task_id = 4")" CANCELLED
out=$(as_user "$B" kcancel "${sid}_2" 2>&1)
like "bob cannot cancel alice's task" "$?:$out" \
    "^1:kcancel: error: Kill job error on job id $sid: permission denied"
out=$(as_user "$A" kcancel "${sid}_[2-6]" 2>&1)
is "a task that is not there is not an error, as with scancel" "$?:$out" "0:"
q=$(wait_q "^ *${sid}_\[8%1\]" -j "$sid")
like "tasks 2 and 6 were cancelled with it" "$q" "^ *${sid}_\[8%1\] "
out=$(as_user "$A" kcancel "$sid" 2>&1)
is "kcancel ID cancels the whole array" "$?:$out" "0:"
q=$(wait_q '^$' -j "$sid")
is "nothing of the array is left in kqueue" "$q" ""
is "the running task and the pending rest are CANCELLED" \
    "$(stack_psql "select string_agg(coalesce(array_task_id::text, 'rest') ||
        '=' || state, ' ' order by id) from jobs where array_job_id = $sid")" \
    "rest=CANCELLED 0=CANCELLED 4=CANCELLED 2=CANCELLED 6=CANCELLED"

# --- kill -9 kaid while an array runs: after the restart every task runs
# exactly once.
cat >"$W/crash.sh" <<'EOS'
#!/bin/sh
echo "task=$SLURM_ARRAY_TASK_ID" >>crash.log
sleep 1
EOS
chown "$A:" "$W/crash.sh"
cid=$(submit --parsable --array=0-5%2 crash.sh)
for _ in $(seq 1 100); do
	[ "$(stack_psql "select count(*) from jobs where array_job_id = $cid
	    and state <> 'PENDING'")" -ge 2 ] && break
	sleep 0.1
done
kaid_kill9
kaid_start || bail_out "kaid did not restart"
ok "after kill -9 and a restart, all 6 tasks complete" array_done "$cid" 6
is "each task ran exactly once" \
    "$(sort "$W/crash.log" | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')" "1 "
is "and every task ran" "$(sort -u "$W/crash.log" | wc -l)" 6
is "one record per task, no duplicates" \
    "$(stack_psql "select count(*), count(distinct array_task_id) from jobs
        where array_job_id = $cid")" "6|6"

# --- 10,000 tasks: one request, one row.
cat >"$W/big.sh" <<'EOS'
#!/bin/sh
true
EOS
chown "$A:" "$W/big.sh"
out=$(submit --parsable --hold --array=0-9999 big.sh)
bid=$out
is "a 10,000-task array is one row in the jobs table" \
    "$(stack_psql "select count(*) from jobs where array_job_id = $bid")" 1
is "which holds the whole set" \
    "$(stack_psql "select array_pending from jobs where id = $bid")" "0-9999"
q=$(as_user "$A" kqueue --noheader -j "$bid")
like "kqueue shows it as ${bid}_[0-9999]" "$q" "^ *${bid}_\[0-9999\] "
out=$(submit --array=0-100000 big.sh 2>&1)
like "an index over the maximum is refused" "$?:$out" \
    '^2:ksubmit: error: invalid array "0-100000": index 100000 is over the maximum 99999'

# --- The tasks ask for what the array asked for: here half a GPU each,
# as the GPU share in their environment says.
out=$(submit --parsable --array=0-1 --gpu-fraction=0.5 -o "frac-%A_%a.out" \
    --wrap 'echo "portion=$GPU_PORTION gpus=$SLURM_GPUS_ON_NODE"')
fid=${out%%;*}
for t in 0 1; do
	stack_wait_file "$W/frac-${fid}_$t.out" 300
	is "array task $t runs with the array's GPU fraction" \
	    "$(cat "$W/frac-${fid}_$t.out" 2>/dev/null)" "portion=0.50 gpus=0"
done

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
