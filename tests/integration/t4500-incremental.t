#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4500-incremental: a busy cluster's steady state, where kaid's core
# leaves alone the waiting jobs nothing changed for (doc/scheduler.md,
# "Incremental cycles"; kaid numbers its jobs in daemons/kaid/snapgen.c).
# alice fills both nodes, then alice and bob queue 1-GPU jobs behind
# her; with every GPU taken the queue is closed, and all but the first
# 64 of its waiting jobs (the start estimates' candidates) are left
# alone at every tick although every user's usage decays at every tick.
# Their reasons stay what a cycle over every job gives them (kaid
# restarted: a fresh core context runs every job), and when room frees
# the right jobs start: bob's oldest four (bob has had less, so his jobs
# come first in the queue).  The metric kaibatch_sched_jobs_left_alone
# says how many jobs the last cycle left alone.  All of it with kaid's
# default backfill_reservations, which reserve nothing while no job has
# a time limit; one job with a limit makes every cycle run every job.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t4500.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-n1
    cpu: 64
    memory: 256Gi
    gpus: 4
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
  - name: gpu-n2
    cpu: 64
    memory: 256Gi
    gpus: 4
    gpu_product: NVIDIA-A100-SXM4-80GB
    gpu_memory: 81920
EON
# kaid's default backfill_reservations (4): with no job limited (the
# batch partition has no max_time) no reservation can be made, and jobs
# are left alone; a job with a time limit makes every cycle run over
# every job (checked at the end).
# Usage decays with a short half-life, so that it moves at every tick.
KAID_CONF_EXTRA='scheduling:
  usage_half_life: 10m
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

# left_alone: the metric, as an integer.
left_alone()
{
	curl -sS -m 5 "$KAID_HTTP/metrics" |
	    awk '$1 == "kaibatch_sched_jobs_left_alone" { printf "%d", $2 }'
}

# reasons: every pending job's id and reason code, then its line with
# the reason's sentence.
reasons()
{
	as_user "$A" kqueue -t PD --noheader -o '%i %r' | sort -n
	as_user "$A" kqueue -t PD --noheader --why | sort -n
}

# wait_left_alone N: until the last cycle left at least N jobs alone.
wait_left_alone()
{
	local n
	for _ in $(seq 1 100); do
		n=$(left_alone)
		[ "${n:-0}" -ge "$1" ] && return 0
		sleep 0.1
	done
	echo "# left alone: ${n:-none}" >&2
	return 1
}

f1=$(submit "$A" --gpus-per-task=4 -J fill1 --wrap "sleep 600")
f2=$(submit "$A" --gpus-per-task=4 -J fill2 --wrap "sleep 600")
ok "alice's first 4-GPU job runs" wait_state "$f1" RUNNING
ok "... and her second: every GPU is taken" wait_state "$f2" RUNNING

# 50 waiting jobs each, submitted in turn; bob's come first in the
# queue (less usage), then alice's: 36 of alice's are beyond the 64
# start-estimate candidates.
bob=() alice=()
for i in $(seq 1 50); do
	bob+=("$(submit "$B" --gpus-per-task=1 -J "b$i" --wrap "sleep 600")")
	alice+=("$(submit "$A" --gpus-per-task=1 -J "a$i" --wrap "sleep 600")")
done
is "100 jobs wait" "$(as_user "$A" kqueue -t PD --noheader | wc -l)" 100

ok "the steady state leaves 36 waiting jobs alone at a tick" \
    wait_left_alone 36
is "... exactly the 36 beyond the start estimates" "$(left_alone)" 36
before=$(reasons)
why_last=$(as_user "$A" kqueue -j "${alice[49]}" --noheader --why)
diag "alice's last job: $why_last"
like "a job left alone has a reason" "$why_last" '\(.*waiting.*\)'
sleep 2 # ten ticks at least, every user's usage decayed in each
is "reasons stay as they were over ten ticks" "$(reasons)" "$before"
ok "... and jobs are still left alone" wait_left_alone 36

# A cycle over every job: kaid restarted, with a fresh core context.
kaid_stop
kaid_start || bail_out "kaid did not restart"
for _ in $(seq 1 50); do
	[ "$(reasons)" = "$before" ] && break
	sleep 0.1
done
is "a cycle over every job gives every job the same reason" \
    "$(reasons)" "$before"
ok "after the restart, jobs are left alone again" wait_left_alone 36

# Room frees: four GPUs; bob's four oldest take them.
as_user "$A" kcancel "$f1"
for i in 0 1 2 3; do
	ok "bob's job b$((i + 1)) starts when room frees" \
	    wait_state "${bob[$i]}" RUNNING
done
is "no other job started" \
    "$(stack_psql "select count(*) from jobs where state = 'RUNNING'")" 5
is "96 jobs wait" "$(as_user "$A" kqueue -t PD --noheader | wc -l)" 96
is "bob's fifth still waits" \
    "$(stack_psql "select state from jobs where id = ${bob[4]}")" PENDING
ok "the new steady state leaves jobs alone again" wait_left_alone 32

# Room frees again, now beside bob's four: alice holds nothing, so
# her jobs may come first; whoever's they are, each user's jobs start
# oldest first, and four of them.
as_user "$A" kcancel "$f2"
for _ in $(seq 1 100); do
	n=$(stack_psql "select count(*) from jobs where state = 'RUNNING'")
	[ "$n" = 8 ] && break
	sleep 0.1
done
is "eight 1-GPU jobs run" "$n" 8
# prefix USER IDS...: the user's running jobs are the first of IDS.
prefix()
{
	local u=$1 id n=0 seen_pending=0
	shift
	for id in "$@"; do
		if [ "$(stack_psql "select state from jobs where id = $id")" = \
		    RUNNING ]; then
			[ "$seen_pending" = 1 ] && return 1
			n=$((n + 1))
		else
			seen_pending=1
		fi
	done
	echo "# $u: $n running" >&2
}
ok "bob's running jobs are his oldest" prefix bob "${bob[@]}"
ok "alice's running jobs are her oldest" prefix alice "${alice[@]}"
ok "and the steady state leaves jobs alone again" wait_left_alone 28

# A job with a time limit: backfill reservations can be made (a running
# job's end is known), and every cycle runs over every job.
lim=$(submit "$B" --gpus-per-task=1 --time=5 -J lim --wrap "sleep 600")
for _ in $(seq 1 100); do
	[ "$(left_alone)" = 0 ] && break
	sleep 0.1
done
is "a job with a time limit: no job is left alone" "$(left_alone)" 0
as_user "$B" kcancel "$lim"
ok "without it, jobs are left alone again" wait_left_alone 28
done_testing
