#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3300-db-outage: PostgreSQL stops while a job runs, and the job ends
# during the outage.  kaid keeps what it learnt with its time and records
# it once the database is back: the job is COMPLETED with its true end
# time, without a restart of kaid.  (It used to stay RUNNING until kaid
# was restarted, and then ended at the restart's time.)

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t3300.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
chmod 755 "$T"
mkdir -p "$T/$A" && chown "$A:" "$T/$A"
printf '#!/bin/sh\nsleep 3\n' >"$T/$A/job.sh"
chown "$A:" "$T/$A/job.sh"
kaid_pid=$(cat "$T/kaid.pid")

id=$(cd "$T/$A" && as_user "$A" ksubmit --parsable job.sh)
ok "the job runs" wait_state "$id" RUNNING

pg_stop "$T/pg"
ok "the database is down" test ! -S "$T/pg/.s.PGSQL.5432"

# pod_phase_after_end ID: the phase of job ID's pod once it is
# Succeeded, or the last seen after 10 s.
pod_phase_after_end()
{
	local phase=
	for _ in $(seq 1 100); do
		phase=$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$1-0" |
		    python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["phase"])')
		[ "$phase" = Succeeded ] && break
		sleep 0.1
	done
	echo "$phase"
}

# pod_finished_at ID: when job ID's container finished (its pod's
# finishedAt), in seconds since the epoch; the time the job's end_time
# must carry, however late the test itself saw the pod end.
pod_finished_at()
{
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$1-0" |
	    python3 -c 'import calendar, json, sys, time
c = json.load(sys.stdin)["status"]["containerStatuses"][0]
f = c["state"]["terminated"]["finishedAt"]
print(calendar.timegm(time.strptime(f, "%Y-%m-%dT%H:%M:%SZ")))'
}

# The pod ends while the database is down; note when its container did.
phase=$(pod_phase_after_end "$id")
ended=$(pod_finished_at "$id")
is "the pod ended during the outage" "$phase" Succeeded
sleep 8		# an outage of about ten seconds, as in the report
ok "kaid is still up" kill -0 "$kaid_pid"
like "kaid kept the change to record later" "$(cat "$T/kaid.log")" \
    "job $id: COMPLETED at [0-9]+ kept to be recorded"

ok "the database is back" pg_restart "$T/pg"
ok "the job is COMPLETED without a restart of kaid" wait_state "$id" COMPLETED 150
end=$(stack_psql "select end_time from jobs where id = $id")
diff=$((ended - end))
diag "container finished at $ended, end_time recorded $end"
ok "its end time is when it ended, not when the database came back" \
    test "$diff" -ge -1 -a "$diff" -le 1
is "the end has its event row at that time" \
    "$(stack_psql "select time from events where job_id = $id and to_state = 'COMPLETED'")" "$end"
is "the same kaid" "$(cat "$T/kaid.pid")" "$kaid_pid"
for _ in $(seq 1 50); do
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0" |
	    grep -q '"code": *404' && break
	sleep 0.1
done
like "and its pod is deleted once the end is recorded" \
    "$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0")" '"code": *404'

# The database is usable again for everything else.
id2=$(cd "$T/$A" && as_user "$A" ksubmit --parsable job.sh)
ok "a new job is accepted and runs" wait_state "$id2" RUNNING

# Again, but kaid is killed while the database is down and the change
# waits in its memory.
pg_stop "$T/pg"
phase=$(pod_phase_after_end "$id2")
ended=$(pod_finished_at "$id2")
is "the second pod ended during the outage" "$phase" Succeeded
sleep 2
kaid_kill9
sleep 3
ok "the database is back" pg_restart "$T/pg"
ok "kaid starts again" kaid_start
ok "the job is COMPLETED after the restart" wait_state "$id2" COMPLETED 150
end=$(stack_psql "select end_time from jobs where id = $id2")
diff=$((ended - end))
diag "container finished at $ended, end_time recorded $end"
ok "its end time is its container's end, not the restart's" \
    test "$diff" -ge -1 -a "$diff" -le 1

# A start kaid never recorded (the RUNNING change died queued in a kaid
# killed while the database was down, made here by undoing it in the
# database): the restarted kaid records the container's startedAt, not
# its own start.
printf '#!/bin/sh\nsleep 30\n' >"$T/$A/long.sh"
chown "$A:" "$T/$A/long.sh"
id3=$(cd "$T/$A" && as_user "$A" ksubmit --parsable long.sh)
ok "a long job runs" wait_state "$id3" RUNNING
began=$(stack_psql "select start_time from jobs where id = $id3")
kaid_kill9
stack_psql "update jobs set state = 'CONFIGURING', start_time = 0 where id = $id3" >/dev/null
sleep 4
ok "kaid starts again" kaid_start
ok "the job is RUNNING again" wait_state "$id3" RUNNING
start=$(stack_psql "select start_time from jobs where id = $id3")
diag "first recorded start $began, recorded after the restart $start"
ok "its start time is its container's start, not the restart's" \
    test "$((start - began))" -ge -1 -a "$((start - began))" -le 1
as_user "$A" kcancel "$id3"

done_testing
