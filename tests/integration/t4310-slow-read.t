#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4310-slow-read: a long read (kacct's history, kacct --report, the
# usage refresh; here each waits on a lock, as a read of a huge history
# would take its time) no longer holds up kaid: another user's kqueue is answered meanwhile, and
# database_timeout (kaid.yaml) bounds the read.  kacct used to run on
# kaid's only connection, synchronously, and everything waited for it.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4310.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
# No usage refresh during the test: it is the one periodic read of jobs.
KAID_CONF_EXTRA="scheduling:
  usage_refresh: 1h"
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
chmod 755 "$T"
mkdir -p "$T/$A" && chown "$A:" "$T/$A"
printf '#!/bin/sh\ntrue\n' >"$T/$A/job.sh"
chown "$A:" "$T/$A/job.sh"
id=$(cd "$T/$A" && as_user "$A" ksubmit --parsable -J history job.sh)
ok "alice has a finished job" wait_state "$id" COMPLETED

# lock_jobs SECONDS: reads of the jobs table wait that long.
lock_jobs()
{
	stack_psql "begin; lock table jobs in access exclusive mode;
	    select pg_sleep($1); commit;" >/dev/null &
	LOCKER=$!
	sleep 0.5
}

lock_jobs 6
as_user "$A" kacct -n -P --format=JobID,JobName,State >"$T/kacct.out" 2>&1 &
kacct_pid=$!
sleep 0.5
ok "kacct is still waiting for its read" kill -0 "$kacct_pid"
out=$(as_user "$B" timeout 4 kqueue --noheader 2>&1)
is "meanwhile bob's kqueue is answered" "$?" 0
out=$(timeout 4 kai-rawreq --ping 2>&1)
like "and so is a ping" "$out" '^ok uid=0'
wait "$kacct_pid"
is "kacct answers once the read is done" "$?:$(cat "$T/kacct.out")" \
    "0:$id|history|COMPLETED"
wait "$LOCKER"

# database_timeout: a read that takes longer fails, with one line.
kaid_stop
KAID_CONF_EXTRA="$KAID_CONF_EXTRA
database_timeout: 1s"
stack_write_conf "$T"
kaid_start || bail_out "kaid did not restart"
lock_jobs 6
out=$(as_user "$A" kacct -n -P 2>&1)
is "a read over database_timeout: kacct exits 1" "$?" 1
like "with the reason" "$out" \
    '^kacct: error: could not query jobs: canceling statement due to statement timeout$'
out=$(as_user "$B" timeout 4 kqueue --noheader 2>&1)
is "kqueue is answered all along" "$?" 0
wait "$LOCKER"
is "and kacct answers again afterwards" \
    "$(as_user "$A" kacct -n -P --format=JobID,State 2>&1)" "$id|COMPLETED"
out=$(as_user "$A" kacct --report -S now-1days -E now -n -P 2>&1)
is "kacct --report goes the same way" "$?" 0
like "and reports alice's job" "$out" "$A"

# The usage refresh (every scheduling.usage_refresh) reads the jobs table
# too: while it waits, the ticks and the clients go on.
kaid_stop
KAID_CONF_EXTRA="scheduling:
  usage_refresh: 1s"
stack_write_conf "$T"
kaid_start || bail_out "kaid did not restart"
sleep 1.5
lock_jobs 10
sleep 2		# a refresh is now waiting for the lock
out=$(as_user "$B" timeout 4 kqueue --noheader 2>&1)
is "kqueue is answered while a usage refresh waits" "$?" 0
out=$(as_user "$B" timeout 4 kshare 2>&1)
is "and kshare, from the last tick's figures" "$?" 0
wait "$LOCKER"
ok "kaid is still up" kill -0 "$(cat "$T/kaid.pid")"

done_testing
