#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-dispatch.sh: kaid's dispatch rate against a real kube-apiserver,
# next to the raw capacity of that server for the same calls.  Prints
# figures (the median of several runs); not a test: nothing passes or
# fails.
#
#   tests/bench/bench-dispatch.sh [BUILD-DIR]
#   N=5000 RUNS=3 NODES=10 tests/bench/bench-dispatch.sh /tmp/bld
#
# Must run as root (it submits as the test user kaitest-alice, like the
# integration tests) with the cached kube-apiserver and Debian's etcd
# (contrib/k8s/start-apiserver.sh; contrib/k8s/build-apiserver.sh makes
# the cache).  Every run gets a fresh apiserver and etcd, the RBAC of
# contrib/kubernetes/rbac.yaml, NODES nodes posted with a Ready status and
# room for every pod, and no kubelet: pods stay Pending once bound, so
# the server does only the scheduler's work.  The two figures:
#
#   raw   tests/bench/bench-podrate (a plain libcurl client with kaid's
#         transport settings and concurrency: CONC requests in flight,
#         KUBE_CALLS_MAX in src/kube/kube_int.h, each bind as its create
#         returns) makes N pods and binds them, as user "kaid".  The pods
#         are byte for byte the one kaid sends for this job (captured
#         once from kubesim's record of a one-job kaid): the server's cost
#         grows with a pod's size, and kaid's carry the submitter's
#         environment and the shims (about 9 KB); RAW_SMALL=1 sends a
#         2 KB pod instead;
#   kaid  N single-pod jobs are submitted held (ksubmit -H, 8 at a time),
#         kaid is stopped, the holds are lifted in PostgreSQL and kaid is
#         started again: it lists, syncs and dispatches all N at once.
#
# Both are timed the same way, by a pod watch on the apiserver started
# before the run: from the first pod ADDED to the N-th pod seen bound
# (spec.nodeName set).  kaid's Scheduled events wait while its pod calls
# wait for a slot (src/kube/kube_event.c), so most follow the burst; the
# raw client posts none.  Raw and kaid runs alternate (the machine may be
# shared).  Output: each run's figures, then the medians and kaid / raw.
# Measured on the 2-core development machine (2026-11-22, N=5000,
# RUNS=3, otherwise quiet): raw 15.4 s (326 pods/s), kaid 16.4 s (305
# pods/s): 94% of the medians and of the median pair; the target is 90%.
# On the way: with one Event always in flight during the burst kaid was
# at 61% (81% without events, back to back); parsing the pods' env in
# the watch cost kaid about 0.3 s of CPU on the cores the server needs
# (92% before it was skipped).  The first pair of a run is often the
# lowest (81%).
#
# Environment: N (pods, 5000), RUNS (3), NODES (10), CONC (64),
# KAI_K8S_CACHE, VERBOSE (set: each run's timeline, pods created and
# bound per half second), KAID_LOG_LEVEL (warn), PERF (set: a perf
# profile of kaid during its run), KAID_LOG_COPY (a file: where to
# keep kaid's log of the last run), RAW_WATCH (set: the raw client's
# runs also carry a second pod watch, as kaid's do), RAW_SMALL (set:
# the raw client's small pod, not kaid's).

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
N=${N:-5000}
RUNS=${RUNS:-3}
NODES=${NODES:-10}
CONC=${CONC:-64}
PODRATE=$STACK_BIN/tests/bench/bench-podrate
[ -x "$PODRATE" ] || { echo "bench-dispatch: $PODRATE is not built" >&2; exit 1; }

T=$(mktemp -d /tmp/kai-bench-dispatch.XXXXXX)
WATCH_PID=
cleanup() {
	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
	kaid_stop
	"$top/contrib/k8s/stop-apiserver.sh" "$T/k8s" >/dev/null 2>&1
	munge_stop "$T/munge"
	pg_stop "$T/pg"
	rm -rf "$T"
}
trap cleanup EXIT
STACK_DIR=$T
export STACK_DIR
chmod 755 "$T"

# apiserver_up: a fresh control plane, kaid's RBAC and NODES big nodes.
apiserver_up()
{
	local i
	apiserver_fresh
	for i in $(seq 1 "$NODES"); do
		node_post "bench-$i" "\"cpu\":\"2000\",\"memory\":\"8Ti\",\"pods\":\"5000\""
	done
}

