#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run.sh: runs the libFuzzer harnesses of a build configured with
# CC=clang --enable-fuzzing, each for a bounded time, starting from the
# corpus in the tree (which is not modified: new inputs go to a scratch
# corpus in the build directory).
#
#	tests/fuzz/run.sh [-t SECONDS] [-j JOBS] BUILDDIR [NAME...]
#
# NAME is a harness (frame, msg, directives, ...; default: every one
# that has a corpus), SECONDS the time for each (default 15), JOBS how
# many run at once (default 1; each harness is one process, one core).
# Prints one line per harness, in NAME order, "PASS: fuzz-NAME ..." with
# its executions and executions per second, or "FAIL: fuzz-NAME ..." with
# the crash input saved under BUILDDIR/tests/fuzz/artifacts/ and the top
# of its report.  Exits 1 if any harness found a crash, a leak, a timeout
# or an out-of-memory, 2 on bad usage.
#
# To keep a crash as a regression input once it is fixed:
#	cp BUILDDIR/tests/fuzz/artifacts/NAME-crash-* tests/fuzz/corpus/NAME/

set -u
secs=15
jobs=1
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=${2:-}; shift 2 || break ;;
	-j) jobs=${2:-}; shift 2 || break ;;
	*) break ;;
	esac
done
case $secs$jobs in
'' | *[!0-9]*) set -- ;;	# not numbers: usage
esac
if [ $# -lt 1 ] || [ -z "$secs" ] || [ -z "$jobs" ] || [ "$jobs" -lt 1 ]; then
	echo "usage: run.sh [-t SECONDS] [-j JOBS] BUILDDIR [NAME...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
	mapfile -t names < <(cd "$src/corpus" && ls)
	set -- "${names[@]}"
fi

work=$build/tests/fuzz/work
art=$build/tests/fuzz/artifacts
mkdir -p "$work" "$art" || exit 2
# fuzz NAME: runs harness NAME; its report goes to $work/NAME.result.
fuzz()
{
	local name=$1 prog=$build/tests/fuzz/fuzz-$1 log=$work/$1.log execs rate
	if [ ! -x "$prog" ]; then
		echo "FAIL: fuzz-$name: not built in $build"
		return 1
	fi
	rm -rf "${work:?}/$name" && mkdir -p "$work/$name/tmp"
	# Leaks count (ASan's default); a slow input is a finding too.
	if TMPDIR=$work/$name/tmp "$prog" -max_total_time="$secs" \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$art/$name-" "$work/$name" "$src/corpus/$name" \
	    >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
		echo "PASS: fuzz-$name: ${execs:-?} runs in ${secs}s, ${rate:-?}/s"
	else
		echo "FAIL: fuzz-$name: $(grep -m1 -oE 'Test unit written to .*' "$log")"
		grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant broken' "$log"
		grep -m8 -E '^ +#[0-9]+ ' "$log"
		return 1
	fi
}

running=0
for name in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	fuzz "$name" >"$work/$name.result" 2>&1 &
	running=$((running + 1))
done
wait
failed=0
for name in "$@"; do
	cat "$work/$name.result"
	grep -q '^FAIL:' "$work/$name.result" && failed=$((failed + 1))
done
[ "$failed" -eq 0 ]
