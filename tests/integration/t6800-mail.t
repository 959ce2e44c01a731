#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6800-mail: Slurm's job mail.  kaid.yaml's mail_prog is a script that
# records each call (argv, environment, stdin) in a file of its own;
# the notices a user asks for with --mail-type arrive with slurmctld's
# subjects and variables: BEGIN and END of a job that succeeds, FAIL of
# one that exits 2, a TIMEOUT, REQUEUE (kctl requeue), a time limit's
# 50%, INVALID_DEPEND, none for NONE, one BEGIN and one summary for an
# array; mail_domain qualifies a bare user; a bad --mail-type is refused
# with sbatch's words; kctl show job shows MailUser and MailType; a kaid
# restart sends nothing again; a mail_prog that is missing is one
# warning.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t6800.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
chmod 755 "$T"
M=$T/mails
mkdir -p "$M" && chmod 777 "$M"
# The mail program: one directory per call, argv one per line.
cat >"$T/mail.sh" <<EOS
#!/bin/sh
d=\$(mktemp -d "$M/m.XXXXXX") || exit 1
for a in "\$0" "\$@"; do printf '%s\n' "\$a"; done >"\$d/argv"
env | sort >"\$d/env"
cat >"\$d/stdin"
EOS
chmod 755 "$T/mail.sh"
KAID_CONF_EXTRA="mail_prog: $T/mail.sh
mail_domain: example.org"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}
pod_patch()
{
	curl -sS --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "@$KUBESIM_AUTH" -X PATCH \
	    -H 'Content-Type: application/merge-patch+json' -d "$2" \
	    "$KUBESIM_URL/api/v1/namespaces/default/pods/$1" >/dev/null
}
# subjects JOB: the subjects of the mails about job JOB (by
# SLURM_JOB_ID), one a line, sorted.
subjects()
{
	local d
	for d in "$M"/m.*; do
		[ -f "$d/env" ] || continue
		grep -qx "SLURM_JOB_ID=$1" "$d/env" && sed -n 3p "$d/argv"
	done | sort
}
# wait_mails JOB N: until N mails about JOB arrived (20 s at most).
# shellcheck disable=SC2317 # called through ok
wait_mails()
{
	for _ in $(seq 200); do
		[ "$(subjects "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "# job $1: $(subjects "$1" | wc -l) mails, not $2" >&2
	return 1
}
# mail_of JOB WORD: the directory of JOB's mail whose subject has WORD.
mail_of()
{
	local d
	for d in "$M"/m.*; do
		[ -f "$d/env" ] || continue
		grep -qx "SLURM_JOB_ID=$1" "$d/env" &&
		    sed -n 3p "$d/argv" | grep -q "$2" && echo "$d"
	done | head -1
}

# A time limit's 50%: -t 1 is a minute, so the notice comes at 30 s;
# submitted first, and looked at last.
tl=$(submit -J half -t 1 --mail-type=TIME_LIMIT_50 --wrap 'sleep 300')

# BEGIN and END of a job that succeeds.
id=$(submit -J train --mail-type=BEGIN,END --wrap 'sleep 1')
ok "the job completes" wait_state "$id" COMPLETED
ok "two mails" wait_mails "$id" 2
like "BEGIN: slurmctld's subject" "$(subjects "$id" | grep Began)" \
    "^Slurm Job_id=$id Name=train Began, Queued time [0-9][0-9]:[0-9][0-9]:[0-9][0-9]\$"
like "END: run time, state and exit code" "$(subjects "$id" | grep Ended)" \
    "^Slurm Job_id=$id Name=train Ended, Run time [0-9][0-9]:[0-9][0-9]:[0-9][0-9], COMPLETED, ExitCode 0\$"
d=$(mail_of "$id" Ended)
is "argv: -s SUBJECT ADDRESS, the user qualified by mail_domain" \
    "$(sed -n '1p;2p;4p' "$d/argv" | tr '\n' ' ')" "$T/mail.sh -s $A@example.org "
is "and nothing more" "$(wc -l <"$d/argv")" 4
is "stdin is empty" "$(wc -c <"$d/stdin")" 0
for v in "SLURM_JOB_ID=$id" SLURM_JOB_NAME=train "SLURM_JOB_USER=$A" \
    SLURM_JOB_STATE=COMPLETED SLURM_JOB_MAIL_TYPE=Ended \
    SLURM_JOB_EXIT_CODE_MAX=0 SLURM_JOB_PARTITION=batch \
    "SLURM_JOB_UID=$(id -u "$A")"; do
	ok "the environment has $v" grep -qx "$v" "$d/env"
done
like "SLURM_JOB_RUN_TIME" "$(grep ^SLURM_JOB_RUN_TIME= "$d/env")" \
    '^SLURM_JOB_RUN_TIME=00:00:[0-9][0-9]$'
ok "no variable of kaid's own leaks in" \
    test -z "$(grep -v -e '^SLURM_' -e '^PATH=' -e '^PWD=' "$d/env")"
d=$(mail_of "$id" Began)
like "BEGIN: SLURM_JOB_QUEUED_TIME" "$(grep ^SLURM_JOB_QUEUED_TIME= "$d/env")" \
    '^SLURM_JOB_QUEUED_TIME=00:00:[0-9][0-9]$'
is "kctl show job: MailType and MailUser as stored" \
    "$(as_user "$A" kctl show job "$id" | grep -e MailType= -e MailUser= | tr -d ' ' | sort | tr '\n' ' ')" \
    "MailType=BEGIN,END MailUser=$A "

# FAIL of a job that exits 2, to an address of the user's own.
id=$(submit -J bad --mail-type=FAIL --mail-user=alice@lab.example \
    --wrap 'sleep 1; exit 2')
ok "the job fails" wait_state "$id" FAILED
ok "one mail" wait_mails "$id" 1
like "FAIL: state and exit code" "$(subjects "$id")" \
    "^Slurm Job_id=$id Name=bad Failed, Run time [0-9:]+, FAILED, ExitCode 2\$"
d=$(mail_of "$id" Failed)
is "an address with @ is kept as given" "$(sed -n 4p "$d/argv")" \
    alice@lab.example
ok "SLURM_JOB_EXIT_CODE_MAX=2" grep -qx SLURM_JOB_EXIT_CODE_MAX=2 "$d/env"

# INVALID_DEPEND: a dependency on that failed job can never be met.
dep=$(submit -J dep --mail-type=INVALID_DEPEND -d "afterok:$id" --wrap true)
ok "one mail" wait_mails "$dep" 1
is "INVALID_DEPEND: once, in Slurm's words" "$(subjects "$dep")" \
    "Slurm Job_id=$dep Name=dep Invalid dependency"

# END only: a failed job gets "Ended" (Slurm's rule), FAIL only: a
# completed job gets nothing.
id=$(submit -J endonly --mail-type=END --wrap 'exit 3')
id2=$(submit -J failonly --mail-type=FAIL --wrap 'true')
ok "END only: the job fails" wait_state "$id" FAILED
ok "FAIL only: the job completes" wait_state "$id2" COMPLETED
ok "END only: one mail" wait_mails "$id" 1
like "a failed job with END only is told it Ended" "$(subjects "$id")" \
    "^Slurm Job_id=$id Name=endonly Ended, Run time [0-9:]+, FAILED, ExitCode 3\$"

# TIMEOUT: killed at its limit, so no exit code.
id=$(submit -J slow -t 5 --mail-type=FAIL --wrap 'sleep 300')
ok "the slow job runs" wait_state "$id" RUNNING
pod_patch "kai-$id-0" '{"spec":{"activeDeadlineSeconds":1}}'
ok "it times out" wait_state "$id" TIMEOUT
ok "one mail" wait_mails "$id" 1
like "TIMEOUT: Failed, without ExitCode" "$(subjects "$id")" \
    "^Slurm Job_id=$id Name=slow Failed, Run time [0-9:]+, TIMEOUT\$"

# REQUEUE: kctl requeue of a running job.
id=$(submit -J again --mail-type=REQUEUE --wrap 'sleep 300')
ok "the job runs" wait_state "$id" RUNNING
as_user "$A" kctl requeue "$id"
ok "one mail" wait_mails "$id" 1
like "REQUEUE: Requeued, with its run time" "$(subjects "$id")" \
    "^Slurm Job_id=$id Name=again Requeued, Run time [0-9:]+\$"
as_user "$A" kcancel "$id"

# NONE sends nothing, nor does a job that asks for nothing.
id=$(submit -J quiet --mail-type=NONE --wrap 'true')
id2=$(submit -J silent --wrap 'exit 1')
ok "NONE: the job completes" wait_state "$id" COMPLETED
ok "no option: the job fails" wait_state "$id2" FAILED
sleep 0.5
is "NONE and no --mail-type: no mail" "$(subjects "$id"; subjects "$id2")" ""
is "kctl show job: MailType=NONE" \
    "$(as_user "$A" kctl show job "$id2" | grep -o 'MailType=[A-Z,]*')" \
    MailType=NONE

# An array: one BEGIN for the array, one summary at its end.
aid=$(submit -J arr -a 0-2 --mail-type=BEGIN,END --wrap 'sleep 1')
for _ in $(seq 300); do
	[ "$(stack_psql "select count(*) from jobs where coalesce(array_job_id, id) = $aid and state = 'COMPLETED'")" = 3 ] && break
	sleep 0.1
done
is "the array's three tasks complete" \
    "$(stack_psql "select count(*) from jobs where coalesce(array_job_id, id) = $aid and state = 'COMPLETED'")" 3
ok "two mails about the array" wait_mails "$aid" 2
is "BEGIN once and the summary at the end" "$(subjects "$aid")" \
    "Slurm Array Summary Job_id=${aid}_* ($aid) Name=arr Began
Slurm Array Summary Job_id=${aid}_* ($aid) Name=arr Ended, COMPLETED, ExitCode [0-0]"
is "no task mails of its own" \
    "$(grep -l "^SLURM_ARRAY_JOB_ID=$aid" "$M"/m.*/env 2>/dev/null | wc -l)" 0

# An array whose tasks exit 0, 1 and 2: the summary says Failed, Mixed,
# with the range of exit codes; with ARRAY_TASKS each task is told alone.
mix=$(submit -J mix -a 0-2 --mail-type=FAIL --wrap 'exit $SLURM_ARRAY_TASK_ID')
per=$(submit -J per -a 0-1 --mail-type=FAIL,ARRAY_TASKS \
    --wrap 'exit $SLURM_ARRAY_TASK_ID')
ok "the mixed array's summary" wait_mails "$mix" 1
is "FAIL summary: Mixed, ExitCode [0-2]" "$(subjects "$mix")" \
    "Slurm Array Summary Job_id=${mix}_* ($mix) Name=mix Failed, Mixed, ExitCode [0-2]"
for _ in $(seq 200); do
	grep -qs "^SLURM_ARRAY_JOB_ID=$per" "$M"/m.*/env && break
	sleep 0.1
done
d=$(dirname "$(grep -l "^SLURM_ARRAY_JOB_ID=$per" "$M"/m.*/env | head -1)")
like "ARRAY_TASKS: the failed task is told alone" "$(sed -n 3p "$d/argv")" \
    "^Slurm Array Task Job_id=${per}_1 \([0-9]+\) Name=per Failed, Run time [0-9:]+, FAILED, ExitCode 1\$"
sleep 0.5
is "and only that task" \
    "$(grep -l "^SLURM_ARRAY_JOB_ID=$per" "$M"/m.*/env | wc -l)" 1

# kctl update job: MailType and MailUser of a pending job, as scontrol.
id=$(submit -J upd -H --mail-type=END --wrap 'sleep 1')
out=$(as_user "$A" kctl update job "$id" MailType=begin MailUser=x@y.example 2>&1)
is "kctl update job MailType= MailUser=: exit 0, silent" "$?:$out" "0:"
is "kctl show job shows them" \
    "$(as_user "$A" kctl show job "$id" | grep -e MailType= -e MailUser= | tr -d ' ' | sort | tr '\n' ' ')" \
    "MailType=BEGIN MailUser=x@y.example "
err=$(as_user "$A" kctl update job "$id" MailType=SOMETIMES 2>&1)
like "MailType=SOMETIMES is refused" "$?:$err" \
    '^[12]:kctl: error: Invalid --mail-type specification "SOMETIMES"'
as_user "$A" kctl release "$id"
ok "the updated job completes" wait_state "$id" COMPLETED
ok "one mail" wait_mails "$id" 1
sleep 0.5
is "BEGIN only, to the new address" \
    "$(subjects "$id" | sed 's/, Queued time.*//'):$(sed -n 4p "$(mail_of "$id" Began)/argv")" \
    "Slurm Job_id=$id Name=upd Began:x@y.example"

# A bad --mail-type is refused with sbatch's words, in a script too.
err=$(cd "$W" && as_user "$A" ksubmit --mail-type=BOGUS --wrap true 2>&1)
rc=$?
like "--mail-type=BOGUS is refused" "$rc:$err" \
    '^[12]:ksubmit: error: Invalid --mail-type specification "BOGUS"'
printf '#!/bin/sh\n#SBATCH --mail-type=START,FINISH\ntrue\n' >"$W/bad.sh"
chown "$A:" "$W/bad.sh"
err=$(cd "$W" && as_user "$A" ksubmit bad.sh 2>&1)
like "in an #SBATCH line too" "$err" 'Invalid --mail-type specification'
err=$(cd "$W" && as_user "$A" ksubmit --mail-user=-oQ/tmp/x --wrap true 2>&1)
like "a --mail-user that would be an option is refused" "$err" \
    "invalid --mail-user \"-oQ/tmp/x\": may not begin with '-'"

# The time limit's half.
ok "TIME_LIMIT_50: the job runs" wait_state "$tl" RUNNING
for _ in $(seq 450); do
	[ -n "$(subjects "$tl")" ] && break
	sleep 0.1
done
like "TIME_LIMIT_50 at half the limit" "$(subjects "$tl")" \
    "^Slurm Job_id=$tl Name=half Reached 50% of time limit, Run time 00:00:[0-9][0-9]\$"

# Never twice: a restarted kaid sends nothing it sent before.
before=$(ls "$M" | wc -l)
kaid_stop
kaid_start || bail_out "kaid did not restart"
sleep 2
is "a restart sends no notice again" "$(ls "$M" | wc -l)" "$before"
as_user "$A" kcancel "$tl" "$dep"

# A mail_prog that does not exist: one warning, nothing sent.
KAID_CONF_EXTRA="mail_prog: $T/nowhere"
stack_write_conf "$T"
kill -HUP "$(cat "$T/kaid.pid")"
sleep 1
before=$(ls "$M" | wc -l)
id=$(submit -J lost --mail-type=END --wrap 'true')
id2=$(submit -J lost2 --mail-type=END --wrap 'true')
ok "the first job completes" wait_state "$id" COMPLETED
ok "the second job completes" wait_state "$id2" COMPLETED
sleep 1
is "nothing is sent" "$(ls "$M" | wc -l)" "$before"
is "one warning for both" \
    "$(grep -c "mail_prog \"$T/nowhere\" is not an executable file" "$T/kaid.log")" 1
ok "kaid stops cleanly, with no sanitizer report" kaid_stop_clean

done_testing
