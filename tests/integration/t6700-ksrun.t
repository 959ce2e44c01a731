#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6700-ksrun: interactive sessions relayed through kaid (ksrun(1),
# ksalloc(1), ksattach(1)), driven from a pseudo-terminal as a user types
# (tests/tools/pty-drive.py).  kubesim's pods are processes on this host
# that get their volumes (the job's key, the helpers ConfigMap with
# kaistep), as real pods do.  Checked: `ksrun --pty bash` runs commands, reports and follows
# the window size, passes Ctrl-C as the terminal's SIGINT, returns the
# shell's exit status and ends the job; `ksrun CMD` streams stdout and
# stderr apart and returns CMD's status, and takes Ctrl-C as srun does
# (the task's state, then SIGINT to CMD); ksalloc gives a shell in the
# job; ksattach joins a job's terminal, sees its earlier output and
# types to it; the refusals (a second client, another user, an ended
# job, a bad id) are one line each.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers kubesim -- "kubesim's pods get their volumes here; t6710 is the node tier's"
stack_require
stack_require_kubesim
step=$STACK_BIN/pod/kaistep
[ -x "$step" ] || skip_all "pod/kaistep not built (configure: no static libraries)"
drive=$top_srcdir/tests/tools/pty-drive.py

T=$(mktemp -d /tmp/kai-t6700.XXXXXX)
chmod 755 "$T"
trap 'stack_stop "$T"; [ -n "$KEEP" ] || rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KUBESIM_VOLUMES=1 KAID_POD_HELPERS=configmap \
    KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" ||
    bail_out "could not start the stack"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# as_alice CMD...: CMD as alice in her directory.
as_alice()
{
	(cd "$W" && as_user "$A" "$@")
}
# steps FILE LINE...: a pty-drive.py step file.
steps()
{
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
	chmod 644 "$f"
}
last_job() { stack_psql "select max(id) from jobs"; }

# ksrun --pty bash: a shell on the job's terminal.
steps "$T/bash.steps" \
    'expect kai\$ ' \
    'send echo hello-$((6*7))\r' 'expect hello-42' \
    'send stty size\r' 'expect 24 80' \
    'winsize 40 120' 'sleep 0.5' \
    'send stty size\r' 'expect 40 120' \
    'send echo job=$SLURM_JOB_ID tty=$(tty)\r' 'expect job=[0-9]+ tty=/dev/pts/' \
    'send sleep 100\r' 'sleep 1' 'send \x03' \
    'send echo interrupted=$?\r' 'expect interrupted=130' \
    'send exit 7\r'
out=$(PTY_LOG=$W/bash.log as_alice env PS1='kai$ ' python3 "$drive" \
    "$T/bash.steps" -- ksrun -t 5 -J term --pty bash --norc --noprofile \
    2>&1)
id=$(last_job)
like "ksrun --pty bash: the shell runs what is typed" "$out" "seen: hello-42"
like "... stty size is the terminal's" "$out" "seen: 24 80"
like "... and follows it when the window changes (SIGWINCH)" "$out" "seen: 40 120"
like "... the shell is in the job, on a terminal" "$out" "seen: job="
like "... Ctrl-C interrupts the command, not the session" "$out" \
    "seen: interrupted=130"
unlike "... nothing was missed" "$out" "missing:"
like "... ksrun exits with the shell's status" "$out" "exit 7$"
ok "... and the job ends when the shell exits" wait_state "$id" FAILED
is "... with the shell's exit code" \
    "$(stack_psql "select exit_code from jobs where id = $id")" 7

# ksrun CMD: the output streams, apart, and the status.
out=$(as_alice ksrun -t 2 sh -c 'echo to-out; echo to-err >&2; exit 3' \
    2>"$T/err")
rc=$?
is "ksrun CMD: stdout is CMD's" "$out" "to-out"
# (less srun's "queued" lines, which depend on how fast the job starts)
is "... stderr is CMD's, apart" \
    "$(grep -v 'queued and waiting\|allocated resources' "$T/err")" "to-err"
is "... and ksrun exits with CMD's status" "$rc" 3
is "ksrun hostname (a pod is a process here)" "$(as_alice ksrun hostname)" \
    "$(hostname)"
