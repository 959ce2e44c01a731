#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# pty-drive.py STEPS -- CMD...: runs CMD on a new pseudo-terminal (as a
# user at a terminal would) and plays STEPS, a file of one step a line:
#	winsize ROWS COLS   sets the terminal's size (CMD gets SIGWINCH)
#	send TEXT           types TEXT (\r, \x03 escapes as in Python)
#	expect REGEX        waits (30 s) for REGEX in what CMD wrote since
#	                    the last expect; fails the run when it does not come
#	sleep SECONDS
# Prints every expect's outcome ("ok: REGEX" / "missing: REGEX"), then
# "exit N" with CMD's exit status; the transcript goes to $PTY_LOG.
import fcntl, os, pty, re, select, struct, sys, termios, time

steps = open(sys.argv[1]).read().splitlines()
cmd = sys.argv[sys.argv.index("--") + 1:]
log = open(os.environ.get("PTY_LOG", "/dev/null"), "ab")
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
buf = b""
status = None

def winsize(r, c):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))

def pump(t):
    global buf
    r, _, _ = select.select([fd], [], [], t)
    if r:
        try:
            d = os.read(fd, 65536)
        except OSError:
            d = b""
        buf += d
        log.write(d)
        log.flush()
        return bool(d)
    return True

winsize(24, 80)
failed = False
for line in steps:
    if not line.strip() or failed:
        continue
    op, _, arg = line.partition(" ")
    if op == "winsize":
        r, c = arg.split()
        winsize(int(r), int(c))
    elif op == "send":
        os.write(fd, arg.encode().decode("unicode_escape").encode("latin-1"))
    elif op == "sleep":
        end = time.time() + float(arg)
        while time.time() < end:
            pump(0.05)
    elif op == "expect":
        rx = re.compile(arg.encode())
        end = time.time() + 30
        m = None
        while time.time() < end:
            m = rx.search(buf)
            if m or not pump(0.1):
                m = m or rx.search(buf)
                break
        if m:
            print("seen: " + arg)
            buf = buf[m.end():]
        else:
            print("missing: " + arg)
            failed = True
end = time.time() + 30
while time.time() < end:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p == pid:
        status = os.waitstatus_to_exitcode(st)
        break
    pump(0.1)
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    status = "hung"
print("exit %s" % status)
