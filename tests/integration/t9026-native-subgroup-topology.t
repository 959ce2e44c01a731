#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9026-native-subgroup-topology: a PodGroup subgroup's
# topologyConstraint (issue 13, doc/k8s-native.md "Subgroups") on the
# real-API tier.  Racks r1 = n1 (3 CPUs), r2 = n2 (1 CPU) + n3 (2 CPUs);
# each pod asks 1 CPU.  A PodGroup of subgroups a and b, 2 pods each,
# both requiredTopologyLevel kaibatch.io/rack: each subgroup's pods are
# bound in one rack (a in r1, b in r2 across n2 and n3), though packing
# alone would start with n2 and n3 and put a across both racks.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "owners and CRDs need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9026.XXXXXX)
trap 'stack_stop "$T"; [ "${KAI_KEEP_TMP:-0}" = 1 ] || rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<EON
nodes:
  - name: n1
    cpu: 3
    memory: 32Gi
    labels: {kaibatch.io/rack: r1}
  - name: n2
    cpu: 1
    memory: 32Gi
    labels: {kaibatch.io/rack: r2}
  - name: n3
    cpu: 2
    memory: 32Gi
    labels: {kaibatch.io/rack: r2}
EON
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"

native_setup team-t crds/ podgroups.scheduling.run.ai

# mkpod NAME SUBGROUP: a member of PodGroup racks in that subgroup.
mkpod() {
	native_pod "$1" 2 1 0 "" "{\"kai.scheduler/subgroup-name\": \"$2\"}" \
	    '{"pod-group-name": "racks"}'
}
rack() { case "$(pod_node "$1")" in n1) echo r1 ;; n2|n3) echo r2 ;; *) echo none ;; esac; }

kc -n "$NS" create -f - >/dev/null <<'EOJ' || bail_out "could not create PodGroup racks"
{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
 "metadata": {"name": "racks"}, "spec": {"subGroups": [
  {"name": "a", "minMember": 2,
   "topologyConstraint": {"requiredTopologyLevel": "kaibatch.io/rack"}},
  {"name": "b", "minMember": 2,
   "topologyConstraint": {"requiredTopologyLevel": "kaibatch.io/rack"}}]}}
EOJ
mkpod racks-a-0 a && mkpod racks-a-1 a && mkpod racks-b-0 b &&
    mkpod racks-b-1 b || bail_out "could not create the PodGroup's pods"
ok "the PodGroup's 4 pods are bound" \
    wait_for 40 all_bound racks-a-0 racks-a-1 racks-b-0 racks-b-1
is "subgroup a in one rack" "$(rack racks-a-0) $(rack racks-a-1)" "r1 r1"
is "subgroup b in the other" "$(rack racks-b-0) $(rack racks-b-1)" "r2 r2"
is "b across n2 and n3" \
    "$(for p in racks-b-0 racks-b-1; do echo "$(pod_node $p)"; done | sort | tr '\n' ' ')" \
    "n2 n3 "

done_testing
