#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6610-node-steps: Slurm's job model in real pods (node tier only: the
# helpers ConfigMap with pod/kaistep, the job key's Secret).  A two-pod
# torchrun-style script runs its set-up and post-processing lines once,
# in task 0's pod; its `srun -l` line runs on both pods with SLURM_PROCID
# 0 and 1 (each pod a Slurm node, SLURM_NODEID 0 and 1); kacct shows N.batch and N.0; a
# step that reads 200 MiB into one buffer (dd) has that MaxRSS within
# 20%; kcancel --signal=USR1 is caught by the step's trap.  (t6600
# checks the same and more on kubesim.)  Two nodes (nodes-node2.yaml),
# a pod on each (-N 2): the second node's pod reaches kaid's address on
# the first node's bridge (pod_controller) by the node tier's route.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs steps in real containers (KAI_STACK_API=node)"
stack_require
[ -x "$STACK_BIN/pod/kaistep" ] ||
	skip_all "pod/kaistep not built (configure: no static libraries)"

T=$(mktemp -d /tmp/kai-t6610.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" "$top_srcdir/contrib/k8s/nodes-node2.yaml" ||
    bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
chmod 755 "$T"

cat >"$W/two.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 10
echo "pre once $SLURM_PROCID"
srun -l sh -c 'echo "rank $SLURM_PROCID of $SLURM_STEP_NUM_TASKS node $SLURM_NODEID on $(cat /proc/sys/kernel/hostname)"'
echo "launch: $?"
srun -n 1 dd if=/dev/zero of=/dev/null bs=200M count=1 2>/dev/null
srun -l sh -c 'trap "echo got USR1; exit 0" USR1; echo ready; while :; do sleep 0.1; done'
echo "signalled: $?"
echo "post once"
EOS
chown "$A:" "$W/two.sh"
id=$(cd "$W" && as_user "$A" ksubmit --parsable -N 2 -n 2 -o two-%j.out two.sh)
like "ksubmit takes a two-node job" "$id" '^[0-9]+$'
out=$W/two-$id.out
for _ in $(seq 1 1200); do
	[ "$(grep -c ': ready' "$out" 2>/dev/null)" = 2 ] && break
	sleep 0.5
done
is "the last step runs on both pods" "$(grep -c ': ready' "$out")" 2
is "kcancel --signal=USR1 exits 0" \
    "$(as_user "$A" kcancel --signal=USR1 "$id" 2>&1; echo $?)" 0
ok "the job completes" wait_state "$id" COMPLETED 600
diag "$(cat "$out")"
is "the set-up line ran once, as task 0" "$(grep '^pre once' "$out")" \
    "pre once 0"
is "the post-processing line ran once" "$(grep -c '^post once' "$out")" 1
like "srun -l: task 0 of 2 on node 0" "$(cat "$out")" \
    "0: rank 0 of 2 node 0 on "
like "srun -l: task 1 of 2 on node 1" "$(cat "$out")" \
    "1: rank 1 of 2 node 1 on "
h0=$(sed -n 's/^0: rank .* on //p' "$out")
h1=$(sed -n 's/^1: rank .* on //p' "$out")
ok "... in the other pod ($h0, $h1)" test -n "$h0" -a -n "$h1" -a "$h0" != "$h1"
like "... on the two Kubernetes nodes" \
    "$(as_user "$A" kacct -j "$id" -X -P -n -o NodeList)" \
    '^node-(\[1-2\]|1,node-2)$'
is "srun exits 0" "$(grep '^launch:' "$out")" "launch: 0"
is "both tasks caught USR1" "$(grep -c '^[01]: got USR1' "$out")" 2
is "... and the step ended 0" "$(grep '^signalled:' "$out")" "signalled: 0"
acct=$(as_user "$A" kacct -j "$id" -P -n -o JobID,JobName,State,NTasks)
is "kacct shows the job, N.batch and its steps" "$acct" \
"$id|two.sh|COMPLETED|2
$id.batch|batch|COMPLETED|1
$id.0|sh|COMPLETED|2
$id.1|dd|COMPLETED|1
$id.2|sh|COMPLETED|2"
rss=$(as_user "$A" kacct -j "$id" -P -n -o JobID,MaxRSS |
    awk -F'|' -v j="$id.1" '($1 "") == j { sub(/K$/, "", $2); print $2 }')
ok "MaxRSS of the dd step is 200 MiB within 20% (${rss}K)" \
    test "${rss:-0}" -ge $((204800 * 8 / 10)) -a "${rss:-0}" -le $((204800 * 12 / 10))

done_testing