out=$(as_alice ksrun -n 2 -t 2 sh -c 'echo task-$SLURM_PROCID')
nid=$(last_job)
is "ksrun -n 2: the command runs once, in task 0" "$out" "task-0"
ok "... and the job ends with it" wait_state "$nid" COMPLETED
# srun's steps: their output comes through the session (srun copies
# the tasks' spool file to its own output), none left behind.
is "ksrun -n 2: srun in the command runs a step on both pods, its output here" \
    "$(as_alice ksrun -n 2 -t 2 sh -c 'srun -l echo hi' | sort)" "0: hi
1: hi"
is "... and srun's spool file is gone" \
    "$(find "$W" -name '.kaistep-srun.*' | wc -l)" 0
is "... stdin reaches the command" \
    "$(echo typed | as_alice ksrun -t 2 cat)" "typed"

# kcancel of a session: the command gets SIGTERM (its TERM trap runs, its
# output still comes back) and its status is ksrun's.
(as_alice ksrun -t 2 sh -c 'trap "echo got-term; exit 5" TERM; echo armed;
    while :; do sleep 0.1; done' >"$W/term.out" 2>&1; echo "rc=$?" >>"$W/term.out") &
wait_for 60 grep -qs armed "$W/term.out"
tid=$(last_job)
as_alice kcancel "$tid"
wait_for 60 grep -qs 'rc=' "$W/term.out"
out=$(cat "$W/term.out")
like "kcancel: the command's TERM trap runs, its output comes back" "$out" \
    "got-term"
like "... and its status is ksrun's" "$out" "rc=5$"

# Ctrl-C without --pty, as srun takes it: the first says the task's
# state and the command runs on; a second within a second sends it
# SIGINT (its INT trap runs) and its status is ksrun's.
(as_alice ksrun -t 2 sh -c 'trap "echo got-int; exit 6" INT; echo armed;
    while :; do sleep 0.1; done' >"$W/int.out" 2>"$W/int.err"
    echo "rc=$?" >>"$W/int.out") &
wait_for 60 grep -qs armed "$W/int.out"
iid=$(last_job)
kpid=$(pgrep -u "$A" -n -x ksrun)
kill -INT "$kpid"
wait_for 60 grep -qs 'running' "$W/int.err"
like "Ctrl-C once: srun's question" "$(cat "$W/int.err")" \
    "ksrun: interrupt \\(one more within 1 sec to abort\\)"
like "... and the task's state" "$(cat "$W/int.err")" \
    "ksrun: StepId=$iid.0 task 0: running"
sleep 1.2
unlike "... the command runs on" "$(cat "$W/int.out")" "got-int|rc="
kill -INT "$kpid"
sleep 0.2
kill -INT "$kpid"
wait_for 60 grep -qs 'rc=' "$W/int.out"
like "Ctrl-C twice within a second: SIGINT to the command" \
    "$(cat "$W/int.err")" "ksrun: sending Ctrl-C to StepId=$iid.0"
like "... its INT trap runs" "$(cat "$W/int.out")" "got-int"
like "... and its status is ksrun's" "$(cat "$W/int.out")" "rc=6$"

# --quit-on-interrupt: the first Ctrl-C sends SIGINT; a command that
# does not trap it dies of it (130).
(as_alice ksrun --quit-on-interrupt -t 2 sh -c 'echo armed; sleep 300' \
    >"$W/quit.out" 2>"$W/quit.err"; echo "rc=$?" >>"$W/quit.out") &
wait_for 60 grep -qs armed "$W/quit.out"
kill -INT "$(pgrep -u "$A" -n -x ksrun)"
wait_for 60 grep -qs 'rc=' "$W/quit.out"
like "--quit-on-interrupt: one Ctrl-C ends the command" \
    "$(cat "$W/quit.out")" "rc=130$"
unlike "... without the question" "$(cat "$W/quit.err")" "one more within"

# The client goes (SIGKILL: no goodbye): the command is hung up and the
# job ends, releasing its allocation.
as_alice ksrun -t 2 sleep 300 >/dev/null 2>&1 &
sleep 1
gid=$(last_job)
wait_for 60 grep -qs "action=pty-serve job=$gid" "$T/kaid.log"
kpid=$(pgrep -u "$A" -f '^ksrun -t 2 sleep 300$')
like "... (ksrun found)" "$kpid" '^[0-9]+$'
kill -KILL $kpid
ok "a client killed outright: the job ends" wait_state "$gid" FAILED
is "... its command was hung up (SIGHUP: ExitCode 0:1)" "$(stack_psql \
    "select exit_code || ':' || exit_signal from jobs where id = $gid")" 0:1

# ksalloc: a shell in a new allocation.
steps "$T/alloc.steps" \
    'expect Pending job allocation [0-9]+' \
    'expect Granted job allocation [0-9]+' 'expect kai\$ ' \
    'send echo in=$SLURM_JOB_ID\r' 'expect in=[0-9]+' \
    'send exit\r' 'expect Relinquishing job allocation'
out=$(PTY_LOG=$W/alloc.log as_alice env PS1='kai$ ' SHELL=/bin/sh python3 \
    "$drive" "$T/alloc.steps" -- ksalloc -t 2 2>&1)
like "ksalloc: a shell in the job" "$out" "seen: in="
unlike "... nothing was missed" "$out" "missing:"
like "... exits 0 with it" "$out" "exit 0$"

# ksattach: a batch job that offers a terminal, joined later.
cat >"$W/offer.sh" <<'EOS'
#!/bin/sh
exec kaistep pty-serve --pty sh -c 'echo ready-to-read; read x; echo got-$x; sleep 1; exit 4'
EOS
chown "$A:" "$W/offer.sh"
bid=$(as_alice ksubmit --parsable -t 2 offer.sh)
ok "a batch job with a terminal runs" wait_state "$bid" RUNNING
wait_for 60 grep -qs "action=pty-serve job=$bid" "$T/kaid.log"
out=$(as_user "$B" ksattach "$bid" </dev/null 2>&1)
rc=$?
like "ksattach by another user is refused" "$out" \
    "^ksattach: error: permission denied: job $bid belongs to another user$"
is "... exit 1" "$rc" 1
steps "$T/attach.steps" \
    'expect ready-to-read' 'send abc\r' 'expect got-abc'
out=$(PTY_LOG=$W/attach.log as_alice python3 "$drive" "$T/attach.steps" \
    -- ksattach "$bid.0" 2>&1)
like "ksattach: the output from before" "$out" "seen: ready-to-read"
like "... then types to the job" "$out" "seen: got-abc"
like "... and ends with the job's command's status" "$out" "exit 4$"

# Nothing a client sends after its session opened crashes kaid: a
# broken header, an oversized frame, a frame with a credential, a kind a
# client may not send; each closes that connection alone.
cat >"$W/idle.sh" <<'EOS'
#!/bin/sh
exec kaistep pty-serve --pty sh -c 'echo idle; sleep 60'
EOS
chown "$A:" "$W/idle.sh"
iid=$(as_alice ksubmit --parsable -t 2 idle.sh)
wait_for 60 grep -qs "action=pty-serve job=$iid" "$T/kaid.log"
sleep 1
# hostile HEX...: an attach to the idle job, then each HEX in turn;
# prints what kaid answered and whether it closed the connection.
hostile()
{
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack(">QIHH", int(sys.argv[1]), 0, 0, 0))' \
	    "$iid" >"$W/attach.bin"
	as_alice kai-rawreq --type 56 --body-file "$W/attach.bin" \
	    --save "$W/attach.frame" --no-send >/dev/null || return 1
	as_alice python3 - "$W/attach.frame" "$@" <<'EOP'
import os, socket, struct, sys
host, port = os.environ["KAI_CONTROLLER"].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(open(sys.argv[1], "rb").read())
got = b""
def frames():
    global got
    out = []
    while len(got) >= 20:
        t, n = struct.unpack(">H", got[6:8])[0], struct.unpack(">I", got[16:20])[0]
        if len(got) < 20 + n:
            break
        out.append(t)
        got = got[20 + n:]
    return out
types = []
s.settimeout(0.5)
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
        types += frames()
except socket.timeout:
    pass
s.settimeout(5)
for h in sys.argv[2:]:
    s.sendall(bytes.fromhex(h))
closed = False
try:
    while True:
        d = s.recv(65536)
        if not d:
            closed = True
            break
        got += d
        types += frames()
except socket.timeout:
    pass
print(" ".join(map(str, types)), "closed" if closed else "open")
EOP
}
hdr() { printf '4b414962%04x%04x%08x%08x%08x' 3 "$1" 0 "$2" "$3"; }
is "an attacher's broken header: the reply, START, the backlog, then closed" \
    "$(hostile 474554202f20485454502f312e310d0a486f73743a20780d0a0d0a)" "57 61 61 closed"
