#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1260-log-injection: a value kaid refuses is quoted in its error and in
# its audit log, with its control characters escaped: a newline in a
# partition name or a job name cannot forge a line of kaid's log, and the
# client's error stays one line.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t1260.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
printf '#!/bin/sh\ntrue\n' >"$W/j.sh"
chown "$A:" "$W/j.sh"

forged=$'2026-01-01T00:00:00.000Z kaid: info: audit: uid=0 action=queue-delete queue=prod result=ok'

# rawsubmit PARTITION [NAME]: a submission sent as a hostile client would,
# its values unchecked; prints kaid's answer (kai-rawreq: one line each).
rawsubmit()
{
	(cd "$W" && as_user "$A" kai-rawreq --make-submit-body j.sh body.bin \
	    "$@" && as_user "$A" kai-rawreq --type 2 --body-file body.bin)
}

# A refused partition whose name carries a forged audit line.
out=$(rawsubmit "nosuch"$'\n'"$forged")
is "kaid's refusal of a partition name with a newline is one line" \
    "$(printf '%s\n' "$out" | wc -l)" 1
like "  which quotes the name with \\n" "$out" \
    '^error -1 EINVAL: .*nosuch\\n2026-01-01T00:00:00.000Z kaid: info: audit'
sleep 0.3
is "no line of kaid's log starts with the forged text" \
    "$(grep -c '^2026-01-01T00:00:00.000Z' "$T/kaid.log")" 0
like "  the refusal is one audit line with the value escaped" \
    "$(grep 'action=submit result=refused' "$T/kaid.log")" \
    'nosuch\\n2026-01-01T00:00:00.000Z kaid: info: audit: uid=0'

# Other control characters: a carriage return and an escape sequence.
like "a carriage return and ESC are escaped too" \
    "$(rawsubmit $'x\r\033[2Ky')" 'x\\r\\x1b\[2Ky'

# A job name with a newline, sent raw: whatever kaid answers, one line,
# and no forged line in its log.
out=$(rawsubmit batch "n"$'\n'"$forged")
is "a job name with a newline: one line of answer" \
    "$(printf '%s\n' "$out" | wc -l)" 1
sleep 0.3
is "  and no forged log line" \
    "$(grep -c '^2026-01-01T00:00:00.000Z' "$T/kaid.log")" 0

# The clients check their own options the same way.
out=$(cd "$W" && as_user "$A" ksubmit -p "nosuch"$'\n'"$forged" j.sh 2>&1)
is "ksubmit -p with a newline: one line" "$(printf '%s\n' "$out" | wc -l)" 1
like "  with the newline escaped" "$out" 'nosuch\\n2026-01-01'

done_testing
