#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-native.sh: how fast kaid schedules Kubernetes-native workloads
# (doc/k8s-native.md) on a real kube-apiserver.  Prints figures (medians
# of several runs); not a test: nothing passes or fails.
#
#   tests/bench/bench-native.sh [BUILD-DIR]
#   N=1000 RUNS=3 BACKLOG=10000 QUEUES=50 PROBES=200 tests/bench/bench-native.sh
#
# Must run as root, with the cached kube-apiserver and Debian's etcd, as
# bench-dispatch.sh.  Every run gets a fresh apiserver, etcd and
# database, kaid's RBAC, NODES nodes posted Ready with 8 GPUs each, and
# no kubelet: pods stay Pending once bound, so the figures are the
# scheduler's and the server's alone.  The pods are made as a ReplicaSet
# controller makes a Deployment's (ownerReferences to ReplicaSet
# web-5d4f8c7b9, names web-5d4f8c7b9-N, schedulerName kai-scheduler,
# which kaid.yaml's native.schedulers lists), by tests/bench/bench-podrate
# -m create, 64 in flight.  Two parts:
#
# 1. Bind rate, N pods of one Deployment, already created when the run
#    starts (the controller's burst has happened):
#      raw   bench-podrate -m bind, as user "kaid", binds them (64 in
#            flight): the server's own rate for binds;
#      kaid  kaid starts: lists the pods, makes each a job (one
#            transaction each), schedules and binds them.
#    Both are timed from the start (of the binds, of kaid) to the N-th
#    pod seen bound by a pod watch.  Raw and kaid runs alternate.
# 2. Latency under a backlog: the GPUs of every node are taken by
#    running one-GPU pods, then BACKLOG one-GPU pods wait in QUEUES
#    queues; then PROBES CPU-only pods of queue batch are created one at a
#    time, PACE seconds apart, and each one's time from its create sent
#    to its bind seen by the watch is taken: median and p99.  The
#    backlog is what every tick looks at again; the probes are what a
#    user waits for.  kaid's tick is KAID_INTERVAL (1s here: a new pod
#    waits for the next tick, half a second on average).
#
# Environment: N (1000), RUNS (3), NODES (10), BACKLOG (10000), QUEUES
# (50), PROBES (200), PACE (0.1), KAID_INTERVAL (1s), KAI_K8S_CACHE,
# KEEP (set: keep the run's directory, kaid.log and all).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
. "$top/tests/bench/benchlib.sh"
# shellcheck disable=SC2034 # read by stack_missing (the real tier)
STACK_API=real
stack_require
N=${N:-1000}
RUNS=${RUNS:-3}
NODES=${NODES:-10}
BACKLOG=${BACKLOG:-10000}
QUEUES=${QUEUES:-50}
PROBES=${PROBES:-200}
PACE=${PACE:-0.1}
PODRATE=$STACK_BIN/tests/bench/bench-podrate
[ -x "$PODRATE" ] || { echo "bench-native: $PODRATE is not built" >&2; exit 1; }
NS=bench
RS=web-5d4f8c7b9

T=$(mktemp -d /tmp/kai-bench-native.XXXXXX)
WATCH_PID=
cleanup() {
	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
	kaid_stop
	"$top/contrib/k8s/stop-apiserver.sh" "$T/k8s" >/dev/null 2>&1
	munge_stop "$T/munge"
	pg_stop "$T/pg"
	[ -n "${KEEP:-}" ] && echo "bench-native: kept $T" >&2 && return
	rm -rf "$T"
}
trap cleanup EXIT
STACK_DIR=$T
export STACK_DIR
chmod 755 "$T"

mono() { python3 -c 'import time; print("%.6f" % time.monotonic())'; }

# apiserver_up: a fresh control plane, kaid's RBAC, namespace bench and
# NODES nodes of 8 GPUs with room for every pod.
apiserver_up()
{
	local i
	apiserver_fresh
	admin POST /api/v1/namespaces \
	    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$NS\"}}" >/dev/null
	for i in $(seq 1 "$NODES"); do
		node_post "bench-$i" "\"cpu\":\"2000\",\"memory\":\"8Ti\",\"pods\":\"20000\",\"nvidia.com/gpu\":\"8\""
	done
}

db_fresh()
{
	pg_stop "$T/pg"
	rm -rf "$T/pg"
	pg_start "$T/pg" >/dev/null || exit 1
}

# template QUEUE GPUS: a Deployment's pod as its ReplicaSet makes it.
template()
{
	local limits='{}'
	[ "$2" -gt 0 ] && limits="{\"nvidia.com/gpu\": \"$2\"}"
	cat <<EOF
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "x", "labels": {"app": "web", "pod-template-hash": "5d4f8c7b9",
   "kai.scheduler/queue": "$1"},
  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
   "name": "$RS", "uid": "0b1c2d3e-0000-4000-8000-000000000001",
   "controller": true, "blockOwnerDeletion": true}]},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Always",
  "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": $limits}}]}}