is "... an IO frame over its limit" "$(hostile "$(hdr 60 0 1000000)")" \
    "57 61 closed"
is "... an IO frame with a credential" "$(hostile "$(hdr 60 4 1)41414141")" \
    "57 61 closed"
is "... a kind a client may not send (EXIT)" \
    "$(hostile "$(hdr 60 0 5)0200000000")" "57 61 closed"
is "... an unknown kind" "$(hostile "$(hdr 60 0 1)63")" "57 61 closed"
is "... a WINSIZE cut short" "$(hostile "$(hdr 60 0 3)010018")" "57 61 closed"
ok "kaid logged why" grep -q "session of job $iid: client: .*closed" \
    "$T/kaid.log"
is "kaid still answers, and the job still runs" \
    "$(as_alice kqueue --noheader -j "$iid" -o %T)" RUNNING
out=$(as_alice kai-rawreq --type 58 --body-file /dev/null 2>&1)
like "PTY_SERVE with MUNGE is refused" "$out" \
    "permission denied: a terminal is served with a job credential"

# Ctrl-C while the job waits (here for a dependency): the job is cancelled.
steps "$T/pend.steps" 'expect job [0-9]+ queued and waiting for resources' \
    'sleep 1' 'send \x03' 'expect job [0-9]+ cancelled'
