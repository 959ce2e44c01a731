#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-tools.sh: the Slurm user's tools at scale, on the real stack
# (tests/lib/stack.sh).  Prints figures, the median of several runs; not
# a test: nothing here passes or fails.
#
#   tests/bench/bench-tools.sh [BUILD-DIR]
#
# Must run as root (it submits as a test user, like the integration
# tests).  Measured:
#   - kqueue wall time over 50,000 pending jobs (squeue: 0.44 s on a
#     2-core machine; target <= 0.1 s), and the CPU time of the client
#     and of kaid for one listing (steadier than wall time when the
#     machine is shared)
#   - kcancel -u of 50,000 jobs (scancel -u: 26.7 s; target <= 2 s),
#     and the CPU kaid and PostgreSQL spend on it
#   - kacct over 1,000,000 finished jobs with a user and a time filter
#     (target <= 0.1 s)
#   - kacct --report over the same 1,000,000 jobs, by an operator (every
#     user's rows), for the last day, 30 days and all 100
# The 50,000 pending jobs are submitted with ksubmit -H, 8 at a time.  The
# 1,000,000 finished jobs are written straight into PostgreSQL with one
# INSERT ... SELECT (a million submissions would take the benchmark
# twenty minutes and measure ksubmit, not kacct): ten users, end times
# spread over 100 days, kacct asked for one user's jobs of one day
# (about 1,000 rows).
#   RUNS=N      runs of each timed command (default 5; kcancel: 3)
#   NJOBS=N     pending jobs (default 50000)
#   NFINISHED=N finished jobs (default 1000000)

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
. "$top/tests/bench/benchlib.sh"
stack_require
RUNS=${RUNS:-5}
NJOBS=${NJOBS:-50000}
NFINISHED=${NFINISHED:-1000000}

T=$(mktemp -d /tmp/kai-bench-tools.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_INTERVAL=1s KAID_LOG_LEVEL=warn stack_start "$T" ||
    { echo "could not start the stack" >&2; exit 1; }
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && cd "$W" || exit 1
printf '#!/bin/sh\ntrue\n' >job.sh

now_ns()
{
	date +%s%N
}

# secs CMD...: wall seconds of one run of CMD (output discarded).
secs()
{
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>&1
	t1=$(now_ns)
	awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.4f\n", ns / 1e9 }'
}

# submit_held N: N held jobs as alice, 8 ksubmit loops at a time.
submit_held()
{
	seq 1 "$1" | as_user "$A" xargs -P 8 -n $((($1 + 7) / 8)) \
	    sh -c 'for i; do ksubmit -H --parsable job.sh >/dev/null || exit 1; done' sh
}

echo "kaibatch tools benchmark on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"

submit_held "$NJOBS" || { echo "submission failed" >&2; exit 1; }
n=$(as_user "$A" kqueue --noheader | wc -l)
echo "pending jobs: $n"
for _ in $(seq 1 "$RUNS"); do
	secs as_user "$A" kqueue
done | median | awk '{ printf "kqueue over %d pending jobs: %.3f s (median)\n", '"$n"', $1 }'

# CPU per listing, which a loaded machine does not blur as it blurs wall
# time: the client's (user + system, from /usr/bin/time) and kaid's
# (from /proc, less what it spends idle over the same time).
kaid_ticks()
{
	awk '{ print $14 + $15 }' "/proc/$(cat "$T/kaid.pid")/stat"
}
if [ -x /usr/bin/time ] && [ -r "/proc/$(cat "$T/kaid.pid")/stat" ]; then
	for _ in $(seq 1 "$RUNS"); do
		as_user "$A" /usr/bin/time -f '%U %S' kqueue 2>&1 >/dev/null |
		    awk '{ printf "%.3f\n", $1 + $2 }'
	done | median | awk '{ printf "kqueue client CPU: %.3f s (median)\n", $1 }'
	hz=$(getconf CLK_TCK)
	k0=$(kaid_ticks); t0=$(now_ns)
	for _ in $(seq 1 "$RUNS"); do as_user "$A" kqueue >/dev/null; done
	k1=$(kaid_ticks); t1=$(now_ns)
	sleep "$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", ns / 1e9 }')"
	k2=$(kaid_ticks)
	awk -v busy=$((k1 - k0)) -v idle=$((k2 - k1)) -v hz="$hz" -v n="$RUNS" \
	    'BEGIN { printf "kaid CPU per kqueue: %.3f s (mean of %d)\n", (busy - idle) / hz / n, n }'
