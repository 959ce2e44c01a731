#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3230-request-bounds: the scheduler holds a task's request in 32 bits
# (issue 14).  ksubmit asking for more than 1 PiB of memory a task is
# refused with the limit (1 PiB itself goes on to kaid, which refuses it
# as no node holds it); a job stored with more than the scheduler
# holds (a row edited by hand, or from before the limit) is set aside
# with Slurm's BadConstraints and a sentence naming the field, never
# wrapped to a small request, and kaid goes on scheduling the others.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t3230.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

# wait_why ID ERE: kqueue --why's line for ID once it matches (10 s).
wait_why()
{
	local line
	for _ in $(seq 1 100); do
		line=$(as_user "$A" kqueue -j "$1" --noheader --why)
		printf '%s' "$line" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$line"
}

out=$(cd "$W" && as_user "$A" ksubmit --mem=1048577G --wrap true 2>&1)
is "more than 1 PiB a task is refused before it is sent" "$?:$out" \
    '2:ksubmit: error: invalid memory 1073742848 MiB per task: the limit is 1073741824 MiB (1 PiB)'
stack_wait_nodes
out=$(cd "$W" && as_user "$A" ksubmit --mem=1048576G --wrap true 2>&1)
like "1 PiB passes the limit, and kaid refuses it for its nodes" "$?:$out" \
    '^1:ksubmit: error: Requested node configuration is not available: .* 1073741824 MiB'

# A held job, its row then given more memory than a task holds, as an
# edit by hand would: kaid reads it back at its start.
id=$(submit -H -t 1 --wrap true)
like "a held job" "$id" '^[0-9]+$'
kaid_stop
stack_psql "update jobs set mem_mb = 2147483648 where id = $id" >/dev/null
kaid_start || bail_out "kaid did not start again"
as_user "$A" kctl release "$id"
line=$(wait_why "$id" 'above')
like "it waits, the reason naming the field and the limit" "$line" \
    "^ +$id .* PD .*\\(memory_mib 2147483648 is above the scheduler's limit of 2147483647\\)\$"
like "with Slurm's code for a request no node can meet" \
    "$(as_user "$A" kctl show job "$id")" 'JobState=PENDING Reason=BadConstraints$'
is "the database keeps the code" \
    "$(stack_psql "select reason from jobs where id = $id")" BadConstraints

id2=$(submit -t 1 --wrap true)
ok "kaid goes on scheduling the others" wait_state "$id2" COMPLETED
is "and the set-aside job still waits" \
    "$(as_user "$A" kqueue -j "$id" --noheader -o %T)" PENDING

done_testing
