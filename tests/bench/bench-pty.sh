#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-pty.sh: the keystroke round trip of an interactive session
# (ksrun(1)) through kaid, on the real stack (tests/lib/stack.sh, kubesim
# pods on this host).  Prints figures; not a test: nothing passes or
# fails.
#
#   tests/bench/bench-pty.sh [BUILD-DIR]
#
# Must run as root (it runs ksrun as a test user); kubesim gives the pods
# their volumes (the job's key, kaistep from the helpers ConfigMap).
# `ksrun --pty cat` runs in a job; one byte is typed at a time and the clock stops when the
# remote terminal's echo of it is back: client -> kaid -> pod's pty ->
# kaid -> client.  Printed: the median, 90th percentile and maximum of
# KEYS keystrokes (default 500).  Slurm's `srun --pty` relays through
# slurmstepd straight from the node, without the controller.
#   KEYS=N  keystrokes (default 500)

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
STACK_SRC=$top
STACK_BIN=$(cd "${1:-$top/build/dev}" && pwd)
export STACK_SRC STACK_BIN
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/stack.sh"
stack_require
KEYS=${KEYS:-500}
[ -x "$STACK_BIN/pod/kaistep" ] ||
    { echo "bench-pty: pod/kaistep not built" >&2; exit 1; }

T=$(mktemp -d /tmp/kai-bpty.XXXXXX)
chmod 755 "$T"
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' >"$T/master.key"
chmod 600 "$T/master.key"
KUBESIM_VOLUMES=1 KAID_POD_HELPERS=configmap \
    KAID_CONF_EXTRA="job_key_file: $T/master.key" KAID_POD_CONTROLLER=listen \
    stack_start "$T" >/dev/null || { echo "bench-pty: no stack" >&2; exit 1; }
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

cd "$W" && as_user "$A" env KEYS="$KEYS" python3 - <<'EOP'
import os, pty, select, statistics, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("ksrun", ["ksrun", "--pty", "-t", "5", "cat"])
# ksrun makes its terminal raw once the pod's end has joined: until then
# the local echo would answer for it.
end = time.time() + 120
while termios.tcgetattr(fd)[3] & termios.ECHO:
    if time.time() > end:
        print("bench-pty: the session did not start"); sys.exit(1)
    if select.select([fd], [], [], 0.1)[0]:
        os.read(fd, 4096)
time.sleep(1)
while select.select([fd], [], [], 0.2)[0]:
    os.read(fd, 4096)
n = int(os.environ["KEYS"])
rtt = []
for i in range(n):
    c = b"abcdefghij"[i % 10:i % 10 + 1]
    t0 = time.perf_counter()
    os.write(fd, c)
    got = b""
    while c not in got:
        select.select([fd], [], [], 5)
        got += os.read(fd, 4096)
    rtt.append((time.perf_counter() - t0) * 1000)
os.write(fd, b"\r\x04")  # cat ends at a ^D on an empty line
rtt.sort()
print("keystroke round trip through kaid, %d keys: median %.2f ms, "
      "p90 %.2f ms, max %.2f ms" % (n, statistics.median(rtt),
      rtt[int(n * 0.9)], rtt[-1]))
os.waitpid(pid, 0)
EOP
