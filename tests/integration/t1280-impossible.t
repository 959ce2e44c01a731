#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1280-impossible: a job whose task no node of its partition could ever
# hold is refused at submission, as sbatch refuses it ("Requested node
# configuration is not available"), naming what it asked and what the
# largest nodes have; nothing is stored.  It used to wait for ever.  The
# nodes are kubesim's example: the largest has 64 CPUs, 1 TiB and 8 GPUs.
# The tasks a node shares (-N, --ntasks-per-node) must fit one node together.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real
stack_require

T=$(mktemp -d /tmp/kai-t1280.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
stack_wait_nodes || bail_out "kaid did not list its nodes"
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

# refused_for WHAT WANT FOR ARGS...: FOR is what the request is for
refused_for()
{
	local what=$1 want=$2 for=$3 out rc
	shift 3
	out=$(submit "$@")
	rc=$?
	is "$what: refused (exit 1)" "$rc" 1
	like "$what: Slurm's reason, what was asked and what there is" "$out" \
	    "Requested node configuration is not available: no node of partition \"[a-z]+\" has $want for $for \\(the largest have 64 CPUs, 1048576 MiB, 8 GPUs\\)"
	is "$what: one line" "$(printf '%s\n' "$out" | grep -c .)" 1
}
refused()
{
	local what=$1 want=$2
	shift 2
	refused_for "$what" "$want" "one task" "$@"
}
refused "--gres=gpu:9" "1 CPUs, [0-9]+ MiB and 9 GPUs" --gres=gpu:9
refused "--gpus-per-task=12" "1 CPUs, [0-9]+ MiB and 12 GPUs" --gpus-per-task=12
refused "-c 128" "128 CPUs, [0-9]+ MiB and 0 GPUs" -c 128
refused "--mem=2T" "1 CPUs, 2097152 MiB and 0 GPUs" --mem=2T
# The tasks of one node (-N, --ntasks-per-node) need one node together.
group="the tasks of one node \\(--ntasks-per-node\\)"
refused_for "-N 1 --ntasks-per-node=9 --gres=gpu:9" "9 CPUs, [0-9]+ MiB and 9 GPUs" \
    "$group" -N 1 --ntasks-per-node=9 --gres=gpu:9
refused_for "-N 2 -n 4 -c 40" "80 CPUs, [0-9]+ MiB and 0 GPUs" "$group" \
    -N 2 -n 4 -c 40
is "nothing was stored" "$(stack_psql "select count(*) from jobs")" "$before"

out=$(submit --gres=gpu:8 -c 64 --mem=512G)
like "the largest node's whole is accepted" "$out" '^Submitted batch job [0-9]+$'
out=$(submit -N 1 --ntasks-per-node=8 --gres=gpu:8 -c 8)
like "8 tasks of 1 GPU and 8 CPUs on the largest node: accepted" "$out" \
    '^Submitted batch job [0-9]+$'
out=$(submit -N 2 -n 3 -c 40)
like "-N 2 -n 3, uneven, each task fits: accepted" "$out" \
    '^Submitted batch job [0-9]+$'
out=$(submit --gres=gpu:1 -c 33)
like "more CPUs than some nodes have, as many as one has: accepted" "$out" \
    '^Submitted batch job [0-9]+$'

done_testing
