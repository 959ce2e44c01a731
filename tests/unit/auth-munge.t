#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# auth-munge.t: runs the auth-munge TAP program against a private munged.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/munge.sh"

if ! munge_available; then
	echo "1..0 # SKIP munged or mungekey not installed"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-auth-munge.XXXXXX") || exit 1
trap 'munge_stop "$dir"; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
if ! munge_start "$dir"; then
	echo "1..0 # SKIP could not start munged (see above)"
	exit 0
fi
"$top_builddir/tests/unit/auth-munge" "$dir/munge.sock"
