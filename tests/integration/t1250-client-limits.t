#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1250-client-limits: what one hostile client can make kaid hold on its
# client port is bounded (limits in kaid.yaml(5)), and kaid keeps serving
# the others meanwhile.  Each attack is made as a client would make it
# (tests/tools/kai-attack.py), from its own loopback address:
# unauthenticated almost-full frames, credentials that never finish, a
# header sent one byte at a time, idle connections, too many connections
# from one address and in all, a long answer nobody reads, and accept()
# out of descriptors.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t1250.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA='limits:
  connections: 150
  connections_per_peer: 40
  header_timeout: 1s
  idle_timeout: 3s
  output_size: 1M'
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE

attack()
{
	python3 "$top_srcdir/tests/tools/kai-attack.py" --port "$KAID_PORT" "$@"
}

# rss_kb [FIELD]: kaid's VmRSS (or FIELD of /proc/PID/status), in KiB.
rss_kb()
{
	awk -v f="${1:-VmRSS}:" '$1 == f { print $2 }' "/proc/$(cat "$T/kaid.pid")/status"
}

# bg CMD...: runs CMD in the background, its pid added to $pids; reap
# waits for them (not for the stack's daemons, which are children too).
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

served()
{
	as_user "$A" kqueue --noheader >/dev/null 2>&1
}

# 1. 120 unauthenticated peers each send all but the last byte of a
# 1 MiB frame behind a garbage credential.  kaid reads the credential,
# refuses it and closes, instead of holding 120 MiB.
before=$(rss_kb VmHWM)
for src in 127.0.0.2 127.0.0.3 127.0.0.4; do
	bg attack --src "$src" --seconds 4 hold 40 garbage >"$T/garbage.$src"
done
sleep 1.5
ok "kqueue is served during the unauthenticated flood" served
reap
peak=$(rss_kb VmHWM)
is "every unauthenticated frame is refused and closed" \
    "$(cat "$T"/garbage.* | sort -u)" "closed=40 open=0
refused: invalid credential: Failed to match armor prefix"
growth=$(( (peak - before) / 1024 ))
ok "kaid's peak grew by less than 24 MiB for 120 MiB of frames (${growth} MiB)" \
    test "$growth" -lt 24

# 2. Credentials that never finish: the header timeout ends them.
out=$(attack --src 127.0.0.5 --seconds 3 hold 40 partial)
is "credentials that never finish are closed after the header timeout" \
    "$out" "closed=40 open=0
refused: request header and credential not received within 1000 ms"

# 3. Slowloris: a header one byte at a time.
bg attack --src 127.0.0.6 --interval 0.3 --seconds 10 slow >"$T/slow"
sleep 0.5
ok "kqueue is served while a header trickles in" served
reap
like "a trickled header is cut off by the header timeout" "$(cat "$T/slow")" \
    '^closed after [12] s: request header and credential not received within 1000 ms$'

# 4. Idle connections are closed after the idle timeout.
is "idle connections are closed after the idle timeout" \
    "$(attack --src 127.0.0.7 --seconds 5 hold 10 idle)" "closed=10 open=0"

# 5. One address may hold 40 connections; the others are served.
bg attack --src 127.0.0.8 --seconds 2 hold 45 idle >"$T/peer"
sleep 1
ok "kqueue (another address) is served while one address is at its limit" \
    served
reap
is "the 41st connection from one address is refused" "$(cat "$T/peer")" \
    "closed=5 open=40
refused: too many connections from 127.0.0.8 (40)"

# 6. 150 connections in all: the next is refused with a one-line reason,
# and the idle timeout frees the slots while the attacker still holds
# them (kai-attack's "closed=40" says kaid closed every one).
for src in 127.0.0.9 127.0.0.10 127.0.0.11 127.0.0.12; do
	bg attack --src "$src" --seconds 12 --ready "$T/ready.$src" \
	    hold 40 idle >"$T/all.$src"
done
for src in 127.0.0.9 127.0.0.10 127.0.0.11 127.0.0.12; do
	stack_wait_file "$T/ready.$src" 100
