#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9050-native-share: batch jobs and Kubernetes-native workloads share one
# set of queues and one fair share (issue 13), on the real-API tier.
#  - Queue sb (GPU quota 0, weight 1) gets ksubmit jobs, queue inf (quota
#    0, weight 3) bare pods labelled kai.scheduler/queue=inf; both ask
#    for more GPUs
#    than the node has, the batch jobs first.  While both wait, the GPUs
#    go 1:3: the pods' queue holds about three quarters of them, however
#    early the batch jobs came (first come, first served would give them
#    all to the batch jobs).  The waiting pods are told why in a few
#    FailedScheduling events, not one a tick.
#  - kaid killed (SIGKILL) again and again while native pods are being
#    scheduled binds each pod once: the decision is committed before the
#    bind, and a restarted kaid binds what was decided and not bound,
#    never twice (the API server's audit log counts the binds).

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "pods made outside kaid need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9050.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 32
    memory: 128Gi
    gpus: 4
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

native_setup team-a ""
kctl queue create sb --gpu-quota 0 --gpu-weight 1 >/dev/null || bail_out "could not create sb"
kctl queue create inf --gpu-quota 0 --gpu-weight 3 >/dev/null || bail_out "could not create inf"

# mkpod NAME QUEUE GPUS SECONDS: a bare pod of kai-scheduler.
mkpod() {
	local res='{"cpu": "500m", "memory": "64Mi"}' lim='{}'
	[ "$3" -gt 0 ] && lim="{\"nvidia.com/gpu\": \"$3\"}"
	kc -n "$NS" create -f - >/dev/null <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "labels": {"kai.scheduler/queue": "$2"}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep $4"],
   "resources": {"requests": $res, "limits": $lim}}]}}
EOJ
}

# --- One fair share for both.
for i in $(seq 1 24); do
	(cd "$T/work" && as_user "$A" ksubmit -p sb --gpus-per-task=1 -o /dev/null \
	    --wrap "sleep 5") >/dev/null || bail_out "could not submit"
done
for i in $(seq 1 24); do
	mkpod "inf-$i" inf 1 5 || bail_out "could not create pod inf-$i"
done
# running PARTITION: GPUs its running jobs hold; pending PARTITION: jobs
# still waiting.
count() { kqueue -h -p "$1" -t "$2" -o %i 2>/dev/null | grep -c .; }
# A sample: both queues wait and at least 3 of the 4 GPUs are held.  A
# GPU between a job's end and the next one's start (a tick, a pod's
# start) is no one's share: with jobs of a few seconds all 4 are held
# only part of the time, and a loaded host takes few samples.
samples=0 inf_sum=0 sb_sum=0
for _ in $(seq 1 120); do
	ps=$(count sb PD) pi=$(count inf PD)
	[ "$ps" -gt 0 ] && [ "$pi" -gt 0 ] || { [ "$samples" -gt 0 ] && break; }
	rs=$(count sb R) ri=$(count inf R)
	if [ $((rs + ri)) -ge 3 ]; then
		samples=$((samples + 1))
		sb_sum=$((sb_sum + rs))
		inf_sum=$((inf_sum + ri))
	fi
	sleep 0.5
done
held=$((sb_sum + inf_sum))
diag "while both queues waited: $samples samples, sb held $sb_sum, inf $inf_sum GPU-samples"
ok "both queues were saturated long enough to measure ($samples samples)" \
    test "$samples" -ge 10
share=$(( held > 0 ? 100 * inf_sum / held : 0 ))
ok "the pods' queue (weight 3) held about 3/4 of the GPUs: ${share}%" \
    test "$share" -ge 60 -a "$share" -le 90
ok "the batch queue (weight 1) was not starved: $((100 - share))%" \
    test $((8 * sb_sum)) -ge "$held"
# The pods that waited longest were told why as FailedScheduling events:
# a new reason code at once, new words of a code (the count of jobs
# ahead changes as they start) at most once a minute, not every tick.
evs=$(kc -n "$NS" get events --field-selector involvedObject.name=inf-24 \
    -o jsonpath='{range .items[*]}{.reason}|{.message}{"\n"}{end}' | grep '^FailedScheduling|')
diag "inf-24's reasons: $(printf '%s' "$evs" | tr '\n' ';')"
ok "the last pod was told why it waited" test -n "$evs"
ok "in a few events, not one a tick ($(printf '%s\n' "$evs" | grep -c .))" \
    test "$(printf '%s\n' "$evs" | grep -c .)" -le 4

# --- kaid killed while native pods are bound: each is bound once.
for round in 1 2 3; do
	for i in $(seq 1 6); do
		mkpod "k$round-$i" inf 0 1 || bail_out "could not create pod k$round-$i"
	done
	sleep "0.$((round * 2))"
	kill -9 "$(cat "$T/kaid.pid")"
	sleep 0.5
	kaid_start || bail_out "kaid did not restart"
done
bound_all() {
	local p
	for p in $(seq 1 6); do
		for round in 1 2 3; do
			[ -n "$(kc -n "$NS" get pod "k$round-$p" -o jsonpath='{.spec.nodeName}')" ] ||
			    return 1
		done
	done
}
ok "after three kills, every pod is bound" bound_all
twice=0
for round in 1 2 3; do
	for i in $(seq 1 6); do
		n=$(stack_pod_calls "$NS/k$round-$i" | grep -c '^bind 201')
		[ "$n" -eq 1 ] || { diag "pod k$round-$i bound $n times"; twice=$((twice + 1)); }
	done
done
is "each pod was bound exactly once (the audit log's binds)" "$twice" 0

done_testing
