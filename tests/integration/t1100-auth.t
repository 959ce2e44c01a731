#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1100-auth: kaid trusts the MUNGE credential, never the request body: a
# captured request replayed, replayed with another body, or sent with an
# expired credential is refused, and nothing is written.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t1100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

out=$(as_user "$A" kai-rawreq --ping)
is "ping reports the caller's uid and gid from the credential" "$out" \
    "ok uid=$(id -u "$A") gid=$(id -g "$A")"

jobs()
{
	stack_psql "select count(*) from jobs"
}

# A real submission body.
printf '#!/bin/sh\necho hi\n' >"$T/s.sh"
chmod 644 "$T/s.sh"
(cd "$W" && kai-rawreq --make-submit-body "$T/s.sh" "$T/body.bin") ||
    bail_out "kai-rawreq --make-submit-body failed"
chmod 644 "$T/body.bin"
out=$(as_user "$A" kai-rawreq --type 2 --body-file "$T/body.bin" --save "$W/frame.bin")
like "a fresh credential over the body is accepted" "$out" '^ok '
before=$(jobs)

out=$(as_user "$A" kai-rawreq --replay "$W/frame.bin")
like "the same frame replayed is refused" "$out" '^error .*EAUTH.*replayed'
is "nothing written for the replay" "$(jobs)" "$before"

printf '#!/bin/sh\necho evil\n' >"$T/s2.sh"
(cd "$W" && kai-rawreq --make-submit-body "$T/s2.sh" "$T/body2.bin")
chmod 644 "$T/body2.bin"
as_user "$A" kai-rawreq --type 2 --body-file "$T/body.bin" --save "$W/fresh.bin" --no-send
out=$(as_user "$A" kai-rawreq --replay "$W/fresh.bin" --swap-body "$T/body2.bin")
like "a credential moved onto another body is refused" "$out" \
    '^error .*EAUTH.*does not match'
is "nothing written for the swapped body" "$(jobs)" "$before"

out=$(as_user "$A" kai-rawreq --type 2 --body-file "$T/body.bin" --ttl 1 --save "$W/frame3.bin" --no-send)
sleep 3
out=$(as_user "$A" kai-rawreq --replay "$W/frame3.bin")
like "an expired credential is refused" "$out" '^error .*EAUTH.*expired'
is "nothing written for the expired credential" "$(jobs)" "$before"

out=$(kai-rawreq --type 2 --body-file "$T/body.bin" --no-cred)
like "a request without a credential is refused" "$out" '^error .*EAUTH.*missing credential'

printf 'XXXXnot a kaibatch frame at all' >"$T/junk.bin"
out=$(kai-rawreq --raw "$T/junk.bin")
like "a foreign frame gets a protocol error" "$out" '^error .*EPROTO.*magic'
out=$(as_user "$A" kai-rawreq --ping)
like "kaid still answers other clients afterwards" "$out" '^ok uid='

done_testing
