#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3100-watch-expiry: when the API server expires kaid's watches (410
# Gone), kaid relists and loses no state change: a job that finished while
# the watch was being re-established is still recorded as finished.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t3100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

id=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "sleep 2; exit 3")
ok "job runs" wait_state "$id" RUNNING
kubesim_ctl /kubesim/expire-watches POST >/dev/null
ok "job is recorded FAILED after the watch expired" wait_state "$id" FAILED
a=$(as_user "$A" kacct -j "$id" -P -n --format=State,ExitCode)
is "with the script's exit code" "$a" "FAILED|3:0"
n=$(grep -c 'pod list synced' "$T/kaid.log")
ok "kaid relisted its pods after the expiry" test "$n" -ge 2

id2=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "true")
kubesim_ctl /kubesim/expire-watches POST >/dev/null
ok "a job submitted around the expiry completes" wait_state "$id2" COMPLETED

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
