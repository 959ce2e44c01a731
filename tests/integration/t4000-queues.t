#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4000-queues: the queue tree in PostgreSQL, managed with kctl.  An
# operator builds a hierarchy, a user cannot; jobs go to leaves only; a
# leaf's GPU limit keeps a job pending with a reason kqueue shows, and
# raising the limit starts it at the next tick without restarting kaid;
# a bad queue file changes nothing and says where it is wrong; a queue
# with active jobs cannot be deleted.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"
kaid_pid=$(cat "$T/kaid.pid")

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable "$@")
}

# wait_reason JOBID REGEX: polls kqueue until the job's line matches.
wait_reason()
{
	local line
	for _ in $(seq 1 100); do
		line=$(as_user "$A" kqueue -j "$1" --noheader --why)
		printf '%s' "$line" | grep -Eq -- "$2" && break
		sleep 0.1
	done
	printf '%s' "$line"
}

# --- An operator builds a hierarchy; a user cannot change anything.
out=$(kctl queue create research --priority 200 2>&1)
is "root creates a top-level queue" "$?:$out" '0:queue "research" created'
out=$(kctl queue create vision --parent research --gpu-limit 1 2>&1)
is "and a leaf with a GPU limit of 1" "$?:$out" '0:queue "vision" created'
out=$(kctl queue create nlp --parent research --gpu-quota 0.5 \
    --gpu-weight 2 2>&1)
is "and a second leaf with a fractional quota" "$?:$out" '0:queue "nlp" created'

before=$(kctl queue list)
out=$(as_user "$A" kctl queue create evil 2>&1)
rc=$?
is "alice cannot create a queue: exit 1" "$rc" 1
like "she is told permission denied" "$out" '^kctl: error: permission denied'
out=$(as_user "$A" kctl queue update vision --gpu-limit 8 2>&1)
like "nor update one" "$?:$out" '^1:kctl: error: permission denied'
out=$(as_user "$A" kctl queue delete nlp 2>&1)
like "nor delete one" "$?:$out" '^1:kctl: error: permission denied'
is "nothing changed" "$(kctl queue list)" "$before"
like "kaid wrote an audit line for the refusal" "$(cat "$T/kaid.log")" \
    "audit: uid=$(id -u "$A") action=queue-apply result=permission denied"

list=$(as_user "$A" kctl queue list)
like "anyone may list the queues: header" "$(echo "$list" | head -n 1)" \
    '^NAME +PARENT +PRIORITY +GPU\(QUOTA/LIMIT/WEIGHT\) +CPU\(QUOTA/LIMIT/WEIGHT\) +MEM\(QUOTA/LIMIT/WEIGHT\) +JOBS +GPUTYPES\(QUOTA/LIMIT/WEIGHT\)$'
like "kaid.yaml's partitions are top-level queues" "$list" \
    '^batch +- +100 +-1/-1/1 +-1/-1/1 +-1/-1/1 +0'
like "research is there with its priority" "$list" \
    '^research +- +200 '
like "vision is under research with its GPU limit" "$list" \
    '^vision +research +100 +-1/1/1 '
like "nlp has its fractional quota and weight" "$list" \
    '^nlp +research +100 +0.5/-1/2 '
json=$(kctl queue list --json)
like "--json gives the scenario shape" "$(echo "$json" | tr -d ' \n')" \
    '"name":"nlp","parent":"research","priority":100,'
like "with exact decimals" "$(echo "$json" | tr -d ' \n')" \
    '"gpu":\{"quota":0.5,"limit":-1,"over_quota_weight":2\}'

# --- Usage errors are caught before anything is sent.
out=$(kctl queue update vision 2>&1)
is "an update without options: exit 2" "$?:$out" \
    '2:kctl: error: nothing to update: give at least one option'
out=$(kctl queue create bad --gpu-quota 2 --gpu-limit 1 2>&1)
is "a limit below the quota: exit 2" "$?:$out" \
    '2:kctl: error: queue "bad": gpu limit 1 is below its quota 2'
out=$(kctl queue create Bad 2>&1)
like "a bad name: exit 2" "$?:$out" '^2:kctl: error: invalid queue name "Bad"'
out=$(kctl queues list 2>&1)
like "an unknown command: exit 2" "$?:$out" \
    '^2:kctl: error: unrecognized command "queues": expected show, hold, release, requeue, update or queue'

