#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t7010-node-two: two real nodes (node tier only: two containerd + kubelet
# pairs, each with its own bridge, cgroup root and device plugin): kinfo
# shows both with their GPUs and GPU models from the nodes' labels; a
# two-task job whose tasks each need a whole node's cpu gets one pod on
# each node, both tasks write into the user's directory on the shared
# filesystem (owned by the user), and the job completes.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs jobs on two real nodes (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t7010.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" "$top_srcdir/contrib/k8s/nodes-node2.yaml" ||
    bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

out=
for _ in $(seq 1 50); do
	out=$(as_user "$A" kinfo -N -h -p gpu -o '%n %G' 2>&1 | sort -u)
	[ "$(printf '%s\n' "$out" | grep -c 'gpu:')" -eq 2 ] && break
	sleep 0.2
done
like "kinfo shows node-1's GPUs" "$out" 'node-1 gpu:NVIDIA-A100-SXM4-80GB:4'
like "kinfo shows node-2's GPUs" "$out" 'node-2 gpu:NVIDIA-H100-80GB-HBM3:4'

ncpu=$(nproc)
cat >"$W/two.sh" <<'EOS'
#!/bin/sh
echo "task $SLURM_PROCID of $SLURM_NTASKS in $(cat /proc/sys/kernel/hostname)"
sleep 3
EOS
chown "$A:" "$W/two.sh"
id=$(cd "$W" && as_user "$A" ksubmit --parsable -n 2 -c "$ncpu" -o two-%j.out two.sh)
like "ksubmit takes a two-task job" "$id" '^[0-9]+$'
ok "it runs" wait_state "$id" RUNNING 600
is "one task on each node" \
    "$(stack_psql "select string_agg(node, ' ' order by node) from allocations where job_id = $id")" \
    "node-1 node-2"
nodes=$(kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io/job-id=$id" |
    python3 -c 'import json, sys
print(" ".join(sorted(p["spec"]["nodeName"] for p in json.load(sys.stdin)["items"])))')
is "its pods are bound to the two kubelets" "$nodes" "node-1 node-2"
ok "the job completes" wait_state "$id" COMPLETED 600
is "both tasks wrote into the user's directory" \
    "$(sort "$W/two-$id.out" 2>/dev/null | sed 's/ in .*//')" \
"task 0 of 2
task 1 of 2"
is "the output file is the user's" "$(stat -c %U "$W/two-$id.out" 2>/dev/null)" "$A"

done_testing
