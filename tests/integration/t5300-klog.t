#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t5300-klog: klog prints what a running job's script wrote (kaid's
# wrapper copies the output file to the pod's log), follows it with -f
# until the task ends, shows each task's own log with --task, refuses
# another user's job, and says plainly that a finished job's pod is gone
# and its output file is the record.  Bad usage: one error line, exit 2.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t5300.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# A job that prints, waits for a go file, prints again and ends.
cat >"$W/talk.sh" <<'EOS'
#!/bin/sh
#SBATCH -J talk
#SBATCH -t 5
echo "hello from task $SLURM_PROCID of job $SLURM_JOB_ID"
echo "a warning" >&2
i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo "bye from task $SLURM_PROCID"
EOS
chown "$A:" "$W/talk.sh"
id=$(cd "$W" && as_user "$A" ksubmit --parsable -o "talk-%j.out" talk.sh)
ok "the job runs" wait_state "$id" RUNNING

# wait_log TASK REGEX: the log, once it matches (the copy follows the file).
wait_log()
{
	local out
	for _ in $(seq 1 50); do
		out=$(as_user "$A" klog --task "$1" "$id" 2>&1)
		printf '%s' "$out" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s\n' "$out"
}
out=$(wait_log 0 'hello')
is "klog prints what the script wrote, stderr included" "$out" \
"hello from task 0 of job $id
a warning"
err=$(as_user "$A" klog --task 1 "$id" 2>&1)
is "a task the job does not have" "$?:$err" \
    "1:klog: error: invalid task: the job has fewer tasks"

as_user "$A" klog -f "$id" >"$T/follow.out" 2>"$T/follow.err" &
fpid=$!
# A second follower that goes away: kaid stops its stream.
as_user "$A" klog -f "$id" >/dev/null 2>&1 &
gone=$!
sleep 1
ok "klog -f is still following" kill -0 "$fpid"
kill -9 "$gone"
wait "$gone" 2>/dev/null
touch "$W/go"
wait "$fpid"
is "klog -f ends with the task: exit 0" "$?" 0
is "and printed the whole log as it grew" "$(cat "$T/follow.out")" \
"hello from task 0 of job $id
a warning
bye from task 0"
is "with nothing on stderr" "$(cat "$T/follow.err")" ""
ok "kaid still answers after a follower went away" \
    as_user "$A" kqueue -j "$id"

err=$(as_user "$B" klog "$id" 2>&1)
is "bob may not read alice's log" "$?:$err" "1:klog: error: permission denied"
ok "the job completes" wait_state "$id" COMPLETED
err=$(as_user "$A" klog "$id" 2>&1)
is "a finished job: its pod is gone, exit 1" "$?" 1
is "the error says where the output is" "$err" \
"klog: error: job has finished and its pod is gone
hint: its output is in its output file (kctl show job shows StdOut)"
err=$(as_user "$B" klog "$id" 2>&1)
is "bob learns nothing of alice's finished job" "$?:$err" \
    "1:klog: error: permission denied"
err=$(as_user "$A" klog 999999 2>&1)
is "an unknown job" "$?:$err" "1:klog: error: Invalid job id specified"

id2=$(cd "$W" && as_user "$A" ksubmit --parsable -H --wrap "echo x")
err=$(as_user "$A" klog "$id2" 2>&1)
is "a pending job has no log yet" "$?:$err" \
    "1:klog: error: job has not started: it has no log yet"
as_user "$A" kcancel "$id2"

# Two tasks, two pods: --task 1 reads the second one's log.  (Every task
# runs the script and writes the same output file for now, see
# ksubmit(1), so the two logs may hold the same lines.)
# shellcheck disable=SC2016 # expanded in the job, not here
id3=$(cd "$W" && as_user "$A" ksubmit --parsable -n 2 \
    --wrap 'echo "task $SLURM_PROCID"; sleep 30')
ok "a two-task job runs" wait_state "$id3" RUNNING
id=$id3
out=$(wait_log 1 'task [01]')
like "--task 1 prints its pod's log" "$out" '^task [01]'
if [ "$STACK_API" = kubesim ]; then
	like "kaid asked for the second task's pod" \
	    "$(grep -o "/pods/kai-$id3-[0-9]*/log" "$T/kubesim.record" | sort -u | tr '\n' ' ')" \
	    "/pods/kai-$id3-1/log"
fi
as_user "$A" kcancel "$id3"

bad()
{
	local what=$1 want=$2
	shift 2
	local err rc
	err=$(as_user "$A" klog "$@" 2>&1 >/dev/null)
	rc=$?
	is "$what: exit 2" "$rc" 2
	is "$what: one line" "$(echo "$err" | wc -l)" 1
	like "$what: says why" "$err" "$want"
}
bad "no job id" '^klog: error: missing job id$'
bad "two job ids" '^klog: error: unexpected argument "2"' 1 2
bad "a bad job id" '^klog: error: invalid job id' abc
bad "a bad task" '^klog: error: invalid task "x"' --task x 1
bad "a negative task" '^klog: error: invalid task "-1"' --task=-1 1
bad "an unknown option" '^klog: error: unrecognized option "--tail"' --tail 5 1

# kaid stopping while a klog -f is open: the stream is stopped, kaid
# exits cleanly, klog says the connection broke (exit 3).
id4=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "echo started; sleep 60")
ok "a long job runs" wait_state "$id4" RUNNING
as_user "$A" klog -f "$id4" >"$T/f4.out" 2>"$T/f4.err" &
fpid=$!
for _ in $(seq 1 50); do
	grep -q started "$T/f4.out" 2>/dev/null && break
	sleep 0.1
done
is "klog -f prints the log so far" "$(cat "$T/f4.out")" "started"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
wait "$fpid"
is "klog -f: the connection broke, exit 3" "$?" 3
like "and says so" "$(cat "$T/f4.err")" '^klog: error: no reply from kaid'

done_testing
