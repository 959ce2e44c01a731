#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t9005-native-burst: the pods of one watch burst become jobs together
# (doc/k8s-native.md "Lifecycle", daemons/kaid/native_burst.c), on the
# real-API tier:
#  - pods that exist when kaid starts (the pod list) and pods created
#    at once while it runs each become exactly one job and are bound;
#  - the jobs of the pods listed at start are recorded in one
#    transaction, not one each (kaid's debug log says how many);
#  - a row the database refuses does not undo the burst: the other pods
#    become jobs, the refused one stays unbound with no job, and becomes
#    one at its next change once the database takes it.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
. "$top_srcdir/tests/lib/native.sh"

stack_tiers real -- "pods made outside kaid need a real API server"
stack_require

T=$(mktemp -d /tmp/kai-t9005.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_CONF_EXTRA="native:
  schedulers: kai-scheduler
  default_queue: batch"
KAID_LOG_LEVEL=debug
export KAID_CONF_EXTRA KAID_LOG_LEVEL
stack_start "$T" || bail_out "could not start the stack"

native_setup team-b ""

# pods NAME...: one List of bare pods of kai-scheduler, created at once.
pods() {
	local n sep=
	{
		echo '{"apiVersion": "v1", "kind": "List", "items": ['
		for n in "$@"; do
			printf '%s{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "%s"},
 "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
  "containers": [{"name": "c", "image": "busybox",
   "command": ["/bin/sh", "-c", "sleep 600"],
   "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}\n' \
			    "$sep" "$n"
			sep=,
		done
		echo ']}'
	} | kc -n "$NS" create -f - >/dev/null
}
# jobs NAME: how many jobs are named NAME (a bare pod's job is the pod's).
jobs() { kacct -a -n -P -X --name "$1" -o jobid 2>/dev/null | grep -c .; }
nbound_prefix() {	# nbound_prefix PREFIX: how many pods PREFIX-* are bound
	kc -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' |
	    awk -v p="$1-" 'index($1, p) == 1 && $2 != "" { n++ } END { print n + 0 }'
}
bound_prefix() { [ "$(nbound_prefix "$1")" -eq "$2" ]; }
one_job_each() {	# one_job_each PREFIX COUNT
	local i
	for i in $(seq 1 "$2"); do
		[ "$(jobs "$1-$i")" -eq 1 ] || return 1
	done
}
# bursts: the sizes of the bursts kaid recorded in one transaction.
bursts() { sed -n 's/.*recorded the jobs of \([0-9]*\) pods in one transaction.*/\1/p' "$T/kaid.log"; }

# 1. Pods that exist when kaid starts: one burst (a page of the list).
kaid_stop
# shellcheck disable=SC2046 # the names are words
pods $(seq -f 'early-%g' 1 20) || bail_out "could not create the early pods"
kaid_start || bail_out "kaid did not restart"
ok "the 20 pods listed at kaid's start are bound" wait_for 60 bound_prefix early 20
ok "each has exactly one job" one_job_each early 20
like "their jobs were recorded in one transaction" "$(bursts)" '^20$'

# 2. The database refuses one row of a burst: a job named "poison".
stack_psql "create function t9005_poison() returns trigger language plpgsql as
    \$\$ begin if new.name = 'poison' then
    raise exception 'poisoned row for the test'; end if; return new; end \$\$;
    create trigger t9005_poison before insert on jobs for each row
    execute function t9005_poison()" >/dev/null ||
    bail_out "could not add the trigger"
kaid_stop
# shellcheck disable=SC2046 # the names are words
pods $(seq -f 'mixed-%g' 1 5) poison || bail_out "could not create the mixed pods"
kaid_start || bail_out "kaid did not restart"
ok "the 5 other pods of the burst are bound" wait_for 60 bound_prefix mixed 5
ok "each has exactly one job" one_job_each mixed 5
ok "the refused pod stays unbound" test -z "$(pod_node poison)"
is "and has no job" "$(jobs poison)" 0
like "kaid says why" "$(cat "$T/kaid.log")" \
    'pod "team-b/poison": could not record its job: .*poisoned row'
like "the burst was tried in one transaction, then pod by pod" \
    "$(cat "$T/kaid.log")" 'recording the jobs of 6 pods in one transaction failed'

# 3. Pods created at once while kaid runs.
# shellcheck disable=SC2046 # the names are words
pods $(seq -f 'late-%g' 1 20) || bail_out "could not create the late pods"
ok "the 20 pods created while kaid runs are bound" wait_for 60 bound_prefix late 20
ok "each has exactly one job" one_job_each late 20

# 4. The refused pod, once the database takes it, at its next change.
stack_psql "drop trigger t9005_poison on jobs" >/dev/null
kc -n "$NS" label pod poison touched=yes >/dev/null
poison_job() { [ "$(jobs poison)" -eq 1 ]; }
poison_bound() { [ -n "$(pod_node poison)" ]; }
ok "the refused pod becomes a job at its next change" wait_for 30 poison_job
ok "and is bound" wait_for 30 poison_bound

done_testing
