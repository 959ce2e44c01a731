#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6440-kacct-duplicates: a requeued job's runs in kacct, as sacct shows
# them (issue 12 item 6): by default the last run only, one row; with
# -D/--duplicates one row per run, the earlier ones REQUEUED, each with
# its own start and end, in the order they ran; -s REQUEUED selects them.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6440.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

id=$(cd "$T/work" && as_user "$A" ksubmit --parsable --wrap "sleep 3")
ok "a job runs" wait_state "$id" RUNNING
sleep 1
is "kctl requeue" "$(as_user "$A" kctl requeue "$id" 2>&1; echo $?)" 0
ok "it runs again" wait_state "$id" RUNNING
sleep 1
is "requeued again" "$(as_user "$A" kctl requeue "$id" 2>&1; echo $?)" 0
ok "and completes its third run" wait_state "$id" COMPLETED

kacct_rows()
{
	as_user "$A" kacct -n -P -X -j "$id" "$@"
}

is "kacct: the last run only" "$(kacct_rows -o JobID,State)" "$id|COMPLETED"
rows=$(kacct_rows -D -o JobID,State)
is "kacct -D: one row per run, the earlier ones REQUEUED" "$rows" \
    "$id|REQUEUED
$id|REQUEUED
$id|COMPLETED"
is "--duplicates is -D" "$(kacct_rows --duplicates -o State | tr '\n' ' ')" \
    "REQUEUED REQUEUED COMPLETED "
# Each run its own times: the start of a run is its placement, its end
# the requeue; the runs follow each other, and the last is the row kacct
# shows without -D.
times=$(kacct_rows -D -o Start,End)
is "three runs, each with a start and an end" \
    "$(echo "$times" | grep -c '^[0-9-]*T[0-9:]*|[0-9-]*T[0-9:]*$')" 3
is "in time order, each run after the one before" \
    "$(echo "$times" | tr '|' '\n' | sort -c && echo sorted)" sorted
is "the first run ends when it was requeued" \
    "$(echo "$times" | head -1 | cut -d'|' -f2)" \
    "$(stack_psql "select to_char(to_timestamp(min(time)), 'YYYY-MM-DD\"T\"HH24:MI:SS') from events where job_id = $id and from_state = 'RUNNING' and to_state = 'PENDING'")"
is "the last row is the run kacct shows without -D" \
    "$(echo "$times" | tail -1)" "$(kacct_rows -o Start,End)"
is "kacct -D -s REQUEUED: only the earlier runs" \
    "$(kacct_rows -D -s REQUEUED -o State | tr '\n' ' ')" "REQUEUED REQUEUED "
is "kacct -D of a job never requeued: one row" \
    "$(id2=$(cd "$T/work" && as_user "$A" ksubmit --parsable --wrap true) &&
	wait_state "$id2" COMPLETED && as_user "$A" kacct -n -P -X -D -j "$id2" -o State)" \
    "COMPLETED"

done_testing
