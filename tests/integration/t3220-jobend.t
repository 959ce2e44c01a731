#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3220-jobend: a job ends as Slurm ends it (pod/wrapper.sh): at its time
# limit and on kcancel, Slurm's "*** JOB N ON host CANCELLED AT time
# [DUE TO TIME LIMIT] ***" line in its output, SIGTERM to the script and
# its processes (a TERM trap can write a checkpoint), SIGKILL
# jobs.kill_wait later; TIMEOUT with ExitCode 0:0.  The pod's grace is
# the KillWait, and its deadline comes after the wrapper's own alarm.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t3220.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA='jobs:
  kill_wait: 3s'
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}
acct()
{
	as_user "$A" kacct -j "$1" -P -n --format=State,ExitCode
}

cat >"$W/ckpt.sh" <<'EOS'
#!/bin/sh
trap 'echo "checkpoint written"; exit 0' TERM
echo started
sleep 600 &
wait $!
echo "not signalled"
EOS
cat >"$W/stubborn.sh" <<'EOS'
#!/bin/sh
trap 'echo "ignoring TERM"' TERM
echo started
i=0; while [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done
echo "outlived the kill"
EOS
chmod 755 "$W"/*.sh
chown "$A:" "$W"/*.sh

# --- kcancel
id=$(submit -o "c-%j.out" ckpt.sh)
ok "a job with a TERM trap runs" wait_state "$id" RUNNING
stack_wait_file "$W/c-$id.out" 200
pod=$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0")
like "its pod's grace is jobs.kill_wait" "$pod" \
    '"terminationGracePeriodSeconds": *3[,}]'
as_user "$A" kcancel "$id"
ok "kcancel makes it CANCELLED" wait_state "$id" CANCELLED
for i in $(seq 1 50); do
	grep -q "checkpoint written" "$W/c-$id.out" 2>/dev/null && break
	sleep 0.1
done
out=$(cat "$W/c-$id.out")
like "Slurm's CANCELLED line is in its output" "$out" \
    "slurmstepd: error: \*\*\* JOB $id ON kai-$id-0 CANCELLED AT [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} \*\*\*"
unlike "not as a time limit" "$out" "TIME LIMIT"
like "the script's TERM trap ran (a checkpoint)" "$out" "checkpoint written"

# --- the time limit (a minute: the shortest limit there is)
id=$(submit -t 1 -o "t-%j.out" ckpt.sh)
ok "a job with a one-minute limit runs" wait_state "$id" RUNNING
like "its pod's deadline is after the wrapper's alarm (limit + KillWait + 10 s)" \
    "$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0")" \
    '"activeDeadlineSeconds": *73[,}]'
id2=$(submit -t 1 -o "s-%j.out" stubborn.sh)
(cd "$W" && as_user "$A" ksubmit -W -t 1 -o /dev/null ckpt.sh >/dev/null 2>&1
 echo $? >"$T/wait.rc") &
wpid=$!
ok "the time limit makes it TIMEOUT" wait_state "$id" TIMEOUT 1200
is "with ExitCode 0:0, as Slurm shows it" "$(acct "$id")" "TIMEOUT|0:0"
out=$(cat "$W/t-$id.out")
like "Slurm's time-limit line is in its output" "$out" \
    "slurmstepd: error: \*\*\* JOB $id ON kai-$id-0 CANCELLED AT [0-9T:-]{19} DUE TO TIME LIMIT \*\*\*"
like "the script's TERM trap ran (a checkpoint)" "$out" "checkpoint written"

ok "a script that ignores SIGTERM is TIMEOUT too" wait_state "$id2" TIMEOUT 600
wait "$wpid"
is "ksubmit -W exits 1 for a TIMEOUT, as sbatch does" "$(cat "$T/wait.rc")" 1
out=$(cat "$W/s-$id2.out")
like "it was told" "$out" "ignoring TERM"
unlike "and killed" "$out" "outlived the kill"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
