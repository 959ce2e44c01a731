#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t2010-cancel-others: `kcancel -u other` by a user who is not an operator
# is refused in one line with a non-zero exit (as scancel refuses it),
# instead of matching none of the caller's jobs and exiting 0 in silence;
# and a queue file naming a queue "a\0b" is refused, not created as "a".

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t2010.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chmod 777 "$W"
printf '#!/bin/sh\nsleep 60\n' >"$W/j.sh"
chmod 644 "$W/j.sh"

out=$(cd "$W" && as_user "$A" ksubmit --hold j.sh 2>&1)
like "alice's held job is submitted" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }

out=$(as_user "$B" kcancel -u "$A" 2>&1)
rc=$?
is "bob's kcancel -u alice: exit 1" "$rc" 1
is "  one line: permission denied" "$out" \
    "kcancel: error: permission denied: only operators may cancel other users' jobs"
is "  alice's job is untouched" "$(stack_psql "select state from jobs where id = $id")" \
    PENDING
like "  the refusal is audited" "$(cat "$T/kaid.log")" \
    "audit: uid=$(id -u "$B") action=cancel user=$(id -u "$A") result=permission denied"
out=$(as_user "$B" kcancel -u "$B,$A" 2>&1)
is "bob naming himself and alice: refused too" "$?" 1
out=$(as_user "$B" kcancel -u "$B" 2>&1)
is "bob's kcancel -u bob (no jobs): exit 0" "$?:$out" "0:"
out=$(kcancel -u "$A" 2>&1)
is "root (an operator) may: exit 0" "$?:$out" "0:"
ok "  alice's job is CANCELLED" wait_state "$id" CANCELLED

# A queue name with a NUL or a control character, from a queue file.
printf 'queues:\n  - name: "a\\0b"\n' >"$T/nul.yaml"
out=$(kctl queue apply -f "$T/nul.yaml" 2>&1)
rc=$?
is "a queue name holding NUL is refused: exit 2" "$rc" 2
like "  in one line naming the place" "$out" \
    "^kctl: error: $T/nul.yaml:2:11: a value holds a NUL character\$"
printf 'queues:\n  - name: "a\\nb"\n' >"$T/nl.yaml"
out=$(kctl queue apply -f "$T/nl.yaml" 2>&1)
like "a queue name holding a newline is refused" "$?:$out" \
    "^2:kctl: error: $T/nl.yaml:2:11: a value holds the control character 0x0a\$"
is "no queue \"a\" was created" \
    "$(stack_psql "select count(*) from queues where name like 'a%'")" 0

done_testing
