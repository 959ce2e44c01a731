#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6400-umask: the submitter's umask, kept as sbatch keeps it: ksubmit
# sends the umask it runs with, the job finds it in SLURM_UMASK and
# KAI_UMASK (four octal digits) and runs with it (its files' modes),
# kctl show job prints it, and the tasks
# of an array inherit it.  A job whose umask is not known (a row from
# before the column) gets neither variable and no Umask line.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t6400.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# submit UMASK ARGS...: ksubmit run by alice with that umask.
submit()
{
	local m=$1
	shift
	(cd "$W" && umask "$m" && as_user "$A" ksubmit "$@" 2>&1)
}

cat >"$W/umask.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
echo "SLURM_UMASK=${SLURM_UMASK-unset} KAI_UMASK=${KAI_UMASK-unset}" \
    >"$SLURM_SUBMIT_DIR/umask-$SLURM_JOB_ID.txt"
EOS
chown "$A:" "$W/umask.sh"

out=$(submit 027 umask.sh)
like "ksubmit with umask 027" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
out=$(submit 002 umask.sh)
id2=${out##* }

is "kctl show job prints the umask" \
    "$(as_user "$A" kctl show job "$id" | grep Umask=)" "   Umask=0027"
ok "the job completes" wait_state "$id" COMPLETED
is "the job finds its submitter's umask" "$(cat "$W/umask-$id.txt")" \
    "SLURM_UMASK=0027 KAI_UMASK=0027"
ok "the second job completes" wait_state "$id2" COMPLETED
is "each job its own" "$(cat "$W/umask-$id2.txt")" \
    "SLURM_UMASK=0002 KAI_UMASK=0002"
is "the job runs with it: umask 027 makes its output and files 640" \
    "$(stat -c %a "$W/slurm-$id.out" "$W/umask-$id.txt" | tr '\n' ' ')" \
    "640 640 "
is "and umask 002 makes them 664" \
    "$(stat -c %a "$W/slurm-$id2.out" "$W/umask-$id2.txt" | tr '\n' ' ')" \
    "664 664 "
is "the column holds 01000 plus the umask" \
    "$(stack_psql "select umask from jobs where id = $id")" "535"

# An array: every task is a copy of the submitted row.
out=$(submit 077 -a 1-2 umask.sh)
aid=${out##* }
like "ksubmit -a 1-2" "$out" '^Submitted batch job [0-9]+$'
# Each task writes umask-<its own id>.txt; wait for both (60 s at most).
n=0
for _ in $(seq 600); do
	n=$(cat "$W"/umask-*.txt 2>/dev/null |
	    grep -cx "SLURM_UMASK=0077 KAI_UMASK=0077")
	[ "$n" -ge 2 ] && break
	sleep 0.1
done
is "both array tasks find the umask" "$n" 2

# Not known: what a row from before sql/010 holds.
out=$(submit 027 -H umask.sh)
id3=${out##* }
stack_psql "update jobs set umask = 0 where id = $id3" >/dev/null
is "kctl show job: no Umask line when it is not known" \
    "$(as_user "$A" kctl show job "$id3" | grep -c Umask=)" 0
as_user "$A" kctl release "$id3"
ok "the job of unknown umask completes" wait_state "$id3" COMPLETED
is "and finds neither variable" "$(cat "$W/umask-$id3.txt")" \
    "SLURM_UMASK=unset KAI_UMASK=unset"
is "it runs with umask 022" "$(stat -c %a "$W/umask-$id3.txt")" 644

done_testing
