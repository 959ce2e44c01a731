#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4100-share: fair share and decayed usage as kshare shows them.  On a
# one-node cluster of 2 GPUs, two queues with a GPU quota of 1 each:
# kshare's fair share, allocated and requested follow the queues'
# settings and the jobs; decayed usage grows while jobs run and stays
# after they end; it survives a restart of kaid (it is kept from the
# accounting rows); inside one queue the user who has used more waits
# behind the one who has used less, whatever their order of submission;
# and a queue's past usage lowers its fair share of spare resources,
# unless scheduling.k_value is 0.  kshare's bad options are one line and
# exit 2.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-1
    cpu: 16
    memory: 64Gi
    gpus: 2
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
# Finished jobs are re-read every 2 s; a half-life of an hour keeps the
# figures steady over the test.  Allocation only: this test is about the
# figures and the order of pending jobs; evictions (teamb reclaiming its
# quota from teama) are t4100-preempt's.
KAID_CONF_EXTRA='scheduling:
  phases: [allocate]
  usage_half_life: 1h
  usage_window: 1d
  usage_refresh: 2s'
export KAID_CONF_EXTRA
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
mkdir -p "$T/work" && chmod 777 "$T/work"

submit()
{
	local u=$1
	shift
	(cd "$T/work" && as_user "$u" ksubmit --parsable "$@")
}

# share QUEUE [USER]: kshare's parsable row of a queue, or of a user in it
# (Queue|User|GPUQuota|GPULimit|GPUWeight|GPUFairShare|GPUAlloc|GPUReq|
# GPUUsage|CPU...|Mem...).
share()
{
	kshare --parsable2 --noheader | awk -F'|' -v q="$1" -v u="${2:-}" \
	    '$1 == q && $2 == u'
}

# field ROW N: the Nth field of a parsable row.
field()
{
	printf '%s' "$1" | cut -d'|' -f"$2"
}

