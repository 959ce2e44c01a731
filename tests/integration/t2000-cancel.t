#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t2000-cancel: owners cancel their own jobs, nobody else can, and users
# see only their own jobs in kacct; kcancel -u ends all and only the
# user's jobs, running ones (pods deleted) and pending ones alike.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t2000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
for u in "$A" "$B"; do
	mkdir -p "$T/work-$u" && chown "$u:" "$T/work-$u"
done

submit()
{
	local u=$1
	shift
	(cd "$T/work-$u" && as_user "$u" ksubmit --parsable "$@")
}

# A running job and a held one for alice.
run=$(submit "$A" --wrap "sleep 300")
held=$(submit "$A" -H --wrap "echo never")
like "alice's running job submitted" "$run" '^[0-9]+$'
ok "alice's job runs" wait_state "$run" RUNNING
q=$(as_user "$A" kqueue -j "$held" --noheader)
like "held job pending with reason JobHeldUser" "$q" "PD .*\(JobHeldUser\)"

out=$(as_user "$B" kcancel "$run" 2>&1)
rc=$?
is "bob cannot cancel alice's job: exit 1" "$rc" 1
like "bob is told permission denied" "$out" \
    "^kcancel: error: .*$run.*permission denied"
is "alice's job is untouched" "$(stack_psql "select state from jobs where id = $run")" RUNNING
n=$(stack_psql "select count(*) from events where job_id = $run and to_state = 'CANCELLED'")
is "no cancel event was written" "$n" 0

out=$(as_user "$A" kcancel "$run" 2>&1)
is "alice cancels her running job" "$?:$out" "0:"
ok "job is CANCELLED" wait_state "$run" CANCELLED
a=$(as_user "$A" kacct -j "$run" -P -n --format=JobID,State,ExitCode)
is "kacct shows CANCELLED and the signal" "$a" "$run|CANCELLED|0:15"
for _ in $(seq 1 50); do
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$run-0" |
	    grep -q '"code": *404' && break
	sleep 0.1
done
like "the pod is deleted" "$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$run-0")" '"code": *404'

out=$(as_user "$A" kcancel -u "$A" 2>&1)
is "kcancel -u cancels the held job" "$?" 0
ok "held job is CANCELLED" wait_state "$held" CANCELLED

out=$(as_user "$A" kcancel 999999 2>&1)
is "cancelling an unknown job exits 0 and says nothing, as scancel" "$?:$out" "0:"
out=$(as_user "$A" kcancel "$held" 2>&1)
is "cancelling a job that has finished: exit 0, silent" "$?:$out" "0:"
out=$(as_user "$A" kcancel -v 999999 2>&1)
is "with -v it says why, still exit 0" "$?" 0
like "naming the job" "$out" "Kill job error on job id 999999"

bobjob=$(submit "$B" --wrap "true")
ok "bob's job completes" wait_state "$bobjob" COMPLETED
mine=$(as_user "$B" kacct -a -S 2000-01-01 -n -P --format=JobID,User | cut -d'|' -f2 | sort -u)
is "bob sees only his own jobs in kacct, even with -a" "$mine" "$B"
all=$(kacct -a -S 2000-01-01 -n -P --format=User | sort -u | tr '\n' ' ')
is "root (an operator) sees everybody's" "$all" "$A $B "

# Many jobs at once: kqueue's answer spans frames and batches, kcancel -u
# takes them all.
(cd "$T/work-$B" && seq 1 600 | as_user "$B" xargs -P 4 -n 150 \
    sh -c 'for i; do ksubmit -H --parsable --wrap true >/dev/null || exit 1; done' sh)
is "kqueue lists bob's 600 held jobs" \
    "$(as_user "$B" kqueue --noheader -u "$B" -t PD | wc -l)" 600
is "each once" \
    "$(as_user "$B" kqueue --noheader -u "$B" -o %i | sort -u | wc -l)" 600
as_user "$B" kcancel -u "$B"
is "kcancel -u cancels them all" \
    "$(as_user "$B" kqueue --noheader -u "$B" | wc -l)" 0
is "in one go: every one CANCELLED with its event row" \
    "$(stack_psql "select count(*) from events e join jobs j on j.id = e.job_id where j.uid = $(id -u "$B") and e.to_state = 'CANCELLED'")" 600
# A job named twice is cancelled once.
d=$(submit "$B" -H --wrap true)
out=$(as_user "$B" kcancel "$d" "$d" 2>&1)
is "kcancel N N: exit 0, silent" "$?:$out" "0:"
is "one CANCELLED event for it" \
    "$(stack_psql "select count(*) from events where job_id = $d and to_state = 'CANCELLED'")" 1

# kcancel -u over a running job and held ones: all and only that user's
# jobs end, each with its event row (RUNNING -> CANCELLED for the running
# one, which keeps its start time and gets signal 15), the pod is
# deleted, the other user's job stays pending.
r2=$(submit "$A" --wrap "sleep 300")
ok "alice's second running job runs" wait_state "$r2" RUNNING
h=()
for _ in 1 2 3; do h+=("$(submit "$A" -H --wrap true)"); done
bh=$(submit "$B" -H --wrap true)
s0=$(stack_psql "select start_time from jobs where id = $r2")
out=$(as_user "$A" kcancel -v -u "$A" 2>&1)
is "kcancel -v -u: exit 0" "$?" 0
is "-v reports each job cancelled" \
    "$(printf '%s\n' "$out" | sed -n 's/^kcancel: Terminating job //p' | sort -n | tr '\n' ' ')" \
    "$(printf '%s\n' "$r2" "${h[@]}" | sort -n | tr '\n' ' ')"
is "alice's four jobs are CANCELLED" \
    "$(stack_psql "select count(*) from jobs where id in ($r2, ${h[0]}, ${h[1]}, ${h[2]}) and state = 'CANCELLED'")" 4
is "their events: RUNNING and PENDING to CANCELLED, alice the actor" \
    "$(stack_psql "select string_agg(e.from_state || '>' || e.to_state || ':' || e.actor_uid, ' ' order by e.job_id) from events e where e.job_id in ($r2, ${h[0]}, ${h[1]}, ${h[2]}) and e.to_state = 'CANCELLED'")" \
    "RUNNING>CANCELLED:$(id -u "$A") PENDING>CANCELLED:$(id -u "$A") PENDING>CANCELLED:$(id -u "$A") PENDING>CANCELLED:$(id -u "$A")"
is "the running one keeps its start time, ends with signal 15" \
    "$(stack_psql "select start_time = $s0, end_time >= start_time, exit_signal from jobs where id = $r2")" "t|t|15"
is "a held one never started: start_time 0, no signal" \
    "$(stack_psql "select start_time, end_time > 0, exit_signal from jobs where id = ${h[0]}")" "0|t|0"
for _ in $(seq 1 100); do
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$r2-0" | grep -q '"code": *404' && break
	sleep 0.1
done
like "its pod is deleted" "$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$r2-0")" '"code": *404'
is "bob's job is untouched" "$(stack_psql "select state from jobs where id = $bh")" PENDING

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
