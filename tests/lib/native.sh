# SPDX-License-Identifier: GPL-3.0-or-later
#
# native.sh: what the tests of Kubernetes-native workloads (t9010-t9165,
# doc/k8s-native.md) share: a namespace of the test's own, the CRDs and
# the role kaid needs applied as an admin would, and pods and owners made
# as controllers and operators make them (no controller runs on the real
# API tier).  Source it after tests/lib/stack.sh; call native_setup after
# stack_start.  The short names (kc, mkobj, owner, bound...) are the
# tests' vocabulary: every test of native workloads reads the same.

# native_setup NS APPLY CRD...: the admin's kubectl (kc), namespace NS
# made (NS and KC set for the test), contrib/kubernetes/APPLY (a file or
# folder: "crds/", "crds/queue.yaml"; "" for none) and rbac-native.yaml
# applied, and each CRD (its full name, podgroups.scheduling.run.ai)
# waited for until established.  Bails out of the test on failure.
native_setup() {
	local c=$top_srcdir/contrib/kubernetes apply=$2 crd
	local -a waits=()
	NS=$1
	KC=$T/k8s/kubeconfig-admin
	shift 2
	kc create namespace "$NS" >/dev/null || bail_out "could not create $NS"
	if [ -n "$apply" ]; then
		kc apply -f "$c/$apply" -f "$c/rbac-native.yaml" >/dev/null ||
		    bail_out "could not install $apply and rbac-native.yaml"
	fi
	[ $# -gt 0 ] || return 0
	for crd; do waits+=("crd/$crd"); done
	kc wait --for condition=established --timeout=60s "${waits[@]}" \
	    >/dev/null || bail_out "the CRDs were not established: $*"
}

kc() { kubectl --kubeconfig "$KC" "$@"; }

# mkobj JSON: creates an object in $NS; prints its uid.
mkobj() { kc -n "$NS" create -o jsonpath='{.metadata.uid}' -f - <<<"$1"; }

# owner API KIND NAME UID: an ownerReference as a controller writes it.
owner() {
	printf '{"apiVersion": "%s", "kind": "%s", "name": "%s", "uid": "%s", "controller": true, "blockOwnerDeletion": true}' "$1" "$2" "$3" "$4"
}

# native_pod NAME SECONDS CPUS GPUS OWNER_JSON [LABELS_JSON
# [ANNOTATIONS_JSON]]: a pod of kai-scheduler in $NS that sleeps SECONDS
# ("" OWNER_JSON: no owner; GPUs 0: none, else nvidia.com/gpu in its
# requests and limits, as the device plugin's resource must be).
native_pod() {
	local owners='[]' res="\"cpu\": \"$3\", \"memory\": \"64Mi\"" lim=''
	[ -n "$5" ] && owners="[$5]"
	if [ "$4" != 0 ]; then
		res="$res, \"nvidia.com/gpu\": \"$4\""
		lim=", \"limits\": {$res}"
	fi
	kc -n "$NS" create -f - >/dev/null <<EOJ
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "ownerReferences": $owners,
  "labels": ${6:-{\}}, "annotations": ${7:-{\}}},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep $2"],
   "resources": {"requests": {$res}$lim}}]}}
EOJ
}

pod_node() { kc -n "$NS" get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null; }
bound() { [ -n "$(pod_node "$1")" ]; }
# nbound POD...: how many are bound.
nbound() {
	local p n=0
	for p in "$@"; do bound "$p" && n=$((n + 1)); done
	echo $n
}
all_bound() { [ "$(nbound "$@")" = $# ]; }

# events OBJECT: its events in $NS, a line each: REASON|MESSAGE.
events() {
	kc -n "$NS" get events --field-selector "involvedObject.name=$1" \
	    -o jsonpath='{range .items[*]}{.reason}|{.message}{"\n"}{end}'
}

# jobs_named NAME: ids of kaid's jobs named NAME, any state, oldest first.
jobs_named() { stack_psql "select id from jobs where name = '$1' order by id"; }
job_of() { jobs_named "$1" | tail -n 1; }
has_job() { [ -n "$(job_of "$1")" ]; }
# col JOB EXPR: a column (or an SQL expression of columns) of a job.
col() { stack_psql "select $2 from jobs where id = $1"; }
why_of() { kqueue -j "$1" --why --noheader -o '%r' 2>/dev/null; }