# wait_share: until kaid answers kshare (after its first pass).
wait_share()
{
	for _ in $(seq 1 100); do
		kshare >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# --- kshare's command line.
out=$(kshare --bogus 2>&1)
is "an unknown option: one line, exit 2" "$?:$out" \
    '2:kshare: error: unrecognized option "--bogus"'
out=$(kshare -u 2>&1)
is "a missing argument: exit 2" "$?:$out" \
    '2:kshare: error: option "-u" requires an argument'
out=$(kshare extra 2>&1)
is "an operand: exit 2" "$?:$out" '2:kshare: error: unexpected argument "extra"'
out=$(kshare -A 'No!' 2>&1)
like "a bad queue name: exit 2" "$?:$out" \
    '^2:kshare: error: invalid queue name "No!"'
like "-V prints the version" "$(kshare -V)" '^kshare \(kaibatch\) '
like "-h prints the usage" "$(kshare -h)" '^usage: kshare '

# --- Two queues with a GPU quota of 1 each.
kctl queue create teama --gpu-quota 1 >/dev/null &&
    kctl queue create teamb --gpu-quota 1 --gpu-weight 3 >/dev/null &&
    kctl queue create lab >/dev/null &&
    kctl queue create shared --parent lab >/dev/null
ok "four queues created" test $? -eq 0
ok "kaid answers kshare" wait_share

a1=$(submit "$A" -p teama --gpus-per-task=1 --wrap "sleep 300")
a2=$(submit "$A" -p teama --gpus-per-task=1 --wrap "sleep 300")
ok "alice's two 1-GPU jobs run" wait_state "$a2" RUNNING
ok "both of them" wait_state "$a1" RUNNING
b1=$(submit "$B" -p teamb --gpus-per-task=1 --wrap "sleep 300")
ok "bob's job in teamb waits: the node is full" wait_state "$b1" PENDING
sleep 1

tbl=$(kshare)
like "the header names queue, user and the GPU columns" \
    "$(echo "$tbl" | head -n 1)" \
    '^Queue +User +GPUQuota +GPULimit +GPUWeight +GPUFairShare +GPUAlloc +GPUReq +GPUUsage +CPUQuota '
ra=$(share teama)
rb=$(share teamb)
is "teama: quota 1, no limit, weight 1" "$(field "$ra" 3-5)" '1|-1|1'
is "teamb: weight 3" "$(field "$rb" 5)" '3'
is "teama: fair share 1 (its quota), allocated 2, requested 2" \
    "$(field "$ra" 6-8)" '1|2|2'
is "teamb: fair share 1, allocated 0, requested 1" "$(field "$rb" 6-8)" \
    '1|0|1'
is "teama's CPU: allocated 2000 millicores" "$(field "$ra" 14)" '2000'
ua=$(share teama "$A")
is "alice's row in teama holds 2 GPUs" "$(field "$ua" 7)" '2'
json=$(kshare --json -A teama | tr -d ' \n')
like "--json gives the queue's figures" "$json" \
    '"name":"teama","parent":null,"priority":100,"gpu":\{"quota":1,"limit":-1,"over_quota_weight":1,"fair_share":1,"allocated":2,"requested":2,"usage":'
like "and the decay settings" "$json" '"half_life_s":3600,"window_s":86400,"k_value":1'
unlike "-A keeps to the queues named" "$json" '"name":"teamb"'
like "a child queue is indented under its parent" \
    "$(echo "$tbl" | grep -A1 '^lab ' | tail -n 1)" '^ shared +-1 '
sub=$(kshare --parsable2 --noheader -A lab | cut -d'|' -f1 | tr '\n' ' ')
is "-A takes a queue with the queues below it" "$sub" "lab shared "
out=$(kshare -A nosuch 2>&1)
is "an unknown queue: exit 1" "$?:$out" \
    '1:kshare: error: queue "nosuch" does not exist'
only=$(kshare --parsable2 --noheader -u "$B")
unlike "-u keeps to the user's rows" "$only" "\\|$A\\|"
like "and the queues stay" "$only" '^teama\|\|'

# --- Usage grows while jobs run, and stays when they end.
u1=$(field "$(share teama)" 9)
sleep 3
u2=$(field "$(share teama)" 9)
ok "teama's GPU usage grows while its jobs run ($u1 -> $u2 GPU-s)" \
    test "$u2" -gt "$u1"
as_user "$A" kcancel "$a1"
ok "cancelling one of alice's jobs" wait_state "$a1" CANCELLED
ok "lets bob's start" wait_state "$b1" RUNNING
sleep 3 # past a usage refresh: the finished job now comes from PostgreSQL
u3=$(field "$(share teama)" 9)
ok "the finished job's usage stays ($u2 -> $u3 GPU-s)" test "$u3" -ge "$u2"
ua=$(share teama "$A")
ok "alice's decayed usage is shown in teama" \
    test "$(field "$ua" 9)" -ge "$u2"
is "and her allocation is down to 1 GPU" "$(field "$ua" 7)" '1'
ub=$(share teamb "$B")
ok "bob has a row in teamb with less usage than alice" \
    test "$(field "$ub" 9)" -lt "$(field "$ua" 9)"

# --- Usage survives a restart of kaid.
kaid_stop
kaid_start || bail_out "kaid did not restart"
ok "kaid answers kshare again" wait_share
u4=$(field "$(share teama)" 9)
ok "teama's usage survived the restart ($u3 -> $u4 GPU-s)" \
    test "$u4" -ge "$u3"

# --- In one queue, less usage goes first.  alice (more usage) submits
# first, bob (less) second; when one GPU frees, bob's job starts.
a3=$(submit "$A" -p shared --gpus-per-task=1 --wrap "sleep 300")
sleep 1
b3=$(submit "$B" -p shared --gpus-per-task=1 --wrap "sleep 300")
ok "both wait for a GPU" wait_state "$b3" PENDING
sleep 1
as_user "$A" kcancel "$a2"
ok "when alice's job ends, bob's newer job starts" wait_state "$b3" RUNNING
is "alice's older job still waits" \
    "$(stack_psql "select state from jobs where id = $a3")" PENDING
like "kaid logged no scheduler refusal" "$(cat "$T/kaid.log")" '.'
unlike "(the snapshot was never refused)" "$(cat "$T/kaid.log")" \
    'scheduler refused'

# --- With nothing running in teama, its usage comes from PostgreSQL only.
as_user "$A" kcancel "$a3"
as_user "$B" kcancel "$b1" "$b3"
ok "every job cancelled" wait_state "$b3" CANCELLED
kaid_stop
kaid_start || bail_out "kaid did not restart"
ok "kaid answers kshare after a second restart" wait_share
ra=$(share teama)
is "teama holds nothing now" "$(field "$ra" 7-8)" '0|0'
ok "and still shows the usage of its finished jobs ($u4 -> $(field "$ra" 9) GPU-s)" \
    test "$(field "$ra" 9)" -ge "$u4"
ok "so does alice's row" test "$(field "$(share teama "$A")" 9)" -ge "$u4"

# --- Time-based fair share: past usage shifts the division of spare CPU.
# A one-minute window without decay makes a few seconds of use count.
# reconf EXTRA: rewrites kaid.yaml's scheduling: section and reloads it.
reconf()
{
	local n
	KAID_CONF_EXTRA=$1
	stack_write_conf "$T"
	n=$(grep -c 'configuration reloaded' "$T/kaid.log")
	kill -HUP "$(cat "$T/kaid.pid")"
	for _ in $(seq 1 50); do
		[ "$(grep -c 'configuration reloaded' "$T/kaid.log")" -gt "$n" ] &&
		    break
		sleep 0.1
	done
	sleep 1 # a pass with the new settings
}
reconf 'scheduling:
  usage_half_life: 0
  usage_window: 1m
  usage_refresh: 1s'
kctl queue create east --gpu-quota 0 --cpu-quota 0 --mem-quota 0 >/dev/null &&
    kctl queue create west --gpu-quota 0 --cpu-quota 0 --mem-quota 0 >/dev/null
ok "two queues that guarantee nothing, equal weights" test $? -eq 0
e1=$(submit "$A" -p east --cpus-per-task=16 --wrap "sleep 300")
ok "alice's job takes all 16 cores for east" wait_state "$e1" RUNNING
sleep 12
as_user "$A" kcancel "$e1"
ok "and ends" wait_state "$e1" CANCELLED
# Demand that fits the node but not the room left: a pod of another
# scheduler holds both GPUs (as a cluster's other workloads do; a job no
# node could hold at all is refused at submission, t1280).
out=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$STACK_DIR/kubesim/ca.crt" \
    -H "Authorization: Bearer $KUBESIM_TOKEN" \
    -H 'Content-Type: application/json' -X POST -d '{"apiVersion": "v1",
    "kind": "Pod", "metadata": {"name": "gpu-holder"}, "spec": {
    "nodeName": "gpu-1", "schedulerName": "other", "securityContext":
    {"runAsUser": 65534, "runAsGroup": 65534}, "containers": [{"name": "c",
    "image": "busybox", "command": ["sleep", "600"], "resources": {
    "limits": {"nvidia.com/gpu": "2"}}}]}}' \
    "$KUBESIM_URL/api/v1/namespaces/default/pods")
is "another scheduler's pod takes both GPUs" "$out" 201
e2=$(submit "$A" -p east --cpus-per-task=16 --gpus-per-task=1 --wrap "sleep 1")
w2=$(submit "$B" -p west --cpus-per-task=16 --gpus-per-task=1 --wrap "sleep 1")
ok "both queues now ask for all the cores" wait_state "$w2" PENDING
sleep 1
fe=$(field "$(share east)" 13)
fw=$(field "$(share west)" 13)
ok "east, which used the cores, gets the smaller CPU fair share ($fe < $fw)" \
    test "$fe" -lt "$fw"
is "the two shares make up the 16 cores" "$((fe + fw))" 16000
json=$(kshare --json -A east | tr -d ' \n')
like "kshare --json shows east's CPU usage as a share of the capacity" \
    "$json" '"usage_share":0\.[0-9]*[1-9]'
reconf 'scheduling:
  k_value: 0
  usage_half_life: 0
  usage_window: 1m
  usage_refresh: 1s'
is "with k_value 0 (plain weights) the split is even" \
    "$(field "$(share east)" 13)|$(field "$(share west)" 13)" '8000|8000'
as_user "$A" kcancel "$e2"
as_user "$B" kcancel "$w2"

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
