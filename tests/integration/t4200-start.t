#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4200-start: estimated start times, as squeue --start shows them.  A
# job with --time=10 fills the cluster; a job submitted behind it is
# estimated to start when that one reaches its limit, the next one (a
# gang needing both nodes) when the first estimated one reaches its own
# limit, and a held job has no estimate (N/A).  kqueue --start has
# squeue --start's columns, lists pending jobs only, earliest first, and
# %S of a pending job is the same estimate.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4200.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
# Two nodes with four GPUs each.
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
  - name: gpu-n2
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# start_of JOBID: the job's %S as unix seconds, or N/A.
start_of()
{
	local s
	s=$(as_user "$A" kqueue -j "$1" --noheader -o '%S')
	if [ "$s" = N/A ]; then
		echo N/A
	else
		date -d "$s" +%s
	fi
}

# wait_est JOBID: polls until the job has an estimate; prints it.
wait_est()
{
	local s
	for _ in $(seq 1 100); do
		s=$(start_of "$1")
		[ "$s" != N/A ] && break
		sleep 0.1
	done
	echo "$s"
}

# --- The cluster is full until the first job's limit.
fill=$(submit -n 2 --gpus-per-task=4 --time=10 -J fill --wrap "sleep 300")
ok "a 2x4-GPU job with --time=10 fills both nodes" wait_state "$fill" RUNNING
started=$(start_of "$fill")
like "it has a start time" "$started" '^[0-9]+$'

p1=$(submit --gpus-per-task=4 --time=5 -J next --wrap "true")
p2=$(submit -n 2 --gpus-per-task=4 --time=20 -J gang --wrap "true")
p3=$(submit -H --gpus-per-task=1 --time=5 -J held --wrap "true")
e1=$(wait_est "$p1")
is "the next job starts when the filler reaches its limit" \
    "$e1" "$((started + 600))"
e2=$(wait_est "$p2")
is "the gang starts when the next one reaches its own limit" \
    "$e2" "$((e1 + 300))"
is "a held job has no estimate" "$(start_of "$p3")" N/A

# --- kqueue --start: squeue's columns, pending jobs, earliest first.
out=$(as_user "$A" kqueue --start)
echo "$out" | sed "s/^/# /"
hdr=$(printf '%18s %9s %8s %8s %2s %19s %6s %-20s %s' JOBID PARTITION \
    NAME USER ST START_TIME NODES SCHEDNODES 'NODELIST(REASON)')
is "the header is squeue --start's" "$(echo "$out" | head -n 1)" "$hdr"
is "three pending jobs, no running one" "$(echo "$out" | sed 1d | wc -l)" 3
ts1=$(date -d "@$e1" +%Y-%m-%dT%H:%M:%S)
ts2=$(date -d "@$e2" +%Y-%m-%dT%H:%M:%S)
like "the next job first, with its estimate" \
    "$(echo "$out" | sed -n 2p)" \
    "^ +$p1 +batch +next +[a-z0-9-]+ PD $ts1 +1 \(null\) +\(.*\)$"
like "then the gang" "$(echo "$out" | sed -n 3p)" \
    "^ +$p2 +batch +gang +[a-z0-9-]+ PD $ts2 +2 \(null\) +\(.*\)$"
like "the held job last, N/A" "$(echo "$out" | sed -n 4p)" \
    "^ +$p3 +batch +held +[a-z0-9-]+ PD +N/A +1 \(null\) +\(JobHeldUser\)$"
# Backfill (scheduling.backfill_reservations, 4 by default): the next job
# holds a reservation at its estimate and says so; a job of 30 minutes
# would take that node past it and waits, naming the job it would delay.
ts1z=$(date -u -d "@$e1" +%Y-%m-%dT%H:%M:%SZ)
is "the next job's reason is its reservation" \
    "$(as_user "$A" kqueue -j "$p1" --noheader --why | sed 's/^.*(waiting/(waiting/')" \
    "(waiting for resources: reserved to start at $ts1z on 1 node (running jobs' time limits))"
is "... and its code is Resources" \
    "$(as_user "$A" kqueue -j "$p1" --noheader -o '%r')" Resources
out=$(as_user "$A" kqueue --start -t R)
is "--start with -t R: no job, only the header" \
    "$(echo "$out" | wc -l)" 1

# --- The estimate moves when the cluster changes.
as_user "$A" kcancel "$p1" >/dev/null
for _ in $(seq 1 100); do
	e2b=$(start_of "$p2")
	[ "$e2b" = "$((started + 600))" ] && break
	sleep 0.1
done
is "with the next job cancelled the gang moves up to the filler's end" \
    "$e2b" "$((started + 600))"
as_user "$A" kcancel "$fill"
ok "with the filler cancelled the gang runs" wait_state "$p2" COMPLETED

done_testing
