#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1300-kqueue: kqueue as a squeue user drives it.  Every -o specifier
# and -O name added for issue 4 (%L %e %c %F %K %U %G, NumTasks,
# cpus-per-task, tres-per-task, PendingTime), squeue's widths (%.N right,
# %N and %-N left, -O NAME:[.]N), each bad format, width or filter value
# (one error line, exit 2), -j on an array (123 all of it, 123_4 one
# task, 123_[2-6] a set), the state filters, --me, -u, -p, -h, -r and
# --json, on a running job, held jobs of two users and an array whose
# tasks run one at a time.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t1300.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$W"
printf '#!/bin/sh\nsleep 60\n' >"$W/sleep.sh"
printf '#!/bin/sh\ntrue\n' >"$W/true.sh"
chown "$A:" "$W/sleep.sh" "$W/true.sh"

submit()
{
	local u=$1
	shift
	(cd "$W" && as_user "$u" ksubmit --parsable "$@")
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

# bad NAME ERROR-REGEX ARGS...: kqueue ARGS fails with exit 2 and one
# error line matching ERROR-REGEX, and prints nothing on stdout.
bad()
{
	local name=$1 re=$2 out err rc
	shift 2
	out=$(as_user "$A" kqueue "$@" 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
	is "$name: exit 2" "$rc" 2
	like "$name: one error line" "$(wc -l <"$T/err"):$err" "^1:kqueue: error: $re"
	is "$name: nothing on stdout" "$out" ""
}

au=$(id -u "$A")
ag=$(id -g "$A")
run=$(submit "$A" -J runner -c 2 -t 10 sleep.sh)
held=$(submit "$A" -H -J heldjob -n 3 -c 4 --gpus-per-task=2 -t 90 sleep.sh)
bheld=$(submit "$B" -H -J bobjob -p short true.sh)
done_id=$(submit "$A" -J quick -t 5 true.sh)
ok "alice's job runs" wait_state "$run" RUNNING
ok "the quick job completes" wait_state "$done_id" COMPLETED

# --- New -o specifiers.
q=$(as_user "$A" kqueue -h -j "$run" -o '%F|%K|%L|%e|%c|%U|%G|%A')
s=$(stack_psql "select start_time from jobs where id = $run")
end=$(date -d "@$((s + 600))" +%Y-%m-%dT%H:%M:%S)
like "%F %K %L %e %c %U %G %A of a running job" "$q" \
    "^$run\|N/A\|(10:00|9:[0-5][0-9])\|$end\|2\|$au\|$ag\|$run$"
q=$(as_user "$A" kqueue -h -j "$held" -o '%L|%e|%c|%C|%b|%D')
is "%L %e %c %C %b %D of a held job: the whole limit, no end yet" "$q" \
    "1:30:00|N/A|4|12|6|3"
q=$(as_user "$A" kqueue -h -t all -j "$done_id" -o '%T|%L|%e')
like "%L of a finished job is 0:00, %e its end" "$q" \
    "^COMPLETED\|0:00\|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}$"

# --- Widths as squeue reads them.
q=$(as_user "$A" kqueue -h -j "$run" -o '%.8i|%-8j|%8j|%.8j|%.3t|%4D|')
is "%.N right-justifies, %N and %-N left-justify" "$q" \
    "$(printf '%8s|%-8s|%-8s|%8s|%3s|%-4s|' "$run" runner runner runner R 1)"
q=$(as_user "$A" kqueue -h -j "$run" -o '%3j|')
is "a value wider than its column is cut" "$q" "run|"
q=$(as_user "$A" kqueue -j "$held" -o '%.10L %5c')
like "headers name the new fields" "$q" "^ TIME_LEFT MIN_C"
O='JobID:10,UserName:.8,NumTasks:6,cpus-per-task:.14,tres-per-task:14,TimeLeft:10,ArrayJobID:13,ArrayTaskID:14,UserID:6,GroupID:6,MinCpus:9,EndTime:4'
q=$(as_user "$A" kqueue -j "$held" -O "$O")
fmt='%-10s%8s%-6s%14s%-14s%-10s%-13s%-14s%-6s%-6s%-9s%-4s'
is "-O header with widths" "$(printf '%s\n' "$q" | head -1)" \
    "$(printf "$fmt" JOBID USER TASKS CPUS_PER_TASK TRES_PER_TASK TIME_LEFT \
    ARRAY_JOB_ID ARRAY_TASK_ID UID GROUP MIN_CPUS END_)"
is "-O row: NumTasks, cpus-per-task, gres/gpu:2, %F, N/A task, uid, gid" \
    "$(printf '%s\n' "$q" | sed -n 2p)" \
    "$(printf "$fmt" "$held" "${A:0:8}" 3 4 gres/gpu:2 1:30:00 "$held" N/A \
    "$au" "$ag" 4 N/A)"
like "-O PendingTime: seconds waited" \
    "$(as_user "$A" kqueue -h -j "$held" -O 'PendingTime:.6')" '^ *[0-9]+$'
q=$(as_user "$A" kqueue -h -j "$held" -O 'jobid:3,username')
is "-O names are case-insensitive; default width 20" "$q" \
    "$(printf '%-3s%-20s' "${held:0:3}" "$A")"
q=$(as_user "$A" kqueue -h -j "$run" -o 'id=%i %%done')
is "literal text and %% in -o" "$q" "id=$run %done"

# --- Bad values: one line, exit 2.
bad "unknown -o letter" 'invalid format "%@": unrecognized field "%@"' -o '%@'
bad "-o ends in %" 'invalid format "%i %": unrecognized field' -o '%i %'
bad "-o width too large" 'invalid format "%2000i": field width above 1024' -o '%2000i'
bad "unknown -O name" 'invalid --Format field "Bogus"' -O 'JobID,Bogus'
bad "-O width not a number" 'invalid --Format field "JobID:x": bad width' -O 'JobID:x'
bad "-O width too large" 'invalid --Format field "JobID:5000": bad width' -O 'JobID:5000'
bad "-O empty width" 'invalid --Format field "JobID:": bad width' -O 'JobID:'
bad "bad state" 'invalid job state "XX"' -t PD,XX
bad "bad job id" 'invalid job id "12x"' -j 12x
bad "job id 0" 'invalid job id "0"' -j 0
bad "bad array task" 'invalid job id "5_\[x\]"' -j '5_[x]'
bad "task set with a throttle" 'invalid job id "5_\[1-3%2\]"' -j '5_[1-3%2]'
bad "unknown user" 'invalid user "no-such-user-xyz": no such user' -u no-such-user-xyz
bad "empty list item" 'invalid job id list "1,,2": empty item' -j 1,,2
bad "stray argument" 'unexpected argument "foo"' foo

# --- Arrays and -j.
printf '#!/bin/sh\n#SBATCH -J arr\nsleep 60\n' >"$W/arr.sh"
chown "$A:" "$W/arr.sh"
sid=$(submit "$A" --array=0-8:2%1 arr.sh)
q=$(wait_q "^${sid}_0 R" -j "$sid" -o '%i %t')
q=$(wait_q "JobArrayTaskLimit" -j "$sid" -o '%i %t %r')
is "-j ID shows the whole array" "$(printf '%s\n' "$q" | sort | tr '\n' ' ')" \
    "${sid}_0 R None ${sid}_[2-8:2%1] PD JobArrayTaskLimit "
is "-j ID_4 shows that pending task alone" \
    "$(as_user "$A" kqueue -h -j "${sid}_4" -o '%i %t %F %K')" \
    "${sid}_4 PD $sid 4"
is "-j ID_0 shows the running task" \
    "$(as_user "$A" kqueue -h -j "${sid}_0" -o '%i %t %K')" "${sid}_0 R 0"
is "-j ID_[2-6] shows tasks 2, 4 and 6" \
    "$(as_user "$A" kqueue -h -j "${sid}_[2-6]" -o '%i' | sort | tr '\n' ' ')" \
    "${sid}_2 ${sid}_4 ${sid}_6 "
is "-j ID_[0,8],JOB mixes tasks and a plain job" \
    "$(as_user "$A" kqueue -h -j "${sid}_[0,8],$run" -o '%i' | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "$run" "${sid}_0" "${sid}_8" | sort | tr '\n' ' ')"
is "-j ID_5 (no such task) shows nothing" \
    "$(as_user "$A" kqueue -h -j "${sid}_5")" ""
is "%F %K of the collapsed rest" \
    "$(as_user "$A" kqueue -h -j "$sid" -t PD -o '%F %K')" \
    "$sid [2-8:2%1]"
is "-r lists every task" \
    "$(as_user "$A" kqueue -h -r -j "$sid" -o '%i' | wc -l)" 5

# --- State and user filters.
mine=$(as_user "$A" kqueue -h -u "$A" -t PD,R -o '%i' | sort -n | tr '\n' ' ')
like "-t PD,R lists alice's pending and running jobs" "$mine" "$run .*$held"
is "-t PD lists no running job" \
    "$(as_user "$A" kqueue -h -t PD -o '%t' | sort -u | tr '\n' ' ')" "PD "
is "-t running (long name) lists only running jobs" \
    "$(as_user "$A" kqueue -h -t running -o '%t' | sort -u | tr '\n' ' ')" "R "
is "the default hides finished jobs" \
    "$(as_user "$A" kqueue -h -j "$done_id")" ""
is "--states=all shows a finished job" \
    "$(as_user "$A" kqueue -h --states=all -j "$done_id" -o '%i %t')" \
    "$done_id CD"
is "--me (bob) lists only bob's job" \
    "$(as_user "$B" kqueue -h --me -o '%i %u')" "$bheld $B"
is "-u bob lists only bob's job" \
    "$(as_user "$A" kqueue -h -u "$B" -o '%i')" "$bheld"
is "-p short lists only the short partition" \
    "$(as_user "$A" kqueue -h -p short -o '%i %P')" "$bheld short"
is "-p with no job in it lists nothing" \
    "$(as_user "$A" kqueue -h -p gpu)" ""
like "the header is squeue's" "$(as_user "$A" kqueue | head -1)" \
    '^ +JOBID PARTITION +NAME +USER ST +TIME +NODES NODELIST\(REASON\)$'
is "-h prints no header" \
    "$(as_user "$A" kqueue -h -u "$B" | grep -c JOBID)" 0
j=$(as_user "$A" kqueue --json -j "$held")
is "--json: the selected job, with its fields" \
    "$(printf '%s' "$j" | jq -r '.jobs | length, .[0].job_id, .[0].state, .[0].gpus_per_task')" \
    "$(printf '1\n%s\nPENDING\n2' "$held")"

as_user "$A" kcancel -u "$A" >/dev/null 2>&1
ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
