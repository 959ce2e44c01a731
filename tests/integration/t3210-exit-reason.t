#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3210-exit-reason: why a job failed outlives its pod.  The pod's
# container keeps its last log lines as its termination message
# (FallbackToLogsOnError); kaid keeps the termination reason and message
# in the job record, and kacct (Reason, also in --json) and kctl show job
# (ExitReason=) show them after the pod is deleted.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t3210.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}
pod_gone()
{
	local i
	for i in $(seq 1 100); do
		kubesim_ctl "/api/v1/namespaces/default/pods/kai-$1-0" |
		    grep -q '"code": *404' && return 0
		sleep 0.1
	done
	return 1
}

id=$(submit --wrap 'echo "loading data"; echo "Traceback (most recent call last):"; echo "ModuleNotFoundError: No module named torch" >&2; exit 3')
ok "a failing job fails" wait_state "$id" FAILED
ok "its pod is deleted" pod_gone "$id"
is "kacct shows why, from its last log lines" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=State,ExitCode,Reason)" \
    "FAILED|3:0|Error: loading data | Traceback (most recent call last): | ModuleNotFoundError: No module named torch"
like "kctl show job: ExitReason" "$(as_user "$A" kctl show job "$id")" \
    "ExitReason=Error: loading data \\| Traceback .*No module named torch"
like "kacct --json: exit_reason" "$(as_user "$A" kacct -j "$id" --json)" \
    '"exit_reason": *"Error: loading data \| Traceback'

id=$(submit --wrap 'sleep 300')
ok "a job to be OOM-killed runs" wait_state "$id" RUNNING
curl -sS --cacert "$STACK_DIR/kubesim/ca.crt" \
    -H "Authorization: Bearer $KUBESIM_TOKEN" -X PATCH \
    -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"annotations":{"kubesim.kaibatch.io/oom":"true"}}}' \
    "$KUBESIM_URL/api/v1/namespaces/default/pods/kai-$id-0" >/dev/null
ok "it is OUT_OF_MEMORY" wait_state "$id" OUT_OF_MEMORY
like "kacct: Reason OOMKilled" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=State,Reason)" \
    '^OUT_OF_MEMORY\|OOMKilled'

# -t 0:02 is one minute (Slurm rounds seconds up to minutes); the
# wrapper's own alarm ends the job there, as Slurm does (SIGTERM, then
# SIGKILL after KillWait), before the pod's activeDeadlineSeconds.
id=$(submit -t 0:02 --wrap 'sleep 300')
ok "a job over its time limit" wait_state "$id" TIMEOUT 1500
like "kacct: TIMEOUT, with the container's end as its reason" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=State,Reason)" \
    '^TIMEOUT\|'

id=$(submit --wrap 'echo fine')
ok "a job that ends well" wait_state "$id" COMPLETED
is "has no exit reason" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=State,Reason)" "COMPLETED|"
like "and kctl show job ExitReason=(null), as scontrol shows an unset field" \
    "$(as_user "$A" kctl show job "$id")" "ExitReason=\\(null\\)"

done_testing