EOF
}

# create PREFIX COUNT QUEUE GPUS: COUNT pods PREFIX-0.. as admin.
create()
{
	template "$3" "$4" >"$T/tmpl.json"
	"$PODRATE" -m create -N "$NS" -c 64 -n "$2" -p "$1" -t "$T/tmpl.json" \
	    "$T/k8s/kubeconfig-admin" none >/dev/null ||
	    { echo "bench-native: could not create $2 pods" >&2; exit 1; }
}

# watch_start COUNT: a pod watch of namespace bench from now on that
# writes "NAME MONOTONIC" for each pod as it is first seen bound, to
# $T/bound, and stops after COUNT.
watch_start()
{
	rm -f "$T/bound" "$T/watch.ready"
	python3 - "$T/k8s/apiserver.url" "$T/k8s/token-admin" "$T/k8s/ca.crt" \
	    "$NS" "$1" "$T/bound" "$T/watch.ready" <<'EOF' &
import json, ssl, sys, time, urllib.request
urlf, tokf, ca, ns, n, out, ready = sys.argv[1:8]
url = open(urlf).read().strip()
n = int(n)
ctx = ssl.create_default_context(cafile=ca)
hdr = {"Authorization": "Bearer " + open(tokf).read().strip()}
base = "%s/api/v1/namespaces/%s/pods" % (url, ns)
lst = json.load(urllib.request.urlopen(urllib.request.Request(
    base + "?limit=1", headers=hdr), context=ctx))
rv = lst["metadata"]["resourceVersion"]
w = urllib.request.urlopen(urllib.request.Request(
    base + "?watch=1&timeoutSeconds=3600&resourceVersion=" + rv,
    headers=hdr), context=ctx)
open(ready, "w").close()
seen = set()
with open(out, "w") as f:
    for line in w:
        ev = json.loads(line)
        o = ev["object"]
        name = o["metadata"]["name"]
        if ev["type"] in ("ADDED", "MODIFIED") and o["spec"].get("nodeName") \
                and name not in seen:
            seen.add(name)
            f.write("%s %.6f\n" % (name, time.monotonic()))
            f.flush()
            if len(seen) >= n:
                break
EOF
	WATCH_PID=$!
	for _ in $(seq 1 100); do
		[ -e "$T/watch.ready" ] && return 0
		sleep 0.1
	done
	echo "bench-native: the watch did not start" >&2
	exit 1
}

# watch_wait COUNT: waits (10 min at most) until COUNT pods are bound.
watch_wait()
{
	for _ in $(seq 1 6000); do
		[ "$(wc -l <"$T/bound" 2>/dev/null || echo 0)" -ge "$1" ] && break
		sleep 0.1
	done
	kill "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
	[ "$(wc -l <"$T/bound")" -ge "$1" ] ||
	    { echo "bench-native: only $(wc -l <"$T/bound") of $1 pods bound" >&2; exit 1; }
}

# seconds from T0 to the last bind seen
elapsed() { awk -v t0="$1" '{ if ($2 > m) m = $2 } END { printf "%.3f\n", m - t0 }' "$T/bound"; }

raw_run()
{
	local t0 s
	apiserver_up
	create "$RS" "$N" batch 0
	watch_start "$N"
	t0=$(mono)
	"$PODRATE" -m bind -N "$NS" -c 64 -n "$N" -p "$RS" \
	    "$T/k8s/kubeconfig-kaid" $(seq -f 'bench-%g' 1 "$NODES") >/dev/null ||
	    { echo "bench-native: raw binds failed" >&2; exit 1; }
	watch_wait "$N"
	s=$(elapsed "$t0")
	echo "  raw  run: $N binds in $s s" >&2
	echo "$s"
}

kaid_run()
{
	local t0 s cpu
	apiserver_up
	cp "$T/k8s/kubeconfig-kaid" "$T/kubeconfig"
	db_fresh
	create "$RS" "$N" batch 0
	watch_start "$N"
	t0=$(mono)
	kaid_start || exit 1
	watch_wait "$N"
	s=$(elapsed "$t0")
	cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$(cat "$T/kaid.pid")/stat")
	echo "  kaid run: $N pods bound in $s s from kaid's start; kaid CPU" \
	    "$cpu s; $(grep -c 'could not' "$T/kaid.log") warnings" >&2
	kaid_stop
	echo "$s"
}

