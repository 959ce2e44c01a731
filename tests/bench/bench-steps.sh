#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-steps.sh: srun's step launch latency inside a job (issue 12), on
# the test stack (tests/lib/stack.sh; kubesim's pods get their helpers
# ConfigMap and job key, KUBESIM_VOLUMES).  Prints figures, the median
# of 20 runs each; not a test: nothing here passes or fails.
#
#   tests/bench/bench-steps.sh [BUILD-DIR]
#
# Must run as root (it submits as a test user).  Measured, from inside a
# job's batch script (so the time is what a user's srun waits): `srun -n1
# true` (one task, in task 0's pod), and `srun true` across all the
# job's pods, for a job of 2 pods and one of 8 (PODS="2 8").  Slurm's
# `srun -n1 true` round trip is 44 ms on the machine of issue 12.
#   RUNS=N  runs of each (default 20)

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
. "$top/tests/bench/benchlib.sh"
stack_tiers kubesim node -- "steps need the in-pod programs: kubesim (volumes) or real nodes"
stack_require
RUNS=${RUNS:-20}
PODS=${PODS:-2 8}

T=$(mktemp -d /tmp/kai-bench-steps.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KUBESIM_VOLUMES=1 KAID_POD_HELPERS=configmap KAID_LOG_LEVEL=warn \
    KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" || { echo "could not start the stack" >&2; exit 1; }
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && cd "$W" || exit 1

# The script times each srun in milliseconds, one a line, per kind.
cat >steps.sh <<EOS
#!/bin/sh
#SBATCH -t 10
i=0
while [ \$i -lt $RUNS ]; do
	a=\$(date +%s%N); srun -n1 true; b=\$(date +%s%N)
	echo \$(( (b - a) / 1000000 )) >>one-\$SLURM_JOB_ID
	a=\$(date +%s%N); srun true; b=\$(date +%s%N)
	echo \$(( (b - a) / 1000000 )) >>all-\$SLURM_JOB_ID
	i=\$((i + 1))
done
EOS
chown "$A:" steps.sh

for n in $PODS; do
	id=$(as_user "$A" ksubmit --parsable -n "$n" -o "steps-%j.out" \
	    steps.sh) || { echo "ksubmit -n $n failed" >&2; continue; }
	if ! wait_state "$id" COMPLETED 3000; then
		echo "the job of $n pods did not complete:" >&2
		cat "steps-$id.out" >&2
		continue
	fi
	printf 'srun -n1 true, job of %d pods: median %s ms of %d\n' "$n" \
	    "$(median <"one-$id")" "$(wc -l <"one-$id")"
	printf 'srun true on all %d pods: median %s ms of %d\n' "$n" \
	    "$(median <"all-$id")" "$(wc -l <"all-$id")"
done
