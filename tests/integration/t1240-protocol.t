#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1240-protocol: clients of another protocol version against this kaid.
# A protocol 1 client (positional records, no lengths) sending its own
# layout of a submission, and a client of a newer version, each get one
# line that names both versions, in a frame of their own version so they
# can read it (kai-rawreq adds "[protocol N]" for such a frame); nothing
# is written, and kaid goes on serving.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t1240.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

jobs()
{
	stack_psql "select count(*) from jobs"
}

printf '#!/bin/sh\necho hi\n' >"$T/s.sh"
chmod 644 "$T/s.sh"
(cd "$W" && kai-rawreq --make-submit-body-v1 "$T/s.sh" "$T/v1.bin" &&
    kai-rawreq --make-submit-body "$T/s.sh" "$T/v2.bin") ||
    bail_out "kai-rawreq --make-submit-body failed"
chmod 644 "$T/v1.bin" "$T/v2.bin"
is "the protocol 1 body is the record without its length and umask" \
    "$(($(stat -c %s "$T/v2.bin") - $(stat -c %s "$T/v1.bin")))" 8

out=$(as_user "$A" kai-rawreq --proto-version 1 --type 2 \
    --body-file "$T/v1.bin")
is "a protocol 1 client's submission: one line naming both versions" \
    "$out" \
    "error -8 EPROTO: protocol version mismatch: client speaks 1, kaid speaks 3 [protocol 1]"
is "nothing submitted" "$(jobs)" 0

out=$(as_user "$A" kai-rawreq --proto-version 4 --type 4 --body-file /dev/null)
is "a newer client's query: one line naming both versions" "$out" \
    "error -8 EPROTO: protocol version mismatch: client speaks 4, kaid speaks 3 [protocol 4]"

grep -c 'protocol version mismatch' "$T/kaid.log" >"$T/n" || true
is "kaid logs each refusal once" "$(cat "$T/n")" 2

out=$(as_user "$A" kai-rawreq --type 2 --body-file "$T/v2.bin")
like "and still takes a submission of its own version" "$out" '^ok 3$'
is "one job" "$(jobs)" 1
out=$(as_user "$A" kqueue -h -t all -o '%i %j')
like "which kqueue shows" "$out" '^[0-9]+ rawreq$'

done_testing
