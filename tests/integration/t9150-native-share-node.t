#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9150-native-share-node: one fair share for batch jobs and inference
# pods, and a kaid killed while it binds, on the node tier (issue 13,
# "Tests"): two real nodes of 2 CPUs and 4 fake GPUs each
# (contrib/k8s/nodes-node2.yaml), the real controller-manager.  kaid
# gives each job whole CPUs, so 4 jobs of 2 GPUs fill the 8 GPUs.
#  - Queue sb (GPU quota 0, weight 1) gets sbatch jobs of 2 GPUs, queue
#    inf (quota 0, weight 3) a Deployment of 6 inference replicas of 2
#    GPUs (preemptible: a quota of 0 admits no other), made once the
#    batch jobs hold all the GPUs.  Under saturation (both queues
#    waiting) they converge to their fair shares: the inference queue
#    reclaims GPUs from the batch queue until it has 3 of the 4 places,
#    and keeps them, the batch queue runs its jobs one by one in the
#    fourth.
#  - kaid killed (SIGKILL) again and again while bare pods are being
#    bound binds each pod once: the API server's audit log counts the
#    binds.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers node -- "batch jobs and a Deployment on real nodes (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t9150.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$top_srcdir/contrib/k8s/nodes-node2.yaml" ||
    bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
chmod 755 "$T"

native_setup team-s ""
kc apply -f "$top_srcdir/contrib/kubernetes/rbac-native.yaml" >/dev/null ||
    bail_out "could not apply rbac-native.yaml"
kctl queue create sb --gpu-quota 0 --gpu-weight 1 >/dev/null || bail_out "could not create sb"
kctl queue create inf --gpu-quota 0 --gpu-weight 3 >/dev/null || bail_out "could not create inf"

# --- One fair share for both -------------------------------------------------
NB=10
for i in $(seq 1 $NB); do
	(cd "$W" && as_user "$A" ksubmit -p sb --gpus-per-task=2 -o /dev/null \
	    --wrap "sleep 5") >/dev/null || bail_out "could not submit"
done
# count PARTITION STATE: its jobs in that state.
count() { kqueue -h -p "$1" -t "$2" -o %i 2>/dev/null | grep -c .; }
ok "the batch jobs take the 4 places first" wait_for 40 eval \
    '[ $(( $(count sb R) + $(count sb CF) )) -ge 4 ]'
kc -n "$NS" create -f - >/dev/null <<EOJ || bail_out "could not create Deployment infer"
{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "infer"},
 "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "infer"}},
  "template": {"metadata": {"labels": {"app": "infer", "kai.scheduler/queue": "inf",
     "kai.scheduler/preemptibility": "preemptible"}},
   "spec": {"schedulerName": "kai-scheduler", "terminationGracePeriodSeconds": 1,
    "containers": [{"name": "c", "image": "$NODETIER_IMAGE",
     "imagePullPolicy": "Never", "command": ["sleep", "3600"],
     "resources": {"requests": {"cpu": "100m", "memory": "32Mi"},
                   "limits": {"nvidia.com/gpu": "2"}}}]}}}}
EOJ
ok "the Deployment's 6 pods are jobs of queue inf" wait_for 40 eval \
    '[ "$(count inf PD)" -ge 1 ] && [ $(( $(count inf PD) + $(count inf R) )) -eq 6 ]'
ok "the inference queue gets GPUs, reclaimed from the batch queue" \
    wait_for 40 eval '[ "$(count inf R)" -ge 1 ]'
samples=0 inf_sum=0 sb_sum=0 last=
for _ in $(seq 1 240); do
	ps=$(count sb PD) pi=$(count inf PD)
	[ "$ps" -gt 0 ] && [ "$pi" -gt 0 ] || break
	rs=$(count sb R) ri=$(count inf R)
	if [ $((rs + ri)) -eq 4 ]; then
		samples=$((samples + 1))
		sb_sum=$((sb_sum + rs))
		inf_sum=$((inf_sum + ri))
		last="$rs:$ri"
	fi
	sleep 0.5
done
diag "while both queues waited: $samples samples, sb held $sb_sum, inf $inf_sum places; last sb:inf $last"
ok "both queues were saturated long enough to measure ($samples samples)" \
    test "$samples" -ge 10
share=$(( samples > 0 ? 100 * inf_sum / (4 * samples) : 0 ))
ok "the inference queue (weight 3) held about 3/4 of the GPUs: ${share}%" \
    test "$share" -ge 60 -a "$share" -le 90
ok "the batch queue (weight 1) was not starved: $((100 - share))%" \
    test $((2 * sb_sum)) -ge "$samples"
is "at the end they held their fair shares, 1:3" "$last" "1:3"
kc -n "$NS" delete deployment infer >/dev/null
ok "the batch jobs all complete" wait_for 60 eval '[ "$(count sb PD)$(count sb R)" = 00 ]'
ok "the Deployment's pods go" wait_for 40 eval \
    '[ -z "$(kc -n "$NS" get pods -l app=infer -o name)" ]'

# --- kaid killed while pods are bound: each is bound once ---------------------
mkpod() {
	kc -n "$NS" create -f - >/dev/null <<EOJ
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "$1"},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "terminationGracePeriodSeconds": 1,
  "containers": [{"name": "c", "image": "$NODETIER_IMAGE",
   "imagePullPolicy": "Never", "command": ["sleep", "1"],
   "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}]}}
EOJ
}
for round in 1 2 3; do
	for i in 1 2 3 4; do
		mkpod "k$round-$i" || bail_out "could not create pod k$round-$i"
	done
	sleep "0.$((round * 2))"
	kill -9 "$(cat "$T/kaid.pid")"
	sleep 0.5
	kaid_start || bail_out "kaid did not restart"
done
bound_all() {
	local round i
	for round in 1 2 3; do
		for i in 1 2 3 4; do
			[ -n "$(kc -n "$NS" get pod "k$round-$i" -o jsonpath='{.spec.nodeName}')" ] ||
			    return 1
		done
	done
}
ok "after three kills, every pod is bound" wait_for 30 bound_all
twice=0
for round in 1 2 3; do
	for i in 1 2 3 4; do
		n=$(stack_pod_calls "$NS/k$round-$i" | grep -c '^bind 201')
		[ "$n" -eq 1 ] || { diag "pod k$round-$i bound $n times"; twice=$((twice + 1)); }
	done
done
is "each pod was bound exactly once (the audit log's binds)" "$twice" 0

done_testing