latency_run()
{
	local q per i fill
	apiserver_up
	cp "$T/k8s/kubeconfig-kaid" "$T/kubeconfig"
	db_fresh
	kaid_start || exit 1
	for q in $(seq 1 "$QUEUES"); do
		kctl queue create "q$q" >/dev/null || exit 1
	done
	# Every GPU taken by a running pod, then the backlog.
	fill=$((NODES * 8))
	watch_start "$fill"
	create fill "$fill" q1 1
	watch_wait "$fill"
	per=$(( (BACKLOG + QUEUES - 1) / QUEUES ))
	for q in $(seq 1 "$QUEUES"); do
		create "wait-q$q" "$per" "q$q" 1
	done
	for i in $(seq 1 120); do
		[ "$(kqueue -h -t PD -o %i 2>/dev/null | wc -l)" -ge $((per * QUEUES)) ] && break
		sleep 1
	done
	echo "  latency run: $(kqueue -h -t PD -o %i | wc -l) pods pending in" \
	    "$QUEUES queues, $fill running" >&2
	watch_start "$PROBES"
	python3 - "$T/k8s/apiserver.url" "$T/k8s/token-admin" "$T/k8s/ca.crt" \
	    "$NS" "$PROBES" "$PACE" >"$T/sent" <<'EOF'
import json, ssl, sys, time, http.client, urllib.parse
urlf, tokf, ca, ns, n, pace = sys.argv[1:7]
u = urllib.parse.urlsplit(open(urlf).read().strip())
ctx = ssl.create_default_context(cafile=ca)
c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
hdr = {"Authorization": "Bearer " + open(tokf).read().strip(),
       "Content-Type": "application/json"}
for i in range(int(n)):
    name = "probe-%d" % i
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"kai.scheduler/queue": "batch"},
                         "ownerReferences": [{"apiVersion": "apps/v1",
                             "kind": "ReplicaSet", "name": "probe-7c9d",
                             "uid": "0b1c2d3e-0000-4000-8000-000000000002",
                             "controller": True}]},
            "spec": {"schedulerName": "kai-scheduler",
                     "containers": [{"name": "c", "image": "busybox",
                         "resources": {"requests": {"cpu": "100m",
                                                    "memory": "64Mi"}}}]}}
    t = time.monotonic()
    c.request("POST", "/api/v1/namespaces/%s/pods" % ns, json.dumps(body), hdr)
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("probe create: HTTP %d" % r.status)
    print(name, "%.6f" % t, flush=True)
    time.sleep(float(pace))
EOF
	watch_wait "$PROBES"
	kaid_stop
	awk 'NR == FNR { sent[$1] = $2; next } ($1 in sent) { printf "%.4f\n", $2 - sent[$1] }' \
	    "$T/sent" "$T/bound" | sort -g >"$T/lat"
	awk '{ v[NR] = $1 } END {
		p50 = v[int((NR + 1) / 2)]; i = int(NR * 0.99 + 0.999); if (i < 1) i = 1
		printf "create -> bind of %d probes: median %.0f ms, p99 %.0f ms, max %.0f ms\n",
		    NR, 1000 * p50, 1000 * v[i], 1000 * v[NR] }' "$T/lat"
}

pg_start "$T/pg" || exit 1
munge_start "$T/munge" || exit 1
KAI_MUNGE_SOCKET=$MUNGE_SOCKET
KAID_PORT=$(stack_free_port)
KAID_HTTP_PORT=$(stack_free_port)
while [ "$KAID_HTTP_PORT" = "$KAID_PORT" ]; do
	KAID_HTTP_PORT=$(stack_free_port)
done
KAI_CONTROLLER=127.0.0.1:$KAID_PORT
export KAI_CONTROLLER KAI_MUNGE_SOCKET KAID_PORT KAID_HTTP_PORT
KAID_CONF_EXTRA="native:
  schedulers: kaid, kai-scheduler
  default_queue: batch"
KAID_INTERVAL=${KAID_INTERVAL:-1s} KAID_LOG_LEVEL=${KAID_LOG_LEVEL:-warn} \
    KAID_CONF_EXTRA=$KAID_CONF_EXTRA stack_write_conf "$T"

echo "native benchmark: $N pods, $NODES nodes, $(nproc) cores," \
    "kube-apiserver $("$REALAPI_CACHE/kube-apiserver" --version 2>/dev/null |
    awk '{ print $2 }'), $(date -u +%Y-%m-%dT%H:%MZ)"
: >"$T/raw.s"
: >"$T/kaid.s"
for _ in $(seq 1 "$RUNS"); do
	r=$(raw_run)
	k=$(kaid_run)
	[ -n "$r" ] && [ -n "$k" ] || { echo "bench-native: a run failed" >&2; exit 1; }
	echo "$r" >>"$T/raw.s"
	echo "$k" >>"$T/kaid.s"
done
awk -v n="$N" -v r="$(median <"$T/raw.s")" -v k="$(median <"$T/kaid.s")" \
    -v runs="$RUNS" 'BEGIN {
	printf "raw binds:       %.2f s, %.0f pods/s (median of %d)\n", r, n / r, runs
	printf "kaid (from start): %.2f s, %.0f pods/s (median of %d)\n", k, n / k, runs
	printf "kaid / raw: %.0f%%\n", 100 * r / k
}'
[ "$BACKLOG" -gt 0 ] && latency_run
