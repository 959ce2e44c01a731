#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6100-deps: job dependencies.  An afterok chain runs in order, each job
# pending with reason Dependency until the one before it completed; an
# afterok on an array waits for every task; afternotok on a job that
# succeeded, or afterok on one that failed, stays pending with
# DependencyNeverSatisfied; "?" needs one item only; singleton waits for
# the user's earlier job of the same name, and not for another user's; a
# dependency on a job that does not exist is refused with one line, exit
# 1, and nothing written.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chmod 777 "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

# wait_q JOBID REGEX: polls kqueue until the job's line matches.
wait_q()
{
	local out
	for _ in $(seq 1 150); do
		out=$(as_user "$A" kqueue --noheader -j "$1")
		printf '%s' "$out" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$out"
}

col()
{
	stack_psql "select $2 from jobs where id = $1"
}

cat >"$W/ok.sh" <<'EOS'
#!/bin/sh
sleep 2
EOS
cat >"$W/fail.sh" <<'EOS'
#!/bin/sh
exit 3
EOS
cat >"$W/quick.sh" <<'EOS'
#!/bin/sh
true
EOS
chmod 755 "$W"/*.sh

# --- An afterok chain runs in order.
j1=$(submit -J chain ok.sh)
j2=$(submit -J chain2 --dependency=afterok:"$j1" ok.sh)
j3=$(submit -J chain3 -d afterok:"$j2" quick.sh)
like "the second job pends with reason Dependency" \
    "$(wait_q "$j2" '\(Dependency\)')" "^ *$j2 .* PD .*\(Dependency\)$"
is "kqueue %E: what it waits for, as squeue shows it" \
    "$(as_user "$A" kqueue -h -j "$j2" -o %E)" "afterok:$j1(unfulfilled)"
is "%E of a job without a dependency: (null)" \
    "$(as_user "$A" kqueue -h -j "$j1" -o %E)" "(null)"
ok "the chain's last job completes" wait_state "$j3" COMPLETED 400
is "each job started after the one before it ended" \
    "$(stack_psql "select (select start_time from jobs where id = $j2) >=
        (select end_time from jobs where id = $j1) and
        (select start_time from jobs where id = $j3) >=
        (select end_time from jobs where id = $j2)")" t
is "all three completed" \
    "$(col "$j1" state) $(col "$j2" state) $(col "$j3" state)" \
    "COMPLETED COMPLETED COMPLETED"

# --- afterok on an array waits for every task.
a=$(submit --array=1-3 quick.sh)
d=$(submit -d afterok:"$a" quick.sh)
ok "the dependent job completes" wait_state "$d" COMPLETED 400
is "after every task of the array" \
    "$(stack_psql "select count(*) from jobs where array_job_id = $a and
        end_time <= (select start_time from jobs where id = $d)
        and state = 'COMPLETED'")" 3

# --- Dependencies that can never be satisfied.
f=$(submit fail.sh)
ok "a failing job fails" wait_state "$f" FAILED
n1=$(submit -d afternotok:"$j1" quick.sh)
like "afternotok on a job that completed: DependencyNeverSatisfied" \
    "$(wait_q "$n1" 'DependencyNeverSatisfied')" \
    "^ *$n1 .* PD .*\(DependencyNeverSatisfied\)$"
n2=$(submit -d afterok:"$f" quick.sh)
like "afterok on a job that failed: DependencyNeverSatisfied" \
    "$(wait_q "$n2" 'DependencyNeverSatisfied')" \
    "^ *$n2 .* PD .*\(DependencyNeverSatisfied\)$"
sleep 1
is "both stay pending" "$(col "$n1" state) $(col "$n2" state)" \
    "PENDING PENDING"
is "the reason is stored" "$(col "$n2" reason)" DependencyNeverSatisfied
is "%E: the item that can never be met, failed" \
    "$(as_user "$A" kqueue -h -j "$n2" -o %E)" "afterok:$f(failed)"
n5=$(submit -d "afterany:$j1,afterok:$f" quick.sh)
like "of two items, the met one is left out" \
    "$(wait_q "$n5" 'DependencyNeverSatisfied'; as_user "$A" kqueue -h -j "$n5" -o %E)" \
    "afterok:$f\\(failed\\)$"
as_user "$A" kcancel "$n5"
n3=$(submit -d afternotok:"$f" quick.sh)
ok "afternotok on a job that failed runs" wait_state "$n3" COMPLETED
n4=$(submit -d "afterok:$f?afterany:$j1" quick.sh)
ok "\"?\": one satisfied item is enough" wait_state "$n4" COMPLETED
as_user "$A" kcancel "$n1" "$n2"

# --- singleton: one job of a name and user at a time.
s1=$(submit -J solo ok.sh)
s2=$(submit -J solo -d singleton quick.sh)
s3=$(cd "$W" && as_user "$B" ksubmit --parsable -J solo -d singleton quick.sh)
like "the second job of the name waits" "$(wait_q "$s2" '\(Dependency\)')" \
    "^ *$s2 .* PD .*\(Dependency\)$"
ok "bob's job of the same name does not wait for alice's" \
    wait_state "$s3" COMPLETED
is "alice's first is still running or completing" \
    "$(stack_psql "select state <> 'PENDING' from jobs where id = $s1")" t
ok "the singleton runs once the first has ended" wait_state "$s2" COMPLETED 400
is "and only then" "$(stack_psql "select (select start_time from jobs
    where id = $s2) >= (select end_time from jobs where id = $s1)")" t

# --- A dependency on a job that does not exist.
before=$(stack_psql "select count(*) from jobs")
out=$(cd "$W" && as_user "$A" ksubmit -d afterok:999999 quick.sh 2>&1)
rc=$?
is "refused with exit 1" "$rc" 1
is "and one line naming the job" "$out" \
    "ksubmit: error: job dependency problem: job 999999 does not exist"
is "nothing was written" "$(stack_psql "select count(*) from jobs")" "$before"
out=$(cd "$W" && as_user "$A" ksubmit -d afterok:"$j1",after:999998 \
    quick.sh 2>&1)
like "one missing job among existing ones is refused too" "$?:$out" \
    "^1:ksubmit: error: job dependency problem: job 999998 does not exist$"
out=$(cd "$W" && as_user "$A" ksubmit -d aftercorr:"$j1" quick.sh 2>&1)
like "aftercorr is refused by name" "$?:$out" \
    '^[12]:ksubmit: error: invalid dependency "aftercorr:[0-9]+": aftercorr is not supported$'

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
