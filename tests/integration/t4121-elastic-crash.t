#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4121-elastic-crash: an elastic job's growth is committed (allocation
# rows) before its pods are made, so a kaid killed in between makes them
# after its restart, once each.  kubesim refuses pod creation while the
# blocker's GPUs free up: the job's late tasks are committed but have no
# pods; kaid is killed, the refusal lifted, and the restarted kaid
# creates exactly the missing pods.  Needs kubesim's failure injection.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t4121.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-c1
    cpu: 16
    memory: 64Gi
    gpus: 4
  - name: gpu-c2
    cpu: 16
    memory: 64Gi
    gpus: 4
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}

nallocs()
{
	stack_psql "select count(*) from allocations where job_id = $1"
}

# pods ID PHASE: how many pods of job ID are in PHASE.
pods()
{
	kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io%2Fjob-id%3D$1" |
	    grep -o "\"phase\": *\"$2\"" | wc -l
}

wait_pods()
{
	local i
	for i in $(seq 1 150); do
		[ "$(pods "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "# job $1 has $(pods "$1" "$2") pods $2, not $3" >&2
	return 1
}

wait_allocs()
{
	local i
	for i in $(seq 1 150); do
		[ "$(nallocs "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

cat >"$W/el.sh" <<'EOS'
#!/bin/sh
#SBATCH -n 8
#SBATCH --gpus-per-task=1
#KSUB --min-tasks=4
echo "task $SLURM_PROCID ran" >>"$SLURM_SUBMIT_DIR/ran-$SLURM_JOB_ID"
while [ ! -e "$SLURM_SUBMIT_DIR/stop-$SLURM_JOB_ID" ]; do sleep 0.2; done
EOS
chown "$A:" "$W/el.sh"

b=$(submit --gpus-per-task=4 --wrap "sleep 300")
ok "a blocker holds one node" wait_state "$b" RUNNING
e=$(submit el.sh)
ok "the elastic job starts with 4 pods" wait_pods "$e" Running 4

kubesim_ctl "/kubesim/fail?verb=create&resource=pods&code=503" POST >/dev/null
as_user "$A" kcancel "$b"
ok "the blocker is cancelled" wait_state "$b" CANCELLED
ok "the growth is committed: 8 allocations" wait_allocs "$e" 8
sleep 1
is "but pod creation is refused: still 4 pods" \
    "$(pods "$e" Running)/$(pods "$e" Pending)" '4/0'
kaid_kill9
kubesim_ctl "/kubesim/fail" DELETE >/dev/null
kaid_start || bail_out "kaid did not restart"
ok "after the restart its 8 pods run" wait_pods "$e" Running 8
is "still RUNNING, 8 allocations" \
    "$(stack_psql "select state from jobs where id = $e")/$(nallocs "$e")" \
    'RUNNING/8'
touch "$W/stop-$e"
ok "the job completes" wait_state "$e" COMPLETED
is "each task ran once" "$(sort "$W/ran-$e" | uniq -c | awk '{print $1}' | sort -u)/$(wc -l <"$W/ran-$e")" \
    '1/8'

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean
done_testing
