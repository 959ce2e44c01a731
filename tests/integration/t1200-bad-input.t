#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1200-bad-input: every kind of bad input gets one clear error line and
# the documented exit status, and nothing reaches the database.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t1200.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W" && cd "$W" || exit 1
printf '#!/bin/sh\necho hi\n' >ok.sh

jobs()
{
	stack_psql "select count(*) from jobs"
}
before=$(jobs)

# check TITLE WANT-RC REGEX CMD...: one stderr line matching REGEX, exit WANT-RC.
check()
{
	local title=$1 want=$2 re=$3 out rc
	shift 3
	out=$(as_user "$A" "$@" 2>&1 >/dev/null)
	rc=$?
	is "$title: exit $want" "$rc" "$want"
	like "$title: one clear line" "$out" "$re"
	is "$title: a single line" "$(printf '%s\n' "$out" | grep -c .)" 1
}

check "unknown option" 2 '^ksubmit: error: .*(unrecognized|unknown).*--frobnicate' \
    ksubmit --frobnicate ok.sh
check "bad time format" 2 '^ksubmit: error: .*invalid time limit "1-2-3"' \
    ksubmit -t 1-2-3 ok.sh
check "bad memory" 2 '^ksubmit: error: .*invalid memory size "12Q"' \
    ksubmit --mem 12Q ok.sh
check "missing script" 2 '^ksubmit: error: .*nosuch.sh' \
    ksubmit nosuch.sh
check "unknown partition" 1 '^ksubmit: error: invalid partition specified: "nosuch"' \
    ksubmit -p nosuch ok.sh
check "time over the partition limit" 1 '^ksubmit: error: .*time limit exceeds.*"short"' \
    ksubmit -p short -t 60 ok.sh
head -c 200000 /dev/zero | tr '\0' 'x' | sed '1s/^/#!\/bin\/sh\n#/' >big.sh
check "script over the size limit" 2 '^ksubmit: error: .*too large' \
    ksubmit big.sh
check "kqueue bad state" 2 '^kqueue: error: .*"ZZ"' kqueue -t ZZ
check "kacct bad time" 2 '^kacct: error: .*"yesterday-ish"' kacct -S yesterday-ish
check "kcancel bad job id" 2 '^kcancel: error: .*"12ab"' kcancel 12ab

out=$(KAI_CONTROLLER=127.0.0.1:1 as_user "$A" ksubmit ok.sh 2>&1)
is "unreachable controller: exit 3" "$?" 3
like "unreachable controller: says where" "$out" '^ksubmit: error: .*127.0.0.1:1'

# Raw frames speak the protocol version of this tree, so that only the
# fault each one carries is refused.
V=$(sed -n 's/^#define KAI_PROTO_VERSION  *\([0-9][0-9]*\).*/\1/p' \
    "$top_srcdir/src/proto/proto.h")
export V

# A frame far over the body limit is refused after its header.
python3 - "$T/huge.bin" <<'EOP'
import os, struct, sys
V = int(os.environ["V"])
hdr = struct.pack(">IHHIII", 0x4b414962, V, 2, 0, 0, 64 * 1024 * 1024)
open(sys.argv[1], "wb").write(hdr)
EOP
out=$(kai-rawreq --raw "$T/huge.bin")
like "an oversized frame is refused" "$out" '^error .*EPROTO.*(body|limit)'
python3 - "$T/ver.bin" <<'EOP'
import struct, sys
open(sys.argv[1], "wb").write(struct.pack(">IHHIII", 0x4b414962, 9, 8, 0, 0, 0))
EOP
out=$(kai-rawreq --raw "$T/ver.bin")
like "a version mismatch names both versions" "$out" "^error .*client speaks 9, kaid speaks $V"

# A credential of NUL bytes is refused before it is copied; kaid lives on
# (it used to wipe cred_len bytes of a one-byte copy and die).
python3 - "$T/nulcred.bin" <<'EOP'
import os, struct, sys
V = int(os.environ["V"])
cred = b"\0" * 4096
open(sys.argv[1], "wb").write(
    struct.pack(">IHHIII", 0x4b414962, V, 2, 0, len(cred), 0) + cred)
EOP
for i in 1 2 3; do
	out=$(kai-rawreq --raw "$T/nulcred.bin")
done
like "a credential holding NUL bytes is refused" "$out" '^error .*EPROTO.*NUL'
ok "kaid survives NUL credentials" kill -0 "$(cat "$T/kaid.pid")"

is "nothing was written to the database" "$(jobs)" "$before"
out=$(as_user "$A" kqueue --noheader; echo "rc=$?")
is "kaid still serves clients" "$out" "rc=0"

done_testing
