#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6710-node-ksrun: interactive sessions in real pods (node tier only):
# the job's `kaistep pty-serve` comes from the helpers ConfigMap (the
# wrapper unpacks it into PATH) and authenticates with the key kaid put
# in the job's Secret, so nothing of the test stands in for the kubelet
# here (t6700 checks the rest on kubesim).  `ksrun --pty sh` from a
# pseudo-terminal runs commands in the container on its terminal, with
# this window's size, and returns the shell's status; `ksrun hostname`
# prints the pod's name; the job ends with the session; Ctrl-C twice
# without --pty reaches the command as SIGINT.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs the session in real containers (KAI_STACK_API=node)"
stack_require
step=$STACK_BIN/pod/kaistep
[ -x "$step" ] || skip_all "pod/kaistep not built (configure: no static libraries)"
drive=$top_srcdir/tests/tools/pty-drive.py

T=$(mktemp -d /tmp/kai-t6710.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
chmod 755 "$T"

printf '%s\n' 'expect \$ ' 'send echo in-$SLURM_JOB_ID\r' 'expect in-[0-9]+' \
    'send stty size\r' 'expect 24 80' 'send exit 3\r' >"$W/sh.steps"
chmod 644 "$W/sh.steps"
out=$(cd "$W" && PTY_LOG=$W/sh.log as_user "$A" env PS1='$ ' python3 \
    "$drive" "$W/sh.steps" -- ksrun --pty -t 5 sh 2>&1)
id=$(stack_psql "select max(id) from jobs")
like "ksrun --pty sh in a real pod: the shell runs what is typed" "$out" \
    "seen: in-"
like "... on a terminal of this window's size" "$out" "seen: 24 80"
like "... and ksrun exits with the shell's status" "$out" "exit 3$"
ok "... and the job ends" wait_state "$id" FAILED 600
# Its standard output: srun's "queued and waiting for resources" lines
# go to standard error when the pod is not up at once.
out=$(cd "$W" && as_user "$A" ksrun -t 5 hostname 2>"$T/hostname.err")
id=$(stack_psql "select max(id) from jobs")
is "ksrun hostname prints the pod's name" "$out" "kai-$id-0"

# Ctrl-C twice within a second without --pty: SIGINT reaches the
# command in its container (its INT trap runs) and its status is ksrun's.
(cd "$W" && as_user "$A" ksrun -t 5 sh -c 'trap "echo got-int; exit 6" INT;
    echo armed; while :; do sleep 0.1; done' >"$W/int.out" 2>"$W/int.err"
    echo "rc=$?" >>"$W/int.out") &
for _ in $(seq 1 1200); do
	grep -q armed "$W/int.out" 2>/dev/null && break
	sleep 0.1
done
kpid=$(pgrep -u "$A" -n -x ksrun)
kill -INT "$kpid"
sleep 0.2
kill -INT "$kpid"
for _ in $(seq 1 300); do
	grep -q 'rc=' "$W/int.out" && break
	sleep 0.1
done
like "Ctrl-C twice: SIGINT to the command in the container" \
    "$(cat "$W/int.out")" "got-int"
like "... and its status is ksrun's" "$(cat "$W/int.out")" "rc=6$"

done_testing