# watch_start: a pod watch that writes "first_added_s last_bound_s" to
# $T/watch.out once N pods are bound (monotonic seconds).
watch_start()
{
	rm -f "$T/watch.out"
	curl -sSN --cacert "$T/k8s/ca.crt" \
	    -H "Authorization: Bearer $(cat "$T/k8s/token-admin")" \
	    "$(cat "$T/k8s/apiserver.url")/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=3600" 2>/dev/null |
	    python3 -c '
import json, sys, time
n = int(sys.argv[1]); first = None; bound = set(); tl = {}
for line in sys.stdin.buffer:
    ev = json.loads(line)
    if ev["type"] not in ("ADDED", "MODIFIED"):
        continue
    now = time.monotonic()
    if first is None:
        first = now
    o = ev["object"]
    b = int((now - first) * 2) / 2
    tl.setdefault(b, [0, 0])[0 if ev["type"] == "ADDED" else 1] += 1
    if o["spec"].get("nodeName"):
        bound.add(o["metadata"]["name"])
        if len(bound) >= n:
            open(sys.argv[2], "w").write("%.6f %.6f\n" % (first, now))
            break
with open(sys.argv[2] + ".timeline", "w") as f:
    for b in sorted(tl):
        f.write("    %5.1f s: %4d created, %4d bound\n" % (b, tl[b][0], tl[b][1]))
' "$N" "$T/watch.out" &
	WATCH_PID=$!
	sleep 0.5	# the watch is open before the first create
}

# watch_wait: prints the seconds from the first pod to the N-th bound.
watch_wait()
{
	local i
	for i in $(seq 1 6000); do
		[ -s "$T/watch.out" ] && break
		sleep 0.1
	done
	kill "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
	[ -n "${VERBOSE:-}" ] && cat "$T/watch.out.timeline" >&2
	awk '{ printf "%.3f\n", $2 - $1 }' "$T/watch.out"
}

# pod_template: the Pod kaid sends for a job of this benchmark, captured
# once from kubesim's record of a one-job kaid (the same job script,
# user, environment and configuration as the runs), as $T/pod.json; the
# raw client sends it under other names, so the API server gets the same
# bytes from both.
pod_template()
{
	local i
	kubesim_start "$T/sim" "$top/contrib/kubesim/nodes.example.yaml" || exit 1
	cp "$T/sim/kubeconfig" "$T/kubeconfig"
	kaid_start || exit 1
	as_user "$STACK_ALICE" sh -c 'cd "$0" && ksubmit --parsable job.sh >/dev/null' "$T/work" || exit 1
	for i in $(seq 1 100); do
		grep -q '"POST", *"path": *"/api/v1/namespaces/default/pods"' \
		    "$T/sim/kubesim.record" 2>/dev/null && break
		sleep 0.1
	done
	kaid_stop
	kill "$(cat "$T/sim/kubesim.pid")" 2>/dev/null
	python3 - "$T/sim/kubesim.record" >"$T/pod.json" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == "POST" and r["path"].endswith("/pods"):
        print(json.dumps(r["body"], separators=(",", ":")))
        break
EOF
	[ -s "$T/pod.json" ] || { echo "bench-dispatch: no pod captured" >&2; exit 1; }
}

raw_run()
{
	local out s rw_pid
	apiserver_up
	watch_start
	if [ -n "${RAW_WATCH:-}" ]; then
		# kaid's own pod watch, all namespaces, read and dropped.
		curl -sSN --cacert "$T/k8s/ca.crt" \
		    -H "Authorization: Bearer $(cat "$T/k8s/token-kaid")" \
		    "$(cat "$T/k8s/apiserver.url")/api/v1/pods?watch=1&timeoutSeconds=3600" \
		    >/dev/null 2>&1 &
		rw_pid=$!
	fi
	local tmpl=(-t "$T/pod.json")
	[ -n "${RAW_SMALL:-}" ] && tmpl=()
	out=$("$PODRATE" -c "$CONC" -n "$N" "${tmpl[@]}" "$T/k8s/kubeconfig-kaid" \
	    $(seq -f 'bench-%g' 1 "$NODES"))
	s=$(watch_wait)
	[ -n "${RAW_WATCH:-}" ] && kill "$rw_pid" 2>/dev/null
	echo "  raw  run: $out; watch: $s s" >&2
	echo "$s"
}

