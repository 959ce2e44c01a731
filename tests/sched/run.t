#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run.t: every scheduler scenario in tests/sched is a test.  Runs
# "ksim --check" on each *.yaml and prints one TAP line per file; a
# failing file shows ksim's mismatch lines as diagnostics.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"

ksim=$top_builddir/clients/ksim
[ -x "$ksim" ] || skip_all "$ksim not built"

for f in "$top_srcdir"/tests/sched/*.yaml; do
	name=$(basename "$f" .yaml)
	out=$("$ksim" --check "$f" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		tap_result 0 "$name"
	else
		tap_result 1 "$name (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
done_testing
