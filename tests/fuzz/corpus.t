#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# corpus: every fuzz harness replays its corpus (tests/fuzz/corpus/NAME/,
# the seeds and every crash the fuzzers found) in this build.  In a gcc
# build a harness fails on its own checks (round trips); with
# --enable-sanitizers or --enable-fuzzing ASan and UBSan watch too.

. "$top_srcdir/tests/lib/tap.sh"

corpus=$top_srcdir/tests/fuzz/corpus
n=0
for dir in "$corpus"/*/; do
	name=$(basename "$dir")
	prog=$top_builddir/tests/fuzz/fuzz-$name
	if [ ! -x "$prog" ]; then
		tap_result 1 "$name: harness tests/fuzz/fuzz-$name is built"
		continue
	fi
	files=("$dir"*)
	out=$("$prog" "${files[@]}" 2>&1)
	rc=$?
	tap_result $rc "$name: ${#files[@]} inputs replay without a fault"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
	n=$((n + 1))
done
# A harness without a corpus would be fuzzed from nothing and replay
# nothing here.
for prog in "$top_builddir"/tests/fuzz/fuzz-*; do
	name=${prog##*/fuzz-}
	[ -f "$prog" ] && [ -x "$prog" ] && [ "$name" != seeds ] || continue
	ok "$name: has a corpus" test -d "$corpus/$name"
done
ok "corpora found" test "$n" -gt 0

# The frame and message seeds are what the encoders write today: after a
# change of the wire format they must be rewritten (make fuzz-seeds), or
# the fuzzers would start from frames kaid refuses at the header.
seeds=$(mktemp -d) || bail_out "mktemp failed"
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds/frame" "$seeds/msg"
if "$top_builddir/tests/fuzz/fuzz-seeds" "$seeds"; then
	for kind in frame msg; do
		stale=$(cd "$seeds/$kind" && for f in seed-*; do
			cmp -s "$f" "$corpus/$kind/$f" || echo "$f"
		done)
		is "$kind: the seeds are the encoders' (else: make fuzz-seeds)" \
		    "$stale" ""
	done
else
	tap_result 1 "fuzz-seeds writes the seeds"
fi
done_testing
