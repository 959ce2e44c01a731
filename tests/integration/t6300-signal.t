#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6300-signal: sbatch's --signal, --open-mode, -W/--wait and
# --kill-on-invalid-dep, end to end: a job told --signal=B:USR1@58 with a
# one-minute limit gets USR1 about two seconds after its script starts
# and its trap writes to the output; without B: the script's children
# get it and the batch shell does not; no time limit, no signal;
# --open-mode=append keeps what the output file held; ksubmit -W exits
# with the job's exit code (an array's highest); a dependency that can
# never be met cancels the job with --kill-on-invalid-dep=yes; a bad
# value of each option is one line, exit 2, and nothing submitted.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t6300.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit "$@" 2>&1)
}

jobs_count()
{
	stack_psql "select count(*) from jobs"
}

# B: the batch shell traps the signal; #SBATCH carries the option.
cat >"$W/trap.sh" <<'EOS'
#!/bin/bash
#SBATCH -t 1
#SBATCH --signal=B:USR1@58
#SBATCH -o trap-%j.out
t0=$(date +%s)
echo "started"
trap 'echo "got USR1 after $(( $(date +%s) - t0 ))s"; kill $!; exit 0' USR1
sleep 30 &
wait
echo "no signal came"
EOS
# Without B: every process the script started gets it, not the shell.
cat >"$W/steps.sh" <<'EOS'
#!/bin/bash
sh -c 'trap "echo step got USR2; exit 5" USR2; sleep 30 & wait'
echo "step exit $?; the batch shell is still here"
EOS
# No time limit: no signal, whatever --signal says.
cat >"$W/nolimit.sh" <<'EOS'
#!/bin/bash
trap 'echo "got USR1"' USR1
sleep 2
echo "done without a signal"
EOS
chown "$A:" "$W"/*.sh

out=$(submit trap.sh)
like "ksubmit takes --signal in #SBATCH" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
out=$(submit -t 1 --signal=USR2@58 -o steps-%j.out steps.sh)
id2=${out##* }
out=$(submit --signal=B:USR1@60 -o nolimit-%j.out nolimit.sh)
id3=${out##* }

is "kctl show job shows the signal and the open mode" \
    "$(as_user "$A" kctl show job "$id" | grep Signal=)" \
    "   Signal=B:USR1@58 OpenMode=truncate"
ok "the trapping job completes before its limit" wait_state "$id" COMPLETED
o=$(tr '\n' ' ' <"$W/trap-$id.out" 2>/dev/null)
like "B:USR1@58 of a 1-minute limit came about 2 s in" "$o" \
    '^started got USR1 after [1-5]s $'
ok "without B: the job completes" wait_state "$id2" COMPLETED
is "the script's child got the signal, the batch shell did not" \
    "$(cat "$W/steps-$id2.out" 2>/dev/null)" \
    "step got USR2
step exit 5; the batch shell is still here"
ok "the job without a limit completes" wait_state "$id3" COMPLETED
is "no time limit: no signal" "$(cat "$W/nolimit-$id3.out" 2>/dev/null)" \
    "done without a signal"

# --open-mode: append keeps the file's lines, truncate (the default) not.
printf 'line from before\n' >"$W/log.out"
chown "$A:" "$W/log.out"
out=$(submit --open-mode=append -o log.out --wrap 'echo appended')
ok "an appending job completes" wait_state "${out##* }" COMPLETED
is "--open-mode=append kept the file's content" "$(cat "$W/log.out")" \
    "line from before
appended"
out=$(submit --open-mode=truncate -o log.out --wrap 'echo alone')
ok "a truncating job completes" wait_state "${out##* }" COMPLETED
is "--open-mode=truncate emptied it first" "$(cat "$W/log.out")" "alone"

# -W: ksubmit returns when the job has ended, with its exit code.
out=$(submit -W --wrap 'sleep 1; exit 0')
rc=$?
like "ksubmit -W prints the job id first" "$out" \
    '^Submitted batch job [0-9]+$'
is "ksubmit -W exits 0 for a job that exits 0" "$rc" 0
is "and the job has ended by then" \
    "$(stack_psql "select state from jobs where id = ${out##* }")" COMPLETED
out=$(submit --wait --wrap 'exit 3')
is "ksubmit --wait exits 3 for a job that exits 3" "$?" 3
# shellcheck disable=SC2016 # expanded in the job, not here
out=$(submit -W -a 1-3 --wrap 'exit $SLURM_ARRAY_TASK_ID')
is "an array: the highest exit code of its tasks" "$?" 3

# --kill-on-invalid-dep=yes: a dependency never met cancels the job.
out=$(submit -W --wrap 'exit 1')
bad=${out##* }
out=$(submit -d "afterok:$bad" --kill-on-invalid-dep=yes --wrap true)
k=${out##* }
ok "its dependency failed: the job is cancelled" wait_state "$k" CANCELLED
is "with the reason" \
    "$(stack_psql "select reason from jobs where id = $k")" \
    DependencyNeverSatisfied
out=$(submit -d "afterok:$bad" --kill-on-invalid-dep=no --wrap true)
k2=${out##* }
for _ in $(seq 1 50); do
	r=$(stack_psql "select state || ' ' || reason from jobs where id = $k2")
	[ "$r" = "PENDING DependencyNeverSatisfied" ] && break
	sleep 0.1
done
is "=no: it stays pending, with the reason" "$r" \
    "PENDING DependencyNeverSatisfied"
sleep 0.5
is "(and still pending a few ticks later)" \
    "$(stack_psql "select state from jobs where id = $k2")" PENDING
as_user "$A" kcancel "$k2" >/dev/null 2>&1

# Bad values: one line, exit 2, nothing submitted.
n0=$(jobs_count)
bad_value()
{
	local what=$1 want=$2
	shift 2
	out=$(submit "$@" --wrap true)
	rc=$?
	is "$what: exit 2" "$rc" 2
	is "$what: one line" "$out" "$want"
}
bad_value "--signal=FOO" \
    'ksubmit: error: invalid signal "FOO": unrecognized signal' --signal=FOO
bad_value "--signal=USR1@99999" \
    'ksubmit: error: invalid signal "USR1@99999": the time after "@" must be 0 to 65535 seconds' \
    --signal=USR1@99999
bad_value "--open-mode=x" \
    'ksubmit: error: invalid open mode "x": must be append or truncate' \
    --open-mode=x
bad_value "--kill-on-invalid-dep=maybe" \
    'ksubmit: error: invalid kill-on-invalid-dep "maybe": must be yes or no' \
    --kill-on-invalid-dep=maybe
out=$(submit --wait=1 --wrap true)
is "--wait takes no value: exit 2" "$?" 2
is "nothing was submitted" "$(jobs_count)" "$n0"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