# --- Jobs go to existing leaves only.
out=$(submit -p research --wrap "true" 2>&1)
is "a parent queue is refused at submit time" "$?:$out" \
    '1:ksubmit: error: queue "research" is not a leaf: submit to one of its children (vision, nlp)'
out=$(submit -p nosuch --wrap "true" 2>&1)
is "an unknown queue is refused" "$?:$out" \
    '1:ksubmit: error: invalid partition specified: "nosuch"'

# --- A leaf's GPU limit holds the second job, with a reason.
j1=$(submit -p vision --gpus-per-task=1 --wrap "sleep 300")
ok "a 1-GPU job in vision runs" wait_state "$j1" RUNNING
j2=$(submit -p vision --gpus-per-task=1 --wrap "sleep 300")
j3=$(submit -p vision --gpus-per-task=1 --wrap "sleep 300")
like "two more submitted" "$j2 $j3" '^[0-9]+ [0-9]+$'
line=$(wait_reason "$j2" 'at its GPU limit')
like "the second stays pending, the reason naming the queue and its limit" \
    "$line" "^ +$j2 +vision .* PD .*\\(queue \"vision\" is at its GPU limit \\(1\\)\\)\$"
is "in the database too" \
    "$(stack_psql "select state || ': ' || why from jobs where id = $j2")" \
    'PENDING: queue "vision" is at its GPU limit (1)'
like "without --why, kqueue gives Slurm's code for a queue at its limit" \
    "$(as_user "$A" kqueue -j "$j2" --noheader)" "^ +$j2 +vision .* PD .*\\(QOSGrpGRES\\)\$"
is "%r prints the code, and the database keeps it" \
    "$(as_user "$A" kqueue -j "$j2" --noheader -o %r):$(stack_psql "select reason from jobs where id = $j2")" \
    'QOSGrpGRES:QOSGrpGRES'
show=$(as_user "$A" kctl show job "$j2")
like "kctl show job gives the code" "$show" 'JobState=PENDING Reason=QOSGrpGRES$'
like "and the sentence" "$show" '^   Why=queue "vision" is at its GPU limit \(1\)$'
like "kctl queue list counts the active jobs" "$(kctl queue list)" \
    '^vision +research +100 +-1/1/1 +-1/-1/1 +-1/-1/1 +3'

out=$(kctl queue update vision --gpu-limit 2 2>&1)
is "raising the limit" "$?:$out" '0:queue "vision" updated'
ok "lets the second job start at the next tick" wait_state "$j2" RUNNING
is "without restarting kaid" "$(cat "$T/kaid.pid")" "$kaid_pid"
like "the third is now the one at the limit" \
    "$(wait_reason "$j3" 'limit \(2\)')" 'queue "vision" is at its GPU limit \(2\)'
is "and the database says so" \
    "$(stack_psql "select why from jobs where id = $j3")" \
    'queue "vision" is at its GPU limit (2)'

# --- Jobs behind one that waits for free GPUs say how many are ahead.
b1=$(submit -p nlp --gpus-per-task=8 --wrap "sleep 300")
b2=$(submit -p nlp --gpus-per-task=8 --wrap "sleep 300")
ok "two 8-GPU jobs take the two empty nodes" wait_state "$b2" RUNNING
b3=$(submit -p nlp --gpus-per-task=8 --wrap "sleep 300")
like "a third waits for free GPUs" "$(wait_reason "$b3" 'free GPUs')" \
    '\(not enough free GPUs: a task needs 8 on one node, at most 6 are free on any node\)$'
is "the code of a job waiting for free GPUs is Resources" \
    "$(as_user "$A" kqueue -j "$b3" --noheader -o %r)" Resources
b4=$(submit -p nlp --gpus-per-task=8 --wrap "sleep 300")
b5=$(submit -p nlp --gpus-per-task=8 --wrap "sleep 300")
like "the ones behind it count the jobs ahead" "$(wait_reason "$b5" 'ahead')" \
    '\(2 jobs ahead of it in queue "nlp" are waiting for resources\)$'
is "their code is Priority, as in squeue" \
    "$(as_user "$A" kqueue -j "$b5" --noheader -o %R)" '(Priority)'
as_user "$A" kcancel "$b1"
ok "when a node frees up, the first in line starts" wait_state "$b3" RUNNING
like "the next one waits for free GPUs" "$(wait_reason "$b4" 'free GPUs')" \
    'not enough free GPUs'
is "which the database stores" \
    "$(stack_psql "select why from jobs where id = $b4")" \
    'not enough free GPUs: a task needs 8 on one node, at most 6 are free on any node'