done
out=$(as_user "$A" kqueue --noheader 2>&1)
rc=$?
is "a client past the total limit is refused: exit 1" "$rc" 1
is "  with one line that says why" "$out" \
    "kqueue: error: kaid holds 150 connections, its limit
hint: try again later; the limit is limits.connections in kaid.yaml"
for _ in $(seq 1 80); do
	served && break
	sleep 0.1
done
ok "the idle timeout frees the slots: kqueue is served again" served
reap
is "every hoarded connection was closed or refused" \
    "$(cat "$T"/all.* | grep -c '^closed=40 open=0$')" 4

# 7. A long answer nobody reads: kaid makes it as the client reads
# (server_stream), so it holds a few hundred KiB for it, never the whole
# answer, and closes it at limits.idle_timeout.
stack_psql "insert into jobs (uid, gid, queue, state, submit_time, end_time,
    script, workdir) select 1000, 1000, 'batch', 'COMPLETED',
    extract(epoch from now())::bigint - g, extract(epoch from now())::bigint,
    'x', '/' || repeat('w', 400) from generate_series(1, 20000) g" ||
    bail_out "could not insert finished jobs"
kai-rawreq --make-query-body 0 3 "$T/q.bin" || bail_out "no query body"
kai-rawreq --type 4 --body-file "$T/q.bin" --save "$T/q.frame" --no-send ||
    bail_out "could not make the query frame"
bg attack --seconds 6 noread "$T/q.frame" >"$T/noread"
sleep 1
ok "kqueue is served while an answer waits unread" served
reap
like "a client that does not read its answer is closed" "$(cat "$T/noread")" \
    '^closed after [0-9]+ bytes$'
like "  and kaid says why" "$(cat "$T/kaid.log")" \
    'answer bytes not read within 3000 ms: closed'
# The same answer, 20,000 records of about 450 bytes (9 MB, nine times
# limits.output_size), to a client that reads it: whole.
out=$(kqueue --noheader -t CD -o %i | wc -l)
is "an answer larger than limits.output_size reaches a client that reads" \
    "$out" 20000
out=$(kqueue --noheader -t CD -o %i | sort -n | uniq | wc -l)
is "  every record once" "$out" 20000

# 8. accept() out of descriptors: kaid pauses accepting instead of
# spinning, and serves again once descriptors are free.
kaid_stop
KAID_CONF_EXTRA='limits:
  connections: 1000
  connections_per_peer: 1000
  idle_timeout: 3s'
stack_write_conf "$T"
: >"$T/kaid.log"
(ulimit -n 64 && kaid_start) || bail_out "could not restart kaid"
pid=$(cat "$T/kaid.pid")
bg attack --src 127.0.0.13 --seconds 8 hold 100 idle >"$T/emfile"
sleep 1
t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
sleep 3
t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
ok "out of descriptors, kaid does not spin ($((t1 - t0)) ticks in 3 s)" \
    test $((t1 - t0)) -lt 100
ok "kqueue is served while the descriptors run out" served
reap
lines=$(grep -c 'could not accept' "$T/kaid.log")
ok "the accept failure is logged once, not in a loop ($lines lines)" \
    test "$lines" -ge 1 -a "$lines" -le 3
ok "kaid serves clients afterwards" served

# 9. A long answer from kaid's memory (kqueue of the active jobs): 5,000
# held jobs of about 450 bytes each, twice limits.output_size, whole.
kaid_stop
stack_psql "insert into jobs (uid, gid, queue, state, submit_time, script,
    workdir, hold) select 1000, 1000, 'batch', 'PENDING',
    extract(epoch from now())::bigint, 'x', '/' || repeat('w', 400), true
    from generate_series(1, 5000) g" >/dev/null ||
    bail_out "could not insert pending jobs"
KAID_CONF_EXTRA='limits:
  output_size: 1M'
stack_write_conf "$T"
kaid_start || bail_out "could not restart kaid"
out=$(kqueue --noheader -o %i | sort -n | uniq | wc -l)
is "kqueue of 5,000 active jobs (2 MB) is whole, each job once" "$out" 5000

done_testing
