#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""compare.t: kubesim answers as the real kube-apiserver does.

Starts a real kube-apiserver (contrib/k8s/start-apiserver.sh, with the
binary that contrib/k8s/build-apiserver.sh cached; skipped without it)
with kubesim --kubelet-only as its kubelets, and a kubesim with the same
nodes file, then makes the same calls on both (the calls kaid and a
kubelet make: pods, binding, status, log, delete, events, services,
nodes, watch, and their errors) and compares status code and body after
masking what differs by nature (uids, resourceVersions, timestamps, IPs,
managedFields, node addresses).  Each call is one TAP test; a difference
is printed path by path.  Known differences that kubesim keeps on
purpose are listed in KNOWN and reported as TODO.

    KAI_COMPARE_VERBOSE=1 prints both bodies of every call.
"""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
KUBESIM = os.path.join(TOP, "contrib", "kubesim", "kubesim")
K8S = os.path.join(TOP, "contrib", "k8s")
SWAGGER = os.path.join(TOP, "..", "shared", "k8s-openapi", "swagger.json")
CACHE = os.environ.get("KAI_K8S_CACHE",
                       "/var/cache/kaibatch/kube-apiserver-1.20.2")
APISERVER = os.environ.get("KAI_K8S_APISERVER",
                           os.path.join(CACHE, "kube-apiserver"))
NS = "/api/v1/namespaces/default"
VERBOSE = os.environ.get("KAI_COMPARE_VERBOSE") == "1"

NODES = """
nodes:
  - name: gpu-a1
    cpu: 32
    memory: 256Gi
    gpus: 8
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
    labels: {kaibatch.io/rack: r1}
  - name: cpu-1
    cpu: 16
    memory: 64Gi
"""

# Values that differ by nature between two servers: masked.
MASK_KEYS = {
    "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
    "lastTransitionTime", "lastProbeTime", "lastHeartbeatTime", "startTime",
    "startedAt", "finishedAt", "eventTime", "firstTimestamp",
    "lastTimestamp", "podIP", "podIPs", "hostIP", "hostIPs", "clusterIP",
    "clusterIPs", "containerID", "nodePort", "machineID", "systemUUID",
    "bootID", "continue", "remainingItemCount"}
DROP_KEYS = {"managedFields"}           # kubesim has no server-side apply
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                     r"[0-9a-f]{12}")
NUM_RE = re.compile(r"\b\d{2,}\b")

# label -> why kubesim differs on purpose (README "What differs").
KNOWN = {
    "POST pod with an unknown field":
        "kubesim --schema is strict (422); 1.20 drops the field (201)",
    "LIST pods limit=1":
        "kubesim ignores limit/continue and returns the whole list",
}

count = failures = 0


def tap(cond, name, diag=None, todo=None):
    global count, failures
    count += 1
    if not cond and not todo:
        failures += 1
    line = "%s %d - %s" % ("ok" if cond else "not ok", count, name)
    if todo:
        line += " # TODO " + todo
    print(line)
    if (not cond or VERBOSE) and diag:
        for d in str(diag).splitlines()[:60]:
            print("# " + d)
    sys.stdout.flush()


def norm(value, key=None):
    if key in MASK_KEYS and value not in (None, "", [], {}):
        return "<masked>"
    if isinstance(value, dict):
        return {k: norm(v, k) for k, v in value.items() if k not in DROP_KEYS}
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, str):
        return NUM_RE.sub("<n>", UUID_RE.sub("<uid>", value))
    return value


def diff(a, b, path=""):
    """Paths where a (kubesim) and b (real) differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            p = "%s.%s" % (path, k) if path else k
            if k not in a:
                out.append("%s: kubesim has none, real %s" % (p, _short(b[k])))
            elif k not in b:
                out.append("%s: kubesim %s, real has none" % (p, _short(a[k])))
            else:
                out += diff(a[k], b[k], p)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, "%s[%d]" % (path, i))
        return out
    if a != b:
        return ["%s: kubesim %s, real %s" % (path or "<body>", _short(a),
                                             _short(b))]
    return []


def _short(v):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 300 else s[:297] + "..."


