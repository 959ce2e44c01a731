#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench-node.py: the figures of bench-node.sh, on a running node-tier
stack (tests/lib/stack.sh, KAI_STACK_API=node).  Not a test: it prints
figures and fails only when a run cannot be measured.

    bench-node.py latency RUNS
    bench-node.py throughput N

Environment (bench-node.sh sets it): KUBESIM_URL, KUBESIM_TOKEN (admin),
STACK_DIR, STACK_ALICE, PSQL (a command line that runs one query),
NODE (the node's name), WORKDIR (alice's directory of job.sh).

latency: RUNS times, a one-task job whose script prints the time and
exits (`date +%s.%N`), submitted with ksubmit: the seconds from ksubmit
to the script's first output line (the time the line carries: this
machine's clock, as the host's; read from the job's output file on the
shared /tmp) and to COMPLETED in kaid's database;
then RUNS times the same pod (the one kaid made, captured from the API,
renamed and without kaid's labels) created and bound by this program
directly on the same node: the seconds from the create to the line and
to phase Succeeded in a pod watch.  Both alternate, run by run.

throughput: N single-pod jobs (job.sh: `true`) submitted held, then
released at once (bench-node.sh does that and calls
`throughput-kaid N T0 BASE-ID`), timed from the release to the N-th job
ended; against the same N pods created and bound by this program,
never more at a time than kaid ran at once (the node's cpu), each
completed pod deleted as kaid deletes its own, timed from the first
create to the N-th pod Succeeded.
"""
import http.client
import json
import os
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

URL = urllib.parse.urlparse(os.environ["KUBESIM_URL"])
TOKEN = os.environ["KUBESIM_TOKEN"]
CA = os.path.join(os.environ["STACK_DIR"], "kubesim", "ca.crt")
NODE = os.environ.get("NODE", "node-1")
NS = "default"
CTX = ssl.create_default_context(cafile=CA)


def conn():
    return http.client.HTTPSConnection(URL.hostname, URL.port, context=CTX,
                                       timeout=600)


def api(method, path, body=None, c=None):
    own = c is None
    c = c or conn()
    hdrs = {"Authorization": "Bearer " + TOKEN}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    c.request(method, path, body=data, headers=hdrs)
    r = c.getresponse()
    out = r.read()
    if own:
        c.close()
    if r.status >= 300 and r.status != 404:
        raise RuntimeError("%s %s: %d %s" % (method, path, r.status,
                                             out[:200]))
    return json.loads(out) if out else None


class Watch(threading.Thread):
    """The pods of the namespace: when each was added, its phase times,
    its first log line (followed through the API server as soon as the
    pod has a container), and the first object as kaid sent it."""

    def __init__(self):
        super().__init__(daemon=True)
        self.lock = threading.Lock()
        self.pods = {}
        self.cond = threading.Condition(self.lock)
        self.running = 0
        self.max_running = 0

    def run(self):
        c = conn()
        c.request("GET", "/api/v1/namespaces/%s/pods?watch=1&"
                  "timeoutSeconds=36000" % NS,
                  headers={"Authorization": "Bearer " + TOKEN})
        r = c.getresponse()
        for line in r:
            ev = json.loads(line)
            now = time.time()
            o = ev["object"]
            name = o["metadata"]["name"]
            with self.cond:
                p = self.pods.setdefault(name, {"added": now, "obj": o,
                                                "line": None})
                phase = o.get("status", {}).get("phase")
                if ev["type"] == "DELETED":
                    p["deleted"] = now
                elif phase in ("Succeeded", "Failed") and "done" not in p:
                    p["done"] = now
                    p["phase"] = phase
                sts = o.get("status", {}).get("containerStatuses") or []
                if sts and "follow" not in p and (
                        "running" in sts[0]["state"] or
                        "terminated" in sts[0]["state"]):
                    p["follow"] = True
                    threading.Thread(target=self.follow, args=(name,),
                                     daemon=True).start()
                self.cond.notify_all()

    def follow(self, name):
        c = conn()
        try:
            c.request("GET", "/api/v1/namespaces/%s/pods/%s/log?follow=true"
                      % (NS, name),
                      headers={"Authorization": "Bearer " + TOKEN})
            r = c.getresponse()
            line = r.readline().decode(errors="replace").strip()
        except OSError:
            line = ""
        c.close()
        with self.cond:
            self.pods[name]["line"] = line
            self.cond.notify_all()

    def wait(self, pred, timeout=600):
        end = time.time() + timeout
        with self.cond:
            while not pred():
                left = end - time.time()
                if left <= 0:
                    raise RuntimeError("timed out")
                self.cond.wait(left)


def psql(q):
    return subprocess.run(os.environ["PSQL"] + " " + shq(q), shell=True,
                          check=True, capture_output=True,
                          text=True).stdout.strip()


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def ksubmit(*args):
    u = os.environ["STACK_ALICE"]
    cmd = ["setpriv", "--reuid=" + u, "--regid=" + u, "--init-groups",
           "ksubmit", "--parsable"] + list(args)
    # The job works in /tmp, which the image has: kaid's pods mount no
    # directory of the submit host (yet).
    out = subprocess.run(cmd, cwd="/tmp", check=True,
                         capture_output=True, text=True).stdout
    return out.strip().split(";")[0]


def job_state_wait(jid, step=0.02):
    while True:
        s = psql("select state from jobs where id = %s" % jid)
        if s in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                 "OUT_OF_MEMORY", "NODE_FAIL"):
            return s, time.time()
        time.sleep(step)


def pod_of_job(w, jid):
    with w.lock:
        for name, p in w.pods.items():
            lab = p["obj"]["metadata"].get("labels") or {}
            if lab.get("kaibatch.io/job-id") == str(jid):
                return name
    return None


def bare_pod(tmpl, name):
    """kaid's pod under another name, without kaid's labels (kaid would
    take it for one of its own); its annotations stay (the identity
    files are made from them)."""
    p = json.loads(json.dumps(tmpl))
    p["metadata"] = {"name": name, "namespace": NS,
                     "labels": {"bench": "bare"},
                     "annotations": tmpl["metadata"].get("annotations", {})}
    p.pop("status", None)
    p["spec"].pop("nodeName", None)
    return p


def create_bind(pod, c=None):
    name = pod["metadata"]["name"]
    api("POST", "/api/v1/namespaces/%s/pods" % NS, pod, c)
    api("POST", "/api/v1/namespaces/%s/pods/%s/binding" % (NS, name),
        {"apiVersion": "v1", "kind": "Binding",
         "metadata": {"name": name},
         "target": {"apiVersion": "v1", "kind": "Node", "name": NODE}}, c)


def first_line(path):
    """The time the script printed (its first output line, in the
    output file on the shared /tmp)."""
    with open(path) as f:
        return float(f.readline())


def stdout_of(pod):
    """The output file the pod's wrapper writes (the job's -o)."""
    for e in pod["spec"]["containers"][0].get("env", []):
        if e["name"] == "KAI_STDOUT":
            return e["value"]
    raise RuntimeError("no KAI_STDOUT in the pod")


def fmt(xs):
    return "median %.3f s (min %.3f, max %.3f, n=%d)" % (
        statistics.median(xs), min(xs), max(xs), len(xs))


def latency(runs):
    w = Watch()
    w.start()
    time.sleep(0.5)
    k_first, k_done, b_first, b_done = [], [], [], []
    tmpl = None
    for i in range(runs):
        t0 = time.time()
        jid = ksubmit("-o", "/tmp/lat-%j.out",
                      os.path.join(os.environ["WORKDIR"], "lat.sh"))
        state, t1 = job_state_wait(jid)
        if state != "COMPLETED":
            raise RuntimeError("job %s ended %s" % (jid, state))
        name = pod_of_job(w, jid)
        if tmpl is None:
            tmpl = w.pods[name]["obj"]
        k_first.append(first_line("/tmp/lat-%s.out" % jid) - t0)
        k_done.append(t1 - t0)
        bname = "bare-%d-%d" % (os.getpid(), i)
        pod = bare_pod(tmpl, bname)
        t0 = time.time()
        create_bind(pod)
        w.wait(lambda: "done" in w.pods.get(bname, {}))
        p = w.pods[bname]
        if p["phase"] != "Succeeded":
            raise RuntimeError("bare pod %s: %s" % (bname, p["phase"]))
        b_first.append(first_line(stdout_of(tmpl)) - t0)
        b_done.append(p["done"] - t0)
        api("DELETE", "/api/v1/namespaces/%s/pods/%s" % (NS, bname))
        w.wait(lambda: "deleted" in w.pods[bname])
        print("  run %d: kaid first line %.3f s, COMPLETED %.3f s; "
              "bare pod first line %.3f s, Succeeded %.3f s"
              % (i + 1, k_first[-1], k_done[-1], b_first[-1], b_done[-1]),
              file=sys.stderr)
    print("ksubmit -> first output line: " + fmt(k_first))
    print("ksubmit -> COMPLETED:         " + fmt(k_done))
    print("bare pod create+bind -> first output line: " + fmt(b_first))
    print("bare pod create+bind -> Succeeded:         " + fmt(b_done))
    print("kaid's own overhead (medians): %+.3f s to the first line, "
          "%+.3f s to the end" % (
              statistics.median(k_first) - statistics.median(b_first),
              statistics.median(k_done) - statistics.median(b_done)))
    json.dump(tmpl, open(os.path.join(os.environ["STACK_DIR"],
                                      "pod-template.json"), "w"))


def throughput_kaid(n, t0, base):
    """Called after the release of the n jobs numbered above base: waits
    for them to end and for their pods to be gone; prints the seconds
    to the last end, the most pods running at once and how many did not
    complete."""
    w = Watch()
    w.start()
    concurrent = 0
    ended = "(select count(*) from jobs where id > %d and state in " \
        "('COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'OUT_OF_MEMORY', " \
        "'NODE_FAIL'))" % base
    while True:
        done = int(psql("select " + ended))
        with w.lock:
            live = [p for p in w.pods.values()
                    if "deleted" not in p and "done" not in p]
            concurrent = max(concurrent, len(live))
        if done >= n:
            break
        time.sleep(0.1)
    t1 = time.time()
    notok = psql("select count(*) from jobs where id > %d and "
                 "state <> 'COMPLETED'" % base)
    # The raw run must find the node empty, and sends these very pods.
    w.wait(lambda: all("deleted" in p for p in w.pods.values()), 120)
    with w.lock:
        tmpl = next(iter(w.pods.values()))["obj"]
    json.dump(tmpl, open(os.path.join(os.environ["STACK_DIR"],
                                      "pod-template-n.json"), "w"))
    print("%.3f %d %s" % (t1 - t0, concurrent, notok))


def throughput_raw(n, conc):
    tmpl = json.load(open(os.path.join(os.environ["STACK_DIR"],
                                       "pod-template-n.json")))
    w = Watch()
    w.start()
    time.sleep(0.5)
    c = conn()
    t0 = time.time()
    made = 0
    finished = 0
    inflight = []
    while finished < n:
        while made < n and len(inflight) < conc:
            name = "raw-%d-%d" % (os.getpid(), made)
            create_bind(bare_pod(tmpl, name), c)
            inflight.append(name)
            made += 1
        w.wait(lambda: any("done" in w.pods.get(x, {}) for x in inflight))
        for x in [x for x in inflight if "done" in w.pods.get(x, {})]:
            inflight.remove(x)
            finished += 1
            if w.pods[x]["phase"] != "Succeeded":
                raise RuntimeError("raw pod %s: %s" % (x, w.pods[x]["phase"]))
            api("DELETE", "/api/v1/namespaces/%s/pods/%s" % (NS, x), None, c)
    with w.lock:
        t1 = max(p["done"] for p in w.pods.values() if "done" in p)
    print("%.3f" % (t1 - t0))


def main():
    what = sys.argv[1]
    if what == "latency":
        latency(int(sys.argv[2]))
    elif what == "throughput-kaid":
        throughput_kaid(int(sys.argv[2]), float(sys.argv[3]),
                        int(sys.argv[4]))
    elif what == "throughput-raw":
        throughput_raw(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit("usage: bench-node.py latency RUNS | "
                 "throughput-kaid N T0 BASE-ID |"
                 " throughput-raw N CONC")


if __name__ == "__main__":
    main()
