#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4100-preempt: the scheduler's evictions and GPU sharing in kaid.  A
# high-priority job preempts a running low-priority one, which is
# requeued (RUNNING -> PENDING in the event log with the preemption as
# its reason, its requeue count raised, a
# reason in kqueue) and runs again later; a --no-requeue victim ends
# PREEMPTED; a kaid restart after an eviction neither loses the requeue
# nor evicts twice; a queue under its quota reclaims from one over it; two
# half-GPU jobs share one device and each sees it in its environment,
# while a whole-GPU job cannot take that device; a gang waits whole; bad
# values of the scheduling options are refused with one line.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t4100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
# One node with two GPUs: every test below fills it.
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
    labels: {kaibatch.io/rack: r1}
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# wait_reason JOBID REGEX: polls kqueue until the job's line matches.
wait_reason()
{
	local line
	for _ in $(seq 1 150); do
		line=$(as_user "$A" kqueue -j "$1" --noheader --why \
		    -o '%i %t %Q %r')
		printf '%s' "$line" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$line"
}

events()
{
	stack_psql "select coalesce(from_state, '-') || '>' || to_state
	    from events where job_id = $1 order by id" | tr '\n' ' '
}

# --- Preemption: a non-preemptible inference job takes the GPUs of a
# running train job, which goes back to the queue and runs again later.
low=$(submit --gpus-per-task=2 -o low.out --wrap "echo run; sleep 300")
ok "a train job runs on both GPUs" wait_state "$low" RUNNING
is "kqueue shows its priority (train: 50)" \
    "$(as_user "$A" kqueue -j "$low" --noheader -o '%Q')" 50
high=$(submit --priority=inference --gpus-per-task=2 --wrap "sleep 3")
# Its reason is the eviction's until the next tick, then for two seconds
# the requeue's hold (Slurm's BeginTime): a slow host's first look may
# come after that tick.
like "the victim shows PD again with the reason" \
    "$(wait_reason "$low" ' PD ')" \
    "^$low PD 50 .*(preempt|priority|requeued: held back)"
is "its requeue count is 1" \
    "$(stack_psql "select requeue_count from jobs where id = $low")" 1
like "its event log has the requeue, with the core's reason" \
    "$(events "$low")" 'RUNNING>PENDING '
is "which says it was preempted" "$(stack_psql "select reason from events
    where job_id = $low and to_state = 'PENDING' and from_state = 'RUNNING'" |
    cut -c1-33)" "preempted by higher-priority job "
# kubectl describe pod tells the same story: a Warning event "Preempted"
# with the scheduler's reason, on the victim's pod.
for _ in $(seq 1 50); do
	pev=$(kubesim_ctl "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dkai-$low-0" |
	    python3 -c 'import json, sys
for e in json.load(sys.stdin)["items"]:
    print(e.get("type"), e.get("reason"), e.get("message"))')
	printf '%s' "$pev" | grep -q Preempted && break
	sleep 0.1
done
like "its pod has a Kubernetes event Preempted with the reason" "$pev" \
    "^Warning Preempted .*(preempt|priority)"
# The pod is marked DisruptionTarget (as kube-scheduler marks the pods it
# preempts) before it is deleted.
for _ in $(seq 1 50); do
	calls=$(stack_pod_calls "kai-$low-0" | tr '\n' ';')
	case $calls in *delete*) break ;; esac
	sleep 0.1
done
like "its pod got the condition DisruptionTarget, then was deleted" \
    "$calls" "^create 201;.*patch/status 200 DisruptionTarget:PreemptionByScheduler;delete 200 grace=5;"
ok "the preemptor runs" wait_state "$high" RUNNING 300
ok "the victim's allocation was dropped" \
    test "$(stack_psql "select count(*) from allocations where job_id = $low")" = 0
ok "the preemptor completes" wait_state "$high" COMPLETED 300
ok "then the victim runs again" wait_state "$low" RUNNING 300
as_user "$A" kcancel "$low"
ok "cancelled" wait_state "$low" CANCELLED

