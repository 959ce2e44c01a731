#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4110-preempt-crash: an eviction is committed before the victim's pods
# are deleted; a refused delete is asked again at a later tick, and a
# kaid killed in between redoes the delete after its restart.  kubesim
# refuses the delete, so the victim is requeued while
# its pod still runs: the preemptor waits for what that pod holds (it is
# not placed on top of it, and nothing else is evicted for it); after
# kaid is killed and the refusal lifted, the restarted kaid deletes the
# pod, and the preemptor runs.  Needs kubesim's failure injection.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t4110.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

reason()
{
	as_user "$A" kqueue -j "$1" --noheader --why -o '%t %r'
}

pod_of()
{
	kubesim_ctl "/api/v1/namespaces/default/pods/kai-$1-0"
}

# --- A refused delete is asked again at a later tick.
v=$(submit --gpus-per-task=2 --wrap "sleep 300")
ok "a train job runs on both GPUs" wait_state "$v" RUNNING
kubesim_ctl "/kubesim/fail?verb=delete&resource=pods&code=503" POST >/dev/null
p=$(submit --priority=inference --gpus-per-task=2 --wrap "sleep 1")
ok "it is requeued by the preemption" wait_state "$v" PENDING
sleep 1
like "its pod stays while deletes are refused" "$(pod_of "$v")" \
    '"phase": *"Running"'
like "the preemptor waits" "$(reason "$p")" \
    '^PD waiting for resources that preempted jobs are releasing$'
kubesim_ctl "/kubesim/fail" DELETE >/dev/null
ok "once deletes work again the preemptor runs" wait_state "$p" COMPLETED
ok "and the victim after it" wait_state "$v" RUNNING
as_user "$A" kcancel "$v"
ok "cancelled" wait_state "$v" CANCELLED

# --- Killed between the commit and the delete: the restart redoes it.
low=$(submit --gpus-per-task=2 --wrap "sleep 300")
ok "another one runs" wait_state "$low" RUNNING
kubesim_ctl "/kubesim/fail?verb=delete&resource=pods&code=503" POST >/dev/null
high=$(submit --priority=inference --gpus-per-task=2 --wrap "sleep 2")
ok "it is requeued by the preemption" wait_state "$low" PENDING
is "its requeue is committed" \
    "$(stack_psql "select requeue_count from jobs where id = $low")" 1
like "its pod is still there: the delete was refused" "$(pod_of "$low")" \
    '"phase": *"Running"'
sleep 2
like "the preemptor waits for what that pod holds" "$(reason "$high")" \
    '^PD waiting for resources that preempted jobs are releasing$'
is "nothing else was evicted, nothing runs" \
    "$(stack_psql "select count(*) from events where reason like 'preempted by %' and job_id <> $v")/$(stack_psql "select count(*) from jobs where state in ('CONFIGURING', 'RUNNING')")" \
    '1/0'
kaid_kill9
kubesim_ctl "/kubesim/fail" DELETE >/dev/null
kaid_start || bail_out "kaid did not restart"
ok "after the restart the preemptor runs" wait_state "$high" RUNNING
ok "and completes" wait_state "$high" COMPLETED
ok "then the victim runs again" wait_state "$low" RUNNING
is "requeued once, preempted once" \
    "$(stack_psql "select requeue_count || ' ' || (select count(*) from events where job_id = $low and reason like 'preempted by %') from jobs where id = $low")" \
    '1 1'
as_user "$A" kcancel "$low"
ok "cancelled" wait_state "$low" CANCELLED

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