fi

# CPU ticks of kaid and of every PostgreSQL process of the stack.
server_ticks()
{
	local pm
	pm=$(head -1 "$T/pg/pgdata/postmaster.pid" 2>/dev/null)
	{
		cat "/proc/$(cat "$T/kaid.pid")/stat"
		for p in $pm $(pgrep -P "$pm" 2>/dev/null); do
			cat "/proc/$p/stat" 2>/dev/null
		done
	} | awk '{ s += $14 + $15 } END { print s }'
}

# kcancel -u: each run cancels a fresh set.
kc=()
kcpu=()
for r in $(seq 1 "${KCANCEL_RUNS:-3}"); do
	[ "$r" -gt 1 ] && submit_held "$NJOBS"
	sleep 2 # let the tick that follows the submissions pass
	c0=$(server_ticks)
	kc+=("$(secs as_user "$A" kcancel -u "$A")")
	c1=$(server_ticks)
	kcpu+=("$(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }')")
	left=$(as_user "$A" kqueue --noheader -u "$A" | wc -l)
	[ "$left" -eq 0 ] || echo "warning: $left jobs left after kcancel -u" >&2
done
printf '%s\n' "${kc[@]}" | median |
    awk '{ printf "kcancel -u of '"$NJOBS"' jobs: %.3f s (median of '"${#kc[@]}"')\n", $1 }'
printf '%s\n' "${kcpu[@]}" | median |
    awk '{ printf "kaid + PostgreSQL CPU during it: %.3f s (median)\n", $1 }'

# A million finished jobs: ten users (alice is uid u0), end times over
# the last 100 days, each ran 10 minutes.
u0=$(id -u "$A")
t_end=$(date +%s)
stack_psql "INSERT INTO jobs (name, uid, gid, user_name, queue, state,
	submit_time, start_time, end_time, time_limit_s, script)
    SELECT 'job' || i, $u0 + i % 10, $u0 + i % 10,
	CASE WHEN i % 10 = 0 THEN '$A' ELSE 'user' || i % 10 END,
	'batch', 'COMPLETED', e - 900, e - 600, e, 3600, '#!/bin/sh'
    FROM (SELECT i, $t_end - (i::bigint * 8640000 / $NFINISHED) AS e
	  FROM generate_series(1, $NFINISHED) AS i) AS g" >/dev/null
stack_psql "ANALYZE jobs" >/dev/null
day0=$(date -u -d "@$((t_end - 3 * 86400))" +%Y-%m-%dT%H:%M:%S)
day1=$(date -u -d "@$((t_end - 2 * 86400))" +%Y-%m-%dT%H:%M:%S)
rows=$(TZ=UTC as_user "$A" kacct -X -n -P -S "$day0" -E "$day1" | wc -l)
for _ in $(seq 1 "$RUNS"); do
	TZ=UTC secs as_user "$A" kacct -X -S "$day0" -E "$day1"
done | median | awk '{ printf "kacct -S/-E over '"$NFINISHED"' finished jobs (one user, one day: '"$rows"' rows): %.3f s (median)\n", $1 }'

# kacct --report: one aggregate in PostgreSQL over the same rows, as root
# (an operator: every user's rows): the last day (about 10,000 jobs),
# 30 days (about 300,000) and all 100.
for span in 1 30 100; do
	s0=$(date -u -d "@$((t_end - span * 86400 - 60))" +%Y-%m-%dT%H:%M:%S)
	s1=$(date -u -d "@$((t_end + 60))" +%Y-%m-%dT%H:%M:%S)
	for _ in $(seq 1 "$RUNS"); do
		TZ=UTC secs kacct --report -S "$s0" -E "$s1"
	done | median | awk '{ printf "kacct --report over '"$NFINISHED"' finished jobs ('"$span"' days): %.3f s (median)\n", $1 }'
done
