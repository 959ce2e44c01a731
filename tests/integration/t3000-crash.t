#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3000-crash: kaid killed with SIGKILL at the worst moments loses nothing
# and runs nothing twice: right after "Submitted batch job N", and between
# the commit of a placement and the creation of its pod.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t3000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

pods_created()
{
	grep "\"method\": *\"POST\", *\"path\": *\"/api/v1/namespaces/default/pods\"" \
	    "$T/kubesim.record" | grep "\"kai-$1-0\"" | grep -c '"status": *201'
}

# 1. Killed right after the reply: the job is durable and runs once.
id=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "echo ran >>$W/runs-\$SLURM_JOB_ID")
kaid_kill9
like "reply was a job id" "$id" '^[0-9]+$'
is "the job is in the database" "$(stack_psql "select count(*) from jobs where id = $id")" 1
kaid_start || bail_out "kaid did not restart"
ok "the job completes after the restart" wait_state "$id" COMPLETED
is "it ran exactly once" "$(cat "$W/runs-$id")" "ran"
is "exactly one pod was created" "$(pods_created "$id")" 1

# 2. Killed between the placement commit and the pod: kubesim refuses pod
# creation, so the placement is committed (CONFIGURING) and no pod exists.
kubesim_ctl "/kubesim/fail?verb=create&resource=pods&code=503" POST >/dev/null
id=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "echo ran >>$W/runs-\$SLURM_JOB_ID")
ok "placement committed" wait_state "$id" CONFIGURING
kaid_kill9
is "no pod exists yet" "$(pods_created "$id")" 0
kubesim_ctl "/kubesim/fail" DELETE >/dev/null
kaid_start || bail_out "kaid did not restart"
ok "the job completes after the restart" wait_state "$id" COMPLETED
is "it ran exactly once" "$(cat "$W/runs-$id")" "ran"
is "exactly one pod was created" "$(pods_created "$id")" 1

# 3. Killed after the pod exists but before kaid saw it run: adopted.
kubesim_ctl "/kubesim/fail?verb=create&resource=bindings&code=503" POST >/dev/null
id=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "echo ran >>$W/runs-\$SLURM_JOB_ID")
for _ in $(seq 1 100); do
	[ "$(pods_created "$id")" = 1 ] && break
	sleep 0.1
done
kaid_kill9
kubesim_ctl "/kubesim/fail" DELETE >/dev/null
kaid_start || bail_out "kaid did not restart"
ok "a created but unbound pod is adopted and the job completes" wait_state "$id" COMPLETED
is "it ran exactly once" "$(cat "$W/runs-$id")" "ran"
is "still exactly one pod" "$(pods_created "$id")" 1

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
