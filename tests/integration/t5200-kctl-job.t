#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t5200-kctl-job: scontrol's job verbs.  kctl show job prints what was
# submitted in scontrol's Key=Value layout; a held job is released by its
# owner (bob may not, and bob may not hold or update it either) and runs
# at the next tick; update changes TimeLimit and Partition of a pending
# job with ksubmit's checks; hold and release refuse a job that is no
# longer pending in scontrol's words; every change leaves an event row
# and an audit line.  show node / show partition print the simulated
# nodes and kaid.yaml's partitions.  Bad usage: one error line, exit 2.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

T=$(mktemp -d /tmp/kai-t5200.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
cat >"$W/held.sh" <<'EOS'
#!/bin/sh
#SBATCH -J heldjob
#SBATCH -t 5
#SBATCH -c 2
#SBATCH --mem=512M
#SBATCH -o held-%j.log
echo "ran $SLURM_JOB_ID"
EOS
chown "$A:" "$W/held.sh"

id=$(cd "$W" && as_user "$A" ksubmit -H --parsable held.sh)
like "a held job is submitted" "$id" '^[0-9]+$'

out=$(as_user "$B" kctl show job "$id")
is "show job: the first line names the job" "$(echo "$out" | head -n 1)" \
    "JobId=$id JobName=heldjob"
uid=$(id -u "$A")
like "show job: the owner as user(uid)" "$out" \
    "^   UserId=$A\($uid\) GroupId=[^ ]+\($(id -g "$A")\)$"
like "show job: held: priority 0, pending, JobHeldUser" "$out" \
    $'   Priority=0 Account=\\(null\\)\n   JobState=PENDING Reason=JobHeldUser'
like "show job: the time limit" "$out" 'TimeLimit=00:05:00'
like "show job: the default partition" "$out" $'\n   Partition=batch\n'
like "show job: tasks and CPUs" "$out" \
    'NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=2'
like "show job: TRES" "$out" 'TRES=cpu=2,mem=512M,node=1'
like "show job: work dir and output" "$out" \
    $'   WorkDir='"$W"$'\n   StdErr='"$W/held-$id.log"$'\n   StdIn=/dev/null\n   StdOut='"$W/held-$id.log"
like "show job: not started" "$out" 'StartTime=Unknown EndTime=Unknown'

# bob may not touch alice's job.
err=$(as_user "$B" kctl release "$id" 2>&1)
is "bob cannot release alice's job: exit 1" "$?" 1
is "bob is told so" "$err" "kctl: error: permission denied for job $id"
err=$(as_user "$B" kctl hold "$id" 2>&1)
is "bob cannot hold it either" "$?:$err" \
    "1:kctl: error: permission denied for job $id"
err=$(as_user "$B" kctl update job "$id" TimeLimit=1 2>&1)
is "bob cannot update it" "$?:$err" "1:kctl: error: permission denied"
like "the refusal is audited" "$(cat "$T/kaid.log")" \
    "audit: uid=$(id -u "$B") action=release job=$id result=permission denied"

# alice updates it while it is held.
out=$(as_user "$A" kctl update job "$id" TimeLimit=10 2>&1)
is "alice raises the time limit: exit 0, silent" "$?:$out" "0:"
like "show job shows it" "$(as_user "$A" kctl show job "$id")" \
    'TimeLimit=00:10:00'
out=$(as_user "$A" kctl update JobId="$id" partition=gpu timelimit=1:00:00 2>&1)
is "scontrol's JobId= form, keys in any case" "$?:$out" "0:"
out=$(as_user "$A" kctl show job "$id")
like "the partition changed" "$out" $'\n   Partition=gpu\n'
like "and the time limit" "$out" 'TimeLimit=01:00:00'
err=$(as_user "$A" kctl update job "$id" Partition=nosuch 2>&1)
is "an unknown partition is refused" "$?:$err" \
    '1:kctl: error: invalid partition specified: "nosuch"'
err=$(as_user "$A" kctl update job "$id" Partition=short 2>&1)
is "a time limit over the new partition's maximum is refused" "$?:$err" \
    '1:kctl: error: requested time limit exceeds the limit of partition "short"'
err=$(as_user "$A" kctl update job "$id" TimeLimit=2-00:00:00 2>&1)
is "and over the current one's" "$?:$err" \
    '1:kctl: error: requested time limit exceeds the limit of partition "gpu"'
out=$(as_user "$A" kctl show job "$id")
like "a refused update changed nothing: the time limit" "$out" \
    'TimeLimit=01:00:00'
like "a refused update changed nothing: the partition" "$out" \
    $'\n   Partition=gpu\n'
is "kqueue still shows it held" "$(as_user "$A" kqueue -h -j "$id" -o '%P %t %R')" \
    "gpu PD (JobHeldUser)"

# alice releases it; it runs at the next tick.
out=$(as_user "$A" kctl release "$id" 2>&1)
is "alice releases her job: exit 0, silent" "$?:$out" "0:"
ok "the released job runs to completion" wait_state "$id" COMPLETED
is "it ran" "$(cat "$W/held-$id.log")" "ran $id"
err=$(as_user "$A" kctl release "$id" 2>&1)
is "releasing a finished job: scontrol's words, exit 1" "$?:$err" \
    "1:kctl: error: Invalid job id specified for job $id"
out=$(as_user "$A" kctl show job "$id")
like "show job shows the finished job" "$out" \
    'JobState=COMPLETED Reason=None'
like "with its node" "$out" $'\n   NodeList=[a-z0-9-]+\n'
is "the changes are events, with who made them" \
    "$(stack_psql "select reason || ':' || actor_uid from events where job_id = $id and from_state = 'PENDING' and to_state = 'PENDING' order by id" | tr '\n' ' ')" \
    "update TimeLimit=600s:$uid update TimeLimit=3600s Partition=gpu:$uid released by user:$uid "
like "and audit lines" "$(cat "$T/kaid.log")" \
    "audit: uid=$uid action=update job=$id TimeLimit=600s result=ok"

# A job that waits (on a job held for good) is held by its owner, then
# released by an operator (root).
dep=$(cd "$W" && as_user "$A" ksubmit --parsable --hold --wrap "true")
id2=$(cd "$W" && as_user "$A" ksubmit --parsable -p gpu --dependency=afterok:"$dep" --wrap "true")
out=$(as_user "$A" kctl hold "$id2" 2>&1)
is "alice holds her pending job" "$?:$out" "0:"
is "kqueue shows JobHeldUser" \
    "$(as_user "$A" kqueue -h -j "$id2" -o '%t %R')" "PD (JobHeldUser)"
out=$(as_user "$A" kctl hold "$id2" 2>&1)
is "holding it again is no error" "$?:$out" "0:"
out=$(kctl release "$id2" 2>&1)
is "an operator releases it" "$?:$out" "0:"
# Released, it gets its submission's priority back (the default class's).
like "show job: not held any more" "$(kctl show job "$id2")" \
    'Priority=50 .*'
as_user "$A" kcancel "$id2" "$dep"

# A running job is no longer pending.
id3=$(cd "$W" && as_user "$A" ksubmit --parsable --wrap "sleep 30")
ok "a job runs" wait_state "$id3" RUNNING
err=$(as_user "$A" kctl hold "$id3" 2>&1)
is "hold of a running job: exit 1" "$?:$err" \
    "1:kctl: error: Job is no longer pending execution for job $id3"
err=$(as_user "$A" kctl update job "$id3" TimeLimit=1 2>&1)
is "update of a running job: exit 1" "$?:$err" \
    "1:kctl: error: Job is no longer pending execution"
err=$(as_user "$A" kctl release 999999,"$id3" 2>&1)
is "one line per job that could not be released" "$?:$err" \
    "1:kctl: error: Invalid job id specified for job 999999
kctl: error: Job is no longer pending execution for job $id3"

# requeue: a running job goes back to PENDING (its pod deleted, the count
# raised, an event row naming who did it) and runs again; bob may not
# requeue alice's job, and a pending job cannot be requeued.
err=$(as_user "$B" kctl requeue "$id3" 2>&1)
is "bob cannot requeue alice's job: exit 1" "$?:$err" \
    "1:kctl: error: permission denied for job $id3"
out=$(as_user "$A" kctl requeue "$id3" 2>&1)
is "alice requeues her running job: exit 0, silent" "$?:$out" "0:"
is "its requeue count is 1" \
    "$(stack_psql "select requeue_count from jobs where id = $id3")" 1
is "the event row names the change and alice" \
    "$(stack_psql "select from_state || '>' || to_state || ':' || reason || ':' || actor_uid from events where job_id = $id3 and to_state = 'PENDING' and from_state is not null")" \
    "RUNNING>PENDING:requeued by user:$(id -u "$A")"
ok "the requeued job runs again" wait_state "$id3" RUNNING
n=$(stack_psql "select count(*) from events where job_id = $id3 and to_state = 'RUNNING'")
is "it started twice" "$n" 2
# kubectl describe pod tells the story too: the first run's pod has a
# Warning "Evicted" with the reason kqueue and kacct give.
evicted=$(kubesim_ctl "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dkai-$id3-0" |
    python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    if e["reason"] != "Scheduled":
        print(e["type"], e["reason"], e["message"], sep="|")')
is "the requeued pod has an Evicted event" "$evicted" \
    "Warning|Evicted|requeued by user"
as_user "$A" kcancel "$id3"
id4=$(cd "$W" && as_user "$A" ksubmit --parsable -H --wrap "true")
err=$(as_user "$A" kctl requeue "$id4" 2>&1)
is "requeue of a pending job: exit 1" "$?:$err" \
    "1:kctl: error: Job is pending execution for job $id4"
as_user "$A" kcancel "$id4"

# show node and show partition.
out=$(as_user "$A" kctl show node gpu-a1)
is "show node: the first line" "$(echo "$out" | head -n 1)" "NodeName=gpu-a1"
like "show node: CPUs and GPUs" "$out" \
    $'   CPUAlloc=[0-9]+ CPUTot=32\n   Gres=gpu:NVIDIA-A100-SXM4-80GB:8 GresUsed=gpu:[0-9]+\n'
like "show node: memory and state" "$out" \
    $'   RealMemory=262144 AllocMem=[0-9]+\n   State=(IDLE|MIXED|ALLOCATED) Jobs=[0-9]+\n   Partitions=batch,gpu,short\n'
is "show node lists every node" \
    "$(as_user "$A" kctl show node | grep -c '^NodeName=')" 4
out=$(as_user "$A" kctl show partition gpu)
is "show partition" "$out" \
"PartitionName=gpu
   Default=NO DefaultTime=1-00:00:00 MaxTime=1-00:00:00
   Nodes=cpu-1,gpu-a[1-2],gpu-h1
   State=UP TotalCPUs=144 TotalNodes=4 TotalGPUs=24
   PendingJobs=0 RunningJobs=0"
like "the default partition says so" "$(as_user "$A" kctl show partition batch)" \
    'Default=YES DefaultTime=NONE MaxTime=UNLIMITED'

err=$(as_user "$A" kctl show job 999999 2>&1)
is "show job of an unknown job: exit 1" "$?:$err" \
    "1:kctl: error: Invalid job id specified"
err=$(as_user "$A" kctl show node nosuch 2>&1)
is "show node of an unknown node: exit 1" "$?:$err" \
    "1:kctl: error: Node nosuch not found"
err=$(as_user "$A" kctl show partition nosuch 2>&1)
is "show partition of an unknown one: exit 1" "$?:$err" \
    "1:kctl: error: Partition nosuch not found"

# Bad usage: one error line, exit 2.
bad()
{
	local what=$1 want=$2
	shift 2
	local err rc
	err=$(as_user "$A" kctl "$@" 2>&1 >/dev/null)
	rc=$?
	is "$what: exit 2" "$rc" 2
	is "$what: one line" "$(echo "$err" | wc -l)" 1
	like "$what: says why" "$err" "$want"
}
bad "show without an entity" '^kctl: error: missing entity' show
bad "show of something else" '^kctl: error: unrecognized entity "queue"' show queue
bad "show with two names" '^kctl: error: unexpected argument "b"' show node a b
bad "show job with a bad id" '^kctl: error: invalid job id "x"' show job x
bad "hold without ids" '^kctl: error: missing job id' hold
bad "release of a bad id" '^kctl: error: invalid job id' release 12x
bad "update without a job" '^kctl: error: missing job' update
bad "update of a node" '^kctl: error: unrecognized update "node"' update node a
bad "update with nothing" '^kctl: error: nothing to update' update job 5
bad "update with an unknown key" \
    '^kctl: error: unrecognized update key "Nice": expected TimeLimit, Partition, MailType or MailUser' \
    update job 5 Nice=10
bad "update with a bad time" '^kctl: error: invalid time limit "soon"' \
    update job 5 TimeLimit=soon
bad "update without a value" '^kctl: error: invalid update "Partition=": expected Key=Value' \
    update job 5 Partition=

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
