#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4122-elastic-shrink: preemption sheds an elastic job's tasks one by
# one.  An elastic job running 8 one-GPU tasks (--min-tasks=4) on two
# nodes of 4 GPUs loses its last 4 to a high-priority job that needs a
# whole node: it stays RUNNING with 4 pods and allocations 0-3, is not
# requeued, its event log and the shed pods' events say why, and it grows
# back to 8 when the preemptor ends.  A kaid killed after such a shrink
# was committed but before its pods were deleted deletes them after the
# restart instead of adopting them or failing the job.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_tiers kubesim real

T=$(mktemp -d /tmp/kai-t4122.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-s1
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_memory: 81920
  - name: gpu-s2
    cpu: 16
    memory: 64Gi
    gpus: 4
    gpu_memory: 81920
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

tasks()
{
	stack_psql "select coalesce(string_agg(task::text, ',' order by task), '')
	    from allocations where job_id = $1"
}

# pods ID PHASE: how many pods of job ID are in PHASE.
pods()
{
	kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io%2Fjob-id%3D$1" |
	    grep -o "\"phase\": *\"$2\"" | wc -l
}

# pod_names ID: the names of job ID's pods, sorted, on one line.
pod_names()
{
	kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io%2Fjob-id%3D$1" |
	    python3 -c 'import json, sys
print(" ".join(sorted(p["metadata"]["name"]
    for p in json.load(sys.stdin)["items"])))'
}

pod_uid()
{
	kubesim_ctl "/api/v1/namespaces/default/pods/$1" |
	    python3 -c 'import json, sys
print(json.load(sys.stdin).get("metadata", {}).get("uid", ""))' 2>/dev/null
}

# wait_for SECONDS CMD...: until CMD succeeds.
wait_for()
{
	local n=$(($1 * 10))
	shift
	for _ in $(seq 1 "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

has_pods()
{
	[ "$(pod_names "$1")" = "$2" ]
}

# running ID N: whether N pods of job ID run.
running()
{
	[ "$(pods "$1" Running)" = "$2" ]
}

# new_pod NAME UID: whether pod NAME is not (any more) the one of UID.
new_pod()
{
	[ "$(pod_uid "$1")" != "$2" ]
}

has_tasks()
{
	[ "$(tasks "$1")" = "$2" ]
}

events()
{
	stack_psql "select coalesce(from_state, '-') || '>' || to_state
	    from events where job_id = $1 order by id" | tr '\n' ' '
}

# --- An elastic job grows to 8 tasks, its last 4 on the second node.
b=$(submit --gpus-per-task=4 --wrap "sleep 300")
ok "a blocker holds one node" wait_state "$b" RUNNING
cat >"$W/el.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 8
#KSUB --min-tasks=4
#SBATCH --gpus-per-task=1
#SBATCH -t 10
while [ ! -e "$SLURM_SUBMIT_DIR/stop-$SLURM_JOB_ID" ]; do sleep 0.2; done
EOS
chown "$A:" "$W/el.sh"
e=$(submit el.sh)
ok "the elastic job starts with 4 tasks" wait_for 20 has_tasks "$e" 0,1,2,3
as_user "$A" kcancel "$b"
ok "it grows to 8 when the blocker ends" \
    wait_for 20 has_tasks "$e" 0,1,2,3,4,5,6,7
all="kai-$e-0 kai-$e-1 kai-$e-2 kai-$e-3 kai-$e-4 kai-$e-5 kai-$e-6 kai-$e-7"
ok "8 pods" wait_for 20 has_pods "$e" "$all"
ok "8 run" wait_for 20 running "$e" 8
n2=$(stack_psql "select node from allocations where job_id = $e and task = 4")

# --- A job that needs a whole node takes the second one: 4 tasks go.
h=$(submit --priority=inference --gpus-per-task=4 --wrap "sleep 10")
ok "the preemptor runs" wait_state "$h" RUNNING 300
is "on the node of the shed tasks" \
    "$(stack_psql "select node from allocations where job_id = $h")" "$n2"
is "the elastic job is still RUNNING" \
    "$(stack_psql "select state from jobs where id = $e")" RUNNING
is "with allocations 0-3" "$(tasks "$e")" 0,1,2,3
four="kai-$e-0 kai-$e-1 kai-$e-2 kai-$e-3"
ok "only its pods 0-3 are left" wait_for 20 has_pods "$e" "$four"
is "4 of them run" "$(pods "$e" Running)" 4
is "it was not requeued" \
    "$(stack_psql "select requeue_count from jobs where id = $e")" 0
unlike "its event log has no PREEMPTED" "$(events "$e")" PREEMPTED
like "its last event is the shrink, with the tasks and the reason" \
    "$(stack_psql "select from_state || '>' || to_state || ' ' || reason
	from events where job_id = $e order by id desc limit 1")" \
    '^RUNNING>RUNNING tasks 4-7 .*(preempt|priority)'
like "kqueue: RUNNING, 8 tasks asked, one node" \
    "$(as_user "$A" kqueue -j "$e" --noheader -o '%t %D %N')" '^R 8 gpu-s[12]$'
is "kacct: what its 4 tasks hold" \
    "$(as_user "$A" kacct -j "$e" -P -n --format=State,AllocGPUs)" \
    'RUNNING|4'
pev=$(kubesim_ctl "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dkai-$e-7" |
    python3 -c 'import json, sys
for e in json.load(sys.stdin)["items"]:
    print(e.get("type"), e.get("reason"))')
like "a shed pod got the Preempted event" "$pev" 'Warning Preempted'
pev=$(kubesim_ctl "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dkai-$e-0" |
    python3 -c 'import json, sys
for e in json.load(sys.stdin)["items"]:
    print(e.get("type"), e.get("reason"))')
unlike "a kept pod did not" "$pev" 'Preempted'

# --- The preemptor ends: the job grows back.
ok "the preemptor completes" wait_state "$h" COMPLETED 300
ok "the elastic job grows back to 8 tasks" \
    wait_for 30 has_tasks "$e" 0,1,2,3,4,5,6,7
ok "with 8 pods running" wait_for 30 running "$e" 8

# --- kaid dies between the commit of a shrink and the deletes: the rows
# are gone, the pods are not.  After the restart the pods go, the job
# runs on, and it grows again with new pods.
old=$(pod_uid "kai-$e-7")
kaid_kill9
stack_psql "begin; delete from allocations where job_id = $e and task >= 4;
    update jobs set nodelist = (select node from allocations
	where job_id = $e and task = 0) where id = $e; commit" >/dev/null
kaid_start || bail_out "kaid did not restart"
ok "after the restart the pods without allocations are deleted" \
    wait_for 30 new_pod "kai-$e-7" "$old"
is "the job is still RUNNING" \
    "$(stack_psql "select state from jobs where id = $e")" RUNNING
ok "and grows back to 8 tasks" wait_for 30 has_tasks "$e" 0,1,2,3,4,5,6,7
renewed()
{
	local u
	u=$(pod_uid "kai-$e-7")
	running "$e" 8 && [ -n "$u" ] && [ "$u" != "$old" ]
}
ok "with 8 pods running, task 7's a new one" wait_for 30 renewed
touch "$W/stop-$e"
ok "the job completes when its 8 tasks end" wait_state "$e" COMPLETED 300
is "never requeued" \
    "$(stack_psql "select requeue_count from jobs where id = $e")" 0

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
