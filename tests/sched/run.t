#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run.t: every scheduler scenario in tests/sched is a test.  Runs
# "ksim --check" on each *.yaml and prints one TAP line per file; a
# failing file shows ksim's mismatch lines as diagnostics.  The gang and
# topology scenarios that name no placement run a second time under
# frag: its node choice must keep gangs whole and tasks in their domain
# with the same outcome.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"

ksim=$top_builddir/clients/ksim
[ -x "$ksim" ] || skip_all "$ksim not built"

# check FILE NAME: one TAP line for "ksim --check FILE".
check()
{
	local out rc

	out=$("$ksim" --check "$1" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		tap_result 0 "$2"
	else
		tap_result 1 "$2 (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

for f in "$top_srcdir"/tests/sched/*.yaml; do
	check "$f" "$(basename "$f" .yaml)"
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for f in "$top_srcdir"/tests/sched/gang-*.yaml \
    "$top_srcdir"/tests/sched/topo-*.yaml; do
	grep -q '^  placement:' "$f" && continue
	name=$(basename "$f" .yaml)
	sed 's/^config:$/config:\n  placement: frag/' "$f" >"$tmp/$name.yaml"
	check "$tmp/$name.yaml" "$name (under frag)"
done
done_testing