# --- A victim that asked not to be requeued ends PREEMPTED.
nr=$(submit --no-requeue --gpus-per-task=2 --wrap "sleep 300")
ok "a --no-requeue job runs" wait_state "$nr" RUNNING 300
h2=$(submit --priority=inference --gpus-per-task=2 --wrap "sleep 1")
ok "it ends PREEMPTED when preempted" wait_state "$nr" PREEMPTED 300
is "kacct shows it PREEMPTED" \
    "$(as_user "$A" kacct -j "$nr" -P -n --format=State)" PREEMPTED
is "and it was never requeued" \
    "$(stack_psql "select requeue_count from jobs where id = $nr")" 0
ok "the preemptor ran" wait_state "$h2" COMPLETED 300

# --- kaid killed just after an eviction: the requeue is kept, nothing is
# evicted twice, and the preemptor runs.  (t4110 kills kaid at the worst
# moment, with the victim's pod still there.)
st=$(submit --gpus-per-task=2 --wrap "sleep 300")
ok "another train job runs" wait_state "$st" RUNNING 300
h3=$(submit --priority=inference --gpus-per-task=2 --wrap "sleep 30")
like "it is preempted" "$(wait_reason "$st" ' PD ')" "^$st PD "
kaid_kill9
kaid_start || bail_out "kaid did not restart"
ok "after a restart the preemptor runs" wait_state "$h3" RUNNING 300
is "the victim was requeued once" \
    "$(stack_psql "select requeue_count from jobs where id = $st")" 1
is "and preempted once" "$(events "$st")" \
    '->PENDING PENDING>CONFIGURING CONFIGURING>RUNNING RUNNING>PENDING '
like "it waits behind the preemptor, with a reason" \
    "$(wait_reason "$st" 'GPU')" "^$st PD 50 .*GPU"
as_user "$A" kcancel "$h3"
ok "then it runs again" wait_state "$st" RUNNING 300
as_user "$A" kcancel "$st"
ok "cancelled" wait_state "$st" CANCELLED 300

# --- Reclaim: "over" holds both GPUs beyond its quota of 1; a job of
# "under" (quota 1) takes one back.
kctl queue create over --gpu-quota 1 >/dev/null
kctl queue create under --gpu-quota 1 >/dev/null
o1=$(submit -p over --gpus-per-task=1 --wrap "sleep 300")
o2=$(submit -p over --gpus-per-task=1 --wrap "sleep 300")
ok "queue over runs two 1-GPU jobs" wait_state "$o2" RUNNING 300
ok "(and the first)" wait_state "$o1" RUNNING 300
u1=$(submit -p under --gpus-per-task=1 --wrap "sleep 300")
ok "a job of queue under runs by reclaim" wait_state "$u1" RUNNING 300
is "one job of over was requeued" \
    "$(stack_psql "select sum(requeue_count) from jobs where id in ($o1, $o2)")" 1
like "the newer one, with the reason" \
    "$(stack_psql "select state || ' ' || requeue_count from jobs where id = $o2")" \
    '^PENDING 1$'
as_user "$A" kcancel "$o1" "$o2" "$u1"
ok "cancelled" wait_state "$u1" CANCELLED

# --- Two half GPUs share one device; a whole GPU job cannot have it.
envcmd='env | grep -E "^(NVIDIA_VISIBLE_DEVICES|GPU_PORTION|CUDA_DEVICE_MEMORY_LIMIT)=" | sort; sleep 30'
f1=$(submit --gpu-fraction=0.5 -o f1.out --wrap "$envcmd")
f2=$(submit --gpu-fraction=0.5 -o f2.out --wrap "$envcmd")
ok "the first half runs" wait_state "$f1" RUNNING 300
ok "the second half runs" wait_state "$f2" RUNNING 300
is "both on one node" \
    "$(stack_psql "select count(distinct node) || ' ' || count(distinct gpu_mask) from allocations where job_id in ($f1, $f2)")" \
    '1 1'
