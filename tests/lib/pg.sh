# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# pg.sh: a private, throwaway PostgreSQL cluster for tests.
#
# Source this file, then
#
#	pg_find_bindir || { echo "1..0 # SKIP initdb not found"; exit 0; }
#	pg_start "$dir" || exit 1
#	... connect with "$PG_CONNINFO" (PGHOST, PGDATABASE, PGUSER are exported)
#	pg_stop "$dir"
#
# The cluster lives in DIR/pgdata, logs to DIR/pg.log and listens only on a
# unix socket in DIR (no TCP port, so parallel tests never collide).  DIR
# should be short: a unix socket path is limited to about 100 bytes, which
# is why callers make it with mktemp -d under /tmp rather than in the build
# tree.  Authentication is "trust" for the superuser "kaibatch", and fsync
# stays on so that timings resemble a real server.
#
# initdb and postgres refuse to run as root; when the tests run as root the
# server runs as the unprivileged user PG_TEST_USER (default "nobody"), DIR
# is handed to that user, and root connects through the socket.  The server
# is stopped with pg_ctl, which reads the pid file this cluster wrote.

PG_BINDIR=

# Finds initdb, pg_ctl and postgres: pg_config --bindir, then the Debian
# layout, then PATH.  Sets PG_BINDIR; returns 1 when there is no initdb.
pg_find_bindir()
{
	for d in "$(pg_config --bindir 2>/dev/null)" \
	    /usr/lib/postgresql/*/bin \
	    "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")"; do
		if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			PG_BINDIR=$d
			return 0
		fi
	done
	return 1
}

# Runs a command as the cluster's owner: directly, or through runuser or
# setpriv when we are root.
pg_as_owner()
{
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "${PG_TEST_USER:-nobody}" -- "$@"
	else
		setpriv --reuid="${PG_TEST_USER:-nobody}" \
		    --regid="$(id -g "${PG_TEST_USER:-nobody}")" --clear-groups \
		    -- "$@"
	fi
}

# pg_initdb DATADIR LOG: a fresh data directory in DATADIR.  An initdb
# costs over a second of CPU, and every integration test starts a cluster
# or two: the first initdb of a build keeps its result as a template in
# the build (tests/pg-template-*, one per server version and owner;
# none without top_builddir), and the others copy it.
pg_initdb()
{
	_v=${PG_BINDIR%/bin}
	_t=
	[ -n "${top_builddir:-}" ] &&
	    _t=$top_builddir/tests/pg-template-${_v##*/}-$(id -u)-${PG_TEST_USER:-nobody}
	if [ -n "$_t" ] && [ -f "$_t/PG_VERSION" ] && cp -a "$_t" "$1"; then
		return 0
	fi
	rm -rf "$1"
	pg_as_owner "$PG_BINDIR/initdb" -D "$1" -A trust -U kaibatch -E UTF8 \
	    --locale=C --no-sync >"$2" 2>&1 || return 1
	# Made whole under another name, then renamed: a test running
	# beside this one never copies half a template.
	if [ -n "$_t" ] && [ ! -d "$_t" ] && cp -a "$1" "$_t.$$" 2>/dev/null; then
		mv -T "$_t.$$" "$_t" 2>/dev/null
		rm -rf "$_t.$$"
	fi
	return 0
}

# pg_start DIR: initdb, start, create database "kaibatch".  On failure the
# tail of the log goes to stderr and the status is 1.
pg_start()
{
	pg_dir=$1
	if [ -z "$PG_BINDIR" ] && ! pg_find_bindir; then
		echo "pg_start: initdb not found" >&2
		return 1
	fi
	mkdir -p "$pg_dir" || return 1
	if [ "$(id -u)" -eq 0 ]; then
		chown "${PG_TEST_USER:-nobody}" "$pg_dir" || return 1
	fi
	chmod 700 "$pg_dir"
	if ! pg_initdb "$pg_dir/pgdata" "$pg_dir/initdb.log"; then
		echo "pg_start: initdb failed:" >&2
		tail -n 20 "$pg_dir/initdb.log" >&2
		return 1
	fi
	if ! pg_as_owner "$PG_BINDIR/pg_ctl" -D "$pg_dir/pgdata" \
	    -l "$pg_dir/pg.log" \
	    -o "-k $pg_dir -c listen_addresses='' -c fsync=on" \
	    -w -t 60 start >/dev/null 2>&1; then
		echo "pg_start: could not start postgres:" >&2
		tail -n 20 "$pg_dir/pg.log" >&2
		return 1
	fi
	PGHOST=$pg_dir
	PGUSER=kaibatch
	PGDATABASE=kaibatch
	export PGHOST PGUSER PGDATABASE
	unset PGPORT PGPASSWORD PGSERVICE
	PG_CONNINFO="host=$pg_dir user=kaibatch dbname=kaibatch"
	export PG_CONNINFO
	if ! "$PG_BINDIR/createdb" -h "$pg_dir" -U kaibatch kaibatch \
	    >>"$pg_dir/pg.log" 2>&1; then
		echo "pg_start: could not create database \"kaibatch\"" >&2
		return 1
	fi
	return 0
}

# pg_restart DIR: starts again a cluster pg_start made and pg_stop stopped
# (an outage of the database under a running kaid).
pg_restart()
{
	pg_dir=$1
	pg_as_owner "$PG_BINDIR/pg_ctl" -D "$pg_dir/pgdata" \
	    -l "$pg_dir/pg.log" \
	    -o "-k $pg_dir -c listen_addresses='' -c fsync=on" \
	    -w -t 60 start >/dev/null 2>&1
}

# pg_stop DIR: stops the cluster started in DIR (fast shutdown, by the pid
# file in DIR/pgdata).  Safe to call when it is not running.
pg_stop()
{
	pg_dir=$1
	if [ -z "$PG_BINDIR" ] && ! pg_find_bindir; then
		return 0
	fi
	if [ -f "$pg_dir/pgdata/postmaster.pid" ]; then
		pg_as_owner "$PG_BINDIR/pg_ctl" -D "$pg_dir/pgdata" -m fast \
		    -w -t 60 stop >/dev/null 2>&1
	fi
	return 0
}
