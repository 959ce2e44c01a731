#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench-soak.py: the client side of bench-soak.sh (read that first).

N client threads, each a loop of the real clients for DURATION seconds:
ksubmit (a held job half of the time, a job that runs `true` the other
half), kqueue, and kcancel of the oldest held job the thread submitted,
in the proportions 4:4:2 (a query when it holds none).  Each call is timed as a user sees it (process
start to exit).  Prints, per request type, the calls, failures and the
p50/p99 latency of the first and the last WINDOW seconds, as lines
`TYPE WINDOW calls=N failed=F p50=X p99=Y` (ms); bench-soak.sh adds
kaid's memory.

    bench-soak.py CLIENTS DURATION WINDOW JOBSCRIPT
"""
import random
import subprocess
import sys
import threading
import time


def run(argv):
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL)
    return time.monotonic() - t0, p.returncode, p.stdout


def client(seed, end, script, samples, lock):
    rnd = random.Random(seed)
    mine = []
    while time.monotonic() < end:
        r = rnd.random()
        t = time.monotonic()
        if r < 0.4:
            kind = "submit"
            held = ["-H"] if rnd.random() < 0.5 else []
            dt, rc, out = run(["ksubmit", "--parsable", "-J", "soak"] +
                              held + [script])
            if rc == 0 and held:
                mine.append(out.decode().strip().split(";")[0])
        elif r < 0.8 or not mine:
            kind = "query"
            dt, rc, _ = run(["kqueue", "--noheader"])
        else:
            kind = "cancel"
            dt, rc, _ = run(["kcancel", mine.pop(0)])
        with lock:
            samples.append((t, kind, dt, rc))


def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def main():
    clients, duration, window = int(sys.argv[1]), float(sys.argv[2]), \
        float(sys.argv[3])
    script = sys.argv[4]
    samples, lock = [], threading.Lock()
    start = time.monotonic()
    end = start + duration
    threads = [threading.Thread(target=client, args=(i, end, script,
                                                      samples, lock))
               for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("requests: %d in %.0f s (%.1f/s)" % (
        len(samples), duration, len(samples) / duration))
    for kind in ("submit", "query", "cancel"):
        for name, lo, hi in (("first", start, start + window),
                             ("last", end - window, end)):
            s = [x for x in samples if x[1] == kind and lo <= x[0] < hi]
            ms = [x[2] * 1000 for x in s]
            print("%-6s %-5s calls=%d failed=%d p50=%.0f p99=%.0f" % (
                kind, name, len(s), sum(1 for x in s if x[3] != 0),
                pct(ms, 50), pct(ms, 99)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
