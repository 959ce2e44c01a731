#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6500-jobcred: a job talks to kaid from inside with its job credential
# (kaid.yaml job_key_file; auth/jobcred.h), through pod/kaistep, the
# static clients kaid ships to pods.  kubesim's pods run on this host and
# mount no volume, so the test plays the kubelet's part for the job key:
# it derives the job's key from kaid's (as kaid does for the job's
# Secret) into a file only the job's user reads, and the job points
# KAI_JOB_KEY at it; KAI_JOB_ID comes from kaid.  What is checked: the
# pods get KAI_JOB_ID and KAI_JOB_KEY; ksubmit from inside submits a job
# of the same user; kqueue from inside lists it; `kctl requeue` of itself
# on its first run brings a second run with SLURM_RESTART_COUNT=1; a
# credential naming another job, and the key once the job has ended, are
# refused with a reason and exit 3; an operator-only request is refused
# with a job credential.  The node tier (t6510) checks the Secret, its
# file mode and the ConfigMap's kaistep in real pods.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers kubesim real -- "the job key is the test's file here; t6510 is the node tier's"
stack_require
step=$STACK_BIN/pod/kaistep
[ -x "$step" ] || skip_all "pod/kaistep not built (configure: no static libraries)"

T=$(mktemp -d /tmp/kai-t6500.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" ||
    bail_out "could not start the stack"

# kaid refuses a key file it cannot trust, at start and with -n.
kaid_n() {
	printf 'database: "x"\njob_key_file: %s\n' "$1" >"$T/n.yaml"
	"$STACK_BIN/daemons/kaid/kaid" -n -f "$T/n.yaml" 2>&1
}
echo abc >"$T/short.key" && chmod 600 "$T/short.key"
cp "$T/master.key" "$T/open.key" && chmod 644 "$T/open.key"
like "kaid -n: a missing key file" "$(kaid_n "$T/none.key")" \
    "^kaid: error: could not open job_key_file \"$T/none.key\": No such file"
like "kaid -n: a key file others may read" "$(kaid_n "$T/open.key")" \
    "is readable by others \\(mode 0644\\): chmod 600 it"
like "kaid -n: a key that is not 64 hex digits" "$(kaid_n "$T/short.key")" \
    "expected 64 hex digits"
is "kaid -n: a good key" "$(kaid_n "$T/master.key")" "configuration OK"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# jobkey ID FILE: job ID's key (jobcred.h), readable by alice alone.
jobkey()
{
	python3 - "$T/master.key" "$1" >"$2" <<'EOP'
import hashlib, hmac, struct, sys
m = bytes.fromhex(open(sys.argv[1]).read().strip())
k = hmac.new(m, b"kaibatch job key v1\0" + struct.pack(">Q", int(sys.argv[2])),
             hashlib.sha256).hexdigest()
print(k)
EOP
	chown "$A:" "$2" && chmod 400 "$2"
}

# The job waits for its key, then on its first run submits a job, lists
# the queue and requeues itself; its second run says which run it is.
cat >"$W/self.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH --open-mode=append
echo "run $SLURM_RESTART_COUNT id=$KAI_JOB_ID key=$KAI_JOB_KEY"
k=$SLURM_SUBMIT_DIR/key-$SLURM_JOB_ID
while [ ! -s "$k" ]; do sleep 0.1; done
export KAI_JOB_KEY=$k
if [ "$SLURM_RESTART_COUNT" = 0 ]; then
	"$STEP" ksubmit --parsable -t 1 --wrap "true" >child.out 2>&1
	echo "ksubmit: $?" >>child.out
	"$STEP" squeue --noheader -j "$SLURM_JOB_ID" -o '%i %u %T' >queue.out 2>&1
	"$STEP" kctl show job "$SLURM_JOB_ID" >show.out 2>&1
	date +%s.%N >requeued.at
	"$STEP" kctl requeue "$SLURM_JOB_ID" >requeue.out 2>&1
	echo "kctl: $?" >>requeue.out
	sleep 60
fi
date +%s.%N >second.at
echo "second run done"
EOS
chown "$A:" "$W/self.sh"

id=$(cd "$W" && as_user "$A" env STEP="$step" ksubmit --parsable \
    -o "$W/self-%j.out" self.sh)
like "ksubmit takes the job" "$id" '^[0-9]+$'
ok "the job runs" wait_state "$id" RUNNING
jobkey "$id" "$W/key-$id"

# What the first run wrote before it requeued itself (kaid deletes its
# pod then, so the run may end before it writes another line).
for _ in $(seq 1 200); do
	[ -e "$W/requeue.out" ] && break
	sleep 0.1
done
child=$(head -n 1 "$W/child.out" 2>/dev/null)
like "ksubmit from inside the job submits a job" "$child" '^[0-9]+$'
is "... and exits 0" "$(tail -n 1 "$W/child.out")" "ksubmit: 0"
is "the child runs as the job's user" \
    "$(stack_psql "select uid from jobs where id = ${child:-0}")" "$(id -u "$A")"
ok "kaid's audit log says a job's credential submitted it" \
    grep -q "audit: uid=$(id -u "$A") job=$id action=submit credential=job" \
    "$T/kaid.log"
is "squeue from inside lists the job" "$(cat "$W/queue.out" 2>/dev/null)" \
    "$id $A RUNNING"
show=$(cat "$W/show.out" 2>/dev/null)
like "kctl show job from inside gives its time limit" "$show" "TimeLimit=00:05:00"
like "... and its end time" "$show" "EndTime=[0-9]{4}-"
is "... which is its start plus its time limit, as scontrol says" \
    "$(printf '%s\n' "$show" | python3 -c '
import re, sys, datetime
t = re.search(r"StartTime=(\S+) EndTime=(\S+)", sys.stdin.read())
p = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S")
print(int((p(t.group(2)) - p(t.group(1))).total_seconds()))' 2>&1)" 300
unlike "kctl requeue of itself from inside reports no error" \
    "$(cat "$W/requeue.out" 2>/dev/null)" "error|kctl: [1-9]"

ok "the requeued job runs again" wait_state "$id" COMPLETED 600
out=$(cat "$W/self-$id.out")
like "its first run had KAI_JOB_ID and KAI_JOB_KEY from kaid" "$out" \
    "run 0 id=$id key=/var/run/kaibatch/job.key"
like "its second run has SLURM_RESTART_COUNT=1" "$out" "run 1 id=$id"
like "... and ran to the end" "$out" "second run done"
gap=$(python3 -c 'import sys; print(float(open(sys.argv[2]).read()) - float(open(sys.argv[1]).read()) >= 1.0)' \
    "$W/requeued.at" "$W/second.at" 2>&1)
is "the requeued job was held back at least a second (Slurm's way)" \
    "$gap" True

# The job has ended: its key is worth nothing now.
out=$(cd "$W" && as_user "$A" env KAI_JOB_ID="$id" KAI_JOB_KEY="$W/key-$id" \
    "$step" kqueue 2>&1)
rc=$?
is "the key of an ended job is refused (exit 3)" "$rc" 3
like "... saying why" "$out" \
    "^kqueue: error: job $id is not running: its credential is no longer valid"

# A running job's key under another job's id: refused.
cat >"$W/sleep.sh" <<'EOS'
#!/bin/sh
sleep 60
EOS
chown "$A:" "$W/sleep.sh"
run=$(cd "$W" && as_user "$A" ksubmit --parsable -t 2 sleep.sh)
ok "a second job runs" wait_state "$run" RUNNING
jobkey "$run" "$W/key-$run"
out=$(cd "$W" && as_user "$A" env KAI_JOB_ID="$id" KAI_JOB_KEY="$W/key-$run" \
    "$step" kqueue 2>&1)
is "one job's key under another job's id is refused (exit 3)" "$?" 3
like "... as not matching its job" "$out" \
    "error: job credential does not match its job"
out=$(cd "$W" && as_user "$A" env KAI_JOB_ID="$run" KAI_JOB_KEY="$W/key-$run" \
    "$step" kqueue --noheader -o '%i %u' -j "$run" 2>&1)
is "the running job's own key works" "$out" "$run $A"
out=$(as_user "$B" env KAI_JOB_ID="$run" KAI_JOB_KEY="$W/key-$run" \
    "$step" kqueue 2>&1)
is "bob cannot read alice's job key (exit 3)" "$?" 3
like "... and is told so" "$out" "could not read the job key"

# What a job credential may not do: operator requests.
out=$(cd "$W" && as_user "$A" env KAI_JOB_ID="$run" KAI_JOB_KEY="$W/key-$run" \
    "$step" kctl queue delete nosuchqueue 2>&1)
like "kctl queue delete with a job credential is refused" "$out" \
    "permission denied: not with a job credential"
out=$(as_user "$A" env KAI_JOB_ID="$run" "$step" kqueue 2>&1)
like "without KAI_JOB_KEY kaistep says what is missing" "$out" \
    "no job credential here: KAI_JOB_KEY and KAI_JOB_ID"
as_user "$A" kcancel "$run" >/dev/null 2>&1

done_testing
