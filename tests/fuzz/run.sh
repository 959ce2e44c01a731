#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run.sh: runs the libFuzzer harnesses of a build configured with
# CC=clang --enable-fuzzing, each for a bounded time, starting from the
# corpus in the tree (which is not modified: new inputs go to a scratch
# corpus in the build directory).
#
#	tests/fuzz/run.sh [-t SECONDS] BUILDDIR [NAME...]
#
# NAME is a harness (frame, msg, directives, ...; default: every one
# that has a corpus), SECONDS the time for each (default 15).  Prints one
# line per harness, "PASS: fuzz-NAME ..." with its executions and
# executions per second, or "FAIL: fuzz-NAME ..." with the crash input
# saved under BUILDDIR/tests/fuzz/artifacts/ and the top of its report.
# Exits 1 if any harness found a crash, a leak, a timeout or an
# out-of-memory, 2 on bad usage.
#
# To keep a crash as a regression input once it is fixed:
#	cp BUILDDIR/tests/fuzz/artifacts/NAME-crash-* tests/fuzz/corpus/NAME/

set -u
secs=15
if [ "${1:-}" = "-t" ]; then
	secs=${2:-}
	shift 2
fi
if [ $# -lt 1 ] || [ -z "$secs" ]; then
	echo "usage: run.sh [-t SECONDS] BUILDDIR [NAME...]" >&2
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
failed=0
for name in "$@"; do
	prog=$build/tests/fuzz/fuzz-$name
	log=$work/$name.log
	if [ ! -x "$prog" ]; then
		echo "FAIL: fuzz-$name: not built in $build"
		failed=$((failed + 1))
		continue
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
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