kaid_run()
{
	local s pending cpu perf_pid
	apiserver_up
	cp "$T/k8s/kubeconfig-kaid" "$T/kubeconfig"
	pg_stop "$T/pg"
	rm -rf "$T/pg"
	pg_start "$T/pg" >/dev/null || exit 1
	kaid_start || exit 1
	seq 1 "$N" | as_user "$STACK_ALICE" xargs -P 8 -n $(( (N + 7) / 8 )) \
	    sh -c 'cd "$0" && for i; do ksubmit -H --parsable job.sh >/dev/null || exit 1; done' "$T/work"
	kaid_stop
	pending=$(stack_psql "update jobs set hold = false where state = 'PENDING' returning id" | wc -l)
	watch_start
	kaid_start || exit 1
	if [ -n "${PERF:-}" ]; then
		perf record -q -g -o "$T/perf.data" -p "$(cat "$T/kaid.pid")" \
		    >/dev/null 2>&1 &
		perf_pid=$!
	fi
	s=$(watch_wait)
	if [ -n "${PERF:-}" ]; then
		kill -INT "$perf_pid"
		wait "$perf_pid"
		perf report -i "$T/perf.data" --stdio --no-children \
		    --percent-limit 2 -g none 2>/dev/null | grep -v '^#' |
		    grep . | head -n 25 >&2
	fi
	cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$(cat "$T/kaid.pid")/stat")
	echo "  kaid run: $pending jobs released; watch: $s s; kaid CPU" \
	    "${cpu} s since start; $(grep -c 'could not' "$T/kaid.log")" \
	    "warnings in kaid.log" >&2
	kaid_stop
	[ -n "${KAID_LOG_COPY:-}" ] && cp "$T/kaid.log" "$KAID_LOG_COPY"
	echo "$s"
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
KAID_INTERVAL=${KAID_INTERVAL:-1s} KAID_LOG_LEVEL=${KAID_LOG_LEVEL:-warn} stack_write_conf "$T"
mkdir -p "$T/work" && chown "$STACK_ALICE:" "$T/work"
printf '#!/bin/sh\ntrue\n' >"$T/work/job.sh"
chmod 755 "$T/work/job.sh"

pod_template
echo "dispatch benchmark: $N pods, $NODES nodes, $(nproc) cores," \
    "kube-apiserver $("$REALAPI_CACHE/kube-apiserver" --version 2>/dev/null |
    awk '{ print $2 }'), $(date -u +%Y-%m-%dT%H:%MZ)"
# The machine is shared: raw and kaid runs alternate, so that both see
# the same load, and the ratio is also taken pair by pair.
: >"$T/raw.s"
: >"$T/kaid.s"
: >"$T/ratio"
for _ in $(seq 1 "$RUNS"); do
	r=$(raw_run)
	k=$(kaid_run)
	[ -n "$r" ] && [ -n "$k" ] || { echo "bench-dispatch: a run failed" >&2; exit 1; }
	echo "$r" >>"$T/raw.s"
	echo "$k" >>"$T/kaid.s"
	awk -v r="$r" -v k="$k" 'BEGIN { printf "%.1f\n", 100 * r / k }' >>"$T/ratio"
	echo "  this pair: kaid / raw = $(tail -n 1 "$T/ratio")%" >&2
done
awk -v n="$N" -v r="$(median <"$T/raw.s")" -v k="$(median <"$T/kaid.s")" \
    -v q="$(median <"$T/ratio")" -v runs="$RUNS" 'BEGIN {
	printf "raw client (create + bind): %.1f s, %.0f pods/s (median of %d)\n", r, n / r, runs
	printf "kaid dispatch:              %.1f s, %.0f pods/s (median of %d)\n", k, n / k, runs
	printf "kaid / raw: %.0f%% of the medians, %.0f%% the median pair\n", 100 * r / k, q
}'
