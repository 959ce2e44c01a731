#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# db-usage.t: runs tests/unit/db-usage against a private PostgreSQL cluster
# in a temporary directory, and removes the cluster afterwards.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

# shellcheck source=tests/lib/pg.sh
. "$top_srcdir/tests/lib/pg.sh"

if ! pg_find_bindir; then
	echo "1..0 # SKIP initdb not found"
	exit 0
fi

# Short, because the server's socket lives in it.
dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-db.XXXXXX") || exit 1
trap 'pg_stop "$dir"; rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM

if ! pg_start "$dir"; then
	echo "Bail out! could not start PostgreSQL"
	exit 1
fi
"$top_builddir/tests/unit/db-usage" "$PG_CONNINFO"