out=$(PTY_LOG=$W/pend.log as_alice python3 "$drive" "$T/pend.steps" -- \
    ksrun --pty -t 2 -d "afterok:$iid" sh 2>&1)
pid=$(last_job)
like "a waiting job: srun's \"queued and waiting for resources\"" "$out" \
    "seen: job .* queued"
like "Ctrl-C while the job waits cancels it" "$out" "seen: job .* cancelled"
like "... and ksrun exits 130" "$out" "exit 130$"
ok "... the job is cancelled" wait_state "$pid" CANCELLED
as_alice kcancel "$iid"

# Refusals: each one line, with the reason.
steps "$T/hold.steps" 'expect kai\$ ' 'sleep 3' 'send exit\r'
(PTY_LOG=$W/hold.log as_alice env PS1='kai$ ' python3 "$drive" \
    "$T/hold.steps" -- ksrun --pty -t 2 sh >"$T/hold.out" 2>&1 &)
sleep 1.5
hid=$(last_job)
wait_for 60 grep -qs "action=pty-serve job=$hid" "$T/kaid.log"
is "kaid's /metrics counts the session" "$(curl -sS -m 10 "$KAID_HTTP/metrics" |
    awk '$1 == "kaibatch_pty_sessions" { print $2 }')" 1
out=$(as_alice ksattach "$hid" </dev/null 2>&1)
like "a second client is refused" "$out" \
    "^ksattach: error: job $hid's terminal already has a client attached$"
ok "... the first session goes on" wait_state "$hid" COMPLETED
out=$(as_alice ksattach "$hid" </dev/null 2>&1)
is "ksattach to an ended job" "$out" \
    "ksattach: error: job $hid is not active: it has ended or never existed"
out=$(as_alice ksattach 12x 2>&1)
rc=$?
like "ksattach with a bad id: usage, exit 2" "$out$rc" \
    "invalid job id \"12x\": expected JOBID\\[\\.STEP\\].*2$"
out=$(as_alice ksattach "$hid.3" 2>&1)
like "... a step other than 0" "$out" "invalid step \"3\""
out=$(as_alice ksrun --array=1-2 true 2>&1)
like "ksrun refuses options of batch jobs" "$out" \
    "option \"--array\" is not for ksrun"
out=$(as_alice ksrun 2>&1)
like "ksrun without a command" "$out" "no command given"
out=$(as_alice "$step" pty-serve true 2>&1)
like "pty-serve outside a job has no credential" "$out" \
    "no job credential here"

done_testing
