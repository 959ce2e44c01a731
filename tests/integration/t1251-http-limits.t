#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1251-http-limits: idle connections held open to kaid's HTTP port do not
# starve the liveness probe.  A new connection past limits.http_connections
# displaces the oldest one without a request, one address holds at most
# limits.http_connections_per_peer, and a silent connection is closed
# after limits.http_timeout; /healthz answers every probe meanwhile.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
command -v curl >/dev/null 2>&1 || skip_all "curl not found"

T=$(mktemp -d /tmp/kai-t1251.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA='limits:
  http_connections: 16
  http_connections_per_peer: 8
  http_timeout: 3s'
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

attack()
{
	python3 "$top_srcdir/tests/tools/kai-attack.py" \
	    --port "$KAID_HTTP_PORT" "$@"
}

pids=()
bg()
{
	"$@" &
	pids+=($!)
}
reap()
{
	wait "${pids[@]}"
	pids=()
}

# probes N: N probes of /healthz, 0.1 s apart; prints how many got 200.
probes()
{
	local i n=0
	for i in $(seq 1 "$1"); do
		[ "$(curl -sS -m 5 -o /dev/null -w '%{http_code}' \
		    "$KAID_HTTP/healthz" 2>/dev/null)" = 200 ] && n=$((n + 1))
		sleep 0.1
	done
	echo "$n"
}

# 32 idle connections from four addresses, twice the limit, held for
# 2.5 s (less than the head timeout): every probe is answered.
for src in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5; do
	bg attack --src "$src" --seconds 2.5 http-idle 8 >"$T/idle.$src"
done
sleep 0.5
is "26 probes while 32 idle connections are held: all answered" \
    "$(probes 26)" 26
reap
is "the held connections were displaced (closed) one by one" \
    "$(cat "$T"/idle.* | awk -F'[= ]' '{ c += $2 } END { print (c >= 16) }')" 1

# One address holds at most 8: its 9th to 12th displace its own oldest.
is "one address keeps at most 8 idle connections" \
    "$(attack --src 127.0.0.6 --seconds 1 http-idle 12)" "closed=4 open=8"

# A silent connection is closed after the head timeout.
is "idle connections are closed after limits.http_timeout" \
    "$(attack --src 127.0.0.7 --seconds 4 http-idle 4)" "closed=4 open=0"
is "/healthz answers afterwards" \
    "$(curl -sS -m 5 -o /dev/null -w '%{http_code}' "$KAID_HTTP/healthz")" 200
like "displacements are counted as refused connections" \
    "$(curl -sS -m 5 "$KAID_HTTP/metrics" |
    awk '$1 == "kaibatch_http_connections_refused_total" { print $2 }')" \
    '^[1-9][0-9]*$'

done_testing
