#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6510-node-jobcred: jobs talk to kaid from inside real pods (node tier
# only): kaid ships pod/kaistep in the helpers ConfigMap and each job's
# key in a Secret; in the container the wrapper unpacks the clients into
# PATH, the key file is mode 0440, root and the job's group, and the pod
# spec holds no key.  From inside, sbatch submits a job of the same user,
# squeue lists the job, `scontrol requeue` requeues it and its second run
# sees SLURM_RESTART_COUNT=1; a key copied out of the job is refused once
# the job has ended.  (t6500 checks the same on kubesim, with the key
# file made by the test.)

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs jobs in real containers (KAI_STACK_API=node)"
stack_require
step=$STACK_BIN/pod/kaistep
[ -x "$step" ] || skip_all "pod/kaistep not built (configure: no static libraries)"

T=$(mktemp -d /tmp/kai-t6510.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
chmod 755 "$T"

cat >"$W/self.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH --open-mode=append
echo "run $SLURM_RESTART_COUNT"
if [ "$SLURM_RESTART_COUNT" = 0 ]; then
	# The test reads the pod first.
	while [ ! -e "$SLURM_SUBMIT_DIR/go" ]; do sleep 0.2; done
	echo "key: $(stat -L -c '%a %u %g' "$KAI_JOB_KEY")"
	echo "clients: $(for c in sbatch squeue scancel kctl; do
		command -v "$c"; done | sed 's|.*/||' | tr '\n' ' ')"
	cp "$KAI_JOB_KEY" "$SLURM_SUBMIT_DIR/copied.key"
	c=$(sbatch --parsable -t 1 --wrap true 2>&1); echo "sbatch: $? $c"
	echo "squeue: $(squeue --noheader -j "$SLURM_JOB_ID" -o '%i %T' 2>&1)"
	scontrol requeue "$SLURM_JOB_ID" 2>&1; echo "requeue: $?"
	sleep 120
fi
echo "second run done"
EOS
chown "$A:" "$W/self.sh"

id=$(cd "$W" && as_user "$A" ksubmit --parsable -o "$W/self-%j.out" self.sh)
like "ksubmit takes the job" "$id" '^[0-9]+$'
ok "the job runs" wait_state "$id" RUNNING 600
pod=$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0")
unlike "the pod spec holds no key" "$pod" "$(python3 - "$T/master.key" "$id" <<'EOP'
import hashlib, hmac, struct, sys
m = bytes.fromhex(open(sys.argv[1]).read().strip())
print(hmac.new(m, b"kaibatch job key v1\0" + struct.pack(">Q", int(sys.argv[2])),
               hashlib.sha256).hexdigest())
EOP
)"
like "... but mounts the job's Secret" "$pod" "\"secretName\": ?\"kai-$id-key\""
touch "$W/go"

ok "the requeued job completes its second run" wait_state "$id" COMPLETED 900
out=$(cat "$W/self-$id.out")
diag "$out"
like "the key file is mode 0440, root and the job's group" "$out" \
    "key: 440 0 $(id -g "$A")"
like "the clients are in PATH" "$out" "clients: sbatch squeue scancel kctl"
like "sbatch from inside submits a job" "$out" "sbatch: 0 [0-9]+"
child=$(printf '%s\n' "$out" | sed -n 's/^sbatch: 0 \([0-9]*\)$/\1/p')
is "... of the same user" \
    "$(stack_psql "select uid from jobs where id = ${child:-0}")" "$(id -u "$A")"
like "squeue from inside lists the job" "$out" "squeue: $id (CONFIGURING|RUNNING)"
unlike "scontrol requeue of itself reports no error (its pod may end first)" \
    "$out" "(scontrol|kctl): error|requeue: [1-9]"
like "the second run has SLURM_RESTART_COUNT=1" "$out" "run 1"
like "... and ends" "$out" "second run done"

out=$(cd "$W" && as_user "$A" env KAI_JOB_ID="$id" KAI_JOB_KEY="$W/copied.key" \
    "$step" kqueue 2>&1)
is "a key copied out of the job is refused once it ended (exit 3)" "$?" 3
like "... saying why" "$out" "job $id is not running"

done_testing