like "the last counts one job ahead now" "$(wait_reason "$b5" '1 job ahead')" \
    '\(1 job ahead of it in queue "nlp" is waiting for resources\)$'
is "a new count alone is not written to the database again" \
    "$(stack_psql "select why from jobs where id = $b5")" \
    '2 jobs ahead of it in queue "nlp" are waiting for resources'
as_user "$A" kcancel "$b2" "$b3" "$b4" "$b5"
ok "the nlp jobs are cancelled" wait_state "$b5" CANCELLED
like "the change is audited" "$(cat "$T/kaid.log")" \
    'audit: uid=0 action=queue-update queue=vision result=updated'

# --- A bad file changes nothing and names the place.
cat >"$T/bad.yaml" <<'EOF'
- name: audio
  parent: research
  gpu: {quota: 1, limitt: 2}
EOF
before=$(kctl queue list)
out=$(kctl queue apply -f "$T/bad.yaml" 2>&1)
is "a misspelt key: exit 2" "$?" 2
is "names file:line:col and the key" "$out" \
    "kctl: error: $T/bad.yaml:3:19: unrecognized key \"limitt\" in a queue's gpu block"
cat >"$T/bad2.yaml" <<'EOF'
queues:
  - name: audio
    parent: research
  - name: speech
    parent: research
    memory: {quota: 2048, limit: 1024}
EOF
out=$(kctl queue apply -f "$T/bad2.yaml" 2>&1)
is "a limit below its quota: exit 2" "$?" 2
is "names the queue's place" "$out" \
    "kctl: error: $T/bad2.yaml:4:5: queue \"speech\": memory limit 1024 is below its quota 2048"
cat >"$T/bad3.yaml" <<'EOF'
- name: audio
  parent: research
- name: speech
  parent: nope
EOF
out=$(kctl queue apply -f "$T/bad3.yaml" 2>&1)
is "kaid refuses an unknown parent: exit 1" "$?:$out" \
    '1:kctl: error: parent queue "nope" of queue "speech" does not exist'
is "and nothing of the file was applied" "$(kctl queue list)" "$before"

cat >"$T/good.yaml" <<'EOF'
# The scenario format's queues: shape.
- name: research
  priority: 200
- name: audio
  parent: research
  gpu: {quota: 1, limit: 2, over_quota_weight: 1}
- name: nlp
  parent: research
  priority: 50
EOF
out=$(kctl queue apply -f "$T/good.yaml" 2>&1)
is "a good file is applied" "$?:$out" \
    $'0:queue "research" unchanged\nqueue "audio" created\nqueue "nlp" updated'
like "nlp now has what the file says, defaults elsewhere" "$(kctl queue list)" \
    '^nlp +research +50 +-1/-1/1 '

# --- Delete: refused while jobs are active, allowed after.
out=$(kctl queue delete vision 2>&1)
is "a queue with active jobs cannot be deleted" "$?:$out" \
    '1:kctl: error: queue "vision" has 3 active jobs: it can be deleted once they have finished'
out=$(kctl queue delete research 2>&1)
like "nor a queue with children" "$?:$out" \
    '^1:kctl: error: queue "research" has child queues \(vision, nlp, audio\): delete them first$'
as_user "$A" kcancel "$j1" "$j2" "$j3"
ok "the jobs are cancelled" wait_state "$j3" CANCELLED
out=$(kctl queue delete vision 2>&1)
is "then vision can be deleted" "$?:$out" '0:queue "vision" deleted'
unlike "and is gone from the list" "$(kctl queue list)" '^vision '
out=$(submit -p vision --wrap "true" 2>&1)
is "and from what ksubmit accepts" "$?:$out" \
    '1:ksubmit: error: invalid partition specified: "vision"'
a=$(as_user "$A" kacct -j "$j1" -P -n --format=JobID,Partition,State)
is "kacct still shows its finished jobs" "$a" "$j1|vision|CANCELLED"

# --- A partition added to kaid.yaml is a queue from the SIGHUP on.
printf '  - name: extra\n' >>"$T/kaid.yaml"
kill -HUP "$kaid_pid"
for _ in $(seq 1 50); do
	kctl queue list | grep -q '^extra ' && break
	sleep 0.1
done
like "a new partition becomes a top-level queue on SIGHUP" \
    "$(kctl queue list)" '^extra +- +100 +-1/-1/1 '
like "that takes jobs" "$(submit -p extra --wrap true 2>&1)" '^[0-9]+$'

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
