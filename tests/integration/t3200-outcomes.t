#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3200-outcomes: how a pod ends decides how the job ends, with Slurm's
# states and ExitCode "code:signal": a non-zero exit is FAILED, death by a
# signal is FAILED with the signal, the time limit is TIMEOUT, an
# OOM-killed container is OUT_OF_MEMORY, and a node that goes away is
# NODE_FAIL.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t3200.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}
acct()
{
	as_user "$A" kacct -j "$1" -P -n --format=State,ExitCode
}
pod_patch()
{
	curl -sS --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "@$KUBESIM_AUTH" -X PATCH \
	    -H 'Content-Type: application/merge-patch+json' -d "$2" \
	    "$KUBESIM_URL/api/v1/namespaces/default/pods/$1" >/dev/null
}

id=$(submit --wrap 'echo "dollar-dollar: $$" | grep -q "dollar-dollar: [0-9]" && exit 7')
ok "exit 7 is FAILED" wait_state "$id" FAILED
is "with ExitCode 7:0 (and \$\$ reached the shell intact)" "$(acct "$id")" "FAILED|7:0"

id=$(submit --wrap 'kill -9 $$')
ok "a script killed by a signal is FAILED" wait_state "$id" FAILED
is "with ExitCode 0:9" "$(acct "$id")" "FAILED|0:9"

id=$(submit -t 5 --wrap 'sleep 300')
ok "long job runs" wait_state "$id" RUNNING
like "its pod's activeDeadlineSeconds is the limit, KillWait and 10 s" \
    "$(kubesim_ctl "/api/v1/namespaces/default/pods/kai-$id-0")" '"activeDeadlineSeconds": *340'
# Bring the deadline forward rather than wait five minutes.
pod_patch "kai-$id-0" '{"spec":{"activeDeadlineSeconds":1}}'
ok "the deadline makes it TIMEOUT" wait_state "$id" TIMEOUT
is "with ExitCode 0:0, as Slurm shows it" "$(acct "$id")" "TIMEOUT|0:0"

id=$(submit --wrap 'sleep 300')
ok "job to be OOM-killed runs" wait_state "$id" RUNNING
pod_patch "kai-$id-0" '{"metadata":{"annotations":{"kubesim.kaibatch.io/oom":"true"}}}'
ok "an OOM-killed container makes it OUT_OF_MEMORY" wait_state "$id" OUT_OF_MEMORY
is "with ExitCode 0:9" "$(acct "$id")" "OUT_OF_MEMORY|0:9"

id=$(submit --wrap 'sleep 300')
ok "job on a node that will go away runs" wait_state "$id" RUNNING
node=$(stack_psql "select node from allocations where job_id = $id")
kubesim_ctl "/api/v1/nodes/$node" DELETE >/dev/null
ok "losing its node makes it NODE_FAIL" wait_state "$id" NODE_FAIL
q=$(as_user "$A" kqueue --noheader -j "$id")
is "and it leaves kqueue" "$q" ""

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
