#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# clients-request.t: client_request() and kai-rawreq against a scripted
# peer, with credentials from a private munged.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/munge.sh"

if ! munge_available; then
	echo "1..0 # SKIP munged or mungekey not installed"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-clients-request.XXXXXX") || exit 1
trap 'munge_stop "$dir"; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
if ! munge_start "$dir"; then
	echo "1..0 # SKIP could not start munged (see above)"
	exit 0
fi
TMPDIR=$dir "$top_builddir/tests/unit/clients-request" "$dir/munge.sock" \
    "$top_builddir/tests/tools/kai-rawreq"
