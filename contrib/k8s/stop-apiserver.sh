#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# stop-apiserver.sh DIR: stops what start-apiserver.sh DIR started, by
# its pid files: kube-apiserver first (it drains in 1-2 s), then etcd.
# SIGTERM, then SIGKILL after 10 s.  Exits 0 when nothing of DIR runs.

set -u
[ $# -eq 1 ] || { echo "usage: stop-apiserver.sh DIR" >&2; exit 2; }
D=$1

stop_pid() {
	f=$D/$1.pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	if kill "$pid" 2>/dev/null; then
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$f"
}

stop_pid apiserver
stop_pid etcd
exit 0
