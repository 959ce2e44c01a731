#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3400-ha: two kaid against one database; one leads, the other waits
# and forwards its clients to the leader (relay.c), or tells them in one
# line that no leader is reachable.  The leader is killed
# (-9) during a submit storm of clients that list both kaid: the standby
# leads within 10 s, every submission that was acknowledged is stored and
# runs, and no pod is created twice.  A kaid started while another leads
# is a standby, which /readyz says.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t3400.XXXXXX)
trap 'kill "$(cat "$T/kaid-b.pid" 2>/dev/null)" 2>/dev/null; stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
chmod 755 "$T"
mkdir -p "$T/$A" && chown "$A:" "$T/$A"
printf '#!/bin/sh\ntrue\n' >"$T/$A/job.sh"
chown "$A:" "$T/$A/job.sh"
like "the first kaid leads" "$(cat "$T/kaid.log")" 'leading \(epoch 1\)'

# The second kaid: the same configuration but its own ports.
B_HTTP=$(stack_free_port)
B_PORT=$(stack_free_port)
while [ "$B_PORT" = "$B_HTTP" ]; do B_PORT=$(stack_free_port); done
A_ADDR=$KAI_CONTROLLER
B_ADDR=127.0.0.1:$B_PORT
sed -e "s|^http_listen: .*|http_listen: 127.0.0.1:$B_HTTP|" \
    -e "s|^listen: .*|listen: $B_ADDR|" "$T/kaid.yaml" >"$T/kaid-b.yaml"
"$STACK_BIN/daemons/kaid/kaid" -F -f "$T/kaid-b.yaml" >"$T/kaid-b.log" 2>&1 &
echo $! >"$T/kaid-b.pid"
for _ in $(seq 1 100); do
	grep -q 'standby' "$T/kaid-b.log" && break
	sleep 0.1
done
like "the second kaid is a standby and says who leads" "$(cat "$T/kaid-b.log")" \
    'standby: kaid [^ ]+:[0-9]+ leads \(epoch 1\)'
out=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$B_HTTP/readyz" | tr '\n' ' ')
like "its /readyz says standby (503)" "$out" 'standby.* 503$'
is "its /healthz answers" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$B_HTTP/healthz")" 200

# The standby forwards: a client that reaches only it is served by the
# leader, which authenticates it as usual.
for _ in $(seq 1 50); do
	KAI_CONTROLLER=$B_ADDR kqueue --noheader >/dev/null 2>&1 && break
	sleep 0.1
done
like "the standby says where it forwards to" "$(cat "$T/kaid-b.log")" \
    "standby: forwarding clients to the leader at $A_ADDR"
id=$(cd "$T/$A" && KAI_CONTROLLER=$B_ADDR as_user "$A" ksubmit --parsable job.sh)
ok "a job submitted through the standby runs" wait_state "$id" COMPLETED
like "kacct through the standby answers" \
    "$(KAI_CONTROLLER=$B_ADDR as_user "$A" kacct -j "$id" --noheader -o JobID,State 2>&1)" \
    "^ *$id +COMPLETED"
is "the leader recorded it as the user's" \
    "$(stack_psql "select uid from jobs where id = $id")" "$(id -u "$A")"
# Garbage to the standby's port goes to the leader, which refuses it; the
# standby forwards, never reads, and stays up.
python3 - "$B_PORT" <<'EOP'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"\xff" * 64 + b"GET / HTTP/1.0\r\n\r\n")
s.shutdown(socket.SHUT_WR)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
EOP
ok "garbage through the standby does not stop it" kill -0 "$(cat "$T/kaid-b.pid")"
ok "it still forwards" env KAI_CONTROLLER="$B_ADDR" kqueue --noheader
# A list of controllers: the first that accepts is used.
ok "a list whose first kaid is down is served by the next" \
    env KAI_CONTROLLER="127.0.0.1:1,$B_ADDR" kqueue --noheader
out=$(KAI_CONTROLLER="$A_ADDR,n2:99999" kqueue --noheader 2>&1)
like "a list with a bad address is refused, naming it" "$out" \
    'invalid controller address "n2:99999"'

# A leader the standby cannot reach: its clients get one line saying so
# and a non-zero exit, not a connection closed without a word.
stack_psql "update leader set address = '127.0.0.1:1'" >/dev/null
for _ in $(seq 1 50); do
	grep -q 'forwarding clients to the leader at 127.0.0.1:1$' "$T/kaid-b.log" && break
	sleep 0.1
