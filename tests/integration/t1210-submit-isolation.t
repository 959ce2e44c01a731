#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1210-submit-isolation: one user's submission that the database would
# refuse cannot take other users' submissions down with it.  Submissions
# that arrive together share one group commit (one transaction), so a
# single bad row used to fail every job in the batch: a job name holding
# the byte 0xff made other users' plain ksubmit calls fail.  Now such a
# name is refused at the wire with one line naming the field, and a row
# the database refuses for any other reason is refused alone.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t1210.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
chmod 755 "$T"
for u in "$A" "$B"; do
	mkdir -p "$T/$u" && chown "$u:" "$T/$u"
	printf '#!/bin/sh\n#SBATCH -H\ntrue\n' >"$T/$u/ok.sh"
	chown "$u:" "$T/$u/ok.sh"
done

# The byte 0xff in a job name: ksubmit refuses it before sending (usage,
# exit 2), and kaid refuses it at the wire from a client that sends it
# anyway, naming the field.
out=$(cd "$T/$B" && as_user "$B" ksubmit -J "$(printf 'bad\377')" ok.sh 2>&1)
is "a name that is not UTF-8: exit 2" "$?" 2
like "a name that is not UTF-8: says which option and why" "$out" \
    '^ksubmit: error: job name is not valid UTF-8 \(byte 0xff at offset 3\)$'
is "a name that is not UTF-8: one line" "$(printf '%s\n' "$out" | grep -c .)" 1
(cd "$T/$B" && as_user "$B" kai-rawreq --make-submit-body ok.sh bad.bin \
    batch "$(printf 'bad\377')") || bail_out "could not make the raw body"
out=$(cd "$T/$B" && as_user "$B" kai-rawreq --type 2 --body-file bad.bin 2>&1)
like "sent anyway, kaid refuses it naming the field" "$out" \
    'field "name" is not valid UTF-8 \(byte 0xff at offset 3\)$'
is "nothing of bob's was stored" "$(stack_psql "select count(*) from jobs")" 0

# hold_jobs_table SECONDS: keeps kaid's next insert waiting, so that the
# submissions sent meanwhile all queue up for one group commit.
hold_jobs_table()
{
	stack_psql "begin; lock table jobs in exclusive mode;
	    select pg_sleep($1); commit;" >/dev/null &
	sleep 0.5
}

# storm BOB-COMMAND...: 20 submissions of alice's and 5 of bob's (each
# BOB-COMMAND, run in bob's directory) sent at the same time; counts
# alice's accepted ones.
storm()
{
	local i
	rm -f "$T"/out.*
	hold_jobs_table 3
	as_user "$A" sh -c "cd $T/$A && ksubmit ok.sh" >"$T/out.first" 2>&1 &
	sleep 0.3
	for i in $(seq 1 5); do
		(cd "$T/$B" && as_user "$B" "$@") \
		    >"$T/out.bob.$i" 2>&1 &
	done
	for i in $(seq 1 20); do
		(cd "$T/$A" && as_user "$A" ksubmit ok.sh) \
		    >"$T/out.alice.$i" 2>&1 &
	done
	wait
	cat "$T"/out.alice.* | grep -c '^Submitted batch job [0-9]*$'
}

is "with bob sending 0xff names, all 20 of alice's are stored" \
    "$(storm kai-rawreq --type 2 --body-file bad.bin)" 20
is "and bob's are refused naming the field" \
    "$(cat "$T"/out.bob.* | grep -c 'field "name" is not valid UTF-8')" 5

# A row the database refuses for a reason no check at submission knows
# of (here a constraint added behind kaid's back): refused alone.
stack_psql "alter table jobs add constraint t1210_poison
    check (name <> 'poison') not valid" >/dev/null
is "with bob's rows refused by the database, all 20 of alice's are stored" \
    "$(storm ksubmit -J poison ok.sh)" 20
is "bob's are each refused" \
    "$(cat "$T"/out.bob.* | grep -c '^ksubmit: error: could not store the job: .*t1210_poison')" 5
like "they went through a shared group commit" "$(cat "$T/kaid.log")" \
    'group commit of [0-9]+ submissions failed'
is "alice's are all in the database" \
    "$(stack_psql "select count(*) from jobs where user_name = '$A'")" 42
is "kaid still answers" "$(as_user "$A" kqueue --noheader -u "$A" | wc -l)" 42

done_testing
