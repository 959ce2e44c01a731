#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1310-slurm-json: kqueue --json and kacct --json in the layout of Slurm
# 22.05's squeue --json (openapi/v0.0.38: meta, errors, jobs[] with
# job_id, job_state, state_reason, user_name, times in unix seconds,
# time_limit in minutes) and sacct --json (openapi/dbv0.0.38: state
# {current, reason}, exit_code {status, return_code}, time {elapsed, start,
# end, submission, limit}, tres {allocated, requested}, steps []), on a
# held job, a completed one and one that exits 3; and kqueue -S, squeue's
# sort spec ([+|-]letter,...), on the same jobs.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
command -v jq >/dev/null || skip_all "no jq"

T=$(mktemp -d /tmp/kai-t1310.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$W"
printf '#!/bin/sh\ntrue\n' >"$W/true.sh"
printf '#!/bin/sh\nexit 3\n' >"$W/three.sh"
chown "$A:" "$W/true.sh" "$W/three.sh"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

au=$(id -u "$A")
held=$(submit -H -J heldjob -n 3 -c 4 --mem=3G --gpus-per-task=2 -t 90 true.sh)
done_id=$(submit -J quick -t 5 true.sh)
bad_id=$(submit -J three -t 5 three.sh)
ok "the quick job completes" wait_state "$done_id" COMPLETED
ok "the exit-3 job fails" wait_state "$bad_id" FAILED

# --- kqueue --json: squeue's layout.
j=$(as_user "$A" kqueue --json -j "$held")
is "kqueue: meta.plugin.type is squeue's" \
    "$(printf '%s' "$j" | jq -r '.meta.plugin.type, (.meta.Slurm.version | "\(.major).\(.minor)")')" \
    "$(printf 'openapi/v0.0.38\n22.5')"
is "kqueue: errors is an empty list" "$(printf '%s' "$j" | jq -c .errors)" "[]"
is "kqueue: job_id, job_state, state_reason, user_name, user_id, partition, name" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | .job_id, .job_state, .state_reason, .user_name, .user_id, .partition, .name')" \
    "$(printf '%s\nPENDING\nJobHeldUser\n%s\n%s\nbatch\nheldjob' "$held" "$A" "$au")"
is "kqueue: time_limit in minutes, tasks, cpus, cpus_per_task, memory_per_node" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | .time_limit, .tasks, .cpus, .cpus_per_task, .memory_per_node')" \
    "$(printf '90\n3\n12\n4\n3072')"
is "kqueue: tres_req_str as slurmctld writes it; nothing allocated yet" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | .tres_req_str, "[\(.tres_alloc_str)]"')" \
    "$(printf 'cpu=12,mem=3G,node=1,billing=12,gres/gpu=6\n[]')"
is "kqueue: submit_time is unix seconds; start_time and end_time 0" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | (.submit_time > 1600000000), .start_time, .end_time')" \
    "$(printf 'true\n0\n0')"
is "kqueue: the kaibatch keys Slurm lacks follow (gpus_per_task)" \
    "$(printf '%s' "$j" | jq -r '.jobs[0].gpus_per_task')" 2
j=$(as_user "$A" kqueue --json -t all -j "$bad_id")
is "kqueue: exit_code is the wait status (3 << 8)" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | .job_state, .exit_code')" \
    "$(printf 'FAILED\n768')"

# --- kacct --json: sacct's layout.
j=$(as_user "$A" kacct --json -j "$bad_id")
is "kacct: meta.plugin.type is sacct's; errors empty" \
    "$(printf '%s' "$j" | jq -r '.meta.plugin.type, (.errors | length)')" \
    "$(printf 'openapi/dbv0.0.38\n0')"
is "kacct: state {current, reason}, exit_code {status, return_code}" \
    "$(printf '%s' "$j" | jq -c '.jobs[0] | [.job_id, .state.current, .exit_code.status, .exit_code.return_code, .derived_exit_code.return_code]')" \
    "[$bad_id,\"FAILED\",\"ERROR\",3,0]"
is "kacct: time {elapsed, start, end, submission, limit}; steps []" \
    "$(printf '%s' "$j" | jq -r '.jobs[0] | (.time.end >= .time.start), (.time.start >= .time.submission), (.time.elapsed == .time.end - .time.start), .time.limit, (.steps | length), .user')" \
    "$(printf 'true\ntrue\ntrue\n5\n0\n%s' "$A")"
is "kacct: tres.allocated as [{type, name, id, count}]" \
    "$(printf '%s' "$j" | jq -c '[.jobs[0].tres.allocated[] | [.type, .id, .count]]')" \
    '[["cpu",1,1],["mem",2,1024],["node",4,1],["billing",5,1]]'
j=$(as_user "$A" kacct --json -j "$done_id")
is "kacct: a completed job's exit_code is SUCCESS 0" \
    "$(printf '%s' "$j" | jq -c '.jobs[0] | [.state.current, .exit_code.status, .exit_code.return_code]')" \
    '["COMPLETED","SUCCESS",0]'
j=$(as_user "$A" kacct --json -s PD -j "$held")
is "kacct: a pending job: status PENDING, nothing allocated, requested GPUs" \
    "$(printf '%s' "$j" | jq -c '.jobs[0] | [.state.current, .state.reason, .exit_code.status, (.tres.allocated | length), ([.tres.requested[] | select(.type == "gres") | .name, .count]), .nodes]')" \
    '["PENDING","JobHeldUser","PENDING",0,["gpu",6],"None assigned"]'

# --- kacct's added fields.
r=$(as_user "$A" kacct -j "$bad_id" -P -n \
    --format=ReqCPUS,NTasks,QOS,DerivedExitCode,TotalCPU,MaxRSS,ReqTRES,AllocTRES)
is "kacct ReqCPUS NTasks QOS DerivedExitCode TotalCPU MaxRSS ReqTRES of a job without steps" \
    "$r" "1|1|normal|0:0|00:00:00||billing=1,cpu=1,mem=1G,node=1|billing=1,cpu=1,mem=1G,node=1"
is "kacct NCPUS AllocNodes Group GID Constraints Suspended, as sacct names them" \
    "$(as_user "$A" kacct -X -j "$bad_id" -P -n \
    --format=NCPUS,AllocNodes,Group,GID,Constraints,Suspended)" \
    "1|1|$(id -gn "$A")|$(id -g "$A")||00:00:00"
r=$(as_user "$A" kacct -j "$bad_id" -P -n --format=CPUTimeRAW,ElapsedRaw,AllocCPUS,Priority)
is "kacct CPUTimeRAW is ElapsedRaw x AllocCPUS; Priority as kaid has it" \
    "$(printf '%s' "$r" | awk -F'|' '{ print ($1 == $2 * $3) ? "yes" : $0 }')|$(printf '%s' "$r" | cut -d'|' -f4)" \
    "yes|$(stack_psql "select priority from jobs where id = $bad_id")"
is "kacct ReqTRES of a pending job: what it asked (AllocTRES is empty)" \
    "$(as_user "$A" kacct -j "$held" -s PD -P -n --format=ReqTRES,AllocTRES,ReqCPUS,CPUTime)" \
    "billing=12,cpu=12,gres/gpu=6,mem=3G,node=1||12|00:00:00"

# --- The -o letters squeue has for what kaibatch does not take.
prio=$(stack_psql "select priority from jobs where id = $held")
is "%p is squeue's float priority, %Q the integer" \
    "$(as_user "$A" kqueue -h -j "$held" -o '%p|%Q')" \
    "$(awk -v p="$prio" 'BEGIN { printf "%16.14f|%d", p / 4294967295, p }')"
is "%q %E %k %n %x %O %v %y %z as squeue prints them for a job without them" \
    "$(as_user "$A" kqueue -h -j "$held" -o '%q|%E|%k|%n|%x|%O|%v|%y|%z')" \
    "normal|(null)|(null)|||0|(null)|0|*:*:*"
is "their headers are squeue's" \
    "$(as_user "$A" kqueue -j "$held" -o '%p|%q|%E|%k|%n|%x|%O|%v|%y|%z' | head -1)" \
    "PRIORITY|QOS|DEPENDENCY|COMMENT|REQ_NODES|EXC_NODES|CONTIGUOUS|RESERVATION|NICE|S:C:T"
is "-O names: Priority is %p, PriorityLong %Q, QOS, SCT" \
    "$(as_user "$A" kqueue -h -j "$held" -O 'PriorityLong:.4,QOS:7,SCT:6,Nice:.2')" \
    "$(printf '%4s%-7s%-6s%2s' "$prio" normal '*:*:*' 0)"

# --- kqueue -S/--sort.
aaa=$(submit -H -J aaa -t 5 true.sh)
ids()
{
	as_user "$A" kqueue -h -t all -j "$held,$done_id,$bad_id,$aaa" -o %i "$@" |
	    tr '\n' ' '
}
is "-S i: job id ascending" "$(ids -S i)" "$held $done_id $bad_id $aaa "
is "-S -i: descending" "$(ids -S -i)" "$aaa $bad_id $done_id $held "
is "-S j: by name" "$(ids --sort=j)" "$aaa $held $done_id $bad_id "
is "-S -t,-i: state descending (FAILED, COMPLETED, PENDING), then id down" \
    "$(ids -S -t,-i)" "$bad_id $done_id $aaa $held "
is "-S %D,+j: tasks, then name (a % before the letter is accepted)" \
    "$(ids -S %D,+j)" "$aaa $done_id $bad_id $held "
for spec in @ W i,,j 'i,' '' ij; do
	out=$(as_user "$A" kqueue -S "$spec" 2>"$T/err")
	rc=$?
	is "-S '$spec': exit 2, one error line, nothing on stdout" \
	    "$rc|$(wc -l <"$T/err")|$out" "2|1|"
	like "-S '$spec': the error names the spec" "$(cat "$T/err")" \
	    "^kqueue: error: invalid --sort "
done

# --- kqueue -w/--nodelist: jobs allocated to one of the nodes.
printf '#!/bin/sh\nsleep 60\n' >"$W/sleep.sh"
chown "$A:" "$W/sleep.sh"
run=$(submit -J runner -t 5 sleep.sh)
ok "a job runs" wait_state "$run" RUNNING
node=$(as_user "$A" kqueue -h -j "$run" -o %N)
like "it has a node" "$node" '^[^ ]+$'
is "-w NODE: the running job" \
    "$(as_user "$A" kqueue -h -w "$node" -o %i)" "$run"
is "-w NODE -t PD: pending jobs hold no node" \
    "$(as_user "$A" kqueue -h -t PD -w "$node" -o %i)" ""
is "-w as a host list with other names" \
    "$(as_user "$A" kqueue -h --nodelist="nohost-[1-3],$node" -o %i)" "$run"
is "-w with no such node: nothing" \
    "$(as_user "$A" kqueue -h -w nohost-9 -o %i)" ""
out=$(as_user "$A" kqueue -w 'n[1-' 2>"$T/err")
is "-w bad host list: exit 2, one error line, nothing on stdout" \
    "$?|$(wc -l <"$T/err")|$out" "2|1|"
like "-w bad host list: the error names it" "$(cat "$T/err")" \
    '^kqueue: error: invalid host list "n\[1-"'

# --- kqueue -i/--iterate: the list again every N seconds, each time
# after the date and followed by an empty line, until interrupted.
as_user "$A" timeout -s INT 4 kqueue -i 1 -j "$run" -o '%i|%t' >"$T/it"
d='^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'
like "-i 1 for 4 s: at least two rounds" "$(grep -c "^$run|R\$" "$T/it")" '^[2-5]$'
is "-i: each round is date, header, the job, an empty line" \
    "$(head -4 "$T/it" | sed -E "s/$d/DATE/")" "$(printf 'DATE\nJOBID|ST\n%s|R\n' "$run")"
as_user "$A" timeout -s INT 3 kqueue -h -i 1 -j "$run" -o '%i' >"$T/it"
is "-i -h: no date, no header" "$(grep -vc "^$run\$\|^\$" "$T/it")" 0
for a in 0 x 1x 86401; do
	out=$(as_user "$A" kqueue -i "$a" 2>"$T/err")
	is "-i '$a': exit 2, one error line, nothing on stdout" \
	    "$?|$(wc -l <"$T/err")|$out" "2|1|"
done

as_user "$A" kcancel "$held" "$aaa" "$run" >/dev/null 2>&1
done_testing
