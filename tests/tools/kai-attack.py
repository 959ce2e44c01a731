#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""kai-attack: a hostile client of kaid's ports, for the limit tests.

It does what the real clients never do and reports what kaid did about
it as one line on stdout, so a test compares strings:

  hold N MODE     N connections from --src, each doing MODE, held for
                  --seconds; prints "closed=C open=O" (C closed by kaid)
                  and "refused: MESSAGE" for each refusal frame read.
                  MODE: idle (sends nothing), partial (a header announcing
                  a 4096-byte credential and 1 MiB body, then all but one
                  credential byte), garbage (a header, a garbage
                  credential, then all but the last byte of a 1 MiB body,
                  as fast as kaid takes it)
  slow            a frame header one byte every --interval seconds;
                  prints "closed after S s: MESSAGE" or "open after S s"
  noread FILE     sends the frame in FILE with a small receive buffer and
                  reads nothing for --seconds, then drains: prints
                  "closed after B bytes" (kaid gave up on it) or
                  "open after B bytes" (it sent everything and waits)
  http-idle N     N idle connections to an HTTP port, held for --seconds

Exit status 0 unless the arguments are wrong or a connection fails.
"""
import argparse
import errno
import os
import re
import socket
import struct
import sys
import time

MAGIC = 0x4B414962
HDR = struct.Struct(">IHHIII")  # magic, version, type, flags, cred, body


def proto_version():
    """KAI_PROTO_VERSION of the source tree this script is in: a header
    kaid refuses for its version would test nothing else."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "src", "proto", "proto.h")) as f:
        m = re.search(r"#define\s+KAI_PROTO_VERSION\s+(\d+)", f.read())
    return int(m.group(1))


VERSION = proto_version()


def header(cred_len, body_len, typ=2):
    return HDR.pack(MAGIC, VERSION, typ, 0, cred_len, body_len)


def connect(a, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if a.src:
        s.bind((a.src, 0))
    s.connect((a.host, a.port))
    return s


def messages(data):
    """The messages of the error frames in data (code, message, hint)."""
    out = []
    while len(data) >= HDR.size:
        _, _, typ, _, clen, blen = HDR.unpack_from(data)
        body = data[HDR.size + clen:HDR.size + clen + blen]
        data = data[HDR.size + clen + blen:]
        if typ == 1 and len(body) >= 8:
            n = struct.unpack_from(">I", body, 4)[0]
            out.append(body[8:8 + n].decode(errors="replace"))
    return out


def state(s):
    """'closed' (EOF or reset, data kept in got) or 'open'."""
    s.setblocking(False)
    got = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return "closed", got
            got += d
    except BlockingIOError:
        return "open", got
    except (ConnectionResetError, BrokenPipeError):
        return "closed", got


def push(s, data):
    """Sends what the socket takes now; returns the rest."""
    s.setblocking(False)
    try:
        n = s.send(data)
    except (BlockingIOError, InterruptedError):
        return data
    except (ConnectionResetError, BrokenPipeError):
        return b""
    return data[n:]


def hold(a):
    conns = []
    for _ in range(a.n):
        s = connect(a)
        if a.mode == "partial":
            s.sendall(header(4096, 1 << 20) + b"A" * 4095)
            conns.append((s, b""))
        elif a.mode == "garbage":
            # All of a 1 MiB frame but its last byte: kaid would wait
            # for that byte holding the rest.
            conns.append((s, header(4096, 1 << 20) +
                          b"A" * 4096 + b"B" * ((1 << 20) - 1)))
        else:
            conns.append((s, b""))
    if a.ready:
        # the test waits for this, not for a guess of how long the
        # connections take on a loaded machine
        with open(a.ready, "w") as f:
            f.write("%d\n" % len(conns))
    end = time.time() + a.seconds
    while time.time() < end:
        conns = [(s, push(s, rest) if rest else rest) for s, rest in conns]
        time.sleep(0.05)
    closed, refusals = 0, []
    for s, _ in conns:
        st, got = state(s)
        closed += st == "closed"
        if got:
            refusals.extend(messages(got)[:1])
        s.close()
    print("closed=%d open=%d" % (closed, len(conns) - closed))
    for m in sorted(set(refusals)):
        print("refused: %s" % m)


def slow(a):
    s = connect(a)
    frame = header(4096, 100)
    t0 = time.time()
    i = 0
    while time.time() - t0 < a.seconds:
        st, got = state(s)
        if st == "closed":
            m = messages(got)
            print("closed after %d s: %s" % (round(time.time() - t0),
                                             m[0] if m else "no message"))
            return
        if i < len(frame):
            s.setblocking(True)
            try:
                s.send(frame[i:i + 1])
            except (ConnectionResetError, BrokenPipeError):
                continue
            i += 1
        time.sleep(a.interval)
    print("open after %d s" % round(time.time() - t0))


def noread(a):
    with open(a.file, "rb") as f:
        frame = f.read()
    s = connect(a, rcvbuf=4096)
    s.sendall(frame)
    time.sleep(a.seconds)
    total = 0
    s.settimeout(3)
    try:
        while True:
            d = s.recv(1 << 20)
            if not d:
                print("closed after %d bytes" % total)
                return
            total += len(d)
    except socket.timeout:
        print("open after %d bytes" % total)
    except ConnectionResetError:
        print("closed after %d bytes" % total)


def http_idle(a):
    conns = [connect(a) for _ in range(a.n)]
    time.sleep(a.seconds)
    closed = sum(state(s)[0] == "closed" for s in conns)
    print("closed=%d open=%d" % (closed, len(conns) - closed))


def main():
    p = argparse.ArgumentParser(prog="kai-attack")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--src", help="source address, e.g. 127.0.0.2")
    p.add_argument("--seconds", type=float, default=3)
    p.add_argument("--interval", type=float, default=0.3)
    p.add_argument("--ready", help="hold: a file created once connected")
    sub = p.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("hold")
    h.add_argument("n", type=int)
    h.add_argument("mode", choices=["idle", "partial", "garbage"])
    sub.add_parser("slow")
    r = sub.add_parser("noread")
    r.add_argument("file")
    w = sub.add_parser("http-idle")
    w.add_argument("n", type=int)
    a = p.parse_args()
    try:
        {"hold": hold, "slow": slow, "noread": noread,
         "http-idle": http_idle}[a.cmd](a)
    except OSError as e:
        print("kai-attack: %s" % e, file=sys.stderr)
        return 1 if e.errno != errno.EINVAL else 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