done
out=$(KAI_CONTROLLER=$B_ADDR kqueue --noheader 2>&1)
rc=$?
ok "a client of a standby whose leader is unreachable fails" test "$rc" -ne 0
like "in one line that says why" "$out" \
    '^kqueue: error: no leader kaid is reachable: 127\.0\.0\.1:1: Connection refused$'
ok "the standby is still up" kill -0 "$(cat "$T/kaid-b.pid")"
stack_psql "update leader set address = '$A_ADDR'" >/dev/null
for _ in $(seq 1 50); do
	KAI_CONTROLLER=$B_ADDR kqueue --noheader >/dev/null 2>&1 && break
	sleep 0.1
done
ok "it forwards again once the address is right" env KAI_CONTROLLER="$B_ADDR" kqueue --noheader

# The storm: four clients, each listing both kaid, submitting one job
# after another (fewer on
# real nodes, where each job is a container's start and stop).
per=40
[ "$STACK_API" = node ] && per=12
storm()
{
	local i
	for i in $(seq 1 "$per"); do
		(cd "$T/$A" && KAI_CONTROLLER="$A_ADDR,$B_ADDR" \
		    as_user "$A" ksubmit job.sh) 2>&1
	done >"$T/storm.$1"
}
storms=
for c in 1 2 3 4; do
	storm "$c" &
	storms="$storms $!"
done
sleep 2
killed=$(date +%s.%N)
kaid_kill9
for _ in $(seq 1 150); do
	grep -q 'leading (epoch 2)' "$T/kaid-b.log" && break
	sleep 0.1
done
took=$(python3 -c "import sys; print(round($(date +%s.%N) - $killed, 1))")
diag "the standby led $took s after the leader was killed"
like "the standby takes the lead" "$(cat "$T/kaid-b.log")" 'leading \(epoch 2\)'
ok "within 10 s" python3 -c "import sys; sys.exit(0 if $took <= 10 else 1)"
# shellcheck disable=SC2086
wait $storms

acked=$(cat "$T"/storm.* | sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' | sort -n)
nacked=$(echo "$acked" | grep -c .)
diag "$nacked of $((4 * per)) submissions acknowledged"
ok "submissions were acknowledged before and after the kill" \
    test "$nacked" -gt "$per"
stored=$(stack_psql "select count(*) from jobs where id in ($(echo "$acked" | paste -sd,))")
is "every acknowledged job is stored" "$stored" "$nacked"

done_all()
{
	[ "$(stack_psql "select count(*) from jobs where state <> 'COMPLETED'")" = 0 ]
}
n=600
[ "$STACK_API" = node ] && n=1800
for _ in $(seq 1 "$n"); do done_all && break; sleep 0.2; done
ok "every stored job ran to COMPLETED under the new leader" done_all
twice=$(stack_pods_created)
diag "pods created more than once, pods created: $twice"
like "no pod was created twice" "$twice" '^0 [1-9]'

# The old leader, started again, waits as the standby.
kaid_start
for _ in $(seq 1 100); do
	grep -q 'standby' "$T/kaid.log" && break
	sleep 0.1
done
like "the first kaid, restarted, is now the standby" "$(cat "$T/kaid.log")" \
    'standby: kaid [^ ]+ leads \(epoch 2\)'
like "and forwards its clients to the new leader" "$(cat "$T/kaid.log")" \
    "standby: forwarding clients to the leader at $B_ADDR"
id=$(cd "$T/$A" && as_user "$A" ksubmit --parsable job.sh)
ok "the new leader runs new jobs" wait_state "$id" COMPLETED

# Fencing: the epoch moves on behind the leader's back (as when another
# kaid took over while this one's connection hung).  Its next placement
# is refused by the database and it stops; no pod of its is created, and
# the standby runs the job.
stack_psql "update leader set epoch = epoch + 1" >/dev/null
id=$(cd "$T/$A" && as_user "$A" ksubmit --parsable job.sh)
for _ in $(seq 1 100); do
	kill -0 "$(cat "$T/kaid-b.pid")" 2>/dev/null || break
	sleep 0.1
done
ok "the fenced leader stops" test ! -d "/proc/$(cat "$T/kaid-b.pid")"
like "saying why" "$(cat "$T/kaid-b.log")" \
    'another kaid took the lead \(this one had epoch 2\): stopping'
ok "the standby leads and runs the job" wait_state "$id" COMPLETED 300
like "with a new epoch" "$(cat "$T/kaid.log")" 'leading \(epoch 4\)'
like "its pod was created once, as every other" "$(stack_pods_created)" '^0 [1-9]'

done_testing
