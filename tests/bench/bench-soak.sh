#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-soak.sh: does kaid stay fast and small under a long mixed load?
# CLIENTS client loops (default 32) of ksubmit, kqueue and kcancel
# (tests/bench/bench-soak.py) for DURATION seconds (default 600) on the
# real stack (tests/lib/stack.sh).  Prints figures, not a verdict: kaid's
# resident memory at the start, every minute and at the end, its CPU
# time, and the calls, failures and p50/p99 latency of each request type
# in the first and the last WINDOW seconds (default 60).
#
#   [DURATION=600] [CLIENTS=32] [WINDOW=60] tests/bench/bench-soak.sh [BUILD-DIR]
#
# Must run as root (the clients run as a test user, as in the tests).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
stack_require
DURATION=${DURATION:-600}
CLIENTS=${CLIENTS:-32}
WINDOW=${WINDOW:-60}

T=$(mktemp -d /tmp/kai-soak.XXXXXX)
trap 'kill "$sampler" 2>/dev/null; stack_stop "$T"; rm -rf "$T"' EXIT
KAID_INTERVAL=1s KAID_LOG_LEVEL=warn stack_start "$T" ||
    { echo "could not start the stack" >&2; exit 1; }
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && cd "$W" || exit 1
printf '#!/bin/sh\ntrue\n' >job.sh
pid=$(cat "$T/kaid.pid")

# field NAME: kaid's /proc status field NAME, in MiB.
mib()
{
	awk -v f="$1:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"
}
cpu_s()
{
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' \
	    "/proc/$pid/stat"
}

echo "kaid soak: $CLIENTS clients, $DURATION s, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kaid RSS at start: $(mib VmRSS) MiB"
(
	for m in $(seq 60 60 "$DURATION"); do
		sleep 60
		echo "  at $m s: RSS $(mib VmRSS) MiB, CPU $(cpu_s) s," \
		    "$(stack_psql "select count(*) from jobs where state in ('PENDING','CONFIGURING','RUNNING')") active jobs"
	done
) &
sampler=$!
as_user "$A" python3 "$top/tests/bench/bench-soak.py" "$CLIENTS" \
    "$DURATION" "$WINDOW" job.sh
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
echo "kaid RSS at end: $(mib VmRSS) MiB (peak $(mib VmHWM) MiB), CPU $(cpu_s) s"
echo "jobs stored: $(stack_psql "select count(*) from jobs"), active: $(stack_psql "select count(*) from jobs where state in ('PENDING','CONFIGURING','RUNNING')")"
kill -0 "$pid" 2>/dev/null && echo "kaid still running" || echo "kaid DIED"
