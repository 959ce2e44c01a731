#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t7000-node-job: a job in a real container, on the node tier only
# (KAI_STACK_API=node: a real kube-apiserver, containerd and kubelet):
# kaid binds the pod to the real node, the kubelet runs the script in
# the job image as the submitting user, klog reads the pod's log through
# the API server and the kubelet, the job ends COMPLETED with exit code
# 0, a GPU job's container has the devices the node's device plugin gave
# it, and a script's exit code comes back as FAILED N:0.  The job works in
# /tmp, which the image has too: kaid's pods mount no filesystem of the
# submit host yet.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs jobs in real containers (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t7000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

# What only a container shows: kaid's wrapper (/bin/sh -c) is pid 1 of
# its own pid namespace, and a file of the host (kaid's binary) is not
# there.
cat >"$W/where.sh" <<'EOS'
#!/bin/sh
echo "uid=$(id -u) pid1=$(tr '\0' '\n' </proc/1/cmdline | head -n 1)"
echo "host has kaid: $(test -e "$KAI_HOST_KAID" && echo yes || echo no)"
echo "job $SLURM_JOB_ID in $(cat /proc/sys/kernel/hostname)"
i=0
while [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done
echo "bye"
EOS
printf '#!/bin/sh\necho failing\nexit 3\n' >"$W/fail.sh"
chown "$A:" "$W"/*.sh

id=$(cd /tmp && as_user "$A" ksubmit --parsable -t 2 -o "/tmp/where-%j.out" \
    --export=ALL,KAI_HOST_KAID="$STACK_BIN/daemons/kaid/kaid" "$W/where.sh")
like "ksubmit takes the job" "$id" '^[0-9]+$'
ok "the job runs" wait_state "$id" RUNNING 600

node=$(stack_psql "select node from allocations where job_id = $id")
is "kaid placed it on the real node" "$node" node-1
pod=$(kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io/job-id=$id" |
    python3 -c 'import json, sys
p = json.load(sys.stdin)["items"][0]
print(p["spec"]["nodeName"], p["spec"]["containers"][0]["image"],
      p["metadata"]["name"])')
like "the pod is bound to the node and runs the job image" "$pod" \
    "^node-1 $NODETIER_IMAGE [a-z0-9.-]+\$"
podname=${pod##* }

out=
for _ in $(seq 1 100); do
	out=$(as_user "$A" klog "$id" 2>&1)
	printf '%s' "$out" | grep -q '^job ' && break
	sleep 0.1
done
is "klog shows the script's output from the container" "$out" \
"uid=$(id -u "$A") pid1=/bin/sh
host has kaid: no
job $id in $podname"
ok "the job completes" wait_state "$id" COMPLETED 600
is "exit code 0" "$(stack_psql "select exit_code from jobs where id = $id")" 0

# Whole GPUs come from the node's device plugin, as on a GPU node: the
# container has that many /dev/nvidiaN and NVIDIA_VISIBLE_DEVICES.
cat >"$W/gpu.sh" <<'EOS'
#!/bin/sh
echo "devices: $(ls /dev | grep -c '^nvidia[0-9]')"
echo "visible: $(echo "$NVIDIA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c GPU-)"
echo "writable: $(echo x >/dev/nvidia"$(echo "$NVIDIA_VISIBLE_DEVICES" | cut -d, -f1 | cut -d- -f2)" && echo yes)"
sleep 5
EOS
chown "$A:" "$W/gpu.sh"
idg=$(cd /tmp && as_user "$A" ksubmit --parsable -p gpu --gpus=3 -o /tmp/gpu-%j.out "$W/gpu.sh")
ok "a GPU job runs" wait_state "$idg" RUNNING 600
out=
for _ in $(seq 1 100); do
	out=$(as_user "$A" klog "$idg" 2>&1)
	printf '%s' "$out" | grep -q '^writable' && break
	sleep 0.1
done
is "the pod has its 3 GPUs' devices from the device plugin" "$out" \
"devices: 3
visible: 3
writable: yes"
ok "the GPU job completes" wait_state "$idg" COMPLETED 600

id2=$(cd /tmp && as_user "$A" ksubmit --parsable -o /tmp/fail-%j.out "$W/fail.sh")
ok "a script that exits 3 fails" wait_state "$id2" FAILED 600
is "kacct shows its exit code" \
    "$(as_user "$A" kacct -j "$id2" -n -o state,exitcode -P)" "FAILED|3:0"

done_testing