class Side:
    def __init__(self, name, port, ca, token):
        self.name, self.port, self.token = name, port, token
        self.ctx = ssl.create_default_context(cafile=ca)
        self.conn = None

    def call(self, method, path, body=None, ctype="application/json",
             token=True):
        headers = {"Accept": "application/json", "User-Agent": "compare.t"}
        if token is True:
            headers["Authorization"] = "Bearer " + self.token
        elif token:
            headers["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = ctype
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(
                    "127.0.0.1", self.port, context=self.ctx, timeout=30)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        ct = resp.getheader("Content-Type", "")
        if ct.startswith("application/json"):
            try:
                return resp.status, json.loads(raw)
            except ValueError:
                pass
        return resp.status, raw.decode(errors="replace")

    def wait_pod(self, name, pred, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            code, pod = self.call("GET", NS + "/pods/" + name)
            if pred(code, pod):
                return True
            time.sleep(0.1)
        return False


def phase_in(*phases):
    return lambda code, pod: code == 200 and \
        pod.get("status", {}).get("phase") in phases


def gone(code, pod):
    return code == 404


def pod(name, command, **spec):
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "cmp",
                                                  "kaibatch.io/job": "42"},
                         "annotations": {"kaibatch.io/user": "alice"}},
            "spec": {"schedulerName": "kaid", "restartPolicy": "Never",
                     "containers": [{
                         "name": "main", "image": "debian:bookworm-slim",
                         "command": command,
                         "env": [{"name": "KAI_JOB_ID", "value": "42"}],
                         "resources": {"limits": {"cpu": "1",
                                                  "memory": "1Gi",
                                                  "nvidia.com/gpu": "1"}}}]}}
    body["spec"].update(spec)
    return body


def binding(name, node):
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


def event(name, involved, ns="default"):
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name},
            "involvedObject": {"kind": "Pod", "namespace": ns,
                               "name": involved, "apiVersion": "v1"},
            "reason": "Scheduled", "message": "bound to gpu-a1",
            "type": "Normal", "count": 1,
            "source": {"component": "kaid"},
            "firstTimestamp": "2024-01-01T00:00:00Z",
            "lastTimestamp": "2024-01-01T00:00:00Z"}


MERGE = "application/merge-patch+json"
SMP = "application/strategic-merge-patch+json"


def compare(sides, label, method, path, body=None, ctype="application/json",
            project=None, **kw):
    """One call on both sides, one TAP line."""
    got = []
    for side in sides:
        code, value = side.call(method, path, body, ctype, **kw)
        if project is not None and code < 300:
            value = project(value)
        got.append((code, norm(value)))
    (sc, sb), (rc, rb) = got
    problems = []
    if sc != rc:
        problems.append("status: kubesim %d, real %d" % (sc, rc))
    problems += diff(sb, rb)
    diag = "\n".join(problems)
    if VERBOSE:
        diag += "\nkubesim: %s\nreal:    %s" % (_short(sb), _short(rb))
    tap(not problems, "%s: %s %s" % (label, method, path.split("?")[0]),
        diag, KNOWN.get(label) if problems else None)
    return got


def names(value):
    return sorted(i["metadata"]["name"] for i in value.get("items", []))


def node_view(node):
    """A node minus what kubesim --kubelet-only registers differently on
    purpose (127.0.0.1 and its own port, for the log proxy)."""
    node["status"].pop("addresses", None)
    node["status"].pop("daemonEndpoints", None)
    node.pop("kind", None)
    node.pop("apiVersion", None)
    return node


def watch_view(text):
    """A watch stream as (type, kind, name) lines, sorted: the replay of
    resourceVersion=0 comes in no set order from a real server."""
    out = []
    for line in (text if isinstance(text, str) else json.dumps(text)).splitlines():
        if line.strip():
            ev = json.loads(line)
            obj = ev["object"]
            out.append([ev["type"], obj.get("kind"),
                        obj.get("metadata", {}).get("name")])
    return sorted(out)


