#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-webhook.sh: what kaid's admission webhook of GPU sharing costs, on
# the real-API tier (KAI_STACK_API=real: a real kube-apiserver calls kaid
# over HTTPS on loopback; tests/lib/webhook.sh registers it).  Prints
# figures; not a test: nothing here passes or fails.
#
#   KAI_STACK_API=real tests/bench/bench-webhook.sh [BUILD-DIR] [N]
#
# Measured:
#   - kaid's answer time to one AdmissionReview of a sharing pod, each on
#     a new TLS connection (handshake included) and all on one kept
#     connection, as the apiserver's client sends them (median and p99 of
#     N, default 500, from one Python client on the same machine);
#   - pod creations per second through the apiserver (server-side dry
#     runs of a sharing pod, N/5 of them, 4 at a time), with the webhook
#     registered and without it, so the difference is what the webhook
#     adds to a pod's creation.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/werror}" && pwd)
N=${2:-500}
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
. "$top/tests/lib/webhook.sh"
[ "$STACK_API" = real ] || { echo "bench-webhook.sh: run with KAI_STACK_API=real" >&2; exit 2; }
stack_require

T=$(mktemp -d /tmp/kai-bench-webhook.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
webhook_prepare "$T" || { echo "webhook-cert.sh failed" >&2; exit 1; }
KAID_CONF_EXTRA="native:
  schedulers: kaid
$WEBHOOK_CONF"
KAID_LOG_LEVEL=warn
export KAID_CONF_EXTRA KAID_LOG_LEVEL
stack_start "$T" || { echo "could not start the stack" >&2; exit 1; }

echo "kaid's answer to one AdmissionReview of a sharing pod ($N times):"
python3 - "$WEBHOOK_PORT" "$T/tls/ca.crt" "$N" <<'EOF'
import http.client, json, ssl, sys, time
port, ca, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ctx = ssl.create_default_context(cafile=ca)
body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "request": {"uid": "0a1b2c3d-4e5f-6789-abcd-ef0123456789",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "namespace": "bench", "operation": "CREATE",
        "object": {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "infer-7d9f-",
                "annotations": {"gpu-fraction": "0.5"}},
            "spec": {"schedulerName": "kaid",
                "containers": [{"name": "server", "image": "x",
                    "env": [{"name": "V%d" % i, "value": "x" * 40}
                            for i in range(20)]}]}}}})
def run(reuse):
    times, c = [], None
    for _ in range(n):
        t0 = time.perf_counter()
        if c is None:
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
        c.request("POST", "/mutate-pods", body, {"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        if not reuse:
            c.close()
            c = None
        times.append(time.perf_counter() - t0)
        assert r.status == 200 and b'"patch"' in data, (r.status, data[:200])
    times.sort()
    print("  %s: median %.2f ms, p99 %.2f ms (body %d bytes)" % (
        "one connection" if reuse else "a new connection each",
        1000 * times[len(times) // 2], 1000 * times[int(len(times) * 0.99) - 1],
        len(body)))
run(False)
run(True)
EOF

KC=$T/k8s/kubeconfig-admin
TOKEN=$(cat "$T/k8s/token-admin")
# dry_rate M: pods/s of M server-side dry-run creations, 4 at a time.
dry_rate() {
	python3 - "$KUBESIM_URL" "$T/k8s/ca.crt" "$TOKEN" "$1" <<'EOF'
import concurrent.futures, http.client, json, ssl, sys, time, urllib.parse
url, ca, token, m = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
pod = json.dumps({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"generateName": "infer-", "annotations": {"gpu-fraction": "0.5"}},
    "spec": {"schedulerName": "kaid", "containers": [{"name": "c", "image": "x"}]}})
def worker(k):
    c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
    for _ in range(k):
        c.request("POST", "/api/v1/namespaces/default/pods?dryRun=All", pod,
            {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        r = c.getresponse(); r.read()
        assert r.status == 201, r.status
t0 = time.perf_counter()
with concurrent.futures.ThreadPoolExecutor(4) as ex:
    list(ex.map(worker, [m // 4] * 4))
print("%.0f" % ((m // 4) * 4 / (time.perf_counter() - t0)))
EOF
}
M=$((N / 5))
without=$(dry_rate "$M")
webhook_register "$T" || { echo "could not register the webhook" >&2; exit 1; }
with=$(dry_rate "$M")
echo "pod creations through the apiserver (dry run, $M, 4 at a time):"
echo "  without the webhook $without pods/s, with it $with pods/s"
