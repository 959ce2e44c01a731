#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1280-impossible: a job whose task no node of its partition could ever
# hold is refused at submission, as sbatch refuses it ("Requested node
# configuration is not available"), naming what it asked and what the
# largest nodes have; nothing is stored.  It used to wait for ever.  The
# nodes are kubesim's example: the largest has 64 CPUs, 1 TiB and 8 GPUs.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real
stack_require

T=$(mktemp -d /tmp/kai-t1280.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$T"
printf '#!/bin/sh\ntrue\n' >"$W/job.sh"
chown "$A:" "$W/job.sh"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --hold "$@" job.sh 2>&1)
}
before=$(stack_psql "select count(*) from jobs")

refused()
{
	local what=$1 want=$2 out rc
	shift 2
	out=$(submit "$@")
	rc=$?
	is "$what: refused (exit 1)" "$rc" 1
	like "$what: Slurm's reason, what was asked and what there is" "$out" \
	    "Requested node configuration is not available: no node of partition \"[a-z]+\" has $want for one task \\(the largest have 64 CPUs, 1048576 MiB, 8 GPUs\\)"
	is "$what: one line" "$(printf '%s\n' "$out" | grep -c .)" 1
}
refused "--gres=gpu:9" "1 CPUs, [0-9]+ MiB and 9 GPUs" --gres=gpu:9
refused "--gpus-per-task=12" "1 CPUs, [0-9]+ MiB and 12 GPUs" --gpus-per-task=12
refused "-c 128" "128 CPUs, [0-9]+ MiB and 0 GPUs" -c 128
refused "--mem=2T" "1 CPUs, 2097152 MiB and 0 GPUs" --mem=2T
is "nothing was stored" "$(stack_psql "select count(*) from jobs")" "$before"

out=$(submit --gres=gpu:8 -c 64 --mem=512G)
like "the largest node's whole is accepted" "$out" '^Submitted batch job [0-9]+$'
out=$(submit --gres=gpu:1 -c 33)
like "more CPUs than some nodes have, as many as one has: accepted" "$out" \
    '^Submitted batch job [0-9]+$'

done_testing
