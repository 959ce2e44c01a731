#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# shellcheck.t: the shell kaid puts in pods (pod/*.sh) and the script that
# compiles it are shellcheck clean, at every severity (style included).

. "$top_srcdir/tests/lib/tap.sh"
command -v shellcheck >/dev/null 2>&1 || skip_all "shellcheck is not installed"

for f in "$top_srcdir"/pod/*.sh "$top_srcdir/build-aux/pod2c.sh"; do
	out=$(shellcheck -S style "$f" 2>&1)
	is "shellcheck ${f#"$top_srcdir"/}" "$out" ""
done
done_testing
