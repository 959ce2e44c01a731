#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-kaid.sh: kaid's submission rate, kqueue's latency and kaid's
# memory, on the real stack (tests/lib/stack.sh).  Prints figures: the
# median of several runs.  Not a test: nothing here passes or fails.
#
#   tests/bench/bench-kaid.sh [BUILD-DIR]
#
# Must run as root (it submits as a test user, like the integration
# tests).  Measured:
#   - jobs/s submitted by 1, 8 and 32 concurrent ksubmit processes
#   - the wall time of one ksubmit --array=0-9999 (10,000 tasks)
#   - kqueue wall time with 10,000 pending jobs
#   - kaid's resident memory with 10,000 pending jobs
# Slurm 22.05 on a 2-core machine, for comparison: 118-200 jobs/s serial,
# 340-370 jobs/s with 8 clients, squeue 0.095 s at 10,000 pending,
# slurmctld 71 MiB at 10,000 pending, sbatch --array=0-9999 0.011 s.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
. "$top/tests/bench/benchlib.sh"
stack_require
RUNS=${RUNS:-3}

T=$(mktemp -d /tmp/kai-bench.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_INTERVAL=1s KAID_LOG_LEVEL=warn stack_start "$T" || { echo "could not start the stack" >&2; exit 1; }
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && cd "$W" || exit 1
printf '#!/bin/sh\ntrue\n' >job.sh

now_ns()
{
	date +%s%N
}

# submit_rate N CONC: jobs/s for N held submissions from CONC processes.
submit_rate()
{
	local n=$1 c=$2 t0 t1
	t0=$(now_ns)
	seq 1 "$n" | as_user "$A" xargs -P "$c" -n $(( (n + c - 1) / c )) \
	    sh -c 'for i; do ksubmit -H --parsable job.sh >/dev/null || exit 1; done' sh
	t1=$(now_ns)
	awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f\n", n / (ns / 1e9) }'
}

echo "kaibatch benchmark on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for c in 1 8 32; do
	n=$((c == 1 ? 500 : 2000))
	r=$(for _ in $(seq 1 "$RUNS"); do submit_rate "$n" "$c"; done | median)
	printf 'submit, %2d concurrent ksubmit: %6s jobs/s (median of %d runs of %d jobs)\n' \
	    "$c" "$r" "$RUNS" "$n"
done

t=$(for _ in $(seq 1 5); do
	t0=$(now_ns)
	as_user "$A" ksubmit -H --parsable --array=0-9999 job.sh >/dev/null
	t1=$(now_ns)
	echo $(( (t1 - t0) / 1000 ))
done | median)
printf 'submit --array=0-9999 (10,000 tasks): %.1f ms (median of 5)\n' \
    "$(awk -v us="$t" 'BEGIN { print us / 1000 }')"
# The five arrays are five rows; they do not count among the jobs below.
stack_psql "update jobs set state = 'CANCELLED' where array_job_id is not null" >/dev/null
kaid_stop
kaid_start

have=$(stack_psql "select count(*) from jobs where state = 'PENDING'")
if [ "$have" -lt 10000 ]; then
	submit_rate $((10000 - have)) 8 >/dev/null
fi
pending=$(stack_psql "select count(*) from jobs where state = 'PENDING'")
# Trim to exactly 10,000 pending jobs for the figures below.
if [ "$pending" -gt 10000 ]; then
	stack_psql "update jobs set state = 'CANCELLED' where id in (select id from jobs where state = 'PENDING' order by id desc limit $((pending - 10000)))" >/dev/null
	kaid_stop
	kaid_start
fi
pending=$(stack_psql "select count(*) from jobs where state = 'PENDING'")
t=$(for _ in $(seq 1 5); do
	t0=$(now_ns)
	as_user "$A" kqueue >/dev/null
	t1=$(now_ns)
	echo $(( (t1 - t0) / 1000 ))
done | median)
lines=$(as_user "$A" kqueue --noheader | wc -l)
printf 'kqueue with %d pending jobs: %.1f ms (median of 5; %d lines)\n' \
    "$pending" "$(awk -v us="$t" 'BEGIN { print us / 1000 }')" "$lines"
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$(cat "$T/kaid.pid")/status")
hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$(cat "$T/kaid.pid")/status")
printf 'kaid resident memory with %d pending jobs: %.1f MiB (peak %.1f MiB)\n' \
    "$pending" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')"