def run(sides):
    sim, real = sides
    c = lambda *a, **k: compare(sides, *a, **k)  # noqa: E731

    # -- auth and discovery
    c("no token", "GET", NS + "/pods", token=None)
    c("wrong token", "GET", NS + "/pods", token="wrong")
    c("GET /api", "GET", "/api")

    # -- nodes
    c("LIST nodes by GPU product", "GET", "/api/v1/nodes?labelSelector="
      "nvidia.com%2Fgpu.product%3DNVIDIA-A100-SXM4-80GB", project=names)
    c("GET node", "GET", "/api/v1/nodes/gpu-a1", project=node_view)
    c("GET missing node", "GET", "/api/v1/nodes/nope")
    new = {"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": "extra", "labels": {"a": "b"}},
           "status": {"capacity": {"nvidia.com/gpu": "4"}}}
    c("POST node", "POST", "/api/v1/nodes", new)
    c("POST node again", "POST", "/api/v1/nodes", new)
    c("PATCH node", "PATCH", "/api/v1/nodes/extra",
      {"metadata": {"labels": {"c": "d"}}, "spec": {"taints": None}}, MERGE)
    c("DELETE node", "DELETE", "/api/v1/nodes/extra")

    # -- pod create
    c("POST pod", "POST", NS + "/pods", pod("c1", ["sh", "-c",
                                                   "echo out; exit 3"]))
    c("POST pod again", "POST", NS + "/pods", pod("c1", ["true"]))
    bad = pod("c-bad", ["true"])
    bad["spec"]["containers"] = []
    c("POST pod without containers", "POST", NS + "/pods", bad)
    odd = pod("c-odd", ["true"])
    odd["spec"]["containers"][0]["bogusField"] = 1
    c("POST pod with an unknown field", "POST", NS + "/pods", odd)
    for s in sides:     # 1.20 took it: keep both sides alike
        s.call("DELETE", NS + "/pods/c-odd")
    bad = pod("Bad_Name", ["true"])
    c("POST pod with an invalid name", "POST", NS + "/pods", bad)
    c("POST pod in a missing namespace", "POST",
      "/api/v1/namespaces/nope/pods", pod("c1", ["true"]))
    c("LIST pods of a missing namespace", "GET",
      "/api/v1/namespaces/nope/pods")
    c("GET missing pod", "GET", NS + "/pods/nope")
    c("LIST pods bad fieldSelector", "GET", NS + "/pods?fieldSelector="
      "spec.foo%3Dbar")
    c("LIST pods bad labelSelector", "GET", NS + "/pods?labelSelector="
      "a%20in%20b")
    c("pods/log of an unbound pod", "GET", NS + "/pods/c1/log")

    # -- binding
    c("binding with a mismatched name", "POST", NS + "/pods/c1/binding",
      binding("other", "gpu-a1"))
    c("binding of a missing pod", "POST", NS + "/pods/nope/binding",
      binding("nope", "gpu-a1"))
    c("binding with no target name", "POST", NS + "/pods/c1/binding",
      binding("c1", ""))
    c("binding", "POST", NS + "/pods/c1/binding", binding("c1", "gpu-a1"))
    c("binding again", "POST", NS + "/pods/c1/binding",
      binding("c1", "cpu-1"))
    for s in sides:
        s.wait_pod("c1", phase_in("Succeeded", "Failed"))
    c("GET a pod that failed", "GET", NS + "/pods/c1")
    c("pods/log", "GET", NS + "/pods/c1/log")
    c("pods/log tailLines=0", "GET", NS + "/pods/c1/log?tailLines=0")
    c("pods/log of a missing container", "GET",
      NS + "/pods/c1/log?container=nope")
    c("pods/log follow", "GET", NS + "/pods/c1/log?follow=true")

    # -- status
    c("POST pod c2", "POST", NS + "/pods", pod("c2", ["true"]))
    c("PATCH status (merge)", "PATCH", NS + "/pods/c2/status",
      {"status": {"phase": "Running", "conditions": [
          {"type": "Ready", "status": "True"}]}}, MERGE)
    c("PATCH status (strategic)", "PATCH", NS + "/pods/c2/status",
      {"status": {"conditions": [{"type": "Initialized",
                                  "status": "True"}]}}, SMP)
    c("PATCH pod with a status", "PATCH", NS + "/pods/c2",
      {"status": {"phase": "Failed"}}, MERGE)
    c("PATCH pod labels", "PATCH", NS + "/pods/c2",
      {"metadata": {"labels": {"x": "y"}}}, MERGE)
    c("PUT status with a stale resourceVersion", "PUT",
      NS + "/pods/c2/status", {"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "c2",
                                            "resourceVersion": "1"},
                               "status": {"phase": "Succeeded"}})
    c("DELETE an unbound pod", "DELETE", NS + "/pods/c2")
    c("DELETE a missing pod", "DELETE", NS + "/pods/c2")

    # -- graceful delete of a running pod
    c("POST pod c3", "POST", NS + "/pods", pod("c3", ["sleep", "300"]))
    c("binding c3", "POST", NS + "/pods/c3/binding", binding("c3", "cpu-1"))
    for s in sides:
        s.wait_pod("c3", phase_in("Running"))
    c("GET a running pod", "GET", NS + "/pods/c3")
    c("DELETE with a wrong uid precondition", "DELETE", NS + "/pods/c3",
      {"kind": "DeleteOptions", "apiVersion": "v1",
       "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})
    c("DELETE a running pod", "DELETE", NS + "/pods/c3")
    ok = all(s.wait_pod("c3", gone) for s in sides)
    tap(ok, "the kubelet finishes the deletion on both")

    # -- watch
    c("POST pod w1", "POST", NS + "/pods", pod("w1", ["true"]))
    c("watch from resourceVersion 0", "GET", NS + "/pods?watch=1&"
      "resourceVersion=0&timeoutSeconds=1&labelSelector=app%3Dcmp",
      project=watch_view)
    c("watch a too new resourceVersion", "GET", NS + "/pods?watch=1&"
      "resourceVersion=99999999&timeoutSeconds=1")
    c("LIST pods limit=1", "GET", NS + "/pods?limit=1", project=names)
    c("deletecollection", "DELETE", NS + "/pods?labelSelector=app%3Dcmp",
      project=names)

    # -- events
    c("POST event", "POST", NS + "/events", event("e1", "c1"))
    c("POST event again", "POST", NS + "/events", event("e1", "c1"))
    c("POST event of another namespace", "POST", NS + "/events",
      event("e2", "c1", ns="kube-system"))
    c("PATCH event count", "PATCH", NS + "/events/e1",
      {"count": 2, "lastTimestamp": "2024-01-01T00:01:00Z"}, MERGE)
    c("LIST events by involvedObject", "GET", NS + "/events?fieldSelector="
      "involvedObject.name%3Dc1", project=names)

    # -- services
    svc = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "job-42", "labels": {"kaibatch.io/job": "42"}},
           "spec": {"clusterIP": "None",
                    "selector": {"kaibatch.io/job": "42"},
                    "ports": [{"name": "x", "port": 6000}]}}
    c("POST headless service", "POST", NS + "/services", svc)
    c("POST service again", "POST", NS + "/services", svc)
    c("GET service", "GET", NS + "/services/job-42")
    c("DELETE service", "DELETE", NS + "/services/job-42")
    noports = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "np"}, "spec": {"selector": {"a": "b"}}}
    c("POST service without ports", "POST", NS + "/services", noports)
    cip = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "cip"},
           "spec": {"selector": {"a": "b"}, "ports": [{"port": 80}]}}
    c("POST ClusterIP service", "POST", NS + "/services", cip)

    lifecycle(sides)