w=$(submit --gpus-per-task=2 --wrap "true")
like "a 2-GPU job waits: the shared GPU is not free" \
    "$(wait_reason "$w" 'GPU')" "^$w PD .*GPU"
stack_wait_file "$T/work/f2.out" 100
sleep 1
out1=$(cat "$T/work/f1.out")
out2=$(cat "$T/work/f2.out")
dev=$(echo "$out1" | sed -n 's/^NVIDIA_VISIBLE_DEVICES=//p')
like "a device index" "$dev" '^[01]$'
is "each half sees the same device and its share (1)" "$out1" \
    "$(printf 'CUDA_DEVICE_MEMORY_LIMIT=40960m\nGPU_PORTION=0.50\nNVIDIA_VISIBLE_DEVICES=%s' "$dev")"
is "each half sees the same device and its share (2)" "$out2" "$out1"
m1=$(submit --gpu-memory=20G -o m1.out --wrap "$envcmd")
stack_wait_file "$T/work/m1.out" 150
sleep 1
is "a GPU-memory job gets a quarter of the other device" \
    "$(cat "$T/work/m1.out")" \
    "$(printf 'CUDA_DEVICE_MEMORY_LIMIT=20480m\nGPU_PORTION=0.25\nNVIDIA_VISIBLE_DEVICES=%s' $((1 - dev)))"
as_user "$A" kcancel "$f1" "$f2" "$w" "$m1"
ok "cancelled" wait_state "$w" CANCELLED

# --- Topology: a level is a node label key.
t1=$(submit --topology=kaibatch.io/rack --gpus-per-task=1 --wrap "true")
ok "a job in one rack runs" wait_state "$t1" COMPLETED 300
t2=$(submit --topology=example.com/pod -n 2 --gpus-per-task=1 --wrap "true")
like "a level no node has keeps a job waiting, with the reason" \
    "$(wait_reason "$t2" 'example.com/pod')" "^$t2 PD .*example.com/pod"
as_user "$A" kcancel "$t2"

# --- A gang waits whole.
g=$(submit -n 3 --min-tasks=3 --gpus-per-task=1 --wrap "true")
like "a 3-task gang on 2 GPUs waits with a reason" \
    "$(wait_reason "$g" 'PD .*[a-z]')" "^$g PD "
sleep 1
is "and starts no task" \
    "$(stack_psql "select state || ' ' || (select count(*) from allocations where job_id = $g) from jobs where id = $g")" \
    'PENDING 0'
as_user "$A" kcancel "$g"

# --- Bad values: one line, exit 2, nothing written.
before=$(stack_psql "select count(*) from jobs")
bad()
{
	local title=$1 msg=$2
	shift 2
	out=$(cd "$T/work" && as_user "$A" ksubmit "$@" --wrap true 2>&1)
	is "$title: exit 2 and one line" "$?:$out" "2:ksubmit: error: $msg"
}
bad "--gpu-fraction=1" 'invalid GPU fraction "1": must be a decimal above 0 and below 1' \
    --gpu-fraction=1
bad "--gpu-fraction=0" 'invalid GPU fraction "0": must be a decimal above 0 and below 1' \
    --gpu-fraction=0
bad "a fraction with whole GPUs" \
    'option "--gpu-fraction" asks for a part of one GPU: it excludes whole GPUs (--gres, --gpus, --gpus-per-node, --gpus-per-task)' \
    --gpu-fraction=0.5 --gpus-per-task=1
bad "an unknown priority class" \
    'invalid priority class "gold": must be one of train, build-preemptible, build, inference' \
    --priority=gold
bad "--min-tasks above the tasks" 'invalid min-tasks 3: the job has 2 tasks' \
    -n 2 --min-tasks=3
bad "a topology level that is no label key" \
    'invalid topology level "-rack" of option "--topology": must be a node label key' \
    --topology=-rack
bad "--gpu-memory=0" 'invalid GPU memory "0": must be above 0' --gpu-memory=0
is "nothing was written" "$(stack_psql "select count(*) from jobs")" "$before"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
