# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# munge.sh: a private munged for one test (sourced, POSIX sh).
#
#   munge_available          true when munged and mungekey are installed
#   munge_start DIR          new key in DIR, munged on DIR/munge.sock;
#                            sets MUNGE_SOCKET; returns non-zero with a
#                            message on stderr when munged will not start
#   munge_stop DIR           stops the munged whose pid DIR/munged.pid holds
#
# Everything munged needs (key, socket, log, pid and seed files) lives in
# DIR, so tests never touch the system's /etc/munge or each other; the
# daemon is stopped only through the pid file it wrote.  munged insists
# that every directory above its socket be searchable by all, so DIR is
# made mode 755.  --force lets it start under a TMPDIR whose permissions
# it would otherwise refuse (group-writable parents, running as root).

MUNGED=${MUNGED:-/usr/sbin/munged}
MUNGEKEY=${MUNGEKEY:-/usr/sbin/mungekey}

munge_available() {
	test -x "$MUNGED" && test -x "$MUNGEKEY"
}

munge_start() {
	_md=$1
	mkdir -p "$_md" && chmod 755 "$_md" || return 1
	rm -f "$_md/munge.key"
	if ! "$MUNGEKEY" --create --keyfile="$_md/munge.key" >/dev/null 2>&1; then
		echo "munge_start: mungekey could not create $_md/munge.key" >&2
		return 1
	fi
	if ! "$MUNGED" --force --socket="$_md/munge.sock" \
	    --key-file="$_md/munge.key" --log-file="$_md/munged.log" \
	    --pid-file="$_md/munged.pid" --seed-file="$_md/munged.seed" \
	    >"$_md/munged.out" 2>&1; then
		echo "munge_start: munged did not start:" >&2
		cat "$_md/munged.out" "$_md/munged.log" >&2 2>/dev/null
		return 1
	fi
	# munged daemonizes only once its socket is listening, but the pid
	# file may lag a moment behind.
	_mi=0
	while ! test -s "$_md/munged.pid" || ! test -S "$_md/munge.sock"; do
		_mi=$((_mi + 1))
		if test "$_mi" -gt 50; then
			echo "munge_start: no socket or pid file in $_md" >&2
			return 1
		fi
		sleep 0.1
	done
	MUNGE_SOCKET=$_md/munge.sock
	export MUNGE_SOCKET
}

munge_stop() {
	_md=$1
	test -s "$_md/munged.pid" || return 0
	_mp=$(cat "$_md/munged.pid")
	if kill "$_mp" 2>/dev/null; then
		_mi=0
		while kill -0 "$_mp" 2>/dev/null && test "$_mi" -lt 50; do
			_mi=$((_mi + 1))
			sleep 0.1
		done
	fi
	rm -f "$_md/munged.pid"
}
