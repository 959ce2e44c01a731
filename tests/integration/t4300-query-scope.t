#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4300-query-scope: a user who is not an operator sees every user's
# active jobs (kqueue, as squeue) but only their own finished ones,
# whichever request asks.  A raw QUERY without the history flag but
# with finished states used to return every user's finished jobs with
# their working directories: kacct's own-jobs rule held on one path only.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4300.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
chmod 755 "$T"
for u in "$A" "$B"; do
	mkdir -p "$T/$u" && chown "$u:" "$T/$u"
	printf '#!/bin/sh\ntrue\n' >"$T/$u/ok.sh"
	chown "$u:" "$T/$u/ok.sh"
done
submit()
{
	local u=$1 out
	shift
	out=$(cd "$T/$u" && as_user "$u" ksubmit "$@" ok.sh) || return 1
	echo "${out##* }"
}

a_done=$(submit "$A" -J secret-done)
b_done=$(submit "$B")
a_held=$(submit "$A" -H)
ok "alice's job completes" wait_state "$a_done" COMPLETED
ok "bob's job completes" wait_state "$b_done" COMPLETED

ALL_STATES=1023		# every KAI_JOB_STATE_BIT
ENDED_STATES=1016	# COMPLETED .. OUT_OF_MEMORY
ALL_USERS=1		# KAI_QUERY_ALL_USERS
HISTORY=2		# KAI_QUERY_HISTORY
rawquery()
{
	local u=$1 body=$T/q.$1.$2.$3
	kai-rawreq --make-query-body "$2" "$3" "$body" &&
	    chmod 644 "$body" && as_user "$u" kai-rawreq --type 4 --body-file "$body"
}

out=$(rawquery "$B" $ENDED_STATES $ALL_USERS)
like "a raw query for finished states is answered" "$out" 'ok 5$'
unlike "without alice's finished job" "$out" "^job $a_done "
unlike "or her working directory" "$out" "workdir=$T/$A"
like "but with bob's own" "$out" "^job $b_done uid=$(id -u "$B") COMPLETED"

out=$(rawquery "$B" $ALL_STATES 0)
like "every state: alice's pending job is shown (squeue's rule)" "$out" \
    "^job $a_held uid=$(id -u "$A") PENDING"
unlike "but not her finished one" "$out" "^job $a_done "

out=$(rawquery "$B" $ALL_STATES $((ALL_USERS | HISTORY)))
unlike "history (kacct -a): none of alice's jobs" "$out" "^job ($a_done|$a_held) "
like "history: bob's own" "$out" "^job $b_done "

out=$(rawquery root $ENDED_STATES $ALL_USERS)
like "an operator sees alice's finished job" "$out" "^job $a_done "

out=$(as_user "$B" kqueue -t all --noheader -o '%i %u')
unlike "kqueue -t all as bob: not alice's finished job" "$out" "^ *$a_done "
like "kqueue -t all as bob: alice's pending job" "$out" "^ *$a_held $A"
out=$(as_user "$B" kctl show job "$a_done" 2>&1)
is "kctl show job of alice's finished job as bob: exit 1" "$?" 1
like "kctl show job: not found" "$out" 'Invalid job id specified'
out=$(as_user "$A" kctl show job "$a_done" 2>&1)
like "alice sees her own finished job" "$out" "JobId=$a_done JobName=secret-done"

done_testing