class Stream:
    """A watch read on its own connection and thread."""

    def __init__(self, side, path):
        self.conn = http.client.HTTPSConnection(
            "127.0.0.1", side.port, context=side.ctx, timeout=60)
        self.conn.request("GET", path, headers={
            "Authorization": "Bearer " + side.token})
        self.resp = self.conn.getresponse()
        self.lines = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                if line.strip():
                    self.lines.append(json.loads(line))
        except Exception:
            pass

    def close(self):
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass
        self.thread.join(5)


def lifecycle(sides):
    """The watch events of pods' whole lives, created, bound, run by the
    kubelet, deleted (running, terminal, unbound), as (type, name, phase,
    deletionGracePeriodSeconds) on both sides."""
    streams = []
    for s in sides:
        _, lst = s.call("GET", NS + "/pods?labelSelector=app%3Dlc")
        streams.append(Stream(s, NS + "/pods?watch=1&labelSelector=app%%3Dlc"
                              "&timeoutSeconds=60&resourceVersion=%s"
                              % lst["metadata"]["resourceVersion"]))
    for s in sides:
        for name, cmd in (("lc1", ["true"]), ("lc2", ["sleep", "300"])):
            body = pod(name, cmd)
            body["metadata"]["labels"]["app"] = "lc"
            s.call("POST", NS + "/pods", body)
            s.call("POST", NS + "/pods/%s/binding" % name,
                   binding(name, "cpu-1"))
        s.wait_pod("lc1", phase_in("Succeeded"))
        s.wait_pod("lc2", phase_in("Running"))
        s.call("DELETE", NS + "/pods/lc2")
        s.wait_pod("lc2", gone)
        s.call("DELETE", NS + "/pods/lc1")
        body = pod("lc3", ["true"])
        body["metadata"]["labels"]["app"] = "lc"
        s.call("POST", NS + "/pods", body)
        s.call("DELETE", NS + "/pods/lc3?gracePeriodSeconds=0")
        s.wait_pod("lc3", gone)
    time.sleep(0.5)
    views = []
    for st in streams:
        st.close()
        per_pod = {}        # the pods' events interleave by timing only
        for e in st.lines:
            meta = e["object"]["metadata"]
            per_pod.setdefault(meta["name"], []).append((
                e["type"], e["object"].get("status", {}).get("phase"),
                meta.get("deletionGracePeriodSeconds")))
        views.append(per_pod)
    problems = [] if views[0] == views[1] else [
        "kubesim: %s" % views[0], "real:    %s" % views[1]]
    tap(not problems, "watch events of a pod's life: same sequence",
        "\n".join(problems + ([] if problems or not VERBOSE
                               else ["both: %s" % views[0]])))


def start_real(top):
    d = os.path.join(top, "real")
    p = subprocess.run([os.path.join(K8S, "start-apiserver.sh"), d],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print("Bail out! start-apiserver.sh: %s" % p.stderr.strip())
        sys.exit(1)
    nodes = os.path.join(top, "nodes.yaml")
    kl = subprocess.Popen(
        [sys.executable, KUBESIM, "--kubelet-only", "--kubeconfig",
         os.path.join(d, "kubeconfig-kubelet-sim"), "--nodes", nodes,
         "--log-dir", os.path.join(d, "kubelet"),
         "--pid-file", os.path.join(d, "kubelet.pid")],
        stdin=subprocess.DEVNULL, stdout=open(os.path.join(d, "kubelet.log"),
                                              "w"), stderr=subprocess.STDOUT)
    url = open(os.path.join(d, "apiserver.url")).read().strip()
    side = Side("real", int(url.rsplit(":", 1)[1]), os.path.join(d, "ca.crt"),
                open(os.path.join(d, "token-admin")).read().strip())
    end = time.monotonic() + 20
    while time.monotonic() < end:
        code, body = side.call("GET", "/api/v1/nodes")
        if code == 200 and len(body.get("items", [])) == 2:
            break
        time.sleep(0.1)
    return side, kl, d


def start_sim(top):
    d = os.path.join(top, "sim")
    os.makedirs(d)
    args = [sys.executable, KUBESIM, "--listen", "127.0.0.1:0",
            "--port-file", os.path.join(d, "port"), "--tls-dir", d,
            "--token", "cmp-token", "--nodes", os.path.join(top, "nodes.yaml"),
            "--pid-file", os.path.join(d, "pid")]
    if os.path.exists(SWAGGER):
        args += ["--schema", SWAGGER]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                            stdout=open(os.path.join(d, "log"), "w"),
                            stderr=subprocess.STDOUT)
    port_file = os.path.join(d, "port")
    end = time.monotonic() + 20
    while not os.path.exists(port_file) and time.monotonic() < end:
        time.sleep(0.05)
    return Side("kubesim", int(open(port_file).read()),
                os.path.join(d, "ca.crt"), "cmp-token"), proc


def main():
    if os.environ.get("KAI_SKIP_REALAPI"):
        print("1..0 # SKIP real API tests disabled (KAI_SKIP_REALAPI)")
        return 0
    if not os.access(APISERVER, os.X_OK):
        print("1..0 # SKIP no kube-apiserver at %s (run "
              "contrib/k8s/build-apiserver.sh)" % APISERVER)
        return 0
    if not shutil.which("etcd") and not os.environ.get("KAI_K8S_ETCD"):
        print("1..0 # SKIP etcd not installed (apt-get install etcd-server)")
        return 0
    top = tempfile.mkdtemp(prefix="kai-compare-")
    with open(os.path.join(top, "nodes.yaml"), "w") as f:
        f.write(NODES)
    procs, real_dir = [], None
    try:
        real, kl, real_dir = start_real(top)
        procs.append(kl)
        sim, sp = start_sim(top)
        procs.append(sp)
        run((sim, real))
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if real_dir:
            subprocess.run([os.path.join(K8S, "stop-apiserver.sh"), real_dir])
        if os.environ.get("KAI_KEEP_TMP") != "1":
            shutil.rmtree(top, ignore_errors=True)
    print("1..%d" % count)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
